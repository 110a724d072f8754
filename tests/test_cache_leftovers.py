"""What a killed build leaves is removed even when the file changed meanwhile; a data directory that is
a symlink loop is called one."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest
from test_cache import _build_slowly_in_child, cache_entries, cache_root, parser, rebuilt, write_source

import utils
from utils import config
from utils.loading import DemoDataWarning

__all__ = ["parser"]  # the fixture, imported to be used here


def _staging_directories() -> list[Path]:
    return [p for p in cache_root().iterdir() if p.is_dir() and p.name.startswith(".")]


def test_a_build_killed_before_its_file_changed_leaves_nothing(data_dir: Path, parser: dict[str, int]) -> None:
    write_source(data_dir, 400)  # 20 s at the child's pace: it is killed long before the end
    context = multiprocessing.get_context("spawn")
    child = context.Process(target=_build_slowly_in_child, args=(str(data_dir), str(cache_root())))
    child.start()
    try:
        deadline = time.monotonic() + 60
        staging: list[Path] = []
        while time.monotonic() < deadline:
            staging = _staging_directories()
            if staging and any(f.stat().st_size > 0 for f in staging[0].iterdir()):
                break
            time.sleep(0.05)
        assert staging, "the child never started writing its cache"
        os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
        child.join(30)
    finally:
        if child.is_alive():  # pragma: no cover - only when the test is failing anyway
            child.kill()
            child.join(10)
    assert child.exitcode == -signal.SIGKILL and staging[0].exists()
    write_source(data_dir, 10, words="changed")  # a new file: a new cache key
    split = utils.load("wow", "train")
    assert rebuilt(split) and len(split) == 10 and split[0].turns[0].text == "changed 0"
    assert not staging[0].exists()  # the dead build of the old key was removed too
    assert _staging_directories() == [] and len(cache_entries()) == 1


def test_a_staging_directory_of_a_live_build_is_left_alone(data_dir: Path, parser: dict[str, int]) -> None:
    from filelock import FileLock

    other_key = "0123456789abcdef01234567"
    live = cache_root() / f".{other_key}.abcdef"
    live.mkdir(parents=True)
    (live / "turns.arrow").write_bytes(b"half")
    write_source(data_dir, 3)
    with FileLock(str(cache_root() / f"{other_key}.lock")):  # another build of that key is running
        utils.load("wow", "train")
        assert live.exists()
    write_source(data_dir, 4)
    utils.load("wow", "train")  # that build died: its lock is free
    assert not live.exists()


def test_a_data_directory_that_is_a_symlink_loop_is_called_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loop = tmp_path / "data"
    loop.symlink_to(tmp_path / "other")
    (tmp_path / "other").symlink_to(loop)
    problem = config.data_dir_problem(loop)
    assert "is a symbolic link loop" in problem and "does not exist" not in problem
    monkeypatch.setenv("ATLAS_DATA_DIR", str(loop))
    with pytest.warns(DemoDataWarning, match="symbolic link loop"):
        utils.load("jwhr", "answered")
    dangling = tmp_path / "gone"
    dangling.symlink_to(tmp_path / "nowhere")
    assert "it is a link to" in config.data_dir_problem(dangling) and "not there" in config.data_dir_problem(dangling)
