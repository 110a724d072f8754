"""BEGIN's chapter made fast (issue 50, item 9) with the same numbers: the remembered features and
lexical scores, and the counted bootstrap AUC, against the routes they replaced."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import utils
from conftest import require_real_file
from utils.datasets.begin import baselines, stats
from utils.datasets.faithdial import baselines as faithdial_baselines
from utils.scoring import auc_rows


def _slow_statistics(scored: baselines.Scored) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
    """The bootstrap's statistics as they were: every resample ranked (``rankdata``) for its AUC."""
    def statistics(index: np.ndarray) -> dict[str, np.ndarray]:
        labels, scores, predicted = scored.labels[index], scored.scores[index], scored.predicted[index]
        true_positive = (predicted * labels).sum(axis=1)
        flagged, positives = predicted.sum(axis=1), labels.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            f1 = np.where(flagged + positives > 0, 2 * true_positive / (flagged + positives), 0.0)
        return {"accuracy": (predicted == labels).mean(axis=1), "F1": f1, "ROC AUC": auc_rows(labels, scores)}

    return statistics


@pytest.fixture
def slow_routes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Nothing remembered, every resample ranked: the chapter's computations as before the change."""
    features = baselines._feature_values.__wrapped__  # type: ignore[attr-defined]
    precision = faithdial_baselines.knowledge_precision.__wrapped__  # type: ignore[attr-defined]
    monkeypatch.setattr(baselines, "_feature_values", features)
    monkeypatch.setattr(baselines, "knowledge_precision", precision)
    monkeypatch.setattr(faithdial_baselines, "knowledge_precision", precision)
    monkeypatch.setattr(baselines, "_statistics", _slow_statistics)
    monkeypatch.setattr(stats, "_rows_key", lambda split, dialogues: None)  # every row read afresh
    yield


def _chapter_numbers(splits: dict[str, utils.LoadedSplit]) -> dict[str, pd.DataFrame]:
    rows = stats.response_frame(splits)
    examples = baselines.critic_examples(rows)
    pairs = baselines.dev_test_pairs(list(splits))
    return {
        "features": baselines.feature_frame(rows),
        "by label": baselines.features_by_label(rows),
        "evaluation": baselines.evaluate_on_test(examples, pairs),
        "by model": baselines.evaluate_on_test(examples, pairs, by=("split", "model")),
        "auc by split": baselines.auc_by_split(examples),
        "improvement": baselines.improvement_frame(examples, pairs),
        "blind spots": baselines.blind_spots(examples)["spurious"],
    }


def _same_numbers_as_before(request: pytest.FixtureRequest) -> None:
    """Every table the chapter computes, fast (twice: the second from what the first remembered) and
    then by the slow routes: equal to the last bit."""
    splits = {name: utils.load("begin", name) for name in ("wow_dev", "wow_test", "cmu_dev", "tc_dev")}
    fast = _chapter_numbers(splits)
    fast_again = _chapter_numbers(splits)
    request.getfixturevalue("slow_routes")
    slow = _chapter_numbers(splits)
    for name, frame in slow.items():
        pd.testing.assert_frame_equal(fast[name], frame, check_exact=True)
        pd.testing.assert_frame_equal(fast_again[name], frame, check_exact=True)


def test_the_chapters_numbers_are_those_of_the_slow_routes(request: pytest.FixtureRequest) -> None:
    _same_numbers_as_before(request)  # the demo samples


@pytest.mark.slow  # the slow routes themselves: 10 s of the folder tests' 58 s
def test_the_chapters_numbers_on_the_real_files_are_those_of_the_slow_routes(
    real_data_dir: Path, request: pytest.FixtureRequest
) -> None:
    require_real_file(real_data_dir, "begin/wow/begin_test_wow.tsv")
    _same_numbers_as_before(request)


def test_remembered_features_are_copies_the_caller_may_change() -> None:
    first = baselines.features("I saw it in 1990.", "It was built in 1990.", "when?")
    first["question"] = 99.0
    again = baselines.features("I saw it in 1990.", "It was built in 1990.", "when?")
    assert again["question"] == 0.0 and list(again) == list(baselines.FEATURES)
    assert again == dict(zip(baselines.FEATURES, baselines._feature_values.__wrapped__(  # type: ignore[attr-defined]
        "I saw it in 1990.", "It was built in 1990.", "when?"), strict=True))


# -- the loader's fast path (issue 50, item 12) ------------------------------------------------------

HEADER = "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label"
ROW = "t5\twow\tThe lamp was lit in 1871.\tTell me.\tIt was lit in 1871.\tFully attributable"


@pytest.mark.parametrize(
    "lines",
    [
        [HEADER + "\textra", ROW + "\tmore"],  # a seventh column: kept in meta by the record path
        [HEADER, ROW.replace("Fully attributable", "Maybe")],  # a label outside the three
        [HEADER, "t5\twow\tonly three"],  # too few fields
        [HEADER, ROW.replace("t5", " ", 1)],  # an empty model name
        ["response\tmodel_name", ROW],  # a header without the six columns
        [],  # an empty file
        [HEADER, ROW.replace("t5", "null", 1)],  # JSON whose text holds null: the cache's other encoder
    ],
    ids=["extra column", "unknown label", "short row", "empty model", "bad header", "empty file", "null"],
)
def test_the_fast_path_declines_what_the_record_path_treats_apart(tmp_path: Path, lines: list[str]) -> None:
    from utils.datasets.begin import columns
    from utils.formats import FastPathDeclined

    path = tmp_path / "begin_dev_wow.tsv"
    path.write_text("\r\n".join(lines), encoding="utf-8")
    with pytest.raises(FastPathDeclined):
        list(columns.parse_columns(path, split="wow_dev"))


def test_a_file_the_fast_path_declines_is_cached_by_the_record_path(tmp_path: Path) -> None:
    """As the loader builds a cache: the fast path first, the record path from the start when it declines."""
    from utils import _cache
    from utils.datasets.begin import columns, parser

    path = tmp_path / "begin_dev_wow.tsv"
    builds = iter(range(10))

    def cached(*lines: str) -> list[utils.Dialogue]:
        path.write_text("\r\n".join(lines), encoding="utf-8")
        key = f"{next(builds):024x}"  # a new entry for each file
        tables = _cache.load_or_build(tmp_path / "cache", key, lambda: parser.parse(path, split="wow_dev"),
                                      fast_build=lambda: columns.parse_columns(path, split="wow_dev"),
                                      compress_beyond=0)
        return _cache.rebuild_dialogues(tables, 0, tables.dialogues.num_rows)

    rows = cached(HEADER + "\textra", ROW + "\tmore", "", ROW + "\t")
    assert [row.meta["extra_columns"] for row in rows] == [{"extra": "more"}, {"extra": ""}]
    assert [row.meta["line"] for row in rows] == [2, 4]
    assert cached(HEADER, ROW, "", ROW) == list(parser.parse(path, split="wow_dev"))
    with pytest.raises(utils.DataError, match="unknown BEGIN label"):
        cached(HEADER, ROW, ROW.replace("Fully attributable", "Maybe"))


@pytest.mark.filterwarnings("ignore:.*using it as a user copy")
def test_a_loaded_split_s_rows_are_remembered_until_its_file_changes(data_dir: Path) -> None:
    """response_frame remembers the rows of a loaded split by its file (issue 50, item 9): the same frame
    as read afresh, a list of dialogues never remembered, and a changed file read again."""
    from utils.datasets.begin import stats

    path = data_dir / "begin/cmu-dog/begin_test_cmu.tsv"  # no checksum to match: any copy loads
    path.parent.mkdir(parents=True)
    header = "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label"
    row = "t5\tcmu\tThe film is from 1999.\tWhen?\tIt is from 1999.\tFully attributable"
    path.write_text("\r\n".join([header, row, row, ""]), encoding="utf-8")
    first = stats.response_frame({"cmu_test": utils.load("begin", "cmu_test")})
    again = stats.response_frame({"cmu_test": utils.load("begin", "cmu_test")})
    pd.testing.assert_frame_equal(first, again)
    assert any(key[0] == "cmu_test" for key in stats._REMEMBERED_ROWS)
    again.loc[0, "response"] = "changed by the caller"
    pd.testing.assert_frame_equal(stats.response_frame({"cmu_test": utils.load("begin", "cmu_test")}), first)
    listed = list(utils.load("begin", "cmu_test"))
    pd.testing.assert_frame_equal(stats.response_frame({"cmu_test": listed}), first)
    assert stats._rows_key("cmu_test", listed) is None
    path.write_text("\r\n".join([header, row, ""]), encoding="utf-8")
    assert len(stats.response_frame({"cmu_test": utils.load("begin", "cmu_test")})) == 1


def _same_tables(path: Path, split: str = "wow_dev") -> None:
    """The fast path's tables and raw texts equal the record path's, row for row."""
    from utils import _cache
    from utils.datasets.begin import columns, parser

    fast = _cache.build_in_memory(columns.parse_columns(path, split=split))
    records = _cache.build_in_memory(parser.parse(path, split=split))
    for name in ("dialogues", "turns", "evidence", "passages"):
        assert getattr(fast, name).equals(getattr(records, name)), name
    assert fast.raw.column().equals(records.raw.column())


@pytest.mark.parametrize(
    "text",
    [
        "\r\n".join([HEADER, ROW, ROW]),  # no line end after the last row, as published
        "\r\n".join([HEADER, ROW, ROW, ""]),  # one after it
        "\n".join([HEADER, ROW, ROW.replace("t5", "gpt2"), ""]),  # LF line ends
        "\r\n".join([HEADER, ROW.replace("Tell me.", ""), ROW.replace("The lamp was lit in 1871.", "")]),
        "\r\n".join([HEADER, ROW.replace("It was lit in 1871.", ""), ROW.replace("Fully attributable", "Generic")]),
        "\r\n".join([HEADER, ROW.replace("Tell me.", '"Tell" me "\\n" é ☃ \x7f'), ROW]),  # quotes, escapes, non-ASCII
        "\r\n".join([" model_name \tdata_source\tknowledge\tmessage\tresponse\tbegin_label ", ROW]),
        "\r\n".join([HEADER, *(ROW.replace("1871", str(year)) for year in range(1800, 1900)), ROW]),
        HEADER + "\r\n",  # a header and no row
        "\r\n".join([HEADER, ROW.replace("Tell me.", " Tell me. "), ROW.replace("Tell me.", "\u3000\x85x\x1c")]),
    ],
    ids=["published", "final line end", "LF", "no message or knowledge", "no response", "odd text", "spaced header",
         "repeated knowledge", "header only", "cells starting with whitespace"],
)
def test_the_fast_path_builds_the_record_path_s_tables(tmp_path: Path, text: str) -> None:
    path = tmp_path / "begin_dev_wow.tsv"
    path.write_bytes(text.encode("utf-8"))
    _same_tables(path)


def test_the_fast_path_numbers_passages_across_its_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from utils.datasets.begin import columns

    monkeypatch.setattr(columns, "_COLUMN_BATCH", 3)
    rows = [ROW.replace("1871", str(1871 + number % 4)) for number in range(11)]
    path = tmp_path / "begin_dev_wow.tsv"
    path.write_text("\r\n".join([HEADER, *rows, ROW.replace("The lamp was lit in 1871.", "")]), encoding="utf-8")
    assert len(list(columns.parse_columns(path, split="wow_dev"))) == 4
    _same_tables(path)


@pytest.mark.parametrize(
    "text",
    [
        "\r\n".join([HEADER, ROW, "", ROW]),  # an empty line: parse skips it, and its line numbers count it
        "\r\n".join([HEADER, ROW.replace("Tell me.", "Tell\rme.")]),  # a carriage return inside a line
        "\r\n".join([HEADER, ROW.replace("Tell me.", "Tell\0me.")]),  # a NUL
        "\ufeff" + "\r\n".join([HEADER, ROW]),  # a byte order mark
        "\r\n".join([HEADER, ROW.replace("Tell me.", " \u3000 ")]),  # a message of whitespace only
        "\r\n".join([HEADER, ROW.replace("The lamp was lit in 1871.", "\x1c")]),  # knowledge str.strip() empties
        "\r\n".join([HEADER, ROW.replace("wow", "\u2003", 1)]),  # a source of whitespace only
        "\r\n".join([HEADER, ROW.replace("Fully attributable", "Fully attributable ")]),  # a label with a space
        "\r\n".join([HEADER, ROW.replace("Tell me.", "x" * 131_073)]),  # beyond csv's field size limit
    ],
    ids=["empty line", "lone CR", "NUL", "BOM", "blank message", "blank knowledge", "blank source", "label space",
         "field limit"],
)
def test_the_fast_path_declines_what_csv_reader_reads_otherwise(tmp_path: Path, text: str) -> None:
    """Declined, and the loader's route (fast path first, record path from the start) gives parse's
    records or parse's error."""
    from utils import _cache
    from utils.datasets.begin import columns, parser
    from utils.formats import FastPathDeclined

    path = tmp_path / "begin_dev_wow.tsv"
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(FastPathDeclined):
        list(columns.parse_columns(path, split="wow_dev"))
    try:
        expected: list[utils.Dialogue] | str = list(parser.parse(path, split="wow_dev"))
    except utils.DataError as error:
        expected = str(error)
    try:
        tables = _cache.parsed_in_memory(lambda: parser.parse(path, split="wow_dev"),
                                         lambda: columns.parse_columns(path, split="wow_dev"))
        found: list[utils.Dialogue] | str = _cache.rebuild_dialogues(tables, 0, tables.dialogues.num_rows)
    except utils.DataError as error:
        found = str(error)
    assert found == expected


def test_the_whitespace_the_fast_path_knows_is_what_str_strip_removes() -> None:
    import sys

    from utils.datasets.begin import columns

    assert "".join(chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace()) == columns.WHITESPACE
