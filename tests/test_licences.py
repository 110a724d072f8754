"""Each dataset's licence is the one its publisher states, and the atlas names that statement (issue 46,
item 1). Where the statement is in the data directory (ParlAI's LICENSE_DOCUMENTATION beside WoW's
fixtures, BEGIN's LICENSE and NOTICE files), the test reads it; it is skipped where it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from utils.sources import datasets_table, registry

CC_BY_4 = "Attribution 4.0 International"


def test_every_dataset_names_the_statement_its_licence_comes_from() -> None:
    for name, source in registry().items():
        assert source.license_statement.strip(), f"{name}: no licence statement named"
    table = datasets_table().set_index("name")
    assert table.loc["wow", "licence stated in"].startswith("ParlAI's parlai/tasks/wizard_of_wikipedia/README.md")


def test_wow_s_licence_is_the_one_parlai_s_license_documentation_states(real_data_dir: Path) -> None:
    statement = real_data_dir / "wow" / "parlai" / "LICENSE_DOCUMENTATION"
    if not statement.is_file():
        pytest.skip(f"ParlAI's LICENSE_DOCUMENTATION is not in {real_data_dir}")
    text = statement.read_text(encoding="utf-8")
    assert text.lstrip().startswith(CC_BY_4)
    wow = registry()["wow"]
    assert wow.license == "CC BY 4.0" and "LICENSE_DOCUMENTATION" in wow.license_statement
    assert "MIT" not in wow.license and "MIT" not in wow.redistribution


def test_begin_s_licences_are_those_of_its_folders_licence_files(real_data_dir: Path) -> None:
    folder = real_data_dir / "begin"
    if not (folder / "LICENSE").is_file():
        pytest.skip(f"BEGIN's LICENSE is not in {real_data_dir}")
    begin = registry()["begin"]
    assert "cmu-dog/LICENSE" in (folder / "LICENSE").read_text(encoding="utf-8")
    for part in ("wow", "cmu-dog"):
        assert (folder / part / "LICENSE").read_text(encoding="utf-8").lstrip().startswith(CC_BY_4)
    # BEGIN's WoW NOTICE cites ParlAI's LICENSE_DOCUMENTATION: the same licence as the WoW declaration's
    notice = (folder / "wow" / "NOTICE").read_text(encoding="utf-8")
    assert "CC-BY-4.0" in notice and "LICENSE_DOCUMENTATION" in notice
    assert registry()["wow"].license == "CC BY 4.0"
    topical = (folder / "topicalchat" / "LICENSE").read_text(encoding="utf-8", errors="replace")
    assert "Community Data License Agreement" in topical
    assert "CC BY 4.0 (WoW, CMU-DoG files)" in begin.license and "Community Data License Agreement" in begin.license
