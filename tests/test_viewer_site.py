"""The book's data viewer in Chromium, on the built site (see tests/test_viewer.py for its data files).

Serves ``_build/html`` over a local ``http.server`` with every request kept on 127.0.0.1 (the SQL
console's DuckDB-WASM included), opens one split of every dataset, pages, sorts, filters by label and
by range, searches an id, a phrase and (for the Chinese and Japanese datasets) an English gloss,
runs an SQL query and downloads its result, reloads the link and sees the same view. Every count is
checked against the library (``utils.load``) on the same split, and the column statistics against
pandas. Skipped when the book is not built or Chromium is missing.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import test_site
from test_site import SITE, new_page, open_page, own_errors

import utils
from utils.book.viewer_files import DIALOGUE, read_level
from utils.loading import DEMO, SYNTHETIC

pytestmark = pytest.mark.browser
#: the built site's server and Chromium, shared with tests/test_site.py
site_url = test_site.site_url
browser = test_site.browser

# -- the viewer in Chromium --------------------------------------------------------------------------

#: One split of every dataset: (its viewer page, dataset, split, a label column of the turns, a gloss to search).
VIEWER_SPLITS = [
    ("book/viewer/wow.html", "wow", "train", "role", False),
    ("book/viewer/wow.html", "wow_kilt", "dev", "role", False),
    ("book/viewer/faithdial.html", "faithdial", "train", "role", False),
    ("book/viewer/faithdial.html", "faithdial_audit", "gold_wow", "role", False),
    ("book/viewer/wise.html", "wise", "train", "role", True),
    ("book/viewer/jwhr.html", "jwhr", "answered", "role", True),
    ("book/viewer/begin.html", "begin", "wow_dev", "role", False),
]


def _site() -> Path:
    return SITE


def _library_split(request: pytest.FixtureRequest, dataset: str, split: str, kind: str) -> Any:
    """The split the book was built on, loaded by the library (real data when the book used it)."""
    if kind not in (DEMO, SYNTHETIC):
        request.getfixturevalue("real_data_dir")
    return utils.load(dataset, split)


def _manifest(dataset: str, split: str) -> dict[str, Any]:
    path = _site() / "_viewer" / dataset / split / "manifest.json"
    if not path.is_file():
        pytest.fail(f"{path} was not written by the book's build")
    return json.loads(path.read_text(encoding="utf-8"))


def _haystack(frame: pd.DataFrame, columns: list[dict[str, str]]) -> list[str]:
    strings = [c["name"] for c in columns if c["kind"] != "number" and c["name"] != DIALOGUE]
    out = []
    for record in frame[strings].itertuples(index=False):
        parts = [" ".join(v) if isinstance(v, list) else v for v in record if v is not None and v == v]
        out.append(re.sub(r"\s+", " ", " \u0001 ".join(parts).lower()))
    return out


def _wait(holder: Any, state: str = "ready") -> None:
    holder.page.wait_for_function(
        "([el, state]) => el.getAttribute('data-viewer-state') === state", arg=[holder.element_handle(), state],
        timeout=60_000,
    )


def _matches(holder: Any) -> int:
    return int(holder.get_attribute("data-matches"))


@pytest.mark.parametrize(("chapter", "dataset", "split", "facet", "gloss"), VIEWER_SPLITS)
def test_viewer_shows_every_row_filters_sorts_searches_and_queries(
    request: pytest.FixtureRequest, site_url: str, browser: Any, chapter: str, dataset: str, split: str, facet: str,
    gloss: bool,
) -> None:
    manifest = _manifest(dataset, split)
    loaded = _library_split(request, dataset, split, manifest["kind"])
    directory = _site() / "_viewer" / dataset / split
    turns_file = read_level(directory, "turns")
    library_turns = loaded.turns()
    grouped = manifest["note"] != ""
    if grouped:  # KILT: a dialogue is its longest example
        frame = loaded.dialogues_frame()
        by_group: dict[str, int] = {}
        for count, info in zip(frame["turn_count"], frame["meta"], strict=True):
            key = info["wow_dialogue_id"]
            by_group[key] = max(by_group.get(key, 0), count)
        expected_dialogues, expected_turns = len(by_group), sum(by_group.values())
        # the turns shown are those of each dialogue's longest example (the last of equals, as the file orders them)
        chosen: dict[str, int] = {}
        for index, (count, info) in enumerate(zip(frame["turn_count"], frame["meta"], strict=True)):
            if count == by_group[info["wow_dialogue_id"]]:
                chosen[info["wow_dialogue_id"]] = index
        library_turns = library_turns[library_turns["dialogue_index"].isin(set(chosen.values()))]
    else:
        expected_dialogues, expected_turns = len(loaded), len(library_turns)
    assert len(turns_file) == expected_turns

    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/{chapter}#viewer={dataset}/{split}&level=dialogues")
        holder = page.locator(".atlas-viewer:has(option[value]):visible").first
        holder.locator(".atlas-viewer-grid").first.wait_for()
        _wait(holder)
        assert int(holder.get_attribute("data-rows")) == expected_dialogues == _matches(holder)
        # -- the turns of the split
        holder.locator(".atlas-viewer-level").select_option("turns")
        page.wait_for_function("el => el.querySelector('.atlas-viewer-count').textContent.includes('turns rows')",
                               arg=holder.element_handle())
        assert int(holder.get_attribute("data-rows")) == expected_turns
        rows = holder.locator(".atlas-viewer-grid tbody tr")
        assert rows.count() == min(PAGE_SIZE, expected_turns)
        # -- paging
        if expected_turns > PAGE_SIZE:
            first_page = rows.first.get_attribute("data-row")
            holder.locator(".atlas-viewer-next").click()
            assert holder.locator(".atlas-viewer-page").text_content().startswith("page 2 of")
            assert rows.first.get_attribute("data-row") == str(PAGE_SIZE) != first_page
            holder.locator(".atlas-viewer-prev").click()
        # -- sorting by a number, both ways
        holder.locator("th[data-column='turn'] button").click()
        holder.locator("th[data-column='turn'] button").click()
        assert holder.locator("th[data-column='turn']").get_attribute("aria-sort") == "descending"
        top = int(rows.first.locator("td").nth(_column_position(holder, "turn")).text_content())
        assert top == turns_file["turn"].max()
        # -- a label filter: its count, then the grid
        open_filters(holder)
        role = library_turns["role"].value_counts()
        chosen = role.index[-1]
        chip = holder.locator(f"fieldset[data-column='{facet}'] label[data-value='{chosen}']")
        assert int(chip.get_attribute("data-count")) == role[chosen]
        chip.locator("input").check()
        page.wait_for_function("([el, n]) => el.getAttribute('data-matches') === String(n)",
                               arg=[holder.element_handle(), int(role[chosen])])
        # -- and a range: turns 1 to 3 of that role
        ranged = library_turns[(library_turns["role"] == chosen) & library_turns["turn_index"].between(1, 3)]
        holder.locator("fieldset[data-column='turn'] .atlas-viewer-range-from").fill("1")
        holder.locator("fieldset[data-column='turn'] .atlas-viewer-range-from").dispatch_event("change")
        holder.locator("fieldset[data-column='turn'] .atlas-viewer-range-to").fill("3")
        holder.locator("fieldset[data-column='turn'] .atlas-viewer-range-to").dispatch_event("change")
        assert _matches(holder) == len(ranged)
        # -- column statistics of the current filter equal pandas'
        holder.locator(".atlas-viewer-stats > summary").click()
        _check_statistics(holder, ranged)
        # -- the view in the URL: a reload shows the same rows
        link = page.url
        assert "f=role%3D" in link and "r=turn%3D1~3" in link
        assert f"#viewer={dataset}/{split}&level=turns" in link, "the split's slash is written as it is"
        first_id = rows.first.get_attribute("data-id") if rows.count() else None
        page.reload()
        holder = page.locator(".atlas-viewer:visible").first
        _wait(holder)
        assert _matches(holder) == len(ranged)
        if first_id is not None:
            assert holder.locator(".atlas-viewer-grid tbody tr").first.get_attribute("data-id") == first_id
        holder.locator(".atlas-viewer-reset").click()
        assert _matches(holder) == expected_turns
        # -- search: an id, a quoted phrase, a gloss
        search = holder.locator(".atlas-viewer-search")
        haystack = _haystack(turns_file, manifest["levels"]["turns"]["columns"])
        some_id = str(turns_file["dialogue id"].iloc[len(turns_file) // 2])
        _search(page, holder, some_id, sum(some_id.lower() in h for h in haystack))
        assert holder.locator(f".atlas-viewer-grid tbody tr[data-id='{some_id}']").count() >= 1
        text = next(t for t in turns_file["text"].iloc[len(turns_file) // 3 :] if len(t.strip()) >= 12)
        words = text.split()
        # a phrase of three words, or of six characters in Chinese and Japanese (no spaces between words)
        phrase = " ".join(words[1:4]) if len(words) >= 4 else text.strip()[2:8]
        expected = sum(phrase.lower() in h for h in haystack)
        assert expected >= 1
        _search(page, holder, f'"{phrase}"', expected)
        scrambled = " ".join(reversed(phrase.split())) if len(words) >= 4 else phrase[::-1]
        if scrambled.lower() != phrase.lower():
            _search(page, holder, f'"{scrambled}"', sum(scrambled.lower() in h for h in haystack))
        if gloss:
            english = turns_file["text (English)"].dropna()
            word = max((w.strip(".,;:!?()\"'").lower() for t in english for w in t.split()), key=len)
            hits = sum(word in h for h in haystack)
            assert hits >= 1
            _search(page, holder, word, hits)
        search.fill("")
        # -- open a row: the atlas's rendering of its dialogue
        holder.locator(".atlas-viewer-grid tbody tr").first.click()
        holder.locator(".atlas-viewer-rendering .atlas-dialogue, .atlas-viewer-rendering div").first.wait_for()
        opened = holder.locator(".atlas-viewer-detail").get_attribute("data-id")
        assert f"row={opened}" in page.url.replace("%20", " ") or "row=" in page.url
        # -- SQL: a query, its result downloaded as CSV, kept in the link
        holder.locator(".atlas-viewer-sql > summary").click()
        if page.locator('meta[name="atlas-sql-console"][content="missing"]').count():  # built without npm
            assert "built without npm" in holder.locator(".atlas-viewer-sql-missing").text_content()
            assert own_errors(errors) == []
            pytest.skip("the book was built without npm: its viewer says it has no SQL console")
        sql = "SELECT role, count(*) AS n, max(turn) AS last FROM turns GROUP BY role ORDER BY role"
        holder.locator(".atlas-viewer-sqltext").fill(sql)
        holder.locator(".atlas-viewer-run").click()
        page.wait_for_function("el => ['done', 'error'].includes(el.getAttribute('data-sql-state'))",
                               arg=holder.element_handle(), timeout=120_000)
        status = holder.locator(".atlas-viewer-sqlstatus").text_content()
        assert holder.get_attribute("data-sql-state") == "done", status
        with page.expect_download() as download_info:
            holder.locator(".atlas-viewer-download").click()
        downloaded = Path(download_info.value.path()).read_text(encoding="utf-8")
        result = list(csv.DictReader(io.StringIO(downloaded)))
        expected_sql = library_turns.groupby("role").agg(n=("role", "size"), last=("turn_index", "max")).sort_index()
        assert [r["role"] for r in result] == list(expected_sql.index)
        assert [int(r["n"]) for r in result] == expected_sql["n"].tolist()
        assert [float(r["last"]) for r in result] == expected_sql["last"].astype(float).tolist()
        assert "sql=SELECT" in page.url
        # -- the query in the link: a fresh page shows it and runs it when the reader presses Run
        fresh, fresh_errors = new_page(browser)
        try:
            open_page(fresh, page.url)
            again = fresh.locator(".atlas-viewer:visible").first
            fresh.wait_for_function("el => el.getAttribute('data-sql-state') === 'waiting'", arg=again.element_handle())
            assert again.locator(".atlas-viewer-sqltext").input_value() == sql
            again.locator(".atlas-viewer-run").click()
            fresh.wait_for_function("el => el.getAttribute('data-sql-state') === 'done'", arg=again.element_handle(),
                                    timeout=120_000)
            assert int(again.get_attribute("data-sql-rows")) == len(expected_sql)
            assert again.locator(".atlas-viewer-detail").get_attribute("data-id") == opened
            assert own_errors(fresh_errors) == []
        finally:
            fresh.context.close()
        assert own_errors(errors) == []
    finally:
        page.context.close()


#: Rows a viewer page's grid shows at a time (book/_static/viewer/app.js's PAGE_SIZE).
PAGE_SIZE = 100


def open_filters(holder: Any) -> None:
    """Open the panel of filters, downloads and notes (closed on arrival: the first screen is the rows)."""
    holder.locator(".atlas-viewer-filters").first.evaluate("el => { el.open = true; }")


def _column_position(holder: Any, name: str) -> int:
    names = holder.locator(".atlas-viewer-grid thead th").evaluate_all("els => els.map(e => e.dataset.column)")
    return names.index(name)


def _search(page: Any, holder: Any, query: str, expected: int) -> None:
    holder.locator(".atlas-viewer-search").fill(query)
    page.wait_for_function("([el, n]) => el.getAttribute('data-matches') === String(n)",
                           arg=[holder.element_handle(), expected], timeout=10_000)


def _check_statistics(holder: Any, library_rows: pd.DataFrame) -> None:
    """Every column's statistics as pandas computes them on the same rows."""
    numbers = {"turn": library_rows["turn_index"], "evidence shown": library_rows["evidence_count"]}
    for name, series in numbers.items():
        box = holder.locator(f".atlas-viewer-stat[data-column='{name}']")
        if not len(series):
            continue
        for key, value in (("min", series.min()), ("max", series.max()), ("mean", series.mean()),
                           ("median", series.median())):
            assert float(box.get_attribute(f"data-{key}")) == pytest.approx(float(value)), (name, key)
        if len(series) > 1:
            assert float(box.get_attribute("data-std")) == pytest.approx(float(series.std()))
    lengths = library_rows["text"].str.len()
    box = holder.locator(".atlas-viewer-stat[data-column='text']")
    if len(lengths):
        assert float(box.get_attribute("data-mean")) == pytest.approx(float(lengths.mean()))
        assert float(box.get_attribute("data-median")) == pytest.approx(float(lengths.median()))
        assert float(box.get_attribute("data-max")) == lengths.max()
    speakers = library_rows["speaker"].value_counts()
    box = holder.locator(".atlas-viewer-stat[data-column='speaker']")
    shown = {li.get_attribute("data-value"): int(li.get_attribute("data-count"))
             for li in box.locator("li[data-value]").all()}
    assert shown == speakers.to_dict()


def test_from_disk_the_pinned_dialogues_stay_and_the_page_says_how_to_serve_it(browser: Any) -> None:
    page_file = _site() / "notebooks" / "jwhr.html"
    if not page_file.is_file():
        pytest.skip("the book is not built")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # from disk: the page's own files load, any network request is aborted
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(error.message))
    try:
        page.goto(page_file.as_uri(), wait_until="load")
        note = page.locator(".atlas-viewer-file")
        note.wait_for()
        assert "python -m http.server" in note.text_content() and "_build/html" in note.text_content()
        pinned = page.locator(".atlas-chapter-view .atlas-chapter-pinned")
        assert pinned.count() >= 1 and pinned.first.locator(".atlas-turn").first.is_visible()
        assert own_errors(errors) == []
    finally:
        page.context.close()


# -- what the chapters' explorer was used for, now on the viewer pages ---------------------------------


def test_the_wise_viewer_finds_the_english_glosses(site_url: str, browser: Any) -> None:
    """WISE: the English glosses of the turns and passages are searched ("jazz" on the demo sample and
    on the real files alike)."""
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/book/viewer/wise.html")
        holder = page.locator(".atlas-viewer[data-datasets]").first
        _wait(holder)
        holder.locator(".atlas-viewer-search").fill("jazz")
        page.wait_for_function("el => el.getAttribute('data-search') === 'jazz' && "
                               "el.getAttribute('data-viewer-state') === 'ready'", arg=holder.element_handle())
        assert _matches(holder) >= 1, "the English gloss 'jazz' finds nothing"
        assert own_errors(errors) == []
    finally:
        page.context.close()


def test_the_jwhr_length_panels_say_why_they_differ(site_url: str, browser: Any) -> None:
    """JWHR: the panel of answer (text) and that of answer length (characters) gave two means for one text
    (224.69 and 224.06 on the real files) with nothing saying why. The length column counts as the chapter
    does, spaces and line breaks left out; its panel says so, and the two means differ by exactly the
    answers' mean count of such characters."""
    answers = read_level(_site() / "_viewer" / "jwhr" / "answered", "dialogues")["answer"].dropna()
    spaces = answers.map(lambda text: sum(char.isspace() for char in text))
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/book/viewer/jwhr.html#viewer=jwhr/answered&level=dialogues")
        holder = page.locator(".atlas-viewer[data-datasets]").first
        _wait(holder)
        holder.locator(".atlas-viewer-stats > summary").click()
        text = holder.locator(".atlas-viewer-stat[data-column='answer']")
        length = holder.locator(".atlas-viewer-stat[data-column='answer length (characters)']")
        length.wait_for()
        note = length.locator(".atlas-viewer-stat-note").text_content()
        assert "without its spaces and line breaks" in note and "answer (text)" in note, note
        assert "spaces included" in text.locator(".atlas-viewer-stat-summary").first.text_content()
        difference = float(text.get_attribute("data-mean")) - float(length.get_attribute("data-mean"))
        assert difference == pytest.approx(float(spaces.mean()))
        assert own_errors(errors) == []
    finally:
        page.context.close()


def test_enter_on_a_row_takes_the_focus_to_the_record_and_close_brings_it_back(site_url: str, browser: Any) -> None:
    """Keyboard: Enter opened a row but the focus stayed on it, and the record appeared below the page's 25
    rows and the pager. Now the record, scrolled to, has the focus; closing it returns to the row."""
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/book/viewer/wow.html")
        holder = page.locator(".atlas-viewer[data-datasets]").first
        _wait(holder)
        row = holder.locator(".atlas-viewer-grid tbody tr").nth(2)
        row.focus()
        page.keyboard.press("Enter")
        detail = holder.locator(".atlas-viewer-detail")
        page.wait_for_function("el => el.getAttribute('data-id') && document.activeElement === el",
                               arg=detail.element_handle(), timeout=30_000)
        assert detail.get_attribute("data-id") == row.get_attribute("data-id")
        top = detail.evaluate("el => el.getBoundingClientRect().top")
        assert 0 <= top < page.viewport_size["height"] / 2, f"the record's top is at {top}px"
        assert detail.get_attribute("aria-label").endswith(" " + row.get_attribute("data-id"))
        page.keyboard.press("Tab")  # the next stop is inside the record: its close button
        assert page.evaluate("() => document.activeElement.classList.contains('atlas-viewer-close')")
        page.keyboard.press("Enter")
        assert detail.is_hidden()
        assert page.evaluate("() => document.activeElement.getAttribute('data-row')") == row.get_attribute("data-row")
        assert own_errors(errors) == []
    finally:
        page.context.close()


def test_the_jwhr_chapter_opens_the_viewer_at_the_session_it_shows(site_url: str, browser: Any) -> None:
    """JWHR: the session the chapter discusses (not session 1) opens, by its id, in the viewer page."""
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/notebooks/jwhr.html")
        link = page.locator(".atlas-chapter-view .atlas-chapter-pinned figcaption a").first
        href = link.get_attribute("href")
        assert href.startswith("../book/viewer/jwhr.html#viewer=jwhr/answered&level=dialogues&row=")
        row = href.rsplit("row=", 1)[1]
        assert row != "1"
        link.click()
        holder = page.locator(".atlas-viewer[data-datasets]").first
        _wait(holder)
        detail = holder.locator(".atlas-viewer-detail[data-id]")
        detail.wait_for()
        assert detail.get_attribute("data-id") == row
        assert row in detail.text_content()
        assert own_errors(errors) == []
    finally:
        page.context.close()


# -- the viewer on a page of its own (no book build needed): the benchmark's page, on a tiny split -----


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The viewer benchmark's page over a tiny synthetic WoW train (37 dialogues), with the evidence
    ids written as a paged column (more distinct values than the viewer holds) and, when installed,
    the SQL console's files. Yields (site directory, the library's split)."""
    import importlib

    from benchmarks import synthetic
    from benchmarks import viewer as viewer_bench

    data = tmp_path_factory.mktemp("tiny-viewer")
    synthetic.write_wow(data, scale=0.002, seed=5, files=("train.json",))
    site = data / "site"
    patch = pytest.MonkeyPatch()
    patch.setenv("ATLAS_DATA_DIR", str(data))
    patch.setattr("utils.book.viewer_files.PAGED_ABOVE", 3000)  # the ~8,000 evidence ids, not the ~1,500 texts
    patch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
    try:
        viewer_bench.write_site(data, site)
        split = utils.load("wow", "train")
        book = importlib.import_module("atlas_book")
        if all((book.VENDOR / name).is_file() for name in book.VENDOR_FILES):
            book._copy_vendor(site)
            arrow_shim = Path(book.__file__).resolve().parents[1] / "_static" / "viewer-arrow.mjs"
            (site / "_static" / "viewer-arrow.mjs").write_text(arrow_shim.read_text(encoding="utf-8"), encoding="utf-8")
        yield site, split
    finally:
        patch.undo()


def _serve(site: Path) -> Any:
    import functools
    import http.server
    import threading

    handler = functools.partial(test_site._QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_the_viewer_benchmark_runs_on_a_tiny_split(tiny_site: Any, browser: Any) -> None:
    """benchmarks/viewer.py's browser part, on both levels it measures; its counts are the library's."""
    from benchmarks import viewer as viewer_bench

    site, split = tiny_site
    directory = site / "_viewer" / "wow" / "train"
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    library = {"turns": len(split.turns()), "evidence": len(split.evidence(["selected"]))}
    for level, actions in viewer_bench.ACTIONS.items():
        found = viewer_bench.measure(site, level, settle=0, browser=browser)
        frame = read_level(directory, level)
        assert found["rows"] == len(frame) == library[level]
        column, value = actions["label"]
        label = frame[column] == value
        assert found["matches after the label"] == int(label.sum())
        ranged = frame[label & (frame[actions["range"]] >= 3)]
        searched = [c for c in manifest["levels"][level]["columns"] if not c.get("paged")]
        assert found["matches at the end"] == sum("zz" in hay for hay in _haystack(ranged, searched))
        pss, rss = found["browser memory, PSS (MB)"], found["browser memory, RSS (MB)"]
        assert 0 < pss <= rss


def test_evidence_rows_page_sort_filter_and_query_with_paged_ids(tiny_site: Any, browser: Any) -> None:
    """The evidence level: a text shown at many rows is one value; sorting by it, by a number and by
    a paged column (whose values are fetched for the rows on screen) gives Python's order; the SQL
    console's views hold the same rows; the link keeps "/" readable and reloads the same view."""
    site, split = tiny_site
    evidence = split.evidence(["dialogue_id", "turn_index", "id", "title", "text", "origin", "selected"])
    manifest = json.loads((site / "_viewer" / "wow" / "train" / "manifest.json").read_text(encoding="utf-8"))
    paged = [c["name"] for c in manifest["levels"]["evidence"]["columns"] if c.get("paged")]
    assert paged == ["evidence id"]
    server = _serve(site)
    page, errors = new_page(browser)
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        open_page(page, base + "#viewer=wow/train&level=evidence")
        holder = page.locator(".atlas-viewer")
        _wait(holder)
        assert _matches(holder) == len(evidence)
        rows = holder.locator(".atlas-viewer-grid tbody tr")
        # sorted by the paged column: Python's order of the ids, the values fetched for the page
        holder.locator("th[data-column='evidence id'] button").click()
        expected = sorted(evidence["id"].tolist())[:PAGE_SIZE]
        page.wait_for_function("el => el.getAttribute('data-viewer-state') === 'ready' && "
                               "el.getAttribute('data-grid-waiting') === '0'", arg=holder.element_handle())
        column = [c["name"] for c in manifest["levels"]["evidence"]["columns"] if c["kind"] != "hidden"].index(
            "evidence id")
        shown = [rows.nth(k).locator("td").nth(column).text_content() for k in range(rows.count())]
        assert shown == expected
        # a row opened: its dialogue's rendering (the row's dialogue is read from the row's shard)
        row = int(rows.nth(3).get_attribute("data-row"))
        rows.nth(3).click()
        detail = holder.locator(".atlas-viewer-detail .atlas-viewer-rendering")
        detail.wait_for()
        dialogue = split[int(split.evidence(["dialogue_index"])["dialogue_index"].iloc[row])]
        assert detail.text_content() == dialogue.topic
        assert holder.locator(".atlas-viewer-detail").get_attribute("data-id") == str(dialogue.id)
        # sorted by text, descending: the last texts first, ties in the file's order
        holder.locator("th[data-column='text'] button").click()
        holder.locator("th[data-column='text'] button").click()
        texts = evidence["text"].tolist()
        order = sorted(range(len(texts)), key=lambda i: texts[i], reverse=True)  # stable: ties in the file's order
        assert [int(rows.nth(k).get_attribute("data-row")) for k in range(3)] == order[:3]
        # a phrase of one text: the rows holding it (the paged ids are not searched)
        phrase = " ".join(texts[0].split()[:4])
        written = read_level(site / "_viewer" / "wow" / "train", "evidence")
        searched = [c for c in manifest["levels"]["evidence"]["columns"] if not c.get("paged")]
        holding = sum(phrase.lower() in hay for hay in _haystack(written, searched))
        assert 0 < holding < len(texts)
        holder.locator(".atlas-viewer-search").fill(f'"{phrase}"')
        page.wait_for_function("([el, n]) => el.getAttribute('data-matches') === String(n)",
                               arg=[holder.element_handle(), holding], timeout=10_000)
        link = page.url
        assert "#viewer=wow/train&level=evidence" in link and "sort=text&desc=1" in link
        page.reload()
        holder = page.locator(".atlas-viewer")
        _wait(holder)
        assert _matches(holder) == holding
        # -- SQL over the views: the same counts as the library
        if not (site / "_static" / "vendor" / "duckdb" / "duckdb-eh.wasm").is_file():
            pytest.skip("the SQL console's files are not installed (make vendor)")
        holder.locator(".atlas-viewer-sql > summary").click()
        holder.locator(".atlas-viewer-sqltext").fill(
            "SELECT (SELECT count(*) FROM evidence WHERE selected = 'true') AS selected, "
            "(SELECT count(DISTINCT text) FROM evidence) AS texts, (SELECT count(*) FROM turns) AS turns, "
            "(SELECT sum(turn) FROM evidence) AS turn_sum")
        holder.locator(".atlas-viewer-run").click()
        page.wait_for_function("el => ['done', 'error'].includes(el.getAttribute('data-sql-state'))",
                               arg=holder.element_handle(), timeout=60_000)
        status = holder.locator(".atlas-viewer-sqlstatus").text_content()
        assert holder.get_attribute("data-sql-state") == "done", status
        cells = holder.locator(".atlas-viewer-result tbody tr").first.locator("td").all_text_contents()
        assert [float(c.replace(",", "")) for c in cells] == [  # shown with thousands separators
            float(evidence["selected"].sum()), float(evidence["text"].nunique()), float(len(split.turns())),
            float(evidence["turn_index"].sum())]
        assert "evidence.evidence id" in status
        assert own_errors(errors) == []
    finally:
        page.context.close()
        server.shutdown()
        server.server_close()


def test_a_level_of_several_shards_shows_its_first_page_before_its_other_shards(
    tiny_site: Any, browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The evidence level written in shards of 120 rows, its shards after the first held back: the first
    page is drawn from the dictionaries and the first shard (its sort buttons disabled, the viewer still
    loading); once every shard is in, the view shows the same rows, sortable."""
    from benchmarks import viewer as viewer_bench

    site, _ = tiny_site
    monkeypatch.setattr("utils.book.viewer_files.SHARD_ROWS", 120)
    sharded = tmp_path / "site"
    viewer_bench.write_site(site.parent, sharded)  # the tiny split's data directory, written again in small shards
    manifest = json.loads((sharded / "_viewer" / "wow" / "train" / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["levels"]["evidence"]["shards"]) > 2
    paged = {c["name"] for c in manifest["levels"]["evidence"]["columns"] if c.get("paged")}
    server = _serve(sharded)
    page, errors = new_page(browser)
    held: list[Any] = []
    release = {"all": False}

    def hold(route: Any) -> None:
        if release["all"] or route.request.url.endswith("evidence-0000.bin.gz"):
            route.continue_()
        else:
            held.append(route)

    page.route("**/evidence-0*.bin.gz", hold)

    def shown() -> list[list[str]]:
        names = holder.locator(".atlas-viewer-grid thead th").evaluate_all("els => els.map(e => e.dataset.column)")
        rows = holder.locator(".atlas-viewer-grid tbody tr").evaluate_all(
            "trs => trs.map(tr => [tr.dataset.row, ...Array.from(tr.cells, td => td.textContent)])")
        kept = [k for k, name in enumerate(names) if name not in paged]
        return [[row[0]] + [row[1 + k] for k in kept] for row in rows]

    try:
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html#viewer=wow/train&level=evidence")
        holder = page.locator(".atlas-viewer")
        holder.locator(".atlas-viewer-grid tbody tr").first.wait_for(timeout=60_000)
        assert holder.get_attribute("data-viewer-state") == "loading" and held
        first = shown()
        assert [row[0] for row in first] == [str(k) for k in range(PAGE_SIZE)]
        assert holder.locator("th button").evaluate_all("els => els.every(b => b.disabled)")
        release["all"] = True
        for route in held:
            route.continue_()
        _wait(holder)
        assert shown() == first
        assert not holder.locator("th button").evaluate_all("els => els.some(b => b.disabled)")
        holder.locator("th[data-column='turn'] button").click()
        assert holder.locator("th[data-column='turn']").get_attribute("aria-sort") == "ascending"
        assert own_errors(errors) == []
    finally:
        _close(page, server)


def test_a_viewer_built_without_npm_says_it_has_no_sql_console(tiny_site: Any, browser: Any, tmp_path: Path) -> None:
    """A page of a book built without the SQL console's files (the mark the build puts on every page):
    the console says why it is missing, and a query in the link says so instead of failing to load."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
    try:
        from atlas_book import SQL_CONSOLE_MISSING_META
    finally:
        sys.path.pop(0)
    site, _ = tiny_site
    page_file = tmp_path / "site"
    shutil.copytree(site, page_file, ignore=shutil.ignore_patterns("vendor"))
    index = page_file / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace("<head>", "<head>" + SQL_CONSOLE_MISSING_META, 1),
                     encoding="utf-8")
    server = _serve(page_file)
    page, errors = new_page(browser)
    try:
        open_page(page, f"http://127.0.0.1:{server.server_address[1]}/index.html#viewer=wow/train&sql=SELECT%201")
        holder = page.locator(".atlas-viewer")
        _wait(holder)
        page.wait_for_function("el => el.getAttribute('data-sql-state') === 'missing'", arg=holder.element_handle())
        assert "not in this build" in holder.locator(".atlas-viewer-sql > summary").text_content()
        assert "built without npm" in holder.locator(".atlas-viewer-sql-missing").text_content()
        assert "built without npm" in holder.locator(".atlas-viewer-sqlstatus").text_content()
        assert own_errors(errors) == []
    finally:
        page.context.close()
        server.shutdown()


# -- issue 48, "what a reader sees": the first screen, pages, downloads, embedding, a phone, the SQL engine ------

#: The viewer pages of the book (book/viewer/<dataset>.md).
VIEWER_PAGES = ["wow", "faithdial", "wise", "jwhr", "begin"]


@pytest.mark.parametrize("name", VIEWER_PAGES)
def test_the_first_grid_row_is_on_the_first_screen_of_every_viewer_page(site_url: str, browser: Any, name: str) -> None:
    """At 1280 x 800 the grid's first row is within the viewport on arrival: the filters, downloads and notes
    are in a closed panel, the search shares the split's line (before: the first row's top was at 777 to
    894 px, below the fold on every page)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route("**/*", test_site.local_only)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))
    try:
        open_page(page, f"{site_url}/book/viewer/{name}.html")
        holder = page.locator(".atlas-viewer[data-datasets]").first
        _wait(holder)
        box = holder.locator(".atlas-viewer-grid tbody tr").first.bounding_box()
        assert box is not None
        assert box["y"] >= 0 and box["y"] + min(box["height"], 60) <= 800, f"the first row is at {box['y']:.0f} px"
        assert not holder.locator(".atlas-viewer-filters").evaluate("el => el.open")
        assert own_errors(errors) == []
    finally:
        context.close()


def _tiny_page(browser: Any, site: Path, hash_: str, *, width: int = 1280) -> tuple[Any, Any, list[str], Any]:
    server = _serve(site)
    page, errors = new_page(browser, width=width)
    page.context.set_default_timeout(60_000)
    open_page(page, f"http://127.0.0.1:{server.server_address[1]}/index.html{hash_}")
    holder = page.locator(".atlas-viewer")
    _wait(holder)
    return page, holder, errors, server


def _close(page: Any, server: Any) -> None:
    page.context.close()
    server.shutdown()
    server.server_close()


def test_page_numbers_rows_per_page_a_split_s_csv_and_an_embed_snippet(tiny_site: Any, browser: Any) -> None:
    """100 rows a page, page numbers to jump to, a number of rows per page kept in the link; the whole
    split's level downloaded as CSV (the library's rows); an iframe snippet whose address opens the same view."""
    site, split = tiny_site
    turns = split.turns()
    page, holder, errors, server = _tiny_page(browser, site, "#viewer=wow/train&level=turns")
    try:
        rows = holder.locator(".atlas-viewer-grid tbody tr")
        assert len(turns) > 2 * PAGE_SIZE and rows.count() == PAGE_SIZE
        pages = -(-len(turns) // PAGE_SIZE)
        numbers = holder.locator(".atlas-viewer-pagenumber").evaluate_all("els => els.map(e => e.dataset.page)")
        assert numbers[0] == "1" and numbers[-1] == str(pages)
        holder.locator(f".atlas-viewer-pagenumber[data-page='{pages}']").click()
        assert rows.first.get_attribute("data-row") == str((pages - 1) * PAGE_SIZE)
        assert holder.locator(".atlas-viewer-pagenumber[aria-current='page']").text_content() == str(pages)
        assert f"page={pages}" in page.url
        holder.locator(".atlas-viewer-pagesize").select_option("25")
        assert rows.count() == 25 and "per=25" in page.url
        first = rows.first.get_attribute("data-row")
        assert int(first) == (pages - 1) * PAGE_SIZE, "the first row on screen stays on screen"
        # -- the whole level of the split as CSV, every row as the library has it
        open_filters(holder)
        with page.expect_download() as download_info:
            holder.locator(".atlas-viewer-download-split").click()
        assert download_info.value.suggested_filename == "wow-train-turns.csv"
        table = pd.read_csv(download_info.value.path(), keep_default_na=False)
        assert len(table) == len(turns)
        assert table["turn"].tolist() == turns["turn_index"].tolist()
        assert table["text"].tolist() == turns["text"].tolist()
        # -- the embed snippet: an iframe of this page at this view
        snippet = holder.locator(".atlas-viewer-embedtext").input_value()
        found = re.match(r'<iframe src="([^"]+)" title="[^"]+"', snippet)
        assert found, snippet
        src = found.group(1).replace("&amp;", "&")
        assert src == page.url
        fresh, fresh_errors = new_page(browser)
        try:
            open_page(fresh, src)
            again = fresh.locator(".atlas-viewer")
            _wait(again)
            assert again.locator(".atlas-viewer-grid tbody tr").first.get_attribute("data-row") == first
            assert again.locator(".atlas-viewer-grid tbody tr").count() == 25
            assert own_errors(fresh_errors) == []
        finally:
            fresh.context.close()
        assert own_errors(errors) == []
    finally:
        _close(page, server)


def test_a_phone_shows_each_row_as_a_card_and_says_when_a_table_scrolls_sideways(tiny_site: Any, browser: Any) -> None:
    """At 390 px the grid's row is a card: several of its values side by side with their columns' names,
    none cut off on the right and the page not scrolling sideways; a wider table (a query's result) says it
    scrolls sideways."""
    site, _ = tiny_site
    page, holder, errors, server = _tiny_page(browser, site, "#viewer=wow/train&level=turns", width=390)
    try:
        row = holder.locator(".atlas-viewer-grid tbody tr").first
        row.scroll_into_view_if_needed()
        cells = row.locator("td").evaluate_all("""cells => cells.filter(c => c.textContent.trim()).map(c => {
            const box = c.getBoundingClientRect();
            return {label: getComputedStyle(c, '::before').content, left: box.left, right: box.right,
                    height: box.height};
        })""")
        assert len(cells) >= 4
        assert all(cell["label"] not in ("none", "normal", '""') for cell in cells), cells
        assert all(cell["left"] >= 0 and cell["right"] <= 390 for cell in cells), cells
        texts = [c for c in cells if c["height"] > 0]
        assert len(texts) == len(cells)
        grid = holder.locator(".atlas-viewer-grid").first.locator("xpath=ancestor::div[@role='region']")
        assert grid.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
        if not (site / "_static" / "vendor" / "duckdb" / "duckdb-eh.wasm").is_file():
            pytest.skip("the SQL console's files are not installed (make vendor)")
        holder.locator(".atlas-viewer-sql > summary").click()
        holder.locator(".atlas-viewer-sqltext").fill("SELECT * FROM turns LIMIT 5")
        holder.locator(".atlas-viewer-run").click()
        page.wait_for_function("el => el.getAttribute('data-sql-state') === 'done'", arg=holder.element_handle(),
                               timeout=120_000)
        result = holder.locator(".atlas-viewer-result").locator("xpath=ancestor::div[@class='atlas-viewer-scrollbox']")
        page.wait_for_function("el => el.getAttribute('data-overflow') === 'right'", arg=result.element_handle())
        assert result.locator(".atlas-viewer-scrollhint").is_visible()
        assert own_errors(errors) == []
    finally:
        _close(page, server)


def test_the_first_query_says_the_engine_is_starting_and_numbers_are_readable(tiny_site: Any, browser: Any) -> None:
    """The first query: a live status says the SQL engine is starting, with the seconds; the result shows a
    fraction to 4 decimals and integers grouped, the CSV every digit; the console lists the tables by name,
    and the split's full and short names are one table."""
    site, split = tiny_site
    if not (site / "_static" / "vendor" / "duckdb" / "duckdb-eh.wasm").is_file():
        pytest.skip("the SQL console's files are not installed (make vendor)")
    page, holder, errors, server = _tiny_page(browser, site, "#viewer=wow/train&level=dialogues")
    try:
        holder.locator(".atlas-viewer-sql > summary").click()
        names = holder.locator(".atlas-viewer-tablename").all_text_contents()
        assert {"wow_train_dialogues", "wow_train_turns", "wow_train_evidence", "train_turns"} <= set(names)
        status = holder.locator(".atlas-viewer-sqlstatus")
        assert status.get_attribute("aria-live") == "polite" and status.get_attribute("role") == "status"
        holder.locator(".atlas-viewer-sqltext").fill(
            "SELECT 2.360381861575179 AS fraction, 1234567 AS whole, (SELECT count(*) FROM wow_train_turns) AS turns, "
            "(SELECT count(*) FROM train_turns t JOIN dialogues d ON d.id = t.\"dialogue id\") AS joined")
        holder.locator(".atlas-viewer-run").click()
        page.wait_for_function("el => el.getAttribute('data-stage') !== null", arg=status.element_handle())
        assert "Starting the SQL engine" in status.text_content()
        assert re.search(r"\d+ s$", status.text_content().strip())
        page.wait_for_function("el => ['done', 'error'].includes(el.getAttribute('data-sql-state'))",
                               arg=holder.element_handle(), timeout=120_000)
        assert holder.get_attribute("data-sql-state") == "done", status.text_content()
        cells = holder.locator(".atlas-viewer-result tbody td").all_text_contents()
        turns = len(split.turns())
        assert cells == ["2.3604", "1,234,567", f"{turns:,}", f"{turns:,}"]
        assert "SQL engine's start included" in status.text_content()
        with page.expect_download() as download_info:
            holder.locator(".atlas-viewer-download").click()
        rows = list(csv.reader(io.StringIO(Path(download_info.value.path()).read_text(encoding="utf-8"))))
        assert rows[1] == ["2.360381861575179", "1234567", str(turns), str(turns)]
        first = int(holder.get_attribute("data-sql-ms"))
        # a second query: the engine is up, nothing says it is starting
        holder.locator(".atlas-viewer-sqltext").fill("SELECT count(*) AS n FROM wow_train_dialogues")
        holder.locator(".atlas-viewer-run").click()
        page.wait_for_function("el => el.getAttribute('data-sql-state') === 'done' && el.getAttribute('data-sql-rows')",
                               arg=holder.element_handle(), timeout=60_000)
        assert "start" not in status.text_content()
        print(f"first query {first} ms (engine start {holder.get_attribute('data-sql-start-ms')} ms), "
              f"second {holder.get_attribute('data-sql-ms')} ms")
        assert own_errors(errors) == []
    finally:
        _close(page, server)


def test_a_search_in_every_split_pinned_dialogues_side_by_side_and_labels_coloured(site_url: str, browser: Any) -> None:
    """WoW's page: a search run over every split of the dataset (each split's count that of its files), a
    split opened from there at the search; a dialogue pinned, another opened beside it; the turns' roles and
    labels coloured as the chapters colour them."""
    index = json.loads((_site() / "_viewer" / "index.json").read_text(encoding="utf-8"))
    splits = [entry["split"] for entry in index["splits"] if entry["dataset"] == "wow"]
    assert len(splits) >= 2
    word = "the"
    expected = {}
    for name in splits:
        directory = _site() / "_viewer" / "wow" / name
        frame = read_level(directory, "turns")
        columns = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))["levels"]["turns"]["columns"]
        searched = [c for c in columns if not c.get("paged")]
        expected[f"wow/{name}"] = sum(word in hay for hay in _haystack(frame, searched))
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/book/viewer/wow.html#viewer=wow/{splits[0]}&level=turns&q={word}")
        holder = page.locator(".atlas-viewer[data-datasets]").first
        _wait(holder)
        holder.locator(".atlas-viewer-every-run").click()
        every = holder.locator(".atlas-viewer-every[data-state='done']")
        every.wait_for(timeout=60_000)
        found = {item.get_attribute("data-split"): int(item.get_attribute("data-matches"))
                 for item in every.locator("li[data-matches]").all()}
        assert found == expected
        assert int(every.get_attribute("data-matches")) == sum(expected.values())
        other = next(key for key in expected if key != f"wow/{splits[0]}" and expected[key])
        every.locator(f"li[data-split='{other}'] button").click()
        page.wait_for_function("([el, n]) => el.getAttribute('data-matches') === String(n) && "
                               "el.getAttribute('data-viewer-state') === 'ready'",
                               arg=[holder.element_handle(), expected[other]])
        assert f"#viewer={other}&level=turns&q={word}" in page.url
        # -- the roles and labels of the turns, coloured
        row = holder.locator(".atlas-viewer-grid tbody tr[data-role='wizard']").first
        assert row.locator("td").first.evaluate("el => getComputedStyle(el).boxShadow") != "none"
        # -- two dialogues side by side
        holder.locator(".atlas-viewer-search").fill("")
        _search(page, holder, "", expected_rows := int(holder.get_attribute("data-rows")))
        assert expected_rows > 1
        rows = holder.locator(".atlas-viewer-grid tbody tr")
        first_id = rows.first.get_attribute("data-id")
        rows.first.click()
        detail = holder.locator(".atlas-viewer-detail")
        page.wait_for_function("([el, id]) => el.getAttribute('data-id') === id",
                               arg=[detail.element_handle(), first_id])
        holder.locator(".atlas-viewer-pin").click()
        second = next(rows.nth(k) for k in range(rows.count()) if rows.nth(k).get_attribute("data-id") != first_id)
        second_id = second.get_attribute("data-id")
        second.click()
        page.wait_for_function("([el, id]) => el.getAttribute('data-id') === id",
                               arg=[detail.element_handle(), second_id])
        pinned = detail.locator(".atlas-viewer-pinned")
        assert pinned.get_attribute("data-title").endswith(" " + first_id)
        left, right = pinned.bounding_box(), detail.locator(".atlas-viewer-current").bounding_box()
        assert left["x"] + left["width"] <= right["x"] + 1 and abs(left["y"] - right["y"]) < 5, (left, right)
        assert second_id in detail.locator(".atlas-viewer-current > .atlas-viewer-detail-head strong").text_content()
        # the comparison is in the link: a reload shows the two again
        assert f"pin={first_id}" in page.url
        page.reload()
        holder = page.locator(".atlas-viewer[data-datasets]").first
        detail = holder.locator(".atlas-viewer-detail")
        pinned = detail.locator(".atlas-viewer-pinned")
        pinned.wait_for(timeout=30_000)
        page.wait_for_function("([el, id]) => el.getAttribute('data-id') === id",
                               arg=[detail.element_handle(), second_id])
        assert pinned.get_attribute("data-title").endswith(" " + first_id)
        pinned.locator(".atlas-viewer-unpin").click()
        assert pinned.count() == 0 and "pin=" not in page.url
        assert own_errors(errors) == []
    finally:
        page.context.close()


def test_faithdial_and_its_audit_are_one_sql_catalogue_with_one_begin_spelling(site_url: str, browser: Any) -> None:
    """FaithDial's page: the audit's gold and model files and FaithDial's own splits are tables of one
    console, listed by name, joined in one query; the normalised BEGIN class counts the gold file's
    "Partial Hallucination" and the model file's list Entailment, Hallucination alike."""
    audit = _site() / "_viewer" / "faithdial_audit"
    gold, model = read_level(audit / "gold_wow", "turns"), read_level(audit / "gpt2_wow", "turns")
    column = "BEGIN class (normalised)"
    assert column in gold.columns and column in model.columns, "the book was built before the normalised column"
    partial_gold = int((gold[column] == "Partial Hallucination").sum())
    listed_model = int(model["BEGIN"].map(
        lambda v: isinstance(v, list) and {"Entailment", "Hallucination"} <= set(v)).sum())
    assert partial_gold > 0 and listed_model > 0
    assert (gold["BEGIN"].map(lambda v: isinstance(v, list) and "Partial Hallucination" in v)).sum() == partial_gold
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/book/viewer/faithdial.html#viewer=faithdial_audit/gold_wow&level=turns")
        holder = page.locator(".atlas-viewer[data-datasets]").first
        _wait(holder)
        holder.locator(".atlas-viewer-sql > summary").click()
        if page.locator('meta[name="atlas-sql-console"][content="missing"]').count():
            pytest.skip("the book was built without npm")
        names = set(holder.locator(".atlas-viewer-tablename").all_text_contents())
        assert {"faithdial_audit_gold_wow_turns", "faithdial_audit_gpt2_wow_turns", "faithdial_train_turns",
                "gold_wow_turns"} <= names
        # one query over two files: the classes of the gold responses beside GPT-2's, joined on the class
        per_class = "(SELECT \"{c}\" AS class, count(*) AS n FROM {t} WHERE \"{c}\" IS NOT NULL GROUP BY 1)"
        sql = (f"SELECT g.class, g.n AS gold, m.n AS gpt2 FROM {per_class.format(c=column, t='gold_wow_turns')} g "
               f"JOIN {per_class.format(c=column, t='faithdial_audit_gpt2_wow_turns')} m USING (class) ORDER BY class")
        holder.locator(".atlas-viewer-sqltext").fill(sql)
        holder.locator(".atlas-viewer-run").click()
        page.wait_for_function("el => ['done', 'error'].includes(el.getAttribute('data-sql-state'))",
                               arg=holder.element_handle(), timeout=120_000)
        status = holder.locator(".atlas-viewer-sqlstatus").text_content()
        assert holder.get_attribute("data-sql-state") == "done", status
        cells = holder.locator(".atlas-viewer-result tbody tr").evaluate_all(
            "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))")
        both = pd.concat([gold[column].value_counts().rename("gold"), model[column].value_counts().rename("gpt2")],
                         axis=1, join="inner").sort_index()
        assert cells == [[name, f"{row.gold:,}", f"{row.gpt2:,}"] for name, row in both.iterrows()]
        assert both.loc["Partial Hallucination"].tolist() == [partial_gold, listed_model]
        # the badges of the normalised column take the renderings' colours
        badge = holder.locator(".atlas-viewer-grid .atlas-badge-begin-partial-hallucination").first
        assert badge.evaluate("el => getComputedStyle(el).backgroundColor") not in ("rgba(0, 0, 0, 0)", "transparent")
        assert own_errors(errors) == []
    finally:
        page.context.close()


def test_the_embed_snippet_shows_the_view_without_the_book_around_it(site_url: str, browser: Any) -> None:
    """The snippet's iframe, in another page: the same rows, and the viewer alone (no header, navigation or
    introduction), its first row within the frame's 720 px."""
    page, errors = new_page(browser, width=1000)
    try:
        open_page(page, f"{site_url}/book/viewer/wow.html#viewer=wow/train&level=turns&sort=turn&desc=1")
        holder = page.locator(".atlas-viewer[data-datasets]").first
        _wait(holder)
        first = holder.locator(".atlas-viewer-grid tbody tr").first.get_attribute("data-row")
        open_filters(holder)
        snippet = holder.locator(".atlas-viewer-embedtext").input_value()
        assert snippet.startswith("<iframe src=") and "sort=turn&amp;desc=1" in snippet
        page.set_content(f"<!DOCTYPE html><html><body><p>Another page</p>{snippet}</body></html>")
        frame = page.frame_locator("iframe")
        row = frame.locator(".atlas-viewer[data-viewer-state='ready'] .atlas-viewer-grid tbody tr").first
        row.wait_for(timeout=60_000)
        assert row.get_attribute("data-row") == first
        assert frame.locator(".bd-header").first.is_hidden() and frame.locator(".bd-sidebar-primary").is_hidden()
        top = row.evaluate("el => el.getBoundingClientRect().bottom")
        assert top < 720, f"the first row ends at {top} px of the frame"
        assert own_errors(errors) == []
    finally:
        page.context.close()
