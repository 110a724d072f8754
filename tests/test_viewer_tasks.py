"""A researcher's tasks in the viewer pages (book/viewer/<dataset>.md), on the book built on the real data.

Each task's expected answer is computed here from the data files themselves (``utils.load``), never
written in: JWHR's answered sessions with more than three search steps, BEGIN's ``t5`` responses
labelled "Not fully attributable", attribution labels per model in SQL, the KILT dialogues about
jazz, a query comparing two splits, a histogram bar that filters, a failed query that clears the
previous result, and a link that restores filters, sort, the open row and the query. No request may
leave the machine. Shares the built site's server and Chromium with tests/test_site.py.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
import test_site
from test_site import SITE, new_page, open_page, own_errors
from test_viewer_site import open_filters

import utils
from utils.book.viewer_files import read_level

pytestmark = [pytest.mark.browser, pytest.mark.realdata]
site_url = test_site.site_url
browser = test_site.browser


@pytest.fixture(autouse=True)
def _built_on_real_data(real_data_dir: Any) -> None:
    for dataset, split in (("jwhr", "answered"), ("begin", "wow_test"), ("wow_kilt", "dev")):
        manifest = SITE / "_viewer" / dataset / split / "manifest.json"
        if not manifest.is_file():
            pytest.skip(f"the book was not built with the viewer's files of {dataset} {split}")
        if json.loads(manifest.read_text(encoding="utf-8"))["kind"] != "official":
            pytest.skip("the book was not built on the real data")


def _holder(page: Any) -> Any:
    holder = page.locator(".atlas-viewer-wide").first
    page.wait_for_function("el => el.getAttribute('data-viewer-state') === 'ready'", arg=holder.element_handle(),
                           timeout=60_000)
    return holder


def _matches(holder: Any) -> int:
    return int(holder.get_attribute("data-matches"))


def _run_sql(holder: Any, sql: str) -> str:
    if not holder.locator(".atlas-viewer-sql[open]").count():
        holder.locator(".atlas-viewer-sql > summary").click()
    holder.locator(".atlas-viewer-sqltext").fill(sql)
    holder.locator(".atlas-viewer-run").click()
    holder.page.wait_for_function("el => ['done', 'error'].includes(el.getAttribute('data-sql-state'))",
                                  arg=holder.element_handle(), timeout=120_000)
    return str(holder.get_attribute("data-sql-state"))


def _result(holder: Any) -> list[list[str]]:
    return holder.locator(".atlas-viewer-result tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))")


def _outside(requests: list[str]) -> list[str]:
    return [url for url in requests if not re.match(r"(https?://(127\.0\.0\.1|localhost)[:/]|data:|blob:)", url)]


def test_jwhr_steps_a_histogram_bar_two_splits_in_sql_and_a_failed_query(site_url: str, browser: Any) -> None:
    from utils.datasets.jwhr.viewer import columns

    answered = utils.load("jwhr", "answered")
    not_answered = utils.load("jwhr", "not_answered")
    steps = [columns(dialogue)["steps"] for dialogue in answered]
    more_than_three = sum(step > 3 for step in steps)
    page, errors = new_page(browser)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    try:
        open_page(page, f"{site_url}/book/viewer/jwhr.html#viewer=jwhr/answered&level=dialogues&r=steps%3D4~")
        holder = _holder(page)
        assert int(holder.get_attribute("data-rows")) == len(answered)
        assert _matches(holder) == more_than_three  # 129 of 838 on the published files
        # the grid names a session by its question, first
        first = holder.locator(".atlas-viewer-grid thead th").first.get_attribute("data-column")
        assert first == "question"
        # the statistics: no panel for the id or an all-empty column; a bar of steps filters
        holder.locator(".atlas-viewer-reset").click()
        holder.locator(".atlas-viewer-stats > summary").click()
        panels = holder.locator(".atlas-viewer-stat").evaluate_all("els => els.map(e => e.dataset.column)")
        assert "id" not in panels and "topic" not in panels
        bar = holder.locator(".atlas-viewer-stat[data-column='steps'] button.atlas-viewer-bar").first
        low, high = float(bar.get_attribute("data-from")), float(bar.get_attribute("data-to"))
        assert low == int(low) and high == int(high), "steps are whole numbers: so are the bins"
        in_bar = sum(low <= step <= high for step in steps)
        assert int(bar.get_attribute("data-count")) == in_bar
        bar.click()
        page.wait_for_function("([el, n]) => el.getAttribute('data-matches') === String(n)",
                               arg=[holder.element_handle(), in_bar])
        # one query over two splits: answered against not answered, counts as integers
        sql = ("SELECT 'answered' AS split, count(*) AS sessions, max(steps) AS most FROM answered_dialogues "
               "UNION ALL SELECT 'not_answered', count(*), max(steps) FROM not_answered_dialogues ORDER BY split")
        assert _run_sql(holder, sql) == "done", holder.locator(".atlas-viewer-sqlstatus").text_content()
        most_not = max(columns(dialogue)["steps"] for dialogue in not_answered)
        assert _result(holder) == [["answered", str(len(answered)), str(max(steps))],
                                   ["not_answered", str(len(not_answered)), str(most_not)]]
        assert holder.locator(".atlas-viewer-download").is_visible()
        # a failed query clears that result and its CSV link, and says why
        assert _run_sql(holder, "SELECT no_such_column FROM answered_dialogues") == "error"
        assert _result(holder) == []
        assert not holder.locator(".atlas-viewer-download").is_visible()
        # the console's words in the status line, DuckDB's own error in a box of its own
        assert "failed" in holder.locator(".atlas-viewer-sqlstatus").text_content()
        assert "no_such_column" in holder.locator(".atlas-viewer-sqlerror").text_content()
        # another split keeps the level on screen
        holder.locator(".atlas-viewer-level").select_option("turns")
        page.wait_for_function("el => el.querySelector('.atlas-viewer-count').textContent.includes('turns rows')",
                               arg=holder.element_handle())
        other = holder.locator(".atlas-viewer-split option").evaluate_all(
            "options => options.find(o => o.textContent.startsWith('not answered')).value")
        holder.locator(".atlas-viewer-split").select_option(other)
        turns = sum(len(dialogue.turns) for dialogue in not_answered)
        page.wait_for_function("([el, n]) => el.getAttribute('data-rows') === String(n)",
                               arg=[holder.element_handle(), turns])
        assert holder.locator(".atlas-viewer-level").input_value() == "turns"
        assert own_errors(errors) == []
        assert _outside(requests) == []
    finally:
        page.context.close()


def test_begin_labels_by_model_and_a_link_restoring_filters_sort_row_and_query(site_url: str, browser: Any) -> None:
    from utils.datasets.begin.parser import label
    from utils.datasets.begin.render import MODELS

    split = utils.load("begin", "wow_test")
    per_model = Counter((MODELS.get(str(d.meta.get("model")), str(d.meta.get("model"))), label(d)) for d in split)
    t5 = MODELS.get("t5", "t5")
    target = per_model[(t5, "Not fully attributable")]
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/book/viewer/begin.html#viewer=begin/wow_test&level=dialogues")
        holder = _holder(page)
        assert holder.locator(".atlas-viewer-grid thead th").first.get_attribute("data-column") == "message"
        open_filters(holder)
        holder.locator(f"fieldset[data-column='model'] label[data-value='{t5}'] input").check()
        holder.locator("fieldset[data-column='attribution label (BEGIN)'] "
                       "label[data-value='Not fully attributable'] input").check()
        assert _matches(holder) == target  # 625 on the published files
        # the filters survive a change of level: the same responses, as turns
        holder.locator(".atlas-viewer-level").select_option("turns")
        page.wait_for_function("el => el.querySelector('.atlas-viewer-count').textContent.includes('turns rows')",
                               arg=holder.element_handle())
        _holder(page)
        assert "f=model%3D" in page.url
        holder.locator("fieldset[data-column='role'] label[data-value='wizard'] input").check()
        assert _matches(holder) == target
        # labels per model in SQL: integers, as the data counts them
        sql = ("SELECT model, BEGIN AS label, count(*) AS responses FROM turns WHERE role = 'wizard' "
               "GROUP BY model, label ORDER BY model, label")
        assert _run_sql(holder, sql) == "done", holder.locator(".atlas-viewer-sqlstatus").text_content()
        expected = [[model, name, str(count)] for (model, name), count in sorted(per_model.items())]
        assert _result(holder) == expected
        # sort, open a row: the link holds the whole view
        holder.locator("th[data-column='text'] button").click()
        holder.locator(".atlas-viewer-grid tbody tr").first.click()
        holder.locator(".atlas-viewer-rendering").first.wait_for()
        opened = holder.locator(".atlas-viewer-detail").get_attribute("data-id")
        link = page.url
        fresh, fresh_errors = new_page(browser)
        try:
            open_page(fresh, link)
            again = _holder(fresh)
            assert _matches(again) == target
            assert again.locator("th[data-column='text']").get_attribute("aria-sort") == "ascending"
            assert again.locator(".atlas-viewer-detail").get_attribute("data-id") == opened
            fresh.wait_for_function("el => el.getAttribute('data-sql-state') === 'waiting'", arg=again.element_handle())
            assert again.locator(".atlas-viewer-sqltext").input_value() == sql
            assert own_errors(fresh_errors) == []
        finally:
            fresh.context.close()
        assert own_errors(errors) == []
    finally:
        page.context.close()


def test_kilt_dialogues_about_jazz(site_url: str, browser: Any) -> None:
    manifest = json.loads((SITE / "_viewer" / "wow_kilt" / "dev" / "manifest.json").read_text(encoding="utf-8"))
    examples = utils.load("wow_kilt", "dev")
    dialogues = {str(example.meta["wow_dialogue_id"]) for example in examples}
    index = json.loads((SITE / "_viewer" / "index.json").read_text(encoding="utf-8"))["splits"]
    first = next(entry for entry in index if entry["dataset"] in ("wow", "wow_kilt"))
    first_rows = json.loads((SITE / first["path"] / "manifest.json").read_text(encoding="utf-8"))["levels"]["dialogues"]
    page, errors = new_page(browser)
    try:
        # the page, opened without a view in its address, shows its first split's dialogues
        open_page(page, f"{site_url}/book/viewer/wow.html")
        assert int(_holder(page).get_attribute("data-rows")) == first_rows["rows"]
        page.goto("about:blank")
        open_page(page, f"{site_url}/book/viewer/wow.html#viewer=wow_kilt/dev&level=dialogues&q=jazz")
        holder = _holder(page)
        assert int(holder.get_attribute("data-rows")) == len(dialogues) == manifest["levels"]["dialogues"]["rows"]
        # a dialogue is about jazz when its text (any of its examples') names it; the search also reads
        # the row's other strings (ids, titles): exactly the rows of the files holding the word
        about = {str(example.meta["wow_dialogue_id"]) for example in examples
                 if "jazz" in " ".join([example.topic or "", *(turn.text for turn in example.turns)]).lower()}
        rows = read_level(SITE / "_viewer" / "wow_kilt" / "dev", "dialogues")
        strings = [c["name"] for c in manifest["levels"]["dialogues"]["columns"] if c["stored"] != "number"]
        texts = [" ".join(" ".join(v) if isinstance(v, list) else str(v) for v in row if v is not None).lower()
                 for row in rows[strings].itertuples(index=False)]
        holding = sum("jazz" in text for text in texts)
        assert _matches(holder) == holding >= len(about) > 0  # 59 of 945 on the published files
        assert own_errors(errors) == []
    finally:
        page.context.close()
