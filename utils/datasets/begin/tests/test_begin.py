"""BEGIN: the TSV parser, its errors, the declaration, the critics and the real files."""

from __future__ import annotations

import csv
import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import utils
from conftest import REPO, require_real_file
from utils.datasets.begin import BEGIN, REVISION, baselines, parser, render, stats
from utils.datasets.begin.exercises import check_feature_auc
from utils.errors import DataError
from utils.loading import parse_file
from utils.records import SEEKER, WIZARD
from utils.teaching.exercises import graded

HEADER = "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label"
#: split -> (relative path, rows) of the real files on this machine (PROVENANCE.md)
REAL = {
    "wow_dev": ("begin/wow/begin_dev_wow.tsv", 430),
    "wow_test": ("begin/wow/begin_test_wow.tsv", 3607),
    "cmu_dev": ("begin/cmu-dog/begin_dev_cmu.tsv", 416),
    "tc_dev": ("begin/topicalchat/begin_dev_tc.tsv", 383),
}


def _write(tmp_path: Path, *rows: str, header: str = HEADER, raw: bytes | None = None) -> Path:
    path = tmp_path / "begin_dev_wow.tsv"
    path.write_bytes(raw if raw is not None else "\r\n".join([header, *rows]).encode("utf-8"))
    return path


def _row(label: str = "Fully attributable", response: str = "Quillmore's lamp was first lit in 1871.") -> str:
    knowledge = "The lamp on Quillmore was first lit in 1871."
    return "\t".join(["t5", "wow", knowledge, "Tell me about it.", response, label])


def _parse(path: Path) -> list[utils.Dialogue]:
    return list(parse_file("begin", path, "wow_dev"))


# -- the parser ---------------------------------------------------------------------------------------


def test_row_maps_to_message_and_labelled_response(tmp_path: Path) -> None:
    (row,) = _parse(_write(tmp_path, _row()))
    assert row.id == "wow_dev-0" and row.dataset == "begin"
    assert [t.role for t in row.turns] == [SEEKER, WIZARD]
    response = row.turns[1]
    assert response.speaker == "t5" and response.labels == {"BEGIN": ["Fully attributable"]}
    assert [(e.text, e.selected) for e in response.evidence] == [("The lamp on Quillmore was first lit in 1871.", True)]
    assert row.meta == {"row": 0, "line": 2, "model": "t5", "source": "wow", "label": "Fully attributable"}
    assert parser.label(row) == "Fully attributable" and parser.message(row) == "Tell me about it."


def test_quotes_are_literal_characters(tmp_path: Path) -> None:
    # The published files never quote: a field may start with a double quote and end without one.
    rows = [_row(response='"Quoted start and a tab-free field'), _row(response='He said "yes" twice')]
    parsed = _parse(_write(tmp_path, *rows))
    assert [r.turns[1].text for r in parsed] == ['"Quoted start and a tab-free field', 'He said "yes" twice']


def test_empty_message_keeps_the_row_and_says_so(tmp_path: Path) -> None:
    row = "\t".join(["ctrl", "cmu", "A plot.", "", "it is funny", "Generic"])
    (parsed,) = _parse(_write(tmp_path, row))
    assert [t.role for t in parsed.turns] == [WIZARD] and parsed.meta["message_missing"] is True


def test_line_ends_and_a_final_line_end_do_not_matter(tmp_path: Path) -> None:
    text = "\n".join([HEADER, _row(), _row("Generic")]) + "\n"
    parsed = _parse(_write(tmp_path, raw=text.encode("utf-8")))
    assert [p.meta["line"] for p in parsed] == [2, 3]


@pytest.mark.parametrize(
    ("rows", "header", "record", "field", "reason"),
    [
        ([_row() + "\textra"], HEADER, "line 2", "column 7", "too many"),
        (["t5\twow\tknowledge\tmessage\tresponse"], HEADER, "line 2", "column 6 (begin_label)", "too few"),
        ([_row()], HEADER.replace("\tresponse", ""), "line 1 (header)", "response", "no column 'response'"),
        ([_row("fully attributable")], HEADER, "line 2", "column 6 (begin_label)", "unknown BEGIN label"),
        ([_row(), _row("")], HEADER, "line 3", "column 6 (begin_label)", "empty"),
        (["\twow\tk\tm\tr\tGeneric"], HEADER, "line 2", "column 1 (model_name)", "empty"),
    ],
)
def test_bad_rows_name_file_line_and_column(
    tmp_path: Path, rows: list[str], header: str, record: str, field: str, reason: str
) -> None:
    path = _write(tmp_path, *rows, header=header)
    with pytest.raises(DataError) as caught:
        _parse(path)
    error = caught.value
    assert (error.path, error.record, error.field) == (str(path), record, field)
    assert reason in error.reason and str(path) in str(error)


def test_invalid_utf8_and_stray_carriage_return_name_the_line(tmp_path: Path) -> None:
    bad = (HEADER + "\r\n" + _row()).encode("utf-8") + b"\r\n" + _row().encode("utf-8").replace(b"1871", b"\xff871")
    with pytest.raises(DataError, match="invalid UTF-8") as caught:
        _parse(_write(tmp_path, raw=bad))
    assert caught.value.record == "line 3"
    stray = (HEADER + "\r\n" + _row().replace("lamp", "la\rmp")).encode("utf-8")
    with pytest.raises(DataError) as caught:
        _parse(_write(tmp_path, raw=stray))
    assert caught.value.record.startswith("line ")


def test_empty_file_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="empty"):
        _parse(_write(tmp_path, raw=b""))


def test_renderer_escapes_dataset_text(tmp_path: Path) -> None:
    (row,) = _parse(_write(tmp_path, _row(response="<script>alert(1)</script> lit in 1871")))
    html = str(render.render(row))
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_demo_files_are_the_published_layout(demo_dir: Path) -> None:
    for split, (item,) in BEGIN.splits.items():
        path = demo_dir / item.path
        raw = path.read_bytes()
        assert raw.startswith(HEADER.encode()) and b"\r\n" in raw and not raw.endswith(b"\n"), split
        parsed = list(parse_file("begin", path, split))
        assert {p.meta["label"] for p in parsed} == set(parser.LABELS), split


# -- the declaration ------------------------------------------------------------------------------------


def test_declaration_points_at_the_pinned_commit() -> None:
    assert set(BEGIN.splits) == {"wow_dev", "wow_test", "cmu_dev", "cmu_test", "tc_dev", "tc_test"}
    for split, (item,) in BEGIN.splits.items():
        assert item.url == f"https://raw.githubusercontent.com/google/BEGIN-dataset/{REVISION}/" + item.path[6:]
        assert (item.sha256 is None) == (split in ("cmu_test", "tc_test"))
    assert BEGIN.splits["wow_test"][0].size == 1241097
    assert BEGIN.splits["wow_test"][0].sha256.startswith("d5c106a42042c3ab")


# -- the real files -------------------------------------------------------------------------------------


def _independent_counts(path: Path) -> tuple[int, Counter[str]]:
    """Rows and labels counted with the csv module alone (no atlas code)."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return len(rows), Counter(row["begin_label"] for row in rows)


@pytest.mark.realdata
def test_wow_test_loads_verified(real_data_dir: Path) -> None:
    path = require_real_file(real_data_dir, "begin/wow/begin_test_wow.tsv")
    loaded = utils.load("begin", "wow_test")
    assert len(loaded) == 3607
    assert loaded.provenance.is_full and loaded.provenance.checksum == "verified"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == BEGIN.splits["wow_test"][0].sha256


@pytest.mark.realdata
@pytest.mark.parametrize("split", sorted(REAL))
def test_real_label_counts_match_the_csv_module(real_data_dir: Path, split: str) -> None:
    relative, rows = REAL[split]
    path = require_real_file(real_data_dir, relative)
    count, labels = _independent_counts(path)
    loaded = utils.load("begin", split)
    assert len(loaded) == count == rows
    assert Counter(d.meta["label"] for d in loaded) == labels
    assert Counter(label for d in loaded for t in d.turns for label in t.labels.get("BEGIN", [])) == labels
    assert loaded.provenance.checksum == "verified"


# -- the critics -----------------------------------------------------------------------------------------


def _examples() -> pd.DataFrame:
    knowledge = "the zephyr lighthouse was lit in 1871 and guided ships past the sorrel reef"
    responses = [
        ("the zephyr lighthouse was lit in 1871", 0),
        ("it guided ships past the sorrel reef", 0),
        ("since 1871 its lamp has warned sailors", 0),
        ("i climbed it with my grandmother last summer", 1),
        ("the zephyr lighthouse was lit in 1901 by a whaler", 1),
        ("my favourite colour is green", 1),
    ]
    return pd.DataFrame(
        {"response": [r for r, _ in responses], "knowledge": knowledge, "message": "",
         "hallucinated": [h for _, h in responses], "split": "wow_dev", "model": "t5"}
    )


def test_rank_auc_equals_sklearn() -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=200)
    scores = np.round(rng.random(200), 1)  # many ties
    scored = baselines.Scored(labels, scores, (scores > 0.5).astype(int))
    value, low, high = baselines.bootstrap_intervals(scored, resamples=200)["ROC AUC"]
    assert value == pytest.approx(roc_auc_score(labels, scores))
    assert low < value < high


def test_bootstrap_is_seeded_and_paired_difference_of_a_critic_with_itself_is_zero() -> None:
    scored = baselines.Scored(np.array([0, 1, 0, 1, 1]), np.array([0.1, 0.9, 0.4, 0.3, 0.8]), np.array([0, 1, 0, 0, 1]))
    assert baselines.bootstrap_intervals(scored) == baselines.bootstrap_intervals(scored)
    assert all(v == (0.0, 0.0, 0.0) for v in baselines.paired_difference(scored, scored).values())


def test_critic_examples_leave_generic_out() -> None:
    rows = pd.DataFrame({"label": ["Fully attributable", "Generic", "Not fully attributable"], "response": "x",
                         "knowledge": "y"})
    examples = baselines.critic_examples(rows)
    assert list(examples["hallucinated"]) == [0, 1]


def test_features_and_critics_on_a_small_set() -> None:
    examples = _examples()
    frame = baselines.feature_frame(examples)
    assert list(frame.columns) == list(baselines.FEATURES)
    assert frame.loc[0, "unigram_precision"] == 1.0 and frame.loc[0, "copied_span"] == 1.0
    assert frame.loc[4, "novel_numbers"] == 1.0 and frame.loc[3, "first_person"] > 0
    critics = baselines.fit_critics(examples, fitted_on="wow_dev")
    evaluation = baselines.evaluation_frame(critics, examples, by=("split",), resamples=50)
    assert set(evaluation["critic"]) == {baselines.LEXICAL, baselines.FEATURE}
    assert (evaluation["responses"] == 6).all()
    with pytest.raises(ValueError, match="one class"):
        baselines.FeatureCritic.fit(examples[examples["hallucinated"] == 1], fitted_on="x")


def test_feature_auc_checker_accepts_the_answer_and_explains_the_flipped_score(demo_dir: Path, capsys) -> None:
    dev = utils.load("begin", "wow_dev")
    examples = baselines.critic_examples(stats.response_frame({"wow_dev": dev}))
    precision = baselines.feature_frame(examples)["bigram_precision"]
    right = roc_auc_score(examples["hallucinated"], 1 - precision)
    check_feature_auc(right, dev, "bigram_precision")
    assert capsys.readouterr().out.startswith("Correct")
    if right != 0.5:
        check_feature_auc(1 - right, dev, "bigram_precision")
        assert "one minus" in capsys.readouterr().out
        with pytest.raises(AssertionError, match="one minus"):
            graded(check_feature_auc, 1 - right, dev, "bigram_precision")


def test_a_missing_test_file_falls_back_to_the_demo_sample_loudly(data_dir: Path) -> None:
    # offline, no file: the loader warns and loads the demo sample, as for every dataset
    with pytest.warns(utils.DemoDataWarning, match="begin/cmu_test"):
        loaded = utils.load("begin", "cmu_test")
    assert loaded.provenance.is_demo and not loaded.provenance.is_full
    assert {d.meta["source"] for d in loaded} == {"cmu"}


def test_quotation_is_escaped_and_links_only_http() -> None:
    html = str(render.quote_html('a <b>bold</b> "claim"', "Source & co", "javascript:alert(1)"))
    assert "<b>" not in html and "&lt;b&gt;" in html and "href" not in html
    assert 'href="https://arxiv.org/abs/2204.10757"' in str(render.quote_html("q", "s", "https://arxiv.org/abs/2204.10757"))


def test_the_begin_chapter_formats_its_tables_in_the_package_one_call_per_cell() -> None:
    """A reader of the chapter sees what is computed, not ten lines of column labels and captions: the
    formatting lives in utils/datasets/begin/, and no code cell builds a table or its caption itself."""
    import json

    notebook = json.loads((REPO / "notebooks" / "begin.ipynb").read_text("utf-8"))
    formatting = [
        "".join(cell["source"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
        and ("tables.table(" in "".join(cell["source"]) or "caption=figures.caption(" in "".join(cell["source"]))
    ]
    assert not formatting, formatting


def test_a_metric_without_a_value_or_an_interval_shows_a_dash_not_empty_brackets() -> None:
    frame = pd.DataFrame(
        {"F1": [0.5, float("nan"), 0.25], "F1 low": [0.25, float("nan"), float("nan")], "F1 high": [0.75, 0.5, 0.5]}
    )
    assert baselines.with_interval(frame, "F1").tolist() == ["0.50 (0.25–0.75)", "–", "0.25"]
