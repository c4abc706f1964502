"""The tasks extension's fixture tools (io.modelcontextprotocol/tasks, docs/tasks.md): the
tools the conformance suite's tasks-* scenarios call, as ordinary DRF views.

Served by the conformance server only (tests/conformance_app/task_urls.py): the test project
serves no task tool outside tests/tasks_app. A call that ends or asks within
``TASK_IMMEDIATE_SECONDS`` (0.5 s) is answered inline, so the fixtures the suite needs as
tasks work a second first.
"""

from __future__ import annotations

import time

from rest_framework.decorators import api_view

from mcp_tools import ToolError, elicit, mcp_tool, report_progress, request_input

from .formatters import EndpointFault
from .views import one_string, say, text_schema

#: How long the fixtures that must become tasks work before they answer or ask.
TASK_WORK_SECONDS = 1.0


def work(request, seconds):
    """Work ``seconds`` in steps of 0.05 s, reporting progress at each: a task's view learns
    of a cancellation there (``ClientDisconnected``), and stops."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        report_progress(request, seconds - left, seconds)
        time.sleep(min(0.05, left))


GREET_SCHEMA = one_string("name", "Whom to greet")
SLOW_COMPUTE_SCHEMA = {
    "type": "object",
    "properties": {
        "seconds": {"type": "number", "minimum": 0, "description": "How long to compute"},
        "label": {"type": "string", "description": "What the result is called"},
    },
    "required": ["seconds"],
}
NO_ARGUMENTS = {"type": "object", "properties": {}}
CONFIRM_FORM = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean"}},
    "required": ["confirm"],
}


@mcp_tool("greet", input_schema=GREET_SCHEMA)
@api_view(["GET"])
def greet(request):
    """Greet someone, at once: never a task."""
    return say(f"Hello, {request.query_params['name']}!")


@mcp_tool("slow_compute", input_schema=SLOW_COMPUTE_SCHEMA, task="optional")
@api_view(["POST"])
def slow_compute(request):
    """Compute for ``seconds`` seconds: a task when it outlasts the inline window."""
    seconds = float(request.data["seconds"])
    work(request, seconds)
    return say(f"Computed {request.data.get('label', 'result')} in {seconds:g} s")


@mcp_tool("failing_job", input_schema=NO_ARGUMENTS, task="required")
@api_view(["GET"])
def failing_job(request):
    """Work a second, then fail as a tool fails (a completed task with ``isError``)."""
    work(request, TASK_WORK_SECONDS)
    raise ToolError("failing_job failed on purpose")


@mcp_tool("protocol_error_job", input_schema=NO_ARGUMENTS, task="optional")
@api_view(["GET"])
def protocol_error_job(request):
    """Work a second, then crash the endpoint: a protocol error (a failed task, -32603).

    A view's own exception is a tool result; ``EndpointFault`` is let through by the
    conformance server's formatter (tests/conformance_app/formatters.py), as the product
    answers a fault of its endpoint."""
    work(request, TASK_WORK_SECONDS)
    raise EndpointFault("protocol_error_job crashed on purpose")


@mcp_tool(
    "confirm_delete", input_schema=one_string("filename", "The file to delete"), task="optional"
)
@api_view(["POST"])
def confirm_delete(request):
    """Look the file up (a second), then ask the user to confirm its deletion."""
    filename = request.data["filename"]
    work(request, TASK_WORK_SECONDS)
    answer = elicit(request, "confirm", f"Delete {filename}?", CONFIRM_FORM)
    confirmed = answer["action"] == "accept" and answer.get("content", {}).get("confirm")
    return say(f"Deleted {filename}" if confirmed else f"Kept {filename}")


@mcp_tool("multi_input", input_schema=NO_ARGUMENTS, task="optional")
@api_view(["GET"])
def multi_input(request):
    """Work a second, then ask two forms at once: the client may answer one at a time."""
    work(request, TASK_WORK_SECONDS)
    answers = request_input(
        request,
        {
            "name": {
                "method": "elicitation/create",
                "params": {"message": "What is your name?", "requestedSchema": text_schema("name")},
            },
            "confirm": {
                "method": "elicitation/create",
                "params": {"message": "Go ahead?", "requestedSchema": CONFIRM_FORM},
            },
        },
    )
    name = answers["name"].get("content", {}).get("name", "stranger")
    confirmed = answers["confirm"].get("content", {}).get("confirm")
    return say(f"{name}: {'confirmed' if confirmed else 'not confirmed'}")


@mcp_tool("test_tool_with_task", input_schema=NO_ARGUMENTS, task="required")
@api_view(["GET"])
def tool_with_task(request):
    """Ask the user's name at once (an inline input-required result), then work a second on
    it: the answered round becomes a task, whose result names the user."""
    answer = elicit(request, "user_name", "What is your name?", text_schema("name"))
    work(request, TASK_WORK_SECONDS)
    return say(f"Hello, {answer.get('content', {}).get('name', 'stranger')}!")
