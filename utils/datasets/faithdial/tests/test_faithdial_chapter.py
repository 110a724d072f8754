"""The FaithDial chapter reads as prose around its results: every visible code cell is one call and
one result, and no two of them follow each other without prose between."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

CHAPTER = Path(__file__).resolve().parents[4] / "notebooks" / "faithdial.ipynb"


def test_no_two_visible_code_cells_follow_each_other_without_prose() -> None:
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    hidden_or_exercise = {"remove-cell", "solution", "check", "grade"}
    visible = [cell["cell_type"] == "code" and not hidden_or_exercise & set(cell["metadata"].get("tags", []))
               for cell in cells]
    # a hidden cell between two visible ones does not put prose between them
    shown = [(index, is_code) for index, (cell, is_code) in enumerate(zip(cells, visible, strict=True))
             if is_code or cell["cell_type"] == "markdown"]
    runs = [(first, second) for (first, code_a), (second, code_b) in itertools.pairwise(shown)
            if code_a and code_b]
    assert runs == [], f"visible code cells without prose between: {runs}"
