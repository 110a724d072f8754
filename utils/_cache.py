"""A columnar cache of parsed splits: three Arrow files (dialogues, turns, evidence) per split.

A split is parsed once, streamed into Arrow record batches and written atomically; later loads
memory-map the files, so reloading a split of any size takes milliseconds and little memory. The
cache key covers the source file (path, size, modification time), the parser version and this
module's format version, so a changed file or parser rebuilds the cache. A manifest, written last,
records the byte size of every table: a cache cut short fails that check and is rebuilt. A file lock
makes concurrent loads of the same split build it once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from filelock import FileLock

from .records import Dialogue

CACHE_FORMAT_VERSION = 1
_BATCH_DIALOGUES = 512
_TABLES = ("dialogues", "turns", "evidence")

DIALOGUE_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("dataset", pa.string()),
        ("split", pa.string()),
        ("topic", pa.string()),
        ("meta", pa.string()),
        ("turn_start", pa.int64()),
        ("turn_count", pa.int32()),
    ]
)
TURN_SCHEMA = pa.schema(
    [
        ("dialogue_index", pa.int32()),
        ("dialogue_id", pa.string()),
        ("turn_index", pa.int32()),
        ("role", pa.string()),
        ("speaker", pa.string()),
        ("text", pa.string()),
        ("labels", pa.string()),
        ("raw", pa.string()),
        ("evidence_start", pa.int64()),
        ("evidence_count", pa.int32()),
        ("selected_count", pa.int32()),
    ]
)
EVIDENCE_SCHEMA = pa.schema(
    [
        ("dialogue_index", pa.int32()),
        ("dialogue_id", pa.string()),
        ("turn_index", pa.int32()),
        ("id", pa.string()),
        ("text", pa.string()),
        ("title", pa.string()),
        ("origin", pa.string()),
        ("selected", pa.bool_()),
        ("meta", pa.string()),
    ]
)
_SCHEMAS = {"dialogues": DIALOGUE_SCHEMA, "turns": TURN_SCHEMA, "evidence": EVIDENCE_SCHEMA}


@dataclass(frozen=True)
class CachedTables:
    """The three memory-mapped tables of one parsed split."""

    dialogues: pa.Table
    turns: pa.Table
    evidence: pa.Table
    directory: Path
    rebuilt: bool


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def cache_key(source: Path, dataset: str, split: str, parser_version: int) -> str:
    """A key that changes whenever the source file, the parser or the cache format changes."""
    stat = source.stat()
    ident = _dumps(
        [str(source.resolve()), stat.st_size, stat.st_mtime_ns, dataset, split, parser_version, CACHE_FORMAT_VERSION]
    )
    return hashlib.sha256(ident.encode()).hexdigest()[:24]


def load_or_build(
    cache_root: Path,
    key: str,
    build: Callable[[], Iterable[Dialogue]],
) -> CachedTables:
    """Memory-map the cached tables for ``key``, building them from ``build()`` when absent or broken."""
    target = cache_root / key
    cached = _open(target)
    if cached is not None:
        return cached
    cache_root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(cache_root / f"{key}.lock")):
        cached = _open(target)  # another process may have built it while we waited
        if cached is not None:
            return cached
        _build(target, build())
        opened = _open(target, rebuilt=True)
    if opened is None:  # pragma: no cover - would mean the file system lost what we just wrote
        raise OSError(f"the cache at {target} could not be read back after writing it")
    return opened


def _open(directory: Path, rebuilt: bool = False) -> CachedTables | None:
    manifest_path = directory / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        tables = {}
        for name in _TABLES:
            path = directory / f"{name}.arrow"
            if path.stat().st_size != manifest["bytes"][name]:
                return None
            with pa.memory_map(str(path), "r") as source:
                table = pa.ipc.open_file(source).read_all()
            if table.num_rows != manifest["rows"][name]:
                return None
            tables[name] = table
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):
        return None
    return CachedTables(tables["dialogues"], tables["turns"], tables["evidence"], directory, rebuilt)


def _build(target: Path, dialogues: Iterable[Dialogue]) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        rows = _write_tables(staging, dialogues)
        manifest = {
            "format": CACHE_FORMAT_VERSION,
            "rows": rows,
            "bytes": {name: (staging / f"{name}.arrow").stat().st_size for name in _TABLES},
        }
        (staging / "manifest.json").write_text(_dumps(manifest), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _write_tables(directory: Path, dialogues: Iterable[Dialogue]) -> dict[str, int]:
    sinks = {name: pa.OSFile(str(directory / f"{name}.arrow"), "wb") for name in _TABLES}
    writers = {name: pa.ipc.new_file(sinks[name], _SCHEMAS[name]) for name in _TABLES}
    counts = {name: 0 for name in _TABLES}
    columns: dict[str, dict[str, list]] = {name: {f: [] for f in _SCHEMAS[name].names} for name in _TABLES}

    def flush() -> None:
        for name in _TABLES:
            if columns[name]["dialogue_index" if name != "dialogues" else "id"]:
                batch = pa.RecordBatch.from_pydict(columns[name], schema=_SCHEMAS[name])
                writers[name].write_batch(batch)
                for values in columns[name].values():
                    values.clear()

    try:
        d_cols, t_cols, e_cols = columns["dialogues"], columns["turns"], columns["evidence"]
        for d_index, dialogue in enumerate(dialogues):
            d_cols["id"].append(dialogue.id)
            d_cols["dataset"].append(dialogue.dataset)
            d_cols["split"].append(dialogue.split)
            d_cols["topic"].append(dialogue.topic)
            d_cols["meta"].append(_dumps(dialogue.meta))
            d_cols["turn_start"].append(counts["turns"])
            d_cols["turn_count"].append(len(dialogue.turns))
            counts["dialogues"] += 1
            for turn in dialogue.turns:
                t_cols["dialogue_index"].append(d_index)
                t_cols["dialogue_id"].append(dialogue.id)
                t_cols["turn_index"].append(turn.index)
                t_cols["role"].append(turn.role)
                t_cols["speaker"].append(turn.speaker)
                t_cols["text"].append(turn.text)
                t_cols["labels"].append(_dumps(turn.labels))
                t_cols["raw"].append(_dumps(turn.raw))
                t_cols["evidence_start"].append(counts["evidence"])
                t_cols["evidence_count"].append(len(turn.evidence))
                selected = 0
                for item in turn.evidence:
                    e_cols["dialogue_index"].append(d_index)
                    e_cols["dialogue_id"].append(dialogue.id)
                    e_cols["turn_index"].append(turn.index)
                    e_cols["id"].append(item.id)
                    e_cols["text"].append(item.text)
                    e_cols["title"].append(item.title)
                    e_cols["origin"].append(item.origin)
                    e_cols["selected"].append(item.selected)
                    e_cols["meta"].append(_dumps(item.meta) if item.meta else "{}")
                    selected += item.selected
                t_cols["selected_count"].append(selected)
                counts["evidence"] += len(turn.evidence)
                counts["turns"] += 1
            if (d_index + 1) % _BATCH_DIALOGUES == 0:
                flush()
        flush()
    finally:
        for name in _TABLES:
            writers[name].close()
            sinks[name].close()
    return counts
