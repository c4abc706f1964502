"""What MCP tasks keep in the database: the review's scenario of #37 (item 5), repeated.

One caller makes ``--calls`` 2025-11-25 task calls (the ``task`` param: each is a task) of
``echo_task`` (tests/tasks_app: its argument back as a JSON object) with an argument of
``--kilobytes`` KB; each task is run as a worker runs it (``tasks.runs.run``). The project
is the test suite's task project (tests/tasks_settings.py) on a new SQLite file; the figures
are that file's size before the calls and after them, the tasks kept and how each call
ended (docs/reliability.md#what-tasks-keep).

    .venv/bin/python bench/task_storage.py [--calls 15] [--kilobytes 900]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=15)
    parser.add_argument("--kilobytes", type=int, default=900)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mcp-tools-task-storage-"))
    database = folder / "db.sqlite3"
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.tasks_settings"
    os.environ["MCP_TESTS_DATABASE"] = str(database)

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from mcp_tools.models import ToolTask
    from mcp_tools.tasks import runs
    from mcp_tools.test import MCPClient, MCPError

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("caller", password="unused")
    token = Token.objects.create(user=user).key
    client = MCPClient(
        headers={"Authorization": f"Token {token}"},
        protocol_version="2025-11-25",
        client_capabilities={"tasks": {}},
    )
    before = database.stat().st_size
    text = "x" * (options.kilobytes * 1000)
    outcomes: Counter[str] = Counter()
    for _ in range(options.calls):
        call = {"name": "echo_task", "arguments": {"text": text}, "task": {}}
        try:
            task_id = client.rpc("tools/call", call)["task"]["taskId"]
        except MCPError as refused:
            outcomes[f"refused: {refused.message.split(':')[0]}"] += 1
            continue
        runs.run(task_id)
        result = ToolTask.objects.get(pk=task_id).result or {}
        outcomes["tool error" if result.get("isError") else "completed"] += 1
    after = database.stat().st_size
    sizes = list(ToolTask.objects.values_list("size", flat=True)) if has_size() else []
    print(
        json.dumps(
            {
                "calls": options.calls,
                "argument_kb": options.kilobytes,
                "database_mb_before": round(before / 1e6, 1),
                "database_mb_after": round(after / 1e6, 1),
                "tasks_kept": ToolTask.objects.count(),
                "stored_bytes": sum(sizes) if sizes else None,
                "outcomes": dict(outcomes),
            },
            indent=2,
        )
    )
    shutil.rmtree(folder)


def has_size() -> bool:
    from mcp_tools.models import ToolTask

    return any(field.name == "size" for field in ToolTask._meta.get_fields())


if __name__ == "__main__":
    main()
