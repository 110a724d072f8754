"""The JWHR chapter's claims about the official files: all hold on them, and a copy with one page
renamed is told apart in a sentence (the chapter builds and says what differs) instead of stopping."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

import utils
from conftest import require_real_file
from utils.book import chapters
from utils.datasets.jwhr import claims


def _load_both() -> tuple[list, list]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a user's copy is named as such; here it is meant
        return list(utils.load("jwhr", "answered")), list(utils.load("jwhr", "not_answered"))


@pytest.mark.realdata
def test_every_claim_holds_on_the_official_files(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "jwhr/answered.jsonl")
    checked = claims.check(*_load_both())
    assert len(checked) >= 10
    assert [claim.statement for claim in checked if not claim.holds] == []
    assert chapters.differences(checked) == ""


@pytest.mark.realdata
def test_a_copy_with_one_page_renamed_builds_and_says_what_differs(
    real_data_dir: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("answered.jsonl", "not_answered.jsonl"):
        original = require_real_file(real_data_dir, f"jwhr/{name}").read_text(encoding="utf-8")
        copy = data_dir / "jwhr" / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        # one page renamed wherever a step shows it, as a later version of the file might
        copy.write_text(original.replace('"title": "円相場"', '"title": "外国為替相場"'), encoding="utf-8")
    answered, not_answered = _load_both()
    checked = claims.check(answered, not_answered)
    failed = [claim for claim in checked if not claim.holds]
    assert [claim.statement for claim in failed] == [f"the most cited pages are {', '.join(claims.MOST_CITED)}"]
    note = chapters.finish(Path("no-such-chapter.ipynb"), started=time.perf_counter(), claims=checked)
    assert note.startswith("This copy differs from the official files in 1 of the")
    assert "円相場 not among the four most cited" in note


def test_a_claim_that_does_not_hold_is_a_sentence_not_an_error() -> None:
    held = chapters.Claim("the longest trail has 5 steps", True)
    broken = chapters.Claim("no session id occurs twice", False, "repeated: [7]")
    assert chapters.differences([held]) == ""
    assert chapters.differences([held, broken]) == (
        "This copy differs from the official files in 1 of the 2 facts the chapter states of them, so the "
        "text says more than these files show: no session id occurs twice (here: repeated: [7])."
    )
