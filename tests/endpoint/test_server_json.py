"""manage.py mcp_server_json: the site's listing for the official MCP registry."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from mcp_tools.endpoint.server_json import SCHEMA_URL, listing, problems

pytestmark = pytest.mark.django_db


def run(*args):
    out = StringIO()
    call_command("mcp_server_json", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_writes_a_listing_from_the_settings(settings, tmp_path):
    settings.MCP_TOOLS = {
        **settings.MCP_TOOLS,
        "REGISTRY_NAME": "com.example/todos",
        "REGISTRY_DESCRIPTION": "Read and manage your todos.",
        "PUBLIC_URL": "https://todos.example.com/mcp",
        "WEBSITE_URL": "https://todos.example.com/",
        "SERVER_VERSION": "1.4.0",
        "SERVER_ICONS": [{"src": "https://todos.example.com/icon.png", "mimeType": "image/png"}],
    }
    target = tmp_path / "server.json"
    run("--output", str(target))
    document = json.loads(target.read_text())
    assert document == {
        "$schema": SCHEMA_URL,
        "name": "com.example/todos",
        "title": "Test server",
        "description": "Read and manage your todos.",
        "version": "1.4.0",
        "websiteUrl": "https://todos.example.com/",
        "icons": [{"src": "https://todos.example.com/icon.png", "mimeType": "image/png"}],
        "remotes": [
            {
                "type": "streamable-http",
                "url": "https://todos.example.com/mcp",
                "headers": [
                    {
                        "name": "Authorization",
                        # The first of the endpoint's classes: DRF's TokenAuthentication.
                        "description": "Token <your token>: the credentials this site's API takes.",
                        "isRequired": True,
                        "isSecret": True,
                    }
                ],
            }
        ],
    }
    assert problems(document) == []


def test_options_win_over_the_settings():
    document = json.loads(
        run(
            "--name",
            "io.github.someone/api",
            "--description",
            "An API.",
            "--url",
            "https://api.example.org/mcp",
            "--server-version",
            "2.0.0",
        )
    )
    assert (document["name"], document["version"]) == ("io.github.someone/api", "2.0.0")


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        ({"name": "no-namespace"}, "$.name: 'no-namespace' does not match"),
        ({"name": "a/b/c"}, "$.name: 'a/b/c' does not match"),
        ({"description": "x" * 101}, "$.description: "),
        ({"version": "latest"}, "$.version: 'latest' should not be valid"),
        ({"version": "^1.2.3"}, "$.version: '^1.2.3' does not match"),
        (
            {"url": "ftp://example.com/mcp"},
            "$.remotes[0].url: 'ftp://example.com/mcp' does not match",
        ),
    ],
)
def test_a_listing_the_registry_would_refuse_is_refused_here(changes, line):
    arguments = {
        "name": "com.example/todos",
        "description": "Todos.",
        "version": "1.0.0",
        "url": "https://example.com/mcp",
        **changes,
    }
    (found,) = problems(listing(**arguments))
    assert found.startswith(line)
    flags = [
        f"--{key if key != 'version' else 'server-version'}={value}"
        for key, value in arguments.items()
    ]
    with pytest.raises(CommandError, match="The registry would refuse this server.json"):
        run(*flags)


def test_missing_values_are_named():
    with pytest.raises(CommandError) as excinfo:
        run()
    assert str(excinfo.value) == (
        "server.json needs --name (or MCP_TOOLS['REGISTRY_NAME']), --description (or "
        "MCP_TOOLS['REGISTRY_DESCRIPTION']), --url (or MCP_TOOLS['PUBLIC_URL'])."
    )


def test_an_open_endpoint_lists_no_authorization_header(settings):
    settings.MCP_TOOLS = {**settings.MCP_TOOLS, "AUTHENTICATION_CLASSES": []}
    document = json.loads(
        run("--name", "com.example/open", "--description", "Open.", "--url", "https://e.com/mcp")
    )
    assert "headers" not in document["remotes"][0]
