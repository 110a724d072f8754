"""A chapter's Time to learn is computed from its words and its measured run time."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest

from utils.chapters import glue, prose_words, time_to_learn


def _notebook(path: Path, *cells: tuple[str, str]) -> Path:
    path.write_text(
        json.dumps({"cells": [{"cell_type": kind, "metadata": {}, "source": text} for kind, text in cells]}),
        encoding="utf-8",
    )
    return path


def test_prose_words_count_text_cells_and_exercises_but_not_code(tmp_path: Path) -> None:
    notebook = _notebook(
        tmp_path / "chapter.ipynb",
        ("markdown", "# One two\n\nthree [four](https://example.org/a/long/address) {cite:p}`key`\n"),
        ("code", "these words are code and do not count\n"),
        ("markdown", "```python\nnot counted either\n```\n```{exercise} Five six\n:label: x-ex-1\n\nseven\n```\n"),
    )
    # "#", One, two, three, [four], the role as one word; the exercise's title and text
    assert prose_words(notebook) == 6 + 2 + 1


def test_time_to_learn_adds_reading_at_the_stated_speed_and_run_time(tmp_path: Path) -> None:
    notebook = _notebook(tmp_path / "chapter.ipynb", ("markdown", "word " * 400))
    assert time_to_learn(notebook, 30).startswith("3 minutes: 400 words of prose at 200 words a minute (2 min)")
    assert time_to_learn(notebook, 30, words_per_minute=100).startswith("5 minutes")


def test_a_myst_page_is_counted_without_its_front_matter(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    text = "---\nkernelspec:\n  name: python3\n---\n\n# Title\n\n```{code-cell} ipython3\nx = 1\n```\n"
    page.write_text(text, "utf-8")
    assert prose_words(page) == 2


def test_every_chapter_finishes_with_one_call_and_none_copies_the_timing_cell() -> None:
    import json

    repo = Path(__file__).resolve().parents[1]
    chapters = sorted((repo / "notebooks").glob("*.ipynb"))
    assert len(chapters) >= 6
    for chapter in chapters:
        code = ["".join(cell["source"]) for cell in json.loads(chapter.read_text(encoding="utf-8"))["cells"]
                if cell["cell_type"] == "code"]
        assert not any("time_to_learn(" in source for source in code), f"{chapter.name} copies the timing cell"
        assert sum(f'chapters.finish("{chapter.name}"' in source for source in code) == 1, chapter.name


def _chapter_code() -> dict[str, list[str]]:
    repo = Path(__file__).resolve().parents[1]
    return {
        chapter.name: ["".join(cell["source"]) for cell in json.loads(chapter.read_text(encoding="utf-8"))["cells"]
                       if cell["cell_type"] == "code"]
        for chapter in sorted((repo / "notebooks").glob("*.ipynb"))
    }


def test_every_chapter_reaches_glue_one_way() -> None:
    for name, code in _chapter_code().items():
        joined = "\n".join(code)
        assert "from utils.chapters import glue" in joined, name
        assert "myst_nb import glue" not in joined and "def glue(" not in joined, f"{name} defines its own glue"


def test_glue_without_the_books_tools_shows_the_value_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    import IPython.display

    # What IPython's display prints depends on whether a shell exists in this process (the repr in
    # one, str without), which another test on the same worker may have started: record the calls.
    shown: list[object] = []
    monkeypatch.setattr(IPython.display, "display", lambda *values, **_: shown.extend(values))
    monkeypatch.setitem(sys.modules, "myst_nb", None)  # a plain Jupyter session: importing it fails
    glue("hidden", "not shown", display=False)
    glue("shown", "a value worth showing")
    assert shown == ["a value worth showing"]


def test_no_chapter_stops_on_an_assert_about_its_data() -> None:
    """What a chapter states of the data is a claim (each dataset's ``claims`` module), shown as a
    sentence when a copy differs; checks of the atlas's own code are tests. Exercise cells (a
    learner's answer, its check, its grading) are not the chapter's statements."""
    repo = Path(__file__).resolve().parents[1]
    exercise_tags = {"solution", "check", "grade"}
    for chapter in sorted((repo / "notebooks").glob("*.ipynb")):
        cells = json.loads(chapter.read_text(encoding="utf-8"))["cells"]
        asserting = [index for index, cell in enumerate(cells) if cell["cell_type"] == "code"
                     and not exercise_tags & set(cell["metadata"].get("tags", []))
                     and any(line.lstrip().startswith("assert ") for line in "".join(cell["source"]).splitlines())]
        assert asserting == [], f"{chapter.name}: cells {asserting} assert"


def test_the_finishing_call_leaves_no_stray_output() -> None:
    # finish returns its note; as a cell's last bare expression it would print again as a quoted
    # string (or as '' when every claim holds) under the chapter's last heading
    for name, code in _chapter_code().items():
        finishing = next(source for source in code if f'chapters.finish("{name}"' in source)
        assert f' = chapters.finish("{name}"' in finishing, name


# Cells the reader does not see as code: the book removes or folds them (remove-cell, remove-input,
# hide-input, hide-output, hide-cell), and exercise cells (a solution, its check, its grading) sit
# in the exercise's own frame, not in the chapter's run of calls and results.
_NOT_A_VISIBLE_CALL = {"remove-cell", "remove-input", "solution", "check", "grade"}


def _is_visible_call(cell: dict) -> bool:
    tags = set(cell["metadata"].get("tags", []))
    return (cell["cell_type"] == "code" and not _NOT_A_VISIBLE_CALL & tags
            and not any(tag.startswith("hide-") for tag in tags))


def _calls_without_prose_between(cells: list[dict]) -> list[tuple[int, int]]:
    """Index pairs of visible code cells with no markdown between them; a hidden cell between two
    visible ones does not put prose between them."""
    shown = [(index, _is_visible_call(cell)) for index, cell in enumerate(cells)
             if _is_visible_call(cell) or cell["cell_type"] == "markdown"]
    return [(first, second) for (first, first_is_call), (second, second_is_call) in itertools.pairwise(shown)
            if first_is_call and second_is_call]


def test_the_prose_rule_sees_through_hidden_cells_and_skips_them() -> None:
    def cell(kind: str, *tags: str) -> dict:
        return {"cell_type": kind, "metadata": {"tags": list(tags)}, "source": ""}

    cells = [cell("code"), cell("code", "remove-cell"), cell("code"),  # 0 and 2: a hidden cell is no prose
             cell("markdown"), cell("code"), cell("code", "remove-input"), cell("code", "hide-input"),
             cell("markdown"), cell("code"), cell("code", "solution"), cell("code", "check")]
    assert _calls_without_prose_between(cells) == [(0, 2)]


def test_no_two_visible_code_cells_follow_each_other_without_prose() -> None:
    """The chapters' skeleton: a visible cell is one call and one result, with prose between that
    says what the next result shows or how to read it."""
    repo = Path(__file__).resolve().parents[1]
    chapters = sorted((repo / "notebooks").glob("*.ipynb"))
    assert len(chapters) >= 6
    runs = {chapter.name: pairs for chapter in chapters
            if (pairs := _calls_without_prose_between(
                json.loads(chapter.read_text(encoding="utf-8"))["cells"]))}
    assert runs == {}, f"visible code cells (by cell index) without prose between: {runs}"


def test_every_chapter_states_its_time_to_learn_in_a_line_that_reads_outside_the_book() -> None:
    """Regression: JupyterLab showed "Time to learn: time_to_learn:s" (jupyterlab-myst cannot resolve the
    book's glue); the notebook's line is a sentence, which the book's build turns into the measured value."""
    import json

    from utils.chapters import TIME_TO_LEARN_BOOK_LINE, TIME_TO_LEARN_LINE, book_source

    repo = Path(__file__).resolve().parents[1]
    for chapter in sorted((repo / "notebooks").glob("*.ipynb")):
        markdown = ["".join(cell["source"]) for cell in json.loads(chapter.read_text(encoding="utf-8"))["cells"]
                    if cell["cell_type"] == "markdown"]
        assert sum(TIME_TO_LEARN_LINE in text for text in markdown) == 1, chapter.name
        assert not any("`time_to_learn" in text for text in markdown), f"{chapter.name} glues its time in prose"
        assert sum(TIME_TO_LEARN_BOOK_LINE in book_source(text) for text in markdown) == 1, chapter.name
    assert "{glue:text}`time_to_learn:s`" in TIME_TO_LEARN_BOOK_LINE


def test_finish_prints_the_time_to_learn_for_a_reader_outside_the_book(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import time

    from utils.chapters import finish

    notebook = _notebook(tmp_path / "chapter.ipynb", ("markdown", "word " * 400))
    finish(notebook, started=time.perf_counter())
    printed = capsys.readouterr().out
    assert printed.startswith("Time to learn: ") and "400 words of prose" in printed, printed


def test_the_book_reads_each_chapter_with_its_measured_time_to_learn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build's source-read hook (book/_ext/atlas_book.py) turns the notebook's line into the glued one."""
    from types import SimpleNamespace

    from utils.chapters import TIME_TO_LEARN_BOOK_LINE, TIME_TO_LEARN_LINE

    repo = Path(__file__).resolve().parents[1]
    monkeypatch.syspath_prepend(str(repo / "book" / "_ext"))
    import atlas_book

    app = SimpleNamespace(env=SimpleNamespace(doc2path=lambda docname: str(repo / f"{docname}.ipynb")))
    for chapter in sorted((repo / "notebooks").glob("*.ipynb")):
        source = [chapter.read_text(encoding="utf-8")]
        atlas_book._chapter_book_lines(app, f"notebooks/{chapter.stem}", source)
        assert TIME_TO_LEARN_BOOK_LINE in source[0] and TIME_TO_LEARN_LINE not in source[0], chapter.name
    page = ["- **Time to learn**: " + TIME_TO_LEARN_LINE]
    atlas_book._chapter_book_lines(app, "book/teaching", page)  # a page that is not a chapter stays as it is
    assert page == ["- **Time to learn**: " + TIME_TO_LEARN_LINE]
