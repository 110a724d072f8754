"""JWHR through ``utils.score``: the atlas's own metrics, equal to the chapter's attribution scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import utils
from utils.datasets.jwhr import baselines
from utils.datasets.jwhr.parser import answered
from utils.scoring import tasks_of


def test_citations_of_the_first_quote_score_as_the_chapters_attribution(tmp_path: Path) -> None:
    split = utils.load("jwhr", "answered")
    lines = []
    for dialogue, steps, sentence in baselines.evaluated_sentences(split):
        cited = baselines.predict_first_quote(sentence.text, steps)
        lines.append(json.dumps({"id": dialogue.id, "sentence": sentence.index, "citations": cited}))
    path = tmp_path / "citations.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    scores = utils.score("jwhr", "answered", path, task="citation")
    chapter = baselines.attribution_scores(split).set_index("method").loc["first quoted reference"]
    assert scores.value("citation_accuracy_atlas") == pytest.approx(chapter["accuracy"])
    assert scores.value("citation_f1_atlas") == pytest.approx(chapter["f1"])
    assert all(m.metric.source.startswith("the atlas's own definition") for m in scores.metrics)


def test_answers_are_scored_by_characters(tmp_path: Path) -> None:
    gold = tasks_of("jwhr")["answer"].gold("answered")
    first = gold.ids[0]
    answers = {i: gold.answers[i] for i in gold.ids}
    answers[first] = "、".join(answers[first])  # punctuation between every character: still all right
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"id": i, "answer": a}, ensure_ascii=False) + "\n" for i, a in answers.items()),
                    encoding="utf-8")
    scores = utils.score("jwhr", "answered", path, task="answer")
    assert scores.value("char_f1_atlas") == 1.0
    assert len(gold.ids) == sum(answered(d) for d in utils.load("jwhr", "answered"))
