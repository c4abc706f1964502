"""The MCP endpoint: the Streamable HTTP transport (JSON-RPC over POST), stateless.

A plain Django view, not a DRF APIView: every tool call already pays for DRF's request and
response machinery once, in the tool's own view. It takes DRF's policy classes all the
same, as class attributes or ``as_view()`` arguments, with DRF's hooks to choose them.

The transport alone decides how answers travel: it checks the HTTP request, reads one
message or a batch, authenticates the caller once, hands each message to the server
(``mcp_tools.endpoint.server``) and sends the answer as JSON, or as an SSE stream when a tool call's
notifications are wanted and the client reads ``text/event-stream``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.core.exceptions import (
    BadRequest,
    DisallowedHost,
    ImproperlyConfigured,
    PermissionDenied,
    SuspiciousOperation,
)
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseNotAllowed,
    UnreadablePostError,
)
from django.utils.log import log_response
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from ..auth import policy, resource_metadata
from ..auth.caller import Caller, unauthenticated_user
from ..auth.credentials import scopes_of
from ..auth.refusals import MAX_AUTHORIZATION_BYTES, TOO_LONG, refusal, refused_credentials
from ..calllog import writer as calllog
from ..conf import mcp_settings
from ..core.holds import holds_streams
from ..core.request_headers import read_headers
from ..discovery import tools as discovery
from ..inputs.asks import StreamNeeded
from ..pipeline.formatters import BaseFormatter
from ..pipeline.invocation import Invocation
from ..prompts.registry import PromptRegistry
from ..protocol import jsonrpc, mediatypes, versions
from ..protocol.jsonrpc import INVALID_REQUEST, JSONRPCError
from ..resources.registry import ResourceRegistry
from ..resources.registry import registry as default_resource_registry
from ..subscriptions.listeners import Listening
from ..tools.registry import ToolRegistry
from ..tools.registry import registry as default_registry
from ..tools.tool import Tool
from . import server
from .exchange import Call, Exchange, UnknownToolset
from .server import Answer
from .stream_slots import slots

if TYPE_CHECKING:  # loaded with the first prompt asked for
    from ..prompts.runs import PromptRun

JSON = "application/json"
EVENT_STREAM = "text/event-stream"


class _Refused(Exception):
    """The endpoint refused the HTTP request before any message: ``response`` says why."""

    def __init__(self, response: HttpResponse) -> None:
        self.response = response


class _AllDatabases(frozenset):
    """``_non_atomic_requests`` for every alias: the endpoint never runs in ATOMIC_REQUESTS.

    Each tool call is wrapped on its own, as Django would wrap that view.
    """

    def __contains__(self, alias: object) -> bool:
        return True


def answer_response(answer: Answer) -> HttpResponse:
    """Send one answer alone: its envelope, its HTTP status and headers."""
    # Encoded here: JSON is UTF-8 (RFC 8259), and bytes spare Django's charset lookup.
    response = HttpResponse(answer.body.encode(), status=answer.status, content_type=JSON)
    for name, value in answer.headers.items():
        response[name] = value
    return response


def error_response(error: JSONRPCError) -> HttpResponse:
    """Answer a fault of the HTTP request itself (no message to name)."""
    return answer_response(Answer.error(error.request_id, error))


def stream(
    request: HttpRequest, invocation: Invocation[Call] | PromptRun
) -> HttpResponseBase | None:
    """Answer ``invocation`` on an SSE stream (``endpoint.streaming.stream``); None when
    every worker slot is taken. The streams' machinery loads with the process's first
    stream: a worker that streams nothing never imports it."""
    from .streaming import stream as start

    return start(request, invocation)


def _first_given(*choices: Any) -> Sequence[Any]:
    """Return the first choice that is set (an empty list is set: "none"), as DRF reads them.

    Dotted paths are already imported: ``mcp_settings`` and DRF's ``api_settings`` do it.
    """
    for choice in choices:
        if choice is not None:
            return choice
    return ()


DEFAULT_PORTS = {"http": 80, "https": 443}


def too_large(limit: int) -> JSONRPCError:
    """Return the refusal of a body of more than ``limit`` bytes."""
    return JSONRPCError(INVALID_REQUEST, f"Payload Too Large: more than {limit} bytes", status=413)


def _origin_of(text: str) -> tuple[str, str, int] | None:
    """Return the scheme, host and port of a serialized origin, or None when it is none."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # an unbalanced IPv6 bracket, a port out of range
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    # An origin is "scheme://host[:port]" and nothing more (no user, path, query, fragment).
    extra = parts.username is not None or parts.path or parts.query or parts.fragment
    if extra or text.endswith(("?", "#")):
        return None
    return scheme, parts.hostname, DEFAULT_PORTS[scheme] if port is None else port


#: The hooks of the endpoint's policy a subclass may override, as on a DRF view.
POLICY_HOOKS = (
    "initial",
    "perform_authentication",
    "check_permissions",
    "permission_denied",
    "check_throttles",
    "throttled",
)


#: The hooks that choose the policy's classes: a subclass's own may choose per request.
CHOOSING_HOOKS = ("get_authenticators", "get_permissions", "get_throttles")


#: What a toolset's name is (``Toolset.name``, a slug).
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


class MCPView(View):
    """Serve MCP over Streamable HTTP for the tools of a registry (optionally some tags).

    Policies default to ``MCP_TOOLS`` (``AUTHENTICATION_CLASSES``, ``PERMISSION_CLASSES``,
    ``THROTTLE_CLASSES``, ``FORMATTER_CLASS``), and the first two to DRF's defaults.
    """

    http_method_names = ["get", "post"]
    registry: ToolRegistry | None = None
    #: The resources it serves (None: the default registry's), docs/resources.md.
    resource_registry: ResourceRegistry | None = None
    tags: Iterable[str] | None = None
    authentication_classes: Sequence[type[BaseAuthentication]] | None = None
    permission_classes: Sequence[type[BasePermission]] | None = None
    throttle_classes: Sequence[type[BaseThrottle]] | None = None
    formatter_class: type[BaseFormatter] | None = None
    #: The scopes a client should ask for (None: ``OAUTH_SCOPES``), docs/oauth.md.
    oauth_scopes: Sequence[str] | None = None
    #: ``"auto"``, ``"always"`` or ``"never"`` (None: ``DISCOVERY``), docs/tools.md#large-apis.
    discovery: str | None = None
    #: The toolset it serves (a ``Toolset``'s name), or None: every tool; a URL's
    #: ``<toolset>`` (``mcp_tools.urls``: ``/mcp/toolsets/<name>``) names it per request.
    toolset: str | None = None
    #: The registry of the prompts declared in code it serves (None: ``@mcp_prompt``'s
    #: default), docs/prompts.md#prompts-in-code.
    prompt_registry: PromptRegistry | None = None
    #: What ``_admits_anyone()`` concluded, and from which choice of classes.
    _admitted: tuple[tuple[Any, ...], bool | None] | None = None

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        mode = initkwargs.get("discovery")
        if mode is not None and mode not in discovery.MODES:
            raise ImproperlyConfigured(
                f"MCPView.as_view(discovery={mode!r}): it must be one of "
                f"{', '.join(map(repr, discovery.MODES))}, or None for MCP_TOOLS['DISCOVERY']"
            )
        toolset = initkwargs.get("toolset")
        if toolset is not None and not (isinstance(toolset, str) and SLUG.fullmatch(toolset)):
            raise ImproperlyConfigured(
                f"MCPView.as_view(toolset={toolset!r}): it must be a toolset's name (a slug)"
            )
        view = super().as_view(**initkwargs)
        # Session callers pass CSRF through DRF's SessionAuthentication, as DRF views do.
        view = csrf_exempt(view)
        # LoginRequiredMiddleware would send MCP clients to a login page: the endpoint
        # answers for itself (its policy's 401 and challenge), and each tool's view meets
        # that middleware as a direct request does (docs/dispatch.md).
        view.login_required = False  # type: ignore[attr-defined]
        view._non_atomic_requests = _AllDatabases()  # type: ignore[attr-defined]
        return view

    # -- policy (DRF's hook names) ---------------------------------------------------------

    def get_authenticators(self) -> list[BaseAuthentication]:
        """Return the authenticators the endpoint identifies its caller with."""
        classes = _first_given(
            self.authentication_classes,
            mcp_settings.AUTHENTICATION_CLASSES,
            api_settings.DEFAULT_AUTHENTICATION_CLASSES,
        )
        return [cls() for cls in classes]

    def get_permissions(self) -> list[BasePermission]:
        """Return the permissions a caller needs to use the endpoint at all: DRF's defaults
        unless chosen, less what needs a model (``auth.policy``)."""
        classes = _first_given(
            self.permission_classes,
            mcp_settings.PERMISSION_CLASSES,
            policy.for_endpoint(api_settings.DEFAULT_PERMISSION_CLASSES),
        )
        return [cls() for cls in classes]

    def get_throttles(self) -> list[BaseThrottle]:
        """Return the throttles of the endpoint itself (none by default; views keep theirs)."""
        return [cls() for cls in _first_given(self.throttle_classes, mcp_settings.THROTTLE_CLASSES)]

    def get_formatter(self) -> BaseFormatter:
        """Return the formatter that turns a view's response into a tool result."""
        return (self.formatter_class or mcp_settings.FORMATTER_CLASS)()

    def get_registry(self) -> ToolRegistry:
        return self.registry or default_registry

    def get_resource_registry(self) -> ResourceRegistry:
        return self.resource_registry or default_resource_registry

    def serves(self, tool: Tool) -> bool:
        """Return whether this endpoint serves ``tool``: any, or those with one of its tags."""
        return self.tags is None or bool(set(self.tags) & set(tool.options.tags))

    def serves_name(self, name: str, urlconf: str | None = None) -> bool:
        """Return whether this endpoint serves a tool named ``name`` in ``urlconf``."""
        tool = self.get_registry().tools(urlconf).get(name)
        return tool is not None and self.serves(tool)

    # -- the caller (DRF's APIView.initial, once per /mcp request) --------------------------

    def authenticate(self, request: HttpRequest) -> Caller:
        """Return the caller of ``request``, authenticated, authorized and throttled by the
        endpoint's policy; raise its refusal (401, 403 or 429) as a ``JSONRPCError``.

        Each tool's view then counts each call against its own throttles. An
        ``Authorization`` header that none of the classes accepts is refused (401), never
        served as an anonymous call; an endpoint with no classes at all leaves credentials
        to the views.
        """
        too_long = len(request.META.get("HTTP_AUTHORIZATION", "")) > MAX_AUTHORIZATION_BYTES
        # APIClient.force_authenticate() hands DRF's Request a user through these.
        forced = hasattr(request, "_force_auth_user") or hasattr(request, "_force_auth_token")
        if not (too_long or forced) and self._admits_anyone():
            # What DRF would conclude, without building its request: the views
            # authenticate the copied credentials themselves.
            return Caller(user=unauthenticated_user(), auth=None, authentication_classes=())
        authenticators = self.get_authenticators()
        read_headers(request)  # DRF's authenticators and throttles read them: a third the price
        # DRF's Request writes the user it authenticated onto the HttpRequest. Keep the one
        # the middleware set: the view's request copies it, and a view with other classes
        # (SessionAuthentication alone, say) must not see a token user as its session's.
        found = request.__dict__
        middleware_user = found.get("user", found)
        drf_request = self.initialize_request(request, authenticators)
        # As DRF's dispatch() does: a get_*() hook reads self.request.user, here and when a
        # batch's further calls are throttled (throttle_call), as the authenticated caller.
        self.request = drf_request
        try:
            self.initial(drf_request)
        except exceptions.APIException as exc:
            raise refusal(drf_request, self, exc) from exc
        finally:
            if middleware_user is found:
                found.pop("user", None)
            else:
                request.user = middleware_user
        return Caller(
            user=drf_request.user,
            auth=drf_request.auth,
            authentication_classes=tuple(type(each) for each in authenticators),
            authenticator=drf_request.successful_authenticator,
            scopes=scopes_of(drf_request.auth),
        )

    def _admits_anyone(self) -> bool:
        """Whether the policy reads no credentials, throttles nothing and admits anyone.

        Worked out once per class and choice of policy classes (as ``as_view()`` arguments
        or settings), not per request, where the class chooses them by DRF's hooks as
        ``MCPView`` does: a subclass's own ``get_*()`` hooks may choose per request.
        """
        chosen = (
            mcp_settings.generation,
            self.authentication_classes,
            self.permission_classes,
            self.throttle_classes,
            api_settings.DEFAULT_AUTHENTICATION_CLASSES,
            api_settings.DEFAULT_PERMISSION_CLASSES,
        )
        cls = type(self)
        known = cls.__dict__.get("_admitted")
        if known is None or known[0] != chosen:
            fixed = all(getattr(cls, name) is getattr(MCPView, name) for name in CHOOSING_HOOKS)
            known = cls._admitted = (chosen, self._admits() if fixed else None)
        return self._admits() if known[1] is None else known[1]

    def _admits(self) -> bool:
        return not self.get_authenticators() and self._plain_policy() and self._open()

    def _plain_policy(self) -> bool:
        """Whether the policy hooks are this class's own (a subclass may refuse by itself)."""
        cls = type(self)
        return all(getattr(cls, name) is getattr(MCPView, name) for name in POLICY_HOOKS)

    def _open(self) -> bool:
        """Whether the endpoint reads no credentials, throttles nothing and admits anyone."""
        if self.get_throttles():
            return False
        return all(type(permission) is AllowAny for permission in self.get_permissions())

    def initialize_request(
        self, request: HttpRequest, authenticators: list[BaseAuthentication] | None = None
    ) -> Request:
        """Return DRF's request of the /mcp request, with the endpoint's authenticators.

        Its JSON parser serves only DRF's CSRF check for session callers (it reads .POST).
        Its parser context names this view, as DRF's does: an authentication class reads
        from it that the request is for this endpoint (its OAuth resource).
        """
        if authenticators is None:
            authenticators = self.get_authenticators()
        context = {"view": self, "args": (), "kwargs": {}}
        return Request(
            request, parsers=[JSONParser()], authenticators=authenticators, parser_context=context
        )

    def initial(self, request: Request) -> None:
        """Run the endpoint's policy before any message is handled, as DRF's view does."""
        self.perform_authentication(request)
        self.check_permissions(request)
        self.check_throttles(request)

    def perform_authentication(self, request: Request) -> None:
        """Authenticate the caller; refuse credentials that no class of the endpoint takes."""
        if len(request.META.get("HTTP_AUTHORIZATION", "")) > MAX_AUTHORIZATION_BYTES:
            raise exceptions.AuthenticationFailed(TOO_LONG)
        request.user  # noqa: B018  (DRF authenticates on first access, as its view does)
        refused = request.authenticators and request.successful_authenticator is None
        if refused and request.META.get("HTTP_AUTHORIZATION"):
            # An empty header is no credentials: the permissions decide, as for none.
            raise exceptions.AuthenticationFailed(refused_credentials(request))

    def check_permissions(self, request: Request) -> None:
        """Refuse the request when a permission of the endpoint does, with its message."""
        for permission in self.get_permissions():
            if not permission.has_permission(request, self):  # type: ignore[arg-type]
                self.permission_denied(
                    request,
                    message=getattr(permission, "message", None),
                    code=getattr(permission, "code", None),
                )

    def permission_denied(
        self, request: Request, message: str | None = None, code: str | None = None
    ) -> None:
        """Raise DRF's refusal: ``NotAuthenticated`` for a caller no class identified."""
        if request.authenticators and not request.successful_authenticator:
            raise exceptions.NotAuthenticated()
        raise exceptions.PermissionDenied(detail=message, code=code)

    def check_throttles(self, request: Request) -> None:
        """Refuse the request when a throttle of the endpoint does, the longest wait named."""
        waits = [
            throttle.wait()
            for throttle in self.get_throttles()
            if not throttle.allow_request(request, self)  # type: ignore[arg-type]
        ]
        if waits:
            known = [wait for wait in waits if wait is not None]
            self.throttled(request, max(known) if known else None)

    def throttled(self, request: Request, wait: float | None) -> None:
        """Raise DRF's ``Throttled``: answered 429 with ``Retry-After``."""
        raise exceptions.Throttled(wait)

    def throttle_call(self) -> None:
        """Count one more ``tools/call`` of this request (a batch's) against the throttles.

        The request was counted once when it came in; each further call counts as a
        request would, so a batch of twenty calls can't pass a throttle of four a minute.
        Raises the 429 refusal as a ``JSONRPCError`` for that call.
        """
        checked = getattr(self, "request", None)
        if not isinstance(checked, Request):
            return  # no policy ran (an open endpoint with no throttles)
        try:
            self.check_throttles(checked)
        except exceptions.APIException as exc:
            raise refusal(checked, self, exc) from exc

    # -- OAuth metadata (docs/oauth.md) ----------------------------------------------------

    def get_oauth_scopes(self) -> list[str]:
        """Return the scopes a client should ask for: ``scopes_supported`` and the 401's."""
        scopes = self.oauth_scopes if self.oauth_scopes is not None else mcp_settings.OAUTH_SCOPES
        return list(scopes)

    def get_resource_metadata(self, request: HttpRequest, path: str) -> dict[str, Any] | None:
        """Return the RFC 9728 document of this endpoint at ``path``; None without OAuth."""
        if not resource_metadata.is_configured():
            return None
        return resource_metadata.document(path, self.get_oauth_scopes())

    def get_resource_metadata_url(self, request: HttpRequest) -> str | None:
        """Return where the challenge points clients: this endpoint's RFC 9728 document."""
        if not resource_metadata.is_configured():
            return None
        return resource_metadata.metadata_url(request.path_info)

    # -- the transport ---------------------------------------------------------------------

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if "toolset" in kwargs:  # /mcp/toolsets/<toolset>
            named = kwargs.pop("toolset")
            if self.toolset is not None and named != self.toolset:
                return error_response(UnknownToolset(named))  # it serves its own alone
            self.toolset = named
        calllog.hold(request)
        try:
            response = super().dispatch(request, *args, **kwargs)
        except Exception as exc:
            # A fault of the server (a misconfigured permission class, a broken formatter):
            # logged and reported like any Django error, answered without a traceback.
            response = answer_response(server.internal_error(None, exc, request))
        calllog.write_after(request, response)
        return response

    def http_method_not_allowed(
        self, request: HttpRequest, *args: Any, allowed: list[str] | None = None, **kwargs: Any
    ) -> HttpResponse:
        # A 405 with Allow, as the transport says (docs/protocol.md). Clients probe GET for
        # the optional server stream on every connection: that is no news, so unlike
        # Django's own answer it is logged at DEBUG, and marked logged for Django's handler.
        if allowed is None:  # GET where this server holds listeners' streams
            allowed = ["GET", "POST"] if holds_streams(request) else ["POST"]
        response = HttpResponseNotAllowed(allowed)
        log_response(
            "Method Not Allowed (%s): %s",
            request.method,
            request.path,
            response=response,
            request=request,
            level="debug",
        )
        return response

    def get(self, request: HttpRequest) -> HttpResponseBase:
        """Open the handshake era's stream of notifications (docs/subscriptions.md): what
        changes in the lists the caller sees, and in the resources it subscribed to. A
        2026-07-28 client listens with ``subscriptions/listen`` instead (405); a server that
        can't hold a stream (a single-threaded WSGI worker) serves none (405)."""
        header = request.META.get(versions.PROTOCOL_VERSION_HEADER)
        if header in versions.MODERN_VERSIONS or not holds_streams(request):
            return self.http_method_not_allowed(request, allowed=["POST"])
        try:
            self.check_origin(request)
            versions.version_from_header(header)
            accepted = mediatypes.admitted_ranges(request.META.get("HTTP_ACCEPT"))
            if not mediatypes.names(accepted, EVENT_STREAM):
                raise JSONRPCError(
                    INVALID_REQUEST,
                    "Not Acceptable: the client must accept text/event-stream",
                    status=406,
                )
            exchange = self.exchange(request, None)
        except JSONRPCError as error:
            return error_response(error)
        except _Refused as refused:
            return refused.response
        from ..subscriptions.methods import listening_on_get  # with the first listener

        return self.listen(request, listening_on_get(exchange))

    def exchange(self, request: HttpRequest, value: object) -> Exchange:
        """Return the exchange of ``request`` (its caller authenticated by the endpoint's
        policy), or raise its refusal as ``_Refused``; ``value`` is the message read."""
        try:
            exchange = Exchange(request, self.authenticate(request), self)
            exchange.toolset  # noqa: B018  (an unknown one: 404, before any message)
        except JSONRPCError as error:
            raise _Refused(error_response(error)) from None
        except PermissionDenied:  # Django's, raised by a permission class: as Django answers it
            raise _Refused(
                error_response(JSONRPCError(INVALID_REQUEST, "Forbidden", status=403))
            ) from None
        except (SuspiciousOperation, BadRequest) as exc:  # what Django's handler answers 400
            message = f"Bad Request ({type(exc).__name__})"
            raise _Refused(
                error_response(JSONRPCError(INVALID_REQUEST, message, status=400))
            ) from None
        except Exception as exc:
            # A fault of the endpoint's own policy (a permission class that raises): the
            # message is read by now, so its answer can name it.
            answer = server.internal_error(jsonrpc.id_of(value), exc, request)
            raise _Refused(answer_response(answer)) from None
        return exchange

    def post(self, request: HttpRequest) -> HttpResponseBase:
        value = None
        try:
            accepted = self.check_transport(request)
            value = jsonrpc.loads(self.read_body(request), max_depth=mcp_settings.MAX_JSON_DEPTH)
            if isinstance(value, list):
                self.check_batch(request, value)
        except JSONRPCError as error:
            return error_response(error)
        except (SuspiciousOperation, BadRequest, UnreadablePostError) as exc:
            # What Django's handler answers 400 (a client that went away mid-body included).
            message = f"Bad Request ({type(exc).__name__})"
            return error_response(JSONRPCError(INVALID_REQUEST, message, status=400))
        try:
            exchange = self.exchange(request, value)
        except _Refused as refused:
            return refused.response
        if isinstance(value, list):
            return self.batch(exchange, value)
        exchange.accepted = accepted
        outcome = server.serve_message(value, exchange)
        if outcome is None:
            return HttpResponse(status=202)  # a notification or a response
        if isinstance(outcome, Invocation):
            return self.run_invocation(request, exchange, outcome)
        if isinstance(outcome, Listening):
            return self.listen(request, outcome)
        if isinstance(outcome, Answer):
            return answer_response(outcome)
        return self.run_prompt(request, outcome)  # a handshake-era prompt that asks

    def run_invocation(
        self, request: HttpRequest, exchange: Exchange, invocation: Invocation[Call]
    ) -> HttpResponseBase:
        """Answer a tool call whose view is still to run: on an SSE stream when the client
        wants its notifications, else on this thread, until a handshake-era view asks for
        input: the call then starts again on a stream, which carries the question
        (docs/input.md)."""
        if invocation.notifies and exchange.streams:
            streamed = stream(request, invocation)
            if streamed is not None:
                return streamed
            invocation.stay_inline()  # every stream slot is taken: the view can ask nothing
        elif invocation.may_restart and not slots.free():
            invocation.stay_inline()  # a restart could not stream: ask nothing, run once
        try:
            return answer_response(server.serve_invocation(invocation))
        except StreamNeeded:
            invocation.restart()  # the view runs again from the start, on a stream
        streamed = stream(request, invocation)
        if streamed is not None:
            return streamed
        return answer_response(server.serve_invocation(invocation))  # it can ask nothing now

    def listen(self, request: HttpRequest, listening: Listening) -> HttpResponseBase:
        """Open a listener's stream (docs/subscriptions.md). Its module, and the watcher's,
        load with the process's first listener: a worker that serves none never imports
        them."""
        from .listening import stream

        return stream(request, listening)

    def run_prompt(self, request: HttpRequest, run: PromptRun) -> HttpResponseBase:
        """Answer a handshake-era ``prompts/get`` whose function asked for input: on an SSE
        stream, which carries the question (docs/prompts.md#prompts-that-ask); inline, where
        every stream slot is taken, where the ask is refused."""
        streamed = stream(request, run)
        if streamed is not None:
            return streamed
        return answer_response(server.serve_invocation(run))

    def batch(self, exchange: Exchange, values: list[object]) -> HttpResponse:
        """Answer a JSON-RPC batch, item by item, never streamed; its messages share the
        exchange (one catalog, one set of visibility answers)."""
        bodies = []
        headers: dict[str, str] = {}  # a private answer makes the whole batch's private
        # MAX_RESPONSE_BYTES bounds the batch's answer as sent: each tool call gets what the
        # answers before it left (the brackets and commas of the array counted).
        left = mcp_settings.MAX_RESPONSE_BYTES - 2
        for value in values:
            outcome = server.serve_message(value, exchange, in_batch=True)
            # A batch's prompt never streams (it can't ask): a PromptRun never comes of it.
            if outcome is not None and not isinstance(outcome, Answer | Listening):
                # A tool call's Invocation (a PromptRun never: see above).
                outcome = server.serve_invocation(outcome, limit=max(left, 0))
            if isinstance(outcome, Listening):  # 2026-07-28 listens, and never in a batch
                raise ImproperlyConfigured("subscriptions/listen can't be answered in a batch")
            if outcome is not None:
                bodies.append(outcome.body)
                if "Cache-Control" in outcome.headers:
                    headers["Cache-Control"] = outcome.headers["Cache-Control"]
                left -= len(outcome.body.encode()) + 1
        if not bodies:
            return HttpResponse(status=202)
        return HttpResponse("[" + ",".join(bodies) + "]", content_type=JSON, headers=headers)

    def check_batch(self, request: HttpRequest, values: list[object]) -> None:
        """Refuse a batch outside 2025-03-26, an empty one, and one past ``MAX_BATCH_SIZE``."""
        version = versions.version_from_header(request.META.get(versions.PROTOCOL_VERSION_HEADER))
        if version != versions.BATCH_VERSION:
            raise JSONRPCError(
                INVALID_REQUEST,
                f"Invalid Request: batches are not supported in protocol version {version}",
                status=400,
            )
        if not values:
            raise JSONRPCError(INVALID_REQUEST, "Invalid Request: empty batch", status=400)
        limit = mcp_settings.MAX_BATCH_SIZE
        if len(values) > limit:
            # Refused whole: answering some items and not others would leave the client
            # unable to tell which of its calls ran.
            raise JSONRPCError(
                INVALID_REQUEST,
                f"Invalid Request: a batch of {len(values)} messages; at most {limit} are accepted",
                status=400,
            )

    def check_origin(self, request: HttpRequest) -> None:
        """Refuse foreign hosts (``ALLOWED_HOSTS``) and origins (``ALLOWED_ORIGINS``)."""
        try:
            host = request.get_host()
        except DisallowedHost as exc:
            raise JSONRPCError(
                INVALID_REQUEST, "Bad Request: host not allowed", status=400
            ) from exc
        origin = request.META.get("HTTP_ORIGIN")  # META: request.headers copies them all
        if origin and not self.origin_allowed(origin, f"{request.scheme}://{host}"):
            raise JSONRPCError(INVALID_REQUEST, "Forbidden: origin not allowed", status=403)

    def check_transport(self, request: HttpRequest) -> mediatypes.Ranges:
        """Refuse foreign hosts and origins, non-JSON bodies and clients that can't read JSON.

        Returns the media ranges the client accepts.
        """
        self.check_origin(request)
        content_type = (request.content_type or "").lower()
        if content_type != JSON:
            raise JSONRPCError(
                INVALID_REQUEST, "Unsupported Media Type: use application/json", status=415
            )
        accept = request.META.get("HTTP_ACCEPT")
        accepted = mediatypes.admitted_ranges(accept)
        if accept and not mediatypes.admits(accepted, JSON):
            raise JSONRPCError(
                INVALID_REQUEST,
                "Not Acceptable: the client must accept application/json",
                status=406,
            )
        return accepted

    def origin_allowed(self, origin: str, own: str) -> bool:
        """Return whether ``origin`` is the endpoint's ``own`` or one of ``ALLOWED_ORIGINS``.

        Origins are compared as RFC 6454 defines them: scheme, host and port (a default port
        written out is the same origin), so ``https://host`` is not the origin of an http
        endpoint on ``host``, and ``//host`` or ``ftp://host`` are no origin at all.
        """
        allowed = mcp_settings.ALLOWED_ORIGINS
        if origin in allowed:
            return True
        parsed = _origin_of(origin)
        if parsed is None:
            return False
        return parsed == _origin_of(own) or parsed in {_origin_of(other) for other in allowed}

    def read_body(self, request: HttpRequest) -> bytes:
        """Read the body with a bound, before anything parses it."""
        limit = mcp_settings.MAX_REQUEST_BYTES
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > limit:
            raise too_large(limit)
        body = request.read(limit + 1)
        if len(body) > limit:
            raise too_large(limit)
        # What HttpRequest.body caches after reading: DRF's CSRF check reads request.POST.
        request._body = body
        return body
