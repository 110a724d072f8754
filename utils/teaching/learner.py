"""Produce learner copies of the chapters: solutions removed, exercises and checks kept.

Run from the repository root::

    python -m utils.teaching.learner --out learner/

Every notebook in ``notebooks/`` gets a copy in ``learner/`` in which

* the markdown cells that open and close a solution (sphinx-exercise's ``{solution-start}`` and
  ``{solution-end}``) and everything between them are removed, and in their place comes one code
  cell tagged ``exercise-placeholder`` that starts ``# Your code here``, names the variables the
  check expects and raises :class:`NotImplementedError` until the student replaces it;
* any other code cell tagged ``solution`` is replaced the same way, and a one-cell ``{solution}``
  directive is removed;
* a cell tagged ``answer`` is removed: it computes an exercise's answer outside the solution (for
  the teachers' guide, hidden in the book with ``remove-cell``), and a learner copy holds nothing
  that computes or prints an answer;
* a cell tagged ``grade`` (the course's autograded test, :mod:`utils.teaching.course`) is removed, and a cell
  tagged ``written`` (what a written part is graded on) is followed by a Markdown cell tagged
  ``written-answer`` for the student's written answer;
* the ``{exercise}`` cells and the cells tagged ``check`` stay, so a student can check their answer;
* every output and execution count is cleared.

The solutions are found here; removing them and clearing the outputs is nbconvert's work
(``TagRemovePreprocessor`` on the ``solution`` tag, ``ClearOutputPreprocessor``).

The chapters themselves follow this convention (see ``book/teaching.md``)::

    ```{exercise} <title>          (markdown cell)
    :label: <ds>-ex-<n>
    ```
    ```{solution-start} <ds>-ex-<n>  (markdown cell)
    :class: dropdown
    ```
    <code cells tagged "solution">  (assign the answer to a variable)
    ```{solution-end}               (markdown cell)
    ```
    <code cell tagged "check">      (calls a checker from utils.teaching.exercises)
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor
from nbformat.corpus.words import generate_corpus_id

SOLUTION_TAG = "solution"
#: The course's autograded test of an exercise (:mod:`utils.teaching.course`): removed from learner copies.
GRADE_TAG = "grade"
#: What an exercise's written part is graded on: kept, with a cell for the answer after it.
WRITTEN_TAG = "written"
WRITTEN_ANSWER_TAG = "written-answer"
#: A cell that computes an exercise's answer for the teachers' guide: removed, without a placeholder.
ANSWER_TAG = "answer"
CHECK_TAG = "check"
PLACEHOLDER_TAG = "exercise-placeholder"

_EXERCISE = re.compile(r"^\s*(```+|:::+)\{exercise\}.*?^\s*:label:\s*(?P<label>\S+)", re.MULTILINE | re.DOTALL)
_SOLUTION_START = re.compile(r"^\s*(```+|:::+)\{solution-start\}\s*(?P<label>\S+)", re.MULTILINE)
_SOLUTION_END = re.compile(r"^\s*(```+|:::+)\{solution-end\}", re.MULTILINE)
_SOLUTION_SINGLE = re.compile(r"^\s*(```+|:::+)\{solution\}", re.MULTILINE)

_NOTE = (
    "**Learner copy.** This notebook was produced by `python -m utils.teaching.learner`: the solutions are "
    "removed. Run the cells in order; at each exercise, replace the cell that says `# Your code here` "
    "with your own code, then run the check cell below it; where an exercise has a written part, write "
    "your answer in the cell that says *Write your answer here*."
)


class LearnerCopyError(ValueError):
    """A chapter does not follow the exercise convention (for example an unclosed solution)."""


@dataclass
class LearnerReport:
    """What one learner copy contains."""

    source: Path
    target: Path
    exercises: list[str] = field(default_factory=list)
    placeholders: int = 0
    checks: int = 0
    written: int = 0
    removed_cells: int = 0


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def assigned_names(sources: Sequence[str]) -> list[str]:
    """Top-level names assigned by the given code (what a check cell will look for), in order."""
    names: list[str] = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:  # IPython magics: nothing we can name
            continue
        for node in tree.body:
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name) and sub.id not in names:
                        names.append(sub.id)
    return names


def used_names(source: str) -> set[str]:
    """Names a piece of code reads (the variables a check cell expects the student to define)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def placeholder_cell(
    label: str | None, solution_sources: Sequence[str], check_source: str = ""
) -> nbformat.NotebookNode:
    """The cell a student replaces: says what to define, and fails loudly until they do."""
    assigned = assigned_names(solution_sources)
    # Name the variables the check reads; helpers the solution assigns on the way are the student's
    # business. Without a check, the solution's last assignment is the answer.
    read = used_names(check_source)
    wanted = [name for name in assigned if name in read] or assigned[-1:]
    which = f"exercise {label}" if label else "this exercise"
    lines = ["# Your code here"]
    if wanted:
        quoted = [f"`{name}`" for name in wanted]
        defined = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
        lines.append(f"# Define {defined} for {which}, then run the check below.")
    lines.append(f'raise NotImplementedError("Write your solution to {which} here.")')
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["tags"] = [PLACEHOLDER_TAG]
    return cell


def learner_notebook(
    notebook: nbformat.NotebookNode, *, name: str = "notebook"
) -> tuple[nbformat.NotebookNode, LearnerReport]:
    """A learner copy of ``notebook`` (not modified) and a report of what changed.

    Every cell of a solution is tagged ``solution`` and a placeholder put after it; nbconvert's
    ``TagRemovePreprocessor`` then removes the tagged cells and ``ClearOutputPreprocessor`` the
    outputs. Placeholders are written last, once the check cell that follows each one is known.
    """
    report = LearnerReport(source=Path(name), target=Path(name))
    copy = nbformat.from_dict(notebook)  # a deep copy: the chapter stays as it is
    copy.cells, placeholders = _tag_solutions(copy.cells, name, report)
    resources: dict = {}
    report.removed_cells += sum(bool({ANSWER_TAG, GRADE_TAG} & set(_tags(cell))) for cell in copy.cells)
    TagRemovePreprocessor(remove_cell_tags={SOLUTION_TAG, ANSWER_TAG, GRADE_TAG}).preprocess(copy, resources)
    ClearOutputPreprocessor().preprocess(copy, resources)

    position = {id(cell): index for index, cell in enumerate(copy.cells)}
    for empty, label, sources in placeholders:
        index = position[id(empty)]
        check = next(
            (c.source for c in copy.cells[index + 1 :] if c.cell_type == "code" and CHECK_TAG in _tags(c)), ""
        )
        copy.cells[index] = placeholder_cell(label, sources, check)

    for index in range(len(copy.cells) - 1, -1, -1):
        if WRITTEN_TAG in _tags(copy.cells[index]):
            answer = nbformat.v4.new_markdown_cell("*Write your answer here.*")
            answer.metadata["tags"] = [WRITTEN_ANSWER_TAG]
            copy.cells.insert(index + 1, answer)
            report.written += 1

    note = nbformat.v4.new_markdown_cell(_NOTE)
    note.metadata["tags"] = ["learner-note"]
    # After the title cell, so the copy still opens with the chapter's title.
    cells = copy.cells
    insert_at = 1 if cells and cells[0].cell_type == "markdown" and cells[0].source.lstrip().startswith("# ") else 0
    cells.insert(insert_at, note)

    if copy.nbformat_minor < 5:  # the placeholders carry cell ids, which need nbformat 4.5
        copy.nbformat_minor = 5
    for cell in copy.cells:
        cell.setdefault("id", generate_corpus_id())
    return copy, report


_Placeholder = tuple[nbformat.NotebookNode, str | None, list[str]]


def _tag_solutions(
    cells: list[nbformat.NotebookNode], name: str, report: LearnerReport
) -> tuple[list[nbformat.NotebookNode], list[_Placeholder]]:
    """``cells`` with every solution cell tagged :data:`SOLUTION_TAG` and an empty placeholder cell
    after each solution, and the placeholders with the exercise label and solution code of each.

    A solution is a ``{solution-start}``/``{solution-end}`` block (both markdown cells and all
    between), a one-cell ``{solution}`` directive, or a run of cells the chapter tagged ``solution``.
    Counts exercises, checks and removed cells into ``report``.
    """
    state = _SolutionTagging(report)
    for position, cell in enumerate(cells):
        source, markdown = cell.source, cell.cell_type == "markdown"
        if state.block_label is not None:
            state.remove(cell)
            if markdown and _SOLUTION_END.search(source):
                state.add_placeholder(state.block_label, state.block_code)
                state.block_label, state.block_code = None, []
            elif cell.cell_type == "code":
                state.block_code.append(source)
            continue
        if markdown and (start := _SOLUTION_START.search(source)):
            state.close_loose()
            state.block_label = start.group("label")
            state.remove(cell)
            continue
        if markdown and _SOLUTION_END.search(source):
            raise LearnerCopyError(f"{name}: cell {position} closes a solution that was never opened")
        if markdown and _SOLUTION_SINGLE.search(source):
            state.remove(cell)
            continue
        if SOLUTION_TAG in _tags(cell):
            if cell.cell_type == "code":
                state.loose_code.append(source)
            state.remove(cell)
            continue
        # Before reading this cell's exercise label: the loose solution belongs to the one before.
        state.close_loose()
        if markdown:
            for match in _EXERCISE.finditer(source):
                state.last_exercise = match.group("label")
                report.exercises.append(state.last_exercise)
        elif cell.cell_type == "code" and CHECK_TAG in _tags(cell):
            report.checks += 1
        state.tagged.append(cell)
    if state.block_label is not None:
        raise LearnerCopyError(f"{name}: the solution of {state.block_label} has no {{solution-end}} cell")
    state.close_loose()
    return state.tagged, state.placeholders


class _SolutionTagging:
    """What :func:`_tag_solutions` has made of the cells so far, and the solution it is inside."""

    def __init__(self, report: LearnerReport) -> None:
        self.report = report
        self.tagged: list[nbformat.NotebookNode] = []
        self.placeholders: list[_Placeholder] = []
        self.block_label: str | None = None  # set while inside a solution-start/end block
        self.block_code: list[str] = []
        self.loose_code: list[str] = []  # solution-tagged code outside a block, merged into one placeholder
        self.last_exercise: str | None = None

    def remove(self, cell: nbformat.NotebookNode) -> None:
        if SOLUTION_TAG not in _tags(cell):
            cell.metadata["tags"] = [*_tags(cell), SOLUTION_TAG]
        self.tagged.append(cell)
        self.report.removed_cells += 1

    def add_placeholder(self, label: str | None, sources: list[str]) -> None:
        empty = nbformat.v4.new_code_cell("")
        empty.metadata["tags"] = [PLACEHOLDER_TAG]
        self.tagged.append(empty)
        self.placeholders.append((empty, label, list(sources)))
        self.report.placeholders += 1

    def close_loose(self) -> None:
        if self.loose_code:
            self.add_placeholder(self.last_exercise, self.loose_code)
            self.loose_code.clear()


def chapter_paths(source_dir: Path, names: Sequence[str] = ()) -> list[Path]:
    """The notebooks of ``source_dir`` (only ``names``, file names with or without ``.ipynb``), sorted;
    a name with no notebook, or no notebook at all, is a :class:`FileNotFoundError`."""
    paths = sorted(source_dir.glob("*.ipynb"))
    if names:
        wanted = {name.removesuffix(".ipynb") for name in names}
        paths = [path for path in paths if path.stem in wanted]
        missing = wanted - {path.stem for path in paths}
        if missing:
            raise FileNotFoundError(f"no notebook {', '.join(sorted(missing))} in {source_dir}")
    if not paths:
        raise FileNotFoundError(f"no notebooks in {source_dir}")
    return paths


def write_learner_copies(source_dir: Path, out_dir: Path, names: Sequence[str] = ()) -> list[LearnerReport]:
    """Write a learner copy of each notebook in ``source_dir`` (or only ``names``) to ``out_dir``."""
    paths = chapter_paths(source_dir, names)
    out_dir.mkdir(parents=True, exist_ok=True)
    reports = []
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        copy, report = learner_notebook(notebook, name=path.name)
        target = out_dir / path.name
        nbformat.write(copy, target)
        report.source, report.target = path, target
        reports.append(report)
    return reports


def default_notebooks() -> Path:
    """``notebooks/`` under the current directory, else beside the installed package (editable install)."""
    here = Path.cwd() / "notebooks"
    return here if here.is_dir() else Path(__file__).resolve().parents[2] / "notebooks"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m utils.teaching.learner",
        description="Write learner copies of the chapters: solutions removed, exercises and checks kept.",
    )
    parser.add_argument("--out", type=Path, default=Path("learner"), help="output directory (default: learner/)")
    parser.add_argument("--notebooks", type=Path, default=None, help="source directory (default: notebooks/)")
    parser.add_argument("names", nargs="*", help="only these chapters (their file names without .ipynb)")
    args = parser.parse_args(argv)
    source = args.notebooks or default_notebooks()
    try:
        reports = write_learner_copies(source, args.out, args.names)
    except (FileNotFoundError, LearnerCopyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for report in reports:
        print(
            f"{report.target}: {len(report.exercises)} exercises, {report.placeholders} placeholders, "
            f"{report.checks} checks kept"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
