"""Small helpers shared by the test modules that read /mcp answers themselves."""

from __future__ import annotations

import json
import re
from typing import Any

#: The modern era's one protocol version.
MODERN = "2026-07-28"


def error_of(response: Any) -> dict[str, Any]:
    """Return the error object of a JSON-RPC error answer, checking the envelope has no more."""
    payload = json.loads(response.content)
    assert set(payload) == {"jsonrpc", "id", "error"}
    return payload["error"]


def result_of(response: Any) -> Any:
    """Return the result of a plain JSON answer (never an SSE stream)."""
    return json.loads(response.content)["result"]


def write_catalog(locale: Any, language: str, messages: dict[str, str]) -> None:
    """Write a gettext catalog (``<locale>/<language>/LC_MESSAGES/django.mo``) of ``messages``.

    The GNU .mo format, written here so that no test needs gettext's msgfmt installed.
    """
    import struct
    from pathlib import Path

    entries = {"": "Content-Type: text/plain; charset=UTF-8\n", **messages}
    keys = sorted(entries)
    ids = [key.encode() for key in keys]
    strs = [entries[key].encode() for key in keys]
    header = 7 * 4
    tables = header + 2 * 8 * len(keys)
    offsets: list[tuple[int, int]] = []
    blob = b""
    for text in ids + strs:
        offsets.append((len(text), tables + len(blob)))
        blob += text + b"\0"
    data = struct.pack("<7I", 0x950412DE, 0, len(keys), header, header + 8 * len(keys), 0, 0)
    data += b"".join(struct.pack("<2I", *pair) for pair in offsets) + blob
    folder = Path(locale) / language / "LC_MESSAGES"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "django.mo").write_bytes(data)


def unrolled(schema: Any, defs: dict[str, Any], depth: int = 2) -> Any:
    """Inline ``$ref``s to a fixed depth: hypothesis-jsonschema can't generate recursion."""
    if isinstance(schema, list):
        return [unrolled(item, defs, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        if depth == 0:
            return {"not": {}}  # no deeper: the array of children stays empty
        return unrolled(defs[schema["$ref"].rsplit("/", 1)[1]], defs, depth - 1)
    return {key: unrolled(value, defs, depth) for key, value in schema.items() if key != "$defs"}


def admin_action(url: str, tool: str, action: str, credentials: tuple[str, str]) -> None:
    """Sign into the admin at ``url`` and run an action on one tool, as a person would.

    ``credentials`` are a staff user's username and password; ``action`` is an action of the
    exposed tools' changelist (``disable_tools``, ``enable_tools``).
    """
    import re

    import httpx2

    username, password = credentials
    csrf = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
    with httpx2.Client(base_url=url, follow_redirects=True, timeout=30) as browser:
        login = browser.get("/admin/login/")
        token = csrf.search(login.text).group(1)
        browser.post(
            "/admin/login/",
            data={
                "username": username,
                "password": password,
                "csrfmiddlewaretoken": token,
                "next": "/admin/",
            },
        )
        page = browser.get("/admin/mcp_tools/exposedtool/", params={"q": tool}).text
        pk = re.search(r'name="_selected_action" value="(\d+)"[^>]*- ' + tool + '"', page).group(1)
        done = browser.post(
            "/admin/mcp_tools/exposedtool/",
            data={
                "action": action,
                "_selected_action": pk,
                "csrfmiddlewaretoken": csrf.search(page).group(1),
            },
        )
        assert "1 tool" in done.text, done.text[:2000]


def purpose(description: Any) -> str:
    """Return a generated description's purpose: without what a call needs and returns."""
    return re.split(
        r" (?=Needs |Throttled: |Returns |Filters also take )", str(description), maxsplit=1
    )[0]
