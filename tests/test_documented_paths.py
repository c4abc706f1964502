"""Every dotted path the documentation names resolves, and its module says so in ``__all__``.

A user copies ``mcp_tools.pipeline.formatters.ResponseFormatter`` into a setting from the
docs: it must import. And the module holding a documented name lists it in ``__all__``, the
module's public surface (docs/architecture.md).
"""

import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]
DOTTED = re.compile(r"\bmcp_tools(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
#: Named in the docs, but no import path: span attributes, the Celery task's name.
NOT_PATHS = {"mcp_tools.result_type", "mcp_tools.error_ref", "mcp_tools.run_tool_task"}
CHECK_ID = re.compile(r"^mcp_tools\.[EWI][0-9]{3}$")  # a system check's id


def documented() -> dict[str, str]:
    found: dict[str, str] = {}
    for page in PAGES:
        for match in DOTTED.finditer(page.read_text()):
            name = match.group(0)
            if name not in NOT_PATHS and not CHECK_ID.match(name):
                found.setdefault(name, page.relative_to(REPO).as_posix())
    return found


def resolve(name: str) -> tuple[object, object, str]:
    """Import the longest module ``name`` starts with; return it, the object, the rest."""
    parts = name.split(".")
    for size in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:size]))
        except ImportError:
            continue
        value: object = module
        for part in parts[size:]:
            value = getattr(value, part)
        return module, value, ".".join(parts[size:])
    raise ImportError(name)


def test_the_docs_name_paths_at_all():
    assert {"mcp_tools.views.MCPView", "mcp_tools.tasks.runs.run"} <= set(documented())


@pytest.mark.parametrize("name", sorted(documented()))
def test_a_documented_path_resolves_and_is_its_modules_public_name(name):
    module, _value, rest = resolve(name)
    if rest:
        first = rest.split(".")[0]
        public = getattr(module, "__all__", None)
        assert public is not None, f"{module.__name__} has no __all__ ({documented()[name]})"
        assert first in public, f"{first} is not in {module.__name__}.__all__"
