"""axe-core on every page of the built book, light and dark: no critical or serious violation.

axe-core comes from the npm lock (``book/_vendor``, ``make vendor``) and is injected into each page
after it loads; the site itself never carries it. Chromium is Debian's (``/usr/bin/chromium``),
headless, driven by Python Playwright over a local ``http.server``; requests to other hosts are
aborted. Skipped when the book is not built, axe-core is not installed, or Chromium is missing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import test_site

from conftest import CHROMIUM, local_only

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("ATLAS_SITE_DIR") or REPO / "_build" / "html")
AXE = REPO / "book" / "_vendor" / "node_modules" / "axe-core" / "axe.min.js"
#: Built pages that are not book content (Sphinx's own index pages, execution reports).
SKIP_PREFIXES = ("_static/", "_sources/", "_images/", "reports/", "_downloads/", "_viewer/")
THEMES = ("light", "dark")
#: The impacts that fail the test (axe's four: minor, moderate, serious, critical).
BARRIERS = ("serious", "critical")
#: Colours are measured at rest: no transition or animation halfway through.
AT_REST = "*, *::before, *::after { transition: none !important; animation: none !important; }"

playwright_sync = pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)", allow_module_level=True)
if not AXE.is_file():
    pytest.skip(f"{AXE} is missing: run `make vendor`", allow_module_level=True)


def built_pages() -> list[str]:
    if not SITE.is_dir():
        return []
    pages = sorted(path.relative_to(SITE).as_posix() for path in SITE.rglob("*.html"))
    return [page for page in pages if not page.startswith(SKIP_PREFIXES)]


#: the built site's server and Chromium, shared with tests/test_site.py
site_url = test_site.site_url
browser = test_site.browser


#: The viewer pages (book/viewer/<dataset>.md), checked again with a split open: the grid, the
#: filters, the column statistics and the SQL console on screen.
VIEWER_PAGES = [page for page in built_pages() if page.startswith("book/viewer/")]
#: What a viewer page is made to show before axe runs.
OPEN_VIEWER = """async () => {
  const holder = document.querySelector('.atlas-viewer-wide');
  holder.querySelector('.atlas-viewer-open').click();
  for (let i = 0; i < 600 && holder.getAttribute('data-viewer-state') !== 'ready'; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  holder.querySelectorAll('details').forEach((box) => { box.open = true; });
  holder.querySelector('.atlas-viewer-grid tbody tr')?.click();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return holder.getAttribute('data-viewer-state');
}"""


def axe_violations(browser: Any, url: str, theme: str, prepare: str | None = None) -> list[dict[str, Any]]:
    """axe-core's violations on ``url`` in ``theme`` (the reader's choice, as the theme stores it),
    after the script ``prepare`` (a function) ran, when given."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=theme)
    context.add_init_script(f"try {{ localStorage.setItem('mode', '{theme}'); }} catch (e) {{}}")
    context.route("**/*", local_only)
    page = context.new_page()
    try:
        response = page.goto(url, wait_until="load")
        assert response is not None and response.ok, f"{url} did not load"
        page.wait_for_load_state("networkidle")
        # the theme script sets the mode after load: wait for it, and measure colours at rest, not
        # halfway through a transition
        page.wait_for_function("mode => document.documentElement.dataset.theme === mode", arg=theme)
        if prepare is not None:
            page.wait_for_function("() => document.documentElement.hasAttribute('data-atlas-viewers')")
            assert page.evaluate(prepare) == "ready", f"{url}: the viewer did not open its first split"
        page.add_style_tag(content=AT_REST)
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
        return result["violations"]
    finally:
        context.close()


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for violation in violations:
        nodes = violation["nodes"]
        lines.append(f"{violation['impact']} {violation['id']} ({len(nodes)} nodes): {violation['help']}")
        for node in nodes[:3]:
            lines.append(f"    {' '.join(map(str, node['target']))}: {node.get('failureSummary', '')[:300]}")
    return "\n".join(lines)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("path", built_pages() or ["index.html"])
def test_no_critical_or_serious_axe_violation(browser: Any, site_url: str, path: str, theme: str) -> None:
    violations = axe_violations(browser, f"{site_url}/{path}", theme)
    barriers = [violation for violation in violations if violation["impact"] in BARRIERS]
    assert not barriers, f"{path} ({theme}):\n{describe(barriers)}"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("path", VIEWER_PAGES or ["book/viewer/wow.html"])
def test_an_open_viewer_has_no_serious_axe_violation(browser: Any, site_url: str, path: str, theme: str) -> None:
    if not (SITE / path).is_file():
        pytest.skip(f"{path} is not built")
    violations = axe_violations(browser, f"{site_url}/{path}", theme, prepare=OPEN_VIEWER)
    barriers = [violation for violation in violations if violation["impact"] in BARRIERS]
    assert not barriers, f"{path} with a split open ({theme}):\n{describe(barriers)}"
