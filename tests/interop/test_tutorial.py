"""Projects built as in DRF's own tutorial and quickstart make complete tools (tests/tutorial).

Each project is a fresh Django project (its own settings, URLconf and database), set up as
the README's quickstart says, served by gunicorn and driven by the official MCP client: the
test builds it, lists its tools and calls them.
"""

import asyncio
import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conformance_app.server import REPO
from tests.interop.test_inspector_strict import ACCEPTED_WARNINGS, list_strict
from tests.processes import gunicorn
from tests.sdk import Wire, all_tools, connect
from tests.wire import validate_exchange

STANDARD = ("list", "create", "retrieve", "update", "partial_update", "destroy")

MAKE_USER = """
import django
django.setup()
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
user = User.objects.create_user("ada", password="ada-password")
print(Token.objects.create(user=user).key)
"""


def project_env(project: str, folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.tutorial.settings",
        "MCP_TUTORIAL_PROJECT": project,
        "MCP_TESTS_DATABASE": str(folder / "db.sqlite3"),
        "MCP_TESTS_CACHE": str(folder / "cache"),
    }


MAKE_BOOKS = """
import django
django.setup()
from tests.tutorial.library.models import Author, Book
author = Author.objects.create(name="Ursula K. Le Guin")
for n in range(11):
    Book.objects.create(title=f"Book {n}", author=author, price="9.50")
"""


def run(env, *command):
    done = subprocess.run(
        [sys.executable, *command], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@contextmanager
def built(project: str, folder: Path):
    """Migrate the project, make a user with a token, serve it; yield (url, token, checks).

    The checks are ``manage.py check`` and ``manage.py mcp_lint --fail-level warning``: a
    smell at the default level fails the build, as in a project's CI.
    """
    env = project_env(project, folder)
    run(env, "manage.py", "migrate", "--noinput", "-v", "0")
    checks = run(env, "manage.py", "check", "--tag", "mcp_tools")
    checks += run(env, "manage.py", "mcp_lint", "--fail-level", "warning")
    token = run(env, "-c", MAKE_USER).strip()
    if project == "library":
        run(env, "-c", MAKE_BOOKS)
    with gunicorn("tests.tutorial.wsgi:application", env) as base:
        yield f"{base}/mcp", token, checks


def session(url, token, calls):
    """List every tool, then make ``calls`` (each a function of the results so far)."""
    wire = Wire()

    async def scenario():
        async with connect(url, token=token, mode="auto", wire=wire) as client:
            tools = await all_tools(client)  # every page (PAGE_SIZE)
            results = []
            for call in calls:
                name, arguments = call(results)
                results.append(await client.call_tool(name, arguments))
            return tools, results

    tools, results = asyncio.run(asyncio.wait_for(scenario(), timeout=90))
    for message, status, _, body in wire.posts():
        validate_exchange("2026-07-28", message, status, body)
    return tools, results


def assert_complete(tools, viewsets):
    """Complete input schemas, integer pks, and a description of its own for every tool; every
    argument described."""
    for name, tool in tools.items():
        schema = tool.input_schema
        for argument, prop in schema["properties"].items():
            assert prop.get("description"), (name, argument)
        if "pk" in schema["properties"]:
            assert schema["properties"]["pk"]["type"] == "integer", name
        if name.endswith(("_create", "_update")):  # every body tool lists its fields
            assert set(schema["properties"]) - {"pk"}, (name, schema)
        if name.endswith(("_create", "_update")) and not name.endswith("_partial_update"):
            assert set(schema.get("required", [])) - {"pk"}, (name, schema)
    for basename, actions in viewsets.items():
        texts = [tools[f"{basename}_{action}"].description for action in actions]
        assert len(set(texts)) == len(texts), texts
    assert len({tool.description for tool in tools.values()}) == len(tools)


@pytest.mark.django_db(transaction=True)
def test_the_tutorials_snippets_project(tmp_path):
    with built("snippets", tmp_path) as (url, token, checks):
        tools, results = session(
            url,
            token,
            [
                lambda r: ("snippet_create", {"title": "hi", "code": 'print("hi")'}),
                lambda r: ("snippet_retrieve", {"pk": r[0].structured_content["id"]}),
                lambda r: ("snippet_highlight", {"pk": r[0].structured_content["id"]}),
                lambda r: ("my_snippet_retrieve", {"pk": r[0].structured_content["id"]}),
                lambda r: ("preview", {"code": "x = 1", "language": "python"}),
                lambda r: ("snippet_destroy", {"pk": r[0].structured_content["id"]}),
            ],
        )
    assert "System check identified no issues" in checks
    assert sorted(tools) == sorted(
        [f"snippet_{action}" for action in (*STANDARD, "highlight")]
        + ["user_list", "user_retrieve", "my_snippet_list", "my_snippet_retrieve", "preview"]
    )
    assert_complete(
        tools,
        {"snippet": (*STANDARD, "highlight"), "my_snippet": ("list", "retrieve")},
    )
    create = tools["snippet_create"].input_schema
    assert sorted(create["properties"]) == ["code", "language", "linenos", "style", "title"]
    assert create["required"] == ["code"]  # the model gives the rest their defaults
    assert len(create["properties"]["language"]["enum"]) > 100  # Pygments' lexers
    assert tools["snippet_list"].description == (
        "List snippets. Code snippets, highlighted; everyone may read them, their owners "
        "change them. Needs IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly. Returns a page of "
        "snippets (count, next, previous, results) with url, id, highlight, owner, title, code, "
        "linenos, language, …. To go on, call again with the page the result names."
    )
    assert create["properties"]["linenos"]["default"] is False  # the model's default
    assert create["properties"]["style"]["type"] == "string"
    assert sorted(tools["preview"].input_schema["properties"]) == ["code", "language"]
    created, fetched, highlighted, mine, preview, deleted = results
    assert created.is_error is False and created.structured_content["owner"] == "ada"
    assert fetched.structured_content["code"] == 'print("hi")'
    assert highlighted.is_error is False and "<html" in highlighted.content[0].text
    assert mine.structured_content["id"] == created.structured_content["id"]
    assert '<span class="n">x</span>' in preview.structured_content["html"]
    assert deleted.is_error is False
    assert [block.text for block in deleted.content] == ["Deleted (204 No Content)."]
    assert "0 smells at warning or above" in checks


@pytest.mark.django_db(transaction=True)
def test_the_quickstart_project(tmp_path):
    with built("quickstart", tmp_path) as (url, token, checks):
        tools, results = session(
            url,
            token,
            [
                lambda r: ("group_create", {"name": "editors"}),
                lambda r: ("group_retrieve", {"pk": 1}),
                lambda r: (
                    "user_create",
                    {"username": "grace", "groups": [r[0].structured_content["url"]]},
                ),
                lambda r: ("user_list", {}),
            ],
        )
    assert "System check identified no issues" in checks
    assert sorted(tools) == sorted(f"{b}_{a}" for b in ("user", "group") for a in STANDARD)
    assert_complete(tools, {"user": STANDARD, "group": STANDARD})
    groups = tools["user_create"].input_schema["properties"]["groups"]
    assert (groups["type"], groups["items"]["type"], groups["items"]["format"]) == (
        "array",
        "string",
        "uri",
    )
    assert "0 smells at warning or above" in checks
    group, fetched, user, users = results
    assert fetched.structured_content["name"] == "editors"
    assert user.is_error is False, user.content
    assert user.structured_content["groups"] == [group.structured_content["url"]]
    assert [u["username"] for u in users.structured_content["results"]] == ["grace", "ada"]


@pytest.mark.django_db(transaction=True)
def test_the_library_project(tmp_path):
    """A library app (authors, books, a FilterSet, an action, an APIView, an ``@api_view``):
    its definitions name what a foreign key refers to, label its choices and say its decimals
    in words; a bad decimal is refused in words, a page names the next one as arguments, a
    delete answers a confirmation."""
    with built("library", tmp_path) as (url, token, checks):
        tools, results = session(
            url,
            token,
            [
                lambda r: ("book_create", {"title": "Dune", "author": 1, "price": "1.999"}),
                lambda r: (
                    "book_create",
                    {"title": "Odes", "author": 1, "price": 12.5, "genre": "poetry"},
                ),
                lambda r: ("book_list", {"genre": "novel"}),
                lambda r: ("book_list", {"genre": "novel", "page": 2}),
                lambda r: ("book_destroy", {"pk": r[1].structured_content["id"]}),
                lambda r: ("quote", {"price": "12345", "copies": 2}),
                lambda r: ("book_lend", {"pk": 1}),
                lambda r: ("book_list", {"genre": "Science"}),  # the label, not the value
            ],
        )
        strict = list_strict(url, token, tmp_path / "home")
    assert "System check identified no issues" in checks
    assert "0 smells at warning or above" in checks
    assert sorted(tools) == sorted(
        [f"{basename}_{action}" for basename in ("author", "book") for action in STANDARD]
        + ["book_lend", "stats", "quote"]
    )
    assert_complete(tools, {"author": STANDARD, "book": (*STANDARD, "lend")})
    create = tools["book_create"].input_schema["properties"]
    assert create["author"] == {
        "type": "integer",
        "minimum": 1,
        "description": "The id of an author; author_list lists them.",
    }
    assert create["genre"]["oneOf"][3] == {"const": "sci", "title": "Science"}
    assert (create["genre"]["type"], create["genre"]["default"]) == ("string", "novel")
    assert (create["in_print"]["default"], create["lent"]["default"]) == (True, False)
    assert create["price"]["description"] == (
        "Price in euros. A decimal number with at most 4 digits before the point and 2 after, "
        "as a number or a string."
    )
    listing = tools["book_list"].input_schema["properties"]
    assert listing["author"]["description"] == "The id of an author; author_list lists them."
    assert "call again with the page the result names" in tools["book_list"].description

    refused, poetry, first, second, deleted, quote, lent, labelled = results
    assert refused.is_error is True
    assert refused.content[0].text == (
        'Invalid arguments: $.price: "1.999" is not a decimal number with at most 4 digits '
        "before the point and 2 after"
    )
    assert poetry.is_error is False and poetry.structured_content["genre"] == "poetry"
    assert [block.text for block in first.content][1:] == [
        'Next page: {"genre": "novel", "page": 2}.'
    ]
    assert first.structured_content["next"].endswith("?genre=novel&page=2")
    assert [block.text for block in second.content][1:] == ['Previous page: {"genre": "novel"}.']
    assert [block.text for block in deleted.content] == ["Deleted (204 No Content)."]
    assert quote.is_error is True and "at most 4 digits before the point" in quote.content[0].text
    assert lent.is_error is False, lent.content
    assert lent.structured_content["lent"] is True
    assert sorted(tools["book_lend"].input_schema["properties"]) == ["pk"]
    assert labelled.is_error is True
    assert labelled.content[0].text == (
        'Invalid arguments: $.genre: "Science" is not one of ["novel", "poetry", "history", "sci"]'
    )

    assert strict.returncode == 0, strict.stderr
    rules = {
        finding["rule"]
        for tool in json.loads(strict.stdout).get("schemaFindings", [])
        for finding in tool["findings"]
    }
    assert rules <= ACCEPTED_WARNINGS, strict.stderr


@pytest.mark.parametrize("project", ["snippets", "quickstart"])
@pytest.mark.django_db(transaction=True)
def test_the_inspector_finds_the_tutorials_definitions_portable(project, tmp_path):
    with built(project, tmp_path) as (url, token, checks):
        strict = list_strict(url, token, tmp_path / "home")
    assert strict.returncode == 0, strict.stderr
    listed = json.loads(strict.stdout)
    assert listed["result"]["tools"]
    rules = {
        finding["rule"] for tool in listed.get("schemaFindings", []) for finding in tool["findings"]
    }
    assert rules <= ACCEPTED_WARNINGS, strict.stderr
