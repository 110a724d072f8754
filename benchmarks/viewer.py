"""Benchmark of the book's data viewer on the full-size SYNTHETIC Wizard of Wikipedia train split.

Writes the synthetic ``train.json`` (:mod:`benchmarks.synthetic`: 18,430 dialogues, 166,787 turns and
about 5.4 million evidence rows of random pseudo-words, nothing of the dataset), loads it with the
atlas, writes the viewer's data files for its three levels as the book's build does
(:func:`utils.book.render.chapter_view.viewer_rows`, :func:`utils.book.viewer_files.write_split`; the renderings of the
dialogues are left short, since only the grid is measured), serves a page holding only the viewer
over a local ``http.server`` and measures in Chromium, once for the turns and once for the evidence
(every request kept on 127.0.0.1):

* first rows on screen: from the start of navigation to the grid drawn (``#viewer=wow/train&level=turns``; the
  viewer draws the first page from the level's first shard), and to every row loaded (sorting and filtering
  wait for it);
* sorting every row of the level by a number and by text, filtering by a label, a range and a search: to
  the rows drawn, and to every cell of the page shown (a paged column's values are fetched for the rows on
  screen);
* the browser's memory: the JavaScript heap of the page, and the memory of every Chromium process
  this benchmark started, summed two ways: resident set sizes (RSS, what ``top`` shows, which counts
  a page shared by several processes once in each) and proportional set sizes (PSS, which splits a
  shared page between the processes sharing it, so that the sum is what the browser adds to the
  machine; other Chromium instances running at the same time share its code pages and lower it, so
  the benchmark counts them). The targets are judged on PSS, right after the last action and again
  10 s later (Chromium returns the memory of freed buffers lazily).

Not a test (timings depend on the machine); prints a table and writes it as JSON with ``--out``.
Run: ``python -m benchmarks.viewer [--data DIR] [--out FILE] [--levels turns evidence]``.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(tempfile.gettempdir()) / "atlas-viewer-bench"
TARGETS = {"first rows (s)": 5.0, "sort or filter (s)": 1.0, "browser memory, PSS (MB)": 500.0}
#: Per level: the number and text columns sorted, a label filtered by (column, value), a range's column.
ACTIONS = {
    "turns": {"number": "turn", "text": "text", "label": ("role", "wizard"), "range": "turn"},
    "evidence": {"number": "turn", "text": "text", "label": ("selected", "true"), "range": "turn"},
}


def write_site(data: Path, site: Path, *, scale: float = 1.0) -> dict[str, Any]:
    """The synthetic train split's viewer files and a page showing the viewer, under ``site``.

    ``data`` is the data directory the synthetic ``wow/raw/train.json`` is written to (when missing)
    and read from: ``ATLAS_DATA_DIR`` must name it.
    """
    from benchmarks.synthetic import write_wow

    raw = data / "wow" / "raw" / "train.json"
    if not raw.is_file():
        write_wow(data, scale=scale, files=("train.json",))
    import utils
    from utils.book.render._html import esc
    from utils.book.render.chapter_view import viewer_rows
    from utils.book.viewer_fields import example_queries
    from utils.book.viewer_files import write_split

    started = time.perf_counter()
    split = utils.load("wow", "train")
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    rows = viewer_rows(split)
    manifest = write_split(site / "_viewer" / "wow" / "train", split, rows,
                           render=lambda d: f"<p>{esc(d.topic or '')}</p>",
                           meta={"dataset": "wow", "title": "Wizard of Wikipedia (synthetic)", "split": "train",
                                 "label": "train (synthetic)", "kind": "synthetic",
                                 "queries": example_queries("wow", rows)})
    written = time.perf_counter() - started
    write_page(site, [{"dataset": "wow", "split": "train", "label": "train (synthetic)", "path": "_viewer/wow/train/"}])
    files = [path for path in (site / "_viewer").rglob("*") if path.is_file()]
    figures: dict[str, Any] = {f"{level} rows": entry["rows"] for level, entry in manifest["levels"].items()}
    figures.update({"load split (s)": round(loaded, 1), "write files (s)": round(written, 1),
                    "files (MB)": round(sum(path.stat().st_size for path in files) / 1e6, 1)})
    for level in manifest["levels"]:
        size = sum(path.stat().st_size for path in files if path.name.startswith(level + "-"))
        figures[f"{level} files (MB)"] = round(size / 1e6, 1)
    return figures


def write_page(site: Path, splits: Sequence[dict[str, str]]) -> Path:
    """A page holding only the viewer of ``splits`` (as a chapter's view lists them), with its script."""
    static = site / "_static"
    static.mkdir(parents=True, exist_ok=True)
    for name in ("viewer.js", "viewer.css"):
        (static / name).write_text((REPO / "book" / "_static" / name).read_text(encoding="utf-8"), encoding="utf-8")
    # the viewer's modules, which viewer.js imports
    shutil.copytree(REPO / "book" / "_static" / "viewer", static / "viewer", dirs_exist_ok=True)
    page = site / "index.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>viewer benchmark</title>"
        "<link rel='stylesheet' href='_static/viewer.css'></head><body><section>"
        f"<script type='application/json' class='atlas-viewer-data'>{json.dumps({'viewer': list(splits)})}</script>"
        "<div class='atlas-viewer' hidden></div></section><script src='_static/viewer.js'></script></body></html>",
        encoding="utf-8",
    )
    return page


def _descendants() -> set[int]:
    parents: dict[int, int] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            ppid = next(line for line in status.read_text().splitlines() if line.startswith("PPid:"))
        except (OSError, StopIteration):
            continue
        parents[int(status.parent.name)] = int(ppid.split()[1])
    ours = {os.getpid()}
    for _ in range(6):  # python -> playwright's driver -> chromium -> zygote -> renderer
        ours |= {pid for pid, parent in parents.items() if parent in ours}
    return ours - {os.getpid()}


def chromium_memory_mb() -> dict[str, dict[str, float]]:
    """Memory of this benchmark's Chromium (the processes descending from this one), in MB by process
    type (browser, renderer, gpu-process, ...), as ``{"pss": {...}, "rss": {...}}`` (from
    /proc/<pid>/smaps_rollup: PSS counts a shared page once in all, RSS once per process)."""
    totals: dict[str, dict[str, float]] = {"pss": {}, "rss": {}}
    for pid in _descendants():
        try:
            command = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            rollup = (Path("/proc") / str(pid) / "smaps_rollup").read_text()
        except OSError:
            continue
        if "chrom" not in command.split(" ", 1)[0]:
            continue
        found = re.search(r"--type=(\S+)", command)
        kind = found.group(1) if found else "browser"
        for line in rollup.splitlines():
            for measure in ("pss", "rss"):
                if line.lower().startswith(measure + ":"):
                    totals[measure][kind] = totals[measure].get(kind, 0) + int(line.split()[1]) / 1024
    return {measure: {kind: round(value, 1) for kind, value in sorted(values.items())}
            for measure, values in totals.items()}


def other_chromium_processes() -> int:
    """Chromium processes on the machine that are not this benchmark's: they share its code pages,
    so while they run the PSS measured here is lower than it would be alone."""
    ours = _descendants()
    count = 0
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            program = cmdline.read_bytes().split(b"\0", 1)[0].decode(errors="replace")
        except OSError:
            continue
        name = program.rsplit("/", 1)[-1]
        count += name.startswith("chrom") and "crashpad" not in name and int(cmdline.parent.name) not in ours
    return count


def measure(site: Path, level: str = "turns", *, settle: float = 10.0, browser: Any = None) -> dict[str, Any]:
    """Open the viewer at ``level`` in a fresh Chromium (or in a new context of ``browser``) and time
    the first rows, sorts and filters; the memory is measured again ``settle`` seconds after the last
    action."""
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS

    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html#viewer=wow/train&level={level}"
    try:
        if browser is not None:
            return _measure_in(browser, url, level, settle)
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            try:
                return _measure_in(launched, url, level, settle)
            finally:
                launched.close()
    finally:
        server.shutdown()
        server.server_close()


def _measure_in(browser: Any, url: str, level: str, settle: float) -> dict[str, Any]:
    from tests.conftest import local_only

    actions = ACTIONS[level]
    found: dict[str, Any] = {}
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.route("**/*", local_only)
        page = context.new_page()
        page.goto("about:blank")
        before = chromium_memory_mb()
        started = time.perf_counter()
        page.goto(url)
        # the first page is drawn before the level's other shards arrive; sorting and filtering wait for them
        page.wait_for_selector(".atlas-viewer .atlas-viewer-grid tbody tr", timeout=120_000)
        found["first rows (s)"] = round(time.perf_counter() - started, 2)
        page.wait_for_selector(".atlas-viewer[data-viewer-state='ready'] .atlas-viewer-grid tbody tr",
                               timeout=120_000)
        found["every row loaded (s)"] = round(time.perf_counter() - started, 2)
        holder = page.locator(".atlas-viewer")
        filled = "el => el.getAttribute('data-grid-waiting') === '0'"
        found["rows"] = int(holder.get_attribute("data-rows"))
        session = context.new_cdp_session(page)
        session.send("Performance.enable")

        def heap_mb() -> float:
            session.send("HeapProfiler.collectGarbage")
            metrics = session.send("Performance.getMetrics")["metrics"]
            return round(next(m["value"] for m in metrics if m["name"] == "JSHeapUsedSize") / 1e6, 1)

        found["page heap with the rows loaded (MB)"] = heap_mb()

        def timed(action: Any, name: str) -> None:
            started = time.perf_counter()
            action()
            page.wait_for_function("() => true")
            found[name] = round(time.perf_counter() - started, 3)
            found[name + " in script (ms)"] = int(holder.get_attribute("data-refresh-ms"))
            # a paged column's cells (the evidence ids) show "..." until their values are fetched
            page.wait_for_function(filled, arg=holder.element_handle(), timeout=120_000, polling=20)
            found[name.replace(" (s)", ", every cell on screen (s)")] = round(time.perf_counter() - started, 3)

        number, text = actions["number"], actions["text"]
        timed(lambda: holder.locator(f"th[data-column='{number}'] button").click(), "sort by a number (s)")
        timed(lambda: holder.locator(f"th[data-column='{text}'] button").click(), "sort by text (s)")
        column, value = actions["label"]
        # the filters' panel is closed on arrival (the first screen is the rows)
        holder.locator(".atlas-viewer-filters").first.evaluate("el => { el.open = true; }")
        timed(lambda: holder.locator(f"fieldset[data-column='{column}'] label[data-value='{value}'] input").check(),
              "filter by a label (s)")
        found["matches after the label"] = int(holder.get_attribute("data-matches"))

        def ranged() -> None:
            box = holder.locator(f"fieldset[data-column='{actions['range']}'] .atlas-viewer-range-from")
            box.fill("3")
            box.dispatch_event("change")

        timed(ranged, "filter by a range (s)")

        def search() -> None:
            holder.locator(".atlas-viewer-search").fill("zz")
            page.wait_for_function("el => el.getAttribute('data-matches') !== null && "
                                   "el.querySelector('.atlas-viewer-search').value === 'zz'",
                                   arg=holder.element_handle())
            page.wait_for_timeout(200)  # the search waits 150 ms for typing to stop

        timed(search, "search, with 150 ms typing pause (s)")
        found["matches at the end"] = int(holder.get_attribute("data-matches"))
        found["page heap at the end (MB)"] = heap_mb()
        memory = chromium_memory_mb()
        found["other Chromium processes on the machine meanwhile"] = other_chromium_processes()
        for name in ("pss", "rss"):
            found[f"browser memory, {name.upper()} (MB)"] = round(sum(memory[name].values()), 1)
            found[f"browser memory before the page, {name.upper()} (MB)"] = round(sum(before[name].values()), 1)
            found[f"browser memory by process, {name.upper()} (MB)"] = memory[name]
        # Chromium gives back the memory of freed buffers lazily: the same view, a little later
        page.wait_for_timeout(settle * 1000)
        heap_mb()
        later = chromium_memory_mb()
        for name in ("pss", "rss"):
            found[f"browser memory {settle:g} s later, {name.upper()} (MB)"] = round(sum(later[name].values()), 1)
    finally:
        context.close()
    return found


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="where the synthetic files go")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    parser.add_argument("--reuse", action="store_true", help="measure the files an earlier run wrote")
    parser.add_argument("--levels", nargs="+", default=list(ACTIONS), choices=list(ACTIONS), help="levels measured")
    args = parser.parse_args(argv)
    os.environ.setdefault("ATLAS_OFFLINE", "1")
    os.environ.setdefault("ATLAS_CACHE_DIR", str(args.data / "cache"))
    os.environ["ATLAS_DATA_DIR"] = str(args.data)
    site = args.data / "site"
    reuse = args.reuse and (site / "_viewer" / "wow" / "train" / "manifest.json").is_file()
    figures: dict[str, Any] = {} if reuse else write_site(args.data, site)
    if reuse:  # the files as they were, the script as it is now
        manifest = json.loads((site / "_viewer" / "wow" / "train" / "manifest.json").read_text(encoding="utf-8"))
        path = "_viewer/wow/train/"
        write_page(site, [{"dataset": "wow", "split": "train", "label": manifest["label"], "path": path}])
    for level in args.levels:
        measured = measure(site, level)
        slowest = max(v for k, v in measured.items()
                      if k.endswith("(s)") and ("sort" in k or "filter" in k) and "every cell" not in k)
        measured["slowest sort or filter (s)"] = slowest
        figures[level] = measured
    for name, value in figures.items():
        if isinstance(value, dict):
            print(f"-- {name}")
            for key, item in value.items():
                print(f"   {key:52} {item}")
        else:
            print(f"{name:55} {value}")
    print("targets:", ", ".join(f"{k} < {v}" for k, v in TARGETS.items()))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
