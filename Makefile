# The two commands a newcomer runs: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Byte-compile our packages (an editable install does not, and a PYTHONDONTWRITEBYTECODE
# environment would otherwise compile them on every start).
COMPILE := $(BIN)/python -m compileall -q router classifier evals >/dev/null

.PHONY: run test lint format lock train bench bench-litellm test-vllm clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

## Serve the router on :4000 (demo mode with simulated backends when none are configured).
## `make run SMF_HOST=0.0.0.0 SMF_PORT=4001` to change them; not HOST and PORT, which many
## shells and platforms set for their own purposes.
SMF_HOST ?= 127.0.0.1
SMF_PORT ?= 4000
run: $(STAMP)
	$(COMPILE)
	$(BIN)/smf-router serve --host $(SMF_HOST) --port $(SMF_PORT)

## Lint, type-check and run the whole test suite.
test: $(STAMP)
	scripts/ensure-system-packages
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## Re-resolve: the newest versions pyproject.toml allows, written to constraints.txt. Run
## `make test` after it and commit both if it passes.
LOCK_VENV := .lock-venv
lock:
	rm -rf $(LOCK_VENV) && $(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/pip install --quiet -e '.[dev]'
	{ sed -n '/^#/p' constraints.txt; $(LOCK_VENV)/bin/pip freeze --exclude-editable; } > constraints.new
	mv constraints.new constraints.txt && rm -rf $(LOCK_VENV)

## Retrain the intent classifier from the repo's data (about a minute; deterministic: the
## same artifact bytes and docs/classifier.md on the same libraries). Not needed to run.
train: $(STAMP)
	$(BIN)/smf-router classifier train

## Benchmarks (not part of `make test`); results go to docs/benchmarks.md by hand.
bench: $(STAMP) bench-litellm
	$(COMPILE)
	$(BIN)/python tests/bench/run_all.py

## LiteLLM's proxy in a venv of its own, for the side-by-side proxy benchmark.
LITELLM_VENV := $(HOME)/.cache/smf-bench-litellm
bench-litellm: $(LITELLM_VENV)/bin/litellm
$(LITELLM_VENV)/bin/litellm: tests/bench/litellm-proxy.txt
	$(PYTHON) -m venv $(LITELLM_VENV)
	$(LITELLM_VENV)/bin/pip install --quiet -r tests/bench/litellm-proxy.txt
	touch $@

## The integration suite against vLLM's real server on CPU (installs it into a cached venv).
test-vllm: $(STAMP)
	$(BIN)/pytest -q tests/vllm -p no:cacheprovider -o addopts="--strict-markers"

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache
