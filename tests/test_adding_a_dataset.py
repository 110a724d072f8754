"""A fifth dataset is added in one place: its entry in utils.sources.SOURCES.

The toy dataset (tests/toy_dataset/: a JSON Lines parser and a renderer) is declared once, and the
loader, the data status, the renderer, the static explorer and the cross-dataset comparison all see
it. A second test keeps it that way: no other table in utils/ lists datasets by name.
"""

from __future__ import annotations

import ast
import html as html_module
import json
import re
from pathlib import Path

import pytest

import utils
from utils import sources
from utils.render import render_dialogue
from utils.render.explorer import decode_items, static_explorer
from utils.sources import DatasetProfile, DatasetSource, SourceFile
from utils.stats import cross_dataset as xd

REPO = Path(__file__).resolve().parents[1]

TOY = DatasetSource(
    name="toy",
    title="Toy dialogues",
    language="English",
    format="JSON Lines (one dialogue per line)",
    homepage="https://example.org/toy",
    license="CC0",
    citation_key="toy2024",
    splits={"train": (SourceFile(path="toy/train.jsonl", url="https://example.org/toy/train.jsonl"),)},
    parser="toy_dataset.parser",
    renderer="toy_dataset.renderer",
    chapter_splits=("train",),
    profile=DatasetProfile(("train",), "dialogue (an asker and an expert)", "one sentence per expert turn",
                           "the expert's sentence is given"),
)

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
def toy(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The toy dataset declared in the registry (its one declaration) and its file in the data directory."""
    monkeypatch.setitem(sources.SOURCES, "toy", TOY)
    path = data_dir / "toy" / "train.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    return path


def test_the_toy_dataset_is_seen_everywhere(toy: Path) -> None:
    assert utils.dataset_names()[-1] == "toy"
    status = utils.data_status().set_index(["dataset", "split"])
    assert status.loc[("toy", "train"), "status"] == "official file present"

    split = utils.load("toy", "train")
    assert len(split) == 2 and split.provenance.is_full
    assert "2 dialogues" in split.provenance.summary()

    html = str(render_dialogue(split[1]))
    assert 'class="toy-dialogue"' in html and "And &lt;b&gt;black&lt;/b&gt; tea?" in html

    explorer = str(static_explorer(split, max_items=2))
    data = re.search(r'<script type="application/json" class="atlas-explorer-data">(.*?)</script>', explorer, re.S)
    embedded = json.dumps(decode_items(html_module.unescape(data.group(1))))
    assert "toy-dialogue" in embedded and "black tea" in embedded

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


def _dataset_tables(path: Path, names: set[str]) -> list[str]:
    """Literal dicts keyed by, and tuples/lists/sets of, two or more dataset names."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            items = node.keys
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = node.elts
        else:
            continue
        listed = {item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)}
        if len(listed & names) >= 2:
            found.append(f"{path.relative_to(REPO)}:{node.lineno} {sorted(listed & names)}")
    return found


def test_no_other_table_in_the_package_lists_the_datasets() -> None:
    names = set(sources.SOURCES)
    assert len(names) >= 6  # the scan below would pass vacuously on an empty registry
    tables = [
        table
        for path in sorted((REPO / "utils").rglob("*.py"))
        if path != REPO / "utils" / "sources.py"
        for table in _dataset_tables(path, names)
    ]
    assert tables == [], "declare datasets in utils/sources.py only"
    # the scan does find such a table
    assert _dataset_tables(REPO / "utils" / "sources.py", names)
