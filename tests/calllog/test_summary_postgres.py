"""The call log's daily summary on PostgreSQL: tests/calllog/test_summary.py run again, on the
private PostgreSQL of tests/services.py (its upsert, ``GREATEST``, the database's buckets
of ``mcp_summarize``: numeric logarithms), in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_summary_tests_pass_on_postgresql(postgres):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "--ds",
            "tests.postgres_settings",
            "tests/calllog/test_summary.py",
        ],
        cwd=ROOT,
        env={**os.environ, **postgres.environ(), "MCP_TESTS_SUMMARY_VENDOR": "postgresql"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout
