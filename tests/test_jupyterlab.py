"""The live viewers in a real JupyterLab: page through and search every dataset in a browser.

The test starts JupyterLab on 127.0.0.1 (a free port, a token, a root directory and Jupyter
directories of its own), writes a small notebook with one viewer per dataset (the calls the
chapters make: ``browse(...)``, ``wise_widgets.viewer(...)``, ``jwhr_widgets.viewer(...)``), opens it
in Debian's Chromium through Playwright, runs it, and in every viewer clicks "next" and then searches for
a word of one other dialogue only, checking that the rendered dialogue changes each time and that the page raises no
error. It also opens a learner copy of the WoW chapter and checks that jupyterlab-myst (the ``lab`` extra) renders
its exercises as titled exercises, not as raw code blocks. The kernel reads the demo samples (``$ATLAS_OFFLINE``,
an empty data directory). Screenshots
go to the test's temporary directory and to ``/tmp/jlab-screenshot-*.png`` for a human to look at.

Skipped when Chromium, Playwright or JupyterLab is missing.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab_server import QUIET_OPTIONS, LabServer, free_port, jupyter_env, new_token, start

import utils
from conftest import CHROMIUM, CHROMIUM_ARGS, REPO, local_only
from utils.book.chapters import EVAL
from utils.records import Dialogue
from utils.teaching.learner import learner_notebook

pytestmark = pytest.mark.browser

SCREENSHOTS = Path("/tmp")
#: Seconds for the kernel to start and every viewer to appear.
READY_TIMEOUT_MS = 60_000
#: Seconds for a viewer to answer a click or a search.
STEP_TIMEOUT_MS = 15_000

playwright_sync = pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)", allow_module_level=True)
if importlib.util.find_spec("jupyterlab") is None:
    pytest.skip("JupyterLab is not installed (pip install -e '.[lab]')", allow_module_level=True)

SETUP = """\
import warnings

import utils
from utils.datasets.wise import render as wise_render
from utils.book.widgets import browse
from utils.datasets.jwhr import widgets as jwhr_widgets
from utils.datasets.wise import widgets as wise_widgets

warnings.simplefilter("ignore", utils.DemoDataWarning)"""

#: One viewer per dataset, called as the chapters call them: dataset -> the cell that shows it.
VIEWERS: dict[str, str] = {
    "wow": 'browse(utils.load("wow", "valid_seen"))',
    "wow_kilt": 'browse(utils.load("wow_kilt", "train"))',
    "faithdial": 'browse(utils.load("faithdial", "train"))',
    "faithdial_audit": 'browse(utils.load("faithdial_audit", "gold_wow"))',
    "wise": 'wise_widgets.viewer(utils.load("wise", "train"), glosses=wise_render.demo_glosses())',
    "jwhr": 'jwhr_widgets.viewer({"answered": utils.load("jwhr", "answered"), '
    '"not_answered": utils.load("jwhr", "not_answered")})',
}


def _run_all_cells(page: Any) -> None:
    """Wait for the open notebook's kernel, then run every cell (JupyterLab's own Run All)."""
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.sessionContext"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel",
        timeout=READY_TIMEOUT_MS,
    )
    page.evaluate(
        "async () => { const panel = window.jupyterapp.shell.currentWidget;"
        " await panel.sessionContext.ready;"
        " await window.jupyterapp.commands.execute('notebook:run-all-cells'); }"
    )


def _dialogues(name: str) -> list[Dialogue]:
    """The dialogues the viewer ``name`` starts on (the JWHR viewer starts on "all" sessions)."""
    if name == "jwhr":
        return [*utils.load("jwhr", "answered"), *utils.load("jwhr", "not_answered")]
    split = {"wow": "valid_seen", "wow_kilt": "train", "faithdial": "train", "faithdial_audit": "gold_wow"}
    return list(utils.load(name, split.get(name, "train")))


def _search_text(name: str) -> Callable[[Dialogue], str]:
    from utils.book.widgets import _default_search_text
    from utils.datasets.jwhr import render as jwhr
    from utils.datasets.wise import render as wise

    return {"jwhr": jwhr.search_text, "wise": wise.search_text}.get(name, _default_search_text)


def distinctive_term(dialogues: Sequence[Dialogue], search_text: Callable[[Dialogue], str]) -> tuple[int, str]:
    """A dialogue other than the second (where "next" leaves the viewer) and a word of one of its
    utterances that the viewer's search finds in that dialogue only."""
    for index in [i for i in range(len(dialogues)) if i != 1]:
        for turn in dialogues[index].turns:
            words = re.findall(r"[A-Za-z]{5,}", turn.text)
            for candidate in words or [turn.text[i : i + 3] for i in range(len(turn.text) - 2)]:
                if [i for i, d in enumerate(dialogues) if candidate.lower() in search_text(d).lower()] == [index]:
                    return index, candidate
    raise AssertionError("no word singles out one dialogue")


# -- fixtures -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    scratch = tmp_path_factory.mktemp("jupyterlab")
    root = scratch / "root"
    root.mkdir()
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(SETUP)] + [nbformat.v4.new_code_cell(src) for src in VIEWERS.values()]
    nbformat.write(notebook, root / "viewers.ipynb")
    # A learner copy as `make learner` writes it, for the exercise rendering test.
    (root / "learner").mkdir()
    copy, _ = learner_notebook(nbformat.read(REPO / "notebooks" / "wow.ipynb", as_version=4), name="wow.ipynb")
    nbformat.write(copy, root / "learner" / "wow.ipynb")
    # Every cell stays in the page (no windowing), so each viewer can be found and clicked; and no
    # question about Jupyter's news covers the page.
    for plugin, values in {
        "notebook-extension/tracker": {"windowingMode": "none"},
        "apputils-extension/notification": {"fetchNews": "false"},
    }.items():
        settings = scratch / "settings" / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps(values), encoding="utf-8")
    # The chapters as a reader opens them with `make lab`, for the test that they read as sentences there.
    shutil.copytree(REPO / "notebooks", root / "chapters", ignore=shutil.ignore_patterns(".*"))
    (scratch / "data").mkdir()
    env = jupyter_env(
        scratch,
        PYTHONPATH=str(REPO),
        JUPYTERLAB_SETTINGS_DIR=str(scratch / "settings"),
        ATLAS_OFFLINE="1",
        ATLAS_DATA_DIR=str(scratch / "data"),
        ATLAS_CACHE_DIR=str(scratch / "cache"),
    )
    port, token = free_port(), new_token()
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        *QUIET_OPTIONS,
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
    ]
    server = start(command, port=port, token=token, cwd=root, env=env, log=scratch / "jupyterlab.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's Chromium through Playwright, one for the module (Playwright's sync API runs one at a time)."""
    with playwright_sync.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def notebook_page(lab: LabServer, chromium: Any) -> Iterator[tuple[Any, list[str]]]:
    """The notebook open in Chromium with every cell run, and the page errors seen so far."""
    context = chromium.new_context(viewport={"width": 1280, "height": 1000}, device_scale_factor=1)
    try:
        context.route("**/*", local_only)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))
        page.goto(f"{lab.url}/lab/tree/viewers.ipynb?token={lab.token}")
        _run_all_cells(page)
        search_boxes = page.locator("input[placeholder='search topic or text']")
        playwright_sync.expect(search_boxes).to_have_count(len(VIEWERS), timeout=READY_TIMEOUT_MS)
        yield page, errors
    finally:
        context.close()


# -- the test -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(VIEWERS))
def test_viewer_pages_and_searches_in_jupyterlab(
    name: str, notebook_page: tuple[Any, list[str]], tmp_path: Path
) -> None:
    page, errors = notebook_page
    expect = playwright_sync.expect
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(1 + list(VIEWERS).index(name))
    cell.scroll_into_view_if_needed()
    dialogues = _dialogues(name)
    status = cell.locator(".widget-html-content").first
    view = cell.locator(".widget-html-content").last
    expect(status).to_contain_text(f"1 of {len(dialogues)} matching", timeout=STEP_TIMEOUT_MS)
    first = view.inner_text()
    assert first.strip(), "the viewer rendered nothing"

    cell.locator("button[title='next']").click()
    expect(status).to_contain_text(f"2 of {len(dialogues)} matching", timeout=STEP_TIMEOUT_MS)
    expect(view).not_to_have_text(first, timeout=STEP_TIMEOUT_MS)
    second = view.inner_text()

    _, term = distinctive_term(dialogues, _search_text(name))
    search = cell.locator("input[placeholder='search topic or text']")
    search.fill(term)
    search.press("Enter")  # the box sends its value on Enter (continuous_update=False)
    expect(status).to_contain_text("1 of 1 matching", timeout=STEP_TIMEOUT_MS)
    expect(view).to_contain_text(term, timeout=STEP_TIMEOUT_MS)
    # the search leaves the second dialogue for the only one that matches
    expect(view).not_to_have_text(second, timeout=STEP_TIMEOUT_MS)

    shot = tmp_path / f"jupyterlab-{name}.png"
    cell.screenshot(path=str(shot))
    shutil.copyfile(shot, SCREENSHOTS / f"jlab-screenshot-{name}.png")
    if name == list(VIEWERS)[-1]:
        page.screenshot(path=str(tmp_path / "jupyterlab-page.png"))
        shutil.copyfile(tmp_path / "jupyterlab-page.png", SCREENSHOTS / "jlab-screenshot-page.png")
    assert errors == [], f"page errors: {errors}"


#: The first exercise of the WoW chapter: its title, and how its directive starts in the Markdown source.
WOW_FIRST_EXERCISE = re.compile(r"Count the wizard[’']s turns")
WOW_FIRST_LABEL = ":label: wow-ex-1"


def test_learner_copy_shows_exercise_titles_in_jupyterlab(lab: LabServer, chromium: Any, tmp_path: Path) -> None:
    """jupyterlab-myst renders ``{exercise}`` as an exercise with its title: without it, JupyterLab shows
    a raw code block starting ``:label: wow-ex-1`` and the title (the directive's argument) is lost."""
    _, report = learner_notebook(nbformat.read(REPO / "notebooks" / "wow.ipynb", as_version=4), name="wow.ipynb")
    labels = report.exercises  # the copy the fixture wrote, in the order of its cells
    assert len(labels) >= 3 and labels[0] == "wow-ex-1"
    expect = playwright_sync.expect
    context = chromium.new_context(viewport={"width": 1280, "height": 1000}, device_scale_factor=1)
    try:
        context.route("**/*", local_only)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))
        page.goto(f"{lab.url}/lab/tree/learner/wow.ipynb?token={lab.token}")
        # the Markdown cell of the first exercise, once rendered (the hidden editor holds no innerText)
        cell = page.locator(".jp-MarkdownCell", has_text="the seen-topic validation split").first
        cell.wait_for(timeout=READY_TIMEOUT_MS)
        cell.scroll_into_view_if_needed()
        title = cell.locator(".myst-exercise-title")
        expect(title).to_have_text(re.compile(r"Exercise 1\s*\(" + WOW_FIRST_EXERCISE.pattern), timeout=STEP_TIMEOUT_MS)
        expect(title).to_be_visible()
        rendered = cell.inner_text()
        assert WOW_FIRST_LABEL not in rendered and "{exercise}" not in rendered, rendered
        assert cell.locator("pre").count() == 0, "the exercise is rendered as a code block"
        shot = tmp_path / "jupyterlab-exercise.png"
        cell.screenshot(path=str(shot))
        shutil.copyfile(shot, SCREENSHOTS / "jlab-screenshot-exercise.png")

        # every exercise of the copy, each under its own title, none as a raw directive
        exercises = page.locator(".jp-MarkdownCell .myst-exercise")
        expect(exercises).to_have_count(len(labels), timeout=STEP_TIMEOUT_MS)
        assert [exercises.nth(i).get_attribute("id") for i in range(len(labels))] == labels
        for index in range(len(labels)):
            assert exercises.nth(index).locator(".myst-exercise-title").inner_text().strip()
        rendered_markdown = page.locator(".jp-MarkdownCell").all_inner_texts()
        assert not [text for text in rendered_markdown if ":label:" in text]
    finally:
        context.close()
    assert errors == [], f"page errors: {errors}"


# -- the chapters read as sentences outside the book ------------------------------------------------------

#: The roles whose key jupyterlab-myst shows as it stands: ``{glue:text}`key:format``` and a ``{ref}`` without
#: a text of its own (a ``{ref}`text <label>``` shows its text).
RAW_KEY_ROLES = re.compile(r"\{glue(?::[a-z]+)?\}`(?P<glue>[^`]+)`|\{ref\}`(?P<ref>[^`<]+)`")
CHAPTERS = sorted(path.name for path in (REPO / "notebooks").glob("*.ipynb"))


def _opening_cells(chapter: str) -> list[str]:
    """The markdown cells a reader meets first: from the title to the line giving the Time to learn."""
    from utils.book.chapters import TIME_TO_LEARN_LINE

    cells = nbformat.read(REPO / "notebooks" / chapter, as_version=4).cells
    markdown = [cell.source for cell in cells if cell.cell_type == "markdown"]
    end = next(i for i, text in enumerate(markdown) if TIME_TO_LEARN_LINE in text)
    return markdown[: end + 1]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_chapter_s_opening_reads_as_sentences_in_jupyterlab(
    lab: LabServer, chromium: Any, tmp_path: Path, chapter: str
) -> None:
    """Regression: every chapter's second line read "Time to learn: time_to_learn:s (... see ⓘ time-to-learn)"
    in JupyterLab. Its opening cells, rendered there, show no key of a role JupyterLab cannot resolve."""
    opening = _opening_cells(chapter)
    assert not [m.group(0) for text in opening for m in RAW_KEY_ROLES.finditer(text)], (
        f"{chapter}: its opening writes roles that JupyterLab shows as keys")
    expect = playwright_sync.expect
    context = chromium.new_context(viewport={"width": 1280, "height": 1000}, device_scale_factor=1)
    try:
        context.route("**/*", local_only)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))
        # a workspace of its own, emptied (?reset): the shared one would restore the tabs other tests opened,
        # and one of them could take the focus from the chapter while it is read
        workspace = f"opening-{Path(chapter).stem}"
        page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/chapters/{chapter}?reset&token={lab.token}")
        panel = page.locator(".jp-NotebookPanel:visible", has_text="Prerequisites").first
        line = panel.locator(".jp-MarkdownCell li", has_text="Time to learn").first
        line.wait_for(timeout=READY_TIMEOUT_MS)
        expect(line).to_contain_text("measured each time the chapter runs", timeout=STEP_TIMEOUT_MS)
        rendered = panel.locator(".jp-MarkdownCell").all_inner_texts()[: len(opening)]
        shown = "\n".join(rendered)
        assert "Time to learn: measured each time the chapter runs, and printed by its last cell (see how it is " \
               "measured)" in " ".join(shown.split()), shown[:2000]
        for raw in ("time_to_learn", "time-to-learn", "{glue", "{ref}"):
            assert raw not in shown, f"{chapter}: JupyterLab shows {raw!r} in the chapter's opening"
        line.screenshot(path=str(tmp_path / "time-to-learn.png"))
        shot = SCREENSHOTS / f"jlab-screenshot-{Path(chapter).stem}-opening.png"
        shutil.copyfile(tmp_path / "time-to-learn.png", shot)
    finally:
        context.close()
    assert errors == [], f"page errors: {errors}"


def test_the_lab_extra_s_extensions_all_report_ok() -> None:
    """Regression: with JupyterLab 4.6, `jupyter labextension list` marked jupyterlab-myst 2.7 incompatible
    (it is built against @jupyter/ydoc 3); pyproject.toml's `lab` extra pins a JupyterLab it runs with."""
    import subprocess

    jupyter = Path(sys.executable).with_name("jupyter")
    if not jupyter.exists():
        pytest.skip(f"{jupyter} is missing")
    done = subprocess.run([str(jupyter), "labextension", "list"], capture_output=True, text=True, timeout=120)
    listing = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    extensions = [line.split() for line in listing.splitlines() if re.search(r" v\d\S* +(enabled|disabled)", line)]
    assert any(words[0] == "jupyterlab-myst" for words in extensions), listing
    not_ok = [" ".join(words) for words in extensions if "OK" not in words]
    assert not not_ok, f"extensions that do not report OK: {not_ok}\n{listing}"
    assert "is not compatible" not in listing, listing


# -- every markdown cell of a chapter reads as sentences, before and after it runs ------------------------

#: What jupyterlab-myst draws for a role it cannot resolve (a citation, a cross-reference, an inline
#: expression that failed): a yellow warning mark (the "ⓘ" a reader sees) before the raw key.
UNRESOLVED = ".jp-MarkdownCell .text-yellow-600"
#: Raw markup a rendered chapter must not show.
RAW_MARKUP = ("{glue", "{cite", "{eval", "{ref}", "{doc}", "ⓘ", "](../book/", "Citation Not Found")


def _bibliography_keys() -> list[str]:
    from utils.folder_files import _KEY, bibliography_files

    return sorted({key for path in bibliography_files() for key in _KEY.findall(path.read_text(encoding="utf-8"))})


def _glued_names(chapter: str) -> set[str]:
    """The names of the values a chapter's text shows, as the book reads it (its glue roles)."""
    from utils.book.chapters import book_source

    notebook = nbformat.read(REPO / "notebooks" / chapter, as_version=4)
    book = "\n".join(book_source(cell.source) for cell in notebook.cells if cell.cell_type == "markdown")
    return {match.group(1) for match in re.finditer(r"\{glue(?::\w+)?\}`(?:[^`]*::)?([^`:]+)", book)}


def _open_chapter(chromium: Any, lab: LabServer, chapter: str, workspace: str) -> tuple[Any, Any, list[str]]:
    context = chromium.new_context(viewport={"width": 1280, "height": 1000}, device_scale_factor=1)
    context.route("**/*", local_only)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))
    # a workspace of its own, emptied (?reset), as for the opening's test
    page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/chapters/{chapter}?reset&token={lab.token}")
    panel = page.locator(".jp-NotebookPanel:visible", has_text="Prerequisites").first
    panel.locator(".jp-MarkdownCell li", has_text="Time to learn").first.wait_for(timeout=READY_TIMEOUT_MS)
    return context, panel, errors


def _problems(panel: Any, chapter: str) -> list[str]:
    """What a reader would see as markup in the chapter's rendered markdown cells."""
    sources = [cell.source for cell in nbformat.read(REPO / "notebooks" / chapter, as_version=4).cells
               if cell.cell_type == "markdown"]
    # every cell rendered (an unrendered one would show its source in an editor, which holds no innerText),
    # but for a cell of fences only (a solution's end), which renders nothing
    deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
    while True:
        texts = panel.locator(".jp-MarkdownCell").all_inner_texts()
        blank = [source for text, source in zip(texts, sources, strict=False)
                 if not text.strip() and not re.fullmatch(r"(\s*(`{3,}|:{3,})(\{[\w-]+\})?\s*)*", source)]
        if (len(texts) == len(sources) and not blank) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert len(texts) == len(sources) and not blank, blank
    shown = "\n".join(texts)
    problems = [f"shows {raw!r}" for raw in RAW_MARKUP if raw in shown]
    # a glued value's name only in an inline expression (code until the cell runs), never in the text
    prose = "\n".join(panel.locator(".jp-MarkdownCell").evaluate_all(
        "cells => cells.map(cell => { const copy = cell.cloneNode(true);"
        " copy.querySelectorAll('code, .jp-InputArea-editor').forEach(node => node.remove());"
        " return copy.textContent; })"))
    problems += [f"shows the glued name {name!r} as text" for name in _glued_names(chapter)
                 if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", prose)]
    problems += [f"shows the citation key {key!r}" for key in _bibliography_keys()
                 if re.search(rf"(?<![\w/#-]){re.escape(key)}(?![\w-])", shown)]
    marks = panel.locator(UNRESOLVED)
    problems += [f"marks {marks.nth(i).get_attribute('title')!r}: {marks.nth(i).inner_text()!r}"
                 for i in range(marks.count())]
    return problems


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_markdown_cell_of_a_chapter_reads_as_sentences_in_jupyterlab(
    lab: LabServer, chromium: Any, chapter: str
) -> None:
    """Issue 48: JupyterLab showed the book's roles as keys: ``jwhr_copied_median:.0f`` for a glued number,
    "ⓘ oda2023jwhr" for a citation. Every markdown cell of each chapter, rendered by jupyterlab-myst
    before anything runs, shows no role, no citation key and no unresolved mark: a value is its
    inline expression (code until the cell runs), a citation its author and year."""
    context, panel, errors = _open_chapter(chromium, lab, chapter, f"sentences-{Path(chapter).stem}")
    try:
        cells = panel.locator(".jp-MarkdownCell")
        notebook = nbformat.read(REPO / "notebooks" / chapter, as_version=4)
        count = sum(cell.cell_type == "markdown" for cell in notebook.cells)
        playwright_sync.expect(cells).to_have_count(count, timeout=STEP_TIMEOUT_MS)
        problems = _problems(panel, chapter)
        # the first cell with a citation and the first with a value, as a reader sees them, for a human to look at
        stem = Path(chapter).stem
        text = (REPO / "notebooks" / chapter).read_text(encoding="utf-8")
        expression = json.loads(f'"{match.group("expression")}"') if (match := EVAL.search(text)) else None
        value = panel.page.locator("code", has_text=expression) if expression else panel.page.locator("nothing")
        for what, inside in (("citation", panel.page.locator("a[href*='bibliography.md']")), ("value", value)):
            cell = panel.locator(".jp-MarkdownCell", has=inside).first
            if cell.count():
                cell.scroll_into_view_if_needed()
                cell.screenshot(path=str(SCREENSHOTS / f"jlab-screenshot-{stem}-{what}.png"))
    finally:
        context.close()
    assert problems == [], f"{chapter}: {problems}"
    assert errors == [], f"page errors: {errors}"


#: The chapter run in JupyterLab by the test below: its values are many (31 glued names) and it runs in
#: seconds on the demo samples.
RUN_CHAPTER = "jwhr.ipynb"


def test_a_chapter_s_values_show_in_jupyterlab_once_it_has_run(lab: LabServer, chromium: Any) -> None:
    """Issue 48: after "Run All", every inline expression of the chapter shows its value (evaluated in the
    kernel, where :func:`utils.book.chapters.glue` bound each glued name), none its expression or an error."""
    expressions = sorted({json.loads(f'"{match.group("expression")}"') for match in
                          EVAL.finditer((REPO / "notebooks" / RUN_CHAPTER).read_text(encoding="utf-8"))})
    assert len(expressions) >= 20
    context, panel, errors = _open_chapter(chromium, lab, RUN_CHAPTER, "values-run")
    try:
        page = panel.page
        _run_all_cells(page)
        # every code cell has run (a count in its prompt), and the kernel is idle again
        page.wait_for_function(
            "() => { const panel = window.jupyterapp.shell.currentWidget;"
            " const cells = panel.content.widgets.filter(cell => cell.model.type === 'code');"
            " return cells.every(cell => cell.model.executionCount !== null)"
            " && panel.sessionContext.session.kernel.status === 'idle'; }",
            timeout=5 * READY_TIMEOUT_MS,
        )
        codes = panel.locator(".jp-MarkdownCell code")
        deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
        while (left := sorted(set(codes.all_inner_texts()) & set(expressions))) and time.monotonic() < deadline:
            time.sleep(0.5)
        problems = [f"shows the expression {expression!r}" for expression in left]
        problems += _problems(panel, RUN_CHAPTER)
        value = panel.locator(".jp-MarkdownCell", has_text="its position in the loaded list").first
        value.scroll_into_view_if_needed()
        value.screenshot(path=str(SCREENSHOTS / f"jlab-screenshot-{Path(RUN_CHAPTER).stem}-value-run.png"))
        stats = panel.locator(".jp-MarkdownCell", has_text="an answered session has").first
        stats.scroll_into_view_if_needed()
        stats.screenshot(path=str(SCREENSHOTS / f"jlab-screenshot-{Path(RUN_CHAPTER).stem}-values-run.png"))
    finally:
        context.close()
    assert problems == [], problems
    assert errors == [], f"page errors: {errors}"
