"""django-oauth-toolkit as the authorization server, the endpoints as its resource server.

A real server (uvicorn, tests/oauth_app) on 127.0.0.1; the TypeScript SDK's own OAuth client
discovers it from the 401 and runs the authorization-code + PKCE flow, once with a client ID
metadata document (served here, over https, on 127.0.0.1) and once registering dynamically;
this test plays the user (signs in, posts the consent form). The tokens it got call tools
through the Python SDK; minted tokens (expired, for another audience, bound to nothing,
under-scoped) and a revoked one are each refused as the spec says, checked on the wire.
"""

from __future__ import annotations

import datetime
import html.parser
import ipaddress
import json
import os
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.conformance_app.server import (
    DATABASE_ENV,
    REPO,
    free_port,
    migrated_database,
    node_tool,
    serve,
)
from tests.sdk import Wire, connect
from tests.wire import validate_exchange

SETTINGS = "tests.oauth_app.settings"
PASSWORD = "alice-password"


@pytest.fixture(scope="module")
def oauth_server(tmp_path_factory):
    """Yield (base URL, fixture) of a running OAuth test server; stop it by PID after."""
    folder = tmp_path_factory.mktemp("oauth")
    certificate = self_signed_certificate(folder)
    env = {"MCP_TESTS_CIMD_CA": str(certificate[0])}
    callback = f"http://127.0.0.1:{free_port()}/callback"
    database = migrated_database(SETTINGS, folder)
    with serve("uvicorn", settings=SETTINGS, env=env, database=database) as base:
        made = subprocess.run(
            [sys.executable, "manage.py", "oauth_fixture", "--resource", f"{base}/mcp"]
            + ["--redirect-uri", callback],
            cwd=REPO,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, DATABASE_ENV: str(database)},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        fixture = json.loads(made.stdout)
        fixture["callback"] = callback
        fixture["certificate"] = certificate
        fixture["database"] = str(database)
        yield base, fixture


# -- the user, the client metadata document, the TypeScript SDK ------------------------------


class _Inputs(html.parser.HTMLParser):
    """The hidden inputs of DOT's consent form."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "input" and attributes.get("type") == "hidden" and attributes.get("name"):
            self.fields[attributes["name"]] = attributes.get("value") or ""


def approve(base: str, authorize_url: str) -> str:
    """Sign in as alice, approve the consent form; return where DOT redirects the browser."""
    with httpx2.Client(base_url=base, follow_redirects=False, timeout=30) as browser:
        browser.get("/accounts/login/")
        signed_in = browser.post(
            "/accounts/login/",
            data={
                "username": "alice",
                "password": PASSWORD,
                "csrfmiddlewaretoken": browser.cookies["csrftoken"],
                "next": "/accounts/login/",
            },
        )
        assert signed_in.status_code == 302, signed_in.text
        consent = browser.get(authorize_url)
        assert consent.status_code == 200, consent.text
        form = _Inputs()
        form.feed(consent.text)
        assert form.fields["code_challenge_method"] == "S256"
        approved = browser.post(authorize_url, data={**form.fields, "allow": "Authorize"})
        assert approved.status_code == 302, approved.text
        return approved.headers["location"]


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """Write a certificate for 127.0.0.1 and its key; the CIMD fetcher trusts only it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cimd.pem", folder / "cimd-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class metadata_document_server:
    """Serve one client ID metadata document over https on 127.0.0.1, from this process."""

    def __init__(self, certificate: tuple[Path, Path], callback: str) -> None:
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}/client.json"
        self.fetches = 0
        document = json.dumps(
            {
                "client_id": self.url,
                "client_name": "django-mcp-tools-tests (CIMD)",
                "redirect_uris": [callback],
                "grant_types": ["authorization_code"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            }
        ).encode()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                owner.fetches += 1
                status = 200 if self.path == "/client.json" else 404
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(document)))
                self.end_headers()
                self.wfile.write(document)

            def log_message(self, *args):
                pass

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*map(str, certificate))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


def typescript_oauth_flow(base: str, callback: str, home: Path, metadata_url: str | None) -> dict:
    """Run tests/js/oauth_flow.cjs, approving its authorization request as the user."""
    node = node_tool("node_modules", ".bin", "node")
    command = [str(node), str(REPO / "tests" / "js" / "oauth_flow.cjs"), f"{base}/mcp", callback]
    if metadata_url:
        command.append(metadata_url)
    env = {**os.environ, "NODE_PATH": str(node.parents[1]), "HOME": str(home)}
    process = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("AUTHORIZE "), line + process.stderr.read()
        redirected = approve(base, line.split(" ", 1)[1].strip())
        process.stdin.write(redirected + "\n")
        process.stdin.flush()
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    assert process.returncode == 0, err
    return json.loads(out)


# -- the flows ---------------------------------------------------------------------------------


def check_flow(report: dict, base: str) -> None:
    first = report["statuses"][0]
    assert first["url"] == f"{base}/mcp" and first["status"] == 401
    assert first["wwwAuthenticate"] == (
        f'Bearer scope="notes:read", resource_metadata='
        f'"{base}/.well-known/oauth-protected-resource/mcp"'
    )
    fetched = [entry["url"] for entry in report["statuses"]]
    assert f"{base}/.well-known/oauth-protected-resource/mcp" in fetched
    assert f"{base}/.well-known/oauth-authorization-server" in fetched
    # The scope the challenge named, and the tools it opens (notes_create needs notes:write,
    # notes_report staff as well: hidden).
    assert report["scope"] == "notes:read"
    assert report["tools"] == ["notes_list", "whoami", "whoami_again"]
    for name in ("whoami", "whoami_again"):
        result = report["results"][name]
        assert result["isError"] is False, result
        assert result["structuredContent"] == {"username": "alice", "scope": "notes:read"}
    assert report["results"]["notes_list"]["structuredContent"] == {
        "items": [{"id": 1, "text": "Buy milk"}]
    }


def test_the_typescript_sdk_registers_by_client_id_metadata_document(oauth_server, tmp_path):
    base, fixture = oauth_server
    with metadata_document_server(fixture["certificate"], fixture["callback"]) as document:
        report = typescript_oauth_flow(base, fixture["callback"], tmp_path, document.url)
    assert report["clientId"] == document.url  # a URL, not a registered id
    assert document.fetches >= 1  # DOT fetched the document
    check_flow(report, base)


def test_the_typescript_sdk_registers_dynamically(oauth_server, tmp_path):
    base, fixture = oauth_server
    report = typescript_oauth_flow(base, fixture["callback"], tmp_path, None)
    assert not report["clientId"].startswith("https://")
    assert any(entry["url"] == f"{base}/register/" for entry in report["statuses"])
    check_flow(report, base)
    # The token the flow got, from another client: the Python SDK, as a Bearer header.
    wire = Wire()
    anyio.run(python_sdk_calls, f"{base}/mcp", report["accessToken"], wire)
    assert len(wire.posts()) >= 4  # initialize, initialized, tools/list, tools/call
    for request, status, _, body in wire.posts():
        validate_exchange("2025-11-25", request, status, body)
    # Revoked (RFC 7009, by the client that got it): refused at once, 401.
    revoked = httpx2.post(
        f"{base}/revoke_token/",
        data={"token": report["accessToken"], "client_id": report["clientId"]},
        timeout=30,
    )
    assert revoked.status_code == 200, revoked.text
    response = post_mcp(base, report["accessToken"])
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith('Bearer error="invalid_token"')


async def python_sdk_calls(url: str, token: str, wire: Wire) -> None:
    async with connect(url, token=token, scheme="Bearer", mode="legacy", wire=wire) as client:
        listed = await client.list_tools()
        assert sorted(tool.name for tool in listed.tools) == [
            "notes_list",
            "whoami",
            "whoami_again",
        ]
        result = await client.call_tool("whoami", {})
        assert result.structured_content == {"username": "alice", "scope": "notes:read"}


# -- refused tokens, on the wire ---------------------------------------------------------------


def post_mcp(base: str, token: str | None, message: dict | None = None) -> httpx2.Response:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    message = message or {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    return httpx2.post(f"{base}/mcp", json=message, headers=headers, timeout=30)


CHALLENGE = (
    'Bearer error="invalid_token", scope="notes:read", '
    'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
)


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("expired", "The access token has expired."),
        ("other_audience", "The access token is not valid for this resource."),
        (
            "unbound",
            "The access token names no resource (RFC 8707): it was not issued for this server.",
        ),
    ],
)
def test_a_token_not_for_this_resource_now_is_refused_with_401(oauth_server, name, detail):
    base, fixture = oauth_server
    response = post_mcp(base, fixture["tokens"][name])
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == CHALLENGE.format(base=base)
    error = response.json()["error"]
    assert error == {"code": -32001, "message": detail}
    assert fixture["tokens"][name] not in response.text


@pytest.mark.parametrize("header", ["Host", "X-Forwarded-Host"])
def test_the_audience_is_the_public_url_whatever_host_the_client_names(oauth_server, header):
    # The server believes X-Forwarded-Host and admits any Host (tests/oauth_app/settings.py):
    # a token for another resource server stays refused, and no document names that host.
    base, fixture = oauth_server
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    headers["Authorization"] = f"Bearer {fixture['tokens']['other_host']}"
    headers[header] = "other-rs.example"
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = httpx2.post(f"{base}/mcp", json=message, headers=headers, timeout=30)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == CHALLENGE.format(base=base)
    assert response.json()["error"]["message"] == "The access token is not valid for this resource."
    evil = {header: "evil.example"}
    for path in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ):
        document = httpx2.get(f"{base}{path}", headers=evil, timeout=30).json()
        assert document["resource"] == f"{base}/mcp"
        assert document["authorization_servers"] == [base]
    anonymous = httpx2.post(f"{base}/mcp", json=message, headers=evil, timeout=30)
    assert "evil.example" not in anonymous.headers["www-authenticate"]


def test_the_good_minted_token_lists_what_its_scope_opens(oauth_server):
    base, fixture = oauth_server
    response = post_mcp(base, fixture["tokens"]["good"])
    assert response.status_code == 200
    names = sorted(tool["name"] for tool in response.json()["result"]["tools"])
    assert names == ["notes_list", "whoami", "whoami_again"]


def test_an_under_scoped_token_is_answered_403_insufficient_scope(oauth_server):
    base, fixture = oauth_server
    token = fixture["tokens"]["under_scoped"]
    listed = post_mcp(base, token)
    assert sorted(tool["name"] for tool in listed.json()["result"]["tools"]) == [
        "whoami",
        "whoami_again",
    ]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "notes_list"}}
    refused = post_mcp(base, token, call)
    assert refused.status_code == 403
    assert refused.headers["www-authenticate"] == (
        f'Bearer error="insufficient_scope", scope="notes:read", '
        f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
    )
    assert (
        refused.json()["error"]["message"] == "Insufficient scope: this needs the scopes notes:read"
    )
    # Staff-only as well: no step-up helps, so it stays an unknown tool.
    call["params"]["name"] = "notes_report"
    assert post_mcp(base, token, call).json()["error"]["message"] == "Unknown tool: notes_report"


def test_the_metadata_documents(oauth_server):
    base, _ = oauth_server
    resource = httpx2.get(f"{base}/.well-known/oauth-protected-resource/mcp", timeout=30)
    assert resource.status_code == 200
    assert resource.headers["access-control-allow-origin"] == "*"
    assert resource.json() == {
        "resource": f"{base}/mcp",
        "authorization_servers": [base],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["notes:read"],
        "resource_name": "Test server",
    }
    notes = httpx2.get(f"{base}/.well-known/oauth-protected-resource/notes/mcp", timeout=30)
    assert notes.json()["resource"] == f"{base}/notes/mcp"
    assert notes.json()["scopes_supported"] == ["notes:read", "notes:write"]
    root = httpx2.get(f"{base}/.well-known/oauth-protected-resource", timeout=30)
    assert root.json()["resource"] == f"{base}/mcp"
    assert httpx2.get(f"{base}/.well-known/oauth-protected-resource/t/whoami").status_code == 404
    issuer = httpx2.get(f"{base}/.well-known/oauth-authorization-server", timeout=30).json()
    assert issuer["issuer"] == base
    assert issuer["client_id_metadata_document_supported"] is True
    assert issuer["registration_endpoint"] == f"{base}/register/"
    assert issuer["code_challenge_methods_supported"] == ["S256"]


# -- the conformance suite's authorization-server scenarios, against DOT ----------------------


def test_the_conformance_authorization_server_scenarios_pass(oauth_server, tmp_path):
    """authorization-server-metadata-endpoint and authorization-code-grant (0.2.0-alpha.12),
    with the pre-registered public client; this test plays the user at the consent page."""
    base, fixture = oauth_server
    binary = node_tool("next", "node_modules", ".bin", "conformance")
    port = fixture["callback"].rsplit(":", 1)[1].split("/")[0]
    command = [str(binary), "authorization", "--url", base, "--client-id", fixture["client_id"]]
    command += ["--resource", f"{base}/mcp", "--port", port, "-o", str(tmp_path)]
    env = {**os.environ, "PATH": f"{binary.parent}:{os.environ['PATH']}", "HOME": str(tmp_path)}
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    seen = []
    try:
        for line in process.stdout:
            seen.append(line)
            if line.startswith(f"{base}/authorize/?"):
                redirected = approve(base, line.strip())
                assert redirected.startswith(fixture["callback"]), redirected
                httpx2.get(redirected, timeout=30)  # the suite's callback server takes it
                break
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    output = "".join(seen) + out
    assert process.returncode == 0, output
    statuses = {}
    for checks in tmp_path.glob("*/checks.json"):
        for check in json.loads(checks.read_text()):
            statuses[check["id"]] = check["status"]
    assert statuses == {
        "authorization-server-metadata": "SUCCESS",
        "authorization-server-metadata-cimd": "SUCCESS",
        "authorization-code-grant": "SUCCESS",
    }, output


# -- the Python SDK's own OAuth client ---------------------------------------------------------


class _MemoryStorage:
    def __init__(self) -> None:
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info) -> None:
        self.client = client_info


def test_the_python_sdks_oauth_client_registers_and_calls_tools(oauth_server):
    """mcp.client.auth.OAuthClientProvider: discovery from the 401, DCR, PKCE, resource,
    the RFC 9207 iss check; this test plays the user."""
    from urllib.parse import parse_qs, urlsplit

    from mcp import Client
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

    base, fixture = oauth_server
    storage = _MemoryStorage()
    redirected: list[str] = []

    async def redirect_handler(url: str) -> None:
        redirected.append(await anyio.to_thread.run_sync(approve, base, url))

    async def callback_handler() -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(redirected[-1]).query)
        return AuthorizationCodeResult(
            code=query["code"][0], state=query["state"][0], iss=query.get("iss", [None])[0]
        )

    metadata = OAuthClientMetadata(
        client_name="django-mcp-tools-tests (Python SDK)",
        redirect_uris=[fixture["callback"]],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    auth = OAuthClientProvider(f"{base}/mcp", metadata, storage, redirect_handler, callback_handler)

    async def run():
        http = httpx2.AsyncClient(auth=auth, timeout=30)
        transport = streamable_http_client(f"{base}/mcp", http_client=http)
        async with http, Client(transport, mode="legacy") as client:
            listed = await client.list_tools()
            result = await client.call_tool("whoami", {})
        return sorted(tool.name for tool in listed.tools), result

    names, result = anyio.run(run)
    assert names == ["notes_list", "whoami", "whoami_again"]
    assert result.structured_content == {"username": "alice", "scope": "notes:read"}
    assert storage.tokens.scope == "notes:read"
    assert len(redirected) == 1 and "iss=" in redirected[0]


# -- an external authorization server, through introspection ----------------------------------


def test_a_resource_server_introspects_tokens_of_an_external_authorization_server(
    oauth_server, tmp_path
):
    """docs/oauth.md's external set-up: a second server, with no tokens of its own, checks
    the first server's tokens at its RFC 7662 endpoint (DOT's introspection)."""
    authorization_server, fixture = oauth_server
    settings = "tests.oauth_app.external_settings"
    env = {"MCP_TESTS_AUTHORIZATION_SERVER": authorization_server}
    with serve("uvicorn", settings=settings, env=env) as base:
        minted = subprocess.run(
            [sys.executable, "manage.py", "oauth_fixture", "--external-resource", f"{base}/mcp"],
            cwd=REPO,
            env={
                **os.environ,
                "DJANGO_SETTINGS_MODULE": SETTINGS,
                DATABASE_ENV: fixture["database"],
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        token = json.loads(minted.stdout)["tokens"]["external"]
        metadata = httpx2.get(f"{base}/.well-known/oauth-protected-resource/mcp", timeout=30)
        assert metadata.json()["authorization_servers"] == [authorization_server]
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami"}}
        answered = post_mcp(base, token, call)
        assert answered.status_code == 200, answered.text
        # No MCP-Protocol-Version header: 2025-03-26, where the JSON travels as text.
        text = answered.json()["result"]["content"][0]["text"]
        assert json.loads(text) == {"username": "alice", "scope": "notes:read"}
        # A token of the same authorization server for its own endpoint: another audience.
        refused = post_mcp(base, fixture["tokens"]["good"])
        assert refused.status_code == 401
        assert (
            refused.json()["error"]["message"] == "The access token is not valid for this resource."
        )
