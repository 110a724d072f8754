"""The intro page's status panel counts what each file holds.

Every count the panel shows is held against an independent count of the file it was built on,
read here with the standard library only: JSON Lines lines, JSON list entries, TSV rows, and for
the hallucination audit's CSV files only the rows whose BEGIN cell is filled (``gold/topical.csv``
has 997 rows, 205 of them labelled). Real data (``realdata``) and the demo route (an empty data
directory, every split a demo sample) are both checked.
"""

from __future__ import annotations

import csv
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import utils
from conftest import is_archive
from utils.book.built_on import build_status_frame, chip_size, status_panel
from utils.sources import registry


def independent_count(path: Path) -> int | None:
    """Records of one file, by its format alone (no parser of the package); ``None`` for an archive,
    whose records only its dataset's parser knows how to find."""
    if is_archive(path):
        return None
    if path.suffix == ".jsonl" or path.name.endswith("_line.json"):
        return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    if path.suffix == ".json":
        return len(json.loads(path.read_text(encoding="utf-8")))
    if path.suffix == ".tsv":
        return len([line for line in path.read_text(encoding="utf-8").splitlines()[1:] if line])
    if path.suffix == ".csv":  # only labelled rows count: a BEGIN (or begin_label) cell that is filled
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            column = next(name for name in reader.fieldnames or [] if name.lower() in ("begin", "begin_label"))
            return sum(1 for row in reader if (row[column] or "").strip())
    raise AssertionError(f"no independent count for {path}")


class _Chips(HTMLParser):
    """``(dataset, split) -> (built on, chip kind, size text)`` from the panel's HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chips: dict[tuple[str, str], dict[str, str]] = {}
        self._dataset = ""
        self._in_code = False
        self._current: dict[str, str] | None = None
        self._part = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "code":
            self._in_code = True
        elif tag == "li" and "atlas-chip" in classes:
            self._current = {"split": attributes["data-split"] or "", "built on": attributes["data-built-on"] or ""}
            self._current["class"] = next(c for c in classes if c != "atlas-chip")
        elif tag == "span" and self._current is not None:
            self._part = next((c for c in classes if c.startswith("atlas-chip-")), "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self._in_code = False
        elif tag == "li" and self._current is not None:
            self.chips[(self._dataset, self._current["split"])] = self._current
            self._current = None
        elif tag == "span":
            self._part = ""

    def handle_data(self, data: str) -> None:
        if self._in_code:
            self._dataset = data
        elif self._current is not None and self._part:
            self._current[self._part] = self._current.get(self._part, "") + data


def panel_chips(html: str) -> dict[tuple[str, str], dict[str, str]]:
    parser = _Chips()
    parser.feed(html)
    return parser.chips


def _first_number(text: str) -> int:
    found = re.match(r"([\d,]+)\b", text)
    assert found, f"a chip's size does not start with a count: {text!r}"
    return int(found.group(1).replace(",", ""))


def _check_panel(data_dir: Path) -> tuple[int, int]:
    """``(splits whose count was checked, archives left to their parser)``."""
    frame = build_status_frame(data_dir)
    chips = panel_chips(str(status_panel(frame)))
    status = utils.data_status(data_dir)
    assert set(chips) == {(row.dataset, row.split) for row in status.itertuples()}
    rows_per_dataset = str(status_panel(frame)).count("<tr>") - 1  # the header row
    assert rows_per_dataset == len(registry()), "the panel has one row per dataset"
    checked = archives = 0
    for row in status.itertuples():
        chip = chips[(row.dataset, row.split)]
        source = registry()[row.dataset]
        # the split's file the row names and its directory: a split spread over several files counts whole
        item = next((item for item in source.splits[row.split] if row.path.endswith(item.path)), None)
        directory = Path(row.path[: -len(item.path)]) if item is not None else data_dir
        if row.status == utils.loading.DEMO:
            item, directory = source.splits[row.split][0], source.demo_dir
            assert chip["class"] == "atlas-chip-demo" and chip["atlas-chip-kind"] == "demo"
        elif row.status == "official file present":
            assert chip["class"] == "atlas-chip-official" and chip["atlas-chip-kind"] == "official"
        elif row.status == utils.loading.PARTIAL:
            assert chip["class"] == "atlas-chip-partial" and chip["atlas-chip-kind"] == "partial"
        else:
            continue
        assert item is not None, f"{row.dataset}/{row.split}: {row.path} is none of the split's files"
        paths = [directory / part.path for part in item.all_parts()]
        counts = [independent_count(path) for path in paths]
        expected = None if None in counts else sum(count or 0 for count in counts)
        if expected is None:  # an archive: its records are its parser's to find, which no other reader checks
            archives += 1
            assert _first_number(chip["atlas-chip-size"]) >= 0
            continue
        shown = _first_number(chip["atlas-chip-size"])
        held = ", ".join(path.name for path in paths)
        assert shown == expected, f"{row.dataset}/{row.split}: the panel shows {shown}, {held} hold {expected}"
        checked += 1
    return checked, archives


@pytest.mark.realdata
def test_the_panel_counts_each_real_file_as_an_independent_count_does(real_data_dir: Path) -> None:
    checked, archives = _check_panel(real_data_dir)
    assert checked + archives == len(utils.data_status(real_data_dir)) and checked
    chips = panel_chips(str(status_panel(build_status_frame(real_data_dir))))
    topical = chips[("faithdial_audit", "gold_topical")]
    if topical["atlas-chip-kind"] == "official":  # the published file: 205 labelled rows of 997, 789 blank
        assert topical["atlas-chip-size"] == "205"
        assert "789 blank rows" in topical["atlas-chip-other"] and "997 rows" in topical["atlas-chip-other"]


def test_the_demo_route_shows_every_split_as_a_demo_chip_with_its_demo_file_counted(data_dir: Path) -> None:
    checked, archives = _check_panel(data_dir)
    assert checked == len(utils.data_status(data_dir)) and archives == 0
    frame = build_status_frame(data_dir)
    assert set(frame["chip"]) == {"demo"}


def test_a_reported_size_is_set_against_the_loaded_count_of_the_same_unit(data_dir: Path) -> None:
    frame = build_status_frame(data_dir)
    sized = frame[frame["reported value"].notna()]
    assert len(sized), "no split has a reported size"
    for row in sized.to_dict("records"):
        expected = row["turns"] if row["reported unit"] in ("turns", "utterances") else row["size"]
        assert row["compared"] == expected
        chip = panel_chips(str(status_panel(frame)))[(row["dataset"], row["split"])]["atlas-chip-size"]
        assert f"{int(row['reported value']):,}" in chip, chip


@pytest.mark.realdata
def test_atlas_status_sizes_prints_one_line_per_dataset_with_the_labelled_count(
    real_data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from utils import cli

    monkeypatch.setenv("COLUMNS", "1000")  # one line per dataset, unwrapped
    assert cli.main(["status", "--sizes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == list(registry())
    audit = next(line for line in lines if line.startswith("faithdial_audit:"))
    if (real_data_dir / "faithdial-audit" / "gold" / "topical.csv").is_file():
        assert "gold_topical official 205 labelled responses (of 997 rows: 789 blank rows" in audit


def test_a_parlai_fixture_count_is_labelled_as_parlais_not_the_authors(data_dir: Path) -> None:
    """WoW's valid and test sizes (981, 965) are the episodes ParlAI's test fixtures record, not a count
    the dataset's authors publish: the chip says whose count it is; an authors' size says nothing more."""
    frame = build_status_frame(data_dir)
    chips = panel_chips(str(status_panel(frame)))
    for split in ("valid_seen", "test_seen"):
        assert chips[("wow", split)].get("atlas-chip-counter") == "(ParlAI's count)", chips[("wow", split)]
    assert "atlas-chip-counter" not in chips[("wow", "train")]  # the GEM card's 18,430
    assert "atlas-chip-counter" not in chips[("jwhr", "answered")]
    row = frame[(frame["dataset"] == "wow") & (frame["split"] == "valid_seen")].iloc[0]
    assert chip_size(row.to_dict()).endswith("of 981 dialogues (ParlAI's count)")  # the command line says it too
