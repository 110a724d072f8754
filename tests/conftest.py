"""Shared fixtures: no test touches the network, and each test gets its own cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Read before the autouse fixture below replaces it with an empty directory.
_CONFIGURED_DATA_DIR = os.environ.get("ATLAS_REAL_DATA_DIR") or os.environ.get("ATLAS_DATA_DIR")


def _real_data_dir() -> Path | None:
    candidates = [Path(_CONFIGURED_DATA_DIR)] if _CONFIGURED_DATA_DIR else []
    candidates.append(REPO.parent / "shared" / "data")
    for candidate in candidates:
        if candidate.is_dir() and any(candidate.iterdir()):
            return candidate
    return None


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Offline, with a fresh cache and an empty data directory unless a test asks for real data."""
    monkeypatch.setenv("ATLAS_OFFLINE", "1")
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path_factory.mktemp("empty-data")))


@pytest.fixture
def real_data_dir(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory of real data (``../shared/data`` here); the test is skipped where it is absent."""
    found = _real_data_dir()
    if found is None:
        pytest.skip("real data not available (set ATLAS_DATA_DIR or place ../shared/data beside the repo)")
    monkeypatch.setenv("ATLAS_DATA_DIR", str(found))
    return found


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data directory of the test's own, set as ``ATLAS_DATA_DIR``: put files in it by hand."""
    directory = tmp_path / "data"
    directory.mkdir()
    monkeypatch.setenv("ATLAS_DATA_DIR", str(directory))
    return directory


@pytest.fixture
def demo_dir() -> Path:
    """The project's demo samples."""
    from utils.config import demo_dir

    return demo_dir()


def require_real_file(data_dir: Path, relative: str) -> Path:
    """``data_dir / relative``, or skip the test when that real file is absent."""
    path = data_dir / relative
    if not path.is_file():
        pytest.skip(f"real file {relative} not in {data_dir}")
    return path
