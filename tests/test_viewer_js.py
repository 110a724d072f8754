"""The data viewer's JavaScript (book/_static/viewer/): its unit tests under ``node --test`` and its JSDoc
types under the TypeScript compiler from book/_vendor's npm lock (``make vendor`` installs it).

Skipped, saying why, without Node.js or without the vendored packages; CI runs ``make vendor`` first.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

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


def test_app_js_keeps_the_state_and_wiring_and_every_module_is_typed() -> None:
    """The viewer's parts are components (a function returning its element, each in its module): app.js
    keeps the view's state and wires them, under 300 lines; the type check allows no implicit any."""
    app = REPO / "book" / "_static" / "viewer" / "app.js"
    assert len(app.read_text(encoding="utf-8").splitlines()) < 300
    options = json.loads((VENDOR / "tsconfig.json").read_text(encoding="utf-8"))["compilerOptions"]
    assert options["strict"] and options["noImplicitAny"] and options["checkJs"]


# -- data.js against the files utils/book/viewer_files.py writes ----------------------------------------------

DATA_JS = REPO / "book" / "_static" / "viewer" / "data.js"
#: utils/book/viewer_files.py's constants made small, so that a demo split's files have several shards, dictionary
#: chunks, paged columns and renderings' shards and chunks, and the decoder crosses their boundaries.
SMALL_FILES = {"SHARD_ROWS": 3, "COLUMN_SHARD_ROWS": 2, "DICTIONARY_CHUNK": 5, "PAGED_ABOVE": 20,
               "HTML_SHARD": 1, "FRAGMENT_CHUNK": 7}


def test_the_viewer_s_format_is_the_one_utils_viewer_writes() -> None:
    """One number: data.js refuses a manifest of any format but its FORMAT, which must be
    utils/book/viewer_files.py's."""
    from utils.book.viewer_files import FORMAT

    found = re.findall(r"^export const FORMAT = (\d+);$", DATA_JS.read_text(encoding="utf-8"), flags=re.M)
    assert found == [str(FORMAT)], f"data.js's FORMAT {found} is not utils/book/viewer_files.py's FORMAT {FORMAT}"


def _plain(value: Any) -> Any:
    """A value as JSON holds it (pandas' NaN for a missing number: null, as data.js gives it)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value.tolist() if hasattr(value, "tolist") else value


def _written_case(root: Path, name: str, split: Any) -> dict[str, Any]:
    """Write ``split``'s viewer files as a book build does (chapter_view, under ``root``) and read them
    back in Python: every level's rows and values, and every dialogue's rendering."""
    from utils.book.render.chapter_view import chapter_view
    from utils.book.viewer_files import VIEWER_DIR_VARIABLE, read_level, read_rendering

    patch = pytest.MonkeyPatch()
    patch.setenv(VIEWER_DIR_VARIABLE, str(root / name))
    try:
        assert f'"path":"_viewer/{split.dataset}/{split.split}/"' in str(chapter_view(split))
    finally:
        patch.undo()
    directory = root / name / split.dataset / split.split
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    levels = {}
    for level in manifest["levels"]:
        frame = read_level(directory, level)
        levels[level] = {"rows": len(frame), "values": {column: [_plain(v) for v in frame[column].tolist()]
                                                        for column in frame.columns}}
    assert levels["dialogues"]["rows"] == len(split) and levels["turns"]["rows"] == len(split.turns())
    return {"name": name, "dataset": split.dataset, "split": split.split,
            "path": f"{name}/{split.dataset}/{split.split}", "levels": levels,
            "renderings": {str(k): read_rendering(directory, k) for k in range(len(split))}}


def test_data_js_decodes_the_files_utils_viewer_writes_for_a_demo_split(tmp_path: Path) -> None:
    """The node test tests/viewer_js/data-files.test.mjs decodes a demo split's viewer files (as written,
    and written in small files) to the rows, values and renderings Python reads from them."""
    import utils
    from utils.book.viewer_files import FORMAT

    node = _node()
    split = utils.load("wow", "valid_seen")
    cases = [_written_case(tmp_path, "as-written", split)]
    patch = pytest.MonkeyPatch()
    for constant, value in SMALL_FILES.items():
        patch.setattr(f"utils.book.viewer_files.{constant}", value)
    try:
        cases.append(_written_case(tmp_path, "small-files", split))
    finally:
        patch.undo()
    small = json.loads((tmp_path / cases[1]["path"] / "manifest.json").read_text(encoding="utf-8"))
    assert any(column.get("paged") for column in small["levels"]["evidence"]["columns"])
    assert len(small["levels"]["turns"]["shards"]) > 1 and len(small["html"]["shards"]) > 1
    (tmp_path / "expected.json").write_text(json.dumps({"format": FORMAT, "cases": cases}, allow_nan=False),
                                            encoding="utf-8")
    (tmp_path / "other-format.json").write_text(json.dumps({**small, "format": FORMAT + 1}), encoding="utf-8")
    test = REPO / "tests" / "viewer_js" / "data-files.test.mjs"
    done = subprocess.run([node, "--test", str(test)], capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={**os.environ, "ATLAS_VIEWER_FILES": str(tmp_path)})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout and "# pass 6" in done.stdout, done.stdout[-2000:]
