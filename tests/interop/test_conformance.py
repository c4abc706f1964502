"""The official MCP conformance suites against the fixture tools, served by uvicorn.

0.1.16 runs every server scenario of the handshake era; 0.2.0-alpha.12 every scenario at
2026-07-28, input-required results (docs/input.md) included, and the scenarios of the tasks
extension (docs/tasks.md), whose tasks a django-tasks-db worker beside the server runs. The
expected-failures files list only what the product does not claim.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conformance_app.server import REPO, migrated_database, node_tool, serve, task_workers

BASELINES = REPO / "tests" / "conformance"
#: The suites save each scenario's checks under server-<scenario>-<ISO timestamp>/.
RESULT_DIR = re.compile(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z")

#: The resource scenarios both suites run, served by tests/conformance_app/resource_views.py.
RESOURCES = (
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
)
#: Scenarios the product claims: each must pass every check (docs/protocol.md; issue #4).
HANDSHAKE_REQUIRED = {
    "server-initialize",
    "ping",
    "logging-set-level",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-with-logging",
    "dns-rebinding-protection",
    "json-schema-2020-12",
    # Input requests on the call's stream (docs/input.md).
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    # Prompts written in the admin and in code, and completion (docs/prompts.md).
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "completion-complete",
    # Resources from GET views (docs/resources.md).
    *RESOURCES,
    # Subscriptions, heard on the GET stream (docs/subscriptions.md).
    "resources-subscribe",
    "resources-unsubscribe",
}
MODERN_REQUIRED = {
    *RESOURCES,
    "sep-2164-resource-not-found",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "http-header-validation",
    # Argument headers: the fixture test_argument_headers mirrors three of its arguments.
    "http-custom-header-server-validation",
    # Every probe of the stateless architecture, -32021 and the input-required stream too.
    "server-stateless",
    # Prompts written in the admin and in code, and completion (docs/prompts.md).
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "completion-complete",
}
#: What the 0.1.16 baseline may name: the warnings about a session id a stateless server
#: never mints.
STATELESS_REASON = "# Warns that the server mints no session id"
#: The suite's input-required scenarios the product does not serve (the baseline names
#: them): none, since prompts/get asks too (docs/prompts.md#prompts-that-ask).
INPUT_REQUIRED_UNSERVED: set[str] = set()
#: The tasks extension's scenarios (io.modelcontextprotocol/tasks): every one is claimed. An
#: extension's scenario is on no version's timeline, so --spec-version leaves it out of the
#: suite: each runs on its own, at 2026-07-28, TASK_LANES of them at a time.
TASKS_SCENARIOS = (
    # First: its first round must be answered inline, by a worker no earlier task holds.
    "tasks-mrtr-composition",
    "tasks-lifecycle",
    "tasks-mrtr-input",
    "tasks-dispatch-and-envelope",
    "tasks-wire-fields",
    "tasks-request-headers",
    "tasks-request-state-removal",
    "tasks-capability-negotiation",
    "tasks-required-task-error",
    "tasks-status-notifications",
)
#: Skipped by 0.2.0-alpha.12 itself: its harness awaits a rewrite for subscriptions/listen.
TASKS_SKIPPED_BY_THE_SUITE = {"tasks-status-notifications"}
#: Scenarios run at once, and task workers: a scenario has one task running at a time, so
#: each finds a worker free (a cancelled task's view stops within 0.5 s).
TASK_LANES = 2
SETTINGS = "tests.conformance_app.settings"


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    """The conformance server, and the workers that run its tasks, on one database."""
    database = migrated_database(SETTINGS, tmp_path_factory.mktemp("conformance"))
    with (
        serve("uvicorn", SETTINGS, database=database) as url,
        task_workers(database, SETTINGS, TASK_LANES),
    ):
        yield f"{url}/mcp"


def run_suite(binary: Path, url: str, baseline: str, out: Path, *extra: str) -> dict:
    """Run one suite (or, with ``--scenario``, one scenario) with its baseline; return
    {scenario: [check statuses]} of every run saved under ``out``."""
    command = [str(binary), "server", "--url", url, *extra]
    if "--scenario" not in extra:
        command += ["--suite", "all"]
    command += ["--expected-failures", str(BASELINES / baseline), "-o", str(out)]
    env = {**os.environ, "PATH": f"{binary.parent}:{os.environ['PATH']}", "HOME": str(out)}
    completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=400)
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    statuses: dict[str, list[str]] = {}
    for checks in out.glob("server-*/checks.json"):
        scenario = RESULT_DIR.fullmatch(checks.parent.name).group(1)
        statuses[scenario] = [check["status"] for check in json.loads(checks.read_text())]
    return statuses


def passed(statuses: list[str]) -> bool:
    return "FAILURE" not in statuses and "WARNING" not in statuses and "SUCCESS" in statuses


def test_the_handshake_era_suite_passes_every_claimed_scenario(server_url, tmp_path):
    binary = node_tool("node_modules", ".bin", "conformance")
    statuses = run_suite(binary, server_url, "expected-failures.yml", tmp_path)
    failing = {name for name in HANDSHAKE_REQUIRED if not passed(statuses.get(name, []))}
    assert not failing, {name: statuses.get(name) for name in failing}


def test_the_2026_07_28_suite_passes_every_claimed_scenario(server_url, tmp_path):
    binary = node_tool("next", "node_modules", ".bin", "conformance")
    statuses = run_suite(
        binary,
        server_url,
        "expected-failures-2026-07-28.yml",
        tmp_path,
        "--spec-version",
        "2026-07-28",
    )
    input_required = {name for name in statuses if name.startswith("input-required-result-")}
    # The suite's fourteen input-required-result-* scenarios (SEP-2322), all run.
    assert len(input_required) == 14, sorted(input_required)
    claimed = MODERN_REQUIRED | (input_required - INPUT_REQUIRED_UNSERVED)
    failing = {name for name in claimed if not passed(statuses.get(name, []))}
    assert not failing, {name: statuses.get(name) for name in failing}
    for name in INPUT_REQUIRED_UNSERVED:
        assert f"- {name}" in (BASELINES / "expected-failures-2026-07-28.yml").read_text()


def test_the_tasks_extension_scenarios_pass_every_check(server_url, tmp_path):
    binary = node_tool("next", "node_modules", ".bin", "conformance")
    baseline = "expected-failures-2026-07-28.yml"

    def run(name: str) -> dict:
        return run_suite(binary, server_url, baseline, tmp_path / name, "--scenario", name)

    with ThreadPoolExecutor(TASK_LANES) as lanes:
        statuses = {
            name: checks
            for run_ in lanes.map(run, TASKS_SCENARIOS)
            for name, checks in run_.items()
        }
    assert set(statuses) == set(TASKS_SCENARIOS)
    failing = {
        name
        for name in set(TASKS_SCENARIOS) - TASKS_SKIPPED_BY_THE_SUITE
        if not passed(statuses[name])
    }
    assert not failing, {name: statuses[name] for name in failing}
    for name in TASKS_SKIPPED_BY_THE_SUITE:  # passes once the suite runs it: claim it then
        assert set(statuses[name]) == {"SKIPPED"}, statuses[name]
    listed = (BASELINES / baseline).read_text()
    assert not [name for name in TASKS_SCENARIOS if name in listed]


def test_the_2026_07_28_baseline_claims_every_scenario():
    lines = (BASELINES / "expected-failures-2026-07-28.yml").read_text().splitlines()
    assert [line for line in lines if not line.startswith("#")] == ["server: []"]


def test_the_handshake_era_baseline_lists_only_the_stateless_warnings():
    lines = (BASELINES / "expected-failures.yml").read_text().splitlines()
    entries = [(index, line.strip()[2:]) for index, line in enumerate(lines) if "  - " in line]
    assert entries
    for index, entry in entries:
        reason = lines[index - 1].strip()
        assert reason.startswith(STATELESS_REASON), (entry, reason)
