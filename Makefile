# Quick start: `make demo` (simulate + summary) and `make test` (the test suite).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/simlab demo

test: $(STAMP)
	$(VENV)/bin/ruff check simlab tests
	$(PY) -m pytest

bench: $(STAMP)
	$(VENV)/bin/simlab bench

lint: $(STAMP)
	$(VENV)/bin/ruff check simlab tests

clean:
	rm -rf $(VENV) build *.egg-info
