"""JWHR statistics and baselines on hand-checked sessions, the demo sample and the real files."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from conftest import require_real_file

import utils
from utils.baselines import jwhr as baselines
from utils.formats import parse_file
from utils.stats import jwhr as stats


def _page(title: str, quote: str | None = None) -> dict[str, Any]:
    page: dict[str, Any] = {"title": title, "url": f"https://ja.wikipedia.org/wiki/{title}"}
    if quote is not None:
        page["quote"] = {"text": quote}
    return page


#: Steps: 0 search, 1 link from 0, 2 link from 1, 3 search that found nothing, 4 search,
#: 5 link from 4, 6 a link recorded as coming from itself (as in real session 274).
TRAIL_SESSION = {
    "id": 5,
    "question": "富士山の高さは？",
    "answer": {
        "text": "富士山は日本一高い山です。標高は3776 mです。噴火もしました。",
        "sentences": [
            {"text": "富士山は日本一高い山です。", "citations": [0]},
            {"text": "標高は3776 mです。", "citations": [0, 2]},
            {"text": "噴火もしました。", "citations": []},
        ],
    },
    "references": [
        {"search": {"keywords": ["富士山"]}, "page": _page("富士山", "富士山は日本で一番高い山である。")},
        {"link": {"referrer": 0}, "page": _page("静岡県")},
        {"link": {"referrer": 1}, "page": _page("標高", "富士山の標高は3776 mである。")},
        {"search": {"keywords": ["富士山", "高さ"]}, "not_found": {"url": "https://ja.wikipedia.org/w/index.php?s=1"}},
        {"search": {"keywords": ["山"]}, "page": _page("山")},
        {"link": {"referrer": 4}, "page": _page("富士山")},
        {"link": {"referrer": 6}, "page": _page("火山")},
    ],
}


def _parse(tmp_path: Path, *records: dict[str, Any], split: str = "answered") -> list[utils.Dialogue]:
    path = tmp_path / f"{split}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return list(parse_file("jwhr", path, split))


@pytest.fixture
def session(tmp_path: Path) -> utils.Dialogue:
    return _parse(tmp_path, TRAIL_SESSION)[0]


def test_trail_reconstructs_link_chains(session: utils.Dialogue) -> None:
    steps = stats.trail(session)
    assert [s.origin for s in steps] == ["search", "link", "link", "search", "search", "link", "link"]
    assert stats.link_chain(steps, 2) == [0, 1, 2]
    assert stats.link_chain(steps, 5) == [4, 5]
    assert stats.link_chain(steps, 3) == [3]
    assert [stats.link_depth(steps, i) for i in range(7)] == [0, 1, 2, 0, 0, 1, 0]
    assert steps[6].referrer == 6 and not steps[6].referrer_is_earlier
    assert stats.link_chain(steps, 6) == [6]
    assert steps[3].content == "not found" and steps[3].keywords == ("富士山", "高さ")


def test_citations_resolve_to_their_references(session: utils.Dialogue) -> None:
    steps = stats.trail(session)
    answer = stats.sentences(session)
    assert [s.citations for s in answer] == [(0,), (0, 2), ()]
    assert steps[0].cited_by == (0, 1) and steps[2].cited_by == (1,) and not steps[1].cited
    assert [steps[c].title for c in answer[1].citations] == ["富士山", "標高"]
    assert session.turns[1].labels["citations"] == ["0", "0,2", ""]


def test_session_and_sentence_frames(session: utils.Dialogue) -> None:
    row = stats.session_frame([session]).iloc[0]
    assert (row["references"], row["search_steps"], row["link_steps"]) == (7, 3, 4)
    assert row["distinct_pages"] == 5  # 富士山 twice, the not-found search has no page
    assert row["max_link_depth"] == 2 and row["keywords_per_search"] == pytest.approx(4 / 3)
    assert (row["quote"], row["nothing"], row["not found"]) == (2, 4, 1)
    assert (row["sentences"], row["citations"], row["question_chars"]) == (3, 3, 8)
    frame = stats.sentence_frame([session])
    assert frame["citations"].tolist() == [1, 2, 0]
    assert frame["cites_quote"].tolist() == [True, True, False]


def test_id_gaps_span_both_splits(tmp_path: Path) -> None:
    first = _parse(tmp_path, {**TRAIL_SESSION, "id": 1}, {**TRAIL_SESSION, "id": 4})
    second = _parse(tmp_path, {"id": 2, "question": "？", "references": []}, split="not_answered")
    assert stats.id_gaps(first, second) == [3]
    assert stats.duplicate_ids(first, second + second) == [2]


def test_ngram_overlap_by_hand() -> None:
    # sentence bigrams 富士 士山 山は は高 高い; the reference shares 富士 and 士山
    assert baselines.ngram_overlap("富士山は高い", "富士山の高さ", 2) == pytest.approx(2 / 5)
    # characters 富 士 山 は 高 い; shared 富 士 山 高
    assert baselines.ngram_overlap("富士山は高い", "富士山の高さ", 1) == pytest.approx(4 / 6)
    assert baselines.ngram_overlap("富 士", "富士", 2) == 1.0  # whitespace is not a character here
    assert baselines.ngram_overlap("a", "abc", 2) == 0.0


def test_attribution_methods_by_hand(session: utils.Dialogue) -> None:
    steps = stats.trail(session)
    assert [s.index for s in baselines.candidates(steps)] == [0, 2]
    assert baselines.predict_overlap("標高は3776 mです。", steps) == [2]
    assert baselines.predict_first_quote("標高は3776 mです。", steps) == [0]
    scores = baselines.attribution_scores([session]).set_index("method")
    # two evaluated sentences (the third cites nothing); gold {0} and {0, 2}
    assert scores["sentences"].tolist() == [2, 2, 2]
    assert scores.loc["random (expected)", "accuracy"] == pytest.approx((1 / 2 + 2 / 2) / 2)
    assert scores.loc["first quoted reference", "accuracy"] == 1.0
    assert scores.loc["char 2-gram overlap", "accuracy"] == 1.0
    # overlap predicts {0} then {2}: recalls 1 and 1/2
    assert scores.loc["char 2-gram overlap", "recall"] == pytest.approx(0.75)


def test_copied_characters_by_hand() -> None:
    # common blocks: 富士山は日本 (6 characters), 高い山 (3 characters)
    assert baselines.copied_characters("富士山は日本一高い山です", "富士山は日本で一番高い山", 4) == (6, 6)
    assert baselines.copied_characters("富士山は日本一高い山です", "富士山は日本で一番高い山", 3) == (9, 6)
    assert baselines.copied_characters("", "x") == (0, 0)


def test_extractiveness_per_answer(session: utils.Dialogue) -> None:
    row = baselines.extractiveness([session], min_block=4).iloc[0]
    assert row["sentences_with_quotes"] == 2
    assert row["chars"] == len("富士山は日本一高い山です。") + len("標高は3776 mです。")
    assert 0 < row["covered_share"] <= 1 and row["longest_common"] >= 6


def test_demo_statistics_and_baselines_run() -> None:
    with pytest.warns(utils.DemoDataWarning):
        answered = list(utils.load("jwhr", "answered"))
    with pytest.warns(utils.DemoDataWarning):
        not_answered = list(utils.load("jwhr", "not_answered"))
    table = stats.summary_table({"answered": answered, "not answered": not_answered})
    assert table.loc["sessions"].tolist() == [3, 3]
    assert table.loc["sessions without references", "not answered"] == 1
    assert stats.id_gaps(answered, not_answered) == [6]
    assert math.isnan(table.loc["sentences per answer (mean)", "not answered"])
    scores = baselines.attribution_scores(answered)
    assert scores["sentences"].iloc[0] == 8
    features = baselines.trail_features(answered + not_answered)
    result = baselines.answerability_scores(features)
    assert result["folds"].iloc[0] == 3
    assert result.loc[0, "accuracy"] == pytest.approx(0.5)


def test_answerability_needs_both_classes(session: utils.Dialogue) -> None:
    with pytest.raises(ValueError, match="two answered"):
        baselines.answerability_scores(baselines.trail_features([session]))


@pytest.mark.realdata
def test_real_statistics(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "jwhr/answered.jsonl")
    require_real_file(real_data_dir, "jwhr/not_answered.jsonl")
    answered = list(utils.load("jwhr", "answered"))
    not_answered = list(utils.load("jwhr", "not_answered"))
    table = stats.summary_table({"answered": answered, "not answered": not_answered})
    assert table.loc["sessions"].tolist() == [838, 433]
    assert table.loc["links not pointing back (count)"].tolist() == [0, 2]
    assert stats.id_gaps(answered, not_answered) == [82, 88, 368, 841, 849, 851, 1069, 1161, 1173]
    assert stats.duplicate_ids(answered, not_answered) == []
    scores = baselines.attribution_scores(answered).set_index("method")
    assert scores.loc["char 2-gram overlap", "accuracy"] > scores.loc["random (expected)", "accuracy"]
    answerability = baselines.answerability_scores(baselines.trail_features(answered + not_answered))
    assert answerability.loc[0, "accuracy"] == pytest.approx(838 / 1271, abs=0.01)
