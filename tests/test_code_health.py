"""The package's code stays small and alive (issue 49, item 6).

- **Dead code**: vulture reads the package, the benchmarks, the book's extension, the tests and the
  chapters' code cells together; a function, class, constant or variable of the package or the
  benchmarks that nothing of them uses fails the test. The names below are used by something vulture
  cannot read: a convention that finds them by name, a framework that calls them, a string that names
  them.
- **Size and complexity**: no function of the package outside the dataset folders is over radon's
  grade C (cyclomatic complexity 20) or 60 lines (its ``def`` to its last line, docstring included).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from conftest import REPO
from utils.book.chapters import EVAL

vulture = pytest.importorskip("vulture")
radon_complexity = pytest.importorskip("radon.complexity")

#: Names found by a convention, called by a framework or named in a string (vulture reads none of these).
USED_BY_NAME = {
    # a dataset folder's declarations, read by the registry, the viewer and the course by name
    "PAGE_ROWS", "IDENTIFYING", "SINGLE_LABELS", "QUERIES", "KILT_QUERIES", "RAI", "DERIVED_FROM", "KILT_RAI",
    "KILT_DERIVED_FROM", "AUDIT_RAI", "AUDIT_DERIVED_FROM", "TASKS", "KILT_TASKS", "AUDIT_TASKS", "HELD_OUT",
    "ANSWERED_BY", "kilt_rows", "kilt_columns", "audit_facets", "reference_label_counts",
    # module-level __getattr__/__dir__ (PEP 562)
    "__getattr__", "__dir__",
    # urllib3's connection pool classes, set on a pool to pin its connections
    "ConnectionCls", "pool_classes_by_scheme",
    # argparse, http.server, Sphinx directives and traitlets (nbgrader's plugins and preprocessors)
    "on_broken_pipe", "quiet", "log_message", "required_arguments", "optional_arguments", "default_value",
    "default_label_style", "default_sorting_style", "IsolatedExecute", "enabled", "LatePenaltyPerDay",
    "QuietOverwriteCells", "FlaggedCsvExport", "CanvasExport", "MoodleExport",
    # signal handlers' and Sphinx event handlers' arguments, fixed by the caller
    "signum", "doctree", "templatename",
    # named by a declaration's string (``synthetic="benchmarks.synthetic:write_wise"``)
    "write_wise",
    # a graded notebook's last line, written by the course (``answers.hand_in``)
    "hand_in",
    # a course report's field, printed by ``atlas course``
    "setup_cells",
    # keys of the original files' records, unpacked by name where the parser reads them
    "origin_link", "retrieved_topics", "candidate_responses", "mtime_ns", "modified",
}

SUBJECTS = ("utils", "benchmarks")
READERS = ("tests", "book/_ext", "grounded_dialogue_atlas.py")


def _chapter_code(folder: Path) -> Path:
    """The chapters' code cells and inline expressions as Python files (IPython's syntax translated)."""
    from IPython.core.inputtransformer2 import TransformerManager

    translate = TransformerManager().transform_cell
    for notebook in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        code = [translate("".join(cell["source"])) for cell in cells if cell["cell_type"] == "code"]
        code += [f"_ = {found['expression']}" for cell in cells if cell["cell_type"] == "markdown"
                 for found in EVAL.finditer("".join(cell["source"]))]
        (folder / f"{notebook.stem}_chapter.py").write_text("\n\n".join(code), encoding="utf-8")
    return folder


def test_nothing_of_the_package_is_dead(tmp_path: Path) -> None:
    scan = vulture.Vulture(ignore_names=sorted(USED_BY_NAME))
    scan.scavenge([str(REPO / path) for path in (*SUBJECTS, *READERS)] + [str(_chapter_code(tmp_path))])
    dead = [
        f"{Path(item.filename).relative_to(REPO)}:{item.first_lineno}: {item.typ} {item.name}"
        for item in scan.get_unused_code(min_confidence=60)
        if Path(item.filename).is_relative_to(REPO)
        and Path(item.filename).relative_to(REPO).parts[0] in SUBJECTS
        and "tests" not in Path(item.filename).relative_to(REPO).parts
    ]
    assert not dead, "used by nothing (delete it, or say in USED_BY_NAME what uses it):\n" + "\n".join(dead)


def test_the_scan_finds_a_dead_function(tmp_path: Path) -> None:
    (tmp_path / "module.py").write_text("def used():\n    return 1\n\n\ndef unused():\n    return 2\n\n\nused()\n")
    scan = vulture.Vulture(ignore_names=sorted(USED_BY_NAME))
    scan.scavenge([str(tmp_path)])
    assert [item.name for item in scan.get_unused_code(min_confidence=60)] == ["unused"]


CORE = sorted(path for path in (REPO / "utils").rglob("*.py") if "datasets" not in path.relative_to(REPO).parts)
MAX_COMPLEXITY = 20  # radon's grade C ends at 20
MAX_LINES = 60


def _functions(blocks: list) -> list:
    """radon's functions and methods, closures too (a class's complexity is its methods')."""
    found = []
    for block in blocks:
        if hasattr(block, "methods"):
            found += _functions(block.methods)
        else:
            found += [block, *_functions(block.closures)]
    return found


def oversized(path: Path) -> list[str]:
    """``name: why`` for every function of ``path`` over the complexity or the length."""
    source = path.read_text(encoding="utf-8")
    found = [f"{block.fullname}: complexity {block.complexity} (grade {radon_complexity.cc_rank(block.complexity)})"
             for block in _functions(radon_complexity.cc_visit(source)) if block.complexity > MAX_COMPLEXITY]
    found += [f"{node.name}: {node.end_lineno - node.lineno + 1} lines"
              for node in ast.walk(ast.parse(source))
              if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
              and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > MAX_LINES]
    return found


@pytest.mark.parametrize("path", CORE, ids=lambda path: str(path.relative_to(REPO)))
def test_no_core_function_is_over_grade_c_or_60_lines(path: Path) -> None:
    assert not oversized(path)


def test_the_measure_finds_a_long_and_branching_function(tmp_path: Path) -> None:
    branches = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(30))
    (tmp_path / "module.py").write_text(f"def f(x):\n{branches}    return -1\n")
    assert oversized(tmp_path / "module.py") == ["f: complexity 31 (grade E)", "f: 62 lines"]
