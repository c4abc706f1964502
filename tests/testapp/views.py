"""Views of every form @mcp_tool accepts, plus views that probe the inner request."""

from django.db import connection, transaction
from rest_framework import serializers, viewsets
from rest_framework.authentication import (
    BasicAuthentication,
    SessionAuthentication,
    TokenAuthentication,
)
from rest_framework.decorators import action, api_view
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from mcp_tools import elicit, get_tool_call, is_mcp_request, mcp_tool, request_input

from .models import Entry


class ReportSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=20)
    pages = serializers.IntegerField(min_value=1, required=False)


def report_view_class():
    """Build the report view; called twice for a decorated view and its undecorated twin."""

    class ReportView(APIView):
        """A report about the caller."""

        serializer_class = ReportSerializer

        def get(self, request):
            return Response({"user": request.user.username, "query": dict(request.query_params)})

        def post(self, request):
            serializer = ReportSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            return Response({"created": serializer.validated_data}, status=201)

        def get_serializer_class(self):
            return self.serializer_class

    return ReportView


ReportView = mcp_tool()(report_view_class())
PlainReportView = report_view_class()


class EchoView(APIView):
    """Echo what the view's request looks like."""

    @mcp_tool(tags=["echoes"])
    def get(self, request, word):
        """Echo the request as the view sees it."""
        meta = request.META
        return Response(
            {
                "word": word,
                "method": request.method,
                "path": request.path,
                "query": dict(request.query_params),
                "user": request.user.username,
                "authenticator": type(request.successful_authenticator).__name__,
                "is_mcp_request": is_mcp_request(request),
                "tool_call": get_tool_call(request),
                "url_name": request.resolver_match.url_name,
                "accept": meta.get("HTTP_ACCEPT"),
                "headers": sorted(k for k in meta if k.startswith("HTTP_")),
                "request_headers": dict(request.headers),
                "language": getattr(request, "LANGUAGE_CODE", None),
                "scheme": request.scheme,
            }
        )

    def post(self, request, word):
        return Response({"not": "a tool"})


class NoteViewSet(viewsets.ViewSet):
    """Notes kept in memory."""

    @mcp_tool()
    def list(self, request):
        """List the notes."""
        return Response([{"id": 1, "text": "first"}, {"id": 2, "text": "second"}])

    def retrieve(self, request, pk=None):
        return Response({"id": pk})

    @mcp_tool(input_schema={"type": "object"})  # it reads no body
    @action(detail=False, methods=["post"])
    def archive(self, request):
        """Archive every note."""
        return Response({"archived": 2})


@mcp_tool(input_schema={"type": "object"})  # it reads no body
@api_view(["GET", "POST"])
def greet(request):
    """Greet the caller."""
    return Response({"hello": request.user.username, "method": request.method})


ENTRY_ARGUMENTS = {
    "type": "object",
    "properties": {"label": {"type": "string"}, "fail": {"type": "boolean"}},
    "required": ["label"],
}


@mcp_tool("entry_write", input_schema=ENTRY_ARGUMENTS)
@api_view(["POST"])
def entry_write(request):
    """Write an entry, then fail if asked to."""
    Entry.objects.create(label=request.data["label"])
    if request.data.get("fail"):
        raise RuntimeError("failed after writing")
    return Response(
        {
            "count": Entry.objects.count(),
            "atomic": connection.in_atomic_block,
            "savepoints": len(connection.savepoint_ids),
        },
        status=201,
    )


@mcp_tool("entry_write_non_atomic", input_schema=ENTRY_ARGUMENTS)
@transaction.non_atomic_requests
@api_view(["POST"])
def entry_write_non_atomic(request):
    """Write an entry outside ATOMIC_REQUESTS, then fail if asked to."""
    Entry.objects.create(label=request.data["label"])
    if request.data.get("fail"):
        raise RuntimeError("failed after writing")
    return Response({"count": Entry.objects.count()}, status=201)


@mcp_tool("boom")
@api_view(["GET"])
def boom(request):
    """Fail with an unexpected exception."""
    raise ValueError("secret detail /srv/app/settings.py")


@mcp_tool("limited")
class LimitedView(APIView):
    """Answer at most twice a minute per user."""

    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "limited"

    def get(self, request):
        return Response({"ok": True})


@mcp_tool("basic_only")
class BasicOnlyView(APIView):
    """A view that only accepts HTTP Basic authentication."""

    authentication_classes = [BasicAuthentication]
    permission_classes = [IsAuthenticated]

    def get(self, request):
        return Response({"user": request.user.username})


@mcp_tool("staff_only")
class StaffOnlyView(APIView):
    """A view for staff members."""

    permission_classes = [IsAdminUser]

    def get(self, request):
        return Response({"staff": True})


@mcp_tool("file_get")
class FileView(APIView):
    """Return a file's name."""

    def get(self, request, name):
        return Response({"name": name, "path": request.path, "full_path": request.get_full_path()})


@mcp_tool("session_only")
class SessionOnlyView(APIView):
    """A view that only accepts the session cookie."""

    authentication_classes = [SessionAuthentication]
    permission_classes = [IsAuthenticated]

    def get(self, request):
        return Response({"user": request.user.username})


class RefuseEveryone(BasicAuthentication):
    def authenticate(self, request):
        from rest_framework.exceptions import AuthenticationFailed

        raise AuthenticationFailed("This view trusts nobody.")


@mcp_tool("own_authenticators")
class OwnAuthenticatorsView(APIView):
    """A view that picks its authenticators in get_authenticators()."""

    authentication_classes = [TokenAuthentication, SessionAuthentication]

    def get_authenticators(self):
        return [RefuseEveryone()]

    def get(self, request):
        return Response({"user": request.user.username})


@mcp_tool(
    "session_counter",
    stream=True,
    input_schema={"type": "object", "properties": {"step": {"type": "integer"}}},
)
@api_view(["POST"])
def session_counter(request):
    """Count this session's calls (a streamed tool that writes to its session)."""
    request.session["count"] = request.session.get("count", 0) + request.data.get("step", 1)
    return Response({"count": request.session["count"]})


# Input requests (docs/input.md) -------------------------------------------------------------

#: The ``word`` of every run of ``ask_word``: a view that asks runs again on each retry.
ASK_RUNS: list[str] = []
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
COLOR_FORM = {
    "type": "object",
    "properties": {"color": {"type": "string", "enum": ["red", "blue"]}},
    "required": ["color"],
}


@mcp_tool("ask_word")
@api_view(["GET"])
def ask_word(request, word):
    """Write an entry, ask the user's name, then (a second round) their colour."""
    ASK_RUNS.append(word)
    Entry.objects.create(label=f"before asking about {word}")
    name = elicit(request, "name", f"Who says {word}?", NAME_FORM)
    if name["action"] != "accept":
        return Response({"word": word, "name": None, "action": name["action"]})
    color = elicit(request, "color", "Your colour?", COLOR_FORM)
    return Response(
        {
            "word": word,
            "name": name["content"]["name"],
            "color": (color["content"] or {}).get("color"),
            "entries": Entry.objects.count(),
        }
    )


#: One item per run of ``ask_on_stream``: in the handshake era a view asks and goes on.
STREAM_RUNS: list[str] = []


@mcp_tool("ask_on_stream", stream=True)
@api_view(["GET"])
def ask_on_stream(request, word):
    """Ask the user's name, then their colour: on the call's stream in the handshake era."""
    STREAM_RUNS.append(word)
    name = elicit(request, "name", f"Who says {word}?", NAME_FORM)
    color = elicit(request, "color", "Your colour?", COLOR_FORM)
    return Response(
        {
            "word": word,
            "name": (name["content"] or {}).get("name"),
            "color": (color["content"] or {}).get("color"),
            "runs": STREAM_RUNS.count(word),
        }
    )


@mcp_tool("ask_everything")
@api_view(["GET"])
def ask_everything(request):
    """Ask a form, the client's model and its roots in one round (not streamed: in the
    handshake era the call starts again on a stream when it asks)."""
    answers = request_input(
        request,
        {
            "user": {
                "method": "elicitation/create",
                "params": {"message": "Your name?", "requestedSchema": NAME_FORM},
            },
            "greeting": {
                "method": "sampling/createMessage",
                "params": {
                    "messages": [
                        {"role": "user", "content": {"type": "text", "text": "Say hello"}}
                    ],
                    "maxTokens": 20,
                },
            },
            "roots": {"method": "roots/list", "params": {}},
        },
    )
    return Response(
        {
            "name": answers["user"]["content"]["name"],
            "greeting": answers["greeting"]["content"]["text"],
            "roots": [root["uri"] for root in answers["roots"]["roots"]],
        }
    )


class EntryDetailView(APIView):
    """One entry."""

    @mcp_tool("entry_remove", confirm="Remove entry {pk} ({missing})?")
    def delete(self, request, pk):
        """Remove an entry, once the user has confirmed it."""
        deleted, _ = Entry.objects.filter(pk=pk).delete()
        return Response({"deleted": deleted})


@mcp_tool("entry_purge")
@api_view(["DELETE"])
def entry_purge(request):
    """Remove every entry: destructive, confirmed only under CONFIRM_DESTRUCTIVE."""
    deleted, _ = Entry.objects.all().delete()
    return Response({"deleted": deleted})


@mcp_tool("entry_trim", confirm=False)
@api_view(["DELETE"])
def entry_trim(request):
    """Remove every entry: destructive, but never confirmed (confirm=False)."""
    deleted, _ = Entry.objects.all().delete()
    return Response({"deleted": deleted})


@mcp_tool("entry_count", confirm=True)
@api_view(["GET"])
def entry_count(request):
    """Count the entries, after a confirmation with the default message."""
    return Response({"count": Entry.objects.count()})


@mcp_tool("ask_confirmed", confirm=True)
@api_view(["GET"])
def ask_confirmed(request):
    """Once confirmed, ask the user's name: the confirmation is carried to that round."""
    name = elicit(request, "name", "Your name?", NAME_FORM)
    return Response({"name": (name["content"] or {}).get("name")})


@mcp_tool("ask_then_act", confirm=True, input_schema={"type": "object", "properties": {}})
@api_view(["POST"])
def ask_then_act(request):
    """Once confirmed, ask a name, then act: one Entry per run that gets this far."""
    name = elicit(request, "name", "Label?", NAME_FORM)
    Entry.objects.create(label=(name["content"] or {}).get("name", "?"))
    return Response({"entries": Entry.objects.count()})


# Its test is tests/endpoint/test_tracing.py. The docstring, which names that module's old
# path, is the tool's description, which tests/endpoint/recorded_definitions.json holds.
@mcp_tool("traced_work", stream=True)
@api_view(["GET"])
def traced_work(request):
    """Trace a step of its own: its span's parent is the request's (tests/test_tracing.py)."""
    from opentelemetry import trace

    with trace.get_tracer("tests").start_as_current_span("inside the view"):
        return Response({"traced": True})
