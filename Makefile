# paramine: `make run` runs the main job on the shipped sample crawl; `make test` runs every test.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test install system-deps dictionaries lint bench chaos hosts hosts-bench load soak clean

# Debian packages the product uses when they are present: WordNet 3.0 for the word-alignment
# model's features, and the bilingual dictionaries align-sentences uses by default (CC-CEDICT,
# zh-en, comes with the Python dependencies). Installed where this machine allows it (root
# with apt-get); elsewhere the product runs without them and says so once.
DICTIONARIES := dict-freedict-deu-fra dict-freedict-fra-deu dict-freedict-isl-eng edict
# libgomp1: GNU OpenMP, which LightGBM (the word model's boosted stages) links against.
SYSTEM_PACKAGES := wordnet-base libgomp1 $(DICTIONARIES)
system-deps:
	@missing=""; for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq $$missing >/dev/null 2>&1 \
	    || { apt-get update -qq && apt-get install -y -qq $$missing >/dev/null; } \
	    || echo "note: could not install$$missing; paramine runs without them"; \
	else echo "note:$$missing not installed (apt-get install as root); paramine runs without them"; fi

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) system-deps

run: install
	$(BIN)/paramine process samples/crawl samples/pages.jsonl --out out

test: install
	$(BIN)/python -m pytest -q -m "not chaos and not hosts and not soak"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

dictionaries: system-deps

bench: install dictionaries
	$(BIN)/python -m benchmarks.run_all

chaos: install
	$(BIN)/python -m pytest -q -m chaos

# Network partitions across hosts (network namespaces: root and iproute2), about 8 minutes.
hosts: install
	$(BIN)/python -m pytest -q -m hosts

# The same tests, their recovery times written to benchmarks/results/hosts.md.
hosts-bench: install
	$(BIN)/python -m benchmarks.system.hosts_recovery

# The soak (issue 54): PARAMINE_SOAK_PAIRS page pairs (20,000) with a fault every
# PARAMINE_SOAK_FAULT_SECONDS (60), against a fault-free run; about an hour on two cores.
soak: install
	$(BIN)/python -m pytest -q -s -m soak tests/soak

load: install
	$(BIN)/python -m benchmarks.system.pipeline_load

clean:
	rm -rf out .pytest_cache .mypy_cache .ruff_cache
