# paramine: `make run` runs the main job on the shipped sample crawl; `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export PARAMINE_DATABASE_URL ?= sqlite:///var/paramine.db

.PHONY: run test install lint bench chaos load clean dictionaries

# Bilingual dictionaries that align-sentences uses by default (Debian packages; root). CC-CEDICT
# (zh-en) comes with the Python dependencies.
DICTIONARIES := dict-freedict-deu-fra dict-freedict-fra-deu dict-freedict-isl-eng edict

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	mkdir -p var
	$(BIN)/paramine process samples/crawl --out out

test: install
	$(BIN)/python -m pytest -q -m "not chaos"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

dictionaries:
	@missing=""; for p in $(DICTIONARIES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then apt-get update -qq && apt-get install -y -qq $$missing; fi

bench: install dictionaries
	$(BIN)/python -m benchmarks.run_all

chaos: install
	$(BIN)/python -m pytest -q -m chaos

load: install
	$(BIN)/python -m benchmarks.pipeline_load
	$(BIN)/python -m benchmarks.celery_floor

clean:
	rm -rf out var .pytest_cache .mypy_cache .ruff_cache
