# Grounded Dialogue Atlas. `make book` builds the site, `make test` runs the tests, `make lab` opens
# the chapters in JupyterLab; each creates the virtual environment in .venv from pyproject.toml on
# first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PYTEST_WORKERS ?= 2
# A relative data or cache directory is taken relative to where make was run, once, and passed on as
# an absolute path: chapters run from notebooks/ and would otherwise look in notebooks/<path>.
ifneq ($(strip $(ATLAS_DATA_DIR)),)
export ATLAS_DATA_DIR := $(if $(filter /% ~%,$(ATLAS_DATA_DIR)),$(ATLAS_DATA_DIR),$(abspath $(ATLAS_DATA_DIR)))
endif
ifneq ($(strip $(ATLAS_CACHE_DIR)),)
export ATLAS_CACHE_DIR := $(if $(filter /% ~%,$(ATLAS_CACHE_DIR)),$(ATLAS_CACHE_DIR),$(abspath $(ATLAS_CACHE_DIR)))
endif

.PHONY: env vendor book test lab lint fuzz bench learner course clean system-deps

env: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

## The SQL console's DuckDB-WASM, from the npm registry as book/_vendor/package-lock.json pins it
## (node_modules stays out of the repository; the build copies the files it needs into the site).
VENDOR_STAMP := book/_vendor/node_modules/.installed-stamp
vendor: $(VENDOR_STAMP)

$(VENDOR_STAMP): book/_vendor/package.json book/_vendor/package-lock.json
	cd book/_vendor && npm ci --no-audit --no-fund --ignore-scripts
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
test: env
	ATLAS_OFFLINE=1 $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --nbval-lax tests notebooks

## Open the chapters in JupyterLab, running in .venv. LAB_DIR is the folder it opens (a teacher
## checking the hand-out: `make learner lab LAB_DIR=learner`). LAB_ARGS passes options to
## `jupyter lab`, for example LAB_ARGS="--no-browser --ip 127.0.0.1 --port 8899".
LAB_DIR ?= notebooks
lab: env
	$(BIN)/jupyter lab $(LAB_DIR)/ $(LAB_ARGS)

lint: env
	$(BIN)/ruff check utils benchmarks tests notebooks

## Long property-based fuzzing profile (thousands of cases per format).
fuzz: env
	ATLAS_OFFLINE=1 HYPOTHESIS_PROFILE=long $(BIN)/python -m pytest -p no:xdist tests/test_fuzz.py

## Full-size performance benchmark (writes its table under bench-results/).
bench: env
	$(BIN)/python -m benchmarks.bench --out bench-results

## Learner copies of the notebooks (solutions removed, checks kept) in learner/.
learner: env
	$(BIN)/python -m utils.learner --out learner

## An nbgrader course from the chapters in course/ (then nbgrader's own commands, run in course/).
course: env
	$(BIN)/atlas course --out course

## Debian packages the book and the browser test use: Chromium and a CJK font (needs root).
system-deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk

## Remove what builds and runs wrote: the book, learner copies, benchmark results and its synthetic files.
clean:
	rm -rf _build learner course bench-results .pytest_cache book/_vendor/node_modules
	if [ -x $(BIN)/python ]; then \
	  $(BIN)/python -c "import shutil, benchmarks.bench as b; shutil.rmtree(b.DEFAULT_DATA, ignore_errors=True)"; \
	fi
