"""Slow views, as DRF users write them, declared as MCP tasks (tests/tasks/test_store.py)."""

import time

from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import ToolError, elicit, mcp_tool, report_progress
from mcp_tools.tools.registry import ToolRegistry

#: The tools of this project, in a registry of their own (tests/tasks_app/urls.py): the
#: test project's own endpoint never serves them.
registry = ToolRegistry()

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


class ExportSerializer(serializers.Serializer):
    rows = serializers.IntegerField(min_value=0, max_value=1000)
    seconds = serializers.FloatField(min_value=0, max_value=120, default=0)


class ExportView(APIView):
    """Export the caller's rows, slowly: a report of ``rows`` lines."""

    serializer_class = ExportSerializer
    permission_classes = [IsAuthenticated]

    @mcp_tool("export_rows", task="optional", registry=registry)
    def post(self, request):
        serializer = self.serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        rows, seconds = serializer.validated_data["rows"], serializer.validated_data["seconds"]
        steps = max(1, int(seconds / 0.05))
        for step in range(steps):
            time.sleep(seconds / steps)
            report_progress(request, step + 1, steps, f"{step + 1} of {steps} done")
        return Response({"user": request.user.username, "lines": [f"row {n}" for n in range(rows)]})


class RequiredSerializer(serializers.Serializer):
    word = serializers.CharField()


class RequiredTaskView(APIView):
    """Shout a word, as a task only."""

    serializer_class = RequiredSerializer

    @mcp_tool("shout_task", task="required", registry=registry)
    def post(self, request):
        return Response({"shout": request.data["word"].upper()})


class WaitSerializer(serializers.Serializer):
    seconds = serializers.FloatField(min_value=0, max_value=120)


class WaitView(APIView):
    """Wait ``seconds``, as a task only, reporting progress: what a burst of tasks holds."""

    serializer_class = WaitSerializer
    permission_classes = [IsAuthenticated]

    @mcp_tool("wait_task", task="required", registry=registry)
    def post(self, request):
        serializer = self.serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        seconds = serializer.validated_data["seconds"]
        steps = max(1, int(seconds / 0.05))
        for step in range(steps):
            time.sleep(seconds / steps)
            report_progress(request, step + 1, steps)
        return Response({"waited": seconds})


class FailingView(APIView):
    """Fail as a tool: the model reads why."""

    @mcp_tool("failing_task", task="optional", registry=registry)
    def post(self, request):
        raise ToolError("The export service refused the job")


class CrashingView(APIView):
    """Crash: a fault of the server, masked."""

    @mcp_tool("crashing_task", task="optional", registry=registry)
    def post(self, request):
        raise RuntimeError("secret detail")


class AskingView(APIView):
    """Ask the user's name, then greet them."""

    @mcp_tool("asking_task", task="optional", registry=registry)
    def post(self, request):
        name = elicit(request, "name", "Who are you?", NAME_FORM)
        if name["action"] != "accept":
            return Response({"greeting": None})
        return Response({"greeting": f"Hello, {name['content']['name']}!"})


class PlainView(APIView):
    """Never a task."""

    @mcp_tool("plain_tool", registry=registry)
    def post(self, request):
        return Response({"plain": True})


class ConfirmedView(APIView):
    """Delete an export, once the user confirmed it (tests/tasks/test_runs.py)."""

    @mcp_tool("confirmed_task", task="optional", confirm="Delete the export?", registry=registry)
    def post(self, request):
        ConfirmedView.runs += 1
        return Response({"deleted": True})

    runs = 0


class PrefixView(APIView):
    """Say the language and the URL prefix the view runs under (tests/tasks/test_runs.py)."""

    @mcp_tool("prefix_task", task="optional", registry=registry)
    def post(self, request):
        from django.urls import get_script_prefix
        from django.utils import translation

        return Response({"language": translation.get_language(), "prefix": get_script_prefix()})


class TokyoView(APIView):
    """Answer in the user's time zone, as a project's middleware or view activates it."""

    @mcp_tool("tokyo_task", task="optional", registry=registry)
    def post(self, request):
        from django.utils import timezone

        timezone.activate("Asia/Tokyo")
        return Response({"zone": timezone.get_current_timezone_name()})


class WhereView(APIView):
    """Say the language, script prefix and URL the view runs with."""

    @mcp_tool("where_task", task="optional", registry=registry)
    def post(self, request):
        from django.urls import reverse
        from django.utils import translation

        return Response(
            {
                "language": translation.get_language(),
                "url": reverse("where"),
                "host": request.get_host(),
                "tenant": request.headers.get("X-Tenant"),
            }
        )


def credential_name(auth):
    return None if auth is None else type(auth).__name__


class SessionWhoAmIView(APIView):
    """Name who this view sees: it reads sessions only, and lets anyone in."""

    authentication_classes = [SessionAuthentication]
    permission_classes = [AllowAny]

    @mcp_tool("session_whoami", task="optional", tags=["open"], registry=registry)
    def get(self, request):
        return Response({"user": str(request.user), "auth": credential_name(request.auth)})


class TokenWhoAmIView(APIView):
    """Name the caller and the credential this view sees, as a task only."""

    permission_classes = [IsAuthenticated]

    @mcp_tool("token_whoami", task="required", registry=registry)
    def get(self, request):
        return Response(
            {
                "user": request.user.username,
                "auth": credential_name(request.auth),
                "token_of": getattr(getattr(request.auth, "user", None), "username", None),
            }
        )


class EchoSerializer(serializers.Serializer):
    text = serializers.CharField(allow_blank=True, trim_whitespace=False)
    shape = serializers.ChoiceField(["object", "array", "string", "number"], default="object")
    times = serializers.IntegerField(min_value=1, max_value=1000, default=1)
    seconds = serializers.FloatField(min_value=0, max_value=120, default=0)


class EchoView(APIView):
    """Give ``text`` back ``times`` over as JSON of the ``shape`` asked, after ``seconds``:
    what a task keeps of its result (tests/tasks/test_kept_bytes.py)."""

    serializer_class = EchoSerializer

    @mcp_tool("echo_task", task="optional", registry=registry)
    def post(self, request):
        serializer = self.serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        text, shape = data["text"] * data["times"], data["shape"]
        time.sleep(data["seconds"])
        shapes = {
            "object": {"text": text, "ratio": 1.0, "é": None},
            "array": [text, 1.0, {"b": 2, "a": 1}],
            "string": text,
            "number": len(text) + 0.5,
        }
        return Response(shapes[shape])
