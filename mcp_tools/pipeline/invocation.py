"""One tool invocation: arguments checked, the view run as the caller, its answer formatted.

An ``Invocation`` is made on the /mcp request's thread for one ``tools/call`` message (its
``endpoint.exchange.Call``), where ``start`` checks the arguments, builds the view's request and
asks for the user's confirmation where the tool wants it. ``run`` then runs the view there
or in a streaming worker. Whether refused or run, every call ends in ``finish``: result
processors, output schema enforcement, and the ``tool_called`` signal (the call log is one
receiver); a round that ends asking the client for input ends in ``input_required`` instead
(docs/input.md).
"""

from __future__ import annotations

import time
import weakref
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from ..auth.caller import Caller
from ..core.context import Notifier, ToolCallContext, attach_notifier, get_context
from ..core.routes import NoPath
from ..exceptions import ClientDisconnected
from ..inputs import request_state
from ..inputs.asks import (
    CONFIRM_KEY,
    InputRequired,
    Inputs,
    StreamNeeded,
    can_confirm_over_stream,
    confirm,
    confirmation_message,
    unavailable_error,
)
from ..protocol.jsonrpc import JSONRPCError, Message
from ..protocol.results import LOCATION_META_KEY, InputRequiredResult, ToolResult
from ..protocol.versions import Era
from ..signals import tool_called
from ..tools.tool import Tool
from . import arguments
from .chain import call_view, release
from .enforcement import enforce
from .formatters import BaseFormatter
from .inner_requests import build_inner_request
from .plans import CallPlan
from .processors import run_processors
from .redirects import Hop, Redirects


class Exchange(Protocol):
    """What an invocation reads of the HTTP request its call came in (``endpoint.exchange``)."""

    @property
    def asks(self) -> bool: ...

    @property
    def operator(self) -> bool: ...

    @property
    def endpoint_path(self) -> str: ...

    #: Who sees what (``catalog.visibility.Visibility``, a section above this one).
    @property
    def visibility(self) -> Any: ...

    def plan_at(self, path: str) -> tuple[CallPlan, dict[str, Any]] | None: ...

    def count_call(self) -> None: ...


class Endpoint(Protocol):
    def get_formatter(self) -> BaseFormatter: ...


class Call(Protocol):
    """What an invocation reads of the JSON-RPC request it answers: the endpoint's ``Call``
    (``mcp_tools.endpoint.exchange``), typed here so that the pipeline needs no endpoint."""

    message: Message
    era: Era
    task_id: str | None
    invocation: Invocation[Any] | None

    @property
    def exchange(self) -> Exchange: ...

    @property
    def endpoint(self) -> Endpoint: ...

    @property
    def version(self) -> str: ...

    @property
    def request(self) -> HttpRequest: ...

    @property
    def caller(self) -> Caller: ...

    @property
    def client_name(self) -> str: ...


#: The tools whose views asked for input in a handshake-era call that was not streamed, in
#: this process: their later calls stream from the start, so their views run once.
ASKING: weakref.WeakSet[Tool] = weakref.WeakSet()


#: The call an invocation answers: the endpoint's own ``Call`` where the endpoint made it.
CallT = TypeVar("CallT", bound=Call)


class Run:
    """What a handler leaves to the transport to run, on the request's thread or on a
    stream: a tool call's ``Invocation``, or a handshake-era prompt that asks
    (``prompts.runs.PromptRun``). The transport knows one by this class alone, so that it
    needs no prompts module until a prompt is asked for."""


class Invocation(Run, Generic[CallT]):
    """One ``tools/call`` of one tool, from its arguments to its finished result."""

    #: What the call log records this as (``ToolCall.kind``): a subclass that reads a
    #: resource through the same path says so (docs/calllog.md).
    kind = "tool"

    def __init__(
        self, call: CallT, plan: CallPlan, args: dict[str, Any], inputs: Inputs | None = None
    ) -> None:
        self.call = call
        #: What every call of the tool shares (docs/performance.md#the-call-plan).
        self.plan = plan
        self.tool = plan.tool
        #: The arguments as received (before any conversion).
        self.args = args
        #: What this round may ask the client; None where it can ask nothing.
        self.inputs = inputs
        self.formatter: BaseFormatter = call.endpoint.get_formatter()
        # When the call began: on the wall clock (made a datetime only if it is reported) and
        # on the performance counter (its duration).
        self._began = time.time()
        self._started = time.perf_counter()
        #: The question a handshake-era call puts to the user on its stream, before the
        #: view runs (``run``); None when none is due there.
        self.confirmation: str | None = None
        #: The finished result and the view's status, until the answer reports them.
        self._finished: tuple[ToolResult, int | None] | None = None
        self.inner: HttpRequest | None = None
        self._split: arguments.SplitArguments | None = None
        self._refusal: str | None = None
        self._may_stream = False

    @property
    def name(self) -> str:
        """Names the call in thread names and log notifications: the tool's name."""
        return self.tool.name

    @property
    def notifies(self) -> bool:
        """Whether the call streams from the start: the client wants its notifications (a
        progress token, or ``stream=True``), the handshake era asks it to confirm on the
        stream, or its view asked for input before in this process (``restart``), and this
        handshake-era client can be asked."""
        return (
            self.call.message.progress_token is not None
            or self.tool.options.stream
            or self.confirmation is not None
            or (self.tool in ASKING and self._may_stream)
        )

    def start(self) -> ToolResult | InputRequiredResult | None:
        """Check the arguments, build the view's request, and ask for confirmation if due.

        Returns what ends the call before the view runs (a refusal, a declined confirmation,
        or the input-required result that asks for it), else None. Done on the /mcp
        request's thread, also for streamed calls: the outer request (its session, its lazy
        user) is not touched again once its response has left.
        """
        plan = self.plan
        if not self.args and plan.unargued is not None:
            self._split = plan.unargued  # read, never written: every such call's
        else:
            lines, self._split = arguments.check(self.tool, self.args)
            if lines:
                error = ToolResult.error("\n".join(lines))
                return self.finish(error, refusal="invalid_arguments")
        call = self.call
        # A handshake-era call answered on this thread may start again on a stream when its
        # view asks (``restart``): where its client reads one.
        self._may_stream = may_stream = not call.era.modern and call.exchange.asks
        try:
            self.inner = self._build_inner(call.version if may_stream else None)
        except NoPath as exc:
            error = ToolResult.error(f"Invalid arguments: {exc.json_path}: {exc}")
            return self.finish(error, refusal="invalid_arguments")
        template = plan.confirmation
        if template is not None and not call.exchange.operator:
            message = confirmation_message(template, self.tool, self.args)
            asks = self.inputs is None and call.exchange.asks
            if asks and can_confirm_over_stream(call.version):
                # Asked on the call's stream, from the thread that runs the view.
                self.confirmation = message
                return None
            try:
                refused = confirm(self.inner, message)
            except InputRequired as asked:
                return self.input_required(asked)
            if refused is not None:
                return self.finish(ToolResult.error(refused), refusal="unconfirmed")
        return None

    def _build_inner(self, stream_on_ask: str | None, hop: Hop | None = None) -> HttpRequest:
        """Build the view's request: the called tool's, or that of the tool ``hop`` leads to
        (its path arguments and query string as the redirect gave them)."""
        call = self.call
        plan = self.plan if hop is None else hop.plan
        context = ToolCallContext(
            params=call.message.params,
            tool_name=plan.tool.name,
            endpoint_path=call.exchange.endpoint_path,
            inputs=self.inputs,
            stream_on_ask=stream_on_ask,
            view=plan.view,
        )
        identity = call.exchange.visibility.identity_for(plan.tool)
        if hop is not None:
            split = arguments.SplitArguments(path=hop.path)
            return build_inner_request(
                call.request, plan, split, context, identity=identity, query_string=hop.query
            )
        assert self._split is not None, "start() splits the arguments first"
        return build_inner_request(call.request, self.plan, self._split, context, identity=identity)

    @property
    def may_restart(self) -> bool:
        """Whether this call, answered on its thread, starts again on a stream if its view
        asks (a handshake-era client that names ``text/event-stream``)."""
        return self._may_stream

    def restart(self) -> None:
        """Make the view's request afresh, for a run on a stream after one that ended at its
        first ask (``StreamNeeded``); this run's asks can't start it again. The tool's
        later handshake-era calls in this process stream from the start: its view asks."""
        ASKING.add(self.tool)
        self.inner = self._build_inner(None)

    def stay_inline(self) -> None:
        """Keep this call on its thread whatever its view asks (it can't stream)."""
        context = get_context(self.inner) if self.inner is not None else None
        if context is not None:
            context.stream_on_ask = None

    def run(self, notifier: Notifier | None = None) -> ToolResult | InputRequiredResult:
        """Run the view (its notifications to ``notifier``) and return its finished result.

        Raises ``JSONRPCError`` (-32021) when the view failed for want of a client
        capability the 2026-07-28 client did not declare, and ``StreamNeeded`` when a
        handshake-era view asked without a stream (``restart`` it on one).
        """
        inner = self.inner
        assert inner is not None, "start() refused this call"
        if notifier is not None:
            attach_notifier(inner, notifier)
        if self.confirmation is not None:
            refusal = "unconfirmed"
            try:
                refused = confirm(inner, self.confirmation)
            except ClientDisconnected as exc:  # gone, or past CALL_TIMEOUT: the view never runs
                refused, refusal = str(exc), "cancelled"
            if refused is not None:
                return self.finish(ToolResult.error(refused), refusal=refusal)
        status = None
        tool, location = self.tool, None
        redirects = Redirects.of(tool, inner)
        while True:  # once, and again for each redirect followed (docs/results.md#redirects)
            try:
                response = call_view(inner)
            except StreamNeeded:
                raise
            except InputRequired as asked:
                return self.input_required(asked)
            except Exception as exc:
                if (error := unavailable_error(inner, exc)) is not None:
                    raise self.unavailable(error, None) from None
                result = located(self.formatter.format_exception(exc, inner, tool), location)
                if isinstance(exc, ClientDisconnected):  # the view stopped: its client left
                    return self.finish(result, refusal="cancelled")
                break
            status = response.status_code
            followed: tuple[HttpRequest, Hop] | ToolResult | None = None
            try:
                if (error := unavailable_error(inner, response)) is not None:
                    raise self.unavailable(error, status)
                followed = self.follow(redirects, response, inner, notifier)
                if not isinstance(followed, tuple):
                    result = followed or self.formatter.format_response(response, inner, tool)
            finally:
                release(response)
            if not isinstance(followed, tuple):
                result = located(result, location)
                break
            inner, hop = followed
            tool, location = hop.plan.tool, hop.url
        return self.finish(result, status)

    def follow(
        self,
        redirects: Redirects | None,
        response: HttpResponseBase,
        inner: HttpRequest,
        notifier: Notifier | None,
    ) -> tuple[HttpRequest, Hop] | ToolResult | None:
        """Return the request of the view a redirect leads to and the hop, the error result
        of a loop or of one hop too many, or None: ``response`` is formatted as it is."""
        if redirects is None:
            return None
        hop = redirects.follow(response, inner, self.call.exchange.plan_at)
        if not isinstance(hop, Hop):
            return hop
        context = get_context(inner)
        try:
            following = self._build_inner(context.stream_on_ask if context else None, hop)
        except NoPath:  # the route can't be reached with what the URL captured
            return None
        if notifier is not None:
            attach_notifier(following, notifier)
        return following, hop

    def unavailable(self, error: JSONRPCError, status: int | None) -> JSONRPCError:
        """Report a call whose view stopped for want of a client capability (-32021, a
        protocol error: no result is answered), and return the error."""
        self.report("complete", status, True, None, outcome="error", error_message=error.message)
        self.call.invocation = None
        return error

    def timed_out(self, seconds: float) -> ToolResult:
        """Return the result of this call past ``CALL_TIMEOUT``: what its client reads."""
        result = ToolResult.error(f"Tool call timed out after {seconds:g} s")
        return enforce(self.tool, run_processors(result, self.tool, None))

    def finish(
        self, result: ToolResult, status: int | None = None, refusal: str | None = None
    ) -> ToolResult:
        """Run the result processors and enforce the output schema; ``answered`` reports
        the call once its answer is built (it may be refused as too large). ``refusal``
        says why the endpoint stopped the call, if it did (docs/calllog.md)."""
        result = enforce(self.tool, run_processors(result, self.tool, self.inner))
        self._finished = (result, status)
        self._refusal = refusal
        return result

    def answered(self, result: ToolResult, sent: ToolResult) -> None:
        """Report the call whose finished ``result`` was answered with ``sent``: itself, or
        the error of an answer too large to send. Other results (a timeout's, built ahead)
        report nothing: the view's own result does, when it finishes."""
        finished = self._finished
        if finished is None or finished[0] is not result:
            return
        self._finished = None
        refusal = "too_large" if sent is not result else self._refusal
        if refusal is None and finished[1] == 429:
            refusal = "throttled"  # the view's own throttles refused it
        expired = self.expired_after()
        if expired is not None:
            # Its client read the timeout's answer, whatever the view gave after it.
            sent, refusal = self.timed_out(expired), None
        self.report(
            "complete", finished[1], sent.is_error, sent.error_reference, **ending(sent, refusal)
        )
        # Reported: the call and this invocation refer to each other no more, or the whole
        # call would hang from a cycle for the garbage collector to find.
        self.call.invocation = None

    def expired_after(self) -> float | None:
        """Return ``CALL_TIMEOUT`` if this call is streamed and reached it (its view was
        stopped by it, or answers after it), else None."""
        context = get_context(self.inner) if self.inner is not None else None
        notifier = context.notifier if context is not None else None
        if notifier is None:
            return None
        if notifier.expired or time.monotonic() >= notifier.deadline:
            return float(notifier.timeout)
        return None

    def input_required(self, asked: InputRequired) -> InputRequiredResult:
        """End this round asking the client ``asked.requests``; sign what it answered so far."""
        channel = self.inputs
        assert channel is not None, "only a call that can ask raises InputRequired"
        confirmed = channel.confirmation if CONFIRM_KEY in channel.used else None
        if channel.held is not None:
            channel.held.release()  # this run ends asking: the retry runs the view again
        state = request_state.issue(channel.binding, channel.used, list(asked.requests), confirmed)
        self.report("input_required", None, False, None, outcome="ok")
        return InputRequiredResult(asked.requests, state)

    def report(
        self,
        result_type: str,
        status: int | None,
        is_error: bool,
        error_ref: str | None,
        *,
        outcome: str,
        error_message: str = "",
        refusal: str | None = None,
    ) -> None:
        """Send ``tool_called`` for this round of the call."""
        send_tool_called(
            self.call,
            self.tool.view_class,
            self.tool.name,
            self.args,
            self._began,
            self._started,
            result_type=result_type,
            status=status,
            is_error=is_error,
            error_ref=error_ref,
            outcome=outcome,
            error_message=error_message,
            refusal=refusal,
            kind=self.kind,
        )


def located(result: ToolResult, location: str | None) -> ToolResult:
    """Name in ``result``'s ``_meta`` where the redirects it followed led, if any did."""
    if location is not None:
        result.meta[LOCATION_META_KEY] = location
    return result


def send_tool_called(
    call: Call,
    sender: type,
    name: str,
    args: dict[str, Any],
    began: float,
    started: float,
    **ended: Any,
) -> None:
    """Send ``tool_called`` for a round of a call of tool ``name`` (``sender``: its view
    class) begun at ``began`` (``time.time()``; and ``started``, on ``time.perf_counter``),
    with how it ``ended`` (docs/calllog.md): not sent where no receiver would act on it."""
    if not tool_called.wanted(**ended):
        return
    user = call.caller.user if call.caller.is_authenticated else None
    tool_called.send(
        sender=sender,
        tool=name,
        user=user,
        # As timezone.now() gives it: aware (UTC) where USE_TZ is on.
        started_at=datetime.fromtimestamp(began, tz=UTC if settings.USE_TZ else None),
        duration_ms=(time.perf_counter() - started) * 1000,
        arguments=args,
        protocol_version=call.version,
        client_name=call.client_name,
        request=call.request,
        task_id=call.task_id,
        **ended,
    )


def send_refused(
    call: Call,
    sender: type,
    name: str,
    args: dict[str, Any],
    started: float,
    message: str,
    refusal: str,
    kind: str = "tool",
) -> None:
    """Send ``tool_called`` for a call (or a read: ``kind``) the endpoint refused before
    an ``Invocation`` ran it: hidden, throttled, or with arguments it could not take."""
    send_tool_called(
        call,
        sender,
        name,
        args,
        time.time(),
        started,
        result_type="complete",
        status=None,
        is_error=True,
        error_ref=None,
        outcome="refused",
        error_message=message,
        refusal=refusal,
        kind=kind,
    )


def ending(sent: ToolResult, refusal: str | None) -> dict[str, Any]:
    """Return how a call answered ``sent`` ended, as ``tool_called`` reports it: its
    ``outcome``, the ``error_message`` the model read, and the ``refusal``."""
    if refusal is None and not sent.is_error:
        return {"outcome": "ok", "error_message": "", "refusal": None}
    message = "\n".join(sent.texts())
    if sent.error_reference is not None:
        message = f"{message} (reference {sent.error_reference})"
    outcome = "refused" if refusal is not None else "error"
    return {"outcome": outcome, "error_message": message, "refusal": refusal}
