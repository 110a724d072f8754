"""Benchmark of the book's data viewer on the full-size SYNTHETIC Wizard of Wikipedia train split.

Writes the synthetic ``train.json`` (:mod:`benchmarks.synthetic`: 18,430 dialogues, 166,787 turns of
random pseudo-words, nothing of the dataset), loads it with the atlas, writes the viewer's data files
for its dialogue and turn levels (:mod:`utils.viewer`), serves a page holding only the viewer over a
local ``http.server`` and measures in Chromium (every request kept on 127.0.0.1):

* first rows on screen: from the start of navigation to the turn grid drawn (``#viewer=wow/train&level=turns``);
* sorting the 166,787 turns by a number and by text, filtering by a label, a range and a search;
* the browser's memory: the JavaScript heap of the page and the resident memory of every Chromium process.

Not a test (timings depend on the machine); prints a table and writes it as JSON with ``--out``.
Run: ``python -m benchmarks.viewer [--data DIR] [--out FILE]``.

The evidence level (about 5.8 million rows at this size) and the dialogues' renderings are left out
of what is written here: the benchmark measures the grid of turns, which the issue's targets name.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(tempfile.gettempdir()) / "atlas-viewer-bench"
TARGETS = {"first rows (s)": 5.0, "sort or filter (s)": 1.0, "browser memory (MB)": 500.0}


def write_site(data: Path, site: Path) -> dict[str, Any]:
    """The synthetic train split's viewer files and a page showing the viewer, under ``site``."""
    from benchmarks.synthetic import write_wow

    raw = data / "wow" / "raw" / "train.json"
    if not raw.is_file():
        write_wow(data, files=("train.json",))
    os.environ["ATLAS_DATA_DIR"] = str(data)
    import utils
    from utils.render._html import esc
    from utils.render.explorer_fields import columns, facets
    from utils.render.viewer_fields import dataset_rows, example_queries
    from utils.sources import get_source
    from utils.viewer import split_rows, write_split

    started = time.perf_counter()
    split = utils.load("wow", "train")
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    rows = split_rows(split, label_keys=get_source("wow").label_keys, facets=facets, columns=columns,
                      search_text=lambda d: f"{d.id} {d.topic or ''}")
    rows = dataset_rows("wow", split, rows)
    rows.frames.pop("evidence")
    manifest = write_split(site / "_viewer" / "wow" / "train", split, rows,
                           render=lambda d: f"<p>{esc(d.topic or '')}</p>",
                           meta={"dataset": "wow", "title": "Wizard of Wikipedia (synthetic)", "split": "train",
                                 "label": "train (synthetic)", "kind": "synthetic",
                                 "queries": example_queries("wow", rows)})
    written = time.perf_counter() - started
    static = site / "_static"
    static.mkdir(parents=True, exist_ok=True)
    for name in ("viewer.js", "viewer.css"):
        (static / name).write_text((REPO / "book" / "_static" / name).read_text(encoding="utf-8"), encoding="utf-8")
    config = {"viewer": [{"dataset": "wow", "split": "train", "label": "train (synthetic)",
                          "path": "_viewer/wow/train/"}]}
    (site / "index.html").write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>viewer benchmark</title>"
        "<link rel='stylesheet' href='_static/viewer.css'></head><body><section>"
        f"<script type='application/json' class='atlas-explorer-data'>{json.dumps(config)}</script>"
        "<div class='atlas-viewer' hidden></div></section><script src='_static/viewer.js'></script></body></html>",
        encoding="utf-8",
    )
    size = sum(path.stat().st_size for path in (site / "_viewer").rglob("*") if path.is_file())
    return {"turns": manifest["levels"]["turns"]["rows"], "dialogues": manifest["levels"]["dialogues"]["rows"],
            "load split (s)": round(loaded, 1), "write files (s)": round(written, 1),
            "files (MB)": round(size / 1e6, 1)}


def _chromium_memory_mb() -> dict[str, float]:
    """Memory of this benchmark's Chromium (the processes descending from this one), in MB by process
    type (browser, renderer, gpu-process, ...): the sum of their proportional set sizes (PSS, from
    /proc/<pid>/smaps_rollup), so that pages the processes share are counted once."""
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
    totals: dict[str, float] = {}
    for pid in ours - {os.getpid()}:
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
            if line.startswith("Pss:"):
                totals[kind] = totals.get(kind, 0) + int(line.split()[1]) / 1024
    return {kind: round(value, 1) for kind, value in sorted(totals.items())}


def measure(site: Path) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM, CHROMIUM_ARGS, local_only

    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html#viewer=wow%2Ftrain&level=turns"
    found: dict[str, Any] = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            before = _chromium_memory_mb()
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.route("**/*", local_only)
            page = context.new_page()
            started = time.perf_counter()
            page.goto(url)
            page.wait_for_selector(".atlas-viewer[data-viewer-state='ready'] .atlas-viewer-grid tbody tr",
                                   timeout=120_000)
            found["first rows (s)"] = round(time.perf_counter() - started, 2)
            holder = page.locator(".atlas-viewer")
            found["rows"] = int(holder.get_attribute("data-rows"))
            session = context.new_cdp_session(page)
            session.send("Performance.enable")

            def heap_mb() -> float:
                session.send("HeapProfiler.collectGarbage")
                metrics = session.send("Performance.getMetrics")["metrics"]
                return round(next(m["value"] for m in metrics if m["name"] == "JSHeapUsedSize") / 1e6, 1)

            found["page heap with the turns loaded (MB)"] = heap_mb()

            def timed(action: Any, name: str) -> None:
                started = time.perf_counter()
                action()
                page.wait_for_function("() => true")
                found[name] = round(time.perf_counter() - started, 3)
                found[name + " in script (ms)"] = int(holder.get_attribute("data-refresh-ms"))

            timed(lambda: holder.locator("th[data-column='turn'] button").click(), "sort by a number (s)")
            timed(lambda: holder.locator("th[data-column='text'] button").click(), "sort by text (s)")
            timed(lambda: holder.locator("fieldset[data-column='role'] label[data-value='wizard'] input").check(),
                  "filter by a label (s)")
            found["matches after the label"] = int(holder.get_attribute("data-matches"))

            def ranged() -> None:
                box = holder.locator("fieldset[data-column='turn'] .atlas-viewer-range-from")
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
            found["page heap at the end (MB)"] = heap_mb()
            memory = _chromium_memory_mb()
            found["browser memory (MB)"] = round(sum(memory.values()), 1)
            found["browser memory by process (MB)"] = memory
            found["browser memory before the page (MB)"] = round(sum(before.values()), 1)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return found


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="where the synthetic files go")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    parser.add_argument("--reuse", action="store_true", help="measure the files an earlier run wrote")
    args = parser.parse_args(argv)
    os.environ.setdefault("ATLAS_OFFLINE", "1")
    os.environ.setdefault("ATLAS_CACHE_DIR", str(args.data / "cache"))
    site = args.data / "site"
    reuse = args.reuse and (site / "_viewer" / "wow" / "train" / "manifest.json").is_file()
    figures = {} if reuse else write_site(args.data, site)
    figures.update(measure(site))  # type: ignore[arg-type]
    sort_or_filter = max(v for k, v in figures.items() if k.endswith("(s)") and ("sort" in k or "filter" in k))
    figures["slowest sort or filter (s)"] = sort_or_filter
    for name, value in figures.items():
        print(f"{name:45} {value}")
    print("targets:", ", ".join(f"{k} < {v}" for k, v in TARGETS.items()))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
