"""Running a tool's view in-process, as Django's handler would run it for a direct request.

By default (``DISPATCH = "middleware"``) the view's request goes through the project's
``MIDDLEWARE``, built once per process as Django's handler builds it, with the view at its
end: path- and view-based policy (staff-only prefixes, tenants, two-factor gates,
maintenance mode) applies to a tool call exactly as to a direct request, and a middleware
that answers by itself answers the tool call. ``DISPATCH_SKIP_MIDDLEWARE`` leaves out the
classes whose effect the view's request already carries from the /mcp request (its user,
session, language). ``DISPATCH = "direct"`` calls the view alone (docs/dispatch.md).

Either way the view runs under the transaction rules Django would apply to it
(``ATOMIC_REQUESTS`` per database, ``non_atomic_requests`` honoured).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from django.core.exceptions import MiddlewareNotUsed
from django.core.handlers.base import BaseHandler
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.module_loading import import_string

from ..conf import mcp_settings
from ..core.context import get_context
from ..exceptions import ClientDisconnected, InputUnavailable, ToolError
from ..inputs.asks import InputRequired

Handler = Callable[[HttpRequest], HttpResponseBase]
MIDDLEWARE = "middleware"
DIRECT = "direct"
MODES = (MIDDLEWARE, DIRECT)

# Its make_view_atomic() and adapt_method_mode() are Django's own rules for wrapping a view
# and for running async-only middleware in a sync chain; its own chain is never loaded.
_handler = BaseHandler()


class _Escaped(HttpResponse):
    """What the middleware sees in place of a response when the view raised.

    A 500, as Django's handler would answer; the exception itself is raised again once the
    chain returns, so the formatter reports it (masked, with an error reference) and an
    input request or a disconnection ends the call as it would without middleware.
    """

    status_code = 500


@dataclass
class Chain:
    """The project's middleware with a tool's view at its end, built once per settings."""

    #: The dotted paths that run for a tool call, outermost first; and those left out.
    running: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    handler: Handler | None = None
    view_middleware: list[Callable[..., HttpResponseBase | None]] = field(default_factory=list)
    template_response_middleware: list[Callable[..., HttpResponseBase]] = field(
        default_factory=list
    )
    exception_middleware: list[Callable[..., HttpResponseBase | None]] = field(default_factory=list)

    @classmethod
    def load(cls, paths: list[str], skip: list[str]) -> Chain:
        """Build the chain of ``paths`` (``MIDDLEWARE``) minus ``skip``, as Django's
        ``BaseHandler.load_middleware`` builds a sync one."""
        chain = cls()
        handler = cast(Handler, convert_exception_to_response(chain.run_view))
        handler_is_async = False
        for path in reversed(paths):
            if path in skip:
                chain.skipped.insert(0, path)
                continue
            factory = import_string(path)
            sync_capable = getattr(factory, "sync_capable", True)
            middleware_is_async = not sync_capable
            adapted = _handler.adapt_method_mode(
                middleware_is_async, handler, handler_is_async, name=path
            )
            try:
                middleware = factory(adapted)
            except MiddlewareNotUsed:
                chain.skipped.insert(0, path)
                continue
            chain.running.insert(0, path)
            # Async hooks of an async-only middleware run to completion, as Django runs them.
            adapt: Callable[..., Any] = _handler.adapt_method_mode
            if hasattr(middleware, "process_view"):
                chain.view_middleware.insert(0, adapt(False, middleware.process_view))
            if hasattr(middleware, "process_template_response"):
                hook = adapt(False, middleware.process_template_response)
                chain.template_response_middleware.append(hook)
            if hasattr(middleware, "process_exception"):
                chain.exception_middleware.append(adapt(False, middleware.process_exception))
            handler = cast(Handler, convert_exception_to_response(middleware))
            handler_is_async = middleware_is_async
        if not chain.running:
            # Nothing runs but the view: no hook can raise, nothing to adapt or convert.
            chain.handler = chain.run_view
            return chain
        chain.handler = cast(Handler, _handler.adapt_method_mode(False, handler, handler_is_async))
        return chain

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        """Run ``request`` through the chain; raise what the view raised, if it did."""
        assert self.handler is not None
        response = self.handler(request)
        context = get_context(request)
        escaped = context.escaped if context is not None else None
        if escaped is not None:
            context.escaped = None  # type: ignore[union-attr]
            release(response)
            raise escaped
        return response

    def run_view(self, request: HttpRequest) -> HttpResponseBase:
        """The end of the chain, as Django's ``BaseHandler._get_response``: the view
        middleware, the view, its exception middleware, its template response rendered.

        What the view (or its rendering) raises and no ``process_exception`` answers is held
        on the call's context: the chain sees a 500, and ``__call__`` raises it again. What
        the hooks themselves raise is answered by Django's handler, as for a direct request.
        """
        match = request.resolver_match
        assert match is not None
        callback = match.func
        if request.method != request.META["REQUEST_METHOD"]:
            # A middleware that honours a method override: the tool's method is its own.
            changed = ToolError(
                f"A middleware changed the method of this tool call to {request.method}."
            )
            return self.view_failed(request, changed)
        response = None
        for process_view in self.view_middleware:
            response = process_view(request, callback, match.args, match.kwargs)
            if response is not None:
                break
        if response is None:
            context = get_context(request)
            view: Handler | None = context.view if context is not None else None
            if view is None:
                view = _handler.make_view_atomic(callback)
            try:
                response = view(request, *match.args, **match.kwargs)
                _handler.check_response(response, callback)
            except Exception as exc:
                response = self.view_failed(request, exc)
                if isinstance(response, _Escaped):
                    return response
        if callable(getattr(response, "render", None)):
            for process in self.template_response_middleware:
                response = process(request, response)
                _handler.check_response(response, process, name="process_template_response")
            try:
                response = response.render()  # type: ignore[attr-defined]
            except Exception as exc:
                response = self.view_failed(request, exc)
        return response

    def view_failed(self, request: HttpRequest, exc: Exception) -> HttpResponseBase:
        """Return what the exception middleware answers for ``exc``, else hold ``exc`` on
        the call's context and return the placeholder the chain sees."""
        if not _is_control_flow(exc):
            for process_exception in self.exception_middleware:
                response = process_exception(request, exc)
                if response is not None:
                    return response
        context = get_context(request)
        if context is None:
            raise exc
        context.escaped = exc
        return _Escaped()


def _is_control_flow(exc: Exception) -> bool:
    """Whether ``exc`` ends a tool call by design (an input request, a client gone away, a
    refusal of the endpoint's own): no middleware's ``process_exception`` turns it into an
    error page."""
    return isinstance(exc, InputRequired | ClientDisconnected | ToolError) and not isinstance(
        exc, InputUnavailable
    )


_chain: tuple[int, Chain] | None = None


def chain() -> Chain:
    """Return the middleware chain of tool calls, built once per settings generation."""
    global _chain
    generation = mcp_settings.generation
    if _chain is None or _chain[0] != generation:
        skip = list(mcp_settings.DISPATCH_SKIP_MIDDLEWARE)
        _chain = (generation, Chain.load(list(mcp_settings.middleware), skip))
    return _chain[1]


#: The chain of ``DISPATCH = "direct"``: the view alone, run as the end of any chain.
_direct = Chain.load([], [])


def call_view(request: HttpRequest) -> HttpResponseBase:
    """Call the view of ``request`` (the inner request of a tool call) and return its
    rendered response: through the middleware chain, or alone with ``DISPATCH = "direct"``.

    An exception that escapes the view rolls back the view's atomic block and propagates.
    """
    return (_direct if mcp_settings.DISPATCH == DIRECT else chain())(request)


def release(response: HttpResponseBase) -> None:
    """Close the response's resources without sending ``request_finished``.

    ``HttpResponse.close()`` sends that signal, which would close the database connection
    in the middle of the outer /mcp request.
    """
    # Private to Django (and so not in django-stubs); a test pins that it is still there.
    closers: list[Callable[[], object]] = response._resource_closers  # type: ignore[attr-defined]
    for closer in closers:
        with contextlib.suppress(Exception):
            closer()
    closers.clear()
    response.closed = True
