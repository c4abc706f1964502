"""Tests of the mcp_remote management command, against a real SDK server over HTTP."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.client.test_adapters import (
    ESCAPES,
    HOSTILE_SERVER,
    HTTP_SERVER,
    PNG,
    file_part,
    http_server,
    text_part,
)

TOOL_LIST = "greet: Say hello.\nwhoami: Return the Authorization header received.\nchart\nfail\n"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with http_server(HTTP_SERVER, PNG) as url:
        yield url


def run(*args: str) -> str:
    stdout = StringIO()
    call_command("mcp_remote", *args, "--timeout", "10", stdout=stdout)
    return stdout.getvalue()


@pytest.mark.parametrize("options", [(), ("--list",)])
def test_lists_tools(server_url: str, options: tuple[str, ...]) -> None:
    assert run(server_url, *options) == TOOL_LIST


def test_lists_titles_and_schemas_when_verbose(server_url: str) -> None:
    listing = run(server_url, "--verbosity", "2")
    assert "greet: Say hello.\n    title: Greet\n    input schema: {\n" in listing
    assert '      "required": [\n        "name"\n      ],' in listing


def test_calls_a_tool(server_url: str) -> None:
    assert run(server_url, "--call", "greet", "--arguments", '{"name": "Ada"}') == "Hello, Ada!\n"


def test_prints_a_list_output_as_json(server_url: str) -> None:
    assert json.loads(run(server_url, "--call", "chart")) == [text_part("chart:"), file_part()]


def test_sends_headers(server_url: str) -> None:
    output = run(server_url, "--header", "Authorization:  Token abc ", "--call", "whoami")
    assert output == "Token abc\n"


def test_truncates_with_max_chars(server_url: str) -> None:
    output = run(
        server_url,
        "--call",
        "greet",
        "--arguments",
        '{"name": "' + "a" * 200 + '"}',
        "--max-chars",
        "100",
    )
    assert output == "Hello, " + "a" * 54 + "\n[truncated 147 characters (147 bytes)]\n"


ERROR_CASES = [
    ("tool error", ("--call", "fail"), "^Not allowed$"),
    (
        "unknown tool",
        ("--call", "nope"),
        r"^Unknown tool 'nope'\. Tools: greet, whoami, chart, fail$",
    ),
    (
        "arguments not an object",
        ("--call", "greet", "--arguments", "[1]"),
        "^--arguments must be a JSON object$",
    ),
    (
        "arguments not JSON",
        ("--call", "greet", "--arguments", "{"),
        "^--arguments is not valid JSON",
    ),
    ("arguments without call", ("--arguments", "{}"), r"^--arguments needs --call NAME$"),
    (
        "bad header",
        ("--header", "Authorization Token abc"),
        "^--header must look like 'Name: value'$",
    ),
    ("marker does not fit", ("--call", "greet", "--max-chars", "5"), "^--max-chars: max_chars=5"),
    ("list and call", ("--list", "--call", "greet"), "not allowed with argument"),
]


@pytest.mark.parametrize(
    ("options", "message"), [pytest.param(*case[1:], id=case[0]) for case in ERROR_CASES]
)
def test_errors_are_command_errors(server_url: str, options: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(server_url, *options)


def test_server_errors_are_command_errors(server_url: str) -> None:
    with pytest.raises(CommandError, match="^Not Found$"):
        run(server_url.removesuffix("/mcp") + "/elsewhere", "--list")


# -- What a hostile server sends: escaped, bounded ---------------------------------------

#: ESCAPES as the command shows them.
SHOWN = r"\x1b]0;owned\x07\x1b[2K\x1b]52;c;cm0gLXJmIH4=\x07\x9b31m\x0d\x00"
#: What a terminal would act on: C0 controls but tab and newline, a CR not before a newline,
#: DEL, C1 controls.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


@pytest.fixture(scope="module")
def hostile_url() -> Iterator[str]:
    with http_server(HOSTILE_SERVER, json.dumps(ESCAPES)) as url:
        yield url


def test_a_listing_shows_the_servers_control_characters_escaped(hostile_url: str) -> None:
    listing = run(hostile_url, "--verbosity", "2")
    assert not CONTROL.search(listing)
    assert f"loud{SHOWN}: Say{SHOWN}\n    title: Loud{SHOWN}\n" in listing
    # JSON escapes C0 controls itself; C1 ones it keeps with ensure_ascii=False.
    assert r'"a\u001b]0;owned\u0007\u001b[2K\u001b]52;c;cm0gLXJmIH4=\u0007\x9b31m\r\u0000"' in (
        listing
    )


def test_an_output_shows_the_servers_control_characters_escaped(hostile_url: str) -> None:
    # A newline, and a CR before one, are text, not commands.
    assert run(hostile_url, "--call", "loud" + ESCAPES) == f"Loud{SHOWN}\nend\r\n"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("oops", f"Failed{SHOWN}"),  # a tool error
        ("refused", f"Refused{SHOWN}"),  # a JSON-RPC error
        ("odd", r"Unexpected content type: text/x-odd\x9b2j"),  # the SDK quoting a header
        # The operator's own name, as repr() shows it.
        ("nope" + ESCAPES, f"Unknown tool {'nope' + ESCAPES!r}. Tools: big, "),
    ],
)
def test_errors_show_the_servers_control_characters_escaped(
    hostile_url: str, name: str, message: str
) -> None:
    with pytest.raises(CommandError) as caught:
        run(hostile_url, "--call", name)
    assert str(caught.value).startswith(message)
    assert not CONTROL.search(str(caught.value))
    if name.startswith("nope"):
        assert f", loud{SHOWN}, oops" in str(caught.value)


def test_max_response_bytes_bounds_what_is_read(hostile_url: str) -> None:
    with pytest.raises(CommandError, match=r"larger than max_response_bytes \(1000 bytes\)"):
        run(hostile_url, "--call", "big", "--max-response-bytes", "1000")
    with pytest.raises(CommandError, match="^--max-response-bytes must be a positive number"):
        run(hostile_url, "--list", "--max-response-bytes", "0")


def closed_port_url() -> str:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{unused.getsockname()[1]}/mcp"


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ('{"n": NaN}', "NaN is not JSON"),
        ('{"n": Infinity}', "Infinity is not JSON"),
        ("[" * 100_000 + "]" * 100_000, "JSON nested deeper than 62"),
        ('{"a": ' * 63 + "1" + "}" * 63, "JSON nested deeper than 62"),
        ('{"a": "\\ud800"}', "a string holds a lone UTF-16 surrogate"),
        ('{"a": "\udcff"}', "the text holds a lone UTF-16 surrogate"),  # undecodable argv
        ('{"a": 1, "a": 2}', "the key 'a' appears twice in one object"),
        ("{", "Expecting property name enclosed in double quotes: line 1 column 2"),
    ],
)
def test_arguments_are_read_as_the_endpoint_reads_a_body(arguments: str, reason: str) -> None:
    # Refused before connecting: the URL has no server.
    with pytest.raises(CommandError) as caught:
        run(closed_port_url(), "--call", "greet", "--arguments", arguments)
    assert str(caught.value).startswith(f"--arguments is not valid JSON: {reason}")


# -- In a process of its own: memory, and what reaches the terminal ------------------------

REPORTING_RSS = """
import resource, sys
from django.core.management import execute_from_command_line
try:
    execute_from_command_line(["manage.py", "mcp_remote", *sys.argv[2:]])
finally:
    with open(sys.argv[1], "w") as report:
        report.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
"""


def mcp_remote_process(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, int]:
    """Run mcp_remote in a process of its own; return it, and its peak RSS in KiB."""
    report = tmp_path / "rss"
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    done = subprocess.run(
        [sys.executable, "-c", REPORTING_RSS, str(report), *args, "--timeout", "10"],
        cwd=Path(__file__).resolve().parents[2],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, int(report.read_text())


@pytest.mark.e2e
def test_a_100_mib_result_costs_no_more_memory_than_a_listing(
    hostile_url: str, tmp_path: Path
) -> None:
    listed, listing_rss = mcp_remote_process(tmp_path, hostile_url, "--list")
    assert listed.returncode == 0, listed.stderr
    called, call_rss = mcp_remote_process(
        tmp_path, hostile_url, "--call", "big", "--max-chars", "100"
    )
    assert called.returncode == 1
    # One line: no traceback, not the SDK's own log of the refusal.
    assert called.stderr == (
        "CommandError: Failed to parse JSON response: The server's response is larger than "
        "max_response_bytes (10485760 bytes); it is refused, the rest unread.\n"
    )
    # Read whole, the 100 MiB cost about 540 MiB more than a listing; bounded, 12 MiB more.
    assert call_rss < listing_rss + 64 * 1024, (listing_rss, call_rss)


@pytest.mark.e2e
def test_the_sdks_log_is_shown_escaped_with_verbosity_2(hostile_url: str, tmp_path: Path) -> None:
    quiet, _ = mcp_remote_process(tmp_path, hostile_url, "--call", "odd")
    assert quiet.stderr == r"CommandError: Unexpected content type: text/x-odd\x9b2j" + "\n"
    verbose, _ = mcp_remote_process(tmp_path, hostile_url, "--call", "odd", "--verbosity", "2")
    assert verbose.stderr == (
        r"mcp.client.streamable_http: Unexpected content type: text/x-odd\x9b2j" + "\n"
        r"CommandError: Unexpected content type: text/x-odd\x9b2j" + "\n"
    )
