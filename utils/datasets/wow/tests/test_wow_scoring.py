"""KILT WoW through ``utils.score`` / ``atlas score``: KILT's definitions pinned on hand-made examples,
on values computed once with KILT's own scorer, and the coverage rules."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

import utils
import utils.scoring
from conftest import load_written
from utils.cli import main
from utils.datasets.wow.scoring import f1_kilt, f1_parlai, r_precision, recall_at_k
from utils.errors import DataError
from utils.scoring import CoverageError

PAIR = ("I don't know, it's the U.S. state's capital.", "It's the capital of the U.S. state, I don't know which.")

GOLD = [
    ("d1_0", PAIR[1], ["10", "20"]),
    ("d1_1", "Paris is in France.", ["30"]),
    ("d2_0", "The cat sat.", ["40"]),
    ("d2_1", "Dogs bark loudly.", ["50"]),
]
PREDICTED = [
    ("d1_0", PAIR[0], ["20", "10"]),  # both gold pages: R-precision 1, F1 0.75 (KILT) / 0.870 (ParlAI)
    ("d1_1", "paris is in france", ["31", "30"]),  # EM after normalising, not exact; first page wrong: R-prec 0
    ("d2_0", "  The cat sat.  ", ["40"]),  # exact once stripped
    ("d2_1", "", ["50"]),  # an empty answer: 0 on every downstream metric, still counted
]
#: KILT's eval_downstream.evaluate (facebookresearch/KILT at 2664322, run once outside the project) on
#: GOLD and PREDICTED: {"kilt": {"KILT-accuracy": 0.25, "KILT-em": 0.25, "KILT-f1": 0.4375,
#: "KILT-rougel": 0.39999999751250004}, "downstream": {"accuracy": 0.25, "em": 0.5, "f1": 0.6875,
#: "rougel": 0.5249999962625}, "retrieval": {"Rprec": 0.75, "recall@5": 1.0}}
KILT_ON_HAND_MADE = {
    "accuracy_kilt": 0.25, "em_kilt": 0.5, "f1_kilt": 0.6875, "rougel_kilt": 0.5249999962625,
    "kilt_accuracy": 0.25, "kilt_em": 0.25, "kilt_f1": 0.4375, "kilt_rougel": 0.39999999751250004,
    "rprec_kilt": 0.75, "recall5_kilt": 1.0,
}
#: The same scorer on the KILT dev file perturbed by :func:`perturbed` (3,054 examples).
KILT_ON_PERTURBED_DEV = {
    "kilt_accuracy": 0.11984282907662082, "kilt_em": 0.13326784544859202, "kilt_f1": 0.48143271792383113,
    "kilt_rougel": 0.4905616311686582, "accuracy_kilt": 0.17583497053045186, "em_kilt": 0.20006548788474132,
    "f1_kilt": 0.7214965119191915, "rougel_kilt": 0.7357415279768201, "rprec_kilt": 0.6666666666666666,
    "recall5_kilt": 0.6666666666666666,
}


def _gold_text(rows: list[tuple[str, str, list[str]]]) -> str:
    return "".join(
        json.dumps({"id": i, "input": "hello", "output": [{"answer": a, "provenance": [
            {"wikipedia_id": page, "title": f"T{page}"} for page in pages]}]}) + "\n"
        for i, a, pages in rows
    )


def _predictions(path: Path, rows: list[tuple[str, str, list[str]]]) -> Path:
    path.write_text("".join(
        json.dumps({"id": i, "output": [{"answer": a, "provenance": [{"wikipedia_id": p} for p in pages]}]}) + "\n"
        for i, a, pages in rows
    ), encoding="utf-8")
    return path


@pytest.fixture
def hand_made(data_dir: Path) -> Path:
    """GOLD written where the train split's file goes (the dev file's declared size refuses a small one)."""
    load_written("wow_kilt", "train", _gold_text(GOLD), data_dir)
    return data_dir


def test_the_two_normalisers_give_the_measured_f1_of_the_pair() -> None:
    assert f1_kilt(*PAIR) == 0.75  # "U.S." -> "us": 6 of 7 and 9 words shared
    assert f1_parlai(*PAIR) == pytest.approx(20 / 23)  # "U.S." -> "u s": 10 of 11 and 12
    assert round(f1_parlai(*PAIR), 3) == 0.870


def test_r_precision_and_recall_follow_kilt_on_hand_computed_cases() -> None:
    assert r_precision(["a", "b"], [["b", "a"]]) == 1.0
    assert r_precision(["a", "a", "c", "b"], [["a", "b"]]) == 0.5  # repeats dropped, then the first R
    assert r_precision(["x", "a"], [["a"]]) == 0.0
    assert r_precision(["b"], [["a"], ["b"]]) == 1.0  # the best gold output
    assert r_precision([], [["a"]]) == 0.0
    assert recall_at_k(["x", "a", "y", "b"], [["a", "b"]], 5) == 1.0  # the set counts where it completes
    assert recall_at_k(["x1", "x2", "x3", "x4", "a", "b"], [["a", "b"]], 5) == 1.0  # one point per set
    assert recall_at_k(["x1", "x2", "x3", "x4", "x5", "a"], [["a"]], 5) == 0.0
    assert recall_at_k(["a"], [["a"], ["b"]], 5) == 0.5


def test_hand_made_predictions_score_as_kilts_own_scorer(hand_made: Path, tmp_path: Path) -> None:
    scores = utils.score("wow_kilt", "train", _predictions(tmp_path / "p.jsonl", PREDICTED))
    for name, value in KILT_ON_HAND_MADE.items():
        assert scores.value(name) == pytest.approx(value, abs=1e-12), name
    assert scores.value("f1_parlai") == pytest.approx((20 / 23 + 1 + 1 + 0) / 4)
    assert not scores.partial and len(scores.scored_ids) == 4
    by_id = {row["id"]: row for row in scores.rows}
    assert by_id["d1_1"]["em"] == 1.0 and by_id["d1_1"]["accuracy"] == 0.0 and by_id["d1_1"]["kilt_em"] == 0.0


def test_coverage_missing_repeated_and_unknown_ids_are_refused_and_counted(hand_made: Path, tmp_path: Path) -> None:
    missing = _predictions(tmp_path / "missing.jsonl", PREDICTED[:3])
    with pytest.raises(CoverageError, match=r"1 missing id \(d2_1\) of 4 gold ids"):
        utils.score("wow_kilt", "train", missing)
    repeated = _predictions(tmp_path / "repeated.jsonl", [*PREDICTED, PREDICTED[0]])
    with pytest.raises(CoverageError, match=r"1 repeated id \(d1_0\)"):
        utils.score("wow_kilt", "train", repeated, allow_missing=True)  # never allowed: which one to score?
    unknown = _predictions(tmp_path / "unknown.jsonl", [*PREDICTED, ("zz_9", "x", [])])
    with pytest.raises(CoverageError, match=r"1 unknown id \(zz_9\)"):
        utils.score("wow_kilt", "train", unknown)

    partial = utils.score("wow_kilt", "train", missing, allow_missing=True)
    assert partial.partial and partial.scored_ids == ("d1_0", "d1_1", "d2_0")
    assert "PARTIAL: 3 of 4 gold ids scored; 1 missing id (d2_1)" in partial.coverage_note()
    record = partial.record(["atlas", "score"])
    assert record["partial"] == partial.coverage_note()
    assert record["counts"] == {"gold": 4, "scored": 3, "missing": 1, "duplicate": 0, "unknown": 0}
    assert partial.value("em_kilt") == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"id": "d1_0", "output": [{"answer": "x"}, {"answer": "y"}]}', "output"),
        ('{"id": "d1_0", "output": [{"provenance": []}]}', "output[0].answer"),
        ('{"id": "d1_0", "output": [{"answer": 3}]}', "output[0].answer"),
        ('{"id": "d1_0", "output": [{"answer": "x", "provenance": [{"title": "T"}]}]}',
         "output[0].provenance[0].wikipedia_id"),
        ('{"output": [{"answer": "x"}]}', "id"),
    ],
)
def test_a_malformed_line_names_the_file_line_and_field(hand_made: Path, tmp_path: Path, line: str, field: str) -> None:
    path = _predictions(tmp_path / "bad.jsonl", PREDICTED[:1])
    path.write_text(path.read_text() + line + "\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        utils.score("wow_kilt", "train", path)
    assert caught.value.path == str(path) and caught.value.record == "line 2" and caught.value.field == field


def test_truncated_json_names_its_line(hand_made: Path, tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text('{"id": "d1_0", "output": [{"answer": "x"}]}\n{"id": "d1_1", "out', encoding="utf-8")
    with pytest.raises(DataError, match="line 2"):
        utils.score("wow_kilt", "train", path)


#: 30 dialogues of two examples each, for the bootstrap's tests.
MANY = [(f"dialogue{d}_{t}", f"answer number {d} {t} about topic {d}", [str(d)]) for d in range(30) for t in range(2)]
#: A worse file: the first word of each answer; pages only for every third dialogue.
WORSE = [(i, a.split()[0] if int(i[8:].split("_")[0]) % 2 else a, pages if i.endswith("_0") else [])
         for i, a, pages in MANY]


@pytest.fixture
def many(data_dir: Path) -> Path:
    load_written("wow_kilt", "train", _gold_text(MANY), data_dir)
    return data_dir


def test_intervals_are_the_same_under_a_seed_and_differ_under_another(many: Path, tmp_path: Path) -> None:
    path = _predictions(tmp_path / "p.jsonl", WORSE)
    first, again = (utils.score("wow_kilt", "train", path, seed=7) for _ in range(2))
    other = utils.score("wow_kilt", "train", path, seed=8)
    intervals = [(m.low, m.high) for m in first.metrics]
    assert intervals == [(m.low, m.high) for m in again.metrics]
    assert intervals != [(m.low, m.high) for m in other.metrics]
    assert first.record()["bootstrap"] == {"resamples": 1000, "seed": 7, "level": 0.95, "unit": "dialogue"}


def test_paired_comparison_of_a_clearly_better_file_excludes_zero(many: Path, tmp_path: Path) -> None:
    better = _predictions(tmp_path / "better.jsonl", MANY)
    worse = _predictions(tmp_path / "worse.jsonl", WORSE)
    scores = utils.score("wow_kilt", "train", better, compare=worse)
    difference = {item.metric.name: item for item in scores.differences}
    for name in ("f1_kilt", "kilt_f1", "rprec_kilt"):
        assert difference[name].low > 0, name
    assert scores.record()["compare"]["differences"][0]["name"] == "accuracy_kilt"
    same = utils.score("wow_kilt", "train", worse, compare=worse)
    assert all(item.value == item.low == item.high == 0 for item in same.differences)


def test_cli_exit_status_json_record_and_per_example(
    hand_made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = _predictions(tmp_path / "missing.jsonl", PREDICTED[:3])
    assert main(["score", "wow_kilt", "train", str(missing)]) == 2
    assert "1 missing id (d2_1)" in capsys.readouterr().err
    out, per_example = tmp_path / "score.json", tmp_path / "rows.jsonl"
    argv = ["score", "wow_kilt", "train", str(missing), "--allow-missing", "--json", str(out), "--per-example",
            str(per_example), "--resamples", "100"]
    assert main(argv) == 0
    assert "PARTIAL: 3 of 4 gold ids scored" in capsys.readouterr().out
    record = json.loads(out.read_text())
    assert record["partial"].startswith("PARTIAL") and record["bootstrap"]["resamples"] == 100
    assert len(record["data"]["sha256"]) == 64 and record["data"]["kind"] and "warning" not in record["data"]
    assert {m["name"] for m in record["metrics"]} >= {"f1_kilt", "kilt_f1", "f1_parlai", "rprec_kilt"}
    assert all(m["source"] for m in record["metrics"]) and record["atlas_version"] == utils.__version__
    lines = [json.loads(line) for line in per_example.read_text().splitlines()]
    assert lines[0]["partial"].startswith("PARTIAL") and [row["id"] for row in lines[1:]] == ["d1_0", "d1_1", "d2_0"]
    assert main(["score", "wow_kilt", "train", str(tmp_path / "absent.jsonl")]) == 1


def test_the_demo_sample_is_said_loudly_in_the_record(tmp_path: Path) -> None:
    gold = utils.load("wow_kilt", "dev")
    rows = [(d.id, d.turns[-1].text, [e.meta["wikipedia_id"] for e in d.turns[-1].evidence]) for d in gold]
    scores = utils.score("wow_kilt", "dev", _predictions(tmp_path / "p.jsonl", rows))
    assert "DEMO SAMPLE" in scores.record()["data"]["warning"]


# -- real data ------------------------------------------------------------------------------------------


def perturbed(source: Path, out: Path) -> Path:
    """KILT dev with every answer but each fifth cut to its first half of words, and the provenance of
    every third example dropped."""
    with open(source, encoding="utf-8") as lines, open(out, "w", encoding="utf-8") as handle:
        for i, line in enumerate(lines):
            record = json.loads(line)
            words = record["output"][0]["answer"].split()
            answer = " ".join(words if i % 5 == 0 else words[: max(1, len(words) // 2)])
            given = record["output"][0]["provenance"]
            pages = [] if i % 3 == 0 else [{"wikipedia_id": p["wikipedia_id"]} for p in given]
            handle.write(json.dumps({"id": record["id"], "output": [{"answer": answer, "provenance": pages}]}) + "\n")
    return out


@pytest.fixture
def kilt_dev(real_data_dir: Path) -> Path:
    path = real_data_dir / "wow/kilt/wow-dev-kilt.jsonl"
    if not path.is_file():
        pytest.skip("the KILT WoW dev file is not in the data directory")
    return path


def test_kilt_dev_gold_as_predictions_scores_one(kilt_dev: Path, tmp_path: Path) -> None:
    with open(kilt_dev, encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps({"id": r["id"], "output": [r["output"][0]]}) + "\n" for r in records))
    start = time.process_time()
    scores = utils.score("wow_kilt", "dev", path)
    elapsed = time.process_time() - start
    assert len(scores.scored_ids) == 3054
    for name in ("em_kilt", "f1_kilt", "kilt_em", "kilt_f1", "rprec_kilt", "accuracy_kilt"):
        assert scores.value(name) == 1.0, name
    assert elapsed < 10, f"{elapsed:.1f} s of CPU"


def test_perturbed_kilt_dev_scores_as_kilts_own_scorer(kilt_dev: Path, tmp_path: Path) -> None:
    scores = utils.score("wow_kilt", "dev", perturbed(kilt_dev, tmp_path / "perturbed.jsonl"))
    for name, value in KILT_ON_PERTURBED_DEV.items():
        assert scores.value(name) == pytest.approx(value, abs=1e-12), name


# -- ParlAI's wizard examples (the raw split; here the demo sample) --------------------------------------


def _lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_generation_and_selection_on_parlais_wizard_examples(tmp_path: Path) -> None:
    from utils.scoring import tasks_of

    gold = tasks_of("wow")["generation"].gold("test_seen")
    assert gold.ids == ("0:1", "0:3")  # the demo dialogue's two wizard turns, ParlAI's examples
    first, second = (gold.answers[i] for i in gold.ids)
    replies = _lines(tmp_path / "replies.jsonl", [
        {"dialogue": 0, "turn": 1, "text": first["text"]},
        {"dialogue": 0, "turn": 3, "text": second["sentence"]},  # copying the checked sentence
    ])
    scores = utils.score("wow", "test_seen", replies)
    assert scores.value("f1_parlai") == pytest.approx((1 + f1_parlai(second["sentence"], second["text"])) / 2)
    assert scores.value("knowledge_f1_parlai") == pytest.approx((f1_parlai(first["text"], first["sentence"]) + 1) / 2)
    chosen = _lines(tmp_path / "chosen.jsonl", [
        {"dialogue": 0, "turn": 1, "title": first["title"].upper(), "sentence": f"Indeed: {first['sentence']}"},
        {"dialogue": 0, "turn": 3, "title": "no_passages_used", "sentence": "no_passages_used"},
    ])
    selection = utils.score("wow", "test_seen", chosen, task="selection")
    assert (selection.value("title_r1_parlai"), selection.value("passage_r1_parlai")) == (0.5, 0.5)


def test_a_wizard_example_needs_integer_positions(tmp_path: Path) -> None:
    path = _lines(tmp_path / "bad.jsonl", [{"dialogue": "0", "turn": 1, "text": "hi"}])
    with pytest.raises(DataError) as caught:
        utils.score("wow", "test_seen", path)
    assert (caught.value.record, caught.value.field) == ("line 1", "dialogue")


def test_the_chapters_copy_baselines_score_the_same_through_the_command(tmp_path: Path) -> None:
    from utils.datasets.wow import baselines

    split = utils.load("wow", "test_seen")
    _, examples = baselines.knowledge_selection(split)
    reference = baselines.f1_reference_points(examples)
    used = examples[examples["checked_source"] != "no_passages_used"]
    for column, name in (("checked_sentence", "copy_checked_sentence"), ("predicted_text", "copy_tfidf_sentence")):
        path = _lines(tmp_path / f"{column}.jsonl", [
            {"dialogue": int(d), "turn": int(t), "text": text}
            for d, t, text in zip(used["dialogue_index"], used["turn_index"], used[column], strict=True)
        ])
        scores = utils.score("wow", "test_seen", path, allow_missing=len(used) < len(examples))
        assert scores.value("f1_parlai") == pytest.approx(reference[name]), name


def test_rare_words_follow_parlais_calculator_on_its_own_corpus() -> None:
    """ParlAI's RareWordF1Calculator (wizard_of_wikipedia/agents.py) on the sentence its rare-F1 test
    uses: 14 tokens once the articles go, the top half reached at a word seen twice, so words seen once
    are rare and a word the corpus lacks is dropped (``freq_dist.get(w, cutoff) < cutoff``)."""
    import math

    from utils.datasets.wow.scoring import RareWords

    rare = RareWords.of_texts(["he was a man no he was a dragon man or maybe he was just a dragon"])
    assert rare.cutoff == 2
    assert rare.kept("No, maybe Trogdor was just a man.") == ["no", "maybe", "just"]
    assert rare.f1("maybe just", "or maybe he") == pytest.approx(0.5)
    # the reference holds no rare word: ParlAI's F1Metric(0, 0), left out of the mean
    assert math.isnan(rare.f1("trogdor", "he was trogdor"))


def test_rare_word_f1_leaves_out_replies_whose_reference_has_no_rare_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two wizard examples, a reference corpus chosen so that only the first reference holds a rare word:
    the metric is that example's F1 alone, not its mean with a zero."""
    from dataclasses import replace

    from utils.datasets.wow.scoring import RareWords
    from utils.scoring import Scores, choose_task

    task = choose_task("wow", "generation")
    gold = task.gold("test_seen")
    first, second = (gold.answers[i] for i in gold.ids)
    # every word of both references seen often, but for one word of the first, seen once
    common = " ".join([first["text"], second["text"]] * 10)
    rare_word = next(word for word in first["text"].split() if word.isalpha() and len(word) > 3)
    corpus = RareWords.of_texts([common.replace(rare_word, "xx"), rare_word])
    assert corpus.kept(first["text"]) and not corpus.kept(second["text"])
    injected = replace(task, gold=lambda split: replace(gold, context={"rare_words": corpus}))
    replies = _lines(tmp_path / "replies.jsonl", [
        {"dialogue": 0, "turn": 1, "text": first["text"]}, {"dialogue": 0, "turn": 3, "text": "nothing alike"}])
    monkeypatch.setattr("utils.scoring.choose_task", lambda dataset, name: injected)
    scores: Scores = utils.score("wow", "test_seen", replies)
    assert scores.value("rare_word_f1_parlai") == 1.0  # the first alone: its reply is its reference
    rows = {row["id"]: row for row in scores.rows}
    assert rows[gold.ids[0]]["rare_word_f1_parlai"] == 1.0 and math.isnan(rows[gold.ids[1]]["rare_word_f1_parlai"])


def test_a_stand_in_corpus_with_no_rare_word_says_the_metric_is_undefined() -> None:
    from utils.scoring import tasks_of

    gold = tasks_of("wow")["generation"].gold("test_seen")  # the demo train stands in: words seen once or twice
    assert gold.notes and "data.json" in gold.notes[0]
    if gold.context["rare_words"].cutoff <= 1:
        assert "undefined" in gold.notes[0]


def test_records_in_python_score_as_the_file_they_stand_for(tmp_path: Path) -> None:
    import pandas as pd

    from utils.scoring import tasks_of

    gold = tasks_of("wow")["generation"].gold("test_seen")
    rows = [{"dialogue": int(i.split(":")[0]), "turn": int(i.split(":")[1]), "text": gold.answers[i]["sentence"]}
            for i in gold.ids]
    from_file = utils.score("wow", "test_seen", _lines(tmp_path / "p.jsonl", rows))
    from_frame = utils.score("wow", "test_seen", pd.DataFrame(rows))
    assert from_frame.frame()[["value", "low", "high"]].equals(from_file.frame()[["value", "low", "high"]])
    assert from_frame.record()["predictions"]["path"] == "(records)"
    assert from_frame.record()["predictions"]["sha256"] == from_file.record()["predictions"]["sha256"]
    with pytest.raises(DataError) as caught:  # refused as the file would be, naming the record and field
        utils.score("wow", "test_seen", [{"dialogue": 0, "turn": 1, "text": "x"},
                                         {"dialogue": 0, "turn": "1", "text": "x"}])
    assert (caught.value.path, caught.value.record, caught.value.field) == ("(records)", "2", "turn")
    frame = pd.DataFrame(rows).astype({"text": object})
    frame.loc[0, "text"] = float("nan")  # a missing value: named, not "invalid JSON"
    with pytest.raises(DataError) as caught:
        utils.score("wow", "test_seen", frame)
    assert (caught.value.record, caught.value.field) == ("1", "text")
    with pytest.raises(TypeError, match="put it in a list"):
        utils.score("wow", "test_seen", rows[0])
    import numpy as np

    as_arrays = [{**row, "dialogue": np.int64(row["dialogue"])} for row in rows]  # NumPy values are numbers
    assert utils.score("wow", "test_seen", as_arrays).value("f1_parlai") == from_file.value("f1_parlai")


def test_rare_words_read_data_json_a_dialogue_at_a_time_and_name_a_bad_message(tmp_path: Path) -> None:
    from utils.datasets.wow.scoring import RareWords, _rare_words_of

    corpus = "he was a man no he was a dragon man or maybe he was just a dragon"
    path = tmp_path / "data.json"
    path.write_text(json.dumps([{"dialog": [{"text": half, "speaker": "0_Wizard"}], "chosen_topic": "x"}
                                for half in (corpus[:30], corpus[30:])]), encoding="utf-8")
    assert _rare_words_of(path, 0, 0.0) == RareWords.of_texts([corpus[:30], corpus[30:]])
    path.write_text(json.dumps([{"dialog": [{"text": "fine"}]}, {"dialog": [{"text": 3}]}]), encoding="utf-8")
    with pytest.raises(DataError) as caught:
        _rare_words_of(path, 1, 0.0)
    assert (caught.value.record, caught.value.field) == ("dialogue 1", "dialog[0].text")


def test_the_chapters_kilt_baselines_score_through_the_command(tmp_path: Path) -> None:
    """The KILT baselines of the chapter (:func:`kilt_baselines`) written as KILT submission files and
    scored by ``atlas score``: complete, the same numbers as in Python, and the page the TF-IDF ranker
    adds is what KILT-F1 needs (without a page, KILT-F1 is 0 whatever the answer)."""
    from utils.datasets.wow import baselines

    split = utils.load("wow_kilt", "dev")  # the real file where the data directory has it, else the demo
    runs = {}
    for name, frame in baselines.kilt_baselines(split).items():
        path = _lines(tmp_path / "predictions.jsonl", baselines.kilt_submission(frame))
        out = tmp_path / f"{len(runs)}.json"
        assert main(["score", "wow_kilt", "dev", str(path), "--json", str(out)]) == 0
        runs[name] = {m["name"]: m["value"] for m in json.loads(out.read_text())["metrics"]}
        assert runs[name]["f1_kilt"] == pytest.approx(utils.score("wow_kilt", "dev", path).value("f1_kilt"))
    copied, ranked = runs["copy the last message"], runs["TF-IDF page + last message"]
    assert copied["rprec_kilt"] == 0 and copied["kilt_f1"] == 0
    assert ranked["f1_kilt"] == copied["f1_kilt"] and ranked["rprec_kilt"] > 0
    assert 0 < ranked["kilt_f1"] <= ranked["f1_kilt"]


def test_a_per_example_file_is_json_with_null_where_a_metric_leaves_an_example_out(tmp_path: Path) -> None:
    from utils.scoring import write_per_example

    gold = utils.scoring.tasks_of("wow")["generation"].gold("test_seen")
    rows = [{"dialogue": int(i.split(":")[0]), "turn": int(i.split(":")[1]), "text": "hi"} for i in gold.ids]
    scores = utils.score("wow", "test_seen", rows)
    out = tmp_path / "rows.jsonl"
    write_per_example(scores, out)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]  # strict JSON: no NaN
    assert "NaN" not in out.read_text(encoding="utf-8")
    assert all(line["rare_word_f1_parlai"] is None or isinstance(line["rare_word_f1_parlai"], float) for line in lines)


def test_files_that_share_no_id_or_cover_none_are_refused_not_scored_as_zero(tmp_path: Path) -> None:
    gold = utils.scoring.tasks_of("wow")["generation"].gold("test_seen")
    first, second = ({"dialogue": int(i.split(":")[0]), "turn": int(i.split(":")[1]), "text": "hi"} for i in gold.ids)
    with pytest.raises(CoverageError, match="share no gold id"):
        utils.score("wow", "test_seen", [first], compare=[second], allow_missing=True)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(CoverageError, match="cover no gold id"):
        utils.score("wow", "test_seen", empty, allow_missing=True)
