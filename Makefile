# The two commands of the README: `make demo` and `make test`. Each works on a fresh machine:
# it creates the virtual environment and installs what it needs first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

demo: $(VENV)/.installed
	$(BIN)/python manage.py migrate --noinput -v 0
	$(BIN)/python manage.py seed_demo --url http://127.0.0.1:8000/mcp
	$(BIN)/python manage.py runserver 127.0.0.1:8000

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check mcp_tools tests demo_project bench
	$(BIN)/ruff format --check mcp_tools tests demo_project bench

bench: $(VENV)/.installed-test
	$(BIN)/python bench/run.py

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(VENV)/bin/python pyproject.toml
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/bin/python pyproject.toml
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $@ $(VENV)/.installed

$(VENV)/.installed-dev: $(VENV)/.installed-test
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

clean:
	rm -rf $(VENV) demo.sqlite3
