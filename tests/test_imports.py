"""The server path imports neither the mcp SDK nor pydantic (about 13 MiB per process), nor
OpenTelemetry until something else in the process has (about 6 MiB: mcp_tools.endpoint.tracing),
nor the system checks, the ranker, the methods of prompts, completion, resources and
subscriptions, the task store or the streams' machinery until they are used."""

import json
import subprocess
import sys

SERVER_MODULES = [
    "mcp_tools",
    "mcp_tools.views",
    "mcp_tools.endpoint.handlers",
    "mcp_tools.pipeline.formatters",
    "mcp_tools.tools.registry",
    "mcp_tools.urls",
    "mcp_tools.test",
]

SCRIPT = """
import sys, django, json
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)  # the admin state lives in the (in-memory) database
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
for name in {modules!r}:
    __import__(name)
from mcp_tools.tools.registry import registry
from mcp_tools.test import MCPClient
registry.tools()
# Serve a whole exchange, a streamed call included, before looking at what was imported.
client = MCPClient(HTTP_HOST="127.0.0.1")
client.initialize()
assert client.list_tools()
assert client.call_tool("test_simple_text")["isError"] is False
# A handshake-era call whose client reads SSE may have to stream later (its view may ask):
# whether a worker slot is free is asked of endpoint.stream_slots, and a worker that has
# streamed nothing yet holds none of the streams' machinery.
unstreamed = ["mcp_tools.endpoint.streaming", "mcp_tools.endpoint.watchdog"]
unstreamed = [name for name in unstreamed if name in sys.modules]
assert client.call_tool("test_tool_with_logging")["isError"] is False
heavy_roots = ("mcp", "mcp_types", "pydantic", "pydantic_core", "opentelemetry")
heavy = sorted(m for m in sys.modules if m.split(".")[0] in heavy_roots)
# Imported when used, never by a worker that only serves (docs/performance.md#memory); this
# project's django_tasks imports importlib.metadata itself (bench/modules.py shows ours don't).
lazy = (
    "mcp_tools.checks",
    "mcp_tools.discovery.ranking",
    # Each feature's methods, with the first request for them (endpoint.handlers.Deferred).
    "mcp_tools.completion.methods",
    "mcp_tools.prompts.methods",
    "mcp_tools.prompts.runs",
    "mcp_tools.resources.methods",
    "mcp_tools.subscriptions.methods",
    # The task store and the tasks/* methods, with the first task (tasks.decisions decides).
    "mcp_tools.tasks.identity",
    "mcp_tools.tasks.methods",
    "mcp_tools.tasks.store",
)
heavy += [name for name in lazy if name in sys.modules] + unstreamed
print(json.dumps(heavy))
"""


def test_the_server_path_does_not_import_mcp_pydantic_or_opentelemetry():
    completed = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(modules=SERVER_MODULES)],
        capture_output=True,
        text=True,
        # The conformance server's settings: no authentication; an in-memory database.
        env={
            "DJANGO_SETTINGS_MODULE": "tests.conformance_app.settings",
            "PATH": "",
            "PYTHONPATH": ".",
        },
        timeout=60,
        check=True,
    )
    assert completed.stdout.strip() == "[]"


def test_import_mcp_tools_works_before_django_setup():
    completed = subprocess.run(
        [sys.executable, "-c", "import mcp_tools; print(sorted(mcp_tools.__all__))"],
        capture_output=True,
        text=True,
        env={"PATH": "", "PYTHONPATH": "."},
        timeout=60,
        check=True,
    )
    assert "mcp_tool" in completed.stdout


PROTOCOL_SCRIPT = """
import json, pkgutil, sys
import mcp_tools.protocol
for module in pkgutil.iter_modules(mcp_tools.protocol.__path__):
    __import__(f"mcp_tools.protocol.{module.name}")
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_the_protocol_package_imports_nothing_of_django():
    completed = subprocess.run(
        [sys.executable, "-c", PROTOCOL_SCRIPT],
        capture_output=True,
        text=True,
        env={"PATH": "", "PYTHONPATH": "."},
        timeout=60,
        check=True,
    )
    roots = set(json.loads(completed.stdout))
    assert "mcp_tools" in roots
    assert not roots & {"django", "rest_framework", "mcp", "pydantic"}


#: The folders whose ``__init__`` names entry points lazily (docs/architecture.md).
LAZY_FOLDERS = [
    "auth",
    "calllog",
    "catalog",
    "core",
    "endpoint",
    "inputs",
    "pipeline",
    "schemas",
    "tasks",
    "tools",
]

FOLDER_SCRIPT = """
import json, sys
import mcp_tools.{folder} as folder
print(json.dumps({{
    "loaded": sorted(m for m in sys.modules if m.startswith("mcp_tools")),
    "all": folder.__all__,
}}))
"""


def test_importing_a_folder_imports_none_of_its_modules_before_django_setup():
    """``import mcp_tools.tasks`` costs the package and the lazy-export helper, no more:
    each entry point loads when it is first read (and Django need not be set up)."""
    for folder in LAZY_FOLDERS:
        completed = subprocess.run(
            [sys.executable, "-c", FOLDER_SCRIPT.format(folder=folder)],
            capture_output=True,
            text=True,
            env={"PATH": "", "PYTHONPATH": "."},
            timeout=60,
            check=True,
        )
        found = json.loads(completed.stdout)
        expected = {"mcp_tools", "mcp_tools.core", "mcp_tools.core.exports"}
        assert set(found["loaded"]) == expected | {f"mcp_tools.{folder}"}, folder
        assert found["all"], folder


def test_every_entry_point_of_a_folder_is_the_object_its_module_defines():
    import importlib

    for folder in LAZY_FOLDERS:
        package = importlib.import_module(f"mcp_tools.{folder}")
        for name in package.__all__:
            value = getattr(package, name)
            defined_in = (
                importlib.import_module(value.__module__) if hasattr(value, "__module__") else None
            )
            assert defined_in is None or getattr(defined_in, name, value) is value, (folder, name)
            assert name in dir(package), (folder, name)
