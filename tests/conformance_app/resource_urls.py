"""The conformance fixture resources, mounted at /c/resources/ by the conformance server
only: the suite's own endpoint (tests.urls) serves no resources."""

from django.urls import path

from . import resource_views

urlpatterns = [
    path("static-text/", resource_views.static_text),
    path("static-binary/", resource_views.static_binary),
    path("template/<str:id>/data/", resource_views.template_data),
    path("watched/", resource_views.watched),
]
