"""The conformance suite's fixture tools, as ordinary DRF views through the real formatter.

Each answers as a DRF view answers over HTTP; what makes it an MCP result is the formatter
(image and audio bodies, ``ToolError``) or an override (``mcp_output``) where the fixture
needs content blocks no HTTP body maps to (embedded resources, mixed content).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from django.http import HttpResponse
from rest_framework.decorators import api_view
from rest_framework.response import Response

from mcp_tools import (
    ClientDisconnected,
    InputUnavailable,
    ToolError,
    elicit,
    log_message,
    mcp_output,
    mcp_tool,
    report_progress,
    request_input,
)
from mcp_tools.core.context import get_context

#: A 1×1 PNG and a silent WAV: the smallest bodies of their types.
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\r\xefF\xb8\x00\x00"
    b"\x00\x00IEND\xaeB`\x82"
)
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00"
WAV += b"\x02\x00\x10\x00data\x00\x00\x00\x00"
PNG_BASE64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC"
)

SIMPLE_TEXT = "This is a simple text response for testing."
ERROR_TEXT = "This tool intentionally returns an error for testing"
EMBEDDED_RESOURCE = {
    "type": "resource",
    "resource": {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content.",
    },
}
LOG_LINES = ("Tool execution started", "Tool processing data", "Tool execution completed")
#: The 0.2.0 suite's schema (SEP-1613 and SEP-2106 keywords), a superset of 0.1.16's.
JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@mcp_tool("test_simple_text")
@api_view(["GET"])
def simple_text(request):
    """Return a simple text response."""
    return HttpResponse(SIMPLE_TEXT, content_type="text/plain; charset=utf-8")


@mcp_tool("test_image_content")
@api_view(["GET"])
def image_content(request):
    """Return a PNG image."""
    return HttpResponse(PNG, content_type="image/png")


@mcp_tool("test_audio_content")
@api_view(["GET"])
def audio_content(request):
    """Return a WAV sound."""
    return HttpResponse(WAV, content_type="audio/wav")


@mcp_tool("test_embedded_resource")
@api_view(["GET"])
def embedded_resource(request):
    """Return an embedded text resource."""
    mcp_output(request, content=[EMBEDDED_RESOURCE], structured_content=None)
    return Response(EMBEDDED_RESOURCE["resource"])


@mcp_tool("test_multiple_content_types")
@api_view(["GET"])
def multiple_content_types(request):
    """Return text, an image and an embedded resource together."""
    content = [
        {"type": "text", "text": "Multiple content types test:"},
        {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"},
        EMBEDDED_RESOURCE,
    ]
    mcp_output(request, content=content, structured_content=None)
    return Response({"parts": len(content)})


@mcp_tool("test_error_handling")
@api_view(["GET"])
def error_handling(request):
    """Fail on purpose, with a message the model can read."""
    raise ToolError(ERROR_TEXT)


@mcp_tool("test_tool_with_progress")
@api_view(["GET"])
def tool_with_progress(request):
    """Report progress three times, then finish."""
    for step in (0, 50, 100):
        report_progress(request, step, 100, f"Step {step}")
        time.sleep(0.05)
    return HttpResponse("Progress complete", content_type="text/plain")


@mcp_tool("test_tool_with_logging", stream=True)
@api_view(["GET"])
def tool_with_logging(request):
    """Send three log messages while running."""
    for line in LOG_LINES:
        log_message(request, "info", line)
        time.sleep(0.05)
    return HttpResponse("Logging complete", content_type="text/plain")


@mcp_tool("test_logging_tool", stream=True)
@api_view(["GET"])
def logging_tool(request):
    """Send log messages only to a client that asked for them (2026-07-28 logLevel)."""
    for line in LOG_LINES:
        log_message(request, "info", line)
    return HttpResponse("Logging complete", content_type="text/plain")


@mcp_tool("json_schema_2020_12_tool", input_schema=JSON_SCHEMA_2020_12)
@api_view(["POST"])
def json_schema_2020_12(request):
    """Echo arguments described with JSON Schema 2020-12 features."""
    return Response(request.data)


# Input-required results (SEP-2322): the 0.2.0 suite's input-required-result-* fixtures and
# the server-stateless diagnostic tools, through the public API. ---------------------------


def text_schema(name):
    """A form of one required string field."""
    return {"type": "object", "properties": {name: {"type": "string"}}, "required": [name]}


def sampling(text, max_tokens):
    """A sampling request of one user message."""
    message = {"role": "user", "content": {"type": "text", "text": text}}
    return {
        "method": "sampling/createMessage",
        "params": {"messages": [message], "maxTokens": max_tokens},
    }


ROOTS = {"method": "roots/list", "params": {}}
#: The suite's confirmation form: one required boolean.
OK_FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def sampled_text(result):
    """The text a sampling result carries (its content is one block or a list of them)."""
    content = result["content"]
    blocks = content if isinstance(content, list) else [content]
    return " ".join(block.get("text", "") for block in blocks)


def say(text):
    return HttpResponse(text, content_type="text/plain; charset=utf-8")


@mcp_tool("test_input_required_result_elicitation")
@api_view(["GET"])
def input_required_elicitation(request):
    """Ask the user's name, then greet them."""
    answer = elicit(request, "user_name", "What is your name?", text_schema("name"))
    if answer["action"] != "accept":
        return say("Hello, stranger!")
    return say(f"Hello, {answer['content']['name']}!")


@mcp_tool("test_input_required_result_sampling")
@api_view(["GET"])
def input_required_sampling(request):
    """Ask the client's model a question and return its answer."""
    answers = request_input(
        request, {"capital_question": sampling("What is the capital of France?", 100)}
    )
    return say(sampled_text(answers["capital_question"]))


@mcp_tool("test_input_required_result_list_roots")
@api_view(["GET"])
def input_required_list_roots(request):
    """List the client's roots."""
    roots = request_input(request, {"client_roots": ROOTS})["client_roots"]["roots"]
    return say("Roots: " + ", ".join(root["uri"] for root in roots))


@mcp_tool("test_input_required_result_request_state")
@api_view(["GET"])
def input_required_request_state(request):
    """Ask for a confirmation; its answer comes back with the signed state checked."""
    answer = elicit(request, "confirm", "Please confirm", OK_FORM)
    # The view runs again only once the endpoint has verified the echoed requestState.
    return say(f"state-ok: {answer['action']}")


@mcp_tool("test_input_required_result_multiple_inputs")
@api_view(["GET"])
def input_required_multiple_inputs(request):
    """Ask a form, a sampling and the roots in one round."""
    answers = request_input(
        request,
        {
            "user_name": {
                "method": "elicitation/create",
                "params": {"message": "What is your name?", "requestedSchema": text_schema("name")},
            },
            "greeting": sampling("Generate a greeting", 50),
            "client_roots": ROOTS,
        },
    )
    name = answers["user_name"].get("content", {}).get("name", "stranger")
    roots = len(answers["client_roots"]["roots"])
    return say(f"{sampled_text(answers['greeting'])} {name} ({roots} roots)")


@mcp_tool("test_input_required_result_multi_round")
@api_view(["GET"])
def input_required_multi_round(request):
    """Ask the user's name, then, in a second round, their favourite colour."""
    name = elicit(request, "step1", "Step 1: What is your name?", text_schema("name"))
    color = elicit(request, "step2", "Step 2: What is your favorite color?", text_schema("color"))
    return say(f"{name['content']['name']} likes {color['content']['color']}")


@mcp_tool("test_input_required_result_tampered_state")
@api_view(["GET"])
def input_required_tampered_state(request):
    """Ask for a confirmation; a retry with a forged state never reaches this view."""
    answer = elicit(request, "confirm", "Please confirm", OK_FORM)
    return say(f"confirmed: {answer['action']}")


@mcp_tool("test_input_required_result_capabilities")
@api_view(["GET"])
def input_required_capabilities(request):
    """Ask the user by a form when the client can show one, else ask its model."""
    try:
        answer = elicit(request, "user_name", "What is your name?", text_schema("name"))
    except InputUnavailable:
        answers = request_input(request, {"user_name_guess": sampling("Invent a name", 20)})
        return say(f"Hello, {sampled_text(answers['user_name_guess'])}!")
    return say(f"Hello, {answer['content']['name']}!")


@mcp_tool("test_missing_capability")
@api_view(["GET"])
def missing_capability(request):
    """Need the client's model: a client without sampling gets -32021."""
    answers = request_input(request, {"answer": sampling("What is 2 + 2?", 10)})
    return say(sampled_text(answers["answer"]))


@mcp_tool("test_streaming_elicitation", stream=True)
@api_view(["GET"])
def streaming_elicitation(request):
    """Report progress, then ask the user: the stream ends with the input request."""
    report_progress(request, 0, 1, "asking")
    answer = elicit(request, "user_name", "What is your name?", text_schema("name"))
    return say(f"Hello, {answer['content']['name']}!")


# The handshake era's input requests (0.1.16): asked on the call's stream. None of these
# tools declares stream=True: the call starts on a stream at its first ask. ----------------


def one_string(name: str, description: str) -> dict[str, Any]:
    """The input schema of one required string argument."""
    properties = {name: {"type": "string", "description": description}}
    return {"type": "object", "properties": properties, "required": [name]}


#: tools-call-elicitation's form.
USER_FORM = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}
#: elicitation-sep1034-defaults: a default for every primitive type (SEP-1034).
DEFAULTS_FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}
#: elicitation-sep1330-enums: the five enum forms of SEP-1330.
ENUMS_FORM = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


@mcp_tool("test_sampling", input_schema=one_string("prompt", "The prompt to send to the LLM"))
@api_view(["GET"])
def handshake_sampling(request):
    """Ask the client's model the prompt and return its answer."""
    answer = request_input(request, {"reply": sampling(request.query_params["prompt"], 100)})
    return say(f"LLM response: {sampled_text(answer['reply'])}")


@mcp_tool("test_elicitation", input_schema=one_string("message", "The message to show the user"))
@api_view(["GET"])
def handshake_elicitation(request):
    """Ask the user for their name and e-mail address."""
    answer = elicit(request, "user", request.query_params["message"], USER_FORM)
    return say(f"User response: <action: {answer['action']}, content: {answer['content']}>")


def completed(answer):
    return say(f"Elicitation completed: action={answer['action']}, content={answer['content']}")


@mcp_tool("test_elicitation_sep1034_defaults")
@api_view(["GET"])
def handshake_elicitation_defaults(request):
    """Ask a form whose every field has a default."""
    return completed(elicit(request, "profile", "Check your profile", DEFAULTS_FORM))


@mcp_tool("test_elicitation_sep1330_enums")
@api_view(["GET"])
def handshake_elicitation_enums(request):
    """Ask a form of the five enum forms."""
    return completed(elicit(request, "choices", "Pick your options", ENUMS_FORM))


#: The argument-header fixture's schema: ``shard`` declares its header here, ``region`` and
#: ``verbose`` through ``headers=`` (docs/protocol.md, argument headers).
ARGUMENT_HEADERS_SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "description": "Where the query runs."},
        "shard": {"type": "integer", "x-mcp-header": "Shard"},
        "verbose": {"type": "boolean"},
        "query": {"type": "string"},
    },
    "required": ["region"],
    "additionalProperties": False,
}


@mcp_tool(
    "test_argument_headers",
    input_schema=ARGUMENT_HEADERS_SCHEMA,
    headers={"region": "Region", "verbose": "Verbose"},
)
@api_view(["GET"])
def argument_headers(request):
    """Echo the arguments, three of which its client mirrors in Mcp-Param-* headers."""
    return Response(
        {key: request.query_params.get(key) for key in ARGUMENT_HEADERS_SCHEMA["properties"]}
    )


# Probes of the SSE transport (tests/endpoint/test_streaming.py); not conformance fixtures. --

#: Names the file whose creation opens ``probe_gate`` (set by the test for the server).
GATE_ENV = "MCP_TOOLS_PROBE_GATE"
#: What each ``probe_loop`` run ended with: "finished" or "disconnected".
LOOP_OUTCOMES: list[str] = []
GATE_SECONDS = 10


@mcp_tool("probe_gate")
@api_view(["GET"])
def probe_gate(request):
    """Report progress, then wait until the client has seen it (a buffered stream never is).

    The client opens the gate by creating the file ``MCP_TOOLS_PROBE_GATE`` names, which it
    can only do once it holds the first event: no second request, so it works with a single
    sync worker too.
    """
    gate = Path(os.environ[GATE_ENV])
    report_progress(request, 0, 1, "waiting for the client")
    deadline = time.monotonic() + GATE_SECONDS
    while not gate.exists():
        if time.monotonic() > deadline:
            return HttpResponse("gate timed out", content_type="text/plain")
        time.sleep(0.01)
    report_progress(request, 1, 1, "released")
    return HttpResponse("released", content_type="text/plain")


@mcp_tool("probe_loop", stream=True)
@api_view(["GET"])
def probe_loop(request):
    """Report progress and log for up to ten seconds; stop when the client goes away."""
    try:
        for step in range(200):
            report_progress(request, step, 200)
            log_message(request, "debug", {"step": step})
            time.sleep(0.05)
    except ClientDisconnected:
        LOOP_OUTCOMES.append("disconnected")
        raise
    LOOP_OUTCOMES.append("finished")
    return HttpResponse("looped", content_type="text/plain")


#: What ``probe_flood`` runs saw: how each ended, events sent, the most its stream queued.
FLOOD: dict[str, Any] = {"outcomes": [], "sent": 0, "queued": 0}
FLOOD_STEPS = 200
FLOOD_LINE = "f" * 65536


@mcp_tool("probe_flood", stream=True)
@api_view(["GET"])
def probe_flood(request):
    """Report progress and log 64 KiB at each of 200 steps, as fast as the stream lets it.

    A client that doesn't read would have it queue 12.8 MB; it records what its stream's
    queue held after each step (its notifier's channel, read here for the tests).
    """
    channel = get_context(request).notifier.channel
    try:
        for step in range(FLOOD_STEPS):
            report_progress(request, step, FLOOD_STEPS)
            log_message(request, "info", FLOOD_LINE)
            FLOOD["sent"] += 1
            FLOOD["queued"] = max(FLOOD["queued"], channel.size)
    except ClientDisconnected:
        FLOOD["outcomes"].append("disconnected")
        raise
    FLOOD["outcomes"].append("finished")
    return HttpResponse("flooded", content_type="text/plain")


@mcp_tool("probe_workers")
@api_view(["GET"])
def probe_workers(request):
    """Report how ``probe_loop`` and ``probe_flood`` runs ended and which tool-call worker
    threads are alive."""
    workers = [t.name for t in threading.enumerate() if t.name.startswith("mcp-tools-call-")]
    return Response({"outcomes": LOOP_OUTCOMES, "workers": workers, "flood": FLOOD})


@mcp_tool("test_trigger_tool_change")
@api_view(["POST"])
def trigger_tool_change(request):
    """Change the tool list: retitle this tool in the admin, as staff would (clients that
    listen hear that the list changed)."""
    from mcp_tools.models import ExposedTool

    row = ExposedTool.objects.get(name="test_trigger_tool_change")
    row.title = "" if row.title else "Tool list changer"
    row.save()
    return Response({"title": row.title})


@mcp_tool("test_trigger_prompt_change")
@api_view(["POST"])
def trigger_prompt_change(request):
    """Change the prompt list: add a prompt written in the admin, or take it away again."""
    from mcp_tools.models import Prompt

    deleted, _ = Prompt.objects.filter(name="test_changing_prompt").delete()
    if not deleted:
        Prompt.objects.create(
            name="test_changing_prompt",
            description="A prompt test_trigger_prompt_change adds and takes away",
            messages=[{"role": "user", "content": "Hello"}],
        )
    return Response({"listed": not deleted})
