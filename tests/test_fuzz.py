"""Parsers never crash on hostile input: property-based tests for every original format.

For each dataset's parser (:attr:`utils.sources.DatasetSource.parser`, plus WISE's document reader), hypothesis
generates

* random bytes and random JSON documents,
* truncations of the project's demo files,
* demo records mutated structurally (a key removed, a value of the wrong type, ``null``, a huge
  string, a huge number, nesting 20,000 levels deep, an unknown key, a record that is not an
  object; for CSV: a column removed or renamed, a row too long or too short, a stray quote),
* and, on top of any of these, byte-level damage (a byte-order mark, CRLF line ends, invalid UTF-8,
  a NUL byte, a cut at a random point).

Every case must either parse completely, into records that the cache can store (JSON-serialisable,
valid UTF-8 text), or raise :class:`utils.errors.DataError` naming the file. WISE's fast path (the
loader's columnar build) must give the parser's dialogues or decline, never accept a file the parser
refuses (it found a pyarrow crash: a document file whose first line is ``null``); FaithDial's must decline
exactly the files its parser refuses and otherwise store the parser's dialogues. Anything else fails, as
does a case that takes longer than the deadline or allocates far more than its input warrants.

Profiles (environment variable ``HYPOTHESIS_PROFILE``):

``short`` (default)
    25 cases per format and strategy (about 100 per format); the module runs in about 10 s.
``long``
    1,500 cases per format and strategy (about 6,000 per format), for a soak run of several
    minutes; it writes the number of cases and outcomes per format to
    ``tests/artifacts/fuzz-long.json``::

        HYPOTHESIS_PROFILE=long pytest -q tests/test_fuzz.py

The properties found three faults in the shared JSON readers (``utils.formats._io``), kept below as
regression tests: an integer of more than 4,300 digits raised ``ValueError``, an unpaired surrogate
escape (``\\ud800``) reached the cache and crashed it with ``UnicodeEncodeError``, and deep nesting
cost memory quadratic in depth (the earlier ijson-based reader) or crashed the cache with ``RecursionError``.
"""

from __future__ import annotations

import codecs
import csv
import dataclasses
import io
import json
import os
import re
import tempfile
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import demo_file, is_archive
from utils.errors import DataError
from utils.sources import dataset_names, get_source
from utils.teaching.grading import time_limit

REPO = Path(__file__).resolve().parents[1]
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "short")
_PROFILES = {
    "short": {"max_examples": 25, "deadline": 5000},
    "long": {"max_examples": 1500, "deadline": 5000},
}
if PROFILE not in _PROFILES:
    raise ValueError(f"HYPOTHESIS_PROFILE must be one of {', '.join(_PROFILES)}, not {PROFILE!r}")
FUZZ = settings(
    **_PROFILES[PROFILE],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
#: Seconds one case may run before it counts as a hang (hypothesis's deadline is advisory only).
HARD_TIMEOUT = 20
#: A case may allocate this much beyond :data:`MEMORY_PER_INPUT_BYTE` times its input size before it
#: counts as unbounded.
MEMORY_ALLOWANCE = 64 * 1024 * 1024
#: Growth per input byte allowed; the long profile once peaked 16 KB above 40 times a 1.3 MB WoW case plus
#: the allowance. What is checked is that memory grows linearly with the input, not the exact factor.
MEMORY_PER_INPUT_BYTE = 50

# -- the targets -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Target:
    """One reader under test and the demo files that seed it."""

    name: str
    parse: Callable[[Path, str], Iterator[Any]]
    seeds: tuple[tuple[str, str], ...]  # (relative path in the data layout, split)
    kind: str  # "json-list", "json-lines", "csv" or "tsv"


def _seed_files(dataset: str) -> tuple[tuple[str, str], ...]:
    seeds = []
    source = get_source(dataset)
    for split, files in source.splits.items():
        for item in (part for split_file in files for part in split_file.all_parts()):  # each shard a seed
            if (source.demo_dir / item.path).is_file():
                seeds.append((item.path, split))
    return tuple(seeds)


def _kind(relative: str) -> str:
    """How the seed file is written: read from its bytes, not its name (a ``.json`` may be a list or
    lines). A split declared as its publisher's archive is fuzzed as bytes (random, truncated,
    damaged), not as records."""
    if is_archive(demo_file(relative)):
        return "archive"
    content = demo_file(relative).read_bytes()
    if relative.endswith(".csv"):
        return "csv"
    if relative.endswith(".tsv"):
        return "tsv"
    text = content.decode("utf-8-sig", errors="replace").lstrip()
    return "json-list" if text.startswith("[") else "json-lines"


def _targets() -> dict[str, Target]:
    targets = {}
    for dataset in dataset_names():
        seeds = _seed_files(dataset)
        if not seeds:
            continue
        module_parse = get_source(dataset).parse
        targets[dataset] = Target(
            dataset, lambda path, split, p=module_parse: p(path, split=split), seeds, _kind(seeds[0][0])
        )
    wise_documents = "wise/document_line.json"
    if "wise" in targets and demo_file(wise_documents).is_file():
        from utils.datasets.wise.parser import iter_documents

        targets["wise_documents"] = Target(
            "wise_documents", lambda path, split: iter_documents(path), ((wise_documents, "documents"),), "json-lines"
        )
    return targets


TARGETS = _targets()
NAMES = sorted(TARGETS)
CASES: Counter[tuple[str, str]] = Counter()
OUTCOMES: Counter[tuple[str, str]] = Counter()

# -- running one case ------------------------------------------------------------------------------


class Hang(Exception):
    """A case ran past :data:`HARD_TIMEOUT`."""


def hard_timeout(seconds: float) -> AbstractContextManager[None]:
    return time_limit(seconds, lambda: Hang(f"no result after {seconds} s"))


def _storable(record: Any) -> None:
    """Fail unless ``record`` can go into the Arrow cache (JSON values, UTF-8-encodable text)."""
    json.dumps(dataclasses.asdict(record), ensure_ascii=False, allow_nan=True).encode("utf-8")


def check(target: Target, strategy: str, data: bytes, tmp_dir: Path | None, relative: str, split: str) -> None:
    """Write ``data`` where the seed lives in the data layout, parse it, and judge the outcome."""
    if tmp_dir is None:  # thousands of cases, some with megabyte strings: never keep their files
        with tempfile.TemporaryDirectory(prefix="atlas-fuzz-") as scratch:
            check(target, strategy, data, Path(scratch), relative, split)
        return
    path = tmp_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if target.name == "wise":  # the conversation parser looks passages up in the documents beside it
        documents = demo_file("wise/document_line.json")
        if documents.is_file() and not (path.parent / documents.name).exists():
            (path.parent / documents.name).write_bytes(documents.read_bytes())
    CASES[(target.name, strategy)] += 1
    tracemalloc.start()
    try:
        with hard_timeout(HARD_TIMEOUT):
            for record in target.parse(path, split):
                _storable(record)
        OUTCOMES[(target.name, "parsed")] += 1
    except DataError as error:
        OUTCOMES[(target.name, "DataError")] += 1
        assert error.path is not None and Path(error.path).name == path.name, f"DataError without the file: {error}"
        assert path.name in str(error)
        if strategy == "mutated":  # one record was changed: the error must say which
            assert error.record is not None, f"DataError without the record: {error}"
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    size = len(data)
    limit = MEMORY_PER_INPUT_BYTE * size + MEMORY_ALLOWANCE
    assert peak <= limit, f"{peak:,} bytes allocated for {size:,} bytes of input"


# -- strategies ------------------------------------------------------------------------------------

#: Nesting depth of the "deep" values (far beyond utils.formats._io.MAX_JSON_DEPTH).
DEEP = {"json-lines": 20_000, "csv": 20_000, "json-list": 20_000}
RAW_TOKENS = {  # JSON text that json.dumps would never write, spliced in for a placeholder string
    "@@DEEP_LIST@@": lambda depth: "[" * depth + "]" * depth,
    "@@DEEP_OBJECT@@": lambda depth: '{"a":' * depth + "1" + "}" * depth,
    "@@BIG_INT@@": lambda depth: "9" * 5_000,
    "@@BIG_EXP@@": lambda depth: "1e99999",
    "@@NEG_BIG_EXP@@": lambda depth: "-1e-99999",
    "@@NAN@@": lambda depth: "NaN",
    "@@LONE_SURROGATE@@": lambda depth: '"\\ud800 unpaired"',
}

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(["", " ", "\u0000", "<script>alert(1)</script>", "ß\u200b\U0001f600", "3251-8", "-1", "1e3"]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
hostile_values = st.one_of(
    json_values,
    st.sampled_from(sorted(RAW_TOKENS)),
    st.integers(min_value=100_000, max_value=2_000_000).map(lambda n: "x" * n),  # a huge string
    st.just([]),
    st.just({}),
)


def _dumps(value: Any, depth: int) -> str:
    text = json.dumps(value, ensure_ascii=False)
    for token, raw in RAW_TOKENS.items():
        if token in text:
            text = text.replace(json.dumps(token), raw(depth))
    return text


def _locations(value: Any, limit: int = 5000) -> list[tuple[Any, Any]]:
    """``(container, key)`` for every node under ``value`` (breadth first, bounded)."""
    found, queue = [], [value]
    while queue and len(found) < limit:
        node = queue.pop(0)
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, child in children:
            found.append((node, key))
            queue.append(child)
    return found


@st.composite
def mutated_record(draw: st.DrawFn, record: Any) -> Any:
    """``record`` (a deep copy) with one to three structural changes."""
    record = json.loads(json.dumps(record))
    if draw(st.integers(0, 19)) == 0:
        return draw(hostile_values)  # the whole record is the wrong thing
    for _ in range(draw(st.integers(1, 3))):
        locations = _locations(record)
        if not locations:
            break
        container, key = locations[draw(st.integers(0, len(locations) - 1))]
        operation = draw(st.sampled_from(["delete", "replace", "replace", "wrap", "add-key", "null"]))
        if operation == "delete":
            del container[key]
        elif operation == "replace":
            container[key] = draw(hostile_values)
        elif operation == "null":
            container[key] = None
        elif operation == "wrap":
            container[key] = draw(st.sampled_from([[container[key]], {"value": container[key]}]))
        elif isinstance(container, dict):
            container[draw(st.text(max_size=10))] = draw(hostile_values)
        else:
            container.append(draw(hostile_values))
    return record


def _seed_text(relative: str) -> str:
    return demo_file(relative).read_text(encoding="utf-8-sig")


@st.composite
def mutated_json_file(draw: st.DrawFn, relative: str, kind: str) -> bytes:
    text = _seed_text(relative)
    if kind == "json-list":
        records = json.loads(text)
        assume(records)
        index = draw(st.integers(0, len(records) - 1))
        pieces = [json.dumps(r, ensure_ascii=False) for r in records]
        pieces[index] = _dumps(draw(mutated_record(records[index])), DEEP[kind])
        return ("[" + ",\n".join(pieces) + "]\n").encode("utf-8", "surrogatepass")
    lines = [line for line in text.splitlines() if line.strip()]
    assume(lines)
    index = draw(st.integers(0, len(lines) - 1))
    lines[index] = _dumps(draw(mutated_record(json.loads(lines[index]))), DEEP[kind])
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


@st.composite
def mutated_csv_file(draw: st.DrawFn, relative: str, kind: str = "csv") -> bytes:
    # TSV as BEGIN publishes it: tabs, no quoting (a quote is an ordinary character)
    dialect: dict[str, Any] = {"delimiter": "\t", "quoting": csv.QUOTE_NONE} if kind == "tsv" else {}
    rows = list(csv.reader(io.StringIO(_seed_text(relative), newline=""), **dialect))
    assume(len(rows) > 1)
    width = len(rows[0])
    for _ in range(draw(st.integers(1, 3))):
        operation = draw(
            st.sampled_from(["drop-column", "rename-column", "cell", "cell", "long-row", "short-row", "quote"])
        )
        row = draw(st.integers(1, len(rows) - 1))
        column = draw(st.integers(0, max(width - 1, 0)))
        if operation == "drop-column" and width > 1:
            for r in rows:
                if column < len(r):
                    del r[column]
            width -= 1
        elif operation == "rename-column":
            rows[0][column % len(rows[0])] = draw(st.text(max_size=12))
        elif operation == "cell" and column < len(rows[row]):
            rows[row][column] = draw(
                st.one_of(
                    st.text(max_size=40),
                    st.sampled_from(["", "Hallucination,,", "entailment", "Generic ,Uncooperative", "\u0000", "null"]),
                    st.integers(100_000, 1_000_000).map(lambda n: "y" * n),
                )
            )
        elif operation == "long-row":
            rows[row].append(draw(st.text(max_size=10)))
        elif operation == "short-row" and rows[row]:
            rows[row].pop()
    if kind == "tsv":  # written as a careless tool would: cells joined, whatever they hold
        text = "\r\n".join("\t".join(row) for row in rows)
    else:
        buffer = io.StringIO(newline="")
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        text = buffer.getvalue()
    if draw(st.integers(0, 9)) == 0:  # a quote that never closes
        position = draw(st.integers(0, len(text)))
        text = text[:position] + '"' + text[position:]
    return text.encode("utf-8")


@st.composite
def byte_damage(draw: st.DrawFn, data: bytes) -> bytes:
    """Zero to three byte-level faults on top of ``data``."""
    for _ in range(draw(st.integers(0, 3))):
        fault = draw(st.sampled_from(["bom", "crlf", "invalid-utf8", "nul", "cut", "blank-lines"]))
        position = draw(st.integers(0, len(data)))
        if fault == "bom":
            data = codecs.BOM_UTF8 + data
        elif fault == "crlf":
            data = re.sub(rb"\r?\n", b"\r\n", data)
        elif fault == "invalid-utf8":
            bad = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xc0\x80", b"\xe2\x82", b"\x80"]))
            data = data[:position] + bad + data[position:]
        elif fault == "nul":
            data = data[:position] + b"\x00" + data[position:]
        elif fault == "cut":
            data = data[:position]
        else:
            data = data[:position] + b"\n\n  \n" + data[position:]
    return data


def seeds(target: Target) -> st.SearchStrategy[tuple[str, str]]:
    return st.sampled_from(target.seeds)


# -- the properties --------------------------------------------------------------------------------

def test_every_format_has_a_fuzz_target() -> None:
    assert set(NAMES) >= {"wow", "wow_kilt", "faithdial", "faithdial_audit", "wise", "jwhr", "begin"}, sorted(NAMES)


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    """After the module, write the counts of the long profile to tests/artifacts/fuzz-long.json."""
    yield
    if PROFILE == "long":
        names = sorted({name for name, _ in CASES})
        report = {
            "profile": PROFILE,
            "cases": {name: {s: n for (t, s), n in sorted(CASES.items()) if t == name} for name in names},
            "total_per_format": {name: sum(n for (t, _), n in CASES.items() if t == name) for name in names},
            "outcomes": {name: {o: n for (t, o), n in sorted(OUTCOMES.items()) if t == name} for name in names},
        }
        artifacts = REPO / "tests" / "artifacts"
        artifacts.mkdir(exist_ok=True)
        (artifacts / "fuzz-long.json").write_text(json.dumps(report, indent=2), encoding="utf-8")


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_random_input(name: str, data: st.DataObject) -> None:
    target = TARGETS[name]
    relative, split = data.draw(seeds(target))
    payload = data.draw(
        st.one_of(
            st.binary(max_size=3000),
            json_values.map(lambda v: json.dumps(v).encode()),
            st.lists(json_values, max_size=5).map(lambda vs: "\n".join(map(json.dumps, vs)).encode()),
            st.text(alphabet='[]{}",:\n 0123456789truefalsn\\u', max_size=300).map(str.encode),
        )
    )
    check(target, "random", payload, None, relative, split)


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_truncated_demo_file(name: str, data: st.DataObject) -> None:
    target = TARGETS[name]
    relative, split = data.draw(seeds(target))
    original = demo_file(relative).read_bytes()
    cut = data.draw(st.integers(0, len(original)))
    check(target, "truncated", original[:cut], None, relative, split)


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_mutated_records(name: str, data: st.DataObject) -> None:
    target = TARGETS[name]
    relative, split = data.draw(seeds(target))
    if target.kind == "archive":  # records inside an archive: damaged as bytes, so no record to name
        check(target, "bytes", data.draw(byte_damage(demo_file(relative).read_bytes())), None, relative, split)
        return
    if target.kind in ("csv", "tsv"):
        payload = data.draw(mutated_csv_file(relative, target.kind))
    else:
        payload = data.draw(mutated_json_file(relative, target.kind))
    check(target, "mutated", payload, None, relative, split)


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_damaged_bytes(name: str, data: st.DataObject) -> None:
    target = TARGETS[name]
    relative, split = data.draw(seeds(target))
    if data.draw(st.booleans()) or target.kind == "archive":
        base = demo_file(relative).read_bytes()
    elif target.kind in ("csv", "tsv"):
        base = data.draw(mutated_csv_file(relative, target.kind))
    else:
        base = data.draw(mutated_json_file(relative, target.kind))
    check(target, "bytes", data.draw(byte_damage(base)), None, relative, split)


def _wise_fast_path_agrees(conversations: bytes, documents: bytes) -> None:
    """WISE's fast path (the loader's columnar build) must give what parse gives, or decline.

    It may never accept a file parse refuses, never give other dialogues, and raise nothing but
    FastPathDeclined (on which the loader builds with parse).
    """
    from utils import _cache
    from utils.datasets.wise import parser as wise

    with tempfile.TemporaryDirectory(prefix="atlas-fuzz-") as scratch:
        path = Path(scratch) / "conversation_train_line.json"
        path.write_bytes(conversations)
        (path.parent / wise.DOCUMENTS_FILENAME).write_bytes(documents)
        wise._PASSAGE_COLUMNS.clear()  # a same-size file written within the clock's tick
        with hard_timeout(HARD_TIMEOUT):
            try:
                expected: list | None = list(wise.parse(path, split="train"))
            except DataError:
                expected = None
            try:
                tables = _cache.build_in_memory(wise.parse_columns(path, split="train"))
            except _cache.FastPathDeclined:
                OUTCOMES[("wise fast path", "declined")] += 1
                return
        assert expected is not None, "the fast path accepted a file parse refuses"
        assert _cache.rebuild_dialogues(tables, 0, tables.dialogues.num_rows) == expected
        OUTCOMES[("wise fast path", "agreed")] += 1


@FUZZ
@given(data=st.data())
def test_wise_fast_path_agrees_with_parse(data: st.DataObject) -> None:
    documents_file, conversations_file = "wise/document_line.json", "wise/conversation_train_line.json"
    documents = demo_file(documents_file).read_bytes()
    conversations = demo_file(conversations_file).read_bytes()
    which = data.draw(st.sampled_from(["conversations", "documents", "both"]))
    if which in ("conversations", "both"):
        conversations = data.draw(mutated_json_file(conversations_file, "json-lines"))
    if which in ("documents", "both"):
        documents = data.draw(mutated_json_file(documents_file, "json-lines"))
    if data.draw(st.booleans()):
        documents = data.draw(byte_damage(documents))
    _wise_fast_path_agrees(conversations, documents)


def test_wise_fast_path_agrees_on_the_demo_files() -> None:
    """The unmutated seeds go the fast way (otherwise the property above tests only declines)."""
    demo = demo_file("wise")
    before = OUTCOMES[("wise fast path", "agreed")]
    conversations = (demo / "conversation_train_line.json").read_bytes()
    _wise_fast_path_agrees(conversations, (demo / "document_line.json").read_bytes())
    assert OUTCOMES[("wise fast path", "agreed")] == before + 1


def _wow_fast_path_agrees(payload: bytes) -> None:
    """WoW's columnar path (what the loader builds the cache with) refuses what parse refuses, with the
    same message, and otherwise stores exactly the dialogues parse gives."""
    from utils import _cache
    from utils.datasets.wow import parser as wow

    with tempfile.TemporaryDirectory(prefix="atlas-fuzz-") as scratch:
        path = Path(scratch) / "train.json"
        path.write_bytes(payload)
        with hard_timeout(HARD_TIMEOUT):
            try:
                expected: list | str = list(wow.parse(path, split="train"))
            except DataError as exc:
                expected = str(exc)
            try:
                tables = _cache.build_in_memory(wow.parse_columns(path, split="train"))
            except DataError as exc:
                assert str(exc) == expected
                OUTCOMES[("wow fast path", "refused alike")] += 1
                return
        assert not isinstance(expected, str), "the fast path accepted a file parse refuses"
        assert _cache.rebuild_dialogues(tables, 0, tables.dialogues.num_rows) == expected
        OUTCOMES[("wow fast path", "agreed")] += 1


def _faithdial_fast_path_agrees(payload: bytes) -> None:
    """FaithDial's columnar path (what the loader builds the cache with) declines exactly the files parse
    refuses (parse then reports the fault), and otherwise stores exactly the dialogues parse gives."""
    from utils import _cache
    from utils.datasets.faithdial import parser as faithdial

    with tempfile.TemporaryDirectory(prefix="atlas-fuzz-") as scratch:
        path = Path(scratch) / "train.json"
        path.write_bytes(payload)
        with hard_timeout(HARD_TIMEOUT):
            try:
                expected: list | None = list(faithdial.parse(path, split="train"))
            except DataError:
                expected = None
            try:
                tables = _cache.build_in_memory(faithdial.parse_columns(path, split="train"))
            except _cache.FastPathDeclined as declined:
                assert expected is None, f"the fast path declined a file parse accepts ({declined})"
                OUTCOMES[("faithdial fast path", "declined")] += 1
                return
        assert expected is not None, "the fast path accepted a file parse refuses"
        assert _cache.rebuild_dialogues(tables, 0, tables.dialogues.num_rows) == expected
        OUTCOMES[("faithdial fast path", "agreed")] += 1


def _jwhr_fast_path_agrees(payload: bytes) -> None:
    """JWHR's typed path (what the loader builds the cache with) refuses what parse refuses, with the
    same message, and otherwise stores exactly the dialogues parse gives."""
    from utils import _cache
    from utils.datasets.jwhr import parser as jwhr

    with tempfile.TemporaryDirectory(prefix="atlas-fuzz-") as scratch:
        path = Path(scratch) / "answered.jsonl"
        path.write_bytes(payload)
        with hard_timeout(HARD_TIMEOUT):
            try:
                expected: list | str = list(jwhr.parse(path, split="answered"))
            except DataError as exc:
                expected = str(exc)
            try:
                tables = _cache.build_in_memory(jwhr.parse_columns(path, split="answered"))
            except DataError as exc:
                assert str(exc) == expected
                OUTCOMES[("jwhr fast path", "refused alike")] += 1
                return
        assert not isinstance(expected, str), "the fast path accepted a file parse refuses"
        assert _cache.rebuild_dialogues(tables, 0, tables.dialogues.num_rows) == expected
        OUTCOMES[("jwhr fast path", "agreed")] += 1


#: The datasets whose loader builds the cache through a fast path: each one's check that the fast path
#: gives parse's dialogues, and refuses or declines exactly the files parse refuses.
FAST_PATH_AGREES = {
    "wow": _wow_fast_path_agrees,
    "faithdial": _faithdial_fast_path_agrees,
    "jwhr": _jwhr_fast_path_agrees,
}


@FUZZ
@pytest.mark.parametrize("dataset", sorted(FAST_PATH_AGREES))
@given(data=st.data())
def test_fast_path_agrees_with_parse(dataset: str, data: st.DataObject) -> None:
    relative, _ = data.draw(seeds(TARGETS[dataset]))
    payload = data.draw(mutated_json_file(relative, TARGETS[dataset].kind))
    if data.draw(st.booleans()):
        payload = data.draw(byte_damage(payload))
    FAST_PATH_AGREES[dataset](payload)


@pytest.mark.parametrize("dataset", sorted(FAST_PATH_AGREES))
def test_fast_path_agrees_on_the_demo_files(dataset: str) -> None:
    before = OUTCOMES[(f"{dataset} fast path", "agreed")]
    for relative, _ in TARGETS[dataset].seeds:
        FAST_PATH_AGREES[dataset](demo_file(relative).read_bytes())
    assert OUTCOMES[(f"{dataset} fast path", "agreed")] == before + len(TARGETS[dataset].seeds)


@pytest.mark.parametrize("name", NAMES)
def test_every_demo_file_parses(name: str, tmp_path: Path) -> None:
    """The unmutated seeds parse cleanly (otherwise the properties above test nothing useful)."""
    target = TARGETS[name]
    for relative, split in target.seeds:
        data = demo_file(relative).read_bytes()
        before = OUTCOMES[(name, "parsed")]
        check(target, "seed", data, tmp_path, relative, split)
        assert OUTCOMES[(name, "parsed")] == before + 1, f"{relative} did not parse"


@pytest.mark.parametrize("name", [n for n in NAMES if TARGETS[n].kind == "json-list"])
def test_deep_nesting_in_a_json_list_is_refused_cheaply(name: str, tmp_path: Path) -> None:
    """Regression: the earlier ijson reader needed memory quadratic in depth (1 GB for 40 KB of brackets)."""
    target = TARGETS[name]
    relative, split = target.seeds[0]
    payload = ("[" + RAW_TOKENS["@@DEEP_LIST@@"](40_000) + "]").encode()
    check(target, "deep", payload, tmp_path, relative, split)  # a DataError, within the memory bound
    with pytest.raises(DataError, match="nested more than"):
        list(target.parse(tmp_path / relative, split))


# -- regressions found by these properties -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"id": ' + "9" * 5_000 + "}\n", "invalid JSON value"),  # int() refuses more than 4,300 digits
        ('{"id": 1, "question": "\\ud800 unpaired"}\n', "unpaired surrogate"),
        ('{"id": 1, "question": "\\ud83d\\ude00 ok then \\ude00"}\n', "unpaired surrogate"),
        ('{"id": 1, "\\udfff": "key"}\n', "unpaired surrogate"),
        ('{"id": ' + "[" * 150 + "]" * 150 + "}\n", "nested more than 100"),  # the cache could not store it
        ('{"id": NaN}\n', "invalid JSON value"),  # Python's extensions are not JSON, as in JSON lists
        ('{"id": -Infinity}\n', "invalid JSON value"),
        ('{"id": 1e999}\n', "too large for a float"),
    ],
)
def test_json_lines_faults_are_data_errors(tmp_path: Path, text: str, problem: str) -> None:
    from utils.formats._io import iter_json_lines

    path = tmp_path / "answered.jsonl"
    path.write_text('{"id": 0}\n' + text, encoding="utf-8")
    with pytest.raises(DataError, match=problem) as caught:
        list(iter_json_lines(path))
    assert caught.value.path == str(path) and caught.value.record == "line 2"


def test_json_list_unpaired_surrogate_is_a_data_error(tmp_path: Path) -> None:
    from utils.formats._io import iter_json_list

    path = tmp_path / "train.json"
    filler = "x" * (1 << 20)  # the bad escape sits past the reader's first megabyte
    path.write_text(f'[{{"a": "{filler}"}}, {{"b": "\\ud83d\\ude00"}}, {{"c": "\\udc00 lone"}}]', encoding="utf-8")
    with pytest.raises(DataError, match="unpaired surrogate") as caught:
        list(iter_json_list(path))
    assert caught.value.record == 2
    path.write_text('[{"b": "\\ud83d\\ude00 \\\\ud800"}]', encoding="utf-8")  # a pair, and an escaped backslash
    assert [element for _, element in iter_json_list(path)] == [{"b": "\U0001f600 \\ud800"}]


@pytest.mark.parametrize(("chunk", "refill"), [(5, 0), (7, 3), (64, 1 << 20), (1 << 22, 1 << 20)])
def test_json_list_elements_cut_by_the_window_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int, refill: int
) -> None:
    from utils.formats import _io

    # Tiny windows cut strings, numbers, escapes and multi-byte characters; each element still reads as
    # json.load reads it, whether the window is filled up before an element or only once it is cut.
    monkeypatch.setattr(_io, "_CHUNK_BYTES", chunk)
    monkeypatch.setattr(_io, "_REFILL_BELOW", refill)
    elements = [
        {"text": "caf\u00e9 \U0001f600 " * 3, "number": -12345.678e-3, "list": [1, [2, [3]]], "none": None},
        [],
        "\"quoted\" back\\slash",
        12345678901234567890,
        {"deep": [[[[{"x": True}]]]], "pair": "\U0001f600 written as two escapes"},
    ]
    path = tmp_path / "train.json"
    path.write_text(json.dumps(elements, indent=1), encoding="utf-8")
    assert [element for _, element in _io.iter_json_list(path)] == elements
    path.write_text(json.dumps(elements, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    assert [element for _, element in _io.iter_json_list(path)] == elements


@pytest.mark.parametrize("cut", [1, 3, 6, 8, 11])
@pytest.mark.parametrize(
    "escapes", ["\\ud83d\\ude00", "\\udc00", "\\ud83d \\ude00"], ids=["a pair", "a low half", "halves apart"]
)
def test_json_list_surrogate_escapes_cut_by_a_chunk(tmp_path: Path, cut: int, escapes: str) -> None:
    """The reader looks for lone surrogates a chunk of the window at a time: escapes that the end of a
    chunk cuts in two are judged as a whole (``cut`` characters before the end: inside the escapes)."""
    from utils.formats._io import _CHUNK_BYTES, iter_json_list

    head = '[{"a": "'
    path = tmp_path / "train.json"
    path.write_text(head + "x" * (_CHUNK_BYTES - len(head) - cut) + escapes + '"}, {"b": 1}]', encoding="ascii")
    if escapes == "\\ud83d\\ude00":
        assert [element["a"][-2:] for _, element in iter_json_list(path) if "a" in element] == ["x\U0001f600"]
    else:
        with pytest.raises(DataError, match="unpaired surrogate") as caught:
            list(iter_json_list(path))
        assert caught.value.record == 0


def test_loading_a_file_with_an_unpaired_surrogate_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import utils

    lines = demo_file("jwhr/answered.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["question"] = "\ud800 broken"
    lines[0] = json.dumps(record)  # written with ensure_ascii: a \ud800 escape
    (tmp_path / "jwhr").mkdir()
    (tmp_path / "jwhr/answered.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path))
    # A registry entry without the official size (a 3-session file would be refused as far too small)
    # and with another checksum, so that the file still loads as a mismatching user copy.
    from utils import loading
    from utils.sources import SourceFile

    entry = SourceFile(path="jwhr/answered.jsonl", sha256="0" * 64)
    monkeypatch.setattr(loading, "_split_files", lambda source, split: (entry,))
    with pytest.warns(UserWarning), pytest.raises(DataError, match="unpaired surrogate") as caught:
        utils.load("jwhr", "answered")
    assert caught.value.path == str(tmp_path / "jwhr/answered.jsonl") and caught.value.record == "line 1"
