"""The FaithDial chapter's claims about the official audit files: all hold on them, and a copy that
differs (one file with a row relabelled) is told apart in a sentence, not an error. A threshold
fitted on the demo sample never scores a real audit file."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import utils
from conftest import require_real_file
from utils.book import chapters
from utils.datasets.faithdial import baselines, claims

AUDIT_FILES = ("gold/wow.csv", "gold/cmu.csv", "gold/topical.csv")


def _audit() -> dict[str, list]:
    return {name: list(utils.load("faithdial_audit", name)) for name in utils.split_names("faithdial_audit")}


@pytest.mark.realdata
def test_every_claim_holds_on_the_official_audit_files(real_data_dir: Path) -> None:
    for name in AUDIT_FILES:
        require_real_file(real_data_dir, f"faithdial-audit/{name}")
    checked = claims.check_audit(_audit())
    assert len(checked) == 3
    assert [claim.statement for claim in checked if not claim.holds] == []


@pytest.mark.realdata
def test_a_copy_with_one_gold_row_relabelled_says_what_differs(real_data_dir: Path, data_dir: Path) -> None:
    require_real_file(real_data_dir, "faithdial-audit/gold/wow.csv")
    for path in (real_data_dir / "faithdial-audit").rglob("*.csv"):
        copy = data_dir / path.relative_to(real_data_dir)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(path.read_bytes())
    gold = data_dir / "faithdial-audit" / "gold" / "wow.csv"
    text = gold.read_bytes()  # as bytes: the file's line ends stay as they are
    assert b",Hallucination," in text
    # one judgement changed; the official file's last line has no line break, which only the official
    # file (its checksum) is forgiven: a copy ends it as the parser's error asks
    gold.write_bytes(text.replace(b",Hallucination,", b",Entailment,", 1).rstrip(b"\n") + b"\n")
    checked = claims.check_audit(_audit())
    failed = [claim for claim in checked if not claim.holds]
    assert [claim.statement for claim in failed] == [
        "122 of the 200 labelled gold WoW responses are Hallucination or Partial Hallucination"
    ]
    note = chapters.finish(Path("no-such-chapter.ipynb"), started=time.perf_counter(), claims=checked)
    assert note.startswith("This copy differs from the official files in 1 of the 3 facts")
    assert "(here: 121 of 200)" in note


def test_a_demo_threshold_never_scores_a_real_audit_file() -> None:
    real, demo = SimpleNamespace(provenance=SimpleNamespace(is_full=True)), SimpleNamespace(provenance=None)
    audit = {"gold_wow": real, "gpt2_wow": demo}
    assert list(baselines.audit_files_to_score(audit, fitted_on_full=False)) == ["gpt2_wow"]
    assert list(baselines.audit_files_to_score(audit, fitted_on_full=True)) == ["gold_wow", "gpt2_wow"]
