# Every target bootstraps .venv with the system python on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test test-fast bench lint clean clean-kernels browser serve

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e '.[test,plot,ray,web]'
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)
	$(BIN)/python -m pokerlab.demo

test: $(STAMP) browser
	$(BIN)/pokerlab warmup
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/mypy --strict src/pokerlab
	$(BIN)/python -m pytest -q --durations=30

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,plot,bench]' || echo "some bench peers did not install; their rows are skipped"
	for script in benchmarks/[a-z]*.py; do $(BIN)/python $$script || exit 1; done

# The browser tests drive Debian's chromium with Playwright (never `playwright install`: no downloads here).
# Installed when missing and we can (root or sudo); without it the browser tests skip and say why.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else \
			echo "chromium is missing and apt-get needs root: the browser tests will skip"; exit 0; fi; \
		($$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium) \
			>/dev/null || echo "could not install chromium: the browser tests will skip"; \
	fi

serve: $(STAMP)
	$(BIN)/pokerlab serve

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts

clean: clean-kernels
	rm -rf $(VENV) build src/*.egg-info .pytest_cache

# numba checks only a kernel's own file: after editing a helper that other modules' kernels inline
# (pokerlab.stats.rng, pokerlab.cards.kernels, pokerlab.cards.classes, pokerlab.solvers.kernels,
# pokerlab.games.pushfold.rules: the simulator plays its hands by them), their cached machine code is stale
# until this runs
clean-kernels:
	find src tests benchmarks scripts -name __pycache__ -type d -prune -exec rm -rf {} +
