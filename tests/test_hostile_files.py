"""Hostile or damaged input a user may meet at home: export targets that are not files, a CSV cut in a
quoted cell, huge ids, mathtext in data, bidirectional controls, one id in two splits."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from utils import load
from utils.cli import main as atlas
from utils.errors import DataError

# -- atlas export --out (item 9) ---------------------------------------------------------------------------


def test_export_into_a_fifo_writes_to_it_and_keeps_the_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    try:
        assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", str(fifo)]) == 0
    finally:
        if reader.is_alive():  # never leave the test hanging on an unopened FIFO
            with open(fifo, "wb"):
                pass
        reader.join(timeout=30)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert received and received[0].count(b"\n") >= 1


def test_export_into_a_device_writes_to_it_and_keeps_the_device(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the null device, in a folder of the test's own
        with open(device, "wb") as probe:
            probe.write(b"x")
    except OSError as exc:
        pytest.skip(f"cannot make a device node here ({exc})")
    assert atlas(["export", "jwhr", "answered", "--to", "parquet", "--out", str(device)]) == 0
    assert stat.S_ISCHR(device.lstat().st_mode)


def test_export_through_a_link_replaces_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", str(link)]) == 0
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_text().startswith('{"dataset": "jwhr"')


def test_export_to_standard_output(capfd: pytest.CaptureFixture[str]) -> None:
    assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", "-"]) == 0
    captured = capfd.readouterr()
    lines = captured.out.splitlines()
    assert lines and all(line.startswith('{"dataset": "jwhr"') for line in lines)
    assert "wrote" in captured.err and not Path("-").exists()


# -- a CSV cut inside a quoted cell (item 14) ----------------------------------------------------------------


def test_a_csv_cut_inside_a_quoted_cell_is_a_data_error(tmp_path: Path) -> None:
    from utils.formats._io import iter_csv_rows

    path = tmp_path / "wow.csv"
    path.write_text('a,b\n1,"whole"\n2,"The ancient Greeks als', encoding="utf-8")
    with pytest.raises(DataError, match=r"wow\.csv, record line 3: a quoted cell .* still open at the end"):
        list(iter_csv_rows(path))


def test_the_audit_loader_refuses_a_gold_file_cut_short(real_data_dir: Path, data_dir: Path) -> None:
    original = (real_data_dir / "faithdial-audit" / "gold" / "wow.csv").read_bytes()
    cut = data_dir / "faithdial-audit" / "gold" / "wow.csv"
    cut.parent.mkdir(parents=True)
    cut.write_bytes(original[:40_003])
    with pytest.raises(DataError, match=r"wow\.csv, record line \d+: 3 values for the header's 5 columns"):
        load("faithdial_audit", "gold_wow")


def test_a_csv_cut_between_two_cells_is_a_data_error(tmp_path: Path) -> None:
    from utils.formats._io import iter_csv_rows

    path = tmp_path / "wow.csv"
    path.write_text("a,b,c\n1,2,3\n4,5", encoding="utf-8")
    with pytest.raises(DataError, match=r"record line 3: 2 values for the header's 3 columns"):
        list(iter_csv_rows(path))
