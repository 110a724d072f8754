"""Numbers the datasets' authors reported, each with its source: the queries over every dataset's,
and the one reported-versus-reproduced comparison.

A number is declared in its dataset's folder (``reported.py``, with :class:`~utils.declaration.Reported`
and :func:`~utils.declaration.number` of the schema module); the queries here ask the registry for
all of them when called, so they sit above it.

Chapters set these beside the numbers they compute from data at run time; nothing here is ever
shown as reproduced. ``source`` is a short human-readable citation that says where on the cited
page the number stands, and ``citation_key`` a key of the book's bibliography for that page (the
dataset folder's ``citation.bib``, or ``book/references.bib``). Only numbers a readable source
states are listed: a paper's table the atlas has not transcribed is left out (the chapters say
so) rather than filled in from memory.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .declaration import LOWER_BOUND, Reported
from .errors import UnknownNameError

if TYPE_CHECKING:
    import pandas as pd


def all_reported() -> tuple[Reported, ...]:
    """Every reported number of every declared dataset (each dataset's ``reported.py``)."""
    # Asked of the registry when called: the registry imports the folders, whose chapters' code imports this module.
    from .sources import registry

    return tuple(item for source in registry().values() for item in source.reported)


def reported(dataset: str, name: str | None = None, split: str | None = None) -> pd.DataFrame:
    """The reported numbers of ``dataset`` as a table, optionally narrowed to one name or split."""
    import pandas as pd  # here, not at the top: ``import utils`` stays quick

    datasets = sorted({item.dataset for item in all_reported()})
    if dataset not in datasets:
        raise UnknownNameError("dataset with reported numbers", dataset, datasets)
    rows = [
        item
        for item in all_reported()
        if item.dataset == dataset
        and (name is None or item.name == name)
        and (split is None or item.split == split)
    ]
    return pd.DataFrame([vars(item) for item in rows])


def reported_value(dataset: str, name: str, split: str = "") -> Reported:
    """Exactly one reported number; raises :class:`KeyError` naming what exists when absent."""
    for item in all_reported():
        if (item.dataset, item.name, item.split) == (dataset, name, split):
            return item
    known = sorted({f"{i.name}@{i.split or 'all'}" for i in all_reported() if i.dataset == dataset})
    raise UnknownNameError("reported number", f"{name}@{split or 'all'}", known, of=dataset)


# -- the one reported-versus-reproduced comparison ---------------------------------------------------

#: Status of a comparison row. Only ``HELD`` and ``FAILED`` are checks; the others say why not.
HELD = "held"
FAILED = "failed"
NOT_CHECKED = "not checked"
QUOTED_ONLY = "quoted only"

#: Names of quantities as a reader reads them, besides those each dataset declares
#: (``quantity_labels``); anything absent reads as its name with spaces.
QUANTITY_LABELS = {"turns_per_dialogue": "turns per dialogue"}


def quantity_label(name: str) -> str:
    """``name`` as the tables show it (``turns_per_dialogue`` reads "turns per dialogue")."""
    from .sources import registry  # see all_reported

    for source in registry().values():
        if name in source.quantity_labels:
            return source.quantity_labels[name]
    return QUANTITY_LABELS.get(name, name.replace("_", " "))


@dataclass(frozen=True)
class Reproduced:
    """A value computed from loaded data, with what it was computed on.

    ``kinds`` are the provenance kinds (:mod:`utils.loading`) of the splits the value needs; the row
    is checked only when every one of them is a complete official split. ``value`` is ``None`` when
    a split it needs was not loaded, or (``not_computed`` says why) when no value would be honest.
    ``note`` says why a row cannot be checked even on full data (for example a definition the source
    does not publish).
    """

    value: float | None
    kinds: tuple[str, ...]
    tolerance: float = 0.0
    note: str = ""
    not_computed: str = "split not loaded"


_FULL_KINDS = ("official", "user copy")


def _status(item: Reported, computed: Reproduced | None) -> str:
    if computed is None:
        return QUOTED_ONLY
    if computed.value is None:
        return f"{NOT_CHECKED}: {computed.not_computed}"
    if computed.note:
        return f"{NOT_CHECKED}: {computed.note}"
    partial = sorted({kind for kind in computed.kinds if kind not in _FULL_KINDS})
    if partial or not computed.kinds:
        return f"{NOT_CHECKED}: {', '.join(partial) or 'no provenance'}"
    if item.bound == LOWER_BOUND:
        return HELD if computed.value > item.value else FAILED
    return HELD if abs(computed.value - item.value) <= computed.tolerance else FAILED


def _decimals(value: float) -> int:
    """Decimals the source printed ``value`` with: 0 for a count, 3 for 0.262, 1 for 9.0."""
    if isinstance(value, int):
        return 0
    text = repr(float(value))
    return len(text.split(".")[1]) if "." in text and "e" not in text else 3


def compare(
    dataset: str | Sequence[str],
    computed: Mapping[tuple[str, str], Reproduced] | Mapping[tuple[str, str, str], Reproduced] | None = None,
) -> pd.DataFrame:
    """Every number reported for ``dataset`` beside the value computed from data, in one schema.

    ``computed`` maps ``(name, split)`` of a reported row (:func:`all_reported`) (split ``""`` for the whole
    dataset; a dataset given as a sequence takes ``(dataset, name, split)`` keys) to what the
    chapter computed. A reported row with no computed value is *quoted only*; a computed value
    with no reported row is an error, so that a typo cannot silently drop a check.

    Columns: ``dataset``, ``split``, ``quantity`` (for readers), ``name`` (the key), ``reported``,
    ``unit``, ``source``, ``citation_key``, ``reproduced``, ``tolerance``, ``status`` (``held``,
    ``failed``, ``not checked: <why>`` or ``quoted only``), ``decimals`` (the precision the
    source printed the number with), ``teacher`` (the ParlAI teacher a count belongs to, or ``""``),
    ``note`` (what the number measures, where its name does not say it), ``bound``
    (:attr:`Reported.bound`: ``">"`` for a lower bound, whose check holds when the reproduced value
    is above it, with no tolerance) and ``computed_on`` (``""`` when the value was computed on
    complete official files only, else what else it rests on: ``demo sample``, ``partial``, or
    ``no provenance``; ``""`` too when nothing was computed).
    """
    datasets = [dataset] if isinstance(dataset, str) else list(dataset)
    known = {item.dataset for item in all_reported()}
    for name in datasets:
        if name not in known:
            raise UnknownNameError("dataset with reported numbers", name, sorted(known))
    values: dict[tuple[str, ...], Reproduced] = {}
    values.update((computed or {}).items())

    def key(item: Reported) -> tuple[str, ...]:
        return (item.name, item.split) if isinstance(dataset, str) else (item.dataset, item.name, item.split)

    items = [item for item in all_reported() if item.dataset in datasets]
    unmatched = set(values) - {key(item) for item in items}
    if unmatched:
        raise KeyError(f"computed values with no reported number: {sorted(unmatched)}")
    rows = [_compared_row(item, values.get(key(item))) for item in items]
    import pandas as pd

    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def _compared_row(item: Reported, value: Reproduced | None) -> dict[str, object]:
    """One row of :func:`compare`: ``item`` beside the value computed for it (``None``: none)."""
    return {
        "dataset": item.dataset,
        "split": item.split or "all",
        "quantity": quantity_label(item.name),
        "name": item.name,
        "reported": float(item.value),
        "unit": item.unit,
        "source": item.source,
        "citation_key": item.citation_key,
        "reproduced": math.nan if value is None or value.value is None else float(value.value),
        "tolerance": math.nan if value is None else float(value.tolerance),
        "status": _status(item, value),
        "decimals": _decimals(item.value),
        "teacher": item.teacher,
        "note": item.note,
        "bound": item.bound,
        "computed_on": _computed_on(value),
    }


def _computed_on(computed: Reproduced | None) -> str:
    """What a value rests on besides complete official files (``""``: on them alone, or no value)."""
    if computed is None or computed.value is None:
        return ""
    if not computed.kinds:
        return "no provenance"
    return ", ".join(sorted({kind for kind in computed.kinds if kind not in _FULL_KINDS}))


COMPARISON_COLUMNS = (
    "dataset", "split", "quantity", "name", "reported", "unit", "source", "citation_key",
    "reproduced", "tolerance", "status", "decimals", "teacher", "note", "bound", "computed_on",
)


def failures(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a :func:`compare` table whose check failed (empty when every check held)."""
    return table[table["status"] == FAILED]


def assert_held(table: pd.DataFrame) -> int:
    """Raise :class:`AssertionError` naming every failed row; return how many checks held."""
    failed = failures(table)
    if not failed.empty:
        lines = [
            f"{row.dataset}/{row.split} {row.quantity}: reported {row.reported}, reproduced {row.reproduced}"
            f" (tolerance {row.tolerance})"
            for row in failed.itertuples()
        ]
        raise AssertionError("reported numbers not reproduced:\n" + "\n".join(lines))
    return int((table["status"] == HELD).sum())
