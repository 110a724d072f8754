"""WISE's sub-tasks through ``utils.score``: the authors' averaging (wise_authors) beside the plain one
(wise_plain), equal to the chapter's functions on the same predictions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import utils
from utils.datasets.wise import baselines
from utils.errors import DataError
from utils.scoring import tasks_of


def _write(path: Path, examples: list[Any], field: str, values: list[Any]) -> Path:
    path.write_text("".join(
        json.dumps({"conversation": e.dialogue_id, "turn": e.turn_index, field: v}, ensure_ascii=False) + "\n"
        for e, v in zip(examples, values, strict=True)
    ), encoding="utf-8")
    return path


@pytest.fixture
def examples() -> list[Any]:
    return list(tasks_of("wise")["T1"].gold("test").answers.values())


def test_t3_right_on_every_turn_scores_n_over_n_plus_one_as_the_authors_do(
    examples: list[Any], tmp_path: Path
) -> None:
    right = _write(tmp_path / "t3.jsonl", examples, "action", [e.action for e in examples])
    scores = utils.score("wise", "test", right, task="T3")
    classes = len({e.action for e in examples})
    assert scores.value("t3_f1_wise_authors") == pytest.approx(classes / (classes + 1))
    assert scores.value("t3_f1_wise_plain") == 1.0
    t1 = utils.score("wise", "test", _write(tmp_path / "t1.jsonl", examples, "intent", [e.intent for e in examples]),
                     task="T1")
    assert t1.value("t1_f1_wise_authors") == pytest.approx(1.0, abs=1e-7)  # T1 has no + 1


def test_each_task_equals_the_chapters_functions(examples: list[Any], tmp_path: Path) -> None:
    majority = baselines.majority_label(e.action for e in examples)
    predicted = [majority] * len(examples)
    scores = utils.score("wise", "test", _write(tmp_path / "t3.jsonl", examples, "action", predicted), task="T3")
    gold = [e.action for e in examples]
    assert scores.value("t3_f1_wise_authors") == baselines.original_macro_prf(gold, predicted, plus_one=True).f1
    assert scores.value("t3_p_wise_plain") == baselines.standard_macro_prf(gold, predicted).precision

    replies = [baselines.extractive_response(e) for e in examples]
    t6 = utils.score("wise", "test", _write(tmp_path / "t6.jsonl", examples, "response", replies), task="T6")
    expected = baselines.generation_scores(replies, [e.response for e in examples], gold)
    assert t6.value("t6_bleu1_wise_authors") == pytest.approx(expected["authors_bleu1"])
    assert t6.value("t6_rouge_l_wise_plain") == pytest.approx(expected["plain_rouge_l"])

    queries = [list(e.selected_queries[:1]) for e in examples]
    t4 = utils.score("wise", "test", _write(tmp_path / "t4.jsonl", examples, "queries", queries), task="T4")
    authors = baselines.original_selection_prf([e.selected_queries for e in examples], queries, gold)
    assert t4.value("t4_f1_wise_authors") == pytest.approx(authors.f1)
    assert t4.value("t4_p_wise_authors") == pytest.approx(authors.precision)


def test_a_list_field_holding_a_number_names_its_element(examples: list[Any], tmp_path: Path) -> None:
    path = _write(tmp_path / "t5.jsonl", examples[:1], "passages", [["p1", 2]])
    with pytest.raises(DataError) as caught:
        utils.score("wise", "test", path, task="T5", allow_missing=True)
    assert (caught.value.record, caught.value.field) == ("line 1", "passages[1]")
