"""Real services for the tests: a private PostgreSQL, a private Redis, a headless Chromium.

Each is started once per session, on 127.0.0.1 and a free port, in a temporary directory,
and stopped by its PID at the end of the session (failed or not), its directory removed.
The binaries come from Debian's packages, which `make services` installs; when one is
missing, the fixtures fail and name that target: they never skip, so CI cannot go green
without them. Loaded from tests/conftest.py as a plugin; tests that use any of these
fixtures are marked ``services`` (``pytest -m "not services"`` leaves them out).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bench.services import stop  # one way to stop a server, for the bench and the tests
from tests.conformance_app.server import free_port

if TYPE_CHECKING:
    from selenium.webdriver import Chrome

INSTALL_HINT = "run `make services` (it installs Debian's postgresql, redis-server, chromium)"
STARTUP_TIMEOUT = 30.0

# What the machine's closed network needs: without the background-networking flags Chromium
# keeps trying to reach Google's hosts; /dev/shm may be small in a container; root needs
# --no-sandbox.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
)
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

SERVICE_FIXTURES = {"postgres", "redis", "chromium", "browser"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses a service fixture, directly or through another fixture."""
    for item in items:
        if SERVICE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.services)


# Helpers ------------------------------------------------------------------------------------


def require(path: str | None, what: str) -> str:
    """Return ``path`` if it is an executable file; fail the test naming the Make target."""
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"{what} not found: {INSTALL_HINT}", pytrace=False)
    return path


def log_tail(path: Path, lines: int = 20) -> str:
    """Return the last lines of a server's log, for a failure message."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def wait_until_ready(
    process: subprocess.Popen, ready: Callable[[], bool], log: Path, what: str
) -> None:
    """Poll ``ready`` until it is true; raise with the log if the process exits or it times out.

    A listening port is not enough: PostgreSQL accepts connections before it can serve them.
    """
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}:\n{log_tail(log)}")
        if ready():
            return
        time.sleep(0.1)
    raise TimeoutError(f"{what} not ready after {STARTUP_TIMEOUT} s:\n{log_tail(log)}")


@dataclass(frozen=True)
class Account:
    """The unprivileged user a server runs as, and the keyword arguments that switch to it."""

    name: str
    uid: int
    gid: int

    @classmethod
    def for_server(cls, name: str = "postgres") -> Account:
        """Return ``name`` when we are root (initdb refuses root), else the current user."""
        if os.geteuid() != 0:
            entry = pwd.getpwuid(os.geteuid())
            return cls(entry.pw_name, entry.pw_uid, entry.pw_gid)
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            pytest.fail(f"no {name!r} user to run the server as: {INSTALL_HINT}", pytrace=False)
        return cls(entry.pw_name, entry.pw_uid, entry.pw_gid)

    def popen_kwargs(self) -> dict[str, Any]:
        if os.geteuid() != 0:
            return {}
        # Drop root's supplementary groups too, not only the uid and gid.
        return {"user": self.uid, "group": self.gid, "extra_groups": []}

    def own(self, path: Path) -> None:
        if os.geteuid() == 0:
            os.chown(path, self.uid, self.gid)


# PostgreSQL ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Postgres:
    """A running private PostgreSQL: where it listens and how to log in."""

    host: str
    port: int
    user: str
    password: str
    dbname: str

    def conninfo(self, dbname: str | None = None) -> str:
        """Return a libpq connection string (for psycopg)."""
        return (
            f"host={self.host} port={self.port} user={self.user} "
            f"password={self.password} dbname={dbname or self.dbname}"
        )

    def environ(self) -> dict[str, str]:
        """Return the variables tests/scale_settings.py reads its database from."""
        return {
            "MCP_TESTS_POSTGRES_HOST": self.host,
            "MCP_TESTS_POSTGRES_PORT": str(self.port),
            "MCP_TESTS_POSTGRES_USER": self.user,
            "MCP_TESTS_POSTGRES_PASSWORD": self.password,
            "MCP_TESTS_POSTGRES_NAME": self.dbname,
        }


def postgres_bindir() -> Path:
    """Return the bin directory of the newest PostgreSQL Debian has installed."""

    def version(initdb: str) -> int:
        name = Path(initdb).parents[1].name  # /usr/lib/postgresql/<major>/bin/initdb
        return int(name) if name.isdigit() else 0

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    initdb = found[-1] if found else shutil.which("initdb")
    return Path(require(initdb, "PostgreSQL (initdb in /usr/lib/postgresql/*/bin)")).parent


def _postgres_ready(server: Postgres) -> bool:
    import psycopg

    try:
        with psycopg.connect(server.conninfo("postgres"), connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """Yield a private PostgreSQL on 127.0.0.1 with an empty database, for the session."""
    with private_postgres() as server:
        yield server


@contextlib.contextmanager
def private_postgres() -> Iterator[Postgres]:
    """Run a private PostgreSQL on 127.0.0.1 with an empty database for a ``with`` block
    (the session's ``postgres``, and bench/tasks.py's).

    initdb and postgres run as the ``postgres`` user when we are root; the cluster lives in
    a temporary directory, listens on TCP only (no Unix socket), and takes a random password.
    Durability is off: the data is thrown away at the end.
    """
    bindir = postgres_bindir()
    account = Account.for_server()
    # Not pytest's tmp_path: its parents are private to root, and the server is not root.
    root = Path(tempfile.mkdtemp(prefix="mcp-tools-postgres-"))
    try:
        account.own(root)
        data, log, pwfile = root / "data", root / "postgres.log", root / "password"
        server = Postgres("127.0.0.1", free_port(), "mcp", secrets.token_hex(16), "mcp_tools")
        pwfile.write_text(server.password + "\n")
        account.own(pwfile)
        initdb = subprocess.run(
            [
                bindir / "initdb",
                "--pgdata",
                data,
                "--username",
                server.user,
                "--pwfile",
                pwfile,
                "--auth",
                "scram-sha-256",
                "--encoding",
                "UTF8",
                "--locale",
                "C",
                "--no-sync",
                "--no-instructions",
            ],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            **account.popen_kwargs(),
        )
        if initdb.returncode:
            raise RuntimeError(f"initdb exited with {initdb.returncode}:\n{initdb.stderr}")
        with log.open("wb") as out:
            process = subprocess.Popen(
                [
                    bindir / "postgres",
                    "-D",
                    data,
                    "-c",
                    f"listen_addresses={server.host}",
                    "-c",
                    f"port={server.port}",
                    "-c",
                    "unix_socket_directories=",
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                ],
                cwd=root,
                stdout=out,
                stderr=subprocess.STDOUT,
                **account.popen_kwargs(),
            )
        try:
            wait_until_ready(process, lambda: _postgres_ready(server), log, "PostgreSQL")
            _create_database(server)
            yield server
        finally:
            # SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to leave.
            stop(process, signal.SIGINT)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _create_database(server: Postgres) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(server.conninfo("postgres"), autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(server.dbname)))


# Redis --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Redis:
    """A running private Redis."""

    host: str
    port: int

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def environ(self) -> dict[str, str]:
        """Return the variables tests/scale_settings.py reads its cache from."""
        return {"MCP_TESTS_REDIS_URL": self.url}

    def client(self) -> Any:
        """Return a redis-py client of this server."""
        import redis

        return redis.Redis(host=self.host, port=self.port, socket_timeout=5)


@pytest.fixture(scope="session")
def redis() -> Iterator[Redis]:
    """Yield a private Redis on 127.0.0.1, in memory only (no RDB, no AOF), for the session."""
    binary = require(shutil.which("redis-server"), "redis-server")
    root = Path(tempfile.mkdtemp(prefix="mcp-tools-redis-"))
    try:
        server = Redis("127.0.0.1", free_port())
        log = root / "redis.log"
        command = [
            binary,
            "--port",
            str(server.port),
            "--bind",
            server.host,
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            str(root),
        ]
        with log.open("wb") as out:
            process = subprocess.Popen(command, cwd=root, stdout=out, stderr=subprocess.STDOUT)
        try:
            client = server.client()
            wait_until_ready(process, lambda: _redis_ready(client), log, "Redis")
            client.close()
            yield server
        finally:
            stop(process)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _redis_ready(client: Any) -> bool:
    import redis

    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


# Chromium -----------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    """Return the PIDs of ``pid``'s living descendants, read from /proc."""
    parents: dict[int, list[int]] = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        with contextlib.suppress(OSError):
            # The command name, in parentheses, may hold spaces: split after it.
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                parents.setdefault(int(fields[1]), []).append(int(Path(stat).parts[2]))
    found, queue = [], [pid]
    while queue:
        for child in parents.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.fixture(scope="session")
def chromium() -> Iterator[Chrome]:
    """Yield a Selenium driver of Debian's headless Chromium, for the session.

    Selenium, not Playwright: Playwright's sync API leaves an asyncio loop running in the
    main thread, which breaks every later ``asyncio.run`` (the SDK tests) and Django's
    async-unsafe guard. chromedriver is given by path, so Selenium Manager never runs (it
    would download one). The profile is a fresh directory, removed at the end.
    """
    require(CHROMIUM, "Chromium (/usr/bin/chromium)")
    require(CHROMEDRIVER, "ChromeDriver (/usr/bin/chromedriver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = Path(tempfile.mkdtemp(prefix="mcp-tools-chromium-"))
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    service = Service(CHROMEDRIVER, log_output=str(profile.with_suffix(".log")))
    driver = None
    try:
        driver = webdriver.Chrome(options=options, service=service)
        driver.set_page_load_timeout(30)
        yield driver
    finally:
        browsers = _children(service.process.pid) if service.process else []
        if driver is not None:
            driver.quit()
        service.stop()
        # quit() asks chromedriver to close Chromium; make sure every process of it is gone.
        deadline = time.monotonic() + 10
        while any(map(_alive, browsers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in filter(_alive, browsers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(profile, ignore_errors=True)
        profile.with_suffix(".log").unlink(missing_ok=True)


@pytest.fixture
def browser(live_server: Any, chromium: Chrome) -> Iterator[Chrome]:
    """Yield the session's Chromium with no cookies or storage left from an earlier test
    (admin keeps its theme in localStorage: a test that chose dark must not darken the next,
    whichever module it is from and whichever order a pytest-xdist worker runs them in).

    It takes ``live_server`` first so that the session's live server starts before Chromium
    and stops after it: Chromium keeps idle keep-alive connections to the server, which
    would be left unclosed (a ResourceWarning, an error here) if the server stopped first.
    """
    yield chromium
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
    chromium.execute_cdp_cmd(
        "Storage.clearDataForOrigin",
        {"origin": live_server.url, "storageTypes": "local_storage,session_storage"},
    )
    chromium.get("about:blank")
