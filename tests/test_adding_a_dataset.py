"""A new dataset is one new folder: tests/datasets/toy/ (declaration, parser, renderer) and nothing else.

Put beside the atlas's own folders, the toy dataset is seen by the loader, the data status, the
renderer, a chapter's view and the data viewer, the cross-dataset comparison, every ``atlas`` command and the
benchmark. A second test keeps it that way: outside ``utils/datasets/``, no module of the package
names a dataset.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import utils
import utils.datasets
from utils.book import cross_dataset as xd
from utils.book.render import render_dialogue
from utils.book.render.chapter_view import chapter_view
from utils.book.viewer_files import VIEWER_DIR_VARIABLE, read_rendering
from utils.cli import main as atlas
from utils.sources import registry

REPO = Path(__file__).resolve().parents[1]
TOY_FOLDERS = REPO / "tests" / "datasets"

RECORDS = [
    {
        "id": "d1",
        "topic": "green tea",
        "turns": [
            {"speaker": "asker", "text": "How hot should the water be?"},
            {"speaker": "expert", "text": "Green tea wants water at about 80 degrees.",
             "knowledge": "Green tea is brewed with water at 70 to 80 degrees."},
        ],
    },
    {
        "id": "d2",
        "topic": "black tea",
        "turns": [
            {"speaker": "asker", "text": "And <b>black</b> tea?"},
            {"speaker": "expert", "text": "Boiling water suits black tea.",
             "knowledge": "Black tea is brewed with boiling water."},
        ],
    },
]


@pytest.fixture
def toy(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy dataset's folder beside the atlas's own, and its file in the data directory."""
    monkeypatch.setattr(utils.datasets, "__path__", [*utils.datasets.__path__, str(TOY_FOLDERS)])
    utils.sources.discovered.cache_clear()
    path = data_dir / "toy" / "train.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    yield path
    utils.sources.discovered.cache_clear()


def test_the_toy_dataset_is_seen_everywhere(toy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert utils.dataset_names()[-1] == "toy"
    status = utils.data_status().set_index(["dataset", "split"])
    assert status.loc[("toy", "train"), "status"] == "official file present"

    split = utils.load("toy", "train")
    assert len(split) == 2 and split.provenance.is_full
    assert "2 dialogues" in split.provenance.summary()

    html = str(render_dialogue(split[1]))
    assert 'class="toy-dialogue"' in html and "And &lt;b&gt;black&lt;/b&gt; tea?" in html

    view = str(chapter_view(split, pinned={"train": [1]}))
    assert 'class="toy-dialogue"' in view and "And &lt;b&gt;black&lt;/b&gt; tea?" in view
    assert "../book/viewer/toy.html#viewer=toy/train&amp;level=dialogues&amp;row=" in view
    monkeypatch.setenv(VIEWER_DIR_VARIABLE, str(tmp_path / "viewer"))  # as during a book build
    assert '"path":"_viewer/toy/train/"' in str(chapter_view(split))
    assert "And &lt;b&gt;black&lt;/b&gt; tea?" in read_rendering(tmp_path / "viewer" / "toy" / "train", 1)

    assert xd.DATASETS[-1] == "toy" and xd.language_of("toy") == "en"
    compared = xd.load_common()
    assert list(compared)[-1] == "toy" and compared["toy"].provenance.is_full
    column = xd.profiles({"toy": compared["toy"]})["Toy dialogues"]
    assert column["unit of data"] == "dialogue (an asker and an expert)"
    assert column["dialogues / sessions"] == 2 and column["turns"] == 4
    # "Green tea wants water at about 80 degrees." against its sentence: green, tea, water, at, 80 and
    # degrees of the response's 8 words occur in the evidence
    overlap = xd.overlap_frame({"toy": compared["toy"]})
    assert overlap.loc[0, "coverage"] == pytest.approx(6 / 8)
    assert overlap.loc[0, "coverage"] == pytest.approx(6 / 8)


def test_every_command_of_atlas_knows_the_toy_dataset(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert atlas(["status", "--json"]) == 0
    assert {"dataset": "toy", "split": "train"}.items() <= json.loads(capsys.readouterr().out)["splits"][-1].items()
    assert atlas(["show", "toy", "train", "1"]) == 0
    assert "Boiling water suits black tea." in capsys.readouterr().out
    assert atlas(["stats", "toy", "train", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dialogues"] == 2
    out = tmp_path / "toy.jsonl"
    assert atlas(["export", "toy", "train", "--to", "jsonl", "--out", str(out)]) == 0
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["d1", "d2"]


def test_the_benchmark_measures_the_toy_dataset(toy: Path) -> None:
    from benchmarks import bench

    assert bench.benchmarked_datasets()[-1] == "toy"


def _dataset_names_in(path: Path, names: set[str]) -> list[str]:
    """Where ``path`` holds a dataset's name, as the registry spells it, in a string (docstrings and
    their examples included): equal to it, or one of its words. A dataset's title in prose (WISE,
    FaithDial) or a label scheme written as declared (``BEGIN``) is not its name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = set(re.findall(r"[A-Za-z_]+", node.value)) & names
            if named:
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {sorted(named)}")
    return found


def test_outside_the_dataset_folders_no_module_names_a_dataset() -> None:
    names = set(registry())
    assert len(names) >= 6  # the scan below would pass vacuously on an empty registry
    found = [
        hit
        for path in sorted((REPO / "utils").rglob("*.py"))
        if "datasets" not in path.relative_to(REPO / "utils").parts
        for hit in _dataset_names_in(path, names)
    ]
    assert found == [], "per-dataset code belongs in the dataset's folder, utils/datasets/<name>/"
    # the scan does find a dataset's name where one is written
    assert _dataset_names_in(REPO / "utils" / "datasets" / "jwhr" / "__init__.py", names)


def test_the_registry_imports_no_heavy_library() -> None:
    """Every load builds the registry, which imports every dataset's declaration: none of them may
    pull in scikit-learn, matplotlib or datasets (seconds of import time each) at module level."""
    import subprocess
    import sys

    code = (
        "import sys, utils; utils.sources.registry(); "
        "print(sorted(m for m in ('sklearn', 'matplotlib', 'datasets', 'scipy') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert result.stdout.strip() == "[]"


def test_every_dataset_names_its_functions_by_what_they_return() -> None:
    """``x_frame`` a DataFrame, ``x_table`` a formatted Table, ``x_alt`` text (book/contributing.md, Naming)."""
    import importlib
    import inspect

    expected = {"_frame": ("DataFrame",), "_table": ("Table",), "_alt": ("str",)}
    checked, wrong = 0, []
    for source in registry().values():
        for part in ("stats", "baselines"):
            try:
                module = importlib.import_module(f"utils.datasets.{source.folder.name}.{part}")
            except ModuleNotFoundError:
                continue
            for name, function in inspect.getmembers(module, inspect.isfunction):
                if function.__module__ != module.__name__ or name.startswith("_"):
                    continue
                for suffix, returns in expected.items():
                    if name.endswith(suffix):
                        checked += 1
                        annotation = str(inspect.signature(function).return_annotation)
                        if not annotation.endswith(returns):
                            wrong.append(f"{module.__name__}.{name} -> {annotation}")
    assert checked > 40 and wrong == []
