"""The cross-dataset measures, on the demo samples (and on real data where it exists)."""

from __future__ import annotations

from pathlib import Path

import pytest

from utils.book import cross_dataset as xd
from utils.book import figures
from utils.book.figures import MAX_WIDTH_INCHES
from utils.metrics import token_prf
from utils.records import WIZARD
from utils.text import tokenizer_for


@pytest.fixture
def splits() -> dict:
    return xd.load_common()


def test_load_common_says_it_is_demo_data(splits: dict) -> None:
    assert list(splits) == list(xd.DATASETS)
    assert all(split.provenance.is_demo for split in splits.values())
    note = xd.data_note(splits)
    assert "Demo data" in note and "atlas-provenance-demo" in note
    assert xd.provenance_banners(splits).count("Demo sample, not the dataset") == len(splits)


def test_partial_copy_beats_demo(real_data_dir: Path) -> None:
    if not (real_data_dir / "wow" / "raw" / "train_sample.json").is_file():
        pytest.skip("no WoW train sample in the real data")
    chosen = xd.choose_split("wow")
    assert chosen.provenance.kind in ("official", "user copy", "partial")


def test_languages_and_tokenisers() -> None:
    assert [xd.language_of(name) for name in xd.DATASETS] == ["en", "en", "zh", "ja", "en"]


def test_side_by_side_counts_match_the_splits(splits: dict) -> None:
    table = xd.profiles(splits)
    assert table.shape[1] == len(xd.DATASETS) == 5
    for name, split in splits.items():
        column = table[xd.get_source(name).title]
        assert column["dialogues / sessions"] == len(split)
        assert column["turns"] == split.provenance.turns
        assert column["cite as"] == xd.get_source(name).citation_key


def test_side_by_side_reads_as_a_table_for_readers(splits: dict) -> None:
    html = xd.side_by_side(splits).to_html()
    # every demo split is named in the caption, counts are whole numbers, shares carry their unit
    assert "demo sample (begin/wow_dev, faithdial/valid, jwhr/answered, wise/valid, wow/valid_seen)" in html
    assert "Turns per dialogue (mean)" in html and "Wizard turns that select or cite evidence (%)" in html
    # JWHR's demo sample (utils/demo_data/jwhr/answered.jsonl): 3 sessions of 2 turns; every answer cites
    jwhr = xd.side_by_side(splits).data.set_index("Measure")["Japanese Wikipedia Human Retrieval"]
    assert jwhr["Turns"] == "6" and jwhr["Turns per dialogue (mean)"] == "2.0"
    assert jwhr["Wizard turns that select or cite evidence (%)"] == "100"
    assert jwhr["Evidence piece length (mean)"].endswith(" characters")
    assert "nan" not in html.lower().replace("nanoseconds", "")
    # WISE has no BEGIN/VRM labels: a dash explained under the table, not "0" or "no"
    assert "– no BEGIN or VRM labels in the dataset" in html
    described = xd.descriptions(splits).to_html()
    assert "Licence" in described and "dziri2022faithdial" in described


def test_side_by_side_hand_counted_on_the_faithdial_demo(splits: dict) -> None:
    # utils/demo_data/faithdial/valid.json: 2 dialogues, 4 wizard responses, each with one knowledge
    # sentence and BEGIN/VRM labels, so 2 seekers + 2 wizards per dialogue
    row = xd.profile("faithdial", splits["faithdial"])
    assert row["dialogues / sessions"] == 2 and row["turns"] == 8 and row["wizard turns"] == 4
    assert row["turns per dialogue (mean)"] == 4.0
    assert row["evidence pieces per wizard turn (mean)"] == 1.0
    assert row["wizard turns with selected / cited evidence"] == 1.0
    assert row["faithfulness labelled (turns with BEGIN/VRM)"] == 1.0
    assert row["data loaded"] == "valid, demo sample"


def test_roles_are_normalised(splits: dict) -> None:
    roles = xd.role_counts(splits)
    assert set(roles["atlas role"]) == {"seeker", "wizard"}
    assert roles["turns"].sum() == sum(split.provenance.turns for split in splits.values())
    html = xd.role_table(splits).to_html()
    assert "Speaker as named in the files" in html and "0_Wizard" in html


def test_overlap_matches_a_direct_computation(splits: dict) -> None:
    frame = xd.overlap_frame(splits)
    assert not frame.empty
    assert frame["coverage"].between(0, 1).all()
    assert frame["bigram_coverage"].between(0, 1).all()
    # a response's bigrams are found in its evidence less often than its words, for most responses
    assert (frame["bigram_coverage"] <= frame["coverage"] + 1e-9).mean() > 0.5
    for name, split in splits.items():
        tokenize = tokenizer_for(xd.language_of(name))
        expected = []
        for dialogue in split:
            for turn in dialogue.turns_by(WIZARD):
                used = " ".join(item.text for item in turn.selected_evidence if item.text)
                if turn.text and used and tokenize(turn.text) and tokenize(used):
                    expected.append(token_prf(tokenize(turn.text), tokenize(used)).precision)
        got = frame.loc[frame["dataset"] == xd.get_source(name).title, "coverage"].tolist()
        assert got == pytest.approx(expected), name
    measures = xd.overlap_measures(frame)
    assert list(measures.index) == [xd.get_source(name).title for name in xd.DATASETS if name in set(splits)]
    summary = xd.overlap_summary(frame, splits)
    assert list(summary.data.columns[1:]) == list(measures.index)  # one column per dataset
    assert "Coverage, median (%)" in summary.to_html() and "demo sample" in summary.caption


def test_plot_has_a_title_and_labels(splits: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    frame = xd.overlap_frame(splits)
    figure = xd.plot_overlap(frame, splits)
    assert figure.get_figwidth() <= MAX_WIDTH_INCHES
    axis = figure.axes[0]
    assert figure._suptitle is not None and figure.axes[-1].get_xlabel()
    assert "demo sample" in axis.get_yticklabels()[0].get_text()
    sizes = [label.get_fontsize() for ax in figure.axes for label in [*ax.get_yticklabels(), *ax.get_xticklabels()]]
    assert min(sizes) >= 9
    alt = xd.overlap_alt(frame)
    assert "Wizard of Wikipedia" in alt and "median coverage" in alt
    figures.figure(figure, caption="test", alt=alt)  # within the width a page shows without shrinking


def test_a_handful_of_responses_is_drawn_as_dots_without_a_box(splits: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    frame = xd.overlap_frame(splits)
    assert frame.groupby("dataset").size().max() < xd.MIN_BOX_RESPONSES  # the demo samples: a few each
    figure = xd.plot_overlap(frame, splits)
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert all("no box" in label for label in labels), labels
    assert not [line for line in figure.axes[0].get_lines() if len(line.get_xdata())]  # no box drawn


@pytest.mark.realdata
def test_real_and_demo_datasets_are_never_drawn_in_one_figure(real_data_dir: Path) -> None:
    common = xd.load_common()
    frame = xd.overlap_frame(common)
    groups = xd.overlap_groups(frame, common)
    kinds = [{split.provenance.is_full for split in group.values()} for _, _, group in groups]
    assert all(len(kind) == 1 for kind in kinds), kinds  # one kind of data per figure
    assert sum(len(rows) for _, rows, _ in groups) == len(frame)  # every response drawn once
    if any(split.provenance.is_full for split in common.values()):
        assert kinds in ([{True}, {False}], [{True}])  # the official files first
