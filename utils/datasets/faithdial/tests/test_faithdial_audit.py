"""The audit CSV parser: label normalisation, nothing dropped silently, and the real audit files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

import utils
from conftest import require_real_file
from utils.datasets.faithdial import audit_parser as audit
from utils.datasets.faithdial.audit_parser import begin_class, normalise_labels
from utils.errors import DataError
from utils.sources import split_names

AUDIT_SPLITS = split_names("faithdial_audit")


@pytest.mark.parametrize(
    ("cell", "scheme", "expected"),
    [
        ("Hallucination", "BEGIN", ["Hallucination"]),
        ("Partial Hallucination", "BEGIN", ["Partial Hallucination"]),
        ("  partial   HALLUCINATION ", "BEGIN", ["Partial Hallucination"]),
        ("entailment,hallucination", "BEGIN", ["Entailment", "Hallucination"]),
        ("entailment. uncooperative", "BEGIN", ["Entailment", "Uncooperative"]),
        ("entailmentt,uncooperative", "BEGIN", ["Entailment", "Uncooperative"]),
        ("hallucinated", "BEGIN", ["Hallucination"]),
        ("", "BEGIN", []),
        ("confirmation,\nacknowledgment,\ndisclosure", "VRM", ["Confirmation", "Acknowledgment", "Disclosure"]),
        ("\nedification", "VRM", ["Edification"]),
        ("Disclosure,Ack.", "VRM", ["Disclosure", "Acknowledgment"]),
        (",ack.,confirmation", "VRM", ["Acknowledgment", "Confirmation"]),
        ("disclosure question,ack.", "VRM", ["Disclosure", "Question", "Acknowledgment"]),
        ("question,acknowledgment. disclosure", "VRM", ["Question", "Acknowledgment", "Disclosure"]),
        ("e,d,i,f,i,c,a,t,i,o,n", "VRM", ["Edification"]),
        ("edification,edification", "VRM", ["Edification"]),
        ("advice,disclsoure", "VRM", ["Advisement", "Disclosure"]),
        ("Advisement", "VRM", ["Advisement"]),
        ("question,", "VRM", ["Question"]),
    ],
)
def test_normalise_labels(cell: str, scheme: str, expected: list[str]) -> None:
    labels, unknown, _ = normalise_labels(cell, scheme)
    assert labels == expected
    assert unknown == []


def test_unknown_label_is_reported_not_hidden() -> None:
    labels, unknown, notes = normalise_labels("edification,entailment,confirmation", "VRM")
    assert labels == ["Edification", "Confirmation"]
    assert unknown == ["entailment"]
    assert any("entailment" in note for note in notes)


def test_notes_say_what_changed() -> None:
    _, _, notes = normalise_labels("disclsoure,ack.", "VRM")
    assert notes == ["spelling 'disclsoure' -> 'Disclosure'"]
    assert normalise_labels("Disclosure,Edification", "VRM")[2] == []


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["Partial Hallucination"], "Partial Hallucination"),
        (["Entailment", "Hallucination"], "Partial Hallucination"),
        (["Hallucination"], "Hallucination"),
        (["Entailment", "Uncooperative"], "Uncooperative"),
        (["Generic"], "Generic"),
        (["Entailment"], "Entailment"),
        ([], None),
    ],
)
def test_begin_class(labels: list[str], expected: str | None) -> None:
    assert begin_class(labels) == expected


def _write(tmp_path: Path, text: str, name: str = "audit.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_one_dialogue_per_row_nothing_dropped(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "evidence,history,response,BEGIN,VRM\r\n"
        'K1,H1,R1,Hallucination,"disclosure,\nedification"\r\n'
        ",,,,\r\n"
        "K3,H3,R3,,\r\n"
        "K4,,R4,Generic,\r\n",
    )
    rows = list(audit.parse(path, split="gold_wow"))
    assert [d.meta["status"] for d in rows] == ["labelled", "blank row", "no BEGIN label", "labelled"]
    assert [d.meta["row"] for d in rows] == [0, 1, 2, 3]
    first = rows[0]
    assert [t.role for t in first.turns] == ["seeker", "wizard"]
    assert first.turns[1].labels == {"BEGIN": ["Hallucination"], "VRM": ["Disclosure", "Edification"]}
    assert first.turns[1].raw["vrm_raw"] == "disclosure,\nedification"
    assert first.turns[1].selected_evidence[0].text == "K1"
    assert (first.meta["system"], first.meta["benchmark"]) == ("gold", "wow")
    assert [t.role for t in rows[3].turns] == ["wizard"]  # empty history: no seeker turn
    report = audit.audit_report(rows)
    assert report.loc["gold_wow", "rows"] == 4
    assert report.loc["gold_wow", "labelled"] == 2
    assert report.loc["gold_wow", "blank row"] == 1
    assert report.loc["gold_wow", "no BEGIN label"] == 1
    assert report.loc["gold_wow", "labelled, no VRM label"] == 1


def test_model_columns(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'knowledge,history,doha,begin_label,vrm_label\r\nK,H,,"entailment,uncooperative",question\r\n',
        "doha_processed_cmu.csv",
    )
    (row,) = audit.parse(path, split="doha_cmu")
    wizard = row.turns[-1]
    assert wizard.speaker == "doha"
    assert wizard.labels["BEGIN"] == ["Entailment", "Uncooperative"]
    assert row.meta["status"] == "labelled" and row.meta["response_missing"] is True
    assert audit.audit_report([row]).loc["doha_cmu", "labelled, empty response"] == 1


def test_missing_column_is_a_data_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "evidence,history,response,VRM\r\nK,H,R,Disclosure\r\n")
    with pytest.raises(DataError) as info:
        list(audit.parse(path, split="gold_wow"))
    assert info.value.path == str(path)
    assert (info.value.record, info.value.field) == ("header", "BEGIN")


def test_bad_csv_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(b"evidence,history,response,BEGIN,VRM\r\nK,H,R\xff,Generic,Question\r\n")
    with pytest.raises(DataError) as info:
        list(audit.parse(path, split="gold_wow"))
    assert "UTF-8" in str(info.value) and info.value.path == str(path)
    extra = _write(tmp_path, "evidence,history,response,BEGIN,VRM\r\nK,H,R,Generic,Question,extra\r\n", "x.csv")
    with pytest.raises(DataError) as info:
        list(audit.parse(extra, split="gold_wow"))
    assert info.value.record == "line 2"


@pytest.mark.parametrize("split", AUDIT_SPLITS)
def test_demo_audit_files_load(split: str) -> None:
    loaded = utils.load("faithdial_audit", split)
    assert loaded.provenance.is_demo
    assert len(loaded) >= 4
    for dialogue in loaded:
        for turn in dialogue.turns:
            assert set(turn.labels.get("BEGIN", [])) <= set(audit.BEGIN_CLASSES)
            assert set(turn.labels.get("VRM", [])) <= set(audit.VRM_CLASSES)


# -- the real audit files (skipped where absent) -------------------------------------------------


@pytest.mark.realdata
def test_gold_wow_hallucination_share(real_data_dir: Path) -> None:
    """The paper's ">60%" of hallucinated WoW responses, from the 200 labelled gold responses."""
    require_real_file(real_data_dir, "faithdial-audit/gold/wow.csv")
    loaded = utils.load("faithdial_audit", "gold_wow")
    assert loaded.provenance.is_full
    labelled = [d for d in loaded if d.meta["status"] == "labelled"]
    assert len(labelled) == 200
    classes = Counter(d.meta["begin_class"] for d in labelled)
    share = (classes["Hallucination"] + classes["Partial Hallucination"]) / len(labelled)
    reported = utils.reported("faithdial_audit", "hallucination_share_lower_bound", "gold_wow")["value"].iloc[0]
    assert reported == 60  # percent, a lower bound ("more than 60%")
    assert 100 * share > reported
    # as read from the file: 39 Hallucination + 83 Partial Hallucination of 200
    assert (classes["Hallucination"], classes["Partial Hallucination"]) == (39, 83)


@pytest.mark.realdata
def test_real_audit_files_every_row_accounted(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "faithdial-audit/gold/topical.csv")
    loaded = {split: utils.load("faithdial_audit", split) for split in AUDIT_SPLITS}
    report = audit.audit_report(d for split in loaded.values() for d in split)
    outcomes = report[["labelled", "blank row", "no BEGIN label"]].sum(axis=1)
    assert (outcomes == report["rows"]).all()
    assert report.loc["gold_topical", "blank row"] == 789
    assert report.loc["gold_topical", "no BEGIN label"] == 3
    for split in loaded.values():
        for dialogue in split:
            for turn in dialogue.turns:
                assert set(turn.labels.get("BEGIN", [])) <= set(audit.BEGIN_CLASSES)
                assert set(turn.labels.get("VRM", [])) <= set(audit.VRM_CLASSES)


# -- the audit's second finding: models amplify hallucination --------------------------------------


def _shares(hallucinated: dict[str, float]) -> pd.DataFrame:
    frame = pd.DataFrame({"hallucinated": hallucinated})
    frame.insert(0, "n", 200)
    return frame


def test_the_amplification_sentence_is_computed_from_the_shares_not_written_in() -> None:
    from utils.datasets.faithdial import stats

    shares = _shares({"gold_wow": 0.5, "gold_cmu": 0.5, "gpt2_wow": 0.7, "gpt2_cmu": 0.6,
                      "ctrl_wow": 0.3, "ctrl_cmu": 0.55})
    frame = stats.amplification_frame(shares)
    assert frame[["benchmark", "model"]].values.tolist() == [["wow", "gpt2"], ["wow", "ctrl"],
                                                              ["cmu", "gpt2"], ["cmu", "ctrl"]]
    assert frame["difference"].round(3).tolist() == [0.2, -0.2, 0.1, 0.05]
    finding = stats.amplification_finding(frame)
    assert finding == ("GPT2 hallucinates more than the gold responses on both benchmarks; "
                       "CTRL more on CMU-DoG (+5.0 points), less on WoW (-20.0 points).")
    # the same code says the opposite when the numbers do: nothing in it is fixed
    reversed_shares = _shares({"gold_wow": 0.8, "gpt2_wow": 0.7})
    assert stats.amplification_finding(stats.amplification_frame(reversed_shares)) == (
        "Compared with the gold responses of the same benchmark, GPT2 less on WoW (-10.0 points)."
    )


@pytest.mark.realdata
def test_on_the_real_audit_gpt2_and_doha_hallucinate_more_than_gold_everywhere_ctrl_less_on_wow(
    real_data_dir: Path,
) -> None:
    from utils.datasets.faithdial import stats

    require_real_file(real_data_dir, "faithdial-audit/gold/topical.csv")
    loaded = {split: utils.load("faithdial_audit", split) for split in AUDIT_SPLITS}
    frame = stats.amplification_frame(stats.audit_begin_frame(stats.audit_rows(loaded)))
    above = {(row.model, row.benchmark): row.difference > 0 for row in frame.itertuples()}
    assert len(above) == 9
    assert all(above[(model, benchmark)] for model in ("gpt2", "doha") for benchmark in ("wow", "cmu", "topical"))
    assert not above[("ctrl", "wow")]
    # gold WoW: 122 of 200 hallucinated; CTRL on WoW 72 of 200 (counted from the files)
    wow = frame.set_index(["model", "benchmark"]).loc[("ctrl", "wow")]
    assert (round(wow["gold"] * 200), round(wow["model share"] * 200)) == (122, 72)
    assert stats.amplification_finding(frame).startswith(
        "GPT2 and DoHA hallucinate more than the gold responses on all three benchmarks; CTRL more on CMU-DoG"
    )


def test_a_history_written_as_an_empty_list_gives_no_seeker_turn(tmp_path: Path) -> None:
    """25 rows of the CMU-DoG and TopicalChat files write "no earlier turn" as ``[]``: no turn of the row
    (and so no viewer row, no rendering) shows the list; the cell is kept in the row's meta."""
    from utils.book.viewer_fields import first_turn
    from utils.datasets.faithdial.render import render

    path = _write(tmp_path, "evidence,history,response,BEGIN,VRM\r\nK1,[],I love cats.,Hallucination,disclosure\r\n")
    (row,) = audit.parse(path, split="gold_topical")
    assert [turn.role for turn in row.turns] == ["wizard"]
    assert row.meta["history_as_written"] == "[]"
    assert "[]" not in str(first_turn(row))
    assert "No earlier turn" in str(render(row)) and "[]" not in str(render(row))


def test_the_viewer_s_turns_carry_one_begin_class_for_gold_and_model_files() -> None:
    """Issue 48: the gold file's "Partial Hallucination" and the model files' list Entailment, Hallucination
    are one value of the viewer's normalised column, next to the BEGIN list as written (kept)."""
    from utils.book.viewer_files import SplitRows
    from utils.datasets.faithdial.viewer import BEGIN_CLASS, COLUMN_NOTES, rows

    turns = pd.DataFrame({"BEGIN": [["Partial Hallucination"], ["Entailment", "Hallucination"], [], None,
                                    ["Entailment", "Uncooperative"], ["Generic"]], "VRM": [None] * 6})
    found = rows([], SplitRows(frames={"turns": turns}, id_columns={"turns": "id"}))
    frame = found.frames["turns"]
    assert list(frame.columns) == ["BEGIN", BEGIN_CLASS, "VRM"]
    assert frame[BEGIN_CLASS].tolist() == ["Partial Hallucination", "Partial Hallucination", None, None,
                                           "Uncooperative", "Generic"]
    assert frame["BEGIN"].tolist()[1] == ["Entailment", "Hallucination"]  # the original, as written
    assert found.kinds["turns"][BEGIN_CLASS] == "label"
    assert "Partial Hallucination" in COLUMN_NOTES[BEGIN_CLASS]
