"""``core.request_headers``: Django's ``HttpHeaders`` of a ``META``, its names remembered."""

from django.http.request import HttpHeaders
from django.test import RequestFactory
from hypothesis import given
from hypothesis import strategies as st

from mcp_tools.core import request_headers
from mcp_tools.core.request_headers import headers_of, read_headers

#: META keys as WSGI servers and Django's test client write them, and some that are no header.
KEYS = st.one_of(
    st.from_regex(r"HTTP_[A-Z0-9_]{1,12}", fullmatch=True),
    st.sampled_from(["CONTENT_TYPE", "CONTENT_LENGTH", "REMOTE_ADDR", "wsgi.input", "HTTP_"]),
    st.text(max_size=8),
)


@given(st.dictionaries(KEYS, st.text(max_size=8), max_size=12))
def test_the_headers_are_djangos_of_the_same_meta(meta):
    built = headers_of(meta)
    assert isinstance(built, HttpHeaders)
    assert list(built.items()) == list(HttpHeaders(meta).items())  # names, values, order
    for name in built:
        assert (
            built[name.lower()]
            == built[name.upper().replace("-", "_")]
            == meta[HttpHeaders.to_wsgi_name(name)]
        )


def test_names_are_remembered_up_to_a_bound(monkeypatch):
    monkeypatch.setattr(request_headers, "_NAMES", {})
    monkeypatch.setattr(request_headers, "MAX_REMEMBERED_KEYS", 2)
    hostile = {f"HTTP_X_{n}": str(n) for n in range(10)}
    assert dict(headers_of(hostile)) == dict(HttpHeaders(hostile))  # answered all the same
    assert len(request_headers._NAMES) == 2  # and nothing more remembered


def test_long_names_are_never_remembered(monkeypatch):
    # Each header of a request may be as long as the server allows, before anything
    # authenticates its client: the memo keeps none of them.
    monkeypatch.setattr(request_headers, "_NAMES", {})
    hostile = {f"HTTP_{n}_" + "X" * 8000: str(n) for n in range(10)}
    hostile["HTTP_X_TENANT_ID"] = "acme"
    assert dict(headers_of(hostile)) == dict(HttpHeaders(hostile))
    assert request_headers._NAMES == {"HTTP_X_TENANT_ID": "X-Tenant-Id"}


def test_headers_something_read_already_are_kept():
    request = RequestFactory().get("/", HTTP_X_TENANT_ID="acme")
    read_before = request.headers
    read_headers(request)
    assert request.headers is read_before

    fresh = RequestFactory().get("/", HTTP_X_TENANT_ID="acme")
    read_headers(fresh)
    assert "headers" in fresh.__dict__
    assert fresh.headers == HttpHeaders(fresh.META)
    assert fresh.headers["X-Tenant-Id"] == "acme"
