"""Paths built from tool arguments stay inside their own route."""

import pytest
from django.urls import include, path, re_path
from django.urls.resolvers import get_resolver

from mcp_tools.routes import iter_routes


def view(request, **kwargs):
    return None


def routes_of(*patterns):
    import types

    module = types.ModuleType("routes_for_test")
    module.urlpatterns = list(patterns)
    return {route.name: route for route in iter_routes(get_resolver(module))}


ROUTES = routes_of(
    path("api/", include(([path("items/<int:pk>/", view, name="item")], "ns"), namespace="ns")),
    path("files/<str:name>/", view, name="file"),
    path("docs/<path:rest>", view, name="doc"),
    re_path(r"^todos/(?P<pk>[^/.]+)/$", view, name="todo"),
    path("u/<uuid:id>/", view, name="uuid"),
)


@pytest.mark.parametrize(
    ("name", "kwargs", "expected"),
    [
        ("ns:item", {"pk": 3}, "/api/items/3/"),
        ("file", {"name": "report.txt"}, "/files/report.txt/"),
        ("file", {"name": "%2F.."}, "/files/%2F../"),
        ("doc", {"rest": "a/b/c"}, "/docs/a/b/c"),
        ("todo", {"pk": 7}, "/todos/7/"),
        (
            "uuid",
            {"id": "12345678-1234-5678-1234-567812345678"},
            "/u/12345678-1234-5678-1234-567812345678/",
        ),
    ],
)
def test_values_are_placed_with_the_converters_to_url(name, kwargs, expected):
    assert ROUTES[name].build_path(kwargs) == expected


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("file", {"name": "../../admin"}),
        ("file", {"name": "a/b"}),
        ("file", {"name": ""}),
        ("ns:item", {"pk": "1/../2"}),
        ("ns:item", {"pk": -1}),
        ("todo", {"pk": "1/edit"}),
        ("todo", {"pk": "a.json"}),
        ("uuid", {"id": "not-a-uuid"}),
        ("file", {}),
        ("file", {"name": "x", "extra": "y"}),
    ],
)
def test_values_that_leave_their_pattern_are_refused(name, kwargs):
    with pytest.raises(ValueError):
        ROUTES[name].build_path(kwargs)


def test_routes_know_their_parameters_and_qualified_names():
    assert ROUTES["ns:item"].parameters == ("pk",)
    assert ROUTES["ns:item"].route == "api/items/<int:pk>/"
    assert ROUTES["todo"].route == "todos/(?P<pk>[^/.]+)/"
    assert ROUTES["todo"].url_name == "todo"
