"""The call log's queue in real servers: a clean shutdown (SIGTERM) writes every queued row,
under gunicorn's sync worker and under uvicorn; a killed worker loses what it had queued
(docs/calllog.md)."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

import httpx2
import pytest

from mcp_tools.test import MCPClient
from tests.conformance_app.server import migrated_database, running
from tests.wire import validate_exchange

SETTINGS = "tests.conformance_app.settings"
CALLS = 25
#: Every call logged, and a writer that lets its batch gather for far longer than the test
#: runs: the rows are still queued when the server is stopped.
ENV = {"MCP_TOOLS_CALL_LOG": "all", "MCP_TOOLS_CALL_LOG_FLUSH_INTERVAL": "600"}
#: How each server ends on SIGTERM once it has shut down: gunicorn's worker and arbiter
#: through sys.exit; uvicorn raises the signal again with its default handler, so its
#: process runs no atexit (docs/calllog.md).
CLEAN_EXIT = {"gunicorn": 0, "uvicorn": -signal.SIGTERM}


def call(url: str, turn: int) -> None:
    shaper = MCPClient(protocol_version="2026-07-28")
    message = shaper.message("tools/call", {"name": "test_simple_text", "arguments": {}})
    response = httpx2.post(f"{url}/mcp", json=message, headers=shaper.headers_for(message))
    validate_exchange("2026-07-28", message, response.status_code, response.content)
    assert response.json()["result"]["isError"] is False, (turn, response.text)


def logged(database: Path) -> int:
    with sqlite3.connect(database) as connection:
        return connection.execute("SELECT count(*) FROM mcp_tools_toolcall").fetchone()[0]


def worker_of(process) -> int:
    """The PID of gunicorn's one worker, a child of its arbiter."""
    (child,) = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    return int(child)


@pytest.mark.parametrize("kind", ["gunicorn", "uvicorn"])
def test_a_clean_shutdown_writes_every_queued_row(kind, tmp_path):
    database = migrated_database(SETTINGS, tmp_path)
    with running(kind, SETTINGS, env=ENV, database=database) as (url, process):
        for turn in range(CALLS):
            call(url, turn)
        assert logged(database) == 0  # queued: no request wrote its own row
        process.send_signal(signal.SIGTERM)  # gunicorn's arbiter passes it to its worker
        assert process.wait(timeout=30) == CLEAN_EXIT[kind]  # not the fixture's kill
    assert logged(database) == CALLS


@pytest.mark.parametrize("kind", ["gunicorn", "uvicorn"])
def test_a_killed_worker_loses_the_rows_it_had_queued(kind, tmp_path):
    # What docs/calllog.md says a crash costs: the rows of the last CALL_LOG_FLUSH_INTERVAL.
    database = migrated_database(SETTINGS, tmp_path)
    with running(kind, SETTINGS, env=ENV, database=database) as (url, process):
        for turn in range(CALLS):
            call(url, turn)
        victim = worker_of(process) if kind == "gunicorn" else process.pid
        os.kill(victim, signal.SIGKILL)
        if kind == "uvicorn":
            process.wait(timeout=30)
    assert logged(database) == 0
