from django.urls import include, path

from . import views

FUNCTION_TOOLS = [
    name
    for name, value in vars(views).items()
    if name.startswith("r_") and callable(value) and hasattr(value, "cls")
]

urlpatterns = [
    *(
        path(f"{name.removeprefix('r_')}/", getattr(views, name), name=name)
        for name in FUNCTION_TOOLS
    ),
    path("thing/", views.ThingView.as_view(), name="r_thing"),
    path("indented/", views.IndentedView.as_view(), name="r_indented"),
    path("things/", views.ThingListView.as_view(), name="r_things"),
    path("things/paged/", views.ThingPageView.as_view(), name="r_things_paged"),
    # The demo's showcase, so the front-door tests drive every demo tool on live_server.
    path("showcase/", include("demo_project.showcase.urls")),
]
