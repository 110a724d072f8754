"""JWHR statistics and baselines on hand-checked sessions, the demo sample and the real files."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import utils
from conftest import require_real_file
from utils.datasets.jwhr import baselines, stats
from utils.loading import parse_file


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
    assert stats.id_gaps(first, second) == [(3, 3)]
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
    table = stats.summary_frame({"answered": answered, "not answered": not_answered})
    assert table.loc["sessions"].tolist() == [3, 3]
    assert table.loc["sessions without references", "not answered"] == 1
    assert stats.id_gaps(answered, not_answered) == [(1, 1_000_000_000), (1_000_000_006, 1_000_000_006)]
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
    table = stats.summary_frame({"answered": answered, "not answered": not_answered})
    assert table.loc["sessions"].tolist() == [838, 433]
    assert table.loc["links not pointing back (count)"].tolist() == [0, 2]
    assert stats.id_gaps(answered, not_answered) == [(i, i) for i in (82, 88, 368, 841, 849, 851, 1069, 1161, 1173)]
    assert stats.duplicate_ids(answered, not_answered) == []
    scores = baselines.attribution_scores(answered).set_index("method")
    assert scores.loc["char 2-gram overlap", "accuracy"] > scores.loc["random (expected)", "accuracy"]
    answerability = baselines.answerability_scores(baselines.trail_features(answered + not_answered))
    assert answerability.loc[0, "accuracy"] == pytest.approx(838 / 1271, abs=0.01)


# -- what the chapter shows: the comparison, the tables for readers, the figures ---------------------

NOT_ANSWERED_SESSION = {
    "id": 6,
    "question": "山の名前は？",
    "references": [
        {"search": {"keywords": ["山"]}, "page": _page(" 山\n")},
        {"link": {"referrer": 0}},
    ],
}


def _cells(table: Any) -> list[list[str]]:
    """The rows of a rendered table as the reader sees them (tags stripped, entities decoded)."""
    import html as html_module
    import re

    rendered = table.to_html()
    rows = re.findall(r"(?s)<tr>(.*?)</tr>", rendered)
    return [
        [html_module.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
         for cell in re.findall(r"(?s)<t[dh]\b[^>]*>(.*?)</t[dh]>", row)]
        for row in rows
    ]


def test_reported_vs_reproduced_is_the_one_comparison_schema() -> None:
    from utils.reported import COMPARISON_COLUMNS

    answered = utils.load("jwhr", "answered")
    not_answered = utils.load("jwhr", "not_answered")
    table = stats.reported_vs_reproduced({"answered": answered, "not_answered": not_answered})
    assert tuple(table.columns) == COMPARISON_COLUMNS
    assert table["reported"].tolist() == [838, 433]  # the dataset card
    assert table["reproduced"].tolist() == [3, 3]  # the demo sample
    assert table["status"].tolist() == ["not checked: demo sample"] * 2
    assert utils.book.tables.checks_line(table) == "2 numbers not checked (demo sample)."
    plain = stats.reported_vs_reproduced({"answered": list(answered)})
    assert plain["status"].tolist() == ["not checked: no provenance", "quoted only"]
    with pytest.raises(KeyError, match="not answered"):
        stats.reported_vs_reproduced({"not answered": not_answered})


def test_summary_table_shows_counts_shares_and_means_for_readers(tmp_path: Path) -> None:
    answered = _parse(tmp_path, TRAIL_SESSION)
    not_answered = _parse(tmp_path, NOT_ANSWERED_SESSION, split="not_answered")
    view = stats.summary_table(stats.summary_frame({"answered": answered, "not answered": not_answered}))
    rows = {row[0]: row[1:] for row in _cells(view)}
    assert rows["Statistic"] == ["Answered", "Not answered"]
    assert rows["sessions"] == ["1", "1"]
    assert rows["steps (references) per session, mean"] == ["7.00", "2.00"]
    assert rows["steps reached by a link (% of steps)"] == ["57.1", "50.0"]  # 4 of 7, 1 of 2
    assert rows["keywords per search, mean"] == ["1.33", "1.00"]  # (1 + 2 + 1) / 3
    assert rows["steps recorded without their page (% of steps)"] == ["0.0", "50.0"]
    assert rows["answer sentences citing no step (% of sentences)"] == ["33.3", "–"]
    assert rows["longest chain of links followed (links)"] == ["2", "1"]
    assert any("not applicable: a not-answered session has no answer" in note for note in view.notes)
    assert "nan" not in view.to_html().lower()


def test_trail_and_sentence_views_by_hand(session: utils.Dialogue) -> None:
    trail_rows = _cells(stats.trail_table(session))
    assert trail_rows[0] == ["Step", "Reached by", "Search keywords", "Page", "Taken from the page",
                             "Characters taken", "Cited by answer sentence"]
    assert trail_rows[1] == ["0", "search", "富士山", "富士山", "quote", "16", "1, 2"]
    assert trail_rows[2] == ["1", "link from step 0", "–", "静岡県", "nothing", "–", "not cited"]
    assert trail_rows[4] == ["3", "search", "富士山、高さ", "–", "not found", "–", "not cited"]
    assert trail_rows[7][1] == "link from step 6"
    html = stats.trail_table(session).to_html()
    assert '<span lang="ja">静岡県</span>' in html
    sentence_rows = _cells(stats.sentences_table(session))
    assert sentence_rows[0] == ["Sentence", "Cites steps", "Characters", "Text"]
    assert sentence_rows[2] == ["2", "0, 2", "12", "標高は3776 mです。"]
    assert sentence_rows[3] == ["3", "none", "8", "噴火もしました。"]
    turn_rows = _cells(stats.turns_table(session, width=5))
    assert turn_rows[1] == ["seeker", "question", "0", "富士山の高"[:5] + "…"]
    assert turn_rows[2][:3] == ["wizard", "answer", "7"]


def test_flagged_steps_show_the_whitespace_they_had(tmp_path: Path) -> None:
    dialogues = _parse(tmp_path, NOT_ANSWERED_SESSION, split="not_answered")
    flagged = stats.flagged_steps({"not answered": dialogues})
    assert flagged[["session", "step", "page_missing"]].to_numpy().tolist() == [[6, 0, False], [6, 1, True]]
    assert flagged["title_as_written"].iloc[0] == " 山\n" and flagged["title"].iloc[0] == "山"
    rows = _cells(stats.flagged_table(flagged))
    assert rows[0] == [
        "Chunk", "Session", "Step", "Reached by", "Taken from the page", "Title as written", "Title used"
    ]
    assert rows[1] == ["not answered", "6", "0", "search", "nothing", "␣山⏎", "山"]
    assert rows[2] == ["not answered", "6", "1", "link", "no page", "–", "–"]
    empty = stats.flagged_table(stats.flagged_steps({"answered": _parse(tmp_path, TRAIL_SESSION)}))
    assert empty.caption == "No flagged step in the files loaded here."


def test_baseline_views_by_hand(session: utils.Dialogue) -> None:
    scores = baselines.attribution_scores([session])
    rows = _cells(baselines.attribution_table(scores, caption="By hand."))
    assert rows[0] == ["Method", "Sentences scored", "Accuracy (%)", "Precision (%)", "Recall (%)", "F1 (%)"]
    # random: accuracy (1/2 + 2/2) / 2; overlap: recall (1 + 1/2) / 2
    assert rows[1][:3] == ["random step holding text (expected score)", "2", "75.0"]
    assert rows[2][0] == "character 2-gram overlap with the sentence" and rows[2][4] == "75.0"
    frame = pd.DataFrame({"covered_share": [0.5, 0.25, 1.0], "longest_common": [10, 4, 101]})
    rows = {row[0]: row[1:] for row in _cells(baselines.extractiveness_table(frame))}
    assert rows["mean"] == ["58.3", "38.3"]
    assert rows["median"] == ["50.0", "10"]
    assert rows["maximum"] == ["100", "101"]
    answerability = pd.DataFrame(
        {"model": ["majority class"], "folds": [5], "accuracy": [0.659], "balanced_accuracy": [0.5],
         "f1_answered": [0.7951]}
    )
    rows = _cells(baselines.answerability_table(answerability))
    assert rows[1] == ["majority class (always the more common outcome)", "65.9", "50.0", "79.5"]


@pytest.mark.filterwarnings("ignore:Glyph")  # page titles need a CJK font, which this test does not set
def test_figures_fit_the_page_with_legible_text() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.text import Text

    from utils.book.figures import MAX_WIDTH_INCHES, figure

    answered = list(utils.load("jwhr", "answered"))
    not_answered = list(utils.load("jwhr", "not_answered"))
    drawn = {
        "trails": stats.plot_trails({"answered": answered, "not answered": not_answered}),
        "answers": stats.plot_answers(answered, not_answered),
        "top pages": stats.plot_top_pages(answered),
        "extractiveness": baselines.plot_extractiveness(baselines.extractiveness(answered)),
    }
    for name, fig in drawn.items():
        assert fig.get_figwidth() <= MAX_WIDTH_INCHES, name
        sizes = [text.get_fontsize() for text in fig.findobj(Text) if text.get_text().strip()]
        assert sizes and min(sizes) >= 9, (name, min(sizes))
        assert figure(fig, caption=name, alt=name).width_inches <= MAX_WIDTH_INCHES


def test_alt_texts_carry_the_numbers_they_depict(tmp_path: Path) -> None:
    answered = _parse(tmp_path, TRAIL_SESSION)
    not_answered = _parse(tmp_path, NOT_ANSWERED_SESSION, split="not_answered")
    summary = stats.summary_frame({"answered": answered, "not answered": not_answered})
    alt = stats.trails_alt(summary)
    assert "Answered (1 session): 7.0 steps and 5.0 distinct pages per session" in alt
    assert "57% of steps reached by a link" in alt and "links followed at most 2 deep" in alt
    assert "Not answered (1 session): 2.0 steps" in alt
    assert "3.0 sentences per answer and 1.00 citations per sentence" in stats.answers_alt(summary)
    top = pd.Series({"富士山": 2, "山": 1})
    assert stats.top_pages_alt(top) == (
        "Horizontal bars for the 2 pages cited in the most answers, with the answers citing each: 富士山 (2), 山 (1)."
    )
    frame = pd.DataFrame({"covered_share": [0.5, 0.25, 1.0], "longest_common": [10, 4, 101]})
    assert "median 50%, from 25% to 100%" in baselines.extractiveness_alt(frame)


def test_demo_not_answered_sessions_have_the_real_shape() -> None:
    # The chapter's full-data reading: failed sessions are longer, follow more links and take less
    # from their pages. The demo sample points the same way, so the demo run does not contradict it.
    answered = list(utils.load("jwhr", "answered"))
    not_answered = list(utils.load("jwhr", "not_answered"))
    table = stats.summary_frame({"answered": answered, "not answered": not_answered})
    for row in ("references per session (mean)", "link steps (share)", "nothing (share of references)"):
        assert table.loc[row, "not answered"] > table.loc[row, "answered"], row
    quotes = table.loc["quote (share of references)"]
    assert quotes["not answered"] < quotes["answered"]


def test_data_page_gives_the_registry_s_links_and_the_bibliography_s_entry() -> None:
    from utils.folder_files import BY_HAND, CITATION, bibtex_entries
    from utils.sources import get_source, get_split_files

    source = get_source("jwhr")
    section = (source.folder / BY_HAND).read_text(encoding="utf-8")  # its part of the page "Getting the data"
    assert section.startswith("(data-jwhr)=\n### ")
    assert source.homepage in section
    for split in ("answered", "not_answered"):
        (item,) = get_split_files("jwhr", split)
        assert section.count(item.url) == 2, split  # the link and the curl command
        assert item.path in section
    # the entry to copy is quoted from the folder's citation.bib, with the year as published
    assert f"```{{atlas-bibtex}} {source.citation_key}\n```" in section
    entry = bibtex_entries([source.citation_key], [source.folder / CITATION])
    assert entry.startswith(f"@misc{{{source.citation_key},") and "year         = {2023}" in entry


@pytest.mark.realdata
def test_real_chapter_tables(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "jwhr/answered.jsonl")
    require_real_file(real_data_dir, "jwhr/not_answered.jsonl")
    answered, not_answered = utils.load("jwhr", "answered"), utils.load("jwhr", "not_answered")
    counts = stats.reported_vs_reproduced({"answered": answered, "not_answered": not_answered})
    assert counts["status"].tolist() == ["held", "held"]
    assert utils.book.tables.checks_line(counts) == "2 checks held on the full official files."
    splits = {"answered": list(answered), "not answered": list(not_answered)}
    rows = {row[0]: row[1:] for row in _cells(stats.summary_table(stats.summary_frame(splits)))}
    assert rows["sessions"] == ["838", "433"]
    assert rows["links whose referrer is not an earlier step"] == ["0", "2"]
    flagged = stats.flagged_steps(splits)
    assert flagged.loc[flagged["page_missing"], ["session", "step"]].to_numpy().tolist() == [[23, 4]]
    assert int(flagged["title_as_written"].notna().sum()) == 8


def test_one_huge_id_is_one_gap_range_and_the_page_lists_a_bounded_number(tmp_path: Path) -> None:
    import time

    first = _parse(tmp_path, {**TRAIL_SESSION, "id": 1}, {**TRAIL_SESSION, "id": 10**9})
    started = time.perf_counter()
    gaps = stats.id_gaps(first)
    assert time.perf_counter() - started < 1
    assert gaps == [(2, 10**9 - 1)]
    assert stats.id_gaps_text(gaps) == "2–999999999"
    many = [(i, i) for i in range(2, 2000, 2)]
    text = stats.id_gaps_text(many)
    assert len(text) < 300 and text.endswith(f"and {len(many) - stats.GAPS_LISTED:,} more ranges (979 ids)")
    assert stats.id_gaps_text([]) == "none"
