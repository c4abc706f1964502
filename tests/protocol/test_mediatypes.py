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
