"""The suite's fixtures and helpers for every directory of tests: ``tests/`` and the ``tests/`` of each
dataset's folder (``utils/datasets/<name>/tests/``).

They are defined once, in ``tests/conftest.py``; this file, at the repository's root, makes them
reach the dataset folders too (the autouse fixture that keeps every test offline, with a fresh cache
and an empty data directory, included). A test imports a helper with ``from conftest import ...``,
whichever directory it sits in.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SUITE = Path(__file__).resolve().parent / "tests" / "conftest.py"
# Loaded by its path under a name of its own: ``tests`` is no package, and another ``tests`` (some
# libraries install one) must not stand in for it.
_spec = importlib.util.spec_from_file_location("atlas_suite_conftest", _SUITE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _suite
_spec.loader.exec_module(_suite)

globals().update({name: value for name, value in vars(_suite).items() if not name.startswith("__")})
