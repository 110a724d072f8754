"""The BEGIN chapter's claims about the official files: all hold on them, and a copy that differs (a
split missing) is told apart in a sentence, not an error."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

import utils
from conftest import require_real_file
from utils.book import chapters
from utils.datasets.begin import baselines, claims, stats


def _official_splits() -> dict[str, list]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the splits not on this machine fall back to the demo sample
        loaded = {name: utils.load("begin", name) for name in utils.split_names("begin")}
    return {name: list(split) for name, split in loaded.items() if split.provenance.is_full}


@pytest.mark.realdata
def test_every_claim_holds_on_the_official_files(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "begin/wow/begin_test_wow.tsv")
    require_real_file(real_data_dir, "begin/cmu-dog/begin_dev_cmu.tsv")
    checked = claims.check(_official_splits())
    assert len(checked) >= 9
    assert [claim.statement for claim in checked if not claim.holds] == []


@pytest.mark.realdata
def test_a_copy_without_cmu_dog_builds_and_says_what_differs(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "begin/wow/begin_test_wow.tsv")
    splits = _official_splits()
    del splits["cmu_dev"]  # a reader who fetched only some of the files
    # the critics' frames (a bootstrap each) are those of WoW test, which CMU-DoG dev does not enter:
    # computed on WoW alone, as the chapter passes them
    wow = {name: splits[name] for name in ("wow_dev", "wow_test")}
    rows = baselines.critic_examples(stats.response_frame(wow))
    pairs = baselines.dev_test_pairs(list(wow))
    checked = claims.check(
        splits,
        evaluation=baselines.evaluate_on_test(rows, pairs),
        evaluation_by_model=baselines.evaluate_on_test(rows, pairs, by=("split", "model")),
        improvement=baselines.improvement_frame(rows, pairs),
    )
    failed = [claim.statement for claim in checked if not claim.holds]
    assert failed == ["Generic responses are most common in CMU-DoG dev"]
    note = chapters.finish(Path("no-such-chapter.ipynb"), started=time.perf_counter(), claims=checked)
    assert note.startswith(f"This copy differs from the official files in 1 of the {len(checked)} facts")
    assert "Generic responses are most common in CMU-DoG dev (here: most common in" in note


def test_on_the_demo_sample_the_claims_are_sentences_not_errors() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        splits = {name: list(utils.load("begin", name)) for name in utils.split_names("begin")}
    checked = claims.check(splits)  # the demo sample is not the dataset: whatever holds, nothing raises
    assert checked and all(isinstance(claim.holds, bool) for claim in checked)
