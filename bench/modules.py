"""Count the modules a warmed-up bench project has imported, by top-level package.

Run by bench/run.py with and without mcp_tools (``BENCH_WITHOUT_MCP_TOOLS=1``): the packages
only the first imports are where its resident memory goes first. Prints one JSON object,
package name to number of modules.

    bench/.venv/bin/python bench/modules.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.inprocess import MCP_HEADERS, environ, profile_headers, setup  # noqa: E402


def main() -> None:
    call = setup()
    headers = profile_headers()
    from django.conf import settings

    call(environ("GET", "/api/trivial/", ACCEPT="application/json", **headers))
    if not settings.BENCH_WITHOUT_MCP_TOOLS:
        for method, params in (("tools/list", {}), ("tools/call", {"name": "trivial"})):
            message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
            body = json.dumps(message).encode()
            call(environ("POST", "/mcp", body, **MCP_HEADERS, **headers))
    packages = Counter(name.partition(".")[0] for name in list(sys.modules))
    print(json.dumps(dict(packages)))


if __name__ == "__main__":
    main()
