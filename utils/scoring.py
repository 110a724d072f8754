"""Score a model's predictions on a split: coverage rules, named metric variants, bootstrap intervals.

``utils.score(dataset, split, predictions)`` (and ``atlas score``) reads a predictions file, checks
that it covers the split's ids, scores every example with each metric variant the dataset declares,
and gives each metric a percentile bootstrap interval. The machinery here knows no dataset: each
dataset folder's ``scoring.py`` declares its :class:`Task` objects (``TASKS``; a folder's second
dataset puts its own part of its name in front, ``AUDIT_TASKS`` for ``news_audit`` in ``news/``, as
every hook of :meth:`utils.declaration.DatasetSource.hook` does), each with

* the split's gold answers by the dataset's own ids (:class:`Gold`), and the resampling unit of each
  id (its dialogue, where several examples come from one dialogue),
* a reader of the predictions format, which names the file, line and field of a malformed line,
* a function scoring each example (one column of numbers per measurement), and
* its :class:`Metric` variants: a name that says whose definition it is (``f1_kilt``, ``f1_parlai``),
  the source file and commit it follows, and what differs from the other variants.

Coverage rules, as KILT's ``eval_downstream.py`` has them and stated: a prediction for every gold id,
none repeated, none unknown. By default a file breaking any of them is refused with
:class:`CoverageError` (``atlas score`` exits 2 naming the ids); ``allow_missing=True`` scores the
covered part, and the result says so (:attr:`Scores.partial`). A repeated id is refused always: which
of the two predictions to score cannot be guessed.

Uncertainty: every metric gets a percentile bootstrap interval over :data:`RESAMPLES` resamples drawn
with :data:`SEED`. Where examples share a dialogue, whole dialogues are resampled (a dialogue's turns
are not independent). ``compare=`` scores a second file on the same ids and gives the paired
bootstrap interval of the difference: both files are resampled with the same draws.
"""

from __future__ import annotations

import hashlib
import json
import math
import shlex
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import rankdata

from .errors import AtlasError, DataError, UnknownNameError
from .formats import iter_json_lines

if TYPE_CHECKING:
    from .loading import LoadedSplit

#: Resamples and seed of every bootstrap interval, unless the caller names others.
RESAMPLES = 1000
SEED = 20220601
LEVEL = 0.95
#: How many ids a coverage message names (the counts are always complete).
SHOWN_IDS = 5

#: Predictions given as records rather than a file: a pandas DataFrame (one row per line of the
#: format) or an iterable of the JSON objects the file would hold.
Records = Iterable[Mapping[str, Any]]

#: ``statistic(columns) -> values``: columns of shape (resamples, examples), one value per row.
Statistic = Callable[[Mapping[str, np.ndarray]], np.ndarray]


# -- bootstrap ------------------------------------------------------------------------------------------


def percentile_interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The percentile interval of the resampled ``values`` (NaN ones, from a resample where the
    statistic is undefined, left out); NaN when none is left."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if not values.size:
        return math.nan, math.nan
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def resample_index(n: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """``resamples`` rows of ``n`` positions drawn with replacement from ``range(n)``, with ``seed``."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def bootstrap_intervals(
    statistics: Callable[[np.ndarray], Mapping[str, np.ndarray]],
    n: int,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> dict[str, tuple[float, float, float]]:
    """``name -> (value, low, high)``: each statistic on the ``n`` examples themselves and its percentile
    interval over resamples of the examples. ``statistics(index)`` computes every statistic on each row
    of an index array of shape (rows, examples)."""
    point = {name: float(values[0]) for name, values in statistics(np.arange(n)[None, :]).items()}
    if n == 0:
        return {name: (math.nan, math.nan, math.nan) for name in point}
    drawn = statistics(resample_index(n, resamples, seed))
    return {name: (point[name], *percentile_interval(drawn[name], level)) for name in point}


def paired_bootstrap(
    first: Callable[[np.ndarray], Mapping[str, np.ndarray]],
    second: Callable[[np.ndarray], Mapping[str, np.ndarray]],
    n: int,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> dict[str, tuple[float, float, float]]:
    """``name -> (difference, low, high)``: ``first`` minus ``second`` on the same ``n`` examples, with the
    percentile interval of the difference when both are computed on the same resamples (a paired
    bootstrap: the interval of the difference, not two intervals side by side)."""
    whole = np.arange(n)[None, :]
    point_one, point_two = first(whole), second(whole)
    index = resample_index(n, resamples, seed)
    one, two = first(index), second(index)
    return {
        name: (float(point_one[name][0] - point_two[name][0]), *percentile_interval(one[name] - two[name], level))
        for name in one
    }


def auc_rows(labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """ROC AUC of each row of ``scores`` against the same row of ``labels`` (1 positive, 0 negative;
    ties count one half), by the rank-sum formula; NaN for a row with one class only."""
    ranks = rankdata(scores, axis=1)
    positives = labels.sum(axis=1)
    negatives = labels.shape[1] - positives
    rank_sum = (ranks * labels).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def auc_of_draws(labels: np.ndarray, scores: np.ndarray, index: np.ndarray) -> np.ndarray:
    """:func:`auc_rows` of ``labels[index]`` against ``scores[index]``, the same floats, without ranking
    every row: ``labels`` and ``scores`` are one value per example, ``index`` an array of positions of
    shape (rows, draws), such as :func:`resample_index` gives.

    A bootstrap's rows draw from the same ``n`` scores, so their ranks follow from how often each
    distinct score was drawn: the scores are ranked once, and each row only counts its draws per
    distinct score (a ``bincount``, linear) instead of sorting (``rankdata`` of 1,000 rows of 3,600
    draws took a third of a second). The rank sums are whole multiples of one half, exact in both
    routes, and go through :func:`auc_rows`' own formula, so the AUCs are equal to the last bit. Scores
    holding NaN (which ``rankdata`` spreads to the whole row) take :func:`auc_rows` itself.
    """
    labels, scores, index = np.asarray(labels), np.asarray(scores), np.asarray(index)
    if index.ndim != 2 or np.isnan(scores).any() or not np.isin(labels, (0, 1)).all():
        return auc_rows(labels[index], scores[index])
    rows, width = index.shape
    distinct, level = np.unique(scores, return_inverse=True)
    levels = distinct.size
    # Row r's draws counted per distinct score, all rows in one bincount (row r's counts at r*levels...).
    cell = (level.reshape(-1)[index] + levels * np.arange(rows)[:, None]).ravel()
    drawn = np.bincount(cell, minlength=rows * levels).reshape(rows, levels)
    positive = np.bincount(cell, weights=labels.reshape(-1)[index].ravel(), minlength=rows * levels)
    positive = positive.reshape(rows, levels).astype(np.int64)
    below = np.cumsum(drawn, axis=1) - drawn  # draws with a lower score, per row and level
    # A level's draws share the average rank below + (count + 1) / 2: twice the rank sum is whole.
    twice_rank_sum = (positive * (2 * below + drawn + 1)).sum(axis=1)
    positives = positive.sum(axis=1)
    rank_sum = twice_rank_sum / 2
    negatives = width - positives
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


@dataclass(frozen=True)
class Draws:
    """The bootstrap's draws for examples grouped into resampling units (dialogues): ``draws[r]`` the
    units drawn in resample ``r``. With one example per unit this is :func:`resample_index`'s array."""

    groups: np.ndarray  # the unit of each example, 0 .. units-1
    draws: np.ndarray  # shape (resamples, units)

    @classmethod
    def drawn(cls, groups: Sequence[str], resamples: int = RESAMPLES, seed: int = SEED) -> Draws:
        # units numbered in order of first appearance: with one example per unit the draws are
        # resample_index's, the same as a bootstrap over the examples themselves
        numbers: dict[str, int] = {}
        codes = np.array([numbers.setdefault(group, len(numbers)) for group in groups], dtype=int)
        return cls(codes, resample_index(len(numbers), resamples, seed))

    @property
    def singletons(self) -> bool:
        return self.draws.shape[1] == self.groups.size

    def _counts(self) -> np.ndarray:
        """How often each unit was drawn in each resample, shape (resamples, units)."""
        resamples, units = self.draws.shape
        return np.bincount(
            (self.draws + units * np.arange(resamples)[:, None]).ravel(), minlength=resamples * units
        ).reshape(resamples, units)

    def sums(self, values: np.ndarray) -> np.ndarray:
        """The sum of ``values`` (one per example) in every resample."""
        if self.singletons:
            return values[self.draws].sum(axis=1)
        return self._counts() @ np.bincount(self.groups, weights=values, minlength=self.draws.shape[1])

    def means(self, values: np.ndarray) -> np.ndarray:
        """The mean of ``values`` (one per example) in every resample, from per-unit sums: a resample
        holds every example of each unit drawn, as often as the unit was drawn. A NaN value is an
        example the metric leaves out of its mean (ParlAI's metric of zero denominator)."""
        counted = ~np.isnan(values)
        kept = np.where(counted, values, 0.0)
        if self.singletons:  # the units are the examples, in order
            with np.errstate(invalid="ignore", divide="ignore"):
                return kept[self.draws].sum(axis=1) / counted[self.draws].sum(axis=1)
        units = self.draws.shape[1]
        sums = np.bincount(self.groups, weights=kept, minlength=units)
        sizes = np.bincount(self.groups, weights=counted.astype(float), minlength=units)
        counts = self._counts()
        with np.errstate(invalid="ignore", divide="ignore"):
            return (counts @ sums) / (counts @ sizes)

    def statistic(self, statistic: Statistic, columns: Mapping[str, np.ndarray]) -> np.ndarray:
        """``statistic`` on every resample (vectorised when each unit is one example)."""
        if self.singletons:
            return statistic({name: values[self.draws] for name, values in columns.items()})
        members = [np.flatnonzero(self.groups == unit) for unit in range(self.draws.shape[1])]
        out = np.empty(self.draws.shape[0])
        for row, drawn in enumerate(self.draws):
            index = np.concatenate([members[unit] for unit in drawn])
            out[row] = statistic({name: values[index][None, :] for name, values in columns.items()})[0]
        return out


# -- declarations (each dataset folder's scoring.py) ----------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """A named metric variant: the mean of one per-example ``column``, or a ``statistic`` of the
    whole set (ROC AUC, accuracy at a fitted threshold)."""

    name: str
    #: the scorer it follows: repository, file and commit, or "the atlas's own definition"
    source: str
    #: what differs from the other variants of the same measurement
    differs: str
    column: str = ""
    statistic: Statistic | None = None
    #: a corpus-level metric (corpus BLEU): ``from_sums`` of the ``summed`` columns' sums, taken over
    #: the examples and over each resample, so that no corpus is rescored per resample
    summed: tuple[str, ...] = ()
    from_sums: Callable[[Mapping[str, np.ndarray]], np.ndarray] | None = None

    def value(self, columns: Mapping[str, np.ndarray]) -> float:
        if self.from_sums is not None:
            return float(self.from_sums({name: np.array([columns[name].sum()]) for name in self.summed})[0])
        if self.statistic is not None:
            return float(self.statistic({name: values[None, :] for name, values in columns.items()})[0])
        values = columns[self.column]
        counted = values[~np.isnan(values)]  # NaN: an example this metric leaves out (see Draws.means)
        return float(counted.mean()) if counted.size else math.nan

    def resampled(self, draws: Draws, columns: Mapping[str, np.ndarray]) -> np.ndarray:
        if self.from_sums is not None:
            return self.from_sums({name: draws.sums(columns[name]) for name in self.summed})
        if self.statistic is not None:
            return draws.statistic(self.statistic, columns)
        return draws.means(columns[self.column])


@dataclass(frozen=True)
class WeightsMetric:
    """A metric that needs a trained model's weights (BERTScore, ...): the optional tier of
    ``atlas score --with-weights``. It names the package and the model it would download, and how
    large that is, so that nothing is fetched unannounced: without the package, or offline with the
    model not in the local cache, scoring with it is refused with that sentence."""

    name: str
    source: str
    differs: str
    #: the pip package that computes it, as ``pip install`` spells it, and its import name
    package: str
    module: str
    #: the model it loads, as its hub names it, where from, and roughly how large
    model: str
    download: str
    #: ``compute(predictions, references) -> one value per example``
    compute: Callable[[Sequence[str], Sequence[str]], np.ndarray]
    #: the gold answer each prediction is compared with (a key of the gold's answers)
    reference: str = "text"

    def announcement(self) -> str:
        """What scoring with this metric installs and downloads."""
        return (f"{self.name} needs the {self.package} package (pip install {self.package}) and the model "
                f"{self.model}, {self.download}")

    def check_available(self) -> None:
        """Refuse, saying what it would need, when the package is missing or the model cannot be had
        (downloads off, the model not in the local Hugging Face cache); when it is about to be
        downloaded, say so first (a :class:`UserWarning`, which ``atlas score`` prints)."""
        import importlib.util
        import os
        import warnings

        from .config import offline

        if importlib.util.find_spec(self.module) is None:
            raise AtlasError(f"{self.announcement()}: the package is not installed")
        from huggingface_hub import try_to_load_from_cache

        if isinstance(try_to_load_from_cache(self.model, "config.json"), str):
            return  # in the cache: nothing to fetch
        if offline() or os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}:
            raise AtlasError(f"{self.announcement()}: downloads are off and the model is not in the cache")
        warnings.warn(f"{self.announcement()}: not in the cache, downloading it now", UserWarning, stacklevel=2)


@dataclass(frozen=True)
class Prediction:
    """One line of a predictions file: the dataset's id, what it predicts, and where it was read."""

    id: str
    value: Any
    line: int


@dataclass(frozen=True)
class Gold:
    """A split's gold answers by id, in the split's order, with each id's resampling unit."""

    ids: tuple[str, ...]
    answers: Mapping[str, Any]
    units: Mapping[str, str]
    split: LoadedSplit | None = None
    #: the data file scored against (hashed into the record)
    path: Path | None = None
    #: what a reader must know about this gold in particular (a reference corpus standing in, ...)
    notes: tuple[str, ...] = ()
    #: what the task's scorer needs beside the answers (a reference corpus's word counts, ...)
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    """What a dataset lets one score: its predictions format, its gold, and its metric variants."""

    name: str
    description: str
    #: the predictions format, as the book and ``--help`` show it
    format: str
    gold: Callable[[str], Gold]
    read: Callable[[Path], list[Prediction]]
    #: ``examples(gold, ids, predictions) -> (columns, rows)``: one column of numbers per measurement
    #: (aligned with ``ids``) and one JSON-ready row per example for ``--per-example``
    examples: Callable[[Gold, Sequence[str], Sequence[Any]], tuple[dict[str, np.ndarray], list[dict[str, Any]]]]
    metrics: tuple[Metric, ...]
    #: what a reader must know about the numbers (a library standing in for another, ...)
    notes: tuple[str, ...] = ()
    #: metrics that need model weights, computed only when asked (``with_weights``)
    weights: tuple[WeightsMetric, ...] = ()


def tasks_of(dataset: str) -> dict[str, Task]:
    """The tasks ``dataset``'s folder declares in its ``scoring.py``, by name (none: an empty dict)."""
    from .sources import get_source

    declared: Sequence[Task] = get_source(dataset).hook("scoring", "TASKS", ())
    return {task.name: task for task in declared}


def variants_frame() -> Any:
    """Every metric variant of every dataset's tasks (a pandas DataFrame): ``dataset``, ``task``,
    ``metric``, ``definition`` (the source it follows) and ``what differs``, for the book's table."""
    import pandas as pd

    from .sources import dataset_names

    rows = [
        {"dataset": name, "task": task.name, "metric": metric.name, "definition": metric.source,
         "what differs": metric.differs}
        for name in dataset_names() for task in tasks_of(name).values() for metric in task.metrics
    ]
    return pd.DataFrame(rows, columns=["dataset", "task", "metric", "definition", "what differs"])


def formats_frame() -> Any:
    """Every dataset's tasks with what they score and their predictions format (a pandas DataFrame)."""
    import pandas as pd

    from .sources import dataset_names

    rows = [{"dataset": name, "task": task.name, "what is predicted": task.description, "format": task.format}
            for name in dataset_names() for task in tasks_of(name).values()]
    return pd.DataFrame(rows, columns=["dataset", "task", "what is predicted", "format"])


# -- coverage -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Coverage:
    """How a predictions file covers the gold ids: what is missing, repeated and unknown."""

    gold: int
    missing: tuple[str, ...]
    duplicate: tuple[str, ...]
    unknown: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return not (self.missing or self.duplicate or self.unknown)

    def problems(self) -> list[str]:
        """One sentence per rule broken, with the count and the first ids."""
        said = []
        for kind, ids in (("missing", self.missing), ("repeated", self.duplicate), ("unknown", self.unknown)):
            if ids:
                shown = ", ".join(ids[:SHOWN_IDS]) + (", ..." if len(ids) > SHOWN_IDS else "")
                said.append(f"{len(ids):,} {kind} id{'s' if len(ids) != 1 else ''} ({shown})")
        return said


def check_coverage(gold_ids: Sequence[str], predicted_ids: Iterable[str]) -> Coverage:
    """The missing (gold ids with no prediction), duplicate and unknown ids (not in the split), in order."""
    counts = Counter(predicted_ids)
    known = set(gold_ids)
    return Coverage(
        gold=len(gold_ids),
        missing=tuple(i for i in gold_ids if i not in counts),
        duplicate=tuple(i for i, count in counts.items() if count > 1),
        unknown=tuple(i for i in counts if i not in known),
    )


class CoverageError(AtlasError):
    """A predictions file does not cover the split (``atlas score`` exits 2 with this message)."""

    def __init__(self, path: Path, coverage: Coverage, *, allowed: bool, reason: str = "") -> None:
        self.coverage = coverage
        hint = "" if allowed else "; --allow-missing (allow_missing=True) scores the ids covered and says so"
        problems = "; ".join(coverage.problems())
        said = f"{reason} ({problems})" if reason and problems else reason or problems
        super().__init__(f"{path}: {said} of {coverage.gold:,} gold ids{hint if not reason else ''}")


# -- reading --------------------------------------------------------------------------------------------


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, object)`` for each line of a JSON Lines predictions file; a line that is no object names
    the file and the line."""
    for line, record in iter_json_lines(path):
        if not isinstance(record, dict):
            raise DataError(f"expected an object, found {type(record).__name__}", path=path, record=f"line {line}")
        yield line, record


# -- scoring --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    """One metric: its value and interval."""

    metric: Metric
    value: float
    low: float
    high: float


@dataclass
class Scores:
    """What :func:`score` hands back: every metric with its interval, the coverage and a record."""

    dataset: str
    split: str
    task: Task
    #: the predictions file, or ``(records)`` for predictions handed over in Python
    predictions: Path
    coverage: Coverage
    scored_ids: tuple[str, ...]
    metrics: list[Scored]
    rows: list[dict[str, Any]]
    resamples: int
    seed: int
    level: float
    gold: Gold
    #: sha256 of the predictions as read (of their JSON Lines when handed over as records)
    predictions_sha256: str = ""
    #: ``--compare``: the other file and the paired difference per metric (this file minus it)
    compared: Path | None = None
    compared_sha256: str = ""
    differences: list[Scored] = field(default_factory=list)

    @property
    def unit(self) -> str:
        """What the bootstrap resamples: ``"dialogue"`` where examples share one, else ``"example"``."""
        return "dialogue" if len(set(self.gold.units.values())) < len(self.gold.ids) else "example"

    @property
    def notes(self) -> tuple[str, ...]:
        """What a reader must know about these numbers: the task's notes, then the gold's."""
        return (*self.task.notes, *self.gold.notes)

    @property
    def partial(self) -> bool:
        """Whether only part of the split was scored (``allow_missing``)."""
        return not self.coverage.complete

    def value(self, name: str) -> float:
        return next(item.value for item in self.metrics if item.metric.name == name)

    def coverage_note(self) -> str:
        """The sentence every output carries when the file does not cover the split."""
        if not self.partial:
            return ""
        return (
            f"PARTIAL: {len(self.scored_ids):,} of {self.coverage.gold:,} gold ids scored; "
            + "; ".join(self.coverage.problems()) + " (allowed by --allow-missing)"
        )

    def record(self, argv: Sequence[str] | None = None) -> dict[str, Any]:
        """The JSON record a paper can cite (``--json``)."""
        from . import __version__

        split = self.gold.split
        provenance = split.provenance if split is not None else None
        data_path = self.gold.path or (provenance.path if provenance is not None else None)
        from .config import display_path

        # as the provenance line shows it: the data directory by its variable, not a machine's path
        data: dict[str, Any] = {"path": display_path(Path(data_path)) if data_path else None}
        if data_path is not None and Path(data_path).is_file():
            data["sha256"] = _sha256(Path(data_path))
        if provenance is not None and len(provenance.parts) > 1 and data_path == provenance.path:
            # a split spread over several files: each of them, as the first is above
            data["parts"] = [{"path": display_path(part), "sha256": _sha256(part)} for part in provenance.parts]
        if provenance is not None:
            data.update(kind=provenance.kind, checksum=provenance.checksum, summary=provenance.summary())
            if provenance.is_demo:
                data["warning"] = "DEMO SAMPLE: these numbers are not the dataset's; do not report them"
        record: dict[str, Any] = {
            "dataset": self.dataset,
            "split": self.split,
            "task": self.task.name,
            "predictions": {"path": str(self.predictions), "sha256": self.predictions_sha256},
            "data": data,
            "counts": {
                "gold": self.coverage.gold,
                "scored": len(self.scored_ids),
                "missing": len(self.coverage.missing),
                "duplicate": len(self.coverage.duplicate),
                "unknown": len(self.coverage.unknown),
            },
            "partial": self.coverage_note() or None,
            "metrics": [_metric_record(item) for item in self.metrics],
            "bootstrap": {
                "resamples": self.resamples,
                "seed": self.seed,
                "level": self.level,
                "unit": self.unit,
            },
            "notes": list(self.notes),
            "atlas_version": __version__,
            "command": shlex.join(argv if argv is not None else sys.argv),
        }
        if self.compared is not None:
            record["compare"] = {
                "other": {"path": str(self.compared), "sha256": self.compared_sha256},
                "differences": [_metric_record(item) for item in self.differences],
            }
        return record

    def table(self) -> list[tuple[str, str, str]]:
        """``(metric, value with interval, source)`` rows for a terminal or a page."""
        return [(item.metric.name, _with_interval(item), item.metric.source) for item in self.metrics]

    def frame(self) -> Any:
        """Every metric as a pandas DataFrame indexed by the metric's name: ``value``, ``low`` and
        ``high`` (its interval), ``definition`` (the source it follows) and ``what differs``."""
        import pandas as pd

        rows = [{"metric": item.metric.name, "value": item.value, "low": item.low, "high": item.high,
                 "definition": item.metric.source, "what differs": item.metric.differs} for item in self.metrics]
        return pd.DataFrame(rows, columns=["metric", "value", "low", "high", "definition", "what differs"]
                            ).set_index("metric")


def _with_interval(item: Scored) -> str:
    if math.isnan(item.low):
        return f"{item.value:.4f}"
    return f"{item.value:.4f} ({item.low:.4f} to {item.high:.4f})"


def _metric_record(item: Scored) -> dict[str, Any]:
    def number(value: float) -> float | None:
        return None if math.isnan(value) else value

    return {
        "name": item.metric.name,
        "value": number(item.value),
        "low": number(item.low),
        "high": number(item.high),
        "source": item.metric.source,
        "differs": item.metric.differs,
    }


def choose_task(dataset: str, task: str | None) -> Task:
    """The task named (or the dataset's first), an unknown name listing the valid ones."""
    tasks = tasks_of(dataset)
    if not tasks:
        from .sources import dataset_names

        scorable = [name for name in dataset_names() if tasks_of(name)]
        raise UnknownNameError("dataset to score", dataset, scorable)
    if task is None:
        return next(iter(tasks.values()))
    if task not in tasks:
        raise UnknownNameError("task", task, list(tasks), of=dataset)
    return tasks[task]


@contextmanager
def _predictions_file(predictions: str | Path | Records | Any) -> Iterator[tuple[Path, Path, str]]:
    """``(file to read, path to show, sha256)``: a path as given, or records written as the JSON Lines
    file they stand for, so that they are read (and refused) exactly as a file would be."""
    if isinstance(predictions, str | Path):
        path = Path(predictions)
        yield path, path, _sha256(path) if path.is_file() else ""
        return
    if isinstance(predictions, Mapping):
        raise TypeError("predictions as records are a DataFrame or a list of dicts, one per line of the format; "
                        "a single dict is one record: put it in a list")
    if hasattr(predictions, "to_dict"):  # a pandas DataFrame: one record per row
        predictions = predictions.to_dict("records")
    lines = []
    for number, record in enumerate(predictions, 1):
        if not isinstance(record, Mapping):
            raise TypeError(f"record {number} of the predictions is a {type(record).__name__}, not a dict")
        # NumPy values as Python ones, a missing value (NaN, pd.NA) as null: the reader then names the field
        lines.append(json.dumps(_json_ready(record), ensure_ascii=False, allow_nan=False) + "\n")
    text = "".join(lines)
    shown = Path("(records)")
    with tempfile.TemporaryDirectory(prefix="atlas-score-") as folder:
        path = Path(folder) / "predictions.jsonl"
        path.write_text(text, encoding="utf-8")
        try:
            yield path, shown, hashlib.sha256(text.encode("utf-8")).hexdigest()
        except DataError as error:  # named as the records they are ("record 3"), not as a file that is gone
            record = error.record
            if isinstance(record, str) and record.startswith("line "):
                record = record.removeprefix("line ")
            raise DataError(error.reason, path=shown, record=record, field=error.field) from None


def _sha256(path: Path) -> str:
    from ._download import sha256_of

    return sha256_of(path)


def _aligned(path: Path, shown: Path, gold: Gold, task: Task,
             allow_missing: bool) -> tuple[Coverage, list[str], list[Any]]:
    predictions = task.read(path)
    coverage = check_coverage(gold.ids, (p.id for p in predictions))
    if coverage.duplicate or (not coverage.complete and not allow_missing):
        raise CoverageError(shown, coverage, allowed=allow_missing)
    by_id = {p.id: p.value for p in predictions}
    ids = [i for i in gold.ids if i in by_id]
    return coverage, ids, [by_id[i] for i in ids]


def score(
    dataset: str,
    split: str,
    predictions: str | Path | Records | Any,
    *,
    task: str | None = None,
    allow_missing: bool = False,
    compare: str | Path | Records | Any | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
    with_weights: bool = False,
) -> Scores:
    """Score the ``predictions`` on ``dataset``/``split`` with every metric variant of ``task`` (the
    dataset's first task by default): values, percentile bootstrap intervals, coverage and a record.

    ``predictions`` is a JSON Lines file in the task's format, or the same records in Python (a
    pandas DataFrame with the format's fields as columns, or a list of dicts): records are read
    exactly as the file they stand for, so a chapter scoring its baseline this way gets what
    ``atlas score`` gives on that file.

    A file that misses, repeats or does not know gold ids raises :class:`CoverageError` (with
    ``allow_missing=True`` only a repeated id does, and the covered part is scored); a malformed line
    raises :class:`~utils.errors.DataError` naming the file, the line and the field. With ``compare``
    (a second file of the same task), :attr:`Scores.differences` holds this file minus that one per
    metric, with a paired bootstrap interval over the ids both cover.

    ``with_weights`` adds the task's metrics that need a model's weights (:class:`WeightsMetric`),
    refused with what they would install and download when that cannot be had.
    """
    chosen = _scoring_task(dataset, task, with_weights)
    gold = chosen.gold(split)
    with _predictions_file(predictions) as (path, shown, digest):
        coverage, ids, values = _aligned(path, shown, gold, chosen, allow_missing)
    other_values: list[Any] | None = None
    other_shown, other_digest = None, ""
    if compare is not None:
        with _predictions_file(compare) as (other_path, other_shown, other_digest):
            _, other_ids, other_values = _aligned(other_path, other_shown, gold, chosen, allow_missing)
        if other_ids != ids:  # pair on the ids both files cover
            ids, values, other_values = _on_shared_ids(ids, values, other_ids, other_values)
            coverage = check_coverage(gold.ids, ids)
    if not ids:  # nothing to score: numbers (a sum's 0) would read as a result
        reason = "the two files share no gold id" if compare is not None else "the predictions cover no gold id"
        raise CoverageError(shown, coverage, allowed=allow_missing, reason=reason)
    columns, rows = chosen.examples(gold, ids, values)
    draws = Draws.drawn([gold.units[i] for i in ids], resamples, seed)
    metrics = []
    for metric in chosen.metrics:
        low, high = percentile_interval(metric.resampled(draws, columns), level) if ids else (math.nan, math.nan)
        metrics.append(Scored(metric, metric.value(columns) if ids else math.nan, low, high))
    result = Scores(dataset, split, chosen, shown, coverage, tuple(ids), metrics, rows, resamples, seed, level, gold,
                    predictions_sha256=digest)
    if other_shown is not None and other_values is not None:
        other_columns, _ = chosen.examples(gold, ids, other_values)
        result.compared, result.compared_sha256 = other_shown, other_digest
        result.differences.extend(_differences(chosen, draws, columns, other_columns, level))
    return result


def _scoring_task(dataset: str, task: str | None, with_weights: bool) -> Task:
    """:func:`choose_task`, with its weights metrics added (each checked available) when asked for."""
    chosen = choose_task(dataset, task)
    if with_weights:
        if not chosen.weights:
            raise AtlasError(f"{dataset}'s task {chosen.name} has no metric that needs model weights")
        for extra in chosen.weights:
            extra.check_available()
        chosen = _with_weights(chosen)
    return chosen


def _on_shared_ids(
    ids: list[str], values: list[Any], other_ids: list[str], other_values: list[Any]
) -> tuple[list[str], list[Any], list[Any]]:
    """The ids both files cover (in the first file's order), with each file's values on them."""
    shared = set(other_ids) & set(ids)
    first = dict(zip(ids, values, strict=True))
    second = dict(zip(other_ids, other_values, strict=True))
    ids = [i for i in ids if i in shared]
    return ids, [first[i] for i in ids], [second[i] for i in ids]


def _differences(task: Task, draws: Draws, columns: dict[str, np.ndarray], other_columns: dict[str, np.ndarray],
                 level: float) -> list[Scored]:
    """Each metric of ``task`` on ``columns`` minus on ``other_columns``, with a paired bootstrap interval."""
    differences = []
    for metric in task.metrics:
        difference = metric.resampled(draws, columns) - metric.resampled(draws, other_columns)
        low, high = percentile_interval(difference, level)
        differences.append(Scored(metric, metric.value(columns) - metric.value(other_columns), low, high))
    return differences


def _with_weights(task: Task) -> Task:
    """``task`` with its weights metrics computed per example beside its own measurements."""
    from dataclasses import replace

    def examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                               list[dict[str, Any]]]:
        columns, rows = task.examples(gold, ids, values)
        for extra in task.weights:
            references = [gold.answers[i][extra.reference] for i in ids]
            measured = np.asarray(extra.compute([str(v) for v in values], references), dtype=float)
            columns[extra.name] = measured
            for row, value in zip(rows, measured, strict=True):
                row[extra.name] = float(value)
        return columns, rows

    added = tuple(Metric(extra.name, extra.source, extra.differs, extra.name) for extra in task.weights)
    return replace(task, examples=examples, metrics=task.metrics + added)


def weights_frame() -> Any:
    """Every metric of the optional tier (a pandas DataFrame): ``dataset``, ``task``, ``metric``,
    ``package``, ``model`` and ``download``."""
    import pandas as pd

    from .sources import dataset_names

    rows = [{"dataset": name, "task": task.name, "metric": extra.name, "package": extra.package,
             "model": extra.model, "download": extra.download}
            for name in dataset_names() for task in tasks_of(name).values() for extra in task.weights]
    return pd.DataFrame(rows, columns=["dataset", "task", "metric", "package", "model", "download"])


def write_per_example(scores: Scores, out: Path) -> int:
    """One JSON line per scored example (its id and every measurement); the coverage note first when
    only part of the split was scored. Returns the number of examples written."""
    with open(out, "w", encoding="utf-8") as handle:
        if scores.partial:
            handle.write(json.dumps({"partial": scores.coverage_note()}, ensure_ascii=False) + "\n")
        for row in scores.rows:
            # a measurement a metric leaves out (NaN) is null: JSON has no NaN, and jq or a browser refuse it
            handle.write(json.dumps(_json_ready(row), ensure_ascii=False, allow_nan=False) + "\n")
    return len(scores.rows)


def _json_ready(value: Any) -> Any:
    """``value`` with NaN as ``None``, NumPy values as Python ones, and containers walked."""
    if isinstance(value, Mapping):
        return {str(key): _json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(item) for item in value]
    if isinstance(value, np.ndarray):
        return [_json_ready(item) for item in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    try:  # pandas' missing values (pd.NA, NaT) without importing pandas here
        if value is not None and not isinstance(value, str | bytes | bool | int | float) and value != value:
            return None
    except (TypeError, ValueError):  # pd.NA refuses comparison: it is missing
        return None
    return value
