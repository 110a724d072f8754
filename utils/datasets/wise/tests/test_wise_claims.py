"""The WISE chapter's claims about the official files: they hold on the official files (skipped where
they are absent: none is on every machine), hold on the demo sample, which keeps the files' shape,
and a copy that differs is told apart in a sentence, not an error."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conftest import load_every_split, require_real_file
from utils.book import chapters
from utils.datasets.wise import claims


@pytest.mark.realdata
def test_every_claim_holds_on_the_official_files(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wise/conversation_train_line.json")
    require_real_file(real_data_dir, "wise/conversation_test_line.json")
    assert [claim.statement for claim in claims.check(load_every_split("wise")) if not claim.holds] == []


def test_the_demo_sample_keeps_the_test_files_shape() -> None:
    checked = claims.check(load_every_split("wise"))
    assert [claim.holds for claim in checked[:2]] == [True, True]


def test_a_test_file_that_is_not_the_union_is_told_in_a_sentence() -> None:
    splits = load_every_split("wise")
    splits["test_unseen"] = list(splits["test_unseen"])[1:]  # a copy missing one unseen conversation
    checked = claims.check(splits)  # type: ignore[arg-type]
    assert [claim.holds for claim in checked[:2]] == [True, False]
    note = chapters.finish(Path("no-such-chapter.ipynb"), started=time.perf_counter(), claims=checked)
    assert "the test file holds exactly the conversations of the seen and unseen test files (here: 1 " in note
