"""The book's chapters and the small real files, measured on the data the book is built on (issue 50).

Two of issue 50's goals are about the book rather than the full-size synthetic files that the rest of
:mod:`benchmarks.bench` measures, so they are measured here, on the real data directory
(``$ATLAS_DATA_DIR``, as ``make book`` builds with), each step in a process of its own:

* **item 9**, every chapter of the book (``notebooks/*.ipynb``) executed cell by cell as the benchmark's
  chapter step executes one (:func:`benchmarks.bench._step_chapter`), in rounds alternating the chapters
  and keeping each one's least CPU time (the first round also builds the caches, which the book's
  build keeps from one chapter to the next): BEGIN's chapter within :data:`CHAPTER_RATIO` times the
  median chapter;
* **item 12**, the cold loads of BEGIN's and KILT's real files (``utils.load`` with an empty cache: parse,
  write the cache) against a bare read loop of the same file (``csv.reader`` of the TSV, ``json.loads``
  of every line), alternated, least CPU time of each; and the cache each writes against the file:
  within :data:`COLD_RATIO` and :data:`CACHE_RATIO`. A dataset's splits are judged together (sums
  over the splits whose official file is present), since one small split's fixed costs say little.
  The cache counted is everything the load leaves in its cache directory, empty at the start: a split
  under :data:`utils._cache.storage.IN_MEMORY_BELOW` is parsed into memory at every load rather than
  cached, and counts what it leaves there, nothing (0 bytes) for a file too small to have its
  checksum remembered (:data:`utils._download.HASH_REMEMBERED_FROM`).
"""

from __future__ import annotations

import shutil
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

from . import bench

#: BEGIN's chapter, in CPU seconds, against the median chapter of the book.
CHAPTER_RATIO = 2.0
#: The chapter judged against the others.
SLOW_CHAPTER = "begin"
#: A cold load's CPU time against a bare read loop of the same files, and its cache against the files.
COLD_RATIO = 3.0
CACHE_RATIO = 1.0
#: dataset -> the splits whose cold loads are judged, where their official file is present.
COLD_LOADS: dict[str, tuple[str, ...]] = {
    "begin": ("wow_dev", "wow_test", "cmu_dev", "cmu_test", "tc_dev", "tc_test"),
    "wow_kilt": ("dev",),
}
#: Rounds: chapters (the first also builds the caches) and cold loads (each with an empty cache).
CHAPTER_ROUNDS = 2
COLD_ROUNDS = 3

CHAPTER_STEP = bench.BOOK_CHAPTER_STEP
BARE_STEP = bench.BARE_LOOP_STEP
COLD_STEP = "atlas first load"
CACHE_STEP = "atlas cache on disk"


def chapter_names() -> list[str]:
    """The book's chapters: the notebooks of ``notebooks/``, by name."""
    return sorted(path.stem for path in bench.CHAPTERS.glob("*.ipynb"))


def chapter_costs(
    data_dir: Path,
    cache_dir: Path,
    *,
    chapters: Sequence[str] | None = None,
    rounds: int = CHAPTER_ROUNDS,
    timeout: float = 1800.0,
    in_process: bool = False,
    report: Callable[[bench.Measurement], None] = lambda m: None,
) -> list[bench.Measurement]:
    """Each chapter's least CPU time over ``rounds`` rounds (chapters alternated), on ``data_dir``,
    with one cache for all of them (``cache_dir``), as the book's build has."""
    env = {"ATLAS_DATA_DIR": str(data_dir), "ATLAS_CACHE_DIR": str(cache_dir), "ATLAS_OFFLINE": "1"}
    best: dict[str, bench.Measurement] = {}
    for _ in range(rounds):
        for name in chapters if chapters is not None else chapter_names():
            task = {"dataset": name, "split": "", "step": CHAPTER_STEP}
            measured = bench._measure(task, env, timeout, in_process)
            kept = best.get(name)
            if kept is None or kept.error or (not measured.error and measured.cpu_seconds < kept.cpu_seconds):  # type: ignore[operator]
                best[name] = measured
    for measured in best.values():
        report(measured)
    return list(best.values())


def _official_file(dataset: str, split: str, data_dir: Path) -> Path | None:
    from utils.sources import get_split_files

    for item in get_split_files(dataset, split):
        if not item.partial and (data_dir / item.path).is_file():
            return data_dir / item.path
    return None


def cold_load_costs(
    data_dir: Path,
    scratch: Path,
    *,
    loads: dict[str, tuple[str, ...]] = COLD_LOADS,
    rounds: int = COLD_ROUNDS,
    timeout: float = 600.0,
    in_process: bool = False,
    report: Callable[[bench.Measurement], None] = lambda m: None,
) -> list[bench.Measurement]:
    """Per split whose official file is in ``data_dir``: the least CPU time of a bare read loop and of a
    cold load (an empty cache each time), alternated over ``rounds``, and the size of the cache."""
    measurements = []
    for dataset, splits in loads.items():
        for split in splits:
            path = _official_file(dataset, split, data_dir)
            if path is None:
                continue
            best: dict[str, bench.Measurement] = {}
            cache_mb = None
            for round_number in range(rounds):
                for step in (BARE_STEP, COLD_STEP):
                    cache = scratch / f"cold-{dataset}-{split}-{round_number}"
                    shutil.rmtree(cache, ignore_errors=True)
                    env = {"ATLAS_DATA_DIR": str(data_dir), "ATLAS_CACHE_DIR": str(cache), "ATLAS_OFFLINE": "1"}
                    task = {"dataset": dataset, "split": split, "step": step, "path": str(path)}
                    measured = bench._measure(task, env, timeout, in_process)
                    if step == COLD_STEP and not measured.error:
                        # Whatever the load left in its cache directory; a split parsed into memory, not
                        # cached, may leave no directory at all: 0 bytes, not "not measured".
                        cache_mb = bench._size_mb(cache) if cache.is_dir() else 0.0
                    shutil.rmtree(cache, ignore_errors=True)
                    kept = best.get(step)
                    if kept is None or kept.error or (not measured.error and measured.cpu_seconds < kept.cpu_seconds):  # type: ignore[operator]
                        best[step] = measured
            file_mb = path.stat().st_size / 2**20
            on_disk = bench.Measurement(
                dataset, split, CACHE_STEP, cache_mb=cache_mb,
                detail="" if cache_mb is None else f"{cache_mb * 1024:,.0f} kB for a {file_mb * 1024:,.0f} kB file",
            )
            for measured in (best[BARE_STEP], best[COLD_STEP], on_disk):
                measured.files_read = [str(path)]  # the file judged against, for the verdicts
                report(measured)
                measurements.append(measured)
    return measurements


def _cpu(measurements: Sequence[bench.Measurement], step: str, dataset: str | None = None) -> dict[str, float]:
    return {
        (m.dataset if dataset is None else m.split): m.cpu_seconds
        for m in measurements
        if m.step == step and not m.error and m.cpu_seconds is not None and dataset in (None, m.dataset)
    }


def chapter_verdict(chapters: Sequence[bench.Measurement]) -> str:
    """Item 9's verdict: :data:`SLOW_CHAPTER`'s chapter against the median of every chapter measured."""
    goal = f"issue 50 item 9 ({SLOW_CHAPTER} chapter <= {CHAPTER_RATIO:g}x the median chapter, CPU)"
    cpu = _cpu(chapters, CHAPTER_STEP)
    failed = sorted(m.dataset for m in chapters if m.error)
    if SLOW_CHAPTER not in cpu or len(cpu) < 2:
        return f"{goal}: not measured" + (f" (failed: {', '.join(failed)})" if failed else "")
    median = statistics.median(cpu.values())
    ratio = cpu[SLOW_CHAPTER] / median
    numbers = f"{ratio:.2f}x: {cpu[SLOW_CHAPTER]:.1f} s against a median of {median:.1f} s over {len(cpu)} chapters"
    if failed:
        numbers += f"; failed: {', '.join(failed)}"
    return f"{goal}: {'yes' if ratio <= CHAPTER_RATIO and not failed else 'NO'} ({numbers})"


def cold_load_verdicts(measurements: Sequence[bench.Measurement]) -> list[str]:
    """Item 12's verdicts, one per dataset of :data:`COLD_LOADS`: its cold loads against its bare read
    loops, and its caches against its files, over the splits measured."""
    lines = []
    for dataset in COLD_LOADS:
        goal = (f"issue 50 item 12 ({dataset} cold load <= {COLD_RATIO:g}x a bare read loop, cache <= "
                f"{CACHE_RATIO:g}x the file)")
        bare, cold = _cpu(measurements, BARE_STEP, dataset), _cpu(measurements, COLD_STEP, dataset)
        sizes = {m.split: (m.cache_mb, Path(m.files_read[0]).stat().st_size / 2**20)
                 for m in measurements if m.dataset == dataset and m.step == CACHE_STEP and m.cache_mb is not None}
        splits = sorted(set(bare) & set(cold) & set(sizes))
        if not splits:
            lines.append(f"{goal}: not measured")
            continue
        ratio = sum(cold[s] for s in splits) / sum(bare[s] for s in splits)
        share = sum(sizes[s][0] for s in splits) / sum(sizes[s][1] for s in splits)
        ok = ratio <= COLD_RATIO and share <= CACHE_RATIO
        numbers = (f"{ratio:.1f}x: {sum(cold[s] for s in splits):.3f} s against {sum(bare[s] for s in splits):.3f} s; "
                   f"cache {share:.2f}x the file; {', '.join(splits)}")
        lines.append(f"{goal}: {'yes' if ok else 'NO'} ({numbers})")
    return lines


def rows(chapters: Sequence[bench.Measurement], cold: Sequence[bench.Measurement]) -> list[bench.Row]:
    """The measurements as rows of the benchmark's table, each with its target."""
    found = []
    cpu = _cpu(chapters, CHAPTER_STEP)
    median = statistics.median(cpu.values()) if cpu else None
    for m in chapters:
        row = bench.Row(m, 0.0)
        if m.dataset == SLOW_CHAPTER and median and m.cpu_seconds is not None:
            ratio = m.cpu_seconds / median
            row.target = f"<= {CHAPTER_RATIO:g}x the median chapter (is {ratio:.2f}x)"
            row.met = "yes" if ratio <= CHAPTER_RATIO else "NO"
        found.append(row)
    for m in cold:
        file_mb = Path(m.files_read[0]).stat().st_size / 2**20 if m.files_read else 0.0
        row = bench.Row(m, file_mb)
        bare = next((b for b in cold if b.step == BARE_STEP and (b.dataset, b.split) == (m.dataset, m.split)), None)
        if m.step == COLD_STEP and bare and bare.cpu_seconds and m.cpu_seconds is not None:
            ratio = m.cpu_seconds / bare.cpu_seconds
            row.target = f"<= {COLD_RATIO:g}x the bare read loop (is {ratio:.1f}x)"
            row.met = "(yes)" if ratio <= COLD_RATIO else "(no)"  # judged over the dataset's splits together
        elif m.step == CACHE_STEP and m.cache_mb is not None and file_mb:
            share = m.cache_mb / file_mb
            row.target = f"<= {CACHE_RATIO:g}x the file (is {share:.2f}x)"
            row.met = "(yes)" if share <= CACHE_RATIO else "(no)"
        found.append(row)
    return found


def measure(
    data_dir: Path,
    scratch: Path,
    *,
    quick: bool = False,
    timeout: float = 1800.0,
    in_process: bool = False,
    report: Callable[[bench.Measurement], None] = lambda m: None,
) -> tuple[list[bench.Row], list[str]]:
    """Both goals on ``data_dir``: the rows for the table and the verdict lines. ``quick`` (``make
    bench-quick``, whose whole run has ten minutes) runs the chapters once: their caches are then built
    by the chapter that first loads a split, a fraction of a second on the book's small files."""
    cache = scratch / "book-cache"
    print(f"== the book's chapters ({data_dir})", flush=True)
    rounds = 1 if quick else CHAPTER_ROUNDS
    chapters = chapter_costs(data_dir, cache, rounds=rounds, timeout=timeout, in_process=in_process, report=report)
    shutil.rmtree(cache, ignore_errors=True)
    print(f"== cold loads of the small real files ({data_dir})", flush=True)
    cold = cold_load_costs(data_dir, scratch, timeout=timeout, in_process=in_process, report=report)
    return rows(chapters, cold), [chapter_verdict(chapters), *cold_load_verdicts(cold)]
