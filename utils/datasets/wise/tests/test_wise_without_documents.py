"""The WISE chapter with the conversation files but without the document collection.

The conversations are on GitHub, the documents only on Google Drive and Baidu Pan, so a user may
well have the first without the second. The chapter must then run on the conversations, not fall
back to the demo sample, compute what needs no passage text, and say once what needs the documents
instead of pairing real passage ids with the demo sample's invented text.

Small synthetic conversation files (:mod:`benchmarks.synthetic`, labelled so by the loader) stand in
for the official ones here: the test needs files in the official format that are not the demo
sample, nothing more. The data directory holds no ``document_line.json``.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import utils
from benchmarks.synthetic import write_all
from utils.datasets.wise.stats import WITHOUT_DOCUMENTS_NOTE

REPO = Path(__file__).resolve().parents[4]  # utils/datasets/wise/tests/ is four levels down


@pytest.mark.slow  # runs the chapter: 11 s of the folder tests' 58 s
@pytest.mark.filterwarnings("ignore")
def test_the_wise_chapter_runs_on_conversations_alone(data_dir: Path) -> None:
    write_all(data_dir, scale=0.02, datasets=["wise"])
    (data_dir / "wise" / "document_line.json").unlink()
    assert not utils.load("wise", "train").provenance.is_demo

    notebook = nbformat.read(REPO / "notebooks" / "wise.ipynb", as_version=4)
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(REPO / "notebooks")}}
    )
    client.execute()  # every cell runs, the chapter's own checks included

    outputs = "\n".join(
        str(output.get("text", "")) + str(output.get("data", {}).get("text/html", ""))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )
    assert WITHOUT_DOCUMENTS_NOTE in outputs  # said once, where the documents are loaded
    assert outputs.count(WITHOUT_DOCUMENTS_NOTE) == 1
    tables = outputs.replace(WITHOUT_DOCUMENTS_NOTE, "")
    assert "query selection" in tables and "passage selection</td>" not in tables
    assert "most similar sentence of the selected passages" not in tables
    assert "Demo sample, not the dataset" not in outputs  # no split fell back to the demo sample
    assert "Synthetic benchmark data" in outputs
