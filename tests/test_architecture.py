"""docs/architecture.md is the code's map: imports go one way between its folders, every module
has its row in its folder's section, the import graph has no cycle, and
every dotted name of its diagram resolves.

Anyone can run the same checks by hand: the AST walk below is ``pytest
tests/test_architecture.py``, and the load order is ``python -X importtime -c "import
django; django.setup(); import mcp_tools.admin"`` with ``DJANGO_SETTINGS_MODULE`` set.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "mcp_tools"
PAGE = REPO / "docs" / "architecture.md"
BESIDE = ("client", "contrib")  # beside the folders: client/ and contrib/

#: The imports that go up the page, each with why (docs/architecture.md, "The folder rule").
UPWARD = {
    ("mcp_tools.endpoint.handlers", "mcp_tools.tasks.decisions"): "whether a call is a task",
    ("mcp_tools.endpoint.handlers", "mcp_tools.tasks.methods"): "the method table's tasks/*",
    ("mcp_tools.tasks.executors", "mcp_tools.jobs"): "the job's stored dotted path",
    ("mcp_tools.models", "mcp_tools.prompts.messages"): "Prompt.clean() checks its stored form",
    ("mcp_tools.models", "mcp_tools.prompts.static"): "Prompt.clean() finds its images",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return name


def has_code(tree: ast.Module) -> bool:
    """Whether a module holds more than its docstring (an empty package needs no row)."""
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return bool(body)


@cache
def modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" not in path.parts:
            found[module_name(path)] = ast.parse(path.read_text(), str(path))
    return found


def short(name: str) -> str:
    """``mcp_tools.schemas.fields`` as the page writes it: ``schemas.fields``."""
    return "mcp_tools" if name == "mcp_tools" else name.removeprefix("mcp_tools.")


def imports_of(name: str) -> set[str]:
    """The mcp_tools modules ``name`` imports: at module level, inside a function, or under
    ``if TYPE_CHECKING:`` (a type-only import is a dependency all the same)."""
    tree = modules()[name]
    is_package = (
        name == "mcp_tools" or (PACKAGE / Path(*name.split(".")[1:]) / "__init__.py").exists()
    )
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            # "from . import arguments" names a module; "from .conf import x" names conf.
            targets = [
                f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules() else target
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in modules():
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@cache
def sections() -> list[tuple[str, list[str]]]:
    """The page's sections of "The folders", top down: each heading, and its module rows."""
    text = PAGE.read_text()
    part = text[text.index("## The folders") : text.index("## The one path of a call")]
    found: list[tuple[str, list[str]]] = []
    for line in part.splitlines():
        if line.startswith("### "):
            found.append((line[4:], []))
        row = re.match(r"\| `([^`]+)` \|", line)
        if row and found:
            name = row.group(1)
            found[-1][1].append("mcp_tools" if name == "mcp_tools" else f"mcp_tools.{name}")
    return found


@cache
def layers() -> dict[str, tuple[int, str]]:
    """Each module row of the page: its section's index (0 at the top) and heading."""
    return {
        name: (index, heading)
        for index, (heading, names) in enumerate(sections())
        for name in names
    }


def folder_of(name: str) -> str | None:
    """The folder ``name`` lives in (``tasks``, ``admin``, ...), or None at the root."""
    parts = name.split(".")
    if len(parts) < 2:
        return None  # the package root
    is_folder = len(parts) > 2 or (PACKAGE / parts[1] / "__init__.py").exists()
    return parts[1] if is_folder else None


def beside(name: str) -> str | None:
    part = short(name).split(".")[0]
    return part if part in BESIDE else None


def test_every_module_has_its_row_and_every_row_its_module():
    needed = {name for name, tree in modules().items() if has_code(tree)}
    assert needed - set(layers()) == set(), "modules docs/architecture.md has no row for"
    assert set(layers()) - set(modules()) == set(), "rows of modules that do not exist"


def test_every_module_sits_in_its_folders_section():
    """A folder's modules are its section's rows; a root module's row is in a root section."""
    misplaced = []
    for name, (_, heading) in layers().items():
        folder = folder_of(name)
        if name == "mcp_tools":
            folder = None
        named = set(re.findall(r"`([a-z_]+)/`", heading))
        if folder is None and "root" not in heading:
            misplaced.append(f"{short(name)} (the root) is under {heading!r}")
        elif folder is not None and folder not in named:
            misplaced.append(f"{short(name)} ({folder}/) is under {heading!r}")
    assert misplaced == []


def test_each_folder_has_one_section():
    headings = [heading for heading, _ in sections()]
    folders = [folder for heading in headings for folder in re.findall(r"`([a-z_]+)/`", heading)]
    assert len(folders) == len(set(folders))
    on_disk = {path.parent.name for path in PACKAGE.glob("*/__init__.py")} - {"migrations"}
    assert on_disk - set(folders) == set(), "folders the page has no section for"


def edges() -> list[tuple[str, str]]:
    return [(name, target) for name in modules() for target in sorted(imports_of(name))]


def test_imports_go_down_the_folders():
    upward = []
    for name, target in edges():
        if beside(name) or beside(target) or (name, target) in UPWARD:
            continue
        if target == "mcp_tools" or target not in layers() or name not in layers():
            continue  # the package root: checked below; empty packages have no row
        if layers()[target][0] < layers()[name][0]:
            upward.append(
                f"{short(name)} ({layers()[name][1]}) imports {short(target)} "
                f"({layers()[target][1]})"
            )
    assert upward == []


def test_nothing_imports_the_package_root_and_the_core_imports_nothing_beside_it():
    wrong = []
    for name, target in edges():
        if target == "mcp_tools":
            wrong.append(f"{short(name)} imports the package root")
        part = beside(target)
        if part and beside(name) != part and short(name) != "management.commands.mcp_remote":
            wrong.append(f"{short(name)} imports {short(target)}")
    assert wrong == []


def test_every_listed_upward_import_is_made():
    """A listed exception that no module makes any more is a stale line: remove it."""
    assert set(UPWARD) <= set(edges())


def test_the_import_graph_has_no_cycle():
    """No module reaches itself again, counting every import: ``tasks/`` and the root's
    ``jobs`` reach each other (the one folder cycle a stored dotted path forces), but
    through different modules."""
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    for name, target in edges():
        graph[name].add(target)
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state and (cycle := visit(target)) is not None:
                return cycle
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            assert cycle is None, " -> ".join(map(short, cycle))


# The modules imported from the bottom layer up, so that each loads the first time as
# early as it can: a lower module that needs a higher one shows it nested under itself.
IMPORTTIME = """
import importlib, sys, django
django.setup()
for name in sys.argv[1:]:
    importlib.import_module(name)
"""


def bottom_up() -> list[str]:
    rows = [name for name in layers() if not beside(name) and name != "mcp_tools"]
    return sorted(rows, key=lambda name: -layers()[name][0])


def on_the_way(parent: str, name: str) -> bool:
    """Whether ``name`` is the package of a listed upward import of ``parent``: importing
    ``tasks.methods`` loads ``tasks`` first, wherever nothing loaded it before."""
    return any(each == parent and target.startswith(f"{name}.") for each, target in UPWARD)


@pytest.mark.e2e
def test_the_load_order_python_reports_goes_down_the_layers():
    """``python -X importtime``: each module loaded while another loads is one it needs;
    nested, it must sit in the same layer or lower."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", IMPORTTIME, *bottom_up()],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    stack: list[tuple[int, str]] = []
    seen = set()
    upward = []
    # Lines come innermost first: "import time: self | cumulative | <indent>name".
    for line in reversed(done.stderr.splitlines()):
        if not line.startswith("import time:") or "|" not in line:
            continue
        field = line.rsplit("|", 1)[1]
        depth = (len(field) - len(field.lstrip())) // 2
        name = field.strip()
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent = next((mod for _, mod in reversed(stack) if mod in layers()), None)
        lower_loads_higher = (
            name in layers()
            and parent is not None
            and not (beside(name) or beside(parent))
            and (parent, name) not in UPWARD
            and not on_the_way(parent, name)
            and layers()[name][0] < layers()[parent][0]
        )
        if lower_loads_higher:
            upward.append(f"{short(parent)} loaded {short(name)}")
        stack.append((depth, name))
        seen.add(name)
    assert {
        "mcp_tools.endpoint.view",
        "mcp_tools.core.routes",
        "mcp_tools.protocol.jsonrpc",
    } <= seen
    assert upward == []


def diagram_names() -> set[str]:
    text = PAGE.read_text()
    block = text[text.index("## The one path of a call") :]
    block = block[block.index("```text") : block.index("```", block.index("```text") + 3)]
    return set(re.findall(r"\b[A-Za-z_]+(?:\.[A-Za-z_]+)+\b", block))


def resolve(name: str):
    parts = name.split(".")
    found = [
        (prefix + ".".join(parts[:size]), parts[size:])
        for size in range(len(parts), 0, -1)  # the longest module the name starts with
        for prefix in ("mcp_tools.", "mcp_tools.protocol.", "mcp_tools.schemas.")
        if prefix + ".".join(parts[:size]) in modules()
    ]
    if found:
        value, rest = importlib.import_module(found[0][0]), found[0][1]
    else:  # a class: Invocation.run, Route.resolve
        first, *rest = parts
        owners = [
            importlib.import_module(module)
            for module, tree in modules().items()
            if any(isinstance(node, ast.ClassDef) and node.name == first for node in tree.body)
        ]
        assert owners, f"{name}: no module or class {first}"
        value = getattr(owners[0], first)
    for part in rest:
        value = getattr(value, part)
    return value


def test_every_dotted_name_of_the_diagram_resolves():
    names = diagram_names()
    assert "endpoint.view.MCPView.post" in names and "pipeline.chain.call_view" in names
    unresolved = []
    for name in sorted(names):
        try:
            resolve(name)
        except (AttributeError, AssertionError) as exc:
            unresolved.append(f"{name}: {exc}")
    assert unresolved == []
