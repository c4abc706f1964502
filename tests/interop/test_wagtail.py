"""Wagtail's API v2, a real project from PyPI, made tools by one line (tests/wagtail_site).

The site is migrated, seeded with a blog of 25 posts, checked, and served by gunicorn; the
official Python SDK reads ``tools/list`` once and then does what a model asked about the
blog does, each call on the first try: every argument it passes is one the listed
definition names, valid against its schema. The definitions are validated against the
2026-07-28 wire schema and the Inspector's ``--strict`` lint.
"""

from __future__ import annotations

import asyncio
import os
from contextlib import contextmanager
from pathlib import Path

import jsonschema
import pytest

from tests.interop.test_thirdparty import assert_portable
from tests.processes import gunicorn, manage
from tests.sdk import Wire, all_tools, connect
from tests.wire import validate_exchange

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = [
    f"{model}_{verb}"
    for model in ("page", "image", "document")
    for verb in ("list", "retrieve", "find")
]


def site_env(folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.wagtail_site.settings",
        "MCP_TESTS_DATABASE": str(folder / "db.sqlite3"),
        "MCP_TESTS_CACHE": str(folder / "cache"),
        "MCP_TESTS_MEDIA": str(folder / "media"),
    }


@contextmanager
def served(folder: Path):
    """Migrate, seed and check the site, serve it; yield (base URL, token, check's output)."""
    env = site_env(folder)
    manage(env, "migrate", "--noinput", "-v", "0")
    token = manage(env, "seed_blog").stdout.strip()
    checked = manage(env, "check")
    checks = checked.stdout + checked.stderr
    with gunicorn("tests.wagtail_site.wsgi:application", env) as base:
        yield base, token, checks


class Model:
    """Calls a tool only with arguments its listed definition names and accepts."""

    def __init__(self, client, tools):
        self.client, self.tools = client, tools

    async def call(self, name, arguments):
        schema = self.tools[name].input_schema
        unknown = set(arguments) - set(schema["properties"])
        assert not unknown, f"{name} does not list {unknown}"
        jsonschema.validate(arguments, schema)
        result = await self.client.call_tool(name, arguments)
        assert result.is_error is False, (name, arguments, result.content)
        return result.structured_content


def use_the_blog(base: str, token: str):
    wire = Wire()

    async def scenario():
        async with connect(f"{base}/mcp", token=token, wire=wire) as client:
            tools = await all_tools(client)
            model = Model(client, tools)
            found = {}
            # The blog's index, by its slug; then its posts, newest first, ten at a time.
            index = await model.call("page_list", {"slug": "blog", "type": "blog.BlogIndexPage"})
            found["index"] = index
            blog = index["items"][0]["id"]
            pages = []
            for offset in (0, 10, 20):
                page = await model.call(
                    "page_list",
                    {
                        "child_of": blog,
                        "type": "blog.BlogPage",
                        "order": "-date",
                        "limit": 10,
                        "offset": offset,
                        "fields": "date,intro",
                    },
                )
                pages.append(page)
            found["pages"] = pages
            found["featured"] = await model.call(
                "page_list", {"type": "blog.BlogPage", "featured": True, "fields": "_,title"}
            )
            found["searched"] = await model.call(
                "page_list", {"search": "tomatoes", "type": "blog.BlogPage", "fields": "_,title"}
            )
            post = pages[0]["items"][0]["id"]
            found["retrieved"] = await model.call("page_retrieve", {"pk": post, "fields": "body"})
            found["by_path"] = await model.call("page_find", {"html_path": "/blog/post-3/"})
        return tools, found

    tools, found = asyncio.run(asyncio.wait_for(scenario(), timeout=120))
    for message, status, _, body in wire.posts():
        validate_exchange("2026-07-28", message, status, body)
    return tools, found


def test_a_model_uses_wagtails_api_from_its_definitions_alone(tmp_path):
    with served(tmp_path) as (base, token, checks):
        tools, found = use_the_blog(base, token)
        assert assert_portable(f"{base}/mcp", token, tmp_path) == sorted(TOOLS)
    assert "System check identified no issues" in checks
    assert sorted(tools) == sorted(TOOLS)
    assert tools["page_list"].title == "List pages"
    assert tools["page_list"].description == (
        "List pages. Needs IsAuthenticated. Returns a page of pages (meta, items) with id, "
        "meta, title."
    )
    listing = tools["page_list"].input_schema["properties"]
    for name in ("limit", "offset", "order", "fields", "type", "child_of", "search", "date"):
        assert listing[name].get("description"), name
    assert "type" in listing["date"]["description"]  # a page type's field: only with type
    assert tools["page_retrieve"].input_schema["properties"]["pk"]["description"] == (
        "The page's id, as page_list returns it."
    )
    pages = found["pages"]
    assert [len(page["items"]) for page in pages] == [10, 10, 5]
    assert {page["meta"]["total_count"] for page in pages} == {25}
    titles = [item["title"] for page in pages for item in page["items"]]
    assert titles == [f"Post {number}" for number in range(25, 0, -1)]
    assert set(pages[0]["items"][0]) == {"id", "meta", "title", "date", "intro"}
    assert [item["title"] for item in found["featured"]["items"]] == [
        f"Post {number}" for number in range(4, 26, 4)
    ]
    assert sorted(item["title"] for item in found["searched"]["items"]) == sorted(
        f"Post {number}" for number in range(5, 26, 5)
    )
    assert found["retrieved"]["title"] == "Post 25"
    assert found["retrieved"]["body"] == "<p>Body of post 25.</p>"
    assert found["by_path"]["title"] == "Post 3"
