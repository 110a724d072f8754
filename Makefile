# Grounded Dialogue Atlas. `make book` builds the site, `make test` runs the tests, `make lab` opens
# the chapters in JupyterLab; each creates the virtual environment in .venv from pyproject.toml on
# first use, with $(PYTHON).
#
# PYTHON: the interpreter .venv is made with (`make book PYTHON=python3.13`); .venv is made again when
# it was made with another one. VENV: the environment to use. One inside the clone (the default
# .venv) is make's own: created and, when needed, made again. One outside it, given as an absolute
# path (an active conda environment: `make book VENV=$CONDA_PREFIX`), is yours: make installs the
# project into it but never creates or removes it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
#: Processes `make test` runs the tests in (pytest-xdist's -n): by default one per CPU this process may
#: use; `make test PYTEST_WORKERS=1` runs them in one process, in order.
PYTEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2)' 2>/dev/null || echo 2)
#: What `make test` runs (CI's pass without data runs the chapters and the site tests only).
TESTS ?= tests utils/datasets notebooks
NPM ?= npm
#: pyproject.toml's requires-python (tests/test_environment.py keeps the two in step).
MIN_PYTHON := 3.11
OWN_VENV := $(if $(filter /% ~%,$(VENV)),,yes)
# "<installation> <version>" of the Python $(1): a venv's Python names the installation it was made from.
python_identity = $(shell $(1) -c 'import os, sys; print(os.path.realpath(sys.base_prefix), sys.version.split()[0])' 2>/dev/null)
# Exits with a message naming the version when the Python running it is older than $(MIN_PYTHON).
# (No f-string: the Python being checked may be too old to read one.)
REQUIRE_PYTHON = import sys; need = tuple(map(int, "$(MIN_PYTHON)".split("."))); sys.exit(None if sys.version_info >= need else "$(1) is Python %s; the atlas needs Python $(MIN_PYTHON) or newer. $(2)" % sys.version.split()[0])
NEWER_PYTHON_HINT := Run make again with a newer one, for example: make book PYTHON=python3.13
# Non-empty when make's own environment exists but was not made with $(PYTHON) (a first run with a
# too-old Python, or PYTHON= changed since): it is then made again instead of being kept half-made.
STALE_VENV = $(and $(OWN_VENV),$(wildcard $(VENV)),$(call differ,$(call python_identity,$(PYTHON)),$(call python_identity,$(BIN)/python)))
differ = $(if $(subst x$(1),,x$(2))$(subst x$(2),,x$(1)),yes)
# A relative data or cache directory is taken relative to where make was run, once, and passed on as
# an absolute path: chapters run from notebooks/ and would otherwise look in notebooks/<path>.
ifneq ($(strip $(ATLAS_DATA_DIR)),)
export ATLAS_DATA_DIR := $(if $(filter /% ~%,$(ATLAS_DATA_DIR)),$(ATLAS_DATA_DIR),$(abspath $(ATLAS_DATA_DIR)))
endif
ifneq ($(strip $(ATLAS_CACHE_DIR)),)
export ATLAS_CACHE_DIR := $(if $(filter /% ~%,$(ATLAS_CACHE_DIR)),$(ATLAS_CACHE_DIR),$(abspath $(ATLAS_CACHE_DIR)))
endif

.PHONY: env vendor book test lab lint fuzz bench bench-quick learner course clean system-deps

ifeq ($(OWN_VENV),yes)
env:
	@$(PYTHON) -c '$(call REQUIRE_PYTHON,$(PYTHON),$(NEWER_PYTHON_HINT))'
	$(if $(STALE_VENV),rm -rf $(VENV)  # it was made with $(or $(call python_identity,$(BIN)/python),a Python that no longer runs) and PYTHON is $(PYTHON))
	@$(MAKE) --no-print-directory --question $(STAMP) || $(MAKE) --no-print-directory $(STAMP)

# The C sources too: an editable install compiles them once (pyproject.toml's ext-modules), so an edit
# to one is built only by installing again.
$(STAMP): pyproject.toml $(wildcard utils/datasets/*/*.c)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)
else
env:
	@test -x $(BIN)/python || { echo "VENV=$(VENV) has no $(BIN)/python: name an environment that exists (conda env create -f environment.yml, then conda activate grounded-dialogue-atlas and make book VENV=\$$CONDA_PREFIX), or leave VENV unset for .venv" >&2; exit 1; }
	@$(BIN)/python -c '$(call REQUIRE_PYTHON,$(BIN)/python,Use an environment with a newer Python.)'
	@$(MAKE) --no-print-directory --question $(STAMP) || $(MAKE) --no-print-directory $(STAMP)

# Your environment already holds the dependencies (environment.yml): pip only adds the project itself.
# The C sources too: an editable install compiles them once (pyproject.toml's ext-modules), so an edit
# to one is built only by installing again.
$(STAMP): pyproject.toml $(wildcard utils/datasets/*/*.c)
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)
endif

## The SQL console's DuckDB-WASM, from the npm registry as book/_vendor/package-lock.json pins it
## (node_modules stays out of the repository; the build copies the files it needs into the site).
VENDOR_STAMP := book/_vendor/node_modules/.installed-stamp
## Without npm the book is built without its SQL console, and says so (`make system-deps` installs npm).
vendor:
	@if command -v $(NPM) >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory --question $(VENDOR_STAMP) || $(MAKE) --no-print-directory $(VENDOR_STAMP); \
	elif [ ! -f $(VENDOR_STAMP) ]; then \
	  echo "npm not found: the book is built without its SQL console (make system-deps installs Node.js and npm; then make book again)"; \
	fi

$(VENDOR_STAMP): book/_vendor/package.json book/_vendor/package-lock.json
	cd book/_vendor && $(NPM) ci --no-audit --no-fund --ignore-scripts
	touch $(VENDOR_STAMP)

## Build the book into _build/html (every chapter executed; any warning fails the build).
## EDITION=student builds the student edition into _build/student/_build/html: chapters without
## solutions or answers, no teachers' guide, launch buttons opening the learner copies.
EDITION ?= teacher
BOOK_OUTPUT := $(if $(filter student,$(EDITION)),--path-output _build/student,)
book: env vendor
	ATLAS_EDITION=$(EDITION) $(BIN)/jupyter-book build . $(BOOK_OUTPUT) --warningiserror --nitpick --keep-going

## Run the tests: unit tests, real-data tests (skipped without data), every chapter under nbval,
## and the browser test of the built site (skipped when _build/html or Chromium is missing).
## PYTEST_WORKERS: how many processes run them (default: one per CPU; `make test PYTEST_WORKERS=1`).
test: env
	@echo "make test: $(PYTEST_WORKERS) pytest worker(s) (PYTEST_WORKERS=N to change it)"
	ATLAS_OFFLINE=1 $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --nbval-lax $(TESTS)

## Open the chapters in JupyterLab, running in .venv. LAB_DIR is the folder it opens (a teacher
## checking the hand-out: `make learner lab LAB_DIR=learner`). LAB_ARGS passes options to
## `jupyter lab`, for example LAB_ARGS="--no-browser --ip 127.0.0.1 --port 8899".
LAB_DIR ?= notebooks
lab: env
	$(BIN)/jupyter lab $(LAB_DIR)/ $(LAB_ARGS)

## ruff, mypy over utils, and the viewer's JSDoc types (tsc --checkJs from book/_vendor, when `make vendor` installed it;
## tests/test_viewer_js.py runs the same check and the viewer's node --test unit tests under `make test`).
lint: env
	$(BIN)/ruff check utils benchmarks tests notebooks grounded_dialogue_atlas.py
	$(BIN)/mypy
	@if [ -x book/_vendor/node_modules/.bin/tsc ]; then cd book/_vendor && node_modules/.bin/tsc -p tsconfig.json; \
	else echo "tsc not installed (make vendor): the viewer's types are not checked"; fi

## Long property-based fuzzing profile (thousands of cases per format).
fuzz: env
	ATLAS_OFFLINE=1 HYPOTHESIS_PROFILE=long $(BIN)/python -m pytest -p no:xdist tests/test_fuzz.py

## Full-size performance benchmark (writes its table under bench-results/); with the book's chapters and the
## small real files' cold loads, on the real data directory (benchmarks/book.py; --no-book leaves them out).
bench: env
	$(BIN)/python -m benchmarks.bench --out bench-results

## Issues 37's and 50's goals only, at a quarter of the published sizes (the chapter's memory at half): a check that runs in minutes.
bench-quick: env
	$(BIN)/python -m benchmarks.bench --goals --scale 0.25 --out bench-results

## Learner copies of the notebooks (solutions removed, checks kept) in learner/.
learner: env
	$(BIN)/python -m utils.teaching.learner --out learner

## An nbgrader course from the chapters in course/ (then nbgrader's own commands, run in course/).
course: env
	$(BIN)/atlas course --out course

## Debian packages the book, the browser test and grading use: Chromium, a CJK font, bubblewrap (the
## sandbox `atlas grade` runs each submission in), and Node.js with npm for
## the SQL console's files (needs root). A Node.js that already brings npm (NodeSource's) is kept: Debian's
## npm package conflicts with it.
system-deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk bubblewrap gcc \
	  $$(command -v npm >/dev/null 2>&1 || echo nodejs npm)

## Remove what builds and runs wrote: the book, learner copies, benchmark results and its synthetic files,
## the browser tests' screenshots, test caches, the package's build metadata and build/ (what pip and
## setuptools write when the package is built). (.venv stays; the parsed
## cache under ~/.cache is the README's "Data" section's.)
clean:
	rm -rf _build build learner course bench-results .pytest_cache .hypothesis tests/artifacts *.egg-info book/_vendor/node_modules
	rm -f book/viewer/*.md  # the viewer pages the book build writes from the dataset folders
	if [ -x $(BIN)/python ]; then \
	  $(BIN)/python -c "import shutil, benchmarks.bench as b; [shutil.rmtree(b.default_data_dir(f * s), ignore_errors=True) for s in (1, b.QUICK_SCALE) for f in (1, 2)]"; \
	fi
