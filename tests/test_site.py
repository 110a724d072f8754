"""Browser test of the built book: every page loads, our scripts raise nothing, explorers work.

Runs Debian's Chromium (``/usr/bin/chromium``) through Python Playwright against a local
``http.server`` over ``_build/html``. Requests to any other host are aborted at once: the site must
work without third-party servers (and they are unreachable here anyway). Screenshots of every
content page, light and dark, laptop and phone width, go to ``tests/artifacts/`` for a human to look at.

Skipped when the book is not built (``make book``) or Chromium / Playwright are missing.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gzip
import html
import http.server
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from conftest import CHROMIUM, CHROMIUM_ARGS, local_only
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.sources import registry

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
#: The built book; ``ATLAS_SITE_DIR`` points the test at another build (for example a small test book).
SITE = Path(os.environ.get("ATLAS_SITE_DIR") or REPO / "_build" / "html")
STATIC = REPO / "book" / "_static"
ARTIFACTS = REPO / "tests" / "artifacts"
DATASET_CHAPTERS = ["notebooks/wow.html", "notebooks/faithdial.html", "notebooks/wise.html", "notebooks/jwhr.html"]
#: Built pages that are not book content (Sphinx's own index pages, execution reports).
SKIP_PREFIXES = ("_static/", "_sources/", "_images/", "reports/", "_downloads/")
WIDTHS = {"laptop": 1280, "phone": 390}
THEMES = ("light", "dark")

playwright_sync = pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)", allow_module_level=True)


# -- fixtures -------------------------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    """A local server over ``_build/html`` (skips when the book has not been built)."""
    if not (SITE / "index.html").is_file():
        pytest.skip(f"{SITE} has no built book: run `make book` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def new_page(browser: Any, *, width: int = 1280, theme: str = "light") -> tuple[Any, list[str]]:
    """A page that only talks to the local server, with its uncaught script errors collected."""
    context = browser.new_context(
        viewport={"width": width, "height": 900 if width > 600 else 844},
        color_scheme=theme,
        device_scale_factor=1,
    )
    # pydata-sphinx-theme keeps the reader's choice in localStorage ("mode"); set it before any script runs.
    context.add_init_script(f"try {{ localStorage.setItem('mode', '{theme}'); }} catch (e) {{}}")
    context.route("**/*", local_only)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}\n{error.stack or ''}"))
    page.on("dialog", lambda dialog: (errors.append(f"dialog opened: {dialog.message}"), dialog.dismiss()))
    page.on("response", lambda response: _missing_local_file(response, errors))
    return page, errors


def _missing_local_file(response: Any, errors: list[str]) -> None:
    """A stylesheet, script or image of the site's own that does not load is an error too."""
    url = urlsplit(response.url)
    # Chromium asks every site for a favicon; the book declares none.
    if response.status >= 400 and url.hostname in ("127.0.0.1", "localhost") and url.path != "/favicon.ico":
        errors.append(f"HTTP {response.status} for {response.url}")


def own_errors(errors: list[str]) -> list[str]:
    """Uncaught errors that come from the book's own scripts (not from an aborted third-party one)."""
    third_party = re.compile(r"https?://(?!127\.0\.0\.1|localhost)[^\s)]+")
    kept = []
    for error in errors:
        stack_urls = re.findall(r"https?://[^\s)]+", error)
        if stack_urls and all(third_party.match(url) for url in stack_urls):
            continue
        kept.append(error)
    return kept


def built_pages() -> list[str]:
    if not SITE.is_dir():
        return []
    pages = sorted(path.relative_to(SITE).as_posix() for path in SITE.rglob("*.html"))
    return [page for page in pages if not page.startswith(SKIP_PREFIXES)]


def open_page(page: Any, url: str) -> None:
    response = page.goto(url, wait_until="load")
    status = response.status if response is not None else "no response"
    assert response is not None and response.ok, f"{url} did not load ({status})"
    page.wait_for_load_state("networkidle")


# -- every page -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", built_pages() or ["index.html"])
def test_page_loads_without_script_errors(browser: Any, site_url: str, path: str) -> None:
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/{path}")
        assert page.locator("main, article").count() > 0, f"{path} has no main content"
        for explorer in range(page.locator("[data-atlas-explorer]").count()):
            check_explorer(page, page.locator("[data-atlas-explorer]").nth(explorer), path)
        assert own_errors(errors) == [], f"{path}: uncaught errors from the book's scripts"
    finally:
        page.context.close()


@pytest.mark.parametrize("path", DATASET_CHAPTERS)
def test_dataset_chapter_shows_dialogue_evidence_and_an_explorer(browser: Any, site_url: str, path: str) -> None:
    if not (SITE / path).is_file():
        pytest.fail(f"dataset chapter {path} is not in the built site")
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/{path}")
        turns = page.locator(".atlas-dialogue .atlas-turn")
        assert turns.count() > 0, f"{path}: no rendered dialogue turns"
        evidence = page.locator(".atlas-dialogue :is(.atlas-evidence li, .atlas-selected, .atlas-details)")
        assert evidence.count() > 0, f"{path}: no rendered evidence"
        explorers = page.locator("[data-atlas-explorer]")
        assert explorers.count() > 0, f"{path}: no static explorer"
        assert explorers.first.locator(".atlas-explorer-view .atlas-turn").count() > 0
        assert own_errors(errors) == []
    finally:
        page.context.close()


@pytest.mark.parametrize("width_name", list(WIDTHS))
def test_one_search_control_and_a_working_sidebar_toggle(browser: Any, site_url: str, width_name: str) -> None:
    """Regression: newer pydata-sphinx-theme put a second search box in a header above every page.

    One visible search control per width (the sidebar's field on a laptop, the header's icon on a
    phone), and the navigation toggle moves the sidebar in or out.
    """
    page, errors = new_page(browser, width=WIDTHS[width_name])
    try:
        open_page(page, f"{site_url}/{DATASET_CHAPTERS[0]}")
        visible_search = page.evaluate(
            "() => [...document.querySelectorAll('.search-button-field, .search-button, .bd-search')]"
            ".filter(element => element.offsetParent !== null).length"
        )
        assert visible_search == 1, f"{visible_search} search controls visible at {width_name} width"
        sidebar = page.locator(".bd-sidebar-primary")
        before = sidebar.bounding_box()
        page.locator("button.primary-toggle").first.click()
        page.wait_for_timeout(600)  # the theme slides the sidebar
        after = sidebar.bounding_box()
        assert before is not None and after is not None
        assert before["x"] != after["x"], "the navigation toggle did not move the sidebar"
        assert own_errors(errors) == []
    finally:
        page.context.close()


def wait_ready(page: Any, explorer: Any, where: str) -> None:
    """explorer.js unpacks the data asynchronously: wait until the explorer says it is ready."""
    with contextlib.suppress(playwright_sync.TimeoutError):
        explorer.locator(".atlas-explorer-controls:not([hidden])").wait_for(state="visible", timeout=15_000)
    assert explorer.get_attribute("data-atlas-ready") == "1", f"{where}: explorer.js did not set up an explorer"


def embedded(explorer: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The explorer's settings and its items, unpacked here (base64, gzip, JSON) from the page's own bytes."""
    meta = json.loads(explorer.locator("script.atlas-explorer-data").text_content())
    assert meta["encoding"] == "gzip+base64"
    return meta, json.loads(gzip.decompress(base64.b64decode(meta["items"])))


Items = list[dict[str, Any]]


def expected_matches(items: Items, query: str = "", chosen: dict[str, set[str]] | None = None) -> list[int]:
    """The items a search and filters must leave, computed from the embedded data (every search word
    a substring of the item's search text or of what its rendering shows; one of the chosen values of
    every filtered facet)."""
    terms = query.lower().split()
    found = []
    for number, item in enumerate(items):
        if terms and not all(term in searched_text(item) for term in terms):
            continue
        if all(set(item["facets"].get(name, [])) & values for name, values in (chosen or {}).items() if values):
            found.append(number)
    return found


def searched_text(item: dict[str, Any]) -> str:
    """What explorer.js searches an item in: its search text and the text of its rendering."""
    if "_searched" not in item:
        shown = html.unescape(re.sub(r"<[^>]*>", "", item["html"]))
        item["_searched"] = " ".join(f"{item['search']} {shown}".lower().split())
    return item["_searched"]


def shown_matches(explorer: Any) -> int:
    return int(explorer.get_attribute("data-matches"))


def count_text(explorer: Any) -> str:
    return explorer.locator(".atlas-explorer-count").text_content().strip()


def check_explorer(page: Any, explorer: Any, where: str) -> None:
    """The explorer is wired up, counts right, pages forwards and back, jumps by index and searches."""
    wait_ready(page, explorer, where)
    controls = explorer.locator(".atlas-explorer-controls")
    assert controls.is_visible(), f"{where}: explorer controls are hidden"
    meta, items = embedded(explorer)
    count, noun = len(items), meta["noun"]
    assert count == int(explorer.get_attribute("data-count")) == meta["count"]
    assert count_text(explorer) == f"{count:,} {noun} embedded"
    assert shown_matches(explorer) == count
    view = explorer.locator(".atlas-explorer-view")
    position = explorer.locator(".atlas-explorer-position")
    # it opens at the first item the chapter shows (the pinned one), else at the first embedded
    start = [item["key"] for item in items].index(meta["start"])
    assert explorer.get_attribute("data-current") == str(start)
    assert explorer.get_attribute("data-key") == meta["start"]
    assert position.text_content().startswith(f"Item {start + 1} of {count:,}")
    if count > 1:
        explorer.locator(".atlas-explorer-index").select_option("0")
        first_html = view.inner_html()
        explorer.locator(".atlas-explorer-next").click()
        assert explorer.get_attribute("data-current") == "1", f"{where}: next did not page"
        assert view.inner_html() != first_html or items[0]["html"] == items[1]["html"]
        assert position.text_content().startswith(f"Item 2 of {count:,}")
        explorer.locator(".atlas-explorer-prev").click()
        assert explorer.get_attribute("data-current") == "0", f"{where}: previous did not page"
        explorer.locator(".atlas-explorer-index").select_option(str(count - 1))
        assert explorer.get_attribute("data-current") == str(count - 1), f"{where}: the index did not jump"
        assert explorer.locator(".atlas-explorer-next").is_disabled()
    # search by a word of the last item: the result must contain it and only matching items
    term = _search_term(items[-1]["search"])
    search = explorer.locator(".atlas-explorer-search")
    search.fill(term)
    expected = expected_matches(items, term)
    assert int(explorer.get_attribute("data-current")) == expected[0], f"{where}: search for {term!r} failed"
    assert shown_matches(explorer) == len(expected)
    assert count_text(explorer) == f"{len(expected):,} of {count:,} {noun} match"
    assert explorer.locator(".atlas-explorer-index option").count() == len(expected)
    search.fill("zzqx-no-such-text-qxzz")
    assert count_text(explorer) == f"0 of {count:,} {noun} match"
    assert view.locator(".atlas-explorer-nomatch").count() == 1
    search.fill("")
    assert count_text(explorer) == f"{count:,} {noun} embedded"
    assert page.evaluate("() => window.__atlasPwned === undefined")


def _search_term(text: str) -> str:
    words = [word for word in re.findall(r"\w+", text) if len(word) >= 4]
    if words:
        return max(words, key=len)
    return text.strip()[:2] or text


def open_details(explorer: Any, css: str) -> None:
    details = explorer.locator(css)
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    assert details.get_attribute("open") is not None


def chip(explorer: Any, facet: str, value: str) -> Any:
    """The filter chip of one facet value (found by comparing attributes: values are dataset text)."""
    number = explorer.evaluate(
        """(root, wanted) => [...root.querySelectorAll('.atlas-explorer-chip')].findIndex(
            label => label.closest('fieldset').getAttribute('data-facet') === wanted[0]
                && label.getAttribute('data-value') === wanted[1])""",
        [facet, value],
    )
    assert number >= 0, f"no chip for {facet} = {value!r}"
    return explorer.locator(".atlas-explorer-chip").nth(number)


def chip_counts(explorer: Any) -> dict[tuple[str, str], int]:
    """The count each chip shows (chips at zero left out: the expected counts only list values found)."""
    return {
        (facet, value): int(n)
        for facet, value, n in explorer.evaluate(
            """root => [...root.querySelectorAll('.atlas-explorer-chip')].map(label => [
                label.closest('fieldset').getAttribute('data-facet'), label.getAttribute('data-value'),
                label.getAttribute('data-count')])"""
        )
        if int(n)
    }


def expected_chip_counts(items: Items, query: str, chosen: dict[str, set[str]]) -> dict[tuple[str, str], int]:
    """What each chip must show: the items matching the search and the *other* facets' choices."""
    counts: dict[tuple[str, str], int] = {}
    facet_names = {name for item in items for name in item["facets"]}
    for name in facet_names:
        others = {other: values for other, values in chosen.items() if other != name}
        for number in expected_matches(items, query, others):
            for value in items[number]["facets"].get(name, []):
                counts[(name, value)] = counts.get((name, value), 0) + 1
    return counts


def check_filter_and_statistics(explorer: Any, items: list[dict[str, Any]], facet: str, noun: str) -> str:
    """Tick the most frequent value of ``facet``: the count shown, every chip's count and the column
    statistics must match the embedded data. Returns the value ticked (left ticked)."""
    values = [value for item in items for value in item["facets"].get(facet, [])]
    assert values, f"no item has a {facet!r} label"
    value = max(sorted(set(values)), key=values.count)
    open_details(explorer, ".atlas-explorer-filters")
    assert chip_counts(explorer) == expected_chip_counts(items, "", {})
    chip(explorer, facet, value).locator("input").check()
    chosen = {facet: {value}}
    expected = expected_matches(items, "", chosen)
    assert shown_matches(explorer) == len(expected) == values.count(value)
    assert count_text(explorer) == f"{len(expected):,} of {len(items):,} {noun} match"
    assert int(explorer.get_attribute("data-current")) == expected[0]
    assert chip_counts(explorer) == expected_chip_counts(items, "", chosen)
    # column statistics of the matching items: label frequencies and the number of values per column
    open_details(explorer, ".atlas-explorer-stats")
    rows = explorer.evaluate(
        """root => [...root.querySelectorAll('.atlas-chart-frequencies')].map(chart => [
            chart.getAttribute('data-facet'),
            [...chart.querySelectorAll('.atlas-chart-row')].map(row => [row.getAttribute('data-value'),
                Number(row.getAttribute('data-count'))])])"""
    )
    for name, shown in rows:
        counts: dict[str, int] = {}
        for number in expected:
            for label in items[number]["facets"].get(name, []):
                counts[label] = counts.get(label, 0) + 1
        every = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))  # every value, not the top 10
        assert sorted(map(tuple, shown)) == sorted(every), f"label frequencies of {name!r}"
    assert rows and rows[0][0] in {facet, "split"}
    summaries = explorer.evaluate(
        """root => [...root.querySelectorAll('.atlas-chart-histogram')].map(chart => [
            chart.getAttribute('data-column'), chart.querySelector('.atlas-chart-summary').textContent])"""
    )
    assert summaries, "no column histogram"
    for column, summary in summaries:
        numbers = sorted(items[number]["columns"][column] for number in expected if column in items[number]["columns"])
        assert summary.endswith(f"{len(numbers):,} values"), (column, summary)
        assert f"max {_chart_number(numbers[-1])}" in summary and f"min {_chart_number(numbers[0])}" in summary
    return value


def _chart_number(value: float) -> str:
    rounded = round(value, 1)
    return f"{int(rounded):,}" if rounded == int(rounded) else f"{rounded:,}"


#: Per chapter: the facet to filter by, a label word to search, and where a gloss word comes from.
CHAPTER_EXPLORERS = {
    "notebooks/wow.html": {"facet": "checked source", "label": ("checked source", "partner"), "gloss": None},
    "notebooks/faithdial.html": {"facet": "BEGIN labels", "label": ("BEGIN labels", "hallucination"), "gloss": None},
    "notebooks/wise.html": {"facet": "system action", "label": ("system action", "clarify"), "gloss": "wise"},
    "notebooks/jwhr.html": {"facet": "answered", "label": ("quote / summary", "summary"), "gloss": "jwhr"},
}


def _gloss_word(kind: str, items: list[dict[str, Any]]) -> tuple[str, set[int]]:
    """An English word of the chapter's glosses that the embedded search text holds, and the items
    that must match it because one of their labels is glossed with it (WISE's label glosses)."""
    if kind == "wise":
        from utils.datasets.wise.parser import ACTIONS, INTENTS

        glossary = {**INTENTS, **ACTIONS}
    else:
        from utils.datasets.jwhr.render import glosses

        glossary = dict(glosses())
    for english in sorted(glossary.values()):
        for word in re.findall(r"[A-Za-z]{6,}", english):
            word = word.lower()
            if any(word in item["search"] for item in items):
                labelled = set()
                for number, item in enumerate(items):
                    labels = [value for values in item["facets"].values() for value in values]
                    if any(word in glossary.get(label, "").lower() for label in labels):
                        labelled.add(number)
                return word, labelled
    raise AssertionError(f"no {kind} gloss word is searchable in the embedded items")


@pytest.mark.parametrize("path", DATASET_CHAPTERS)
def test_chapter_explorer_filters_searches_labels_and_glosses_and_follows_links(
    browser: Any, site_url: str, path: str
) -> None:
    """Each chapter's explorer: filter by a label, search a label word and a gloss word, follow a
    permalink, copy it, page with the keyboard; every count shown is checked against the embedded data."""
    if not (SITE / path).is_file():
        pytest.fail(f"dataset chapter {path} is not in the built site")
    plan = CHAPTER_EXPLORERS[path]
    page, errors = new_page(browser)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        open_page(page, f"{site_url}/{path}")
        explorer = page.locator("[data-atlas-explorer]").first
        wait_ready(page, explorer, path)
        meta, items = embedded(explorer)
        noun = meta["noun"]
        assert meta["count"] == len(items) <= meta["total"]
        sentence = explorer.locator(".atlas-explorer-sample").text_content()
        assert f"{len(items):,}" in sentence and f"{meta['total']:,}" in sentence, sentence
        # -- filter by a label
        value = check_filter_and_statistics(explorer, items, plan["facet"], noun)
        explorer.locator(".atlas-explorer-reset").click()
        assert shown_matches(explorer) == len(items)
        # -- search a label word: every item carrying the label is found
        label_facet, word = plan["label"]
        explorer.locator(".atlas-explorer-search").fill(word)
        expected = expected_matches(items, word)
        labelled = {
            number
            for number, item in enumerate(items)
            if any(word in value.lower() for value in item["facets"].get(label_facet, []))
        }
        assert labelled, f"{path}: no item carries a {label_facet} label with {word!r}"
        assert labelled <= set(expected)
        assert shown_matches(explorer) == len(expected)
        assert count_text(explorer) == f"{len(expected):,} of {len(items):,} {noun} match"
        # -- search and filter together
        chip(explorer, plan["facet"], value).locator("input").check()
        both = expected_matches(items, word, {plan["facet"]: {value}})
        assert shown_matches(explorer) == len(both)
        explorer.locator(".atlas-explorer-reset").click()
        # -- search a gloss word (the English datasets have none)
        if plan["gloss"]:
            gloss, glossed = _gloss_word(plan["gloss"], items)
            explorer.locator(".atlas-explorer-search").fill(gloss)
            expected = expected_matches(items, gloss)
            assert expected and glossed <= set(expected), f"{path}: gloss word {gloss!r}"
            assert shown_matches(explorer) == len(expected)
            assert count_text(explorer) == f"{len(expected):,} of {len(items):,} {noun} match"
            explorer.locator(".atlas-explorer-search").fill("")
        # -- keyboard: arrows page, "/" reaches the search box
        explorer.locator(".atlas-explorer-view").click(position={"x": 2, "y": 2})
        page.keyboard.press("ArrowRight")
        assert explorer.get_attribute("data-current") == ("1" if len(items) > 1 else "0")
        page.keyboard.press("ArrowLeft")
        assert explorer.get_attribute("data-current") == "0"
        page.keyboard.press("/")
        assert page.evaluate("() => document.activeElement.classList.contains('atlas-explorer-search')")
        # -- copy the link of an item, then follow it in a fresh page
        target = items[len(items) // 2]
        explorer.locator(".atlas-explorer-index").select_option(str(len(items) // 2))
        explorer.locator(".atlas-explorer-copy").click()
        explorer.locator(".atlas-explorer-copied", has_text="Link copied.").wait_for()
        link = page.evaluate("() => navigator.clipboard.readText()")
        assert link == f"{site_url}/{path}#{target['key']}"
        # <dataset>/<split>/<id>; an id may hold a slash (WoW's are "<split>/<index>")
        assert re.fullmatch(r"[a-z_]+/[A-Za-z0-9_ %]+/\S+", target["key"])
        assert own_errors(errors) == []
    finally:
        page.context.close()
    check_permalink(browser, link, target, items)


SHOWS_KEY = "key => document.querySelector('[data-atlas-explorer]').getAttribute('data-key') === key"


def check_permalink(browser: Any, link: str, target: dict[str, Any], items: list[dict[str, Any]]) -> None:
    page, errors = new_page(browser)
    try:
        open_page(page, link)
        explorer = page.locator("[data-atlas-explorer]").first
        wait_ready(page, explorer, link)
        page.wait_for_function(SHOWS_KEY, arg=target["key"])
        assert int(explorer.get_attribute("data-current")) == items.index(target)
        box = explorer.bounding_box()
        assert box is not None and box["y"] < 900, "the permalink did not bring the explorer into view"
        # a link to an item that is not embedded says so; another hash is left to the page
        other = items[0]["key"].rsplit("/", 1)[0] + "/99999999"
        page.evaluate("hash => { window.location.hash = hash; }", other)
        explorer.locator(".atlas-explorer-view .atlas-explorer-nomatch").wait_for()
        page.evaluate("hash => { window.location.hash = hash; }", items[-1]["key"])
        page.wait_for_function(SHOWS_KEY, arg=items[-1]["key"])
        assert own_errors(errors) == []
    finally:
        page.context.close()


#: Page weight: the built HTML of a chapter, with everything the explorer embeds.
PAGE_WEIGHT_LIMIT = 3_000_000


@pytest.mark.parametrize("path", DATASET_CHAPTERS)
def test_chapter_page_weight_stays_under_3_mb(path: str, artifacts: Path) -> None:
    built = SITE / path
    if not built.is_file():
        pytest.skip(f"{built} is not built (make book)")
    html = built.read_text(encoding="utf-8")
    images = {
        (built.parent / src).resolve()
        for src in re.findall(r'<img[^>]+src="([^"]+)"', html)
        if not src.startswith(("data:", "http:", "https:"))
    }
    weight = built.stat().st_size + sum(image.stat().st_size for image in images if image.is_file())
    (artifacts / f"weight-{Path(path).stem}.txt").write_text(
        f"{path}: HTML {built.stat().st_size:,} bytes, with its images {weight:,} bytes\n", encoding="utf-8"
    )
    assert built.stat().st_size < PAGE_WEIGHT_LIMIT, f"{path}: {built.stat().st_size:,} bytes of HTML"
    assert weight < PAGE_WEIGHT_LIMIT, f"{path}: {weight:,} bytes with its images"


def test_jwhr_and_faithdial_explorers_embed_the_real_data_when_built_on_it(browser: Any, site_url: str) -> None:
    """Built on real data, the JWHR explorer holds every session and the FaithDial one real audit rows."""
    page, errors = new_page(browser)
    try:
        found = {}
        for path in ("notebooks/jwhr.html", "notebooks/faithdial.html"):
            open_page(page, f"{site_url}/{path}")
            explorer = page.locator("[data-atlas-explorer]").first
            wait_ready(page, explorer, path)
            found[path] = (embedded(explorer), page.locator(".atlas-provenance").all_text_contents())
        (meta, items), banners = found["notebooks/jwhr.html"]
        assert len(items) == meta["total"], "every JWHR session fits the page: all must be embedded"
        if sum("Full official data" in banner for banner in banners) >= 2:
            assert len(items) == 1271
        (meta, items), banners = found["notebooks/faithdial.html"]
        audit = [item for item in items if item["key"].startswith("faithdial_audit/")]
        assert audit, "the FaithDial explorer embeds no audit row"
        if any("Full official data" in banner and "faithdial_audit" in banner for banner in banners):
            assert len(audit) > 100, "the real audit has thousands of rows"
        assert own_errors(errors) == []
    finally:
        page.context.close()


# -- screenshots ----------------------------------------------------------------------------------


UNSTICK_HEADERS = ".bd-header, .bd-header-article, .skip-link { position: static !important; }"
#: Sphinx's generated pages (and the redirect index.html) are not worth a picture.
NOT_SCREENSHOTTED = {"index.html", "genindex.html", "search.html", "py-modindex.html"}


def screenshot_pages() -> list[str]:
    return [page for page in built_pages() if page not in NOT_SCREENSHOTTED]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("width_name", list(WIDTHS))
def test_screenshots(browser: Any, site_url: str, artifacts: Path, theme: str, width_name: str) -> None:
    """Screenshots of the top of every content page and of its first explorer, for a human to look at."""
    pages = screenshot_pages()
    if not pages:
        pytest.skip("no content pages built")
    page, errors = new_page(browser, width=WIDTHS[width_name], theme=theme)
    try:
        for path in pages:
            open_page(page, f"{site_url}/{path}")
            assert page.evaluate("() => document.documentElement.dataset.theme") == theme, f"{path}: theme not {theme}"
            stem = re.sub(r"[^A-Za-z0-9]+", "-", path.removesuffix(".html")).strip("-")
            page.screenshot(path=str(artifacts / f"{stem}-{theme}-{width_name}.png"))
            explorer = page.locator("[data-atlas-explorer]").first
            if explorer.count():
                box = explorer.bounding_box()
                assert box is not None and box["x"] + box["width"] <= WIDTHS[width_name] + 1, (
                    f"{path}: the explorer overflows a {WIDTHS[width_name]}px window"
                )
                explorer.locator(".atlas-explorer-search").fill("e")  # the longest count: "k of n ... match"
                sticking_out = explorer.evaluate(
                    """root => {
                        const right = root.getBoundingClientRect().right + 1;
                        return [...root.querySelectorAll('*')]
                            .filter(e => !e.closest('.atlas-sr') && !e.closest('.atlas-viewer-scroll')
                                && e.getClientRects().length
                                && e.getBoundingClientRect().right > right)
                            .map(e => e.tagName + '.' + e.className).slice(0, 5);
                    }"""
                )
                assert sticking_out == [], f"{path}: explorer content sticks out at {width_name} width"
                explorer.locator(".atlas-explorer-search").fill("")
                # The theme's sticky headers would cover the top of a tall element in its capture: for
                # this picture only, let them scroll away with the page.
                page.add_style_tag(content=UNSTICK_HEADERS)
                explorer.screenshot(path=str(artifacts / f"{stem}-explorer-{theme}-{width_name}.png"))
        assert own_errors(errors) == []
    finally:
        page.context.close()


# -- a hostile fixture: data that tries to run a script -------------------------------------------

HOSTILE = [
    "</script><script>window.__atlasPwned = 'script'</script>",
    "<img src=x onerror=\"window.__atlasPwned = 'img'\">",
    "<svg onload=\"window.__atlasPwned = 'svg'\"></svg>",
    "<iframe srcdoc=\"<script>parent.__atlasPwned = 'iframe'</script>\"></iframe>",
    "</div></section><a href=\"javascript:window.__atlasPwned='href'\">click</a>",
    "\u2028\u2029 & &amp; <!-- --> ]]>",
]


def hostile_dialogues() -> list[Dialogue]:
    dialogues = []
    for i, text in enumerate(HOSTILE * 2):
        evidence = [Evidence(id=text, text=text, title=text, origin="knowledge", selected=True)]
        turns = [
            Turn(0, SEEKER, text, f"{text} seeker {i}", labels={"intent": [text]}),
            Turn(1, WIZARD, text, f"{text} wizard {i}", evidence=evidence),
        ]
        dialogues.append(Dialogue(id=f"hostile-{i}{text}", dataset="wow", split="test", turns=turns, topic=text))
    return dialogues


def hostile_render() -> Any:
    """The WoW renderer, built on the shared helpers every renderer uses."""
    from utils.datasets.wow.render import render

    return render


def test_hostile_explorer_runs_no_script(browser: Any) -> None:
    from utils.render.explorer import explorer_label

    dialogues = hostile_dialogues()
    labels = _check_hostile_explorer(browser, dialogues, hostile_render(), HOSTILE[0], HOSTILE[1])
    assert labels == [f"test #{i}: {explorer_label(d)}" for i, d in enumerate(dialogues)], "labels must stay plain text"


@pytest.mark.parametrize("dataset", [name for name, source in registry().items() if source.chapter_splits])
def test_every_renderer_s_explorer_runs_no_script(browser: Any, dataset: str) -> None:
    """The demo sample with attack strings in every field, through the dataset's own renderer."""
    from test_html_safety import INJECTIONS, _demo_dialogues, _renderer, hostile

    dialogues = [hostile(d, payload, "append") for payload in INJECTIONS for d in _demo_dialogues(dataset)[:2]]
    labels = _check_hostile_explorer(browser, dialogues, _renderer(dataset), INJECTIONS[0], INJECTIONS[4])
    assert len(labels) == len(dialogues)


def _check_hostile_explorer(browser: Any, dialogues: list[Dialogue], render: Any, title: str, note: str) -> list[str]:
    """Serve an explorer of ``dialogues`` with our script and stylesheet; page, search, and prove no
    script from the data ran (no dialog, no ``__atlasPwned``, no element the data tried to add).
    Returns the labels of the explorer's index, as the reader sees them."""
    from utils.render.explorer import static_explorer

    explorer_html = static_explorer(dialogues, budget=None, render=render, title=title, note=note, noun=note)
    document = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>hostile fixture</title>"
        "<link rel='stylesheet' href='/explorer.css'></head><body>"
        f"{explorer_html}<script src='/explorer.js'></script></body></html>"
    )
    files = {
        "/fixture.html": ("text/html", document),
        "/explorer.js": ("text/javascript", (STATIC / "explorer.js").read_text(encoding="utf-8")),
        "/explorer.css": ("text/css", (STATIC / "explorer.css").read_text(encoding="utf-8")),
    }
    context, page, errors = _fixture_page(browser, files)
    page.on("dialog", lambda dialog: (errors.append(dialog.message), dialog.dismiss()))
    try:
        page.goto("http://atlas.fixture/fixture.html", wait_until="load")
        explorer = page.locator("[data-atlas-explorer]")
        assert page.locator("[data-atlas-explorer]").count() == 1, "a hostile string broke out of the explorer"
        check_explorer(page, explorer, "hostile fixture")
        for _ in range(len(dialogues)):  # show every dialogue once
            explorer.locator(".atlas-explorer-next").click(force=True)
        for text in (title, note):
            explorer.locator(".atlas-explorer-search").fill(text)
        explorer.locator(".atlas-explorer-search").fill("")
        # every filter chip (facet values are the poisoned labels) ticked and unticked, statistics drawn
        if explorer.locator(".atlas-explorer-filters").is_visible():  # hidden when no item has labels
            open_details(explorer, ".atlas-explorer-filters")
        open_details(explorer, ".atlas-explorer-stats")
        chips = explorer.locator(".atlas-explorer-chip input")
        for number in range(min(chips.count(), 6)):
            chips.nth(number).check()
            chips.nth(number).uncheck()
        _, items = embedded(explorer)
        shown = set(explorer.locator(".atlas-explorer-chip-value").all_text_contents())
        assert shown == {v for item in items for values in item["facets"].values() for v in values}, "chips are text"
        # hostile hashes: the key of an item, a key holding markup, markup alone
        missing = items[0]["key"].split("/")[0] + "/test<b>x<i>/99"  # a permalink's form, naming no item
        page.evaluate("hash => { window.location.hash = hash; }", missing)
        explorer.locator(".atlas-explorer-view .atlas-explorer-nomatch").wait_for()
        assert missing in explorer.locator(".atlas-explorer-view .atlas-explorer-nomatch").text_content()
        assert explorer.locator(".atlas-explorer-view .atlas-explorer-nomatch b").count() == 0
        for fragment in [items[-1]["key"], f"wow/test/{title}", title, note, "wow/test/1<img src=x onerror=alert(1)>"]:
            page.evaluate("hash => { window.location.hash = hash; }", fragment)
        page.wait_for_timeout(100)  # hashchange events are queued
        assert explorer.get_attribute("data-key") == items[-1]["key"]
        explorer.locator(".atlas-explorer-copy").click()  # no clipboard here: the link shows, selected
        assert explorer.locator(".atlas-explorer-linkfield").input_value().endswith("#" + items[-1]["key"])
        labels = page.locator(".atlas-explorer-index option").all_text_contents()
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.__atlasPwned") is None, "a script from the data ran"
        assert page.locator(".atlas-explorer img, .atlas-explorer svg, .atlas-explorer iframe").count() == 0
        assert errors == [], errors
    finally:
        context.close()
    return labels


def test_permalinks_keep_an_id_s_slash_readable_and_old_links_still_open(browser: Any) -> None:
    """An id holding "/" (``train/0``) is linked as ``#wow/test/train/0``, not ``train%2F0``, in the
    address bar and the copied link; links written the old way, and ids with characters that must stay
    escaped (``%``, ``#``, a space, a leading ``@``), open the same item."""
    from utils.render.explorer import static_explorer

    turns = hostile_dialogues()[0].turns
    ids = ["train/0", "train/1", "a b#c%/d", "@3"]
    dialogues = [Dialogue(id=i, dataset="wow", split="test", turns=turns, topic=f"topic {i}") for i in ids]
    explorer_html = static_explorer(dialogues, budget=None, render=hostile_render(), title="ids", note="ids",
                                    noun="ids")
    document = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>ids fixture</title></head><body>"
        f"{explorer_html}<script src='/explorer.js'></script></body></html>"
    )
    files = {
        "/fixture.html": ("text/html", document),
        "/explorer.js": ("text/javascript", (STATIC / "explorer.js").read_text(encoding="utf-8")),
    }
    context, page, errors = _fixture_page(browser, files)
    try:
        page.goto("http://atlas.fixture/fixture.html#wow/test/train/1", wait_until="load")
        explorer = page.locator("[data-atlas-explorer]")
        wait_ready(page, explorer, "ids fixture")
        assert explorer.get_attribute("data-key") == "wow/test/train/1", "a readable link did not open its item"
        explorer.locator(".atlas-explorer-next").click()  # paging writes the item on screen into the address bar
        assert page.evaluate("() => window.location.hash") == "#wow/test/a%20b%23c%25/d"
        explorer.locator(".atlas-explorer-copy").click()  # no clipboard here: the link shows, selected
        assert explorer.locator(".atlas-explorer-linkfield").input_value().endswith("#wow/test/a%20b%23c%25/d")
        for link, key in [
            ("wow/test/train%2F0", "wow/test/train/0"),  # a link written before: the slash escaped
            ("wow/test/train/1", "wow/test/train/1"),
            ("wow/test/a%20b%23c%25%2Fd", "wow/test/a%20b%23c%25/d"),
            ("wow/test/%403", "wow/test/%403"),  # an id starting with "@", not a position
        ]:
            page.evaluate("hash => { window.location.hash = hash; }", link)
            page.wait_for_function("([el, key]) => el.getAttribute('data-key') === key",
                                   arg=[explorer.element_handle(), key], timeout=5_000)
        assert errors == [], errors
    finally:
        context.close()


def test_static_assets_are_our_own() -> None:
    """The explorer ships as our own files; the built site (when present) carries them."""
    for name in ("explorer.js", "explorer.css"):
        assert (STATIC / name).is_file()
        if SITE.is_dir():
            assert (SITE / "_static" / name).is_file(), f"{name} is not in the built site's _static"


def _fixture_page(browser: Any, files: dict[str, tuple[str, str]]) -> tuple[Any, Any, list[str]]:
    """A page whose requests are answered from ``files`` (path -> content type and body), any other
    request refused, and the list its script errors are collected in."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})

    def serve(route: Any) -> None:
        found = files.get(urlsplit(route.request.url).path)
        if found is None:
            route.abort()
        else:
            route.fulfill(status=200, content_type=found[0], body=found[1])

    context.route("**/*", serve)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(error.message))
    return context, page, errors


def test_the_begin_critics_tables_fit_the_page_at_1280_pixels(site_url: str, browser: Any) -> None:
    """The critics' evaluation tables and the features-per-label table once ran off the content column."""
    page, _ = new_page(browser, width=1280)
    try:
        page.goto(f"{site_url}/notebooks/begin.html")
        overflowing = page.evaluate(
            """() => [...document.querySelectorAll('.atlas-table-scroll')]
                .filter(e => /critics|feature per BEGIN label/.test(e.getAttribute('aria-label') || ''))
                .map(e => [e.getAttribute('aria-label').slice(0, 60), e.scrollWidth, e.clientWidth])"""
        )
        assert len(overflowing) >= 3, overflowing  # the tables are found
        assert [row for row in overflowing if row[1] > row[2] + 1] == []
    finally:
        page.context.close()
