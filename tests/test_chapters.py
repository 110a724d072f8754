"""A chapter's Time to learn is computed from its words and its measured run time."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest

from utils.book.chapters import glue, prose_words, time_to_learn


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
        assert "from utils.book.chapters import glue" in joined, name
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

    from utils.book.chapters import TIME_TO_LEARN_BOOK_LINE, TIME_TO_LEARN_LINE, book_source

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

    from utils.book.chapters import finish

    notebook = _notebook(tmp_path / "chapter.ipynb", ("markdown", "word " * 400))
    finish(notebook, started=time.perf_counter())
    printed = capsys.readouterr().out
    assert printed.startswith("Time to learn: ") and "400 words of prose" in printed, printed


def test_the_book_reads_each_chapter_with_its_measured_time_to_learn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build's source-read hook (book/_ext/atlas_book.py) turns the notebook's line into the glued one."""
    from types import SimpleNamespace

    from utils.book.chapters import BIBLIOGRAPHY_LINK, TIME_TO_LEARN_BOOK_LINE, TIME_TO_LEARN_LINE

    repo = Path(__file__).resolve().parents[1]
    monkeypatch.syspath_prepend(str(repo / "book" / "_ext"))
    import atlas_book

    app = SimpleNamespace(env=SimpleNamespace(doc2path=lambda docname: str(repo / f"{docname}.ipynb")))
    for chapter in sorted((repo / "notebooks").glob("*.ipynb")):
        source = [chapter.read_text(encoding="utf-8")]
        atlas_book._chapter_book_lines(app, f"notebooks/{chapter.stem}", source)
        assert TIME_TO_LEARN_BOOK_LINE in source[0] and TIME_TO_LEARN_LINE not in source[0], chapter.name
        # the values and citations written for JupyterLab are the book's roles (issue 48)
        assert "{eval}" not in source[0] and BIBLIOGRAPHY_LINK not in source[0], chapter.name
        assert "{glue:text}`" in source[0] and "{cite:" in source[0], chapter.name
    page = ["- **Time to learn**: " + TIME_TO_LEARN_LINE]
    atlas_book._chapter_book_lines(app, "book/teaching", page)  # a page that is not a chapter stays as it is
    assert page == ["- **Time to learn**: " + TIME_TO_LEARN_LINE]


# -- a chapter's values and citations: written to read in JupyterLab, read by the book as its roles ---------


def _chapter_markdown() -> dict[str, list[str]]:
    repo = Path(__file__).resolve().parents[1]
    return {
        chapter.name: ["".join(cell["source"]) for cell in json.loads(chapter.read_text(encoding="utf-8"))["cells"]
                       if cell["cell_type"] == "markdown"]
        for chapter in sorted((repo / "notebooks").glob("*.ipynb"))
    }


def _citation_labels() -> dict[str, str]:
    """Each bibliography key's label as the book shows it (``Dinan et al., 2019a``): the book's own label
    style (book/_ext/atlas_book.py) on every file the book cites from."""
    from pybtex.database import parse_file

    from utils.folder_files import bibliography_files

    repo = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(repo / "book" / "_ext"))
    try:
        import atlas_book
    finally:
        sys.path.remove(str(repo / "book" / "_ext"))
    entries = {key: entry for path in bibliography_files() for key, entry in parse_file(str(path)).entries.items()}
    labels = atlas_book._author_year_style()().label_style.format_labels(list(entries.values()))
    return dict(zip(entries, labels, strict=True))


def test_no_chapter_writes_a_role_jupyterlab_cannot_resolve() -> None:
    """Issue 48: JupyterLab showed ``jwhr_copied_median:.0f`` for a glued number and "ⓘ oda2023jwhr" for a
    citation. A chapter's markdown holds no glue or cite role; each value is an inline expression the
    book reads as a glue role, each citation a link to the bibliography it reads as a citation."""
    from utils.book.chapters import BOOK_ONLY_ROLES, EVAL, glued_role

    markdown = _chapter_markdown()
    assert len(markdown) >= 6
    roles = {name: found for name, cells in markdown.items()
             if (found := [match.group(0) for text in cells for match in BOOK_ONLY_ROLES.finditer(text)])}
    assert roles == {}, f"roles JupyterLab shows as keys: {roles}"
    expressions = [match.group("expression") for cells in markdown.values() for text in cells
                   for match in EVAL.finditer(text)]
    assert len(expressions) >= 100
    for expression in expressions:
        glued_role(expression)  # raises on an expression the book cannot read as a glued value


def test_every_citation_link_shows_the_label_the_book_shows() -> None:
    """A citation written for JupyterLab is ``([label](../book/bibliography.md#cite-key))`` or
    ``[Author (year)](...)``; its text is the label the book's bibliography style gives the key's entry
    (book/references.bib and each dataset folder's citation.bib), so the two cannot drift apart."""
    from utils.book.chapters import BIBLIOGRAPHY_LINKS, CITE_P, CITE_T

    labels = _citation_labels()
    wrong: list[str] = []
    cited = 0
    for name, cells in _chapter_markdown().items():
        for text in cells:
            links = [match.group(0) for match in BIBLIOGRAPHY_LINKS.finditer(text)]
            parenthetical = {match.group(0)[1:-1]: match for match in CITE_P.finditer(text)}
            textual = {match.group(0): match for match in CITE_T.finditer(text)}
            for link in links:
                cited += 1
                if link in parenthetical:
                    match, expected = parenthetical[link], labels.get(parenthetical[link].group("key"))
                elif link in textual:
                    match = textual[link]
                    who, _, year = (labels.get(match.group("key")) or "").rpartition(", ")
                    expected = f"{who} ({year})" if who else None
                else:
                    wrong.append(f"{name}: {link} is neither ([label](...)) nor [Author (year)](...)")
                    continue
                if expected is None:
                    wrong.append(f"{name}: {link} cites a key no bibliography file holds")
                elif match.group("text") != expected:
                    wrong.append(f"{name}: {link} should read {expected!r}")
    assert cited >= 45
    assert wrong == []


def test_the_book_reads_values_and_citations_as_its_roles() -> None:
    from utils.book.chapters import book_roles, book_source, glued_role, markdown_glued

    text = ('The median copies {eval}`f"{jwhr_copied_median:.0f}"`% in {eval}`jwhr_loaded` '
            "([Oda and Baobab, Inc., 2023](../book/bibliography.md#cite-oda2023jwhr)); "
            "[Dziri et al. (2022c)](../book/bibliography.md#cite-dziri2022origin) say so: {eval}`reading`.")
    assert book_roles(text, {"reading"}) == (
        "The median copies {glue:text}`jwhr_copied_median:.0f`% in {glue:text}`jwhr_loaded` "
        "{cite:p}`oda2023jwhr`; {cite:t}`dziri2022origin` say so: {glue:md}`reading`.")
    assert book_source(text) == book_roles(text)
    # other links, and text with no expression, are left as they are
    plain = "See [the data page](../book/data.md) and ([a page](https://example.org))."
    assert book_roles(plain) == plain
    assert markdown_glued('glue("reading", Markdown(text), display=False)\nglue("n", 3)') == {"reading"}
    for expression in ("1 + 1", "f'{x:.1f}'", 'f"{x:.1f} and {y}"', "x.y"):
        with pytest.raises(ValueError, match="inline expression"):
            glued_role(expression)


def test_a_citation_and_a_value_count_as_one_word_each(tmp_path: Path) -> None:
    link = "([Oda and Baobab, Inc., 2023](../book/bibliography.md#cite-oda2023jwhr))"
    written = _notebook(tmp_path / "lab.ipynb", ("markdown", f"one {link} copies {{eval}}`f\"{{x:.0f}}\"` words"))
    book = _notebook(tmp_path / "book.ipynb", ("markdown", "one {cite:p}`oda2023jwhr` copies {glue:text}`x:.0f` words"))
    assert prose_words(written) == prose_words(book) == 5


def test_glue_binds_the_name_in_the_kernel_for_jupyterlab_s_inline_expressions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import IPython

    namespace: dict[str, object] = {}
    monkeypatch.setattr(IPython, "get_ipython", lambda: type("Shell", (), {"user_ns": namespace})())
    monkeypatch.setitem(sys.modules, "myst_nb", None)
    glue("jwhr_copied_median", 61.7, display=False)
    glue("not a name", 1, display=False)
    assert namespace == {"jwhr_copied_median": 61.7}


def test_a_value_glued_as_markdown_is_glued_under_a_name_the_build_can_read() -> None:
    """The build reads ``{eval}`name``` as ``{glue:md}`` when the chapter glues ``name`` as ``Markdown``
    (:func:`utils.book.chapters.markdown_glued`), which it finds by the name written out in the call."""
    import re

    from utils.book.chapters import markdown_glued

    for name, code in _chapter_code().items():
        joined = "\n".join(code)
        calls = re.findall(r"\bglue\(\s*([^,]+),\s*Markdown\(", joined)
        assert len(calls) == len(markdown_glued(joined)), f"{name}: {calls}"
