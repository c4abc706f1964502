"""OpenTelemetry spans: one per JSON-RPC request, continuing the trace the client sent.

With ``opentelemetry-api`` installed (the ``[otel]`` extra), each request gets a server
span named and attributed by OpenTelemetry's MCP semantic conventions (``tools/call
todo_list``; ``mcp.method.name``, ``gen_ai.tool.name``, ``gen_ai.operation.name``,
``mcp.protocol.version``, ``jsonrpc.request.id``, ``error.type``). Its parent is the trace
context in the request's ``_meta`` (``traceparent``, ``tracestate``, ``baggage``), linked to
the HTTP request's span; without one, the HTTP request's span itself. Without the package,
or until something in the process imports it (an SDK, an instrumentation), every call here
is a method of one shared object that does nothing (docs/observability.md).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest

from ..protocol.jsonrpc import INTERNAL_ERROR, JSONRPCError, Message, clip
from ..protocol.results import InputRequiredResult, ToolResult
from ..tools.tool import NAME_RE

#: OpenTelemetry's ``trace`` and ``propagate`` modules, once the process has imported them.
trace: Any = None
propagate: Any = None


def _loaded() -> bool:
    """Return whether the OpenTelemetry API is in use, taking its modules on first sight.

    It is in use once anything in the process imported it: an SDK the project configured, an
    instrumentation, ``opentelemetry-instrument``. Until then nothing could record a span or
    carry a trace context on, so the endpoint doesn't import it either: the import costs
    about 6 MiB of resident memory (its propagators' entry points), more than the rest of
    the package.
    """
    global trace, propagate
    if trace is None:
        if sys.modules.get("opentelemetry.trace") is None:
            return False
        from opentelemetry import propagate as propagation
        from opentelemetry import trace as tracing

        propagate = propagation  # first: another thread reads trace as "loaded"
        trace = tracing
    return True


#: The ``_meta`` keys that carry W3C trace context and baggage (SEP-414), and their bounds.
CONTEXT_KEYS = {"traceparent": 128, "tracestate": 1024, "baggage": 8192}
ERROR_REF_ATTRIBUTE = "mcp_tools.error_ref"
#: A method name as the protocol spells them; any other is named ``_OTHER`` (as
#: OpenTelemetry names an unknown HTTP method): span names and attributes are bounded, and
#: never carry a client's control characters.
METHOD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_./-]{0,63}")
OTHER_METHOD = "_OTHER"
#: Characters of a request id an attribute keeps.
MAX_ID_LENGTH = 128
RESULT_TYPE_ATTRIBUTE = "mcp_tools.result_type"


class NoTrace:
    """The trace of a request when OpenTelemetry is not installed, or records nothing."""

    def version(self, version: str) -> None:
        """Record the protocol version the request speaks."""

    def tool(self, name: str) -> None:
        """Name the tool a ``call_tool`` call called (docs/tools.md#large-apis)."""

    def result(self, result: object) -> None:
        """Record how the request's result ended (a tool error, an input request)."""

    def error(self, error: JSONRPCError) -> None:
        """Record the JSON-RPC error the request was answered with."""

    def exception(self, exc: BaseException, reference: str) -> None:
        """Record the unexpected exception answered -32603 under ``reference``."""

    def active(self) -> contextlib.AbstractContextManager[object]:
        """Make the span current while the request's work runs (on any thread)."""
        return _NOTHING

    def end(self) -> None:
        """End the span."""


#: Reusable: entering and leaving it does nothing, so no object is made per request.
_NOTHING = contextlib.nullcontext()
NO_TRACE = NoTrace()


class Trace(NoTrace):
    """One recording span of one JSON-RPC request."""

    def __init__(self, span: Any) -> None:
        self.span = span

    def version(self, version: str) -> None:
        self.span.set_attribute("mcp.protocol.version", version)

    def tool(self, name: str) -> None:
        if NAME_RE.match(name):  # call_tool's arguments were valid: it is a tool's name
            self.span.update_name(f"tools/call {name}")
            self.span.set_attribute("gen_ai.tool.name", name)

    def result(self, result: object) -> None:
        if isinstance(result, InputRequiredResult):
            self.span.set_attribute(RESULT_TYPE_ATTRIBUTE, "input_required")
        elif isinstance(result, ToolResult) and result.is_error:
            self.span.set_attribute("error.type", "tool_error")
            if result.error_reference:
                self.span.set_attribute(ERROR_REF_ATTRIBUTE, result.error_reference)
            self.span.set_status(trace.StatusCode.ERROR)

    def error(self, error: JSONRPCError) -> None:
        code = str(error.code)
        self.span.set_attributes({"error.type": code, "rpc.response.status_code": code})
        self.span.set_status(trace.StatusCode.ERROR, error.message)

    def exception(self, exc: BaseException, reference: str) -> None:
        # The class, not the message: messages may carry argument values (docs/security.md).
        self.span.set_attributes(
            {
                "error.type": type(exc).__qualname__,
                "rpc.response.status_code": str(INTERNAL_ERROR),
                ERROR_REF_ATTRIBUTE: reference,
            }
        )
        self.span.set_status(trace.StatusCode.ERROR, "Internal error")

    def active(self) -> contextlib.AbstractContextManager[object]:
        return trace.use_span(
            self.span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        )

    def end(self) -> None:
        self.span.end()


def begin(message: Message, request: HttpRequest) -> NoTrace:
    """Start the server span of one JSON-RPC request; return ``NO_TRACE`` if none records."""
    if not _loaded():
        return NO_TRACE
    if _unconfigured() and "traceparent" not in message.meta:
        # No SDK: the no-op tracer would return the current span's own context, so making
        # its span current would change nothing. A client's traceparent is still made
        # current, for the propagators of what the view calls.
        return NO_TRACE
    method = message.method or ""
    if not METHOD_RE.fullmatch(method):
        method = OTHER_METHOD
    name = message.params.get("name") if method in ("tools/call", "prompts/get") else None
    target = name if isinstance(name, str) and NAME_RE.match(name) else None
    parent = remote_context(message.meta)
    links = None
    if parent is not None:
        # The client's span is the parent; the HTTP request's span (if any) is linked.
        ambient = trace.get_current_span().get_span_context()
        links = [trace.Link(ambient)] if ambient.is_valid else None
    span = _tracer().start_span(
        f"{method} {target}" if target else method,
        context=parent,
        kind=trace.SpanKind.SERVER,
        links=links,
    )
    if not span.is_recording():
        # Sampled out: still the current span, so that what the view traces follows suit.
        return Trace(span) if span.get_span_context().is_valid else NO_TRACE
    attributes: dict[str, Any] = {
        "mcp.method.name": method,
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    if message.id is not None:
        attributes["jsonrpc.request.id"] = clip(str(message.id), MAX_ID_LENGTH)
    if method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
        if target:
            attributes["gen_ai.tool.name"] = target
    elif method == "prompts/get" and target:
        attributes["gen_ai.prompt.name"] = target
    protocol = request.META.get("SERVER_PROTOCOL", "")
    if isinstance(protocol, str) and protocol.startswith("HTTP/"):
        attributes["network.protocol.version"] = protocol[5:]
    address = request.META.get("REMOTE_ADDR")
    if isinstance(address, str) and address:
        attributes["client.address"] = address
    span.set_attributes(attributes)
    return Trace(span)


def remote_context(meta: Mapping[str, Any]) -> Any:
    """Return the context of the trace the client sent in ``_meta``, or None.

    Only string values within the W3C bounds are read, by the configured propagators; a
    context without a valid ``traceparent`` is None, so the span nests under the HTTP
    request's instead of starting a trace of its own.
    """
    carrier = {
        key: value
        for key, bound in CONTEXT_KEYS.items()
        if isinstance(value := meta.get(key), str) and len(value) <= bound
    }
    if "traceparent" not in carrier:
        return None
    try:
        context = propagate.extract(carrier)
    except Exception:  # a propagator that chokes on client input must not fail the request
        return None
    if not trace.get_current_span(context).get_span_context().is_valid:
        return None
    return context


def _unconfigured() -> bool:
    """Return whether no tracer provider is set: every span would be a no-op.

    Asked for every message wherever the API is loaded, and a site's cache client loads it
    (redis-py 8 does) with no provider set. ``get_tracer_provider()`` then reads
    ``os.environ`` each time, about 1.5 us, several times that inside a request; the API's
    own global, read first, answers in 0.1 us until a provider is set or named by the
    environment. An API without that global is asked the public way.
    """
    if getattr(trace, "_TRACER_PROVIDER", _ASK) is None and not _named_in_environment():
        return True
    provider = trace.get_tracer_provider()
    return isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider)


#: What ``_unconfigured`` reads when the API has no ``_TRACER_PROVIDER`` global to read.
_ASK = object()


@functools.cache
def _named_in_environment() -> bool:
    """Return whether ``OTEL_PYTHON_TRACER_PROVIDER`` names a provider: the API loads it at
    the first ``get_tracer_provider()`` (read once, as the API reads it once)."""
    return "OTEL_PYTHON_TRACER_PROVIDER" in os.environ


@functools.cache
def _tracer() -> Any:
    # A proxy until the project sets its tracer provider, then that provider's tracer.
    # Imported here, once a tracer records: importlib.metadata costs a worker about 1 MiB.
    import importlib.metadata

    try:
        version: str | None = importlib.metadata.version("django-mcp-tools")
    except importlib.metadata.PackageNotFoundError:  # a checkout that is not installed
        version = None
    return trace.get_tracer("mcp_tools", version)
