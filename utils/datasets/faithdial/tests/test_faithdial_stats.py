"""FaithDial statistics and baselines on hand-checked examples, and on the demo splits."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import utils
from conftest import require_real_file
from utils.book import tables
from utils.book.render._html import diff_html
from utils.datasets.faithdial import baselines, stats
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.reported import COMPARISON_COLUMNS, Reproduced, compare
from utils.text import word_diff


def _wizard(index: int, text: str, knowledge: str, original: str = "", begin=("Entailment",), vrm=("Edification",)):
    return Turn(
        index=index,
        role=WIZARD,
        speaker="Wizard",
        text=text,
        evidence=[Evidence(id="knowledge", text=knowledge, origin="knowledge", selected=True)],
        labels={"BEGIN": list(begin), "VRM": list(vrm)},
        raw={"utterance": index, "original_response": original, "history_length": index},
    )


def _dialogue() -> Dialogue:
    turns = [
        Turn(index=0, role=SEEKER, speaker="Seeker", text="hi", raw={"from_history": True}),
        _wizard(1, "The cat sat on a mat.", "A cat sat on the rug.", "I own ten cats!", ["Hallucination"]),
        Turn(index=2, role=SEEKER, speaker="Seeker", text="nice", raw={"from_history": True}),
        _wizard(3, "Cats sleep a lot.", "Cats sleep a lot.", "", ["Entailment"], ["Edification", "Question"]),
    ]
    return Dialogue(id="d0", dataset="faithdial", split="train", turns=turns)


def test_word_diff_hand_checked() -> None:
    assert word_diff("the cat sat", "the dog sat down") == [
        ("equal", "the"),
        ("delete", "cat"),
        ("insert", "dog"),
        ("equal", "sat"),
        ("insert", "down"),
    ]
    assert word_diff("same words", "same  words") == [("equal", "same words")]
    assert word_diff("", "new") == [("insert", "new")]


def test_word_diff_html_is_escaped() -> None:
    html = diff_html(word_diff("<b>old</b>", "<script>alert(1)</script>"))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.startswith('<del class="atlas-diff-del">&lt;b&gt;old&lt;/b&gt;</del>')


def test_knowledge_overlap_hand_checked() -> None:
    # ParlAI normalisation drops articles and punctuation: [cat, sat, on, mat] vs [cat, sat, on, rug]
    assert stats.knowledge_overlap("The cat sat on a mat.", "A cat sat on the rug.") == (0.75, 0.75)
    precision, recall = stats.knowledge_overlap("cats sleep", "cats sleep a lot every day")
    assert (precision, recall) == (1.0, pytest.approx(2 / 5))
    assert stats.knowledge_overlap("", "anything") == (0.0, 0.0)


def test_utterances_and_counts() -> None:
    frame = stats.utterances([_dialogue()])
    assert list(frame["response"]) == ["The cat sat on a mat.", "Cats sleep a lot."]
    assert list(frame["edited"]) == [True, False]
    assert stats.edited_share(frame) == 0.5
    assert stats.count_turns([_dialogue()]) == {
        "dialogues": 1,
        "responses": 2,
        "seeker_turns": 2,
        "wizard_turns": 2,
        "turns": 4,
    }
    begin = stats.label_distribution(frame, "BEGIN")
    assert begin.loc["Hallucination", "responses"] == 1 and begin.loc["Entailment", "share"] == 0.5
    vrm = stats.label_distribution(frame, "VRM")
    assert vrm.loc["Edification", "share"] == 1.0 and vrm.loc["Question", "responses"] == 1
    # the labels describe the original of the edited turn and the response of the kept one
    assert list(frame["labels_describe"]) == ["original_response", "response"]
    assert list(frame["labelled_response"]) == ["I own ten cats!", "Cats sleep a lot."]
    assert list(frame["begin_class"]) == ["Hallucination", "Entailment"]


def test_begin_distribution_counts_one_class_per_response() -> None:
    turns = [
        _wizard(1, "a", "k", "x", ["Hallucination", "Entailment"]),
        _wizard(3, "b", "k", "", ["Entailment"]),
        _wizard(5, "c", "k", "y", ["Hallucination"]),
        _wizard(7, "d", "k", "", []),
    ]
    frame = stats.utterances([Dialogue(id="d", dataset="faithdial", split="train", turns=turns)])
    begin = stats.label_distribution(frame, "BEGIN")
    # ["Hallucination", "Entailment"] is one Partial Hallucination: Hallucination 1 and Entailment 1, not 2
    assert begin["responses"].to_dict() == {"Hallucination": 1, "Partial Hallucination": 1, "Entailment": 1}
    assert begin["share"].sum() == pytest.approx(3 / 4)  # the unlabelled response counts in no class
    lists = stats.begin_lists(frame)
    assert lists.loc["Hallucination + Entailment", "BEGIN class"] == "Partial Hallucination"
    assert lists.loc["(none)", "BEGIN class"] == "-"
    assert lists["responses"].sum() == 4


def test_precision_by_begin_class_hand_checked() -> None:
    frame = stats.utterances([_dialogue()])
    table = stats.precision_by_begin_class(frame)
    # only the edited row counts: "I own ten cats!" shares no word with "A cat sat on the rug." (cats != cat);
    # its rewrite "The cat sat on a mat." -> [cat, sat, on, mat], 3 of 4 in the knowledge
    assert list(table.index) == ["Hallucination"]
    assert table.loc["Hallucination", "edited responses"] == 1
    assert table.loc["Hallucination", "precision of the labelled original"] == 0.0
    assert table.loc["Hallucination", "precision of the faithful rewrite"] == 0.75


def test_lengths_and_before_after() -> None:
    frame = stats.utterances([_dialogue()])
    sizes = stats.lengths(frame)  # edited rows only: "I own ten cats!" -> 4 words; "cat sat on mat" -> 4
    assert list(sizes["original"]) == [4] and list(sizes["edited"]) == [4]
    overlap = stats.overlap_before_after(frame)
    assert overlap.iloc[0]["precision_original"] == 0.0  # no word of "i own ten cats" is in the knowledge
    assert overlap.iloc[0]["precision_edited"] == 0.75
    summary = stats.before_after_summary(frame)
    assert summary.loc["knowledge precision", "edited FaithDial response"] == 0.75


def test_first_sentence() -> None:
    assert baselines.first_sentence("It began in 2015. It ended in 2016.") == "It began in 2015."
    assert baselines.first_sentence("Washington, D.C. is a city") == "Washington, D.C. is a city"
    assert baselines.first_sentence("One sentence only") == "One sentence only"


def test_response_baselines_hand_checked() -> None:
    frame = stats.utterances([_dialogue()])
    table = baselines.response_baselines(frame)
    assert table.loc["copy the knowledge", "responses"] == 1
    assert table.loc["copy the knowledge", "knowledge precision"] == 1.0
    assert table.loc["faithful response (reference)", "BLEU"] == pytest.approx(100.0)
    assert table.loc["faithful response (reference)", "F1"] == 1.0
    assert table.loc["original WoW response", "F1"] == 0.0
    everything = baselines.response_baselines(frame, edited_only=False)
    assert everything.loc["original WoW response", "responses"] == 2


def test_critic_threshold_hand_checked() -> None:
    # knowledge precisions: 0.0, 0.25 (hallucinated) and 0.75, 1.0 (faithful) -> threshold 0.5
    examples = pd.DataFrame(
        {
            "response": ["x y z w", "p x y z", "p q r x", "p q r s"],
            "knowledge": ["p q r s"] * 4,
            "hallucinated": [1, 1, 0, 0],
        }
    )
    critic = baselines.LexicalCritic.fit(examples)
    assert critic.threshold == pytest.approx(0.5)
    assert list(critic.predict(examples["response"], examples["knowledge"])) == [1, 1, 0, 0]
    result = critic.evaluate(examples, "hand")
    assert (result.accuracy, result.f1, result.roc_auc) == (1.0, 1.0, 1.0)
    flipped = examples.assign(hallucinated=[0, 0, 1, 1])
    assert critic.evaluate(flipped, "flipped").accuracy == 0.0
    one_class = critic.evaluate(examples.iloc[:2], "positives only")
    assert np.isnan(one_class.roc_auc) and one_class.accuracy == 1.0


def test_critic_results_carry_the_trivial_baselines() -> None:
    # 1 hallucinated of 4: always "faithful" is right 3/4 times; flagging all has P 1/4, R 1, F1 2/5
    examples = pd.DataFrame(
        {"response": ["x y", "p q", "p r", "q r"], "knowledge": ["p q r"] * 4, "hallucinated": [1, 0, 0, 0]}
    )
    result = baselines.LexicalCritic(threshold=0.5).evaluate(examples, "hand")
    assert result.majority_accuracy == pytest.approx(0.75)
    assert result.flag_all_f1 == pytest.approx(0.4)
    row = result.row()
    assert (row["majority-class accuracy"], row["F1 of flagging all"]) == (pytest.approx(0.75), pytest.approx(0.4))


def test_critic_examples() -> None:
    frame = stats.utterances([_dialogue()])
    examples = baselines.critic_examples(frame)
    # one example per labelled record, paired with the text its label describes
    assert list(examples["response"]) == ["I own ten cats!", "Cats sleep a lot."]
    assert list(examples["hallucinated"]) == [1, 0]
    training = baselines.critic_examples(frame, with_rewrites=True)
    assert list(training["response"]) == ["I own ten cats!", "Cats sleep a lot.", "The cat sat on a mat."]
    assert list(training["hallucinated"]) == [1, 0, 0]


@pytest.mark.parametrize(
    ("begin", "expected"),
    [
        (["Hallucination"], 1),
        (["Hallucination", "Entailment"], 1),
        (["Partial Hallucination"], 1),
        (["Generic", "Hallucination"], 1),
        (["Entailment"], 0),
        (["Entailment", "Uncooperative"], 0),
        (["Generic"], None),
        (["Uncooperative"], None),
        ([], None),
    ],
)
def test_critic_label_as_the_authors_convert(begin: list[str], expected: int | None) -> None:
    assert baselines.critic_label(begin) == expected


def test_demo_reported_vs_reproduced_not_asserted() -> None:
    splits = {name: utils.load("faithdial", name) for name in ("train", "valid", "test")}
    table = stats.reported_vs_reproduced(splits)
    assert list(table.columns) == list(COMPARISON_COLUMNS)
    assert set(table["split"]) == {"train", "valid", "test", "all"}
    assert (table["status"] == "not checked: demo sample").all()
    assert tables.checks_line(table) == "5 numbers not checked (demo sample)."
    sizes = stats.split_sizes(splits)
    assert (sizes["turns"] == sizes["seeker_turns"] + sizes["wizard_turns"]).all()
    # the whole-dataset numbers add up train, valid and test
    whole = table.set_index(["name", "split"])
    assert whole.loc[("turns", "all"), "reproduced"] == sizes["turns"].sum()
    assert whole.loc[("dialogues", "all"), "reproduced"] == sizes["dialogues"].sum()


def test_reported_vs_reproduced_checks_only_full_splits() -> None:
    # hand-built splits: "official" train of one dialogue (4 turns), valid and test not loaded
    class Split(list):
        provenance = SimpleNamespace(kind="official", is_full=True)

    table = stats.reported_vs_reproduced({"train": Split([_dialogue()])}).set_index(["name", "split"])
    train = table.loc[("turns", "train")]
    assert (train["reproduced"], train["reported"], train["status"]) == (4, 36809, "failed")
    assert table.loc[("turns", "valid"), "status"] == "not checked: split not loaded"
    assert table.loc[("dialogues", "all"), "status"] == "not checked: split not loaded"
    assert "faithdial/train turns: reported 36,809, here 4" in tables.checks_line(table.reset_index())


def test_audit_lower_bound_holds_only_above_it() -> None:
    # "more than 60%": 61 holds, exactly 60 and 59 do not; demo data is never checked
    key = ("hallucination_share_lower_bound", "gold_wow")
    statuses = {
        value: compare("faithdial_audit", {key: Reproduced(value, ("official",))})["status"].item()
        for value in (61.0, 60.0, 59.0)
    }
    assert statuses == {61.0: "held", 60.0: "failed", 59.0: "failed"}
    demo = compare("faithdial_audit", {key: Reproduced(10.0, ("demo sample",))})
    assert demo["status"].item() == "not checked: demo sample"
    html = tables.comparison(compare("faithdial_audit", {key: Reproduced(61.0, ("official",))})).to_html()
    assert ">&gt; 60 %<" in html and ">61 %<" in html and ">lower bound<" in html
    assert 'href="../book/bibliography.html#cite-dziri2022origin"' in html


def test_demo_audit_comparison_is_shown_not_checked() -> None:
    files = {name: utils.load("faithdial_audit", name) for name in utils.split_names("faithdial_audit")}
    table = stats.audit_reported_vs_reproduced(files)
    assert list(table.columns) == list(COMPARISON_COLUMNS)
    row = table.iloc[0]
    hallucinated, labelled, _ = stats.hallucination_share(stats.audit_rows(files), "gold_wow")
    assert row["reproduced"] == pytest.approx(100 * hallucinated / labelled)
    assert row["status"] == "not checked: demo sample" and row["bound"] == ">"


def test_demo_audit_tables() -> None:
    files = {name: utils.load("faithdial_audit", name) for name in utils.split_names("faithdial_audit")}
    rows = stats.audit_rows(files)
    begin = stats.audit_begin_frame(rows)
    shares = begin[list(stats.BEGIN_CLASSES)].sum(axis=1)
    assert np.allclose(shares, 1.0)
    dropped = stats.audit_dropped(files)
    assert dropped.loc["gold_topical", "blank row"] == 3
    assert dropped.loc["gold_topical", "no BEGIN label"] == 1
    assert len(rows) == dropped["labelled"].sum()
    # every row is accounted for: labelled, blank or without a BEGIN label
    assert (dropped[["labelled", "blank row", "no BEGIN label"]].sum(axis=1) == dropped["rows"]).all()
    vrm = stats.audit_vrm_frame(rows)
    assert (vrm["n"] <= begin["n"]).all()


@pytest.mark.realdata
def test_real_audit_begin_table(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "faithdial-audit/gold/wow.csv")
    files = {"gold_wow": utils.load("faithdial_audit", "gold_wow")}
    rows = stats.audit_rows(files)
    assert stats.hallucination_share(rows, "gold_wow") == (122, 200, 0.61)
    assert stats.audit_begin_frame(rows).loc["gold_wow", "hallucinated"] == pytest.approx(0.61)
    # the paper's "more than 60%" holds: 122 of 200 is 61%
    check = stats.audit_reported_vs_reproduced(files, rows)
    assert (check["reproduced"].item(), check["status"].item()) == (pytest.approx(61.0), "held")
    assert tables.checks_line(check) == "1 check held on the full official files."


def test_audit_file_labels_and_one_row_per_class() -> None:
    assert stats.audit_file_label("gold_wow") == "WoW, gold"
    assert stats.audit_file_label("gpt2_topical") == "TopicalChat, GPT2"
    assert stats.audit_file_label("something_else") == "something_else"

    def row(index: int, label: str | None, status: str = "labelled") -> Dialogue:
        return Dialogue(id=str(index), dataset="faithdial_audit", split="gold_wow", turns=[],
                        meta={"status": status, "begin_class": label, "row": index})

    rows = [row(0, "Entailment"), row(1, None, "blank row"), row(2, "Hallucination"), row(3, "Entailment"),
            row(4, "Generic", "no BEGIN label")]
    picked = stats.one_row_per_class(rows)
    # in BEGIN order, the first labelled row of each class; a blank or unlabelled row is never picked
    assert [dialogue.id for dialogue in picked] == ["2", "0"]


def test_edit_counts() -> None:
    frame = stats.utterances([_dialogue()])
    counts = stats.edit_counts({"train": frame})
    assert counts.loc["train"].to_dict() == {"responses": 2, "edited": 1, "edited share": 0.5}


def test_critic_shows_its_rule_not_a_repr() -> None:
    critic = baselines.LexicalCritic(threshold=0.35851)
    assert str(critic) == "hallucinated when knowledge precision < 0.359"
    assert "LexicalCritic(" not in critic._repr_html_() and "0.359" in critic._repr_html_()


def test_results_table_formats_counts_percentages_and_missing_auc() -> None:
    examples = pd.DataFrame(
        {"response": ["x y", "p q", "p r", "q r"], "knowledge": ["p q r"] * 4, "hallucinated": [1, 0, 0, 0]}
    )
    critic = baselines.LexicalCritic(threshold=0.5)
    both = critic.evaluate(examples, "both classes")
    one = critic.evaluate(examples.iloc[1:], "faithful only")
    html = baselines.results_table([both, one]).to_html()
    # accuracy 4/4 and majority class 3/4, in percent: 100% reads "100", never a count-like "100.0"
    assert ">100<" in html and ">75.0<" in html and "100.0" not in html
    assert "accuracy (%)" in html and "ROC AUC" in html
    assert "NaN" not in html and "ROC AUC needs both classes" in html


def test_audit_separation_hand_checked() -> None:
    def audit_row(file: str, response: str, label: str) -> dict:
        return {"file": file, "response": response, "knowledge": "p q r", "begin_class": label}

    rows = pd.DataFrame(
        [
            audit_row("gold_wow", "x y", "Hallucination"),  # precision 0
            audit_row("gold_wow", "p x", "Partial Hallucination"),  # precision 0.5
            audit_row("gold_wow", "p q", "Entailment"),  # precision 1
            audit_row("gpt2_wow", "p q", "Hallucination"),  # precision 1: the score ranks it last
            audit_row("gpt2_wow", "x y", "Entailment"),  # precision 0
            audit_row("gpt2_wow", "   ", "Generic"),  # empty: left out
        ]
    )
    table = baselines.audit_separation(rows)
    assert list(table.index) == ["WoW, gold", "WoW, GPT2", "all files"]
    assert table.loc["WoW, gold", "ROC AUC"] == 1.0 and table.loc["WoW, GPT2", "ROC AUC"] == 0.0
    assert table.loc["WoW, gold", "tuned accuracy"] == 1.0
    assert table.loc["WoW, GPT2", "responses"] == 2 and table.loc["all files", "responses"] == 5
    assert table.loc["all files", "hallucinated share"] == pytest.approx(3 / 5)


@pytest.mark.parametrize("name", ["label_distributions", "before_after", "audit_begin", "roc"])
def test_figures_fit_the_page_with_legible_text(name: str) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from utils.book.figures import MAX_WIDTH_INCHES

    frame = stats.utterances(utils.load("faithdial", "train"))
    files = {split: utils.load("faithdial_audit", split) for split in utils.split_names("faithdial_audit")}
    rows = stats.audit_rows(files)
    critic = baselines.LexicalCritic(threshold=0.5)
    make = {
        "label_distributions": lambda: stats.plot_label_distributions(frame),
        "before_after": lambda: stats.plot_before_after(frame),
        "audit_begin": lambda: stats.plot_audit_begin(stats.audit_begin_frame(rows)),
        "roc": lambda: baselines.plot_roc([critic.evaluate(baselines.audit_examples(rows), "audit")]),
    }
    fig = make[name]()
    try:
        assert fig.get_figwidth() <= MAX_WIDTH_INCHES
        sizes = [text.get_fontsize() for text in fig.findobj(Text) if text.get_text().strip()]
        assert sizes and min(sizes) >= 9, min(sizes)
    finally:
        plt.close(fig)


def test_alt_texts_and_tables_of_the_edits() -> None:
    frame = stats.utterances([_dialogue()])
    alt = stats.label_distributions_alt(frame)
    # one Hallucination and one Entailment of 2 responses; the VRM modes of both
    assert alt.startswith("Two horizontal bar charts of the training split's labelled responses. BEGIN classes: ")
    begin, vrm = alt.split(" BEGIN classes: ")[1].split(" VRM modes: ")
    assert [part.split(" (")[1] for part in begin.split(", ")] == ["50%)", "50%)."]
    assert [part.split(" ")[0] for part in vrm.split(", ")] == ["Edification", "Question"]
    assert "(100%)" in vrm and "(50%)" in vrm
    summary = stats.before_after_summary(frame)
    assert "(mean 4.0 before, 4.0 after)" in stats.before_after_alt(summary)
    assert "(mean 0% before, 75% after)" in stats.before_after_alt(summary)
    table = stats.before_after_table(summary, utils.load("faithdial", "train"))
    html = table.to_html()
    assert table.caption.startswith("Computed on the atlas's demo sample (faithdial/train)")
    assert ">mean knowledge precision (%)<" in html and ">75.0<" in html
    curves = [baselines.CriticResult("set", 2, 1, 1.0, 1.0, 0.75, np.array([0.0, 1.0]), np.array([0.0, 1.0]))]
    assert "set, AUC 0.75." in baselines.audit_roc_alt(curves)


def test_shares_in_words_count_responses_as_whole_numbers() -> None:
    table = pd.DataFrame({"responses": [3, 2], "share": [0.6, 0.4]}, index=["Hallucination", "Entailment"])
    assert stats.shares_text(table) == "Hallucination 3 (60%), Entailment 2 (40%)"
