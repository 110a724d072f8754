"""Browser test of the built book: every page loads, our scripts raise nothing, explorers work.

Runs Debian's Chromium (``/usr/bin/chromium``) through Python Playwright against a local
``http.server`` over ``_build/html``. Requests to any other host are aborted at once: the site must
work without third-party servers (and they are unreachable here anyway). Screenshots of every
content page, light and dark, laptop and phone width, go to ``tests/artifacts/`` for a human to look at.

Skipped when the book is not built (``make book``) or Chromium / Playwright are missing.
"""

from __future__ import annotations

import functools
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

from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
#: The built book; ``ATLAS_SITE_DIR`` points the test at another build (for example a small test book).
SITE = Path(os.environ.get("ATLAS_SITE_DIR") or REPO / "_build" / "html")
STATIC = REPO / "book" / "_static"
ARTIFACTS = REPO / "tests" / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
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


def _local_only(route: Any) -> None:
    host = urlsplit(route.request.url).hostname
    if host in ("127.0.0.1", "localhost") or route.request.url.startswith(("data:", "blob:")):
        route.continue_()
    else:
        route.abort()


def new_page(browser: Any, *, width: int = 1280, theme: str = "light") -> tuple[Any, list[str]]:
    """A page that only talks to the local server, with its uncaught script errors collected."""
    context = browser.new_context(
        viewport={"width": width, "height": 900 if width > 600 else 844},
        color_scheme=theme,
        device_scale_factor=1,
    )
    # pydata-sphinx-theme keeps the reader's choice in localStorage ("mode"); set it before any script runs.
    context.add_init_script(f"try {{ localStorage.setItem('mode', '{theme}'); }} catch (e) {{}}")
    context.route("**/*", _local_only)
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


def check_explorer(page: Any, explorer: Any, where: str) -> None:
    """The explorer is wired up, pages forwards and back, jumps by index and searches."""
    assert explorer.get_attribute("data-atlas-ready") == "1", f"{where}: explorer.js did not set up an explorer"
    controls = explorer.locator(".atlas-explorer-controls")
    assert controls.is_visible(), f"{where}: explorer controls are hidden"
    items = json.loads(explorer.locator("script.atlas-explorer-data").text_content())
    count = len(items)
    assert count == int(explorer.get_attribute("data-count"))
    view = explorer.locator(".atlas-explorer-view")
    status = explorer.locator(".atlas-explorer-status")
    assert explorer.get_attribute("data-current") == "0"
    assert status.text_content().strip() == f"1 of {count}"
    if count > 1:
        first_html = view.inner_html()
        explorer.locator(".atlas-explorer-next").click()
        assert explorer.get_attribute("data-current") == "1", f"{where}: next did not page"
        assert view.inner_html() != first_html or items[0]["html"] == items[1]["html"]
        assert status.text_content().strip() == f"2 of {count}"
        explorer.locator(".atlas-explorer-prev").click()
        assert explorer.get_attribute("data-current") == "0", f"{where}: previous did not page"
        explorer.locator(".atlas-explorer-index").select_option(str(count - 1))
        assert explorer.get_attribute("data-current") == str(count - 1), f"{where}: the index did not jump"
        assert explorer.locator(".atlas-explorer-next").is_disabled()
    # search by a word of the last dialogue: the result must contain it and only matching dialogues
    term = _search_term(items[-1]["search"])
    search = explorer.locator(".atlas-explorer-search")
    search.fill(term)
    expected = [i for i, item in enumerate(items) if term in item["search"]]
    assert int(explorer.get_attribute("data-current")) == expected[0], f"{where}: search for {term!r} failed"
    assert status.text_content().strip().startswith(f"1 of {len(expected)}")
    assert explorer.locator(".atlas-explorer-index option").count() == len(expected)
    search.fill("zzqx-no-such-text-qxzz")
    assert status.text_content().strip() == f"0 of {count} match"
    assert view.locator(".atlas-explorer-nomatch").count() == 1
    search.fill("")
    assert status.text_content().strip() == f"1 of {count}"
    assert page.evaluate("() => window.__atlasPwned === undefined")


def _search_term(text: str) -> str:
    words = [word for word in re.findall(r"\w+", text) if len(word) >= 4]
    if words:
        return max(words, key=len)
    return text.strip()[:2] or text


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
    from utils.render.wow import render

    return render


def test_hostile_explorer_runs_no_script(browser: Any) -> None:
    from utils.render.explorer import explorer_label

    dialogues = hostile_dialogues()
    labels = _check_hostile_explorer(browser, dialogues, hostile_render(), HOSTILE[0], HOSTILE[1])
    assert labels == [f"{i + 1}. {explorer_label(d)}" for i, d in enumerate(dialogues)], "labels must stay plain text"


@pytest.mark.parametrize("dataset", ["wow", "faithdial", "wise", "jwhr"])
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

    explorer_html = static_explorer(dialogues, n=len(dialogues), render=render, title=title, note=note)
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
        labels = page.locator(".atlas-explorer-index option").all_text_contents()
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.__atlasPwned") is None, "a script from the data ran"
        assert page.locator(".atlas-explorer img, .atlas-explorer svg, .atlas-explorer iframe").count() == 0
        assert errors == [], errors
    finally:
        context.close()
    return labels


def test_static_assets_are_our_own() -> None:
    """The explorer ships as our own files; the built site (when present) carries them."""
    for name in ("explorer.js", "explorer.css"):
        assert (STATIC / name).is_file()
        if SITE.is_dir():
            assert (SITE / "_static" / name).is_file(), f"{name} is not in the built site's _static"
