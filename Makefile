# paramine: `make run` runs the main job on the shipped sample crawl; `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test install lint bench chaos load clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/paramine process samples/crawl --out out

test: install
	$(BIN)/python -m pytest -q -m "not chaos"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: install
	$(BIN)/python -m benchmarks.run_all

chaos: install
	$(BIN)/python -m pytest -q -m chaos

load: install
	$(BIN)/python -m benchmarks.pipeline_load
	$(BIN)/python -m benchmarks.celery_floor

clean:
	rm -rf out .pytest_cache .mypy_cache .ruff_cache
