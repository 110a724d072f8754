"""Learner copies: produced by one command, solutions gone, checks kept, and they run.

Each copy is executed with nbclient up to its first ``exercise-placeholder`` cell (the first
exercise a student has not solved yet): everything before it must run without an error, and the
placeholder itself must fail with NotImplementedError until the student replaces it.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from utils.teaching import learner

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
FIXTURE = FIXTURES / "exercise_chapter.ipynb"
CHAPTERS = sorted((REPO / "notebooks").glob("*.ipynb"))
#: Chapters that must carry at least three exercises (issue 8).
CHAPTERS_WITH_EXERCISES = {"wow", "faithdial", "wise", "jwhr", "begin", "cross_dataset"}


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _execute(notebook: nbformat.NotebookNode, cwd: Path, timeout: int = 600) -> nbformat.NotebookNode:
    """Run every cell of ``notebook`` in a fresh kernel (inheriting the offline test environment)."""
    client = NotebookClient(
        notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    )
    client.execute()
    return notebook


def _up_to_first_placeholder(notebook: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, int | None]:
    """A copy holding the cells before the first placeholder, and that placeholder's position."""
    first = next((i for i, c in enumerate(notebook.cells) if learner.PLACEHOLDER_TAG in _tags(c)), None)
    head = nbformat.from_dict(notebook)
    head.cells = head.cells[: first if first is not None else len(head.cells)]
    return head, first


def _assert_learner_structure(copy: nbformat.NotebookNode, original: nbformat.NotebookNode) -> None:
    nbformat.validate(copy)
    sources = [cell.source for cell in copy.cells]
    assert not any(learner.SOLUTION_TAG in _tags(cell) for cell in copy.cells)
    assert not any("{solution-start}" in s or "{solution-end}" in s or "{solution}" in s for s in sources)
    for cell in copy.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    originals = [c.source for c in original.cells if learner.CHECK_TAG in _tags(c)]
    kept = [c.source for c in copy.cells if learner.CHECK_TAG in _tags(c)]
    assert kept == originals, "every check cell is kept, in order"
    exercises = [c.source for c in original.cells if "{exercise}" in c.source]
    assert [c.source for c in copy.cells if "{exercise}" in c.source] == exercises
    for cell in copy.cells:
        if learner.PLACEHOLDER_TAG in _tags(cell):
            assert cell.cell_type == "code"
            assert cell.source.startswith("# Your code here")
            assert "NotImplementedError" in cell.source


def test_fixture_solutions_pass_their_checks(tmp_path):
    executed = _execute(nbformat.read(FIXTURE, as_version=4), tmp_path)
    checks = [c for c in executed.cells if learner.CHECK_TAG in _tags(c)]
    assert len(checks) == 2
    for cell in checks:
        text = "".join(output.get("text", "") for output in cell.outputs)
        assert text.startswith("Correct"), text


def test_fixture_learner_copy_structure():
    original = nbformat.read(FIXTURE, as_version=4)
    copy, report = learner.learner_notebook(original, name=FIXTURE.name)
    _assert_learner_structure(copy, original)
    assert report.exercises == ["fixture-ex-1", "fixture-ex-2"]
    assert report.placeholders == 2 and report.checks == 2
    placeholders = [c.source for c in copy.cells if learner.PLACEHOLDER_TAG in _tags(c)]
    # The placeholder names what the check reads, not the solution's helper variables.
    assert "`n_wizard`" in placeholders[0]
    assert "`share_without`" in placeholders[1] and "wizard_turns" not in placeholders[1]
    assert not any("share_without = " in c.source for c in copy.cells), "no solution code is left"
    assert nbformat.read(FIXTURE, as_version=4) == original, "the chapter itself is not modified"


def test_fixture_learner_copy_runs_to_first_exercise(tmp_path):
    copy, _ = learner.learner_notebook(nbformat.read(FIXTURE, as_version=4), name=FIXTURE.name)
    head, first = _up_to_first_placeholder(copy)
    assert first is not None
    _execute(head, tmp_path)
    # The unsolved exercise fails loudly, telling the student what to do.
    head.cells.append(copy.cells[first])
    with pytest.raises(CellExecutionError, match="NotImplementedError"):
        _execute(head, tmp_path)


def test_command_line_writes_copies(tmp_path):
    out = tmp_path / "learner"
    result = subprocess.run(
        [sys.executable, "-m", "utils.teaching.learner", "--notebooks", str(FIXTURES), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (out / FIXTURE.name).is_file()
    assert "2 exercises, 2 placeholders, 2 checks kept" in result.stdout


def test_command_line_reports_unknown_names(tmp_path, capsys):
    assert learner.main(["--notebooks", str(FIXTURES), "--out", str(tmp_path), "no_such_chapter"]) == 1
    assert "no_such_chapter" in capsys.readouterr().err


def _notebook(*cells: nbformat.NotebookNode) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = list(cells)
    return notebook


def test_unclosed_or_unopened_solution_is_an_error():
    md = nbformat.v4.new_markdown_cell
    unclosed = _notebook(md("```{solution-start} x-ex-1\n:class: dropdown\n```"), nbformat.v4.new_code_cell("a = 1"))
    with pytest.raises(learner.LearnerCopyError, match="x-ex-1"):
        learner.learner_notebook(unclosed)
    with pytest.raises(learner.LearnerCopyError, match="never opened"):
        learner.learner_notebook(_notebook(md("```{solution-end}\n```")))


def test_single_solution_directive_and_loose_solution_cells_are_removed():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    solution = code("answer = 42")
    solution.metadata["tags"] = ["solution"]
    notebook = _notebook(
        md("```{exercise} Q\n:label: y-ex-1\n\nWhat?\n```"),
        md("```{solution} y-ex-1\n:class: dropdown\n\nForty-two.\n```"),
        solution,
        code("print(answer)"),
    )
    copy, report = learner.learner_notebook(notebook)
    sources = [cell.source for cell in copy.cells]
    assert not any("Forty-two" in s or "answer = 42" in s for s in sources)
    assert report.placeholders == 1 and "`answer`" in sources[-2]


def test_every_chapter_is_there():
    assert {path.stem for path in CHAPTERS} >= CHAPTERS_WITH_EXERCISES


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_learner_copy_opens_and_runs(chapter, tmp_path):
    out = tmp_path / "learner"
    assert learner.main(["--notebooks", str(chapter.parent), "--out", str(out), chapter.stem]) == 0
    copy = nbformat.read(out / chapter.name, as_version=4)
    original = nbformat.read(chapter, as_version=4)
    _assert_learner_structure(copy, original)
    placeholders = sum(learner.PLACEHOLDER_TAG in _tags(c) for c in copy.cells)
    exercises = sum("{exercise}" in c.source for c in original.cells if c.cell_type == "markdown")
    if chapter.stem in CHAPTERS_WITH_EXERCISES:
        assert exercises >= 3, f"{chapter.name} needs at least three exercises"
        assert placeholders >= exercises, "every exercise has a placeholder for the student's code"
    # Run the whole copy as a student who has not solved anything yet would (each placeholder and the
    # cells that need its answer fail), then, in the same kernel, the original solutions and checks
    # with the checkers' expected values recorded: none may show in the copy's outputs.
    head, first = _up_to_first_placeholder(copy)
    run = nbformat.from_dict(copy)
    run.cells.append(nbformat.v4.new_code_cell(_reveal_expected_values(original)))
    client = NotebookClient(
        run, timeout=600, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(out)}}
    )
    client.execute()
    errors = [i for i, cell in enumerate(run.cells[: len(head.cells)]) if _error_of(cell)]
    assert errors == [], f"cells before the first exercise fail: {[_error_of(run.cells[i]) for i in errors]}"
    if first is not None:
        assert "NotImplementedError" in _error_of(run.cells[first])
    revealed = _outputs_text(run.cells[-1])
    assert _EXPECTED in revealed, revealed
    expected = json.loads(revealed.split(_EXPECTED, 1)[1].strip().splitlines()[0])
    if chapter.stem in CHAPTERS_WITH_EXERCISES:
        assert expected, "the solutions were run against their checks"
    shown = "\n".join(_outputs_text(cell) for cell in run.cells[:-1])
    leaks = [text for value in expected for text in _spellings(value) if text in shown]
    assert leaks == [], f"{chapter.name}: the learner copy shows exercise answers: {leaks}"


_EXPECTED = "EXPECTED-VALUES"


def _reveal_expected_values(original: nbformat.NotebookNode) -> str:
    """Code that runs ``original``'s solutions and checks in order, recording each checker's expected
    value, and prints them as JSON after :data:`_EXPECTED`."""
    report = learner.LearnerReport(Path("x"), Path("x"))
    cells, _ = learner._tag_solutions(nbformat.from_dict(original).cells, "x", report)
    sources = [
        cell.source
        for cell in cells
        if cell.cell_type == "code" and ({learner.SOLUTION_TAG, learner.CHECK_TAG} & set(_tags(cell)))
    ]
    return "\n".join(
        [
            "import json as _json",
            "import utils.teaching.exercises as _exercises",
            "_expected = []",
            "_number, _mapping = _exercises._compare_number, _exercises._compare_mapping",
            "def _spy_number(answer, expected, *args, **kwargs):",
            "    _expected.append(expected)",
            "    return _number(answer, expected, *args, **kwargs)",
            "def _spy_mapping(answer, expected, *args, **kwargs):",
            "    _expected.append({str(key): value for key, value in dict(expected).items()})",
            "    return _mapping(answer, expected, *args, **kwargs)",
            "_exercises._compare_number, _exercises._compare_mapping = _spy_number, _spy_mapping",
            f"for _code in {sources!r}:",
            "    try:",
            "        exec(_code, globals())",
            "    except Exception as _error:",
            "        print('not run:', type(_error).__name__, _error)",
            f"print({_EXPECTED!r}, _json.dumps(_expected, default=float))",
        ]
    )


def _error_of(cell: nbformat.NotebookNode) -> str:
    return next((f"{o.ename}: {o.evalue}" for o in cell.get("outputs", []) if o.output_type == "error"), "")


def _outputs_text(cell: nbformat.NotebookNode) -> str:
    """Everything a cell's outputs hold: streams, every data bundle (glue records too), errors."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts += [value if isinstance(value, str) else json.dumps(value) for value in output.get("data", {}).values()]
        parts.append(output.get("evalue", ""))
    return "\n".join(parts)


def _spellings(value: object) -> list[str]:
    """How an expected value would be printed. Whole counts and simple fractions (a half, a third:
    common on a few demo records) show up in any table, so only other values are searched for."""
    if isinstance(value, dict):
        return [text for item in value.values() for text in _spellings(item)]
    if not isinstance(value, float) or math.isclose(value, float(Fraction(value).limit_denominator(12))):
        return []
    return [repr(value), f"{value:.4f}", f"{value:.2%}"]


def test_loose_solution_is_named_after_its_own_exercise_and_tagged_markdown_goes_too():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    solution, explanation = code("first = 1"), md("Because one comes first.")
    solution.metadata["tags"] = ["solution"]
    explanation.metadata["tags"] = ["solution"]
    notebook = _notebook(
        md("```{exercise} One\n:label: z-ex-1\n```"),
        solution,
        md("```{exercise} Two\n:label: z-ex-2\n```"),
        explanation,
    )
    copy, report = learner.learner_notebook(notebook)
    placeholders = [c.source for c in copy.cells if learner.PLACEHOLDER_TAG in _tags(c)]
    assert len(placeholders) == 1 and "exercise z-ex-1" in placeholders[0] and "z-ex-2" not in placeholders[0]
    assert not any("one comes first" in c.source for c in copy.cells)
    assert report.removed_cells == 2 and report.exercises == ["z-ex-1", "z-ex-2"]


def test_a_cell_computing_an_answer_for_the_teachers_guide_is_removed():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    for_teachers = code('glue("teach_share", share_of_edits(train), display=False)')
    for_teachers.metadata["tags"] = ["remove-cell", learner.ANSWER_TAG]
    kept = code("train = load()")
    kept.metadata["tags"] = ["remove-cell"]
    copy, report = learner.learner_notebook(_notebook(md("# T"), kept, for_teachers))
    sources = [c.source for c in copy.cells]
    assert "train = load()" in sources and not any("teach_share" in s for s in sources)
    assert report.removed_cells == 1


def test_every_chapter_cell_that_glues_an_answer_for_the_teachers_guide_is_tagged():
    # book/teaching.md quotes exercise answers glued by hidden cells; each such cell must carry the
    # answer tag, or the learner copies would compute and hold the answers
    teaching = (REPO / "book" / "teaching.md").read_text(encoding="utf-8")
    for chapter in CHAPTERS:
        for cell in nbformat.read(chapter, as_version=4).cells:
            if cell.cell_type == "code" and ("teach_" in cell.source or "_ex2_" in cell.source):
                names = [n for n in teaching.split("::")[1:] if n.split(":")[0] in cell.source]
                if names:
                    assert learner.ANSWER_TAG in _tags(cell), f"{chapter.name}: {cell.source[:80]}"


def test_no_learner_copy_glues_a_value_that_only_a_model_answer_shows():
    """A value glued for a model answer (shown only inside a solution) is an exercise's answer: the
    cell computing it must go with the solutions (tag ``answer``), or the learner copy computes it
    (issue 36, item 13: cross_dataset's copy computed cross-ex-3's mean F1 per dataset)."""
    from utils.book.chapters import book_source

    role = re.compile(r"\{glue(?::\w+)?\}`([^`:]+)")
    for chapter in CHAPTERS:
        notebook = nbformat.read(chapter, as_version=4)
        inside, in_solutions, elsewhere = False, set(), set()
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                continue
            if "{solution-start}" in cell.source:
                inside = True
            # the values as the book reads them: glue roles (written {eval}`name` for JupyterLab)
            (in_solutions if inside else elsewhere).update(role.findall(book_source(cell.source)))
            if "{solution-end}" in cell.source:
                inside = False
        # the authors' reported numbers are quoted in model answers too: they are no exercise's answer
        answers = {key for key in in_solutions - elsewhere if "reported" not in key}
        copy, _ = learner.learner_notebook(notebook, name=chapter.name)
        for cell in copy.cells:
            if cell.cell_type == "code":
                for key in answers:
                    assert f'glue("{key}"' not in cell.source, f"{chapter.name} computes {key} for a model answer"
