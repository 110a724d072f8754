"""The data viewer's JavaScript (book/_static/viewer/): its unit tests under ``node --test`` and its JSDoc
types under the TypeScript compiler from book/_vendor's npm lock (``make vendor`` installs it).

Skipped, saying why, without Node.js or without the vendored packages; CI runs ``make vendor`` first.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENDOR = REPO / "book" / "_vendor"
TSC = VENDOR / "node_modules" / "typescript" / "bin" / "tsc"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (make system-deps installs it)")
    return node


def test_the_viewer_modules_pass_their_unit_tests() -> None:
    tests = sorted(str(path) for path in (REPO / "tests" / "viewer_js").glob("*.test.mjs"))
    assert tests, "no unit tests of the viewer's modules"
    done = subprocess.run([_node(), "--test", *tests], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


def test_the_viewer_modules_type_check() -> None:
    node = _node()
    if not TSC.is_file():
        pytest.skip("TypeScript is not installed: run make vendor")
    done = subprocess.run([node, str(TSC), "-p", str(VENDOR / "tsconfig.json")], capture_output=True, text=True,
                          timeout=300, cwd=VENDOR)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
