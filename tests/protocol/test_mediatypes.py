"""Media types in Accept and Content-Type headers."""

import pytest

from mcp_tools.protocol import mediatypes


@pytest.mark.parametrize(
    ("accept", "media_type", "admitted"),
    [
        (None, "application/json", False),
        ("", "application/json", False),
        ("application/json, text/event-stream", "application/json", True),
        ("application/json, text/event-stream", "text/event-stream", True),
        ("APPLICATION/JSON;q=0.9", "application/json", True),
        ("application/*", "application/json", True),
        ("text/*", "text/event-stream", True),
        ("*/*", "text/event-stream", True),
        ("text/html", "application/json", False),
        ("application/json", "text/event-stream", False),
    ],
)
def test_accepts(accept, media_type, admitted):
    assert mediatypes.accepts(accept, media_type) is admitted


@pytest.mark.parametrize(
    ("content_type", "parsed"),
    [
        (None, ("", None)),
        ("application/json", ("application/json", None)),
        ("Text/Plain; charset=ISO-8859-1", ("text/plain", "ISO-8859-1")),
        ('text/csv; header=present; charset="utf-8"', ("text/csv", "utf-8")),
    ],
)
def test_parse(content_type, parsed):
    assert mediatypes.parse(content_type) == parsed


@pytest.mark.parametrize(
    ("accept", "streams"),
    [(None, False), ("application/json", False), ("text/event-stream", True), ("*/*", True)],
)
def test_which_accept_headers_admit_a_stream(accept, streams):
    assert mediatypes.accepts(accept, "text/event-stream") is streams


@pytest.mark.parametrize(
    ("accept", "media_type", "admitted"),
    [
        ("application/json;q=0", "application/json", False),
        ("application/json; q=0.0", "application/json", False),
        ("application/json;q=0.000, */*", "application/json", False),
        ("*/*;q=0, application/json", "application/json", True),
        ("application/*;q=0, application/json;q=0.5", "application/json", True),
        ("application/json;q=0.001", "application/json", True),
        ("text/*;q=0, text/event-stream;q=1", "text/event-stream", True),
        ("text/event-stream;q=0, */*", "text/event-stream", False),
        ("application/json;q=abc", "application/json", True),
    ],
)
def test_a_range_with_q_0_excludes_its_media_types(accept, media_type, admitted):
    # RFC 9110 §12.5.1: the most specific range decides, and q=0 means "not acceptable".
    assert mediatypes.accepts(accept, media_type) is admitted


@pytest.mark.parametrize("quality", ["nan", "inf", "-inf", "x"])
def test_an_unreadable_quality_counts_as_none(quality):
    assert mediatypes.accepts(f"application/json;q={quality}", "application/json") is True
