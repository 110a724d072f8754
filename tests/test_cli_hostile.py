"""``atlas export`` and ``atlas show`` with unusual targets and huge fields."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from utils.cli import SHOW_CHARACTERS
from utils.cli import main as atlas

REPO = Path(__file__).resolve().parent.parent
DEMO_JWHR = REPO / "utils" / "datasets" / "jwhr" / "demo" / "jwhr" / "answered.jsonl"


def _atlas_subprocess(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "COLUMNS": "80",
        "ATLAS_OFFLINE": "1",
        "ATLAS_CACHE_DIR": str(tmp_path / "cache"),
        "ATLAS_DATA_DIR": str(tmp_path / "no-data"),
    }
    return subprocess.run(
        [sys.executable, "-m", "utils", *argv], capture_output=True, env=env, timeout=240
    )


@pytest.mark.parametrize("out", ["/dev/stdout", "/dev/fd/1"])
def test_export_onto_standard_output_by_name_keeps_status_off_the_data(tmp_path: Path, out: str) -> None:
    if not Path(out).exists():
        pytest.skip(f"{out} does not exist here")
    result = _atlas_subprocess(tmp_path, "export", "jwhr", "answered", "--to", "jsonl", "--out", out)
    assert result.returncode == 0, result.stderr.decode()
    lines = result.stdout.decode("utf-8").splitlines()
    assert len(lines) == 3 and all(json.loads(line)["dataset"] == "jwhr" for line in lines)
    assert "wrote 3 records" in result.stderr.decode()


def test_export_over_a_private_file_keeps_it_private(tmp_path: Path) -> None:
    target = tmp_path / "answers.jsonl"
    target.write_text("old\n")
    target.chmod(0o600)
    assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", str(target)]) == 0
    assert target.read_text().startswith('{"dataset": "jwhr"')
    assert target.stat().st_mode & 0o777 == 0o600
    # a new file gets the permissions any new file gets
    fresh = tmp_path / "fresh.jsonl"
    umask = os.umask(0o022)
    try:
        assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", str(fresh)]) == 0
    finally:
        os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("links", [1, 2])
def test_export_onto_a_symlink_loop_is_refused_and_keeps_the_links(
    tmp_path: Path, links: int, capsys: pytest.CaptureFixture[str]
) -> None:
    names = [tmp_path / f"loop{i}.jsonl" for i in range(links)]
    for i, name in enumerate(names):
        name.symlink_to(names[(i + 1) % links].name)
    assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", str(names[0])]) == 1
    err = capsys.readouterr().err
    assert f"cannot write {names[0]}: it is a symbolic link loop" in err
    assert all(name.is_symlink() for name in names)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(name.name for name in names)


def test_show_of_a_huge_field_shows_a_bounded_prefix_and_says_so(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    sessions = [json.loads(line) for line in DEMO_JWHR.read_text(encoding="utf-8").splitlines()]
    huge = "長" * 3_000_000 + "終"
    sessions[0]["question"] = huge
    folder = data_dir / "jwhr"
    folder.mkdir()
    (folder / "answered.jsonl").write_text(
        "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in sessions), encoding="utf-8"
    )
    started = time.monotonic()
    assert atlas(["show", "jwhr", "answered", "0"]) == 0
    elapsed = time.monotonic() - started
    out = capsys.readouterr().out
    assert f"{len(huge) - SHOW_CHARACTERS:,} more characters not shown, {len(huge):,} in all" in out
    assert "終" not in out and out.count("長") == SHOW_CHARACTERS
    assert len(out) < 5 * SHOW_CHARACTERS + 20_000
    assert elapsed < 60, f"{elapsed:.0f} s"
