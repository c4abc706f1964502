"""What the visibility rule costs a tools/list of ``BENCH_TOOLS`` tools, in-process.

Times ``Call.tools()`` (the catalog, the admin's rules and every tool's permission classes
for one caller) three ways: warm (the list of this caller's answers is kept), cold (that
list forgotten before each run) and, with ``BENCH_TOOLS_PERMISSION=own``, tools whose
permission class is the project's own, asked tool by tool. Prints one JSON object.

    BENCH_TOOLS=100 bench/.venv/bin/python bench/visibility.py
    BENCH_TOOLS=100 BENCH_TOOLS_PERMISSION=own bench/.venv/bin/python bench/visibility.py
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.inprocess import setup  # noqa: E402


def per_call(run, repeat: int = 2000) -> float:
    """Return the median microseconds of ``run`` over 7 rounds of ``repeat`` calls."""
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(repeat):
            run()
        rounds.append((time.perf_counter() - start) / repeat * 1e6)
    return statistics.median(rounds)


def main() -> None:
    os.environ.setdefault("BENCH_TOOLS", "100")
    setup()
    from django.test import RequestFactory

    from mcp_tools.catalog.visibility import plan_for
    from mcp_tools.endpoint.exchange import Exchange
    from mcp_tools.views import MCPView

    endpoint = MCPView()
    request = RequestFactory().post("/mcp", HTTP_HOST="127.0.0.1")
    caller = endpoint.authenticate(request)

    def listing() -> int:
        return len(Exchange(request, caller, endpoint).tools()[0])

    count = listing()
    catalog = Exchange(request, caller, endpoint).catalog
    plan = plan_for(catalog)

    def cold() -> int:
        plan.lists.clear()
        return listing()

    figures = {
        "tools": count,
        "permission": os.environ.get("BENCH_TOOLS_PERMISSION") or "AllowAny",
        "per_tool_asked": plan.uncached,
        "warm_us": round(per_call(listing), 1),
        "cold_us": round(per_call(cold, 200), 1),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
