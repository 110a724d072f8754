"""A CSV or TSV copy cut inside the unquoted last cell of its last row is refused, naming the line.

Such a file still parses: only the last row's last cell is shorter (a label lost or cut), so the
loader refuses a copy that is not the official file when it ends inside a line although its other
lines end with a line break. The official files that end without one stay accepted (their checksum
says they are the published files).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from utils import load
from utils.errors import DataError
from utils.formats._io import refuse_a_cut_last_line

HEADER = "evidence,history,response,BEGIN,VRM\r\n"
ROWS = [
    '"Tea is a drink.",hi,"Tea is a drink, yes.",Entailment,Edification\r\n',
    '"Tea comes from China.",where from?,"From China, I think.",Entailment,"Disclosure,Edification"\r\n',
    '"Green tea is not oxidised.",and green tea?,"It is never oxidised, like all tea.",Hallucination,Disclosure\r\n',
]


#: Rows enough for a copy near the official file's size (a far smaller file is refused before parsing).
REPEATS = 250


def _gold_copy(data_dir: Path, text: str) -> Path:
    path = data_dir / "faithdial-audit" / "gold" / "wow.csv"
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def test_a_copy_cut_inside_its_unquoted_last_cell_is_refused(data_dir: Path) -> None:
    whole = HEADER + "".join(ROWS) * REPEATS
    path = _gold_copy(data_dir, whole[: -len("osure\r\n")])  # the last row's VRM label, cut: "Discl"
    with (
        pytest.raises(DataError, match=r"wow\.csv, record line 751: the file ends inside its last line") as caught,
        pytest.warns(UserWarning, match="does not match the official checksum"),
    ):
        load("faithdial_audit", "gold_wow")
    assert str(path) in str(caught.value) and "cut short" in str(caught.value)


def test_a_whole_copy_loads_with_every_label(data_dir: Path) -> None:
    _gold_copy(data_dir, HEADER + "".join(ROWS) * REPEATS)
    with pytest.warns(UserWarning, match="does not match the official checksum"):
        split = load("faithdial_audit", "gold_wow")
    assert split.provenance.kind == "user copy"
    labels = [d.turns[-1].labels["VRM"] for d in split]
    assert labels == [["Edification"], ["Disclosure", "Edification"], ["Disclosure"]] * REPEATS


@pytest.mark.parametrize(
    ("content", "refused"),
    [
        (b"a,b\n1,2\n", False),
        (b"a,b\r\n1,2\r\n", False),
        (b"a,b", False),  # one line: no other line to compare with
        (b"", False),
        (b"a,b\n1,2", True),
        (b"a,b\r\n1,2\r\n3,", True),
    ],
)
def test_which_files_end_inside_a_line(tmp_path: Path, content: bytes, refused: bool) -> None:
    path = tmp_path / "f.csv"
    path.write_bytes(content)
    if refused:
        last_line = content.count(b"\n") + 1
        with pytest.raises(DataError, match=rf"record line {last_line}"):
            refuse_a_cut_last_line(path)
    else:
        refuse_a_cut_last_line(path)
    other = tmp_path / "f.jsonl"  # a JSON line cut short fails to parse: nothing to add there
    other.write_bytes(content)
    refuse_a_cut_last_line(other)


@pytest.mark.realdata
def test_the_real_gold_file_cut_in_its_last_label_is_refused(real_data_dir: Path, data_dir: Path) -> None:
    original = (real_data_dir / "faithdial-audit" / "gold" / "cmu.csv").read_bytes()
    assert not original.endswith(b"\n")  # as published: the official file itself has no final line break
    assert original.endswith(b",Hallucination,disclosure")
    cut = data_dir / "faithdial-audit" / "gold" / "cmu.csv"
    cut.parent.mkdir(parents=True)
    cut.write_bytes(original[: -len("closure")])
    last_line = original.count(b"\n") + 1
    with (
        pytest.raises(DataError, match=rf"cmu\.csv, record line {last_line}: the file ends inside"),
        pytest.warns(UserWarning, match="does not match the official checksum"),
    ):
        load("faithdial_audit", "gold_cmu")


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("dataset", "split"),
    [("faithdial_audit", "gold_cmu"), ("faithdial_audit", "gold_wow"), ("faithdial_audit", "gold_topical")],
)
def test_the_official_files_without_a_final_line_break_still_load(
    real_data_dir: Path, dataset: str, split: str
) -> None:
    loaded = load(dataset, split)
    assert loaded.provenance.kind == "official" and len(loaded) > 0
