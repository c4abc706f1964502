"""Running a tool's view in-process, under the transaction rules Django would apply to it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from django.core.handlers.base import BaseHandler
from django.http import HttpRequest, HttpResponseBase

from .tools import Tool

# Only its make_view_atomic() is used: ATOMIC_REQUESTS per database, non_atomic_requests
# honoured, exactly as Django's own handler wraps a view. No middleware is loaded.
_handler = BaseHandler()


def call_view(tool: Tool, request: HttpRequest) -> HttpResponseBase:
    """Call the tool's view with ``request`` and return its rendered response.

    An exception that escapes the view rolls back the view's atomic block and propagates.
    """
    match = request.resolver_match
    assert match is not None
    view = _handler.make_view_atomic(tool.callback)
    response = view(request, *match.args, **match.kwargs)
    render = getattr(response, "render", None)
    if callable(render):
        response = render()
    return response


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
