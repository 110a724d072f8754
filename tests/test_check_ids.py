"""Loading a split reads that split only; ids are checked across a dataset's splits by one explicit,
cached call, :func:`utils.check_ids`. Asked of the declarations: every dataset whose ``record_ids``
says each record is in one split only."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

import utils
from utils.errors import DataError
from utils.sources import registry, split_names

ONE_SPLIT_ONLY = [
    name
    for name, source in registry().items()
    if source.record_ids is not None and source.record_ids.unique_across_splits and len(source.splits) > 1
]


def _copy_demo(dataset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Each split's demo sample, in a copy of the dataset's folder that the registry then declares
    (the demo samples are the files a test may change: a small file in the data directory is refused)."""
    source = utils.get_source(dataset)
    folder = tmp_path / "folder"
    placed = {}
    for split, files in source.splits.items():
        target = folder / "demo" / files[0].path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source.demo_dir / files[0].path, target)
        placed[split] = target
    monkeypatch.setitem(registry(), dataset, dataclasses.replace(source, folder=folder))  # type: ignore[index]
    return placed


def test_some_dataset_declares_ids_unique_across_splits() -> None:
    assert ONE_SPLIT_ONLY, "no declaration to test the check with"


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("dataset", ONE_SPLIT_ONLY)
def test_loading_one_split_parses_no_other(
    dataset: str, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copy_demo(dataset, tmp_path, monkeypatch)
    built: list[str] = []  # every split the loader reads (from the cache or by parsing), by its label
    real = utils.loading._cache.load_or_build

    def spy(directory: Path, key: object, parse: object, *, label: str, **options: object) -> object:
        built.append(label)
        return real(directory, key, parse, label=label, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(utils.loading._cache, "load_or_build", spy)
    first = split_names(dataset)[0]
    utils.load(dataset, first, data_dir=data_dir)
    assert [label.split(" ")[0] for label in built] == [f"{dataset}/{first}"], built


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("dataset", ONE_SPLIT_ONLY)
def test_an_id_in_two_splits_is_found_by_the_explicit_check(
    dataset: str, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    placed = _copy_demo(dataset, tmp_path, monkeypatch)
    first, second = split_names(dataset)[:2]
    # the first record of the first split, repeated in the second: each file alone is still valid
    repeated = placed[first].read_text(encoding="utf-8").splitlines(keepends=True)[0]
    with placed[second].open("a", encoding="utf-8") as handle:
        handle.write(repeated)
    utils.load(dataset, first, data_dir=data_dir)  # a split loads alone, whatever its neighbours hold
    utils.load(dataset, second, data_dir=data_dir)
    with pytest.raises(DataError, match=f"also in {second}") as raised:
        utils.check_ids(dataset, data_dir=data_dir)
    assert str(placed[second]) in str(raised.value) and str(placed[first]) in str(raised.value)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("dataset", ONE_SPLIT_ONLY)
def test_a_passed_check_is_remembered_until_a_file_changes(
    dataset: str, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    placed = _copy_demo(dataset, tmp_path, monkeypatch)
    utils.check_ids(dataset, data_dir=data_dir)
    loads: list[str] = []
    real_load = utils.loading.load

    def counting_load(name: str, split: str, **options: object) -> object:
        loads.append(split)
        return real_load(name, split, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(utils.loading, "load", counting_load)
    utils.check_ids(dataset, data_dir=data_dir)  # remembered: nothing loaded again
    assert loads == []
    first, second = split_names(dataset)[:2]
    repeated = placed[first].read_text(encoding="utf-8").splitlines(keepends=True)[0]
    with placed[second].open("a", encoding="utf-8") as handle:
        handle.write(repeated)
    with pytest.raises(DataError):  # the file changed, so it is checked again
        utils.check_ids(dataset, data_dir=data_dir)
