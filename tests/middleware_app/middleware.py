"""Middleware as real projects write it: path policy, tenants, answers of its own.

None of it knows about MCP: a tool call must meet it exactly as a direct request does.
"""

from asgiref.sync import markcoroutinefunction
from django.http import HttpResponseForbidden, HttpResponseRedirect, JsonResponse
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from .models import Tenant


def api_user(request):
    """The session's user, else the user of an API token (as such middleware often reads it)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user
    try:
        found = TokenAuthentication().authenticate(Request(request))
    except AuthenticationFailed:
        return None
    return found[0] if found else None


class StaffOnlyMiddleware:
    """Refuse every request under /m/internal/ that is not a staff member's."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/m/internal/"):
            user = api_user(request)
            if user is None or not user.is_staff:
                return HttpResponseForbidden("Staff only.")
        return self.get_response(request)


class TenantMiddleware:
    """Set ``request.tenant`` from the ``X-Tenant-ID`` header; refuse an unknown tenant."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        slug = request.headers.get("X-Tenant-ID")
        request.tenant = None
        if slug:
            request.tenant = Tenant.objects.filter(slug=slug).first()
            if request.tenant is None:
                return JsonResponse({"detail": f"No tenant {slug}."}, status=404)
        return self.get_response(request)


class ShortCircuitMiddleware:
    """Answer some paths itself: a closed area (403) and a moved one (a redirect)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/m/closed/"):
            return HttpResponseForbidden("This area is closed.")
        if request.path.startswith("/m/moved/"):
            return HttpResponseRedirect("/m/new-home/")
        return self.get_response(request)


class ViewNameMiddleware:
    """Record, in process_view, which view Django is about to call (view middleware)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response["X-View-Name"] = getattr(request, "view_name", "")
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        request.view_name = view_func.__name__


class ExceptionPageMiddleware:
    """Turn a view's LookupError into a 409 of its own (process_exception)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, LookupError):
            return JsonResponse({"detail": f"Conflict: {exception}"}, status=409)
        return None


class AsyncOnlyGateMiddleware:
    """An async-only middleware whose process_view answers for /m/async-gate/ (Django runs
    it to completion in a sync chain)."""

    sync_capable = False
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        markcoroutinefunction(self)  # as Django's docs ask of async middleware

    async def __call__(self, request):
        return await self.get_response(request)

    async def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path.startswith("/m/async-gate/"):
            return JsonResponse({"gate": "closed by an async hook"}, status=403)
        return None


class TemplatePageMiddleware:
    """Answer /m/page/ from process_view with a TemplateResponse (rendered by Django)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path.startswith("/m/page/"):
            from django.template import engines
            from django.template.response import TemplateResponse

            template = engines["django"].from_string("page for {{ who }}")
            return TemplateResponse(request, template, {"who": "the middleware"})
        return None


class BrokenHookMiddleware:
    """A process_view that fails for /m/broken-hook/; its process_exception must not see it."""

    seen = []

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path.startswith("/m/broken-hook/"):
            raise ValueError("the hook broke")
        return None

    def process_exception(self, request, exception):
        BrokenHookMiddleware.seen.append(str(exception))
        return None


class AlwaysDeleteMiddleware:
    """Turn every request under /m/overridden/ into a DELETE, whatever it carries."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/m/overridden/"):
            request.method = "DELETE"
        return self.get_response(request)
