"""Resource template completion under real servers through the official TypeScript SDK:
gunicorn (sync workers) and uvicorn (ASGI) serve the test project with DRF token
authentication and tests/resources/completion_urls.py, whose ``shop://my-orders/{item}``
view keeps ``Order.objects.filter(owner=self.request.user)``. Two users' orders are in the
served database before the server starts; each user's completion of a variable offers their
own rows and never the other's (docs/resources.md#completion)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conformance_app.server import DATABASE_ENV, REPO, migrated_database, serve
from tests.interop.test_results_clients import run_node_script

SETTINGS = "tests.settings"
URLCONF = "tests.resources.completion_urls"
TEMPLATE = "shop://my-orders/{item}"
ORDERS = {
    "alice": ["figs", "apples", "flour"],
    "bob": ["fennel", "fudge", "bananas"],
}

#: Run by ``manage.py shell`` on the served database before the server starts: the users,
#: their DRF tokens and their orders; prints {username: token}.
SEED = f"""
import json
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from tests.dayone_app.models import Order
tokens = {{}}
for name, items in {ORDERS!r}.items():
    user = User.objects.create_user(name, password=name + "-password")
    Order.objects.bulk_create(Order(owner=user, item=item) for item in items)
    tokens[name] = Token.objects.create(user=user).key
print(json.dumps(tokens))
"""


@pytest.fixture(params=["gunicorn", "uvicorn"], scope="module")
def server(request):
    """(MCP URL, {username: token}) of a server of the kind over its own seeded database."""
    folder = Path(tempfile.mkdtemp(prefix="mcp-tools-completion-"))
    env = {"MCP_TESTS_URLCONF": URLCONF, "MCP_TESTS_CACHE": str(folder / "cache")}
    try:
        database = migrated_database(SETTINGS, folder)
        seeded = subprocess.run(
            [sys.executable, "manage.py", "shell", "-v", "0", "-c", SEED],
            cwd=REPO,
            env={
                **os.environ,
                **env,
                "DJANGO_SETTINGS_MODULE": SETTINGS,
                DATABASE_ENV: str(database),
            },
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert seeded.returncode == 0, seeded.stderr
        tokens = json.loads(seeded.stdout.strip().splitlines()[-1])
        with serve(request.param, SETTINGS, env, database, workers=2) as url:
            yield f"{url}/mcp", tokens
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def typescript_completes(url, token, tmp_path, values):
    """Complete ``item`` of TEMPLATE from each of ``values`` as the caller of ``token``."""
    requests = [
        {"ref": {"type": "ref/resource", "uri": TEMPLATE}, "argument": {"name": "item", "value": v}}
        for v in values
    ]
    requests_file = tmp_path / "completions.json"
    requests_file.write_text(json.dumps(requests))
    return run_node_script("complete_resources.cjs", url, token, str(requests_file), home=tmp_path)


@pytest.mark.parametrize(
    ("user", "mine"),
    [("alice", ["figs", "flour"]), ("bob", ["fennel", "fudge"])],
)
def test_the_typescript_sdk_completes_a_variable_from_the_callers_own_rows(
    server, tmp_path, user, mine
):
    url, tokens = server
    report = typescript_completes(url, tokens[user], tmp_path, ["f", "F", ""])
    assert report["protocolVersion"] == "2025-11-25"
    assert "completions" in report["capabilities"]
    assert TEMPLATE in [each["uriTemplate"] for each in report["templates"]]
    prefixed, upper, everything = report["completions"]
    assert prefixed == {"result": {"completion": {"values": mine, "hasMore": False}}}
    assert upper == prefixed  # the prefix matches ignoring case
    assert everything["result"]["completion"] == {
        "values": sorted(ORDERS[user]),
        "hasMore": False,
    }
    theirs = {item for name, items in ORDERS.items() if name != user for item in items}
    offered = set(prefixed["result"]["completion"]["values"])
    assert not offered & theirs and not set(everything["result"]["completion"]["values"]) & theirs
