"""Paths built from tool arguments stay inside their own route."""

import pytest
from django.urls import include, path, re_path, register_converter
from django.urls.converters import get_converters
from django.urls.resolvers import get_resolver

from mcp_tools.core.routes import NoPath, iter_routes


def view(request, **kwargs):
    return None


def _module(patterns):
    import types

    module = types.ModuleType("routes_for_test")
    module.urlpatterns = list(patterns)
    return module


def routes_of(*patterns):
    return {route.name: route for route in iter_routes(get_resolver(_module(patterns)))}


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
    assert ROUTES[name].resolve(kwargs)[0] == expected


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
    with pytest.raises(NoPath):
        ROUTES[name].resolve(kwargs)[0]


class FussyConverter:
    """A converter whose own errors carry internals no client should read."""

    regex = "[a-z]+"

    def to_python(self, value):
        if value == "boom":
            raise ValueError("to_python of /srv/app/converters.py refused it")
        return value

    def to_url(self, value):
        if value == "secret":
            raise ValueError("to_url of /srv/app/converters.py refused it")
        return value


if "fussy" not in get_converters():  # registered once per process, for every URLconf
    register_converter(FussyConverter, "fussy")


@pytest.mark.parametrize(
    ("name", "kwargs", "parameter"),
    [
        ("ns:item", {"pk": 5.0}, "pk"),
        ("ns:item", {"pk": "1/../2"}, "pk"),
        ("todo", {"pk": "a.json"}, "pk"),
        ("fussy", {"year": 2024, "word": "secret"}, "word"),
        ("fussy", {"year": 2024, "word": "boom"}, "word"),
        ("fussy", {"year": "x", "word": "ok"}, "year"),
        ("file", {}, None),
        ("file", {"name": "x", "extra": "y"}, None),
    ],
)
def test_a_refusal_names_the_parameter_and_never_the_route(name, kwargs, parameter):
    routes = {
        **ROUTES,
        **routes_of(path("f/<int:year>/<fussy:word>/", view, name="fussy")),
    }
    with pytest.raises(NoPath) as excinfo:
        routes[name].resolve(kwargs)
    assert excinfo.value.parameter == parameter
    for internal in ("(?P<", "/srv/", "[^/.]", "api/", "converters.py", "no path"):
        assert internal not in str(excinfo.value)


def test_routes_know_their_parameters_and_qualified_names():
    assert ROUTES["ns:item"].parameters == ("pk",)
    assert ROUTES["ns:item"].route == "api/items/<int:pk>/"
    assert ROUTES["todo"].route == "todos/(?P<pk>[^/.]+)/"
    assert ROUTES["todo"].url_name == "todo"


def test_a_named_group_that_matched_nothing_leaves_no_positional_arguments():
    # As Django resolves it: a pattern with named groups passes none positionally.
    module_patterns = [re_path(r"^b/(?:(?P<page>\d+)/)?$", view, name="pages")]
    route = routes_of(*module_patterns)["pages"]
    path_info, match = route.resolve({})
    expected = get_resolver(_module(module_patterns)).resolve(path_info)
    assert (match.args, match.kwargs) == (expected.args, expected.kwargs) == ((), {})


def _walk_patterns():
    from django.utils.translation import gettext_lazy

    return [
        path("api/", include(([path("items/<int:pk>/", view, name="item")], "ns"), namespace="ns")),
        path("plain/", view, name="plain"),
        path("files/<str:name>/", view, name="file"),
        re_path(r"^todos/(?P<pk>[^/.]+)/$", view, name="todo"),
        re_path(r"todos\.json$", view, name="dotted"),
        re_path(r"^b/(?:(?P<page>\d+)/)?$", view, name="pages"),
        path(gettext_lazy("about/"), view, name="about"),
    ]


def _compiled_source(pattern):
    regex = pattern.regex.pattern
    return regex[1:] if regex.startswith("^") else regex


def test_walking_the_urlconf_compiles_none_of_its_patterns():
    # A request compiles only the patterns it tries; listing the tools must not compile
    # every one of them (a fifth of the first tools/list of 500 tools did).
    patterns = _walk_patterns()
    routes = {route.name: route for route in iter_routes(get_resolver(_module(patterns)))}
    assert routes["plain"].regex == "plain/\\Z"
    untranslated = [patterns[1], patterns[2], patterns[3], patterns[4]]
    assert all("regex" not in pattern.pattern.__dict__ for pattern in untranslated)
    assert "regex" not in patterns[0].pattern.__dict__


def test_the_walk_reads_each_pattern_as_django_compiles_it():
    patterns = _walk_patterns()
    routes = {route.name: route for route in iter_routes(get_resolver(_module(patterns)))}
    inner = patterns[0].url_patterns[0]
    assert routes["ns:item"].regex == _compiled_source(patterns[0].pattern) + _compiled_source(
        inner.pattern
    )
    for pattern in patterns[1:]:
        assert routes[pattern.name].regex == _compiled_source(pattern.pattern), pattern.name


def test_a_translated_pattern_is_read_in_the_active_language(settings):
    from django.utils import translation

    settings.LANGUAGES = [("en", "English"), ("fr", "French")]
    with translation.override("fr"):
        patterns = _walk_patterns()
        routes = {route.name: route for route in iter_routes(get_resolver(_module(patterns)))}
        assert routes["about"].regex == _compiled_source(patterns[-1].pattern)


@pytest.mark.parametrize(
    ("name", "parameters"),
    [("plain", ()), ("dotted", ()), ("file", ("name",)), ("todo", ("pk",)), ("pages", ("page",))],
)
def test_parameters_are_those_of_the_patterns_groups(name, parameters):
    route = routes_of(*_walk_patterns())[name]
    assert route.parameters == parameters
    assert route.template == route._possibilities[0][0] % {p: f"<{p}>" for p in parameters}


def test_a_route_without_parameters_gives_each_call_a_match_of_its_own():
    # Made once and copied per call: each copy is what resolve() makes of the path, and a
    # view that writes on its match (its kwargs, its namespaces) writes on its own.
    module_patterns = [
        path("api/", include(([path("plain/", view, {"extra": 1}, name="plain")], "ns"))),
    ]
    route = routes_of(*module_patterns)["ns:plain"]
    path_info, first = route.resolve({})
    expected = get_resolver(_module(module_patterns)).resolve(path_info)
    for name in ("func", "args", "kwargs", "url_name", "route", "captured_kwargs"):
        assert getattr(first, name) == getattr(expected, name), name
    for name in ("extra_kwargs", "app_names", "namespaces", "view_name", "_func_path"):
        assert getattr(first, name) == getattr(expected, name), name
    first.kwargs["extra"] = 2
    first.namespaces.append("written")
    _, second = route.resolve({})
    assert second is not first
    assert (second.kwargs, second.namespaces) == ({"extra": 1}, ["ns"])
    assert vars(second).keys() == vars(expected).keys()
