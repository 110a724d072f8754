"""What FaithDial and the hallucination audit add to the book's data viewer (:mod:`utils.book.viewer_files`):
their rows' facets, columns and search words, and example SQL."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from utils.book.viewer_fields import Columns, Facets, rounded_mean, unique_values, word_count
from utils.book.viewer_files import Query, SplitRows

from ...records import WIZARD, Dialogue
from .audit_parser import begin_class

#: What the dataset's viewer page (``book/viewer/faithdial.md``, written by the build) says its rows are.
PAGE_ROWS = "Every row of FaithDial's splits, and the hallucination audit's files"

#: The audit's class of a row is one label. (Hooks found by name: see :mod:`utils.book.viewer_fields`.)
SINGLE_LABELS = ("BEGIN class of the audit row",)

#: The turns' BEGIN class, one spelling for every file: beside the BEGIN list as written (see :func:`rows`).
BEGIN_CLASS = "BEGIN class (normalised)"

COLUMN_NOTES = {
    BEGIN_CLASS: "The turn's BEGIN list read as one of the five classes, the same in every file: the audit's gold "
                 "files write Partial Hallucination as that label, the model files and FaithDial as the list "
                 "Entailment, Hallucination (the BEGIN column keeps what the file wrote). Query this column to "
                 "compare gold and model files, or FaithDial with its audit, in one query.",
}

QUERIES: tuple[Query, ...] = (
    (
        "BEGIN labels as written, by role",
        "SELECT role, label, count(*) AS turns\nFROM (SELECT role, unnest(BEGIN) AS label FROM turns)\n"
        "GROUP BY role, label ORDER BY turns DESC",
        ("turns.role", "turns.BEGIN"),
    ),
    (
        "BEGIN classes, one spelling for gold and model files",
        f'SELECT "{BEGIN_CLASS}" AS class, count(*) AS turns FROM turns\nWHERE "{BEGIN_CLASS}" IS NOT NULL '
        "GROUP BY class ORDER BY turns DESC",
        (f"turns.{BEGIN_CLASS}",),
    ),
    (
        "Responses labelled Hallucination, with their text",
        "SELECT \"dialogue id\", turn, text FROM turns\nWHERE list_contains(BEGIN, 'Hallucination') LIMIT 100",
        ("turns.BEGIN", "turns.text"),
    ),
)


# -- the facets, columns and search words of its rows (its declaration names them) ---------------

def _label_facets(dialogue: Dialogue) -> Facets:
    # Read from every turn's labels: whichever turn the parser gives them to, the facet follows.
    # Named for what they count: a dialogue can carry several labels (one per turn, or two on one
    # turn), so their chip counts differ from those of the one class of an audit row.
    return {
        f"{name} labels": unique_values(label for turn in dialogue.turns for label in turn.labels.get(name, []))
        for name in ("BEGIN", "VRM")
    }


def facets(dialogue: Dialogue) -> Facets:
    """A FaithDial dialogue's BEGIN and VRM labels, and whether its responses were edited."""
    found = _label_facets(dialogue)
    responses = [turn for turn in dialogue.turns_by(WIZARD) if not turn.raw.get("from_history")]
    found["edited"] = unique_values(
        "edited" if (turn.raw.get("original_response") or "").strip() else "not edited" for turn in responses
    )
    return {name: values for name, values in found.items() if values}


def audit_facets(dialogue: Dialogue) -> Facets:
    """An audit row's BEGIN and VRM labels as written, and the one BEGIN class the chapter counts."""
    found = _label_facets(dialogue)
    # The model files write Partial Hallucination as the two labels Entailment and Hallucination,
    # which the labels facet shows as written.
    found["BEGIN class of the audit row"] = [str(dialogue.meta.get("begin_class") or "no BEGIN label")]
    return {name: values for name, values in found.items() if values}


def audit_columns(dialogue: Dialogue) -> Columns:
    """Response and knowledge lengths, in words."""
    wizard = [turn for turn in dialogue.turns_by(WIZARD) if turn.text.strip()]
    knowledge = [word_count(" ".join(item.text for item in turn.evidence)) for turn in wizard if turn.evidence]
    return {
        "response length (words)": rounded_mean([word_count(turn.text) for turn in wizard]),
        "knowledge length (words)": rounded_mean(knowledge),
    }


def columns(dialogue: Dialogue) -> Columns:
    """Turns, and response and knowledge lengths in words."""
    return {"turns": len(dialogue.turns), **audit_columns(dialogue)}


def rows(dialogues: Sequence[Dialogue], found: SplitRows) -> SplitRows:
    """The turns' BEGIN lists also as one class each (:data:`BEGIN_CLASS`, by
    :func:`~utils.datasets.faithdial.audit_parser.begin_class`), next to the list as the file wrote it: the
    gold audit files spell ``Partial Hallucination`` where the model files (and FaithDial) write the list
    ``Entailment, Hallucination``, so one query over the normalised column counts both alike."""
    turns = found.frames.get("turns")
    if turns is not None and "BEGIN" in turns.columns and BEGIN_CLASS not in turns.columns:
        classes = [begin_class(labels) if isinstance(labels, list | tuple) else None for labels in turns["BEGIN"]]
        at = list(turns.columns).index("BEGIN") + 1
        turns.insert(at, BEGIN_CLASS, pd.Series(classes, index=turns.index, dtype=object))
        found.kinds.setdefault("turns", {})[BEGIN_CLASS] = "label"
    return found
