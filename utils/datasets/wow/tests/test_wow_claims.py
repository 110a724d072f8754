"""The WoW chapter's claims: they hold on the real files (the KILT dev split, the published train
sample) and on the demo sample, and a split that breaks one is told apart in a sentence."""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import pytest

import utils
from conftest import load_every_split, load_written, require_real_file
from utils.book import chapters
from utils.datasets.wow import claims


@pytest.mark.realdata
def test_every_claim_holds_on_the_real_files(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/kilt/wow-dev-kilt.jsonl")
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the splits not on this machine fall back to the demo sample
        checked = claims.check({"train": utils.load("wow", "train")}, utils.load("wow_kilt", "dev"))
    assert len(checked) == 5
    assert [claim.statement for claim in checked if not claim.holds] == []


def test_every_claim_holds_on_the_demo_sample() -> None:
    checked = claims.check(load_every_split("wow"), utils.load("wow_kilt", "dev"))
    assert [claim.statement for claim in checked if not claim.holds] == []


def test_a_split_whose_teachers_disagree_is_told_in_a_sentence(tmp_path: Path) -> None:
    def turn(speaker: str, index: int) -> dict:
        unused = {"no_passages_used": "no_passages_used"}
        wizard = {"checked_sentence": unused, "checked_passage": unused} if speaker == "wizard" else {}
        return {"speaker": speaker, "text": f"turn {index}", "retrieved_passages": [], **wizard}

    # lower-case speakers: the generator's test is case-sensitive, the basic teachers' is not, so
    # the wizard teachers count different examples (as a copy edited by hand might)
    dialogue = {"chosen_topic": "Tea", "persona": "", "wizard_eval": 4, "chosen_topic_passage": ["Tea is a drink."],
                "dialog": [turn(speaker, i) for i, speaker in enumerate(["wizard", "apprentice"] * 2)]}
    checked = claims.check({"train": load_written("wow", "train", json.dumps([dialogue]), tmp_path)})
    failed = [claim.statement for claim in checked if not claim.holds]
    assert "in every split the generator, wizard_dialog_knowledge and basic_wizard_dialog teachers count the " \
           "same examples" in failed
    note = chapters.finish(Path("no-such-chapter.ipynb"), started=time.perf_counter(), claims=checked)
    assert note.startswith("This copy differs from the official files in") and "(here: not in train)" in note
