"""The cross-dataset measures, on the demo samples (and on real data where it exists)."""

from __future__ import annotations

from pathlib import Path

import pytest

from utils.metrics import token_prf
from utils.records import WIZARD
from utils.stats import cross_dataset as xd
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
    assert [xd.language_of(name) for name in xd.DATASETS] == ["en", "en", "zh", "ja"]


def test_side_by_side_counts_match_the_splits(splits: dict) -> None:
    table = xd.side_by_side(splits)
    assert table.shape[1] == 4
    for name, split in splits.items():
        column = table[xd.get_source(name).title]
        assert column["dialogues / sessions"] == len(split)
        assert column["turns"] == split.provenance.turns
        assert column["cite as"] == xd.get_source(name).citation_key


def test_roles_are_normalised(splits: dict) -> None:
    roles = xd.role_table(splits)
    assert set(roles["atlas role"]) == {"seeker", "wizard"}
    assert roles["turns"].sum() == sum(split.provenance.turns for split in splits.values())


def test_overlap_matches_a_direct_computation(splits: dict) -> None:
    frame = xd.overlap_frame(splits)
    assert not frame.empty
    assert frame["coverage"].between(0, 1).all()
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
    summary = xd.overlap_summary(frame)
    assert list(summary.index) == [xd.get_source(name).title for name in xd.DATASETS if name in set(splits)]


def test_plot_has_a_title_and_labels(splits: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    figure = xd.plot_overlap(xd.overlap_frame(splits), splits)
    axis = figure.axes[0]
    assert figure._suptitle is not None and axis.get_xlabel()
    assert "demo sample" in axis.get_yticklabels()[0].get_text()
