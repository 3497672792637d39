# The two commands of the README. Both create .venv and install into it first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFIG ?= configs/quickstart.yaml
OUT ?= datasets_out/quickstart

.PHONY: run test bench lint typecheck install install-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The package's folders are compiled to bytecode once here: where PYTHONDONTWRITEBYTECODE is set (as
# in many containers) Python never writes it, and every process (each CLI call, Ray worker and test
# worker) would compile ~400 modules again (~0.2 s each). A source edited later is compiled in memory.
PACKAGE_FOLDERS := toolgym envs domains generators verifiers

$(VENV)/.installed: $(BIN)/python pyproject.toml setup.py
	$(BIN)/python -m pip install -q -e .
	$(BIN)/python -m compileall -q -j 0 $(PACKAGE_FOLDERS)
	touch $@

$(VENV)/.installed-test: $(BIN)/python pyproject.toml setup.py
	$(BIN)/python -m pip install -q -e ".[test]"
	$(BIN)/python -m compileall -q -j 0 $(PACKAGE_FOLDERS)
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(BIN)/toolgym generate $(CONFIG) --out $(OUT)

lint: install-test
	$(BIN)/ruff check .

typecheck: install-test
	$(BIN)/mypy envs verifiers generators toolgym domains

# One pytest worker per core; tests that must not overlap share an xdist_group (tests/conftest.py).
test: install-test lint typecheck
	$(BIN)/python -m pytest -q -n auto --dist loadgroup

bench: install
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/generate.py
	$(BIN)/python benchmarks/teacher.py
	$(BIN)/python benchmarks/hostile.py

clean:
	rm -rf $(VENV) build *.egg-info
