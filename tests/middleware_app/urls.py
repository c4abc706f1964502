from django.urls import path

from . import views


def login_required_again(view):
    """Opt a DRF view back in to LoginRequiredMiddleware (DRF exempts its views)."""
    view.login_required = True
    return view


urlpatterns = [
    path("internal/report/", views.InternalReportView.as_view(), name="internal-report"),
    path("invoices/", views.InvoiceList.as_view(), name="invoice-list"),
    path("closed/", views.closed_area, name="closed-area"),
    path("moved/", views.moved_area, name="moved-area"),
    path("conflicting/", views.conflicting, name="conflicting"),
    path("view-name/", views.view_name, name="view-name"),
    path("open-report/", views.open_report, name="open-report"),
    path("login-report/", login_required_again(views.login_report), name="login-report"),
    path("verified/", views.VerifiedView.as_view(), name="verified"),
    path("async-gate/", views.async_gate, name="async-gate"),
    path("page/", views.page, name="page"),
    path("broken-hook/", views.broken_hook, name="broken-hook"),
    path("returns-nothing/", views.returns_nothing, name="returns-nothing"),
    path("overridden/", views.overridden, name="overridden"),
]
