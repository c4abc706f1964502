"""Every code sample of the README and the docs runs, or is checked for what it claims.

- The README's quickstart is replayed as a newcomer would: in an empty directory,
  ``django-admin startproject``, each file written as shown, each command run, the server
  started, and the SDK script, the Inspector command and the page's outputs compared.
- Samples marked ``live`` (the clients page, the client adapter) run against that project's
  server; ``quickstart-test`` ones run as the project's own pytest tests.
- Every other Python sample is executed in a namespace of the names the pages use without
  importing (``PRELUDE``) with fresh tool and resource registries: its imports must exist, its
  decorators accept their arguments, its settings name real keys and importable classes.
- JSON samples parse, and client configurations are what ``demo_project.clients`` (the
  source ``seed_demo`` and the demo's page print) makes for the same URL and token.
- Commands that are not run name real programs and options: ``manage.py`` commands through
  their own parsers, gunicorn and uvicorn through theirs, ``claude mcp add`` against the
  options of Claude Code's documentation, ``celery`` through Celery's own parsers, ``pip
  install`` against this package's extras.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from django.test import override_settings

from tests.conformance_app.server import REPO, free_port, node_tool, wait_for_port
from tests.docs_samples import (
    LOCAL_URL,
    PAGES,
    README,
    TOKEN,
    URL,
    Command,
    Sample,
    all_samples,
    matches,
    samples,
)
from tests.processes import stop

SAMPLES = all_samples()
RUN_ELSEWHERE = {"live", "quickstart-test", "peer", "compile"}

PRELUDE = """
from django.db import models
from django.urls import include, path
from rest_framework import filters, generics, permissions, serializers, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView
from mcp_tools import mcp_tool
from mcp_tools.views import MCPView
from demo_project.todos.models import Todo
from demo_project.todos.serializers import TodoSerializer
"""


def ids(found: list[Sample]) -> list[str]:
    return [sample.where for sample in found]


def of(language: str, *, readme: bool | None = False) -> list[Sample]:
    """The samples of ``language`` (``readme``: the README's only, or none of them) that no
    marker sends elsewhere."""
    return [
        sample
        for sample in SAMPLES
        if sample.language == language
        and (readme is None or (sample.page == README) == readme)
        and sample.marker not in RUN_ELSEWHERE
    ]


LANGUAGES_CHECKED = {"python", "json", "jsonc", "console", "bash", "javascript", "nginx", "text"}


def test_every_sample_has_a_language_this_module_checks():
    unknown = [s.where for s in SAMPLES if s.language not in LANGUAGES_CHECKED]
    assert not unknown, f"samples whose language nothing checks: {unknown}"
    assert len(SAMPLES) > 60 and len(PAGES) > 15


# Python fragments ----------------------------------------------------------------------------


def shop_app(monkeypatch) -> None:
    """The quickstart's `shop` app, which the migration guides import: its Order and
    OrderSerializer stand for the demo's todo model and serializer here."""
    import types

    from demo_project.todos.models import Todo
    from demo_project.todos.serializers import TodoSerializer

    for name, attributes in {
        "shop": {},
        "shop.models": {"Order": Todo},
        "shop.serializers": {"OrderSerializer": TodoSerializer},
        "shop.urls": {"router": None},
    }.items():
        module = types.ModuleType(name)
        module.__dict__.update(attributes)
        monkeypatch.setitem(sys.modules, name, module)


def with_database(found: list[Sample]) -> list:
    """The samples, those that show a test or a server's start-up (``warm_up()`` reads the
    admin state) marked to use the database (and a live server)."""
    marks = pytest.mark.django_db(transaction=True)
    uses = ("def test_", "mcp_tools.warm_up()")
    return [
        pytest.param(s, marks=marks) if any(use in s.text for use in uses) else s for s in found
    ]


@pytest.mark.parametrize("sample", with_database(of("python")), ids=ids(of("python")))
def test_python_sample_runs(sample, monkeypatch, request):
    from django.conf import settings as django_settings
    from django.utils.module_loading import import_string

    from mcp_tools.conf import DEFAULTS
    from mcp_tools.prompts import decorators as prompt_decorators
    from mcp_tools.prompts.registry import PromptRegistry
    from mcp_tools.resources import decorators as resource_decorators
    from mcp_tools.resources.registry import ResourceRegistry
    from mcp_tools.signals import tool_called
    from mcp_tools.tools import decorators
    from mcp_tools.tools.registry import ToolRegistry

    monkeypatch.setattr(decorators, "default_registry", ToolRegistry())
    monkeypatch.setattr(prompt_decorators, "prompt_registry", PromptRegistry())
    monkeypatch.setattr(resource_decorators, "default_registry", ResourceRegistry())
    shop_app(monkeypatch)
    namespace: dict = {"__name__": "docs_sample"}
    exec(compile(PRELUDE, "prelude", "exec"), namespace)
    before = set(namespace)
    try:
        exec(compile(sample.text, sample.where, "exec"), namespace)
    finally:
        for value in list(namespace.values()):
            if callable(value):
                tool_called.disconnect(value)
    assert set(namespace) - before or "@" in sample.text, "the sample defines nothing"
    # A test the page shows runs, with the fixtures it names (pytest-django's among them).
    for name, function in list(namespace.items()):
        if name.startswith("test_") and callable(function):
            arguments = function.__code__.co_varnames[: function.__code__.co_argcount]
            function(**{argument: request.getfixturevalue(argument) for argument in arguments})
    unknown = set(namespace.get("MCP_TOOLS", {})) - set(DEFAULTS)
    assert not unknown, f"MCP_TOOLS keys that do not exist: {unknown}"
    for key in ("DEFAULT_AUTHENTICATION_CLASSES", "DEFAULT_PERMISSION_CLASSES"):
        for dotted in namespace.get("REST_FRAMEWORK", {}).get(key, []):
            import_string(dotted)
    for alias in namespace.get("CACHES", {}).values():
        import_string(alias["BACKEND"])
    for database in namespace.get("DATABASES", {}).values():
        __import__(database["ENGINE"] + ".base")
    for app in namespace.get("INSTALLED_APPS", []):
        if isinstance(app, str) and app not in django_settings.INSTALLED_APPS:
            __import__(app)


# JSON ----------------------------------------------------------------------------------------


def client_configuration_problem(data: dict) -> str | None:
    """Return why a client configuration is not what demo_project.clients makes, or None."""
    from demo_project.clients import configurations

    servers = data.get("mcpServers") or data.get("servers")
    ((name, server),) = servers.items()
    url = server.get("url") or server.get("args", [None, None, None])[2]
    header = server.get("headers", {}).get("Authorization") or server.get("env", {}).get(
        "AUTH_HEADER"
    )
    scheme, key = header.split(" ", 1) if header else ("Bearer", None)
    made = configurations(url, key, name=name, scheme=scheme)
    made = [config.data for config in made if config.language == "json"]
    return None if data in made else f"not one of demo_project.clients' configurations: {made}"


@pytest.mark.parametrize("sample", of("json", readme=None), ids=ids(of("json", readme=None)))
def test_json_sample_parses(sample):
    data = json.loads(sample.text)
    if isinstance(data, dict) and ({"mcpServers", "servers"} & set(data)):
        assert client_configuration_problem(data) is None


@pytest.mark.parametrize("sample", of("jsonc"), ids=ids(of("jsonc")))
def test_jsonc_sample_parses(sample):
    text = re.sub(r"^\s*//.*$", "", sample.text, flags=re.MULTILINE)
    decoder = json.JSONDecoder()
    text = text.strip()
    while text:
        _, end = decoder.raw_decode(text)
        text = text[end:].strip()


# Commands that are not run -------------------------------------------------------------------

#: `claude mcp add`'s options, as Claude Code's MCP documentation lists them.
CLAUDE_MCP_ADD = {
    "--transport": {"http", "sse", "stdio"},
    "--scope": {"local", "project", "user"},
    "--header": None,
    "--env": None,
    "--client-id": None,
    "--client-secret": None,
    "--callback-port": None,
}


@functools.cache
def inspector_help() -> str:
    binary = node_tool("node_modules", ".bin", "mcp-inspector")
    done = subprocess.run(
        [str(binary), "--cli", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": tempfile.mkdtemp(prefix="mcp-tools-inspector-")},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def is_inspector(program: list[str]) -> bool:
    """Return whether ``program`` runs the Inspector through npx, pinned as the tests pin it.

    Unpinned, npx on a Node older than 22.19 quietly installs an old Inspector that refuses
    the options the docs use.
    """
    if program[:1] != ["npx"] or not program[1].startswith("@modelcontextprotocol/inspector"):
        return False
    pinned = re.search(r"@modelcontextprotocol/inspector@[\d.]+", (REPO / "Makefile").read_text())
    assert program[1] == pinned.group(0), f"pin the Inspector as the Makefile does: {pinned[0]}"
    return True


@functools.cache
def pytest_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def package_extras() -> dict[str, list[str]]:
    import tomllib

    with (REPO / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)["project"]["optional-dependencies"]


def check_celery(args: list[str]) -> None:
    """Parse ``celery [options] command [options]`` with Celery's own click commands (an
    app of its own for the option callbacks; ``-A`` is read, not imported)."""
    from celery import Celery
    from celery.bin.base import CLIContext
    from celery.bin.celery import celery

    app = Celery("docs", set_as_current=False)
    context = celery.make_context("celery", list(args), obj=CLIContext(app, True, None))
    at = next((n for n, word in enumerate(args) if word in celery.list_commands(context)), None)
    assert at is not None, f"celery has no command in {args}"
    command = celery.get_command(context, args[at])
    command.make_context(args[at], list(args[at + 1 :]), parent=context)
    app.close()


DATABASE_BACKEND = "django_tasks_db.DatabaseBackend"


def check_command(command: Command) -> None:
    program = command.program
    if program[:2] == ["python", "manage.py"] or program[0] == "django-admin":
        from django.core.management import get_commands, load_command_class

        name, args = (
            (program[2], program[3:]) if program[0] == "python" else (program[1], program[2:])
        )
        app = get_commands()[name]
        parser = load_command_class(app, name).create_parser("manage.py", name)
        if name == "db_worker":
            # Its worker serves the TASKS docs/tasks.md sets; the suite's default backend is
            # Django's ImmediateBackend, which db_worker refuses.
            # "mcp": the alias docs/tasks.md gives MCP tasks of their own (TASK_BACKEND).
            backends = {alias: {"BACKEND": DATABASE_BACKEND} for alias in ("default", "mcp")}
            with override_settings(TASKS=backends):
                parser.parse_args(args)
        else:
            parser.parse_args(args)
    elif program[:2] == ["pip", "install"]:
        from packaging.requirements import Requirement

        extras = set(package_extras()) - {"test", "dev"}
        for word in program[2:]:
            requirement = Requirement(word)
            assert requirement.name == "django-mcp-tools" and requirement.extras <= extras
    elif program[0] == "celery":
        check_celery(program[1:])
    elif program[0] == "gunicorn":
        from gunicorn.config import Config

        Config().parser().parse_args(program[1:])
    elif program[0] == "uvicorn":
        from uvicorn.main import main

        main.make_context("uvicorn", program[1:])
    elif program[:3] == ["claude", "mcp", "add"]:
        args = program[3:]
        positional = []
        while args:
            word = args.pop(0)
            if word.startswith("--"):
                assert word in CLAUDE_MCP_ADD, f"claude mcp add has no option {word}"
                value = args.pop(0)
                allowed = CLAUDE_MCP_ADD[word]
                assert allowed is None or value in allowed, f"{word} {value}"
            else:
                positional.append(word)
        assert len(positional) == 2, positional  # the name and the URL
    elif is_inspector(program):
        options = set(re.findall(r"(--[\w-]+)", inspector_help()))
        used = {word for word in program[2:] if word.startswith("--")} - {"--cli"}
        assert used <= options, f"the Inspector has no option {used - options}"
    elif program[0] == "make":
        makefile = (REPO / "Makefile").read_text()
        targets = re.findall(r"^([\w.-]+):", makefile, re.MULTILINE)
        for word in program[1:]:
            if "=" in word:  # a variable the Makefile reads: make bench BENCH_ARGS=--smoke
                assert f"$({word.split('=', 1)[0]})" in makefile, f"make reads no {word}"
            else:
                assert word in targets, f"make has no target {word}"
    elif program[0].endswith("bin/python") and program[1:3] == ["-m", "pytest"]:
        for word in program[3:]:
            if word.startswith("-"):
                assert word.split("=", 1)[0] in pytest_help(), f"pytest has no option {word}"
            else:
                assert (REPO / word.split("::", 1)[0]).exists(), f"no such test: {word}"
    elif program[0].endswith("bin/python") and program[1].startswith("bench/"):
        script = REPO / program[1]
        assert script.exists(), f"no such benchmark: {program[1]}"
        for word in program[2:]:
            if word.startswith("--"):
                assert f'"{word}"' in script.read_text(), f"{program[1]} has no option {word}"
    else:
        raise AssertionError(f"nothing checks this program: {program}")


COMMAND_SAMPLES = [s for s in SAMPLES if s.language in ("console", "bash") and s.page != README]
COMMAND_SAMPLES = [s for s in COMMAND_SAMPLES if s.marker not in RUN_ELSEWHERE]


@pytest.mark.parametrize("sample", COMMAND_SAMPLES, ids=ids(COMMAND_SAMPLES))
def test_command_sample_names_real_options(sample):
    commands = sample.commands()
    assert commands
    for command in commands:
        check_command(command)


def test_the_readmes_two_commands_are_make_targets():
    (block,) = [s for s in samples(README) if s.language == "bash"]
    for command in block.commands():
        check_command(command)


# The README's quickstart, replayed -----------------------------------------------------------


class Quickstart:
    """A newcomer's directory: the README's commands run and its files written in order."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.token = TOKEN
        self.server: subprocess.Popen | None = None
        self.env = {**os.environ, "PYTHONPATH": ""}
        self.env.pop("DJANGO_SETTINGS_MODULE", None)
        self.ran: list[tuple[list[str], str]] = []

    def substitute(self, text: str) -> str:
        for placeholder in (LOCAL_URL, URL):
            text = text.replace(placeholder, self.url)
        return text.replace(TOKEN, self.token)

    def write(self, sample: Sample) -> None:
        path = self.folder / sample.title
        text = self.substitute(sample.text)
        if text.startswith(f"# At the end of {sample.title}"):
            text = path.read_text() + "\n" + text
        path.write_text(text)

    def argv(self, command: Command) -> list[str] | None:
        program = command.program
        if program[:2] == ["pip", "install"]:
            check_command(command)  # the package is installed here already (editable)
            return None
        if program[0] == "python":
            program = [sys.executable, *program[1:]]
        elif program[0] == "django-admin":
            program = [sys.executable, "-m", "django", *program[1:]]
        elif is_inspector(program):
            program = [str(node_tool("node_modules", ".bin", "mcp-inspector")), *program[2:]]
        else:
            raise AssertionError(f"the quickstart runs only python and npx: {program}")
        if "createsuperuser" in program:
            program.append("--noinput")  # the password comes from the environment
        return [self.substitute(word) for word in program]

    def run(self, command: Command) -> None:
        argv = self.argv(command)
        if argv is None:
            return
        env = {**self.env, **command.environment, "DJANGO_SUPERUSER_PASSWORD": "alice-pw"}
        env["HOME"] = str(self.folder / ".home")  # the Inspector writes its settings there
        if "runserver" in argv:
            argv += ["--noreload", f"127.0.0.1:{self.port}"]
            self.log = (self.folder / "runserver.log").open("w")
            self.server = subprocess.Popen(
                argv, cwd=self.folder, env=env, stdout=self.log, stderr=self.log
            )
            wait_for_port(self.port, self.server, time.monotonic() + 60)
            return
        done = subprocess.run(
            argv, cwd=self.folder, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"{command.argv}:\n{done.stdout}\n{done.stderr}"
        if "drf_create_token" in argv:
            self.token = re.search(r"Generated token (\w+)", done.stdout).group(1)
        actual = [line for line in done.stdout.splitlines() if line.strip()]
        for expected, line in zip(command.output, actual, strict=False):
            assert matches(self.substitute(expected), line), (expected, line)
        assert len(actual) >= len(command.output), (command.output, actual)
        self.ran.append((argv, done.stdout))

    def replay(self, page: Path) -> None:
        text = page.read_text()
        start, end = text.index("[start:quickstart]"), text.index("[end:quickstart]")
        for sample in samples(page):
            offset = len("\n".join(text.splitlines()[: sample.line]))
            if not start < offset < end:
                continue
            if sample.language == "python" and sample.title:
                self.write(sample)
            elif sample.language == "console":
                for command in sample.commands():
                    self.run(command)

    def manage(self, *args: str) -> str:
        done = self.managed(*args)
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    def managed(self, *args: str, settings: str | None = None) -> subprocess.CompletedProcess:
        """``manage.py`` run in the project, under ``settings`` if given, whatever it exits with."""
        env = self.env if settings is None else {**self.env, "DJANGO_SETTINGS_MODULE": settings}
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=self.folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def close(self) -> None:
        if self.server is not None:
            stop(self.server)
            self.log.close()


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory):
    project = Quickstart(tmp_path_factory.mktemp("newcomer"))
    try:
        project.replay(README)
        yield project
    finally:
        project.close()


def test_the_readme_quickstart_runs_as_written(quickstart):
    programs = [" ".join(argv[1:3]) for argv, _ in quickstart.ran]
    assert "manage.py migrate" in programs and "call.py" in programs
    (inspector,) = [out for argv, out in quickstart.ran if "mcp-inspector" in argv[0]]
    listed = json.loads(inspector)
    assert listed["isError"] is False and listed["structuredContent"]["items"][0]["item"] == "Tea"
    # A new project following the README has nothing for the system checks to say.
    assert "System check identified no issues" in quickstart.manage("check")


def test_the_readme_production_settings_leave_only_djangos_deploy_checks(quickstart):
    """Past mcp_tools' checks (the README replays them with --tag), what `check --deploy`
    says of "Before the first deploy" is Django's own checklist (HTTPS, HSTS, the secret key)."""
    done = quickstart.managed("check", "--deploy", settings="mysite.production")
    said = set(re.findall(r"\((\w+\.[EWI]\d{3})\)", done.stdout + done.stderr))
    # SECURE_HSTS_SECONDS, SECURE_SSL_REDIRECT, SECRET_KEY, SESSION_ and CSRF_COOKIE_SECURE;
    # Django 6.1 adds an error of its own for startproject's console email backend (mail.E001).
    djangos = {"security.W004", "security.W008", "security.W009", "security.W012", "security.W016"}
    assert djangos <= said <= djangos | {"mail.E001"}, said
    assert done.returncode == (1 if "mail.E001" in said else 0), done.stderr
    # collectstatic gathered what admin needs once DEBUG is off, where the settings say.
    assert (quickstart.folder / "staticfiles" / "admin" / "css" / "base.css").is_file()


def test_the_readme_quickstart_claims_about_credentials_hold(quickstart):
    import httpx2

    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream"}
    anonymous = httpx2.post(quickstart.url, json=message, headers=accept, timeout=10)
    assert (anonymous.status_code, anonymous.headers["WWW-Authenticate"]) == (401, "Bearer")
    wrong = httpx2.post(
        quickstart.url,
        json=message,
        headers={**accept, "Authorization": "Bearer not-a-token"},
        timeout=10,
    )
    assert wrong.status_code == 401 and wrong.json()["error"]["message"] == "Invalid token."


# Samples run against the quickstart's server -------------------------------------------------

LIVE = [s for s in SAMPLES if s.marker == "live"]
# nginx is one of tests/services.py's Debian packages: `pytest -m "not services"` leaves it out.
LIVE_PARAMS = [
    pytest.param(s, marks=pytest.mark.services) if s.language == "nginx" else s for s in LIVE
]


@pytest.mark.parametrize("sample", LIVE_PARAMS, ids=ids(LIVE))
def test_live_sample_runs_against_the_quickstart_project(sample, quickstart, tmp_path):
    text = quickstart.substitute(sample.text)
    if sample.language == "python":
        done = subprocess.run(
            [sys.executable, "-c", text],
            cwd=tmp_path,
            env={**quickstart.env, "HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=120,
        )
    elif sample.language == "nginx":
        run_behind_nginx(text, quickstart, tmp_path)
        return
    elif sample.language == "javascript":
        (tmp_path / "node_modules").symlink_to(node_tool("node_modules"))
        (tmp_path / "sample.mjs").write_text(text)
        node = node_tool("node_modules", ".bin", "node")
        done = subprocess.run(
            [str(node), "sample.mjs"], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
    else:
        for command in sample.commands():
            quickstart.run(command)
        return
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    assert sample.language == "python" or "order_list" in done.stdout, done.stdout


PEERS = [s for s in SAMPLES if s.marker in ("peer", "compile")]


@pytest.mark.parametrize("sample", PEERS, ids=ids(PEERS))
def test_another_packages_sample_compiles(sample):
    """The "before" of a migration guide uses a package this project does not install (and
    that does not import with mcp 2.x), and a ``compile`` sample is a sketch with ``...``
    for a body: they are only compiled."""
    compile(sample.text, sample.where, "exec")


def test_the_tasks_pages_celery_app_is_the_one_a_real_worker_runs():
    """docs/tasks.md's ``mysite/celery.py`` is only compiled (it would make a Celery app this
    process's current one); tests/celery_app.py, which tests/contrib/test_celery.py starts real
    workers with, is the same code under the test project's names."""
    (page,) = [s for s in PEERS if s.page.name == "tasks.md" and s.title == "mysite/celery.py"]
    source = (REPO / "tests" / "celery_app.py").read_text().split('"""', 2)[2]
    names = {"tests.celery_settings": "mysite.settings", "mcp_tools_tests": "mysite"}
    for theirs, ours in names.items():
        source = source.replace(theirs, ours)
    assert page.text.strip() == source.strip()


TESTS = [s for s in SAMPLES if s.marker == "quickstart-test"]


@pytest.mark.parametrize("sample", TESTS, ids=ids(TESTS))
def test_testing_sample_passes_in_the_quickstart_project(sample, quickstart):
    (quickstart.folder / "shop" / "test_docs_sample.py").write_text(sample.text)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ds=mysite.settings"]
        + ["shop/test_docs_sample.py"],
        cwd=quickstart.folder,
        env={**quickstart.env, "PYTHONPATH": str(quickstart.folder)},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.rmtree(quickstart.folder / "shop" / "__pycache__", ignore_errors=True)


NGINX = "/usr/sbin/nginx"


def run_behind_nginx(server_block: str, quickstart: Quickstart, folder: Path) -> None:
    """Serve the quickstart's project behind nginx with the page's configuration, and make a
    streamed call (a progress token: an SSE answer) through it."""
    import httpx2

    from tests.services import require

    require(NGINX, "nginx (/usr/sbin/nginx)")
    port = free_port()
    block = server_block.replace("127.0.0.1:8000", f"127.0.0.1:{quickstart.port}")
    block = block.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = " ".join(
        f"{kind}_temp_path {folder}/{kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    temp += f" uwsgi_temp_path {folder}/uwsgi; scgi_temp_path {folder}/scgi;"
    user = "user root;" if os.geteuid() == 0 else ""
    config = folder / "nginx.conf"
    config.write_text(
        f"{user} daemon off; pid {folder}/nginx.pid; error_log {folder}/error.log;\n"
        f"events {{}}\nhttp {{ access_log off; {temp}\n{block}\n}}\n"
    )
    checked = subprocess.run(
        [NGINX, "-t", "-p", str(folder), "-c", str(config)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    log = (folder / "nginx.out").open("w")
    process = subprocess.Popen(
        [NGINX, "-p", str(folder), "-c", str(config)], stdout=log, stderr=log
    )
    try:
        wait_for_port(port, process, time.monotonic() + 30)
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "order_list", "arguments": {}, "_meta": {"progressToken": 1}},
        }
        answer = httpx2.post(
            f"http://127.0.0.1:{port}/mcp",
            json=message,
            headers={
                "Accept": "application/json, text/event-stream",
                "Authorization": f"Bearer {quickstart.token}",
                "MCP-Protocol-Version": "2025-11-25",
            },
            timeout=30,
        )
    finally:
        stop(process)
        log.close()
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/event-stream")
    data = json.loads(answer.text.split("data: ", 1)[1].split("\n", 1)[0])
    assert data["result"]["isError"] is False


def test_the_clients_page_shows_every_configuration_the_demo_prints():
    from demo_project.clients import configurations

    page = (REPO / "docs" / "clients.md").read_text()
    for key in (TOKEN, None):
        for config in configurations(URL, key, name="mysite"):
            assert config.text in page, config
