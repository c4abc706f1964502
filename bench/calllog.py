"""In-process: the call log's CPU price on one trivial ``tools/call``.

One process, ``CALL_LOG`` switched between ``off``, ``all`` (queued) and ``all`` with
``CALL_LOG_QUEUE_SIZE = 0`` every block of calls, so the machine's drift hits each alike.
Each block is timed by the process's CPU time (every thread: the call log's writer too) and
ends with ``calllog.flush()``, so that what it queued is written, and paid, within it.

    .venv/bin/python bench/calllog.py [--blocks 30] [--calls 300]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import inprocess  # noqa: E402

MODES = {
    "off": {"CALL_LOG": "off"},
    "all, queued": {"CALL_LOG": "all"},
    "all, no queue": {"CALL_LOG": "all", "CALL_LOG_QUEUE_SIZE": 0},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=30)
    parser.add_argument("--calls", type=int, default=300, help="calls per block")
    options = parser.parse_args()
    call = inprocess.setup()
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "trivial"}}
    headers = {**inprocess.MCP_HEADERS, **inprocess.profile_headers()}
    env = inprocess.environ("POST", "/mcp", json.dumps(message).encode(), **headers)
    from django.conf import settings
    from django.test.utils import override_settings

    from mcp_tools.calllog import writer as calllog

    base = dict(settings.MCP_TOOLS)
    spent: dict[str, list[float]] = {mode: [] for mode in MODES}
    for block in range(options.blocks + 1):
        for mode, changes in MODES.items():
            with override_settings(MCP_TOOLS={**base, **changes}):
                start = time.process_time()
                for _ in range(options.calls):
                    call(env)
                calllog.flush()
                seconds = time.process_time() - start
            if block:  # the first round warms up
                spent[mode].append(seconds / options.calls * 1e6)
    off = statistics.median(spent["off"])
    print(
        f"CPU µs per trivial tools/call, median of {options.blocks} blocks of "
        f"{options.calls} (load average {os.getloadavg()[0]:.1f}):"
    )
    for mode, values in spent.items():
        median = statistics.median(values)
        print(f"  {mode:14} {median:7.1f} µs   on/off {off / median:.2f}")


if __name__ == "__main__":
    main()
