"""Critics of attribution on BEGIN: the FaithDial chapter's lexical critic and a feature-based one.

The question a critic answers here: is a response **not fully attributable** to its knowledge
snippet (the positive class, 1) or fully attributable (0)? Responses labelled Generic are left out
of the binary task, as the FaithDial chapter's critic leaves Generic responses out
(:func:`critic_examples`).

1. **Knowledge precision**, the FaithDial chapter's :class:`~utils.datasets.faithdial.baselines.LexicalCritic`
   reused as it is: a response is flagged when the share of its words found in the knowledge falls
   below a threshold. Its score, one minus knowledge precision, needs no fitting, so its ROC AUC is
   a property of the data.
2. :class:`FeatureCritic`: a logistic regression (scikit-learn) on a dozen features that still run on
   a laptop CPU with no model to download: n-gram precision, the longest span copied from the
   knowledge, novel content words, numbers and capitalised words absent from the knowledge,
   first-person words, length, a question mark and overlap with the message (:func:`feature_frame`).

Both are fitted on a dev split (the threshold, and the regression's weights) and evaluated on a test
split with accuracy, F1 of the positive class and ROC AUC, each with a percentile bootstrap interval
(:func:`bootstrap_intervals`, fixed seed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from utils.book.figures import caption as figure_caption
from utils.book.tables import Table, integer, table

from ... import scoring
from ...loading import LoadedSplit
from ...metrics import longest_common_run, ngrams
from ...scoring import auc_of_draws, auc_rows
from ...text import word_tokens

# The FaithDial chapter's critic, reused rather than copied: the same score, fit and evaluation.
from ..faithdial.baselines import CriticResult, LexicalCritic, best_threshold, knowledge_precision
from .parser import GENERIC, NOT_FULLY

__all__ = [
    "FEATURES",
    "CriticResult",
    "FeatureCritic",
    "LexicalCritic",
    "bootstrap_intervals",
    "critic_examples",
    "evaluation_frame",
    "feature_frame",
    "knowledge_precision",
]

#: Resamples and seed of every bootstrap interval in the chapter.
RESAMPLES = 1000
SEED = 20220601

#: The feature-based critic's features, with what each measures (the chapter shows this table).
FEATURES = {
    "unigram_precision": "share of the response's words found in the knowledge (the lexical critic's score)",
    "bigram_precision": "share of the response's word bigrams found in the knowledge",
    "trigram_precision": "share of the response's word trigrams found in the knowledge",
    "copied_span": "longest run of words copied from the knowledge, as a share of the response",
    "knowledge_recall": "share of the knowledge's words the response uses",
    "novel_content": "share of the response's content words (not stop words) absent from the knowledge",
    "novel_numbers": "numbers in the response that the knowledge does not contain",
    "novel_capitalised": "capitalised words inside the response (names) absent from the knowledge",
    "first_person": "share of first-person words (I, me, my, we, ...)",
    "question": "1 when the response asks a question",
    "response_length": "log of one plus the response's length in words",
    "message_precision": "share of the response's words found in the previous message",
}

_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "im", "ive", "id"})
_STOP = frozenset(ENGLISH_STOP_WORDS)


def critic_examples(rows: pd.DataFrame) -> pd.DataFrame:
    """Binary examples from :func:`utils.datasets.begin.stats.response_frame` rows: Generic responses
    left out, ``hallucinated`` = 1 for Not fully attributable (the column name the FaithDial critic
    reads), 0 for Fully attributable. The other columns are kept."""
    chosen = rows[rows["label"] != GENERIC].copy()
    chosen["hallucinated"] = (chosen["label"] == NOT_FULLY).astype(int)
    return chosen.reset_index(drop=True)


def _precision(response: list[tuple[str, ...]], knowledge: set[tuple[str, ...]]) -> float:
    return sum(item in knowledge for item in response) / len(response) if response else 0.0


def _raw_words(text: str) -> list[str]:
    return [word.strip(".,;:!?\"'()[]") for word in text.split()]


def features(response: str, knowledge: str, message: str = "") -> dict[str, float]:
    """The :data:`FEATURES` of one response (all 0 for an empty response)."""
    return dict(zip(FEATURES, _feature_values(response, knowledge, message), strict=True))


#: Responses whose features are remembered, at most: every row of the six BEGIN files (about 12,000)
#: fits, a few MB of tuples for texts the frames hold anyway.
_REMEMBERED = 1 << 15


@lru_cache(maxsize=_REMEMBERED)
def _feature_values(response: str, knowledge: str, message: str) -> tuple[float, ...]:
    """:func:`features` as a tuple in :data:`FEATURES`' order, computed once per distinct text.

    The chapter asks for the features of the same responses again and again (the label means, the
    figure, every critic fitted and scored, each exercise and its check): 56,000 computations of
    about 5,000 rows, two thirds of the chapter's time. A pure function of the three texts, so the
    remembered values are the ones it would compute again.
    """
    words, known = word_tokens(response), word_tokens(knowledge)
    known_set = set(known)
    content = [word for word in words if word not in _STOP]
    raw = _raw_words(response)
    # a capitalised word that does not start a sentence: a name, roughly (lower-cased outputs have none)
    inner_caps = [
        word for i, word in enumerate(raw) if i > 0 and word[:1].isupper() and not raw[i - 1].endswith((".", "!", "?"))
    ]
    numbers = [word for word in words if any(char.isdigit() for char in word)]
    message_words = set(word_tokens(message))
    return (
        knowledge_precision(response, knowledge),
        _precision(ngrams(words, 2), set(ngrams(known, 2))),
        _precision(ngrams(words, 3), set(ngrams(known, 3))),
        longest_common_run(words, known) / len(words) if words else 0.0,
        len(known_set & set(words)) / len(known_set) if known_set else 0.0,
        sum(word not in known_set for word in content) / len(content) if content else 0.0,
        float(sum(word not in known_set for word in numbers)),
        float(sum(w.lower() not in known_set for w in inner_caps if w.lower() not in _STOP)),
        sum(word in _FIRST_PERSON for word in words) / len(words) if words else 0.0,
        float("?" in response),
        math.log1p(len(words)),
        sum(word in message_words for word in words) / len(words) if words else 0.0,
    )


def feature_frame(examples: pd.DataFrame) -> pd.DataFrame:
    """:func:`features` of every row of ``examples`` (columns ``response``, ``knowledge`` and, when
    present, ``message``), indexed like ``examples``."""
    messages = examples["message"] if "message" in examples else pd.Series("", index=examples.index)
    records = [
        _feature_values(response, knowledge, message)
        for response, knowledge, message in zip(examples["response"], examples["knowledge"], messages, strict=True)
    ]
    return pd.DataFrame(records, index=examples.index, columns=list(FEATURES))


@dataclass(frozen=True)
class FeatureCritic:
    """A logistic regression on :data:`FEATURES` (standardised), flagging a response as not fully
    attributable when its probability reaches ``threshold``."""

    model: Pipeline
    threshold: float
    features: tuple[str, ...]
    #: what it was fitted on, said wherever it is applied
    fitted_on: str

    def __str__(self) -> str:
        return f"logistic regression on {len(self.features)} features, fitted on {self.fitted_on}"

    @classmethod
    def fit(cls, examples: pd.DataFrame, *, fitted_on: str, features: Sequence[str] | None = None) -> FeatureCritic:
        """Fit the regression on ``examples`` (:func:`critic_examples`) and choose the threshold with
        the best accuracy on the same examples. ``features`` picks some of :data:`FEATURES`."""
        names = tuple(features or FEATURES)
        unknown = [name for name in names if name not in FEATURES]
        if unknown:
            raise ValueError(f"unknown features {unknown}; choose among {list(FEATURES)}")
        labels = examples["hallucinated"].to_numpy().astype(int)
        if len(set(labels)) < 2:
            raise ValueError("the examples hold one class only: a critic cannot be fitted on them")
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
        matrix = feature_frame(examples)[list(names)].to_numpy()
        model.fit(matrix, labels)
        threshold = best_threshold(model.predict_proba(matrix)[:, 1], labels, flag_below=False)
        return cls(model=model, threshold=threshold, features=names, fitted_on=fitted_on)

    def scores(self, examples: pd.DataFrame) -> np.ndarray:
        """The probability that each response is not fully attributable."""
        return self.model.predict_proba(feature_frame(examples)[list(self.features)].to_numpy())[:, 1]

    def coefficients(self) -> pd.Series:
        """The regression's weight per feature (on standardised features: comparable with each other)."""
        weights = self.model[-1].coef_[0]
        return pd.Series(weights, index=list(self.features), name="weight").sort_values()


# -- evaluation ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    """One critic's scores and decisions on one labelled set."""

    labels: np.ndarray
    scores: np.ndarray
    predicted: np.ndarray


def lexical_scored(critic: LexicalCritic, examples: pd.DataFrame) -> Scored:
    """The lexical critic's scores (one minus knowledge precision) and decisions on ``examples``."""
    scores = LexicalCritic.scores(examples["response"], examples["knowledge"])
    return Scored(examples["hallucinated"].to_numpy().astype(int), scores,
                  critic.predict(examples["response"], examples["knowledge"]))


def feature_scored(critic: FeatureCritic, examples: pd.DataFrame) -> Scored:
    """The feature critic's probabilities and decisions on ``examples``."""
    scores = critic.scores(examples)
    return Scored(examples["hallucinated"].to_numpy().astype(int), scores, (scores >= critic.threshold).astype(int))


def _decision_metrics(labels: np.ndarray, predicted: np.ndarray) -> dict[str, np.ndarray]:
    """Accuracy and F1 of the positive class of each row (arrays of shape (rows, n))."""
    true_positive = (predicted * labels).sum(axis=1)
    flagged, positives = predicted.sum(axis=1), labels.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(flagged + positives > 0, 2 * true_positive / (flagged + positives), 0.0)
    return {"accuracy": (predicted == labels).mean(axis=1), "F1": f1}


def _statistics(scored: Scored) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
    """The three metrics of ``scored`` on each row of an index array (:mod:`utils.scoring`'s bootstrap):
    :func:`_metrics` of the rows, the AUC counted from the draws (:func:`utils.scoring.auc_of_draws`,
    the same floats as ranking each resample, a tenth of the time)."""
    def statistics(index: np.ndarray) -> dict[str, np.ndarray]:
        found = _decision_metrics(scored.labels[index], scored.predicted[index])
        return {**found, "ROC AUC": auc_of_draws(scored.labels, scored.scores, index)}

    return statistics


def bootstrap_intervals(
    scored: Scored, *, resamples: int = RESAMPLES, seed: int = SEED, level: float = 0.95
) -> dict[str, tuple[float, float, float]]:
    """``metric -> (value, low, high)`` for accuracy, F1 (not fully attributable) and ROC AUC: the value
    on the set itself and a percentile bootstrap interval over ``resamples`` resamples of its responses
    (drawn with ``seed``, so the chapter's intervals are the same on every run). Resamples with one
    class only are left out of the AUC interval."""
    return scoring.bootstrap_intervals(
        _statistics(scored), scored.labels.size, resamples=resamples, seed=seed, level=level
    )


def paired_difference(
    better: Scored, baseline: Scored, *, resamples: int = RESAMPLES, seed: int = SEED, level: float = 0.95
) -> dict[str, tuple[float, float, float]]:
    """``metric -> (difference, low, high)``: ``better`` minus ``baseline`` on the same responses, with a
    percentile interval from resampling the responses once for both critics (a paired bootstrap: the
    interval of the difference, narrower and more honest than comparing two separate intervals)."""
    if not np.array_equal(better.labels, baseline.labels):
        raise ValueError("a paired comparison needs both critics scored on the same responses")
    return scoring.paired_bootstrap(
        _statistics(better), _statistics(baseline), better.labels.size, resamples=resamples, seed=seed, level=level
    )


def evaluation_frame(
    critics: Mapping[str, object], test: pd.DataFrame, *, by: Sequence[str] = ("split",),
    resamples: int = RESAMPLES, seed: int = SEED,
) -> pd.DataFrame:
    """Every critic on every group of ``test`` (:func:`critic_examples` rows) grouped by the columns
    ``by`` (``split``, ``model``, ...), plus all of ``test`` together when it has several groups.

    ``critics`` maps a name to a :class:`LexicalCritic` or :class:`FeatureCritic`. One row per (group,
    critic): ``responses``, ``not fully attributable``, the ``accuracy``, ``F1`` and ``ROC AUC`` with
    ``<metric> low`` and ``<metric> high`` (the bootstrap interval), ``majority accuracy`` and
    ``flag-all F1`` (the trivial rules: always the more common class; flag everything).
    """
    groups: list[tuple[tuple[str, ...], pd.DataFrame]] = [
        ((key,) if isinstance(key, str) else tuple(map(str, key)), frame)
        for key, frame in test.groupby(list(by), sort=False)
    ]
    if len(groups) > 1:  # every group together, keeping what they share (the split, when grouped by model)
        groups.append((tuple(test[c].iloc[0] if test[c].nunique() == 1 else "all" for c in by), test))
    records = []
    for key, frame in groups:
        positives, n = int(frame["hallucinated"].sum()), len(frame)
        for name, critic in critics.items():
            if isinstance(critic, LexicalCritic):
                scored = lexical_scored(critic, frame)
            elif isinstance(critic, FeatureCritic):
                scored = feature_scored(critic, frame)
            else:
                raise TypeError(f"not a critic: {type(critic).__name__}")
            record: dict[str, object] = dict(zip(by, key, strict=True))
            record.update({"critic": name, "responses": n, "not fully attributable": positives})
            for metric, (value, low, high) in bootstrap_intervals(scored, resamples=resamples, seed=seed).items():
                record.update({metric: value, f"{metric} low": low, f"{metric} high": high})
            record["majority accuracy"] = max(positives, n - positives) / n if n else math.nan
            record["flag-all F1"] = 2 * positives / (positives + n) if n else math.nan
            records.append(record)
    return pd.DataFrame(records)


def with_interval(frame: pd.DataFrame, metric: str, places: int = 2, *, percent: bool = False) -> pd.Series:
    """``metric`` and its interval as text for a table: ``0.71 (0.69–0.73)`` or ``71.2% (…)``."""
    def show(value: float) -> str:
        if math.isnan(value):
            return "–"
        return f"{100 * value:.{places}f}" if percent else f"{value:.{places}f}"

    def cell(value: float, low: float, high: float) -> str:
        # no value (a class missing from a tiny split) or no interval: a dash, not "– (–––)"
        if math.isnan(value) or math.isnan(low) or math.isnan(high):
            return show(value)
        return f"{show(value)} ({show(low)}–{show(high)})"

    return pd.Series(
        [cell(v, lo, hi) for v, lo, hi in
         zip(frame[metric], frame[f"{metric} low"], frame[f"{metric} high"], strict=True)],
        index=frame.index,
    )


# -- what the lexical critic cannot see ----------------------------------------------------------------


def blind_spots(examples: pd.DataFrame, *, count: int = 2) -> dict[str, pd.DataFrame]:
    """The responses a knowledge-precision critic gets most wrong, from :func:`critic_examples` rows:

    ``abstractive``: Fully attributable responses with the lowest knowledge precision (said in other
    words, so they look unsupported); ``spurious``: Not fully attributable responses with the highest
    knowledge precision (they reuse the knowledge's words and still say something it does not support).
    Each with a ``knowledge precision`` column; ties broken by position in the file.
    """
    scored = examples.assign(**{"knowledge precision": [
        knowledge_precision(r, k) for r, k in zip(examples["response"], examples["knowledge"], strict=True)
    ]})
    scored = scored[scored["response"].str.strip() != ""]
    fully = scored[scored["hallucinated"] == 0].sort_values("knowledge precision", kind="stable")
    not_fully = scored[scored["hallucinated"] == 1].sort_values("knowledge precision", ascending=False, kind="stable")
    return {"abstractive": fully.head(count), "spurious": not_fully.head(count)}


def auc_of_score(examples: pd.DataFrame, score: str) -> float:
    """ROC AUC of one feature column of ``examples`` as a score of "not fully attributable" (a high
    value meaning less attributable; pass ``-feature`` semantics by negating before)."""
    scored = Scored(examples["hallucinated"].to_numpy().astype(int), examples[score].to_numpy(dtype=float),
                    np.zeros(len(examples), dtype=int))
    return float(auc_rows(scored.labels[None, :], scored.scores[None, :])[0])


# -- what the chapter calls -----------------------------------------------------------------------------

#: The critics' names in every table.
LEXICAL = "knowledge precision"
FEATURE = "feature critic"


#: What the two critics are, for the tables' notes.
LEXICAL_NOTE = "the FaithDial chapter's lexical critic; its ROC AUC is that of knowledge precision itself."
FEATURE_NOTE = "a logistic regression on the features of this chapter."


def dev_test_pairs(split_names: Sequence[str]) -> dict[str, str]:
    """``test split -> dev split`` of the same source, for every test split whose dev split is among
    ``split_names`` (``{"wow_test": "wow_dev"}``): each critic is fitted on the dev split of the source
    it is tested on."""
    names = set(split_names)
    return {
        name: name.removesuffix("_test") + "_dev"
        for name in split_names
        if name.endswith("_test") and name.removesuffix("_test") + "_dev" in names
    }


def fit_critics(dev: pd.DataFrame, *, fitted_on: str) -> dict[str, LexicalCritic | FeatureCritic]:
    """Both critics fitted on ``dev`` (:func:`critic_examples` rows): the lexical critic's threshold and
    the feature critic's weights and threshold."""
    return {LEXICAL: LexicalCritic.fit(dev), FEATURE: FeatureCritic.fit(dev, fitted_on=fitted_on)}


def evaluate_on_test(
    examples: pd.DataFrame, pairs: Mapping[str, str], *, by: Sequence[str] = ("split",)
) -> pd.DataFrame:
    """:func:`evaluation_frame` of both critics on every test split of ``pairs``, each fitted on its dev
    split; with a ``fitted on`` column and the lexical critic's ``threshold``."""
    frames = []
    for test, dev in pairs.items():
        critics = fit_critics(examples[examples["split"] == dev], fitted_on=dev)
        frame = evaluation_frame(critics, examples[examples["split"] == test], by=by)
        frame.insert(0, "fitted on", dev)
        frame["threshold"] = [
            critics[name].threshold for name in frame["critic"]
        ]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def improvement_frame(examples: pd.DataFrame, pairs: Mapping[str, str]) -> pd.DataFrame:
    """Per test split of ``pairs``: the feature critic minus the lexical critic in ROC AUC, F1 and
    accuracy, each with its paired bootstrap interval (:func:`paired_difference`)."""
    records = []
    for test, dev in pairs.items():
        critics = fit_critics(examples[examples["split"] == dev], fitted_on=dev)
        chosen = examples[examples["split"] == test]
        difference = paired_difference(
            feature_scored(critics[FEATURE], chosen), lexical_scored(critics[LEXICAL], chosen)  # type: ignore[arg-type]
        )
        record: dict[str, object] = {"split": test, "fitted on": dev, "responses": len(chosen)}
        for metric, (value, low, high) in difference.items():
            record.update({metric: value, f"{metric} low": low, f"{metric} high": high})
        records.append(record)
    return pd.DataFrame(records)


def auc_by_split(examples: pd.DataFrame) -> pd.DataFrame:
    """ROC AUC of plain knowledge precision (no threshold, nothing fitted) on every split of
    ``examples``, with its bootstrap interval and the mean knowledge length in words."""
    records = []
    for split, frame in examples.groupby("split", sort=False):
        scores = LexicalCritic.scores(frame["response"], frame["knowledge"])
        scored = Scored(frame["hallucinated"].to_numpy().astype(int), scores, np.zeros(len(frame), dtype=int))
        value, low, high = bootstrap_intervals(scored)["ROC AUC"]
        length = float(frame["knowledge_words"].mean()) if "knowledge_words" in frame else math.nan
        records.append(
            {
                "split": split,
                "responses": len(frame),
                "not fully attributable": int(frame["hallucinated"].sum()),
                "knowledge words (mean)": length,
                "ROC AUC": value,
                "ROC AUC low": low,
                "ROC AUC high": high,
            }
        )
    return pd.DataFrame(records)


def auc_comparison(auc: float, reference: float, *, places: int = 3) -> str:
    """Where ``auc`` stands against the unigram ``reference``, in words built from both (the chapter's
    model answer of begin-ex-2): "lower than the unigram precision's (0.797), by 0.043 (0.754)"."""
    difference = round(auc - reference, places)
    if difference == 0:
        return f"equal to the unigram precision's at {places} decimals ({auc:.{places}f})"
    side = "higher" if difference > 0 else "lower"
    return (
        f"{side} than the unigram precision's ({reference:.{places}f}), "
        f"by {abs(difference):.{places}f} ({auc:.{places}f})"
    )


def auc_length_sentence(by_split: pd.DataFrame) -> str:
    """What :func:`auc_by_split` says of knowledge length, in a sentence built from its rows: whether the
    split with the longest knowledge has the lowest AUC, and which split has the highest."""
    rows = by_split.dropna(subset=["ROC AUC", "knowledge words (mean)"])
    if len(rows) < 2:
        return "With fewer than two splits loaded, the rows cannot say whether longer knowledge lowers it."
    by_length = rows.sort_values("knowledge words (mean)", kind="stable")
    by_auc = rows.sort_values("ROC AUC", kind="stable")
    shortest, longest = by_length.iloc[0], by_length.iloc[-1]
    worst, best = by_auc.iloc[0], by_auc.iloc[-1]
    lower = longest["ROC AUC"] < shortest["ROC AUC"]
    verdict = "lower than" if lower else "not lower than"
    return (
        f"On the files loaded here the AUC with the longest knowledge ({longest['split']}, "
        f"{longest['knowledge words (mean)']:.0f} words on average: {longest['ROC AUC']:.2f}) is {verdict} the one "
        f"with the shortest ({shortest['split']}, {shortest['knowledge words (mean)']:.0f} words: "
        f"{shortest['ROC AUC']:.2f}); the highest AUC is {best['split']}'s ({best['ROC AUC']:.2f}), the lowest "
        f"{worst['split']}'s ({worst['ROC AUC']:.2f})."
    )


def features_by_label(rows: pd.DataFrame) -> pd.DataFrame:
    """The mean of every feature per BEGIN label (Generic included), labels as rows."""
    frame = feature_frame(rows)
    frame["label"] = rows["label"].to_numpy()
    means = frame.groupby("label")[list(FEATURES)].mean()
    means.insert(0, "responses", frame.groupby("label").size())
    return means.reindex([name for name in ("Fully attributable", NOT_FULLY, GENERIC) if name in means.index])


def feature_descriptions_frame() -> pd.DataFrame:
    """The :data:`FEATURES` as a table: one row per feature, with what it measures."""
    return pd.DataFrame({"what it measures": list(FEATURES.values())}, index=pd.Index(list(FEATURES), name="feature"))


# -- tables for readers -----------------------------------------------------------------------------------


def _split_names(values: pd.Series) -> list[str]:
    from .stats import split_label

    return [split_label(value) for value in values]


def evaluation_table(evaluation: pd.DataFrame, *, caption: str) -> Table:
    """:func:`evaluate_on_test` for readers: one row per test split (and model, when it has a ``model``
    column) and critic, each metric with its 95% interval beside the two trivial rules."""
    from .render import MODELS

    shown = pd.DataFrame(index=evaluation.index)
    if evaluation["split"].nunique() > 1:  # one test split: the caption and the note name it
        shown["test split"] = _split_names(evaluation["split"])
    if "model" in evaluation:
        shown["model"] = [MODELS.get(model, "all models") for model in evaluation["model"]]
    shown["critic"] = evaluation["critic"].to_numpy()
    # one column for both counts keeps the table within a page's width (ten columns overflowed it)
    shown["responses (not fully attributable)"] = [
        f"{int(total):,} ({int(positive):,})"
        for total, positive in zip(evaluation["responses"], evaluation["not fully attributable"], strict=True)
    ]
    shown["ROC AUC"] = with_interval(evaluation, "ROC AUC").to_numpy()
    shown["F1"] = with_interval(evaluation, "F1").to_numpy()
    shown["accuracy (%)"] = with_interval(evaluation, "accuracy", 1, percent=True).to_numpy()
    shown["majority class"] = evaluation["majority accuracy"].to_numpy()
    shown["flag all: F1"] = evaluation["flag-all F1"].to_numpy()
    pairs = dict.fromkeys(f"{test} on {dev}" for test, dev in zip(
        _split_names(evaluation["split"]), _split_names(evaluation["fitted on"]), strict=True))
    return table(
        shown,
        percents={"majority class": 1},
        decimals={"flag all: F1": 2},
        caption=caption,
        notes=[
            f"Knowledge precision: {LEXICAL_NOTE} Feature critic: {FEATURE_NOTE}",
            "ROC AUC, F1 (of the class not fully attributable) and accuracy, each with its 95% interval in "
            "brackets.",
            f"Fitted (threshold, weights) on the dev split of the same benchmark: {', '.join(pairs)}.",
            "Majority class: the accuracy of always answering the more common class. Flag all: the F1 of "
            "calling every response not fully attributable. Intervals: 95% percentile bootstrap, "
            f"{RESAMPLES:,} resamples of the responses, seed {SEED}.",
        ],
    )


def improvement_table(improvement: pd.DataFrame, *, caption: str) -> Table:
    """:func:`improvement_frame` for readers: each gain with its paired 95% interval."""
    shown = pd.DataFrame(
        {
            "test split": _split_names(improvement["split"]),
            "fitted on": _split_names(improvement["fitted on"]),
            "responses": improvement["responses"].to_numpy(),
            "ROC AUC gain": with_interval(improvement, "ROC AUC", 3).to_numpy(),
            "F1 gain": with_interval(improvement, "F1", 3).to_numpy(),
            "accuracy gain (points)": with_interval(improvement, "accuracy", 1, percent=True).to_numpy(),
        }
    )
    return table(shown, integers=["responses"], caption=caption)


def auc_by_split_table(by_split: pd.DataFrame, *, caption: str) -> Table:
    """:func:`auc_by_split` for readers."""
    shown = pd.DataFrame(
        {
            "split": _split_names(by_split["split"]),
            "responses": by_split["responses"].to_numpy(),
            "not fully": by_split["not fully attributable"].to_numpy(),
            "knowledge words (mean)": by_split["knowledge words (mean)"].to_numpy(),
            "ROC AUC (95% interval)": with_interval(by_split, "ROC AUC").to_numpy(),
        }
    )
    return table(shown, integers=["responses", "not fully"], decimals={"knowledge words (mean)": 0}, caption=caption)


def features_by_label_table(by_label: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> Table:
    """:func:`features_by_label` for readers, one row per feature and one column per label (a dozen
    features across the page overflowed it), the responses of each label first, over ``splits``."""
    labels = [str(label) for label in by_label.index]
    frame = by_label[["responses", *FEATURES]].T.set_axis(labels, axis="columns")
    shown = table(
        frame,
        index="feature",
        decimals=dict.fromkeys(labels, 3),
        caption=figure_caption("Mean of each feature per BEGIN label.", *splits.values()),
    )
    shown.styler.format(integer, subset=pd.IndexSlice[[0], labels])  # the responses row counts
    return shown


def weights_table(critic: FeatureCritic, splits: Mapping[str, LoadedSplit]) -> Table:
    """The fitted feature critic's weight per standardised feature (comparable with each other)."""
    return table(
        critic.coefficients().to_frame(),
        index="feature",
        decimals={"weight": 2},
        caption=figure_caption(
            f"Weights of the feature critic fitted on {critic.fitted_on} "
            "(standardised features: weights are comparable with each other).",
            *splits.values(),
        ),
    )


def critics_table(
    evaluation: pd.DataFrame, pairs: Mapping[str, str], splits: Mapping[str, LoadedSplit], *, per_model: bool = False
) -> Table:
    """:func:`evaluation_table` as the chapter shows it: captioned with the test splits of ``pairs``
    (test split -> dev split) and the demo or partial ``splits`` it was computed on."""
    from .stats import split_label

    tests = ", ".join(split_label(test) for test in pairs)
    text = f"Both critics per model on {tests} (each fitted on all models together)." if per_model else (
        f"Both critics on {tests}."
    )
    return evaluation_table(evaluation, caption=figure_caption(text, *splits.values()))


def precision_auc_table(by_split: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> Table:
    """:func:`auc_by_split_table` as the chapter shows it, captioned with the ``splits`` it was computed on."""
    return auc_by_split_table(
        by_split,
        caption=figure_caption(
            "ROC AUC of plain knowledge precision (one minus it as the score of 'not fully attributable') on "
            "each split loaded, Generic responses left out, with the mean length of the knowledge in words.",
            *splits.values(),
        ),
    )


def gains_table(improvement: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> Table:
    """:func:`improvement_table` as the chapter shows it, captioned with the ``splits`` it was computed on."""
    return improvement_table(
        improvement,
        caption=figure_caption(
            "The feature critic minus the lexical critic on each test split used here, with 95% paired "
            "bootstrap intervals.",
            *splits.values(),
        ),
    )


def feature_descriptions_table() -> Table:
    """:func:`feature_descriptions_frame` for readers: each feature of the critics, with what it measures."""
    return table(
        feature_descriptions_frame(),
        index="feature",
        caption="The features of the critics below (words are ParlAI-normalised tokens).",
    )
