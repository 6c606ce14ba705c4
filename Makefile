# Quick start: `make demo` (simulate + summary) and `make test` (the test suite).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test fuzz bench lint clean readme

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/simlab demo

# two pytest workers (xdist) for most tests, then the serial ones alone
test: $(STAMP)
	$(VENV)/bin/ruff check simlab tests
	$(PY) -m pytest -n 2 -m "not serial"
	$(PY) -m pytest -m serial

# random exploration (not in CI): hypothesis with random seeds and more examples, the
# property test once more under NUMBA_BOUNDSCHECK, and the large coverage tests
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz SIMLAB_FUZZ_SCALE=10 SIMLAB_BOUNDSCHECK=1 SIMLAB_SLOW=1 \
		$(PY) -m pytest tests/test_properties.py tests/test_cli_fuzz.py tests/test_coverage.py

bench: $(STAMP)
	$(VENV)/bin/simlab bench

# rerun the README's example commands and rewrite their output blocks
readme: $(STAMP)
	$(PY) scripts/readme_examples.py

lint: $(STAMP)
	$(VENV)/bin/ruff check simlab tests

clean:
	rm -rf $(VENV) build *.egg-info
