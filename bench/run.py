"""Measure the cost of the /mcp endpoint against a direct call of the same DRF view.

Both sides run in one process, through Django's full handler and middleware (the test
client, no sockets), interleaved in rounds so the machine's noise hits both alike. The
figure that matters is the ratio of the two throughputs, not the absolute numbers.

    .venv/bin/python bench/run.py [--rounds 7] [--seconds 0.5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def setup() -> str:
    database = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    os.environ["DEMO_DATABASE"] = str(database)
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demo_project.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from demo_project.todos.models import Todo

    user = get_user_model().objects.create_user("bench")
    for i in range(20):
        Todo.objects.create(owner=user, title=f"Todo {i}", done=i % 3 == 0)
    return Token.objects.create(user=user).key


def throughput(call, seconds: float) -> float:
    """Return calls per second of ``call`` over about ``seconds``."""
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        call()
        count += 1
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.5)
    options = parser.parse_args()

    token = setup()
    from django.test import Client

    from demo_project.todos.models import Todo

    client = Client(headers={"Authorization": f"Token {token}"}, HTTP_HOST="127.0.0.1")
    pk = Todo.objects.first().pk
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }

    def mcp(method: str, params: dict) -> callable:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})

        def call() -> None:
            response = client.post("/mcp", body, content_type="application/json", headers=headers)
            assert response.status_code == 200, response.content
            assert b'"isError":true' not in response.content, response.content

        return call

    def direct(path: str) -> callable:
        def call() -> None:
            response = client.get(path)
            assert response.status_code == 200

        return call

    pairs = {
        "list (20 todos)": (direct("/api/todos/"), mcp("tools/call", {"name": "todo_list"})),
        "retrieve": (
            direct(f"/api/todos/{pk}/"),
            mcp("tools/call", {"name": "todo_retrieve", "arguments": {"pk": pk}}),
        ),
    }
    for direct_call, mcp_call in pairs.values():  # warm caches, URL resolution, tool registry
        for _ in range(50):
            direct_call()
            mcp_call()

    print(f"median of {options.rounds} interleaved rounds of {options.seconds} s each")
    print(f"{'case':<18}{'direct/s':>10}{'mcp/s':>10}{'ratio':>8}")
    for name, (direct_call, mcp_call) in pairs.items():
        ratios, directs, mcps = [], [], []
        for _ in range(options.rounds):
            d = throughput(direct_call, options.seconds)
            m = throughput(mcp_call, options.seconds)
            directs.append(d)
            mcps.append(m)
            ratios.append(m / d)
        print(
            f"{name:<18}{statistics.median(directs):>10.0f}{statistics.median(mcps):>10.0f}"
            f"{statistics.median(ratios):>8.2f}"
        )
    listing = mcp("tools/list", {})
    print(f"{'tools/list':<18}{'':>10}{throughput(listing, options.seconds):>10.0f}")


if __name__ == "__main__":
    main()
