"""Tests of the mcp_remote management command, against a real SDK server over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.test_client import HTTP_SERVER, PNG, file_part, http_server, text_part

TOOL_LIST = "greet: Say hello.\nwhoami: Return the Authorization header received.\nchart\nfail\n"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with http_server(HTTP_SERVER, PNG) as url:
        yield url


def run(*args: str) -> str:
    stdout = StringIO()
    call_command("mcp_remote", *args, "--timeout", "10", stdout=stdout)
    return stdout.getvalue()


@pytest.mark.parametrize("options", [(), ("--list",)])
def test_lists_tools(server_url: str, options: tuple[str, ...]) -> None:
    assert run(server_url, *options) == TOOL_LIST


def test_lists_titles_and_schemas_when_verbose(server_url: str) -> None:
    listing = run(server_url, "--verbosity", "2")
    assert "greet: Say hello.\n    title: Greet\n    input schema: {\n" in listing
    assert '      "required": [\n        "name"\n      ],' in listing


def test_calls_a_tool(server_url: str) -> None:
    assert run(server_url, "--call", "greet", "--arguments", '{"name": "Ada"}') == "Hello, Ada!\n"


def test_prints_a_list_output_as_json(server_url: str) -> None:
    assert json.loads(run(server_url, "--call", "chart")) == [text_part("chart:"), file_part()]


def test_sends_headers(server_url: str) -> None:
    output = run(server_url, "--header", "Authorization:  Token abc ", "--call", "whoami")
    assert output == "Token abc\n"


def test_truncates_with_max_chars(server_url: str) -> None:
    output = run(
        server_url,
        "--call",
        "greet",
        "--arguments",
        '{"name": "' + "a" * 200 + '"}',
        "--max-chars",
        "100",
    )
    assert output == "Hello, " + "a" * 54 + "\n[truncated 147 characters (147 bytes)]\n"


ERROR_CASES = [
    ("tool error", ("--call", "fail"), "^Not allowed$"),
    (
        "unknown tool",
        ("--call", "nope"),
        r"^Unknown tool 'nope'\. Tools: greet, whoami, chart, fail$",
    ),
    (
        "arguments not an object",
        ("--call", "greet", "--arguments", "[1]"),
        "^--arguments must be a JSON object$",
    ),
    (
        "arguments not JSON",
        ("--call", "greet", "--arguments", "{"),
        "^--arguments is not valid JSON",
    ),
    ("arguments without call", ("--arguments", "{}"), r"^--arguments needs --call NAME$"),
    (
        "bad header",
        ("--header", "Authorization Token abc"),
        "^--header must look like 'Name: value'$",
    ),
    ("marker does not fit", ("--call", "greet", "--max-chars", "5"), "^--max-chars: max_chars=5"),
    ("list and call", ("--list", "--call", "greet"), "not allowed with argument"),
]


@pytest.mark.parametrize(
    ("options", "message"), [pytest.param(*case[1:], id=case[0]) for case in ERROR_CASES]
)
def test_errors_are_command_errors(server_url: str, options: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(server_url, *options)


def test_server_errors_are_command_errors(server_url: str) -> None:
    with pytest.raises(CommandError, match="^Not Found$"):
        run(server_url.removesuffix("/mcp") + "/elsewhere", "--list")
