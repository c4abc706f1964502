"""The reference pages name everything they reference: every setting with its default, every
system check id, and the nav of the site every page (docs/settings.md, docs/checks.md); the
comparison names only tests that exist (docs/comparison.md)."""

from __future__ import annotations

import json
import re

from mcp_tools.conf import DEFAULTS
from tests.docs_samples import REPO

DOCS = REPO / "docs"


def written(value: object) -> str:
    """A default as the settings page writes it: strings quoted as JSON, the rest as Python."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


def cells(line: str) -> list[str]:
    """The cells of a Markdown table's row."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def settings_rows() -> dict[str, str]:
    """Each key of the settings table, with the default its row states."""
    rows: dict[str, str] = {}
    for line in (DOCS / "settings.md").read_text().splitlines():
        row = cells(line)
        if len(row) < 3 or not row[0].startswith("`"):
            continue
        keys = re.findall(r"`([A-Z_]+)`", row[0])
        defaults = [default.strip().strip("`") for default in row[1].split("`, `")]
        if len(defaults) == len(keys):
            rows.update(zip(keys, defaults, strict=True))
        else:
            rows.update(dict.fromkeys(keys, row[1]))
    return rows


def test_the_settings_page_lists_every_key_with_its_default():
    rows = settings_rows()
    assert set(DEFAULTS) - set(rows) == set(), "keys of MCP_TOOLS the page does not list"
    assert set(rows) - set(DEFAULTS) == set(), "keys the page lists that do not exist"
    for key, default in DEFAULTS.items():
        if key == "DISPATCH_SKIP_MIDDLEWARE":  # ten dotted paths: the page points at conf.py
            assert rows[key].startswith("see `conf.py")
            continue
        assert rows[key] == written(default), key


def test_every_page_states_a_settings_default_as_conf_defines_it():
    """A topic page's table of its settings (docs/tasks.md, calllog.md, oauth.md) has a
    "Default" column too: it must not drift from DEFAULTS either."""
    stated = []
    for page in sorted(DOCS.rglob("*.md")):
        header: list[str] | None = None
        for line in page.read_text().splitlines():
            if not line.startswith("|"):
                header = None
                continue
            row = cells(line)
            if header is None:
                header = row
                continue
            key = re.fullmatch(r"`([A-Z_]+)`", row[0])
            if page.name != "settings.md" and "Default" in header[1:2] and key:
                stated.append((page.name, key[1], row[1].strip("`")))
    assert len(stated) >= 15
    for page, key, default in stated:
        assert key in DEFAULTS, f"{page}: {key} is no setting"
        assert default == written(DEFAULTS[key]), f"{page}: {key}"


def check_ids(text: str) -> set[str]:
    return set(re.findall(r"mcp_tools\.[EWI]\d{3}", text))


def test_the_checks_page_documents_every_check_id_the_code_raises():
    raised = set().union(*(check_ids(path.read_text()) for path in REPO.glob("mcp_tools/**/*.py")))
    headings = set(
        re.findall(r"^### (mcp_tools\.[EWI]\d{3})", (DOCS / "checks.md").read_text(), re.M)
    )
    assert raised - headings == set(), "checks the page does not document"
    assert headings - raised == set(), "checks the page documents that the code never raises"


def test_the_site_lists_every_page_and_only_pages_that_exist():
    nav = re.findall(r":\s+([\w/.-]+\.md)$", (REPO / "mkdocs.yml").read_text(), re.M)
    pages = {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md")}
    assert sorted(nav) == sorted(pages)


def test_every_test_the_comparison_page_names_exists():
    """docs/comparison.md names the test behind each claim; a renamed test fails here."""
    named = re.findall(r"`(tests/[\w/]+\.py)((?:::\w+)*)`", (DOCS / "comparison.md").read_text())
    assert len(named) >= 30
    for path, names in named:
        source = (REPO / path).read_text()
        for name in filter(None, names.split("::")):
            assert re.search(rf"^\s*(?:async )?def {name}\(", source, re.M), f"{path}::{name}"
