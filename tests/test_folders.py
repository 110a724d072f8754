"""A dataset is its folder, all of it: its tests sit in ``utils/datasets/<folder>/tests/`` (collected with
the suite), and no file of ``tests/`` is named after a dataset."""

from __future__ import annotations

import tomllib
from pathlib import Path

from utils.sources import registry

ROOT = Path(__file__).resolve().parent.parent


def _folders() -> set[str]:
    return {source.folder.name for source in registry().values()}


def test_no_file_of_the_suite_is_named_after_a_dataset() -> None:
    names = _folders() | set(registry())
    named = [
        path.name
        for path in (ROOT / "tests").rglob("*.py")
        if names & set(path.stem.split("_")) or any(f"_{name}_" in f"_{path.stem}_" for name in names)
    ]
    assert named == [], "move each into its dataset's folder, utils/datasets/<folder>/tests/"


def test_each_dataset_folder_holds_its_tests() -> None:
    for folder in _folders():
        tests = ROOT / "utils" / "datasets" / folder / "tests"
        assert (tests / "__init__.py").is_file(), f"{folder}: no tests package"
        assert list(tests.glob("test_*.py")), f"{folder}: no tests"


def test_the_folders_tests_are_collected_by_default_and_left_out_of_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "utils/datasets" in config["tool"]["pytest"]["ini_options"]["testpaths"]
    assert "utils.datasets.*.tests" in config["tool"]["setuptools"]["packages"]["find"]["exclude"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert any(line.startswith("TESTS ?=") and "utils/datasets" in line for line in makefile.splitlines())
