"""Browser test of the built book: every page loads, our scripts raise nothing, each chapter's view
opens the data viewer at its rows.

Runs Debian's Chromium (``/usr/bin/chromium``) through Python Playwright against a local
``http.server`` over ``_build/html``. Requests to any other host are aborted at once: the site must
work without third-party servers (and they are unreachable here anyway). Screenshots of every
content page, light and dark, laptop and phone width, go to ``tests/artifacts/`` for a human to look at.

Skipped when the book is not built (``make book``) or Chromium / Playwright are missing.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

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
    # the favicon too: the book declares one (_config.yml), so no page asks for a missing /favicon.ico
    if response.status >= 400 and url.hostname in ("127.0.0.1", "localhost"):
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
        icon = page.evaluate("() => { const link = document.querySelector('link[rel~=icon]'); "
                             "return link ? fetch(link.href).then(r => r.status) : null; }")
        assert icon == 200, f"{path}: its favicon is {'not declared' if icon is None else f'HTTP {icon}'}"
        for number in range(page.locator(".atlas-chapter-view").count()):
            check_compact_view(page.locator(".atlas-chapter-view").nth(number), path)
        assert own_errors(errors) == [], f"{path}: uncaught errors from the book's scripts"
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


# -- a chapter's view: its pinned dialogues and the compact view, opening the viewer page -------------


def wait_viewer(holder: Any, state: str = "ready") -> None:
    """Wait until a viewer (a chapter's compact view, or a viewer page's) reaches ``state``."""
    holder.page.wait_for_function(
        "([el, state]) => el.getAttribute('data-viewer-state') === state", arg=[holder.element_handle(), state],
        timeout=60_000,
    )


def check_compact_view(view: Any, where: str) -> None:
    """The compact view under a chapter's pinned dialogues has loaded its first split and shows rows."""
    holder = view.locator(".atlas-viewer-compact")
    assert holder.count() == 1, f"{where}: the chapter's view has no compact view"
    wait_viewer(holder)
    rows = holder.locator(".atlas-viewer-grid tbody tr[data-row]")
    assert rows.count() > 0, f"{where}: the compact view shows no row"


def row_of(link: str) -> tuple[str, str, str]:
    """``(page path, split, row)`` of a link to a viewer page (``…/book/viewer/x.html#viewer=…&row=…``)."""
    from urllib.parse import parse_qs

    parts = urlsplit(link)
    state = parse_qs(parts.fragment)
    return parts.path, state["viewer"][0], state["row"][0]


def check_viewer_page_opens(page: Any, path: str, split: str, row: str, where: str) -> None:
    """The page is the dataset's viewer page, at ``split`` with the row ``row`` open."""
    assert urlsplit(page.url).path == path, f"{where}: {page.url} is not the viewer page {path}"
    holder = page.locator(".atlas-viewer[data-datasets]").first
    wait_viewer(holder)
    detail = holder.locator(".atlas-viewer-detail[data-id]")
    detail.wait_for(timeout=30_000)
    assert detail.get_attribute("data-id") == row, f"{where}: the viewer page opened another row"
    split_key = holder.evaluate("el => { const s = el.querySelector('.atlas-viewer-split'); "
                                "return s.options[s.selectedIndex].textContent; }")
    assert split.split("/", 1)[0] in split_key, (where, split, split_key)
    assert detail.locator(".atlas-turn").count() > 0, f"{where}: the open row shows no rendering"


@pytest.mark.parametrize("path", DATASET_CHAPTERS)
def test_dataset_chapter_shows_its_pinned_dialogue_and_opens_the_viewer_at_its_row(
    browser: Any, site_url: str, path: str
) -> None:
    """The pinned dialogue (rendered on the server, with its evidence) links to the viewer page at its
    split and row; a row of the compact view opens the viewer page at that row too."""
    if not (SITE / path).is_file():
        pytest.fail(f"dataset chapter {path} is not in the built site")
    page, errors = new_page(browser)
    try:
        open_page(page, f"{site_url}/{path}")
        view = page.locator(".atlas-chapter-view").first
        pinned = view.locator(".atlas-chapter-pinned").first
        assert pinned.locator(".atlas-dialogue .atlas-turn").count() > 0, f"{path}: no pinned dialogue"
        evidence = page.locator(".atlas-dialogue :is(.atlas-evidence li, .atlas-selected, .atlas-details)")
        assert evidence.count() > 0, f"{path}: no rendered evidence"
        check_compact_view(view, path)
        link = pinned.locator("figcaption a")
        page_path, split, row = row_of(urljoin(page.url, link.get_attribute("href")))
        link.click()
        check_viewer_page_opens(page, page_path, split, row, f"{path}: the pinned dialogue's link")
        # back on the chapter, a row of the compact view opens the viewer page at that row
        page.go_back(wait_until="load")
        view = page.locator(".atlas-chapter-view").first
        check_compact_view(view, path)
        first = view.locator(".atlas-viewer-compact .atlas-viewer-grid tbody tr[data-row]").first
        first.click()
        page.wait_for_url(re.compile(r".*/book/viewer/.*#viewer=.*&row=.*"))
        page_path, split, row = row_of(page.url)
        check_viewer_page_opens(page, page_path, split, row, f"{path}: the compact view's first row")
        assert own_errors(errors) == []
    finally:
        page.context.close()


#: Every chapter with a chapter view (a pinned dialogue linking its row on the dataset's viewer page).
RENDERING_CHAPTERS = [*DATASET_CHAPTERS, "notebooks/begin.html"]
#: What makes a rendering look like the atlas's, read from the computed style of the same element of the
#: same dialogue on its chapter page and on its viewer page. Lengths set in em are compared as multiples
#: of the element's own font size (the viewer's panel sets a smaller text than the chapter's column).
RENDERING_STYLES = {
    ".atlas-turn": {"background-color": "colour", "padding-top": "em", "padding-left": "em",
                    "border-top-left-radius": "px", "border-top-width": "px", "margin-top": "em"},
    ".atlas-speaker": {"text-transform": "keyword", "font-weight": "keyword"},
    ".atlas-badge": {"display": "keyword", "padding-left": "em", "margin-right": "em",
                     "border-top-left-radius": "px", "border-top-width": "px"},
}


def rendering_style(scope: Any) -> dict[str, dict[str, Any]]:
    """The computed :data:`RENDERING_STYLES` of the first element of each selector inside ``scope``."""
    return scope.evaluate(
        """(root, wanted) => {
            const out = {};
            for (const [selector, properties] of Object.entries(wanted)) {
                const element = root.querySelector(selector);
                if (!element) { continue; }
                const style = getComputedStyle(element);
                const size = parseFloat(style.fontSize);
                const values = {className: element.className};
                for (const [name, unit] of Object.entries(properties)) {
                    const value = style.getPropertyValue(name);
                    values[name] = unit === "em" ? Math.round(parseFloat(value) / size * 100) / 100 : value;
                }
                out[selector] = values;
            }
            return out;
        }""",
        RENDERING_STYLES,
    )


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("path", RENDERING_CHAPTERS)
def test_an_opened_row_on_the_viewer_page_is_styled_as_on_its_chapter(
    browser: Any, site_url: str, artifacts: Path, path: str, theme: str
) -> None:
    """Regression: the viewer pages carried none of the renderings' rules (no notebook output brings them),
    so an opened row lost its bubbles and its labels ran together ("VRM: EdificationVRM: Disclosure").

    The chapter's pinned dialogue links its row on the viewer page: the turn's tint, padding and frame, the
    speaker line and the label chips' spacing must compute the same on both. Screenshots of the opened row,
    laptop and phone width, go to tests/artifacts/ for a human to look at."""
    if not (SITE / path).is_file():
        pytest.fail(f"chapter {path} is not in the built site")
    page, errors = new_page(browser, theme=theme)
    try:
        open_page(page, f"{site_url}/{path}")
        pinned = page.locator(".atlas-chapter-view .atlas-chapter-pinned").first
        on_chapter = rendering_style(pinned.locator(".atlas-dialogue").first)
        assert ".atlas-turn" in on_chapter, f"{path}: the pinned dialogue has no turn"
        turn = on_chapter[".atlas-turn"]
        assert turn["padding-top"] > 0 and turn["background-color"] not in ("rgba(0, 0, 0, 0)", "transparent"), (
            f"{path}: the chapter's own rendering is not styled: {turn}")
        link = urljoin(page.url, pinned.locator("figcaption a").get_attribute("href"))
        open_page(page, link)
        page_path, split, row = row_of(link)
        check_viewer_page_opens(page, page_path, split, row, f"{path}: the pinned dialogue's row")
        rendering = page.locator(".atlas-viewer-detail .atlas-viewer-rendering").first
        on_viewer = rendering_style(rendering)
        for selector, expected in on_chapter.items():
            assert on_viewer.get(selector) == expected, (
                f"{path} ({theme}): {selector} of the opened row on {page_path} computes "
                f"{on_viewer.get(selector)}, on the chapter {expected}")
        assert own_errors(errors) == []
    finally:
        page.context.close()
    for width_name, width in WIDTHS.items():  # each width in a window opened at it, as a reader's would be
        page, errors = new_page(browser, width=width, theme=theme)
        try:
            open_page(page, link)
            check_viewer_page_opens(page, page_path, split, row, f"{path}: the row at {width_name} width")
            page.add_style_tag(content=UNSTICK_HEADERS)
            # the grid drawn again once its lazy columns arrive moves the record: wait for the last drawing
            page.wait_for_function("() => [...document.querySelectorAll('.atlas-viewer[data-datasets]')]"
                                   ".every(el => el.getAttribute('data-grid-waiting') === '0')", timeout=30_000)
            page.wait_for_load_state("networkidle")
            detail = page.locator(".atlas-viewer-detail").first
            detail.scroll_into_view_if_needed()
            detail.screenshot(path=str(artifacts / f"opened-row-{Path(path).stem}-{theme}-{width_name}.png"))
            assert own_errors(errors) == []
        finally:
            page.context.close()


#: Where the site carries the screenshot the README shows (``atlas_book.SCREENSHOT``): written here, by
#: the test of the built site, into the site itself, which the publishing workflow deploys once checked.
README_SCREENSHOT = "_static/atlas-screenshot.png"
#: The view the README shows: a Wizard of Wikipedia dialogue opened in its viewer page.
README_VIEW = "book/viewer/wow.html#viewer=wow/train&level=dialogues&row=0"


def test_the_readme_screenshot_is_taken_of_the_built_site(browser: Any, site_url: str, artifacts: Path) -> None:
    page, errors = new_page(browser, width=1280, theme="light")
    try:
        page.set_viewport_size({"width": 1280, "height": 800})
        open_page(page, f"{site_url}/{README_VIEW}")
        holder = page.locator(".atlas-viewer[data-datasets]").first
        wait_viewer(holder)
        detail = holder.locator(".atlas-viewer-detail[data-id] .atlas-turn").first
        detail.wait_for(timeout=30_000)
        page.add_style_tag(content=UNSTICK_HEADERS)
        # the grid's last rows above the opened dialogue: the rows and one rendered, in one picture
        page.evaluate("el => el.scrollIntoView({block: 'start'})",
                      holder.locator(".atlas-viewer-grid tbody tr").last.element_handle())
        page.evaluate("() => window.scrollBy(0, -160)")
        target = SITE / README_SCREENSHOT
        page.screenshot(path=str(target))
        assert target.stat().st_size > 20_000, "the screenshot is nearly empty"
        (artifacts / target.name).write_bytes(target.read_bytes())
        assert own_errors(errors) == []
    finally:
        page.context.close()


#: Page weight: the built HTML of a chapter, with its images (the rows are in the viewer's files).
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


# -- screenshots ----------------------------------------------------------------------------------


UNSTICK_HEADERS = ".bd-header, .bd-header-article, .skip-link { position: static !important; }"
#: An element's box in the page's coordinates (its box in the window, plus how far the page has scrolled).
PAGE_BOX = """e => { const r = e.getBoundingClientRect();
    return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; }"""
#: Sphinx's generated pages (and the redirect index.html) are not worth a picture.
NOT_SCREENSHOTTED = {"index.html", "genindex.html", "search.html", "py-modindex.html"}


def screenshot_pages() -> list[str]:
    return [page for page in built_pages() if page not in NOT_SCREENSHOTTED]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("width_name", list(WIDTHS))
def test_screenshots(browser: Any, site_url: str, artifacts: Path, theme: str, width_name: str) -> None:
    """Screenshots of the top of every content page and of its chapter view, for a human to look at (the
    view must not overflow the window: a scrolled grid scrolls inside it)."""
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
            # the page itself never scrolls sideways (wide tables and code scroll inside their own boxes)
            page_width = page.evaluate("() => document.documentElement.scrollWidth")
            assert page_width <= WIDTHS[width_name] + 1, f"{path}: {page_width}px wide at {width_name} width"
            view = page.locator(".atlas-chapter-view").first
            if view.count():
                check_compact_view(view, path)
                box = view.bounding_box()
                assert box is not None and box["x"] + box["width"] <= WIDTHS[width_name] + 1, (
                    f"{path}: the chapter's view overflows a {WIDTHS[width_name]}px window"
                )
                sticking_out = view.evaluate(
                    """root => {
                        const right = root.getBoundingClientRect().right + 1;
                        return [...root.querySelectorAll('*')]
                            .filter(e => !e.closest('.atlas-sr') && !e.closest('.atlas-viewer-scroll')
                                && e.getClientRects().length
                                && e.getBoundingClientRect().right > right)
                            .map(e => e.tagName + '.' + e.className).slice(0, 5);
                    }"""
                )
                assert sticking_out == [], f"{path}: the chapter's view sticks out at {width_name} width"
                # The theme's sticky headers would cover the top of a tall element in its capture: for
                # this picture only, let them scroll away with the page.
                page.add_style_tag(content=UNSTICK_HEADERS)
                # A capture of the page where the view lies, not of the element: Playwright's element capture
                # first waits for the element to hold still over animation frames, and on a loaded machine it
                # timed out there twice in four runs (BEGIN's view, laptop width) though the view was laid out.
                page.screenshot(path=str(artifacts / f"{stem}-view-{theme}-{width_name}.png"), full_page=True,
                                clip=view.evaluate(PAGE_BOX))
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


def test_hostile_chapter_view_and_viewer_page_run_no_script(browser: Any, tmp_path: Path) -> None:
    dialogues = hostile_dialogues()
    shown = _check_hostile_view(browser, tmp_path, dialogues, hostile_render(), HOSTILE[0], HOSTILE[1])
    # the grid shows the topics as text, markup and all
    assert any(HOSTILE[1] in text for text in shown), "the hostile topics must show as plain text"


@pytest.mark.parametrize("dataset", [name for name, source in registry().items() if source.chapter_splits])
def test_every_renderer_s_chapter_view_runs_no_script(browser: Any, tmp_path: Path, dataset: str) -> None:
    """The demo sample with attack strings in every field, through the dataset's own renderer."""
    from test_html_safety import INJECTIONS, _demo_dialogues, _renderer, hostile

    dialogues = [hostile(d, payload, "append") for payload in INJECTIONS for d in _demo_dialogues(dataset)[:2]]
    shown = _check_hostile_view(browser, tmp_path, dialogues, _renderer(dataset), INJECTIONS[0], INJECTIONS[2])
    assert shown, f"{dataset}: the compact view shows no cell"


def _hostile_site(site: Path, dialogues: list[Dialogue], render: Any, title: str, note: str) -> tuple[str, str]:
    """A site with a chapter page holding a chapter view of ``dialogues`` (every one pinned) and the
    dataset's viewer page, with the book's viewer script, modules and stylesheet: ``(chapter path,
    viewer page path)``, from the site's root."""
    import shutil

    from utils.book.render.chapter_view import chapter_view, viewer_page
    from utils.book.viewer_files import VIEWER_DIR_VARIABLE

    split = dialogues[0].split
    patch = pytest.MonkeyPatch()
    patch.setenv(VIEWER_DIR_VARIABLE, str(site / "_viewer"))  # as during a book build
    try:
        view = str(chapter_view({split: dialogues}, render=render, title=title, note=note,
                                pinned={split: range(len(dialogues))}, split_labels={split: title}))
    finally:
        patch.undo()
    splits = json.loads(html.unescape(re.search(r'class="atlas-viewer-data">(.*?)</script>', view, re.S).group(1)))
    (site / "_viewer" / "index.json").write_text(json.dumps({"splits": splits["viewer"]}), encoding="utf-8")
    shutil.copytree(STATIC / "viewer", site / "_static" / "viewer")
    for name in ("viewer.js", "viewer.css"):
        shutil.copy(STATIC / name, site / "_static" / name)

    def document(root: str, body: str) -> str:
        return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>hostile fixture</title>"
                f"<link rel='stylesheet' href='{root}_static/viewer.css'></head><body>{body}"
                f"<script src='{root}_static/viewer.js'></script></body></html>")

    chapter = "notebooks/fixture.html"
    (site / "notebooks").mkdir()
    (site / chapter).write_text(document("../", view), encoding="utf-8")
    page_path = viewer_page(dialogues[0].dataset)
    (site / page_path).parent.mkdir(parents=True)
    holder = f'<div class="atlas-viewer" data-datasets="{html.escape(dialogues[0].dataset)}" hidden></div>'
    (site / page_path).write_text(document("../../", holder), encoding="utf-8")
    return chapter, page_path


def _check_hostile_view(
    browser: Any, site: Path, dialogues: list[Dialogue], render: Any, title: str, note: str
) -> list[str]:
    """Serve a chapter view of ``dialogues`` and the viewer page it opens; follow every pinned
    dialogue's link, search the title there, and prove no script from the data ran (no dialog, no
    ``__atlasPwned``, no element the data tried to add). Returns the compact view's cells as text."""
    chapter, _ = _hostile_site(site, dialogues, render, title, note)
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = f"http://127.0.0.1:{server.server_address[1]}/"
    page, errors = new_page(browser)
    try:
        open_page(page, root + chapter)
        assert page.locator(".atlas-chapter-view").count() == 1, "a hostile string broke out of the chapter's view"
        view = page.locator(".atlas-chapter-view")
        check_compact_view(view, "hostile fixture")
        cells = view.locator(".atlas-viewer-grid tbody td").all_text_contents()
        hrefs = view.locator(".atlas-chapter-pinned figcaption a").evaluate_all(
            "els => els.map(e => e.getAttribute('href'))")
        links = [urljoin(page.url, href) for href in hrefs]
        assert len(links) == len(dialogues), "every pinned dialogue has its link"
        open_page(page, links[0])
        for link in links:  # the first loads the viewer page; the others change its address's fragment
            page.evaluate("hash => { window.location.hash = hash; }", urlsplit(link).fragment)
            page_path, split, row = row_of(link)
            page.wait_for_function(
                "row => { const d = document.querySelector('.atlas-viewer-detail[data-id]'); "
                "return d !== null && d.getAttribute('data-id') === row; }", arg=row, timeout=30_000)
            check_viewer_page_opens(page, page_path, split, row, f"hostile fixture {row!r}")
            assert page.evaluate("() => window.__atlasPwned") is None, "a script from the data ran"
        holder = page.locator(".atlas-viewer[data-datasets]")
        holder.locator(".atlas-viewer-search").fill(title[:100])
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.__atlasPwned") is None, "a script from the data ran"
        assert page.locator(".atlas-viewer img, .atlas-viewer svg, .atlas-viewer iframe").count() == 0
        assert own_errors(errors) == [], errors
    finally:
        page.context.close()
        server.shutdown()
        server.server_close()
    return cells


def test_static_assets_are_our_own() -> None:
    """The viewer ships as our own files (no second implementation beside it); the built site (when
    present) carries them."""
    assert not (STATIC / "explorer.js").exists() and not (STATIC / "explorer.css").exists()
    for name in ("viewer.js", "viewer.css", "viewer/main.js", "viewer/app.js"):
        assert (STATIC / name).is_file()
        if SITE.is_dir():
            assert (SITE / "_static" / name).is_file(), f"{name} is not in the built site's _static"
    if SITE.is_dir():
        assert not (SITE / "_static" / "explorer.js").exists(), "the built site still ships explorer.js"


def test_the_renderings_rules_have_one_source_which_every_built_page_links() -> None:
    """The rules of a rendering are the package's (utils/book/render/atlas.css and the folders' render.css): the
    build writes them, as they are, to _static/atlas-render.css, and no stylesheet of the book copies them."""
    from utils.book.render import stylesheet_css

    for sheet in STATIC.rglob("*.css"):
        assert ".atlas-turn" not in sheet.read_text(encoding="utf-8"), f"{sheet} copies the renderings' rules"
    built = SITE / "_static" / "atlas-render.css"
    if not (SITE / "index.html").is_file():
        pytest.skip(f"{SITE} has no built book: run `make book` first")
    assert built.read_text(encoding="utf-8") == stylesheet_css()
    for page in ("book/viewer/wow.html", "notebooks/wow.html", "book/intro.html"):
        text = (SITE / page).read_text(encoding="utf-8")
        assert re.search(r'<link rel="stylesheet"[^>]*href="(\.\./)*_static/atlas-render\.css', text), page


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


def test_the_status_panel_fits_a_phone(site_url: str, browser: Any) -> None:
    """The status panel's chips (``train DEMO 3; 17 of 36,809 turns``) once ran 34 px past a 390 px
    phone's column: on a phone they wrap."""
    page, _ = new_page(browser, width=390)
    try:
        page.goto(f"{site_url}/book/intro.html")
        widths = page.evaluate(
            """() => [...document.querySelectorAll('.atlas-status-table')].map(table => {
                const holder = table.closest('.atlas-table-scroll') || table.parentElement;
                return [table.scrollWidth, holder.clientWidth];
            })"""
        )
        assert widths, "no status panel on the introduction"
        assert [pair for pair in widths if pair[0] > pair[1] + 1] == []
    finally:
        page.context.close()


#: Each table on a page: how wide it is against the column it sits in, and, when it is wider, the
#: element that scrolls it and whether a keyboard can reach that element. The data viewer's grid is
#: left out: a spreadsheet of every field, as wide as its columns by design, in its own scrolling frame.
_TABLE_WIDTHS = """() => [...document.querySelectorAll('.bd-article table')]
    .filter(table => table.offsetWidth > 0 && !table.closest('.atlas-viewer'))
    .filter(table => !table.classList.contains('atlas-viewer-grid'))
    .map(table => {
        const style = getComputedStyle(table);
        // a prose table is its own scroller (display: block); any other table sits in its parent's column
        const own = style.display === 'block' && ['auto', 'scroll'].includes(style.overflowX);
        const column = own ? table.clientWidth : table.parentElement.clientWidth;
        let scroller = table;
        while (scroller && !(['auto', 'scroll'].includes(getComputedStyle(scroller).overflowX)
                             && scroller.scrollWidth > scroller.clientWidth + 1)) {
            scroller = scroller.parentElement;
        }
        const header = [...(table.rows[0] ? table.rows[0].cells : [])].map(cell => cell.innerText.trim());
        return {
            columns: header.slice(0, 4).join(' | ').slice(0, 80),
            width: table.scrollWidth,
            column,
            focusable: scroller !== null && scroller.tabIndex >= 0,
        };
    })"""


def _too_wide(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [table for table in tables if table["width"] > table["column"] + 1]


def test_every_table_fits_the_page_s_column_at_1280_pixels_and_scrolls_focusably_on_a_phone(
    browser: Any, site_url: str
) -> None:
    """At a 1,280 px window the text column is 688 px wide, and the reported-versus-reproduced tables
    and the data page's file tables were once wider (up to 1,166 px): their right columns, often Status
    and Source, hid behind a sideways scroll. Every table of the book fits its column there. On a
    390 px phone a wide table may scroll, but only inside a region a keyboard can focus (the book's
    table wrapper, or the theme's scrollable output). One browser page visits every book page."""
    page, _ = new_page(browser, width=1280)
    wide: dict[str, list[dict[str, Any]]] = {}
    unreachable: dict[str, list[dict[str, Any]]] = {}
    try:
        for path in built_pages():
            page.set_viewport_size({"width": 1280, "height": 900})
            open_page(page, f"{site_url}/{path}")
            page.evaluate("document.fonts.ready.then(() => true)")
            if too_wide := _too_wide(page.evaluate(_TABLE_WIDTHS)):
                wide[path] = too_wide
            page.set_viewport_size({"width": 390, "height": 844})
            stuck = [table for table in _too_wide(page.evaluate(_TABLE_WIDTHS)) if not table["focusable"]]
            if stuck:  # the theme marks scrollable outputs focusable 300 ms after a resize
                page.wait_for_timeout(500)
                stuck = [table for table in _too_wide(page.evaluate(_TABLE_WIDTHS)) if not table["focusable"]]
            if stuck:
                unreachable[path] = stuck
    finally:
        page.context.close()
    assert wide == {}, "tables wider than the page's column at 1,280 px:\n" + _listed(wide)
    assert unreachable == {}, "tables that scroll on a phone outside a focusable region:\n" + _listed(unreachable)


def _listed(found: dict[str, list[dict[str, Any]]]) -> str:
    return "\n".join(
        f"{path}: {table['width']} px in {table['column']} px ({table['columns']})"
        for path, tables in found.items()
        for table in tables
    )
