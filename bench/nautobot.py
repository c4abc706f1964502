"""Nautobot exposed whole through mcp_tools, measured with the official MCP SDK client (#39).

NetBox is not on this machine's package index; Nautobot, a NetBox fork with the same DRF API
shapes, is, so it stands in. This script, run with any ``python3`` (``make bench-nautobot``):

1. creates ``bench/.venv-nautobot`` (Python 3.12: nautobot 3.2.7, this package editable,
   httpx, gunicorn) once, and runs itself again inside it;
2. starts a private PostgreSQL whose data directory is kept in ``bench/.nautobot-data``
   (migrated once per machine: ``migrate`` runs only when its marker is missing) and a
   private in-memory Redis, both on 127.0.0.1 and free ports, stopped by their PIDs;
3. runs ``nautobot-server check`` and keeps its output, seeds a device and its place
   (bench/nautobot/seed.py), serves Nautobot with gunicorn (bench/nautobot/nautobot_config.py:
   ``mcp_tools`` installed, ``EXPOSE_PATHS: ["api/"]``, /mcp in the URLconf);
4. with ``mcp.Client`` over Streamable HTTP, as a superuser and as a user who may view seven
   models: every page of ``tools/list`` (status, count), the catalog's size, the warm full
   listing's time, and five calls a network engineer's agent makes.

It prints one JSON report on stdout (progress goes to stderr) and exits 1 when a step failed.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import secrets
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
VENV = BENCH / ".venv-nautobot"
DATA = BENCH / ".nautobot-data"
CONFIG_DIR = BENCH / "nautobot"
NAUTOBOT = "nautobot==3.2.7"
HOST = "127.0.0.1"
LISTING_REPS = 3


def log(message: str) -> None:
    print(f"[nautobot] {message}", file=sys.stderr, flush=True)


# The venv ------------------------------------------------------------------------------------


def python312() -> str:
    found = sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"))
    for candidate in [*(str(path) for path in reversed(found)), "python3.12"]:
        try:
            subprocess.run([candidate, "-V"], check=True, capture_output=True)
            return candidate
        except (OSError, subprocess.CalledProcessError):
            continue
    raise SystemExit("no Python 3.12 (pyenv's ~/.pyenv/versions/3.12*/bin/python3.12)")


def ensure_venv() -> None:
    """Create the venv once, then run this script inside it."""
    marker = VENV / ".installed"
    python = VENV / "bin" / "python"
    if not marker.exists():
        log(f"creating {VENV.relative_to(ROOT)} ({NAUTOBOT}, this package, httpx, gunicorn)")
        subprocess.run([python312(), "-m", "venv", VENV], check=True)
        pip = [python, "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, NAUTOBOT, "-e", ROOT, "httpx", "gunicorn"], check=True)
        marker.touch()
    if Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(python, [str(python), __file__, *sys.argv[1:]])


# PostgreSQL, kept; Redis, in memory ----------------------------------------------------------


def postgres_bindir() -> Path:
    """Return the bin directory of the newest PostgreSQL Debian has installed."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not found:
        raise SystemExit("no PostgreSQL: apt-get install postgresql (or `make services`)")
    return found[-1].parent


def postgres_account() -> dict:
    """Popen's keywords that run a server as ``postgres`` when we are root (initdb refuses
    root), as tests/services.py does; nothing otherwise."""
    if os.geteuid() != 0:
        return {}
    entry = pwd.getpwnam("postgres")
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def own(path: Path) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam("postgres")
        os.chown(path, entry.pw_uid, entry.pw_gid)


def start_postgres(environ: dict[str, str]) -> subprocess.Popen:
    """Start PostgreSQL on ``DATA`` (initdb'd the first time) and a free port."""
    from bench.services import free_port

    bindir = postgres_bindir()
    as_postgres = postgres_account()
    pgdata = DATA / "pg"
    password_file = DATA / "password"
    if not (pgdata / "PG_VERSION").exists():
        log(f"initdb {pgdata.relative_to(ROOT)}")
        DATA.mkdir(exist_ok=True)
        own(DATA)
        password_file.write_text(secrets.token_hex(16) + "\n")
        own(password_file)
        subprocess.run(
            [
                *(bindir / "initdb", "--pgdata", pgdata, "--username", "nautobot"),
                *("--pwfile", password_file, "--auth", "scram-sha-256", "--encoding", "UTF8"),
                *("--locale", "C", "--no-sync", "--no-instructions"),
            ],
            check=True,
            capture_output=True,
            **as_postgres,
        )
        (DATA / "created").touch()
    port = free_port()
    out = (DATA / "postgres.log").open("ab")
    own(DATA / "postgres.log")
    process = subprocess.Popen(
        [
            *(bindir / "postgres", "-D", pgdata, "-c", f"listen_addresses={HOST}"),
            *("-c", f"port={port}", "-c", "unix_socket_directories="),
            *("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"),
        ],
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        **as_postgres,
    )
    environ["NAUTOBOT_BENCH_PG_PORT"] = str(port)
    environ["NAUTOBOT_BENCH_PG_PASSWORD"] = password_file.read_text().strip()
    ready = [bindir / "pg_isready", "-q", "-h", HOST, "-p", str(port)]
    deadline = time.monotonic() + 30
    while subprocess.run(ready).returncode != 0:
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"PostgreSQL did not start: see {DATA / 'postgres.log'}")
        time.sleep(0.2)
    if (DATA / "created").exists():
        import psycopg2

        connection = psycopg2.connect(
            host=HOST,
            port=port,
            user="nautobot",
            password=environ["NAUTOBOT_BENCH_PG_PASSWORD"],
            dbname="postgres",
        )
        connection.autocommit = True
        connection.cursor().execute("CREATE DATABASE nautobot")
        connection.close()
        (DATA / "created").unlink()
    return process


# nautobot-server -----------------------------------------------------------------------------


def server_command(*args: str) -> list[str]:
    return [
        str(VENV / "bin" / "nautobot-server"),
        "--config",
        str(CONFIG_DIR / "nautobot_config.py"),
        *args,
    ]


def run(environ: dict[str, str], *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run(
        server_command(*args), env=environ, capture_output=True, text=True, timeout=timeout
    )


CHECK_ID = re.compile(r"\(([\w.]+\.[CEWID]\d+)\)")


def check(environ: dict[str, str]) -> dict:
    done = run(environ, "check")
    output = done.stdout + done.stderr
    counts: dict[str, int] = {}
    for found in CHECK_ID.findall(output):
        counts[found] = counts.get(found, 0) + 1
    return {"returncode": done.returncode, "ids": counts, "output": output.strip().splitlines()}


def gunicorn(environ: dict[str, str], port: int, logfile: Path) -> subprocess.Popen:
    command = [
        *(str(VENV / "bin" / "gunicorn"), "--bind", f"{HOST}:{port}", "--workers", "1"),
        *("--threads", "4", "--timeout", "300", "--log-level", "warning"),
        "nautobot.core.wsgi:application",
    ]
    out = logfile.open("wb")
    process = subprocess.Popen(
        command, env=environ, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
    )
    import httpx

    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"http://{HOST}:{port}/api/", timeout=5)
            return process
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                tail = logfile.read_text()[-3000:]
                raise RuntimeError(f"gunicorn did not start:\n{tail}") from None
            time.sleep(0.5)


# The measures, with the official SDK ---------------------------------------------------------


class Wire:
    """Each tools/list POST's status, as the SDK client's HTTP client saw it."""

    def __init__(self) -> None:
        self.statuses: list[tuple[str, int]] = []

    async def hook(self, response) -> None:
        body = response.request.content
        method = json.loads(body).get("method", "") if body else ""
        self.statuses.append((method, response.status_code))


def connect(url: str, token: str, wire: Wire):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Token {token}"},
        event_hooks={"response": [wire.hook]},
        timeout=120,
    )
    return http, Client(streamable_http_client(url, http_client=http), mode="auto")


async def full_listing(client) -> tuple[list, list[int]]:
    tools, counts, cursor = [], [], None
    while True:
        # "bypass": the SDK client keeps a cursorless page, which would time nothing.
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
        tools.extend(page.tools)
        counts.append(len(page.tools))
        cursor = page.next_cursor
        if cursor is None:
            return tools, counts


def catalog_size(tools: list) -> dict:
    text = json.dumps(
        [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]
    )
    return {"characters": len(text), "tokens_estimate": len(text) // 4}


async def listing(url: str, token: str, seed: dict | None = None) -> tuple[dict, list]:
    """List every page as the token's user, cold then warm; with ``seed``, make the five
    calls in the same session (so the client validates their structured content)."""
    wire = Wire()
    http, client = connect(url, token, wire)
    made = None
    async with http, client:
        started = time.perf_counter()
        tools, counts = await full_listing(client)
        first = time.perf_counter() - started
        statuses = [status for method, status in wire.statuses if method == "tools/list"]
        timings = []
        for _ in range(LISTING_REPS):
            started = time.perf_counter()
            await full_listing(client)
            timings.append(time.perf_counter() - started)
        if seed is not None:
            made = await calls(client, tools, seed)
    report = {
        "tools": len(tools),
        "pages": [{"status": s, "tools": c} for s, c in zip(statuses, counts, strict=False)],
        **catalog_size(tools),
        "first_full_listing_ms": round(first * 1000, 1),
        "warm_full_listing_ms_median": round(statistics.median(timings) * 1000, 1),
        "warm_full_listing_ms_each": [round(t * 1000, 1) for t in timings],
    }
    if made is not None:
        report["calls"] = made
    return report, tools


TASKS = BENCH / "discovery" / "tasks.json"
PAGE_REPS = 10


async def discovery(url: str, token: str, limited_token: str) -> dict:
    """Discovery mode over HTTP, beside the full listing in the same run: what it lists, a
    search of each labelled request (bench/discovery/tasks.json) timed against a
    ``tools/list`` page of the full endpoint, a found tool called through ``call_tool`` and
    by its name; and, as the limited user, a tool hidden from it neither found nor called."""
    queries = [task["query"] for task in json.loads(TASKS.read_text())["tasks"]]
    http, client = connect(url, token, Wire())
    async with http, client:
        page_times = []
        for _ in range(PAGE_REPS):
            started = time.perf_counter()
            await client.list_tools(cache_mode="bypass")
            page_times.append(time.perf_counter() - started)
    http, client = connect(url + "-discovery", token, Wire())
    async with http, client:
        listed = (await client.list_tools(cache_mode="bypass")).tools
        search_times, found = [], 0
        for query in queries:
            started = time.perf_counter()
            result = await client.call_tool("search_tools", {"query": query})
            search_times.append(time.perf_counter() - started)
            found += bool(result.structured_content["tools"])
        called = await client.call_tool(
            "call_tool", {"name": "device_list", "arguments": {"limit": 1}}
        )
        direct = await client.call_tool("device_list", {"limit": 1})
    return {
        "tools": [tool.name for tool in listed],
        **catalog_size(listed),
        "searches": len(queries),
        "searches_with_a_match": found,
        "search_ms_p50": round(statistics.median(search_times) * 1000, 1),
        "full_listing_page_ms_p50": round(statistics.median(page_times) * 1000, 1),
        "call_tool_device_list_is_error": called.is_error,
        "device_list_by_name_is_error": direct.is_error,
        "hidden_from_limited": await hidden(url + "-discovery", limited_token, "device_create"),
    }


async def hidden(url: str, token: str, name: str) -> dict:
    """Search for and call ``name``, a tool the caller may not call, through ``call_tool`` and
    by its name: what each answered (found must be false, both refused as unknown)."""
    http, client = connect(url, token, Wire())
    async with http, client:
        result = await client.call_tool("search_tools", {"query": "create a device", "limit": 20})
        found = name in [tool["name"] for tool in result.structured_content["tools"]]
        answers = {}
        for way, (tool, arguments) in {
            "call_tool": ("call_tool", {"name": name, "arguments": {}}),
            "by_name": (name, {}),
        }.items():
            try:
                answered = await client.call_tool(tool, arguments)
            except Exception as error:  # the SDK raises the JSON-RPC error: Unknown tool
                answers[way] = f"{type(error).__name__}: {error}"
            else:
                answers[way] = f"ran (is_error {answered.is_error})"
    refused = all(answer.endswith(f"Unknown tool: {name}") for answer in answers.values())
    return {"tool": name, "found": found, **answers, "hidden": refused and not found}


def pick(tools: list, *candidates: str) -> str | None:
    names = {tool.name for tool in tools}
    return next((name for name in candidates if name in names), None)


def outcome(result) -> dict:
    text = "".join(getattr(block, "text", "") for block in result.content)
    return {
        "is_error": bool(result.is_error),
        "structured": result.structured_content is not None,
        "text_characters": len(text),
        "text_start": text[:300],
    }


async def calls(client, tools: list, seed: dict) -> list[dict]:
    from mcp import MCPError

    by_name = {tool.name: tool for tool in tools}

    plan = [
        (
            "devices at a site",
            pick(tools, "device_list", "dcim_devices_list"),
            {"location": [seed["location"]["name"]]},
        ),
        (
            "one device",
            pick(tools, "device_retrieve", "dcim_devices_retrieve"),
            {"pk": seed["device"]["id"]},
        ),
        (
            "a device's interfaces",
            pick(tools, "interface_list", "dcim_interfaces_list"),
            {"device": [seed["device"]["name"]]},
        ),
        (
            "an IP address",
            pick(tools, "ipaddress_list", "ipam_ip_addresses_list"),
            {"address": [seed["ip_address"]["address"].split("/")[0]]},
        ),
        (
            "a new location",
            pick(tools, "location_create", "dcim_locations_create"),
            {
                "name": f"bench-{secrets.token_hex(3)}",
                # Written as the schema asks: a related object by its id.
                "location_type": {"id": seed["location_type"]["id"]},
                "status": {"id": seed["status"]["id"]},
            },
        ),
    ]
    results = []
    for what, name, arguments in plan:
        entry: dict = {"call": what, "tool": name, "arguments": arguments}
        if name is None:
            entry["error"] = "no such tool in the listing"
            results.append(entry)
            continue
        entry["input_properties"] = len(by_name[name].input_schema.get("properties", {}))
        arguments = fit(arguments, by_name[name].input_schema)
        entry["arguments"] = arguments
        started = time.perf_counter()
        try:
            entry.update(outcome(await client.call_tool(name, arguments)))
        except MCPError as error:
            entry["mcp_error"] = {"code": error.code, "message": str(error)}
        except Exception as error:  # the finding, whatever it is
            entry["exception"] = f"{type(error).__name__}: {error}"
        entry["ms"] = round((time.perf_counter() - started) * 1000, 1)
        results.append(entry)
    return results


def fit(arguments: dict, schema: dict) -> dict:
    """Give each argument the shape the tool's schema asks for: a list or one value, and
    the body's fields inside ``body`` when the schema has one."""
    properties = schema.get("properties", {})
    if "body" in properties and not any(key in properties for key in arguments):
        return {"body": arguments}
    fitted = {}
    for key, value in arguments.items():
        kind = properties.get(key, {}).get("type")
        if isinstance(value, list) and kind != "array" and kind is not None:
            value = value[0]
        fitted[key] = value
    return fitted


# The run -------------------------------------------------------------------------------------


def main() -> int:
    ensure_venv()
    import asyncio

    sys.path.insert(0, str(ROOT))
    from bench.services import free_port, redis, stop

    report: dict = {"nautobot": NAUTOBOT.split("==")[1], "python": sys.version.split()[0]}
    environ = {
        **os.environ,
        "NAUTOBOT_CONFIG": str(CONFIG_DIR / "nautobot_config.py"),
        "PYTHONPATH": str(CONFIG_DIR),
    }
    postgres = start_postgres(environ)
    server = None
    try:
        with redis() as cache:
            environ["NAUTOBOT_BENCH_REDIS_PORT"] = str(cache.port)
            marker = DATA / f"migrated-{report['nautobot']}"
            if marker.exists():
                # Nautobot's migrations are done; this package's own may be new.
                done = run(environ, "migrate", "mcp_tools", "--no-input")
                report["migrate"] = "reused" if not done.returncode else done.stderr[-2000:]
            else:
                log("nautobot-server migrate (once per machine; minutes)")
                started = time.monotonic()
                done = run(environ, "migrate", "--no-input")
                report["migrate"] = {
                    "returncode": done.returncode,
                    "seconds": round(time.monotonic() - started),
                }
                if done.returncode:
                    report["migrate"]["tail"] = (done.stdout + done.stderr).splitlines()[-40:]
                    print(json.dumps(report, indent=2))
                    return 1
                marker.touch()
            log("nautobot-server check")
            report["check"] = check(environ)
            log("seeding")
            done = run(environ, "shell", "-c", (CONFIG_DIR / "seed.py").read_text())
            seeded = [line for line in done.stdout.splitlines() if line.startswith("SEED ")]
            if done.returncode or not seeded:
                report["seed"] = (done.stdout + done.stderr).splitlines()[-40:]
                print(json.dumps(report, indent=2))
                return 1
            seed = json.loads(seeded[0][5:])
            port = free_port()
            logfile = DATA / "gunicorn.log"
            log(f"gunicorn on {HOST}:{port}")
            server = gunicorn(environ, port, logfile)
            url = f"http://{HOST}:{port}/mcp"
            failed = False
            for user in ("admin", "limited"):
                log(f"tools/list as {user}")
                then = seed if user == "admin" else None
                try:
                    listed, tools = asyncio.run(listing(url, seed[f"{user}_token"], then))
                except Exception as error:
                    failed = True
                    listed, tools = {"exception": f"{type(error).__name__}: {error}"}, []
                if user == "admin":
                    report["calls"] = listed.pop("calls", None)
                    log("discovery mode as admin")
                    try:
                        report["discovery"] = asyncio.run(
                            discovery(url, seed["admin_token"], seed["limited_token"])
                        )
                        hid = report["discovery"]["hidden_from_limited"]
                        found = report["discovery"]
                        failed = failed or not hid["hidden"]
                        failed = failed or found["call_tool_device_list_is_error"]
                        failed = failed or found["device_list_by_name_is_error"]
                    except Exception as error:
                        failed = True
                        report["discovery"] = {"exception": f"{type(error).__name__}: {error}"}
                report[f"listing_{user}"] = listed
                catalog = DATA / f"catalog-{user}.json"
                catalog.write_text(json.dumps([tool.model_dump(mode="json") for tool in tools]))
            report["server_log_tail"] = logfile.read_text(errors="replace").splitlines()[-60:]
            failed = failed or any(call.get("is_error", True) for call in report.get("calls", [{}]))
    finally:
        if server is not None:
            stop(server)
        # SIGINT: PostgreSQL's fast shutdown; its data directory is kept for the next run.
        stop(postgres, signal.SIGINT)
    print(json.dumps(report, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
