"""Views that answer redirects, served by an endpoint of their own at ``/rd/mcp``.

The shape of Wagtail API v2's ``find`` view: ``entry_find`` looks an entry up by its label
and redirects to ``entry_detail``, a ``RetrieveAPIView`` that is a tool too, its query string
kept; ``entry_find_absolute`` redirects with the absolute URL ``build_absolute_uri`` gives.
The others redirect where no call may follow (docs/results.md#redirects).
"""

from django.contrib import admin
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_tools import mcp_output
from mcp_tools.tools.decorators import mcp_tool
from mcp_tools.tools.registry import ToolRegistry
from mcp_tools.views import MCPView
from tests.testapp.models import Entry

redirects = ToolRegistry()


class EntrySerializer(serializers.ModelSerializer):
    class Meta:
        model = Entry
        fields = ["id", "label"]


class EntryDetail(generics.RetrieveAPIView):
    """Show one entry, and the query string it was asked with."""

    queryset = Entry.objects.all()
    serializer_class = EntrySerializer

    def retrieve(self, request, *args, **kwargs):
        response = super().retrieve(request, *args, **kwargs)
        response.data["query"] = request.META.get("QUERY_STRING", "")
        response.data["user"] = request.user.username
        return response


class HiddenDetail(EntryDetail):
    """Show one entry: a tool the test disables, or restricts to a group."""


class EntryFind(APIView):
    """Find an entry by its label: a redirect to its detail, the query string kept."""

    def get(self, request):
        entry = get_object_or_404(Entry, label=request.query_params.get("label"))
        return HttpResponseRedirect(
            reverse("entry-detail", args=[entry.pk]) + "?" + request.META["QUERY_STRING"]
        )


class EntryFindAbsolute(APIView):
    """Find an entry by its label: a redirect to the absolute URL of its detail."""

    def get(self, request):
        entry = get_object_or_404(Entry, label=request.query_params.get("label"))
        return redirect(request.build_absolute_uri(reverse("entry-detail", args=[entry.pk])) + "?")


class Elsewhere(APIView):
    """Redirect to the same path on another site."""

    def get(self, request):
        return redirect("https://other.example" + reverse("entry-detail", args=[1]))


class ToPage(APIView):
    """Redirect to an HTML page that is no tool."""

    def get(self, request):
        return redirect("page")


class ToAdmin(APIView):
    """Redirect to the admin."""

    def get(self, request):
        return redirect("admin:index")


class ToHidden(APIView):
    """Redirect to a tool that the test disables or restricts."""

    def get(self, request):
        first = Entry.objects.order_by("pk").values_list("pk", flat=True).first()
        return redirect("hidden-detail", pk=first or 1)


class ToCreate(APIView):
    """Redirect to a route whose only tool is a POST."""

    def get(self, request):
        return redirect("entry-create")


class Loop(APIView):
    """Redirect to the other end of the loop."""

    def get(self, request, end):
        return redirect("loop", end="b" if end == "a" else "a")


class Countdown(APIView):
    """Redirect to ``n - 1`` until 0, which answers."""

    def get(self, request, n):
        if n == 0:
            return Response({"n": 0})
        return redirect("countdown", n=n - 1)


class Summary(APIView):
    """Answer a short text of its own: an override set by the view the call ends at."""

    def get(self, request):
        mcp_output(request, content=[{"type": "text", "text": "the summary"}])
        return Response({"long": "body"})


class ToSummary(APIView):
    """Set an override, then redirect: the view a redirect leaves says nothing."""

    def get(self, request):
        mcp_output(request, content=[{"type": "text", "text": "the redirect's own"}])
        return redirect("summary")


class Confirmed(APIView):
    """Answer only once the user confirmed."""

    def get(self, request):
        return Response({"confirmed": True})


class ToConfirmed(APIView):
    """Redirect to a tool that asks for confirmation."""

    def get(self, request):
        return redirect("confirmed")


class EntryCreate(APIView):
    """Create an entry and answer 303 See Other to its detail."""

    def post(self, request):
        entry = Entry.objects.create(label=request.data.get("label", "new"))
        response = HttpResponseRedirect(reverse("entry-detail", args=[entry.pk]))
        response.status_code = status.HTTP_303_SEE_OTHER
        return response


def page(request):
    return HttpResponse(b"<p>a page</p>", content_type="text/html")


def declare(name, view_class, **options):
    """Declare ``view_class`` as the tool ``name`` of ``redirects``; return its view."""
    mcp_tool(name, registry=redirects, **options)(view_class)
    return view_class.as_view()


urlpatterns = [
    path("admin/", admin.site.urls),
    path("rd/page/", page, name="page"),
    path("rd/entries/find/", declare("entry_find", EntryFind), name="entry-find"),
    path(
        "rd/entries/find-absolute/",
        declare("entry_find_absolute", EntryFindAbsolute),
        name="entry-find-absolute",
    ),
    path("rd/entries/new/", declare("entry_create", EntryCreate), name="entry-create"),
    path("rd/entries/<int:pk>/", declare("entry_detail", EntryDetail), name="entry-detail"),
    path("rd/hidden/<int:pk>/", declare("hidden_detail", HiddenDetail), name="hidden-detail"),
    path("rd/elsewhere/", declare("elsewhere", Elsewhere)),
    path("rd/to-page/", declare("to_page", ToPage)),
    path("rd/to-admin/", declare("to_admin", ToAdmin)),
    path("rd/to-hidden/", declare("to_hidden", ToHidden)),
    path("rd/to-create/", declare("to_create", ToCreate)),
    path("rd/loop/<str:end>/", declare("loop", Loop), name="loop"),
    path("rd/countdown/<int:n>/", declare("countdown", Countdown), name="countdown"),
    path("rd/summary/", declare("summary", Summary), name="summary"),
    path("rd/to-summary/", declare("to_summary", ToSummary)),
    path("rd/confirmed/", declare("confirmed", Confirmed, confirm=True), name="confirmed"),
    path("rd/to-confirmed/", declare("to_confirmed", ToConfirmed)),
    path("rd/mcp", MCPView.as_view(registry=redirects), name="rd-mcp"),
]
