"""Measure the code a warmed-up worker holds of mcp_tools, folder by folder.

After one direct GET, one ``tools/list`` and one ``tools/call`` of the bench project (in
process, as ``bench/modules.py``), sums ``sys.getsizeof`` over every live function of
``mcp_tools``: the function, its code object with its bytecode, line and exception tables,
names and constants, and the code nested in it; the docstrings apart; and over its
classes (the type and its namespace). Module namespaces, data and the allocator's own
overhead are not counted (docs/performance.md#memory).

    .venv/bin/python bench/code_size.py [--production]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import types
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import inprocess  # noqa: E402

PACKAGE = str(ROOT / "mcp_tools") + "/"


def code_bytes(code: types.CodeType, seen: set[int]) -> int:
    """Return the bytes of ``code`` and what it holds, each object counted once."""
    if id(code) in seen:
        return 0
    seen.add(id(code))
    parts = (code.co_code, code.co_linetable, code.co_exceptiontable, code.co_names)
    size = sys.getsizeof(code) + sum(sys.getsizeof(part) for part in parts)
    size += sys.getsizeof(code.co_varnames)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            size += code_bytes(constant, seen)
        elif isinstance(constant, str | bytes | tuple):
            size += sys.getsizeof(constant)
    return size


def measure() -> dict[str, dict[str, int]]:
    call = inprocess.setup()
    headers = inprocess.profile_headers()
    call(inprocess.environ("GET", "/api/trivial/", ACCEPT="application/json", **headers))
    for method, params in (("tools/list", {}), ("tools/call", {"name": "trivial"})):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        call(inprocess.environ("POST", "/mcp", body.encode(), **inprocess.MCP_HEADERS, **headers))
    seen: set[int] = set()
    code: Counter[str] = Counter()
    docs: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    for found in gc.get_objects():
        # type(), not isinstance(): a lazy object (the admin's site) would set itself up.
        module = vars(found).get("__module__") if type(found) is type else None
        if isinstance(module, str) and module.startswith("mcp_tools."):
            folder = module.split(".")[1]
            classes[folder] += sys.getsizeof(found) + sys.getsizeof(dict(vars(found)))
            continue
        if type(found) is not types.FunctionType:
            continue
        filename = found.__code__.co_filename
        if not filename.startswith(PACKAGE) or "/migrations/" in filename:
            continue
        folder = filename[len(PACKAGE) :].split("/")[0].removesuffix(".py")
        code[folder] += code_bytes(found.__code__, seen) + sys.getsizeof(found)
        if found.__doc__:
            docs[folder] += sys.getsizeof(found.__doc__)
    return {"code": dict(code), "docstrings": dict(docs), "classes": dict(classes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--production", action="store_true")
    options = parser.parse_args()
    with inprocess.profile(options.production, ""):
        found = measure()
    code, docs, classes = found["code"], found["docstrings"], found["classes"]
    print(f"{'folder':<16} {'functions KiB':>14} {'docstrings':>11} {'classes KiB':>12}")
    for folder, size in sorted(code.items(), key=lambda item: -item[1]):
        doc, kinds = docs.get(folder, 0) / 1024, classes.get(folder, 0) / 1024
        print(f"{folder:<16} {size / 1024:14.1f} {doc:11.1f} {kinds:12.1f}")
    total, doc_total, class_total = (sum(each.values()) / 1024 for each in (code, docs, classes))
    print(f"{'all':<16} {total:14.1f} {doc_total:11.1f} {class_total:12.1f}")


if __name__ == "__main__":
    main()
