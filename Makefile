# paramine: `make run` runs the main job on the shipped sample crawl; `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export PARAMINE_DATABASE_URL ?= sqlite:///var/paramine.db

.PHONY: run test install system-deps lint bench chaos load clean

# Debian packages the product uses when they are present: WordNet 3.0 for the word-alignment
# model's features. Installed where this machine allows it (root with apt-get); elsewhere the
# product runs without them and says so once.
SYSTEM_PACKAGES := wordnet-base
system-deps:
	@if [ -f /usr/share/wordnet/data.noun ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing $(SYSTEM_PACKAGES)"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq $(SYSTEM_PACKAGES) >/dev/null 2>&1 \
	    || { apt-get update -qq && apt-get install -y -qq $(SYSTEM_PACKAGES) >/dev/null; } \
	    || echo "note: could not install $(SYSTEM_PACKAGES); paramine runs without WordNet"; \
	else echo "note: $(SYSTEM_PACKAGES) is not installed (apt-get install $(SYSTEM_PACKAGES) as root); paramine runs without WordNet"; fi

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) system-deps

run: install
	mkdir -p var
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
	rm -rf out var .pytest_cache .mypy_cache .ruff_cache
