"""The test URLconf with Django admin at /admin/, for the browser and scale-out tests."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("tests.urls")),
]
