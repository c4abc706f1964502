"""One endpoint per case of the result contract (docs/results.md), over the demo's todos.

Each is an ordinary DRF view: over HTTP it answers exactly as it does for an MCP client.
"""

from __future__ import annotations

import csv
import io
from xml.etree import ElementTree

from django.http import HttpResponse
from django.utils import timezone
from rest_framework.response import Response
from rest_framework.views import APIView

from demo_project.todos.models import Todo
from mcp_tools import mcp_output, mcp_tool

from .media import bar_chart_png, beep_wav, one_line_pdf
from .serializers import TodoSummarySerializer


def _todos(request) -> list[Todo]:
    return list(Todo.objects.filter(owner=request.user))


@mcp_tool("todo_chart", title="Todo chart")
class ChartView(APIView):
    """Draw a PNG bar chart of the signed-in user's open, done and overdue todos."""

    def get(self, request):
        todos = _todos(request)
        today = timezone.localdate()
        done = sum(todo.done for todo in todos)
        overdue = sum(1 for t in todos if not t.done and t.due is not None and t.due < today)
        png = bar_chart_png([len(todos) - done, done, overdue])
        return HttpResponse(png, content_type="image/png")


@mcp_tool("beep", title="Beep")
class BeepView(APIView):
    """Play a short 880 Hz beep: returns it as a WAV file."""

    def get(self, request):
        return HttpResponse(beep_wav(), content_type="audio/wav")


@mcp_tool("todo_report_csv", title="Todo report (CSV)")
class ReportCSVView(APIView):
    """Export the signed-in user's todos as CSV: id, title, done, due."""

    def get(self, request):
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["id", "title", "done", "due"])
        for todo in _todos(request):
            writer.writerow([todo.pk, todo.title, todo.done, todo.due or ""])
        return HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")


@mcp_tool("todo_feed_xml", title="Todo feed (Atom)")
class FeedXMLView(APIView):
    """Publish the signed-in user's todos as an Atom feed."""

    def get(self, request):
        feed = ElementTree.Element("feed", xmlns="http://www.w3.org/2005/Atom")
        ElementTree.SubElement(feed, "title").text = f"{request.user.get_username()}'s todos"
        for todo in _todos(request):
            entry = ElementTree.SubElement(feed, "entry")
            ElementTree.SubElement(entry, "id").text = f"urn:todo:{todo.pk}"
            ElementTree.SubElement(entry, "title").text = todo.title
            ElementTree.SubElement(entry, "updated").text = todo.created.isoformat()
        body = ElementTree.tostring(feed, encoding="utf-8", xml_declaration=True)
        return HttpResponse(body, content_type="application/atom+xml; charset=utf-8")


@mcp_tool("todo_export_pdf", title="Todo export (PDF)")
class ExportPDFView(APIView):
    """Export the todo list as a PDF, returned as an embedded resource (base64 blob)."""

    def get(self, request):
        titles = ", ".join(todo.title for todo in _todos(request)) or "nothing to do"
        return HttpResponse(one_line_pdf(f"Todos: {titles}"), content_type="application/pdf")


@mcp_tool(
    "todo_summary",
    title="Todo summary",
    output_schema=TodoSummarySerializer,
    include_output_schema=True,
)
class SummaryView(APIView):
    """Summarise the signed-in user's todos: counts and what is due next."""

    def get(self, request):
        todos = _todos(request)
        today = timezone.localdate()
        open_todos = sorted(
            (todo for todo in todos if not todo.done), key=lambda t: (t.due is None, t.due, t.pk)
        )
        data = TodoSummarySerializer(
            {
                "total": len(todos),
                "done": len(todos) - len(open_todos),
                "open": len(open_todos),
                "overdue": sum(1 for t in open_todos if t.due is not None and t.due < today),
                "next_due": [todo.title for todo in open_todos[:3]],
            }
        ).data
        # The model reads one short sentence; structuredContent keeps the numbers. The HTTP
        # response below is the same JSON either way.
        upcoming = "; ".join(data["next_due"]) or "nothing"
        mcp_output(
            request,
            content=[
                {
                    "type": "text",
                    "text": f"{data['open']} open of {data['total']} todos, "
                    f"{data['overdue']} overdue. Next: {upcoming}.",
                }
            ],
            annotations={"audience": ["assistant"], "priority": 0.9},
        )
        return Response(data)


@mcp_tool("todo_sync", title="Sync todos", input_schema={"type": "object"})  # no body
class FailingView(APIView):
    """Sync todos with a remote calendar (always fails: shows production error masking)."""

    def post(self, request):
        raise ConnectionError("calendar.internal:8443 refused the connection")
