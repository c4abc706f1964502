"""Plain substitution (``mcp_tools.prompts.substitution``): only exact ``{argument}`` tokens
of declared arguments, in one pass; nothing reaches a template language or str.format."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_tools.models import Prompt
from mcp_tools.prompts.substitution import fill

# The suite's fuzz budget, bounded: a pure function's property needs no endpoint-sized run.
EXAMPLES = min(int(os.environ.get("MCP_FUZZ_EXAMPLES", "200")), 400)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello {who}", "Hello world"),
        ("{who}{who}", "worldworld"),
        ("{{% include 'secret.html' %}}", "{{% include 'secret.html' %}}"),
        ("{% include 'secret.html' %} {{ settings.SECRET_KEY }}", None),
        ("{who.__class__} {who!r} {who:>10} {0} {}", None),
        ("{undeclared} { who } {WHO}", None),
    ],
)
def test_only_exact_tokens_of_declared_arguments_are_filled(text, expected):
    filled = fill(text, ["who"], {"who": "world"})
    assert filled == (text if expected is None else expected)


def test_a_value_that_holds_a_placeholder_is_not_filled_again():
    assert fill("{a} {b}", ["a", "b"], {"a": "{b}", "b": "x"}) == "{b} x"


def test_a_declared_argument_without_a_value_stays_as_written():
    assert fill("{a} {b}", ["a", "b"], {"a": "1"}) == "1 {b}"


def reference(text: str, values: dict[str, str]) -> str:
    """Scan left to right: a ``{name}`` of a declared name is its value, the rest as is."""
    out, index = [], 0
    names = sorted(values, key=len, reverse=True)
    while index < len(text):
        for name in names:
            token = "{" + name + "}"
            if text.startswith(token, index):
                out.append(values[name])
                index += len(token)
                break
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
pieces = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["{", "}", "{{", "}}", "{%", "%}", "{0}", "{}", ".__class__", "!r"]),
    names.map(lambda name: "{" + name + "}"),
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    text=st.lists(pieces, max_size=12).map("".join),
    values=st.dictionaries(names, st.text(max_size=10), max_size=4),
)
def test_fill_is_plain_substitution(text, values):
    assert fill(text, list(values), values) == reference(text, values)


def test_fill_calls_no_formatting_machinery():
    # str.format and format_map are built in: no patch can intercept them at run time (a
    # patched string.Formatter.vformat never sees them). Read fill's module instead: a
    # call of any of these names there fails this test.
    import ast
    import inspect

    from mcp_tools.prompts import substitution

    forbidden = {"format", "format_map", "vformat", "Formatter", "Template", "from_string"}
    tree = ast.parse(inspect.getsource(substitution))
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    used |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert used & forbidden == set()


@pytest.fixture
def no_template_engine(monkeypatch):
    """Any use of Django's template language fails the test. (str.format can't be patched:
    the comparison with ``reference`` and test_fill_calls_no_formatting_machinery cover it.)"""
    from django.template import Engine, Template

    def refuse(*args, **kwargs):
        raise AssertionError("a prompt's text reached a template engine")

    monkeypatch.setattr(Engine, "from_string", refuse)
    monkeypatch.setattr(Template, "__init__", refuse)


@pytest.mark.django_db
# The client and the refusing engine are the same for every example: nothing to reset.
@settings(
    max_examples=max(EXAMPLES // 5, 10),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=st.lists(pieces, max_size=10).map("".join), value=st.text(max_size=12))
def test_no_text_or_value_reaches_a_template_engine(text, value, client_for, no_template_engine):
    Prompt.objects.update_or_create(
        name="fuzzed",
        defaults={
            "arguments": [{"name": "topic", "required": True}],
            "messages": [
                {"role": "user", "text": text or "."},
                {"role": "assistant", "resource": {"uri": "app://{topic}", "text": text or "."}},
            ],
        },
    )
    answer = client_for().exchange("prompts/get", {"name": "fuzzed", "arguments": {"topic": value}})
    messages = answer["result"]["messages"]
    assert messages[0]["content"]["text"] == reference(text or ".", {"topic": value})
    assert messages[1]["content"]["resource"]["uri"] == "app://" + value
