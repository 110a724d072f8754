"""Baselines on the Japanese Wikipedia Human Retrieval sessions.

1. **Citation attribution**: which reference does an answer sentence cite? Score every reference
   that holds text (a quote or a summary) by character n-gram overlap with the sentence and predict
   the best one; compare with a uniform random pick (its exact expected score, so no seed matters)
   and with "cite the first quoted reference".
2. **Extractiveness**: how much of an answer is copied from the quotes it cites, measured with
   :class:`difflib.SequenceMatcher`'s common blocks, found in linear time (share of characters
   covered by common blocks, longest common substring).
3. **Answerability**: predict answered versus not answered from features of the trail alone, with
   scikit-learn cross-validation, against the majority class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import pandas as pd

from utils.book import tables
from utils.book.cjk_fonts import text_as_typed
from utils.book.figures import data_caveat

from ...metrics import PRF, SubstringIndex, grounding_overlap, set_prf
from ...records import Dialogue
from ...text import char_tokens
from .parser import NOT_FOUND, NOTHING, QUOTE, SUMMARY, Sentence, Step, answered, sentences, trail
from .stats import link_depths

if TYPE_CHECKING:
    from ...loading import Provenance

# -- 1. citation attribution ---------------------------------------------------------------------


def ngram_overlap(sentence: str, reference: str, n: int = 2) -> float:
    """Share of the sentence's distinct character n-grams that also occur in ``reference``.

    Containment rather than Jaccard: a long quote should not be penalised for the text the
    sentence did not use. 0.0 when the sentence has no n-gram.
    """
    return grounding_overlap(sentence, reference, tokenize=_characters, n=n, distinct=True).precision


# Each reference is compared with every sentence of its answer, at several n: its characters are
# worked out once.
@lru_cache(maxsize=16384)
def _characters(text: str) -> tuple[str, ...]:
    # whitespace is not a character here; punctuation is (as in utils.text.char_ngrams)
    return tuple(char_tokens(text, drop_punctuation=False))


def candidates(steps: Sequence[Step]) -> list[Step]:
    """The references a sentence can be attributed to: those holding a quote or a summary."""
    return [step for step in steps if step.content in (QUOTE, SUMMARY) and step.text]


def predict_overlap(sentence: str, steps: Sequence[Step], n: int = 2) -> list[int]:
    """The candidate with the highest n-gram overlap (the earliest one on a tie); ``[]`` if none."""
    pool = candidates(steps)
    if not pool:
        return []
    best = max(pool, key=lambda step: (ngram_overlap(sentence, step.text, n), -step.index))
    return [best.index]


def predict_first_quote(sentence: str, steps: Sequence[Step]) -> list[int]:
    """The first reference that holds a quote (else the first candidate); ignores the sentence."""
    pool = candidates(steps)
    quotes = [step for step in pool if step.content == QUOTE]
    chosen = quotes or pool
    return [chosen[0].index] if chosen else []


@dataclass(frozen=True)
class AttributionScore:
    """Mean scores of one attribution method over the evaluated sentences."""

    method: str
    sentences: int
    accuracy: float
    precision: float
    recall: float
    f1: float


def _random_expectation(gold: set[int], pool: Sequence[Step]) -> tuple[float, PRF]:
    """Exact expected accuracy and P/R/F1 of one uniform pick among ``pool``."""
    if not pool:
        return 0.0, set_prf([], gold)
    hit_rate = len(gold & {step.index for step in pool}) / len(pool)
    # a hit gives P = 1, R = 1/|gold|, F1 = 2/(|gold| + 1); a miss gives zeros
    return hit_rate, PRF(hit_rate, hit_rate / len(gold), hit_rate * 2 / (len(gold) + 1))


def evaluated_sentences(
    dialogues: Iterable[Dialogue], min_candidates: int = 1
) -> Iterable[tuple[Dialogue, list[Step], Sentence]]:
    """Answer sentences that cite at least one reference, in sessions with at least
    ``min_candidates`` references holding text, with their session's trail."""
    for dialogue in dialogues:
        if not answered(dialogue):
            continue
        steps = trail(dialogue)
        if len(candidates(steps)) < min_candidates:
            continue
        for sentence in sentences(dialogue):
            if sentence.citations:
                yield dialogue, steps, sentence


def attribution_scores(dialogues: Iterable[Dialogue], n: int = 2, min_candidates: int = 1) -> pd.DataFrame:
    """Accuracy (top prediction among the gold citations) and mean set P/R/F1 of three methods.

    Sentences without any gold citation are left out: there is nothing to attribute. With
    ``min_candidates=2`` only sessions where there is a real choice are scored (a session with a
    single quote makes every method right).
    """
    methods: dict[str, Callable[[str, Sequence[Step]], list[int]]] = {
        f"char {n}-gram overlap": lambda text, steps: predict_overlap(text, steps, n),
        "first quoted reference": predict_first_quote,
    }
    totals = {name: [0.0, 0.0, 0.0, 0.0] for name in ["random (expected)", *methods]}
    count = 0
    for _, steps, sentence in evaluated_sentences(dialogues, min_candidates):
        count += 1
        gold = set(sentence.citations)
        accuracy, prf = _random_expectation(gold, candidates(steps))
        _add(totals["random (expected)"], accuracy, prf)
        for name, method in methods.items():
            predicted = method(sentence.text, steps)
            hit = 1.0 if predicted and predicted[0] in gold else 0.0
            _add(totals[name], hit, set_prf(predicted, gold))
    rows = [
        AttributionScore(name, count, *(value / count if count else float("nan") for value in sums))
        for name, sums in totals.items()
    ]
    return pd.DataFrame([vars(row) for row in rows])


def attribution_by_n(
    dialogues: Iterable[Dialogue], ns: Sequence[int] = (1, 2, 3, 4), min_candidates: int = 2
) -> pd.DataFrame:
    """Accuracy and F1 of the n-gram overlap method for several n (sessions with a real choice)."""
    dialogues = list(dialogues)
    rows = []
    for n in ns:
        scores = attribution_scores(dialogues, n=n, min_candidates=min_candidates)
        best = scores[scores["method"] == f"char {n}-gram overlap"].iloc[0]
        rows.append({"n": n, "sentences": best["sentences"], "accuracy": best["accuracy"], "f1": best["f1"]})
    return pd.DataFrame(rows)


def _add(total: list[float], accuracy: float, prf: PRF) -> None:
    total[0] += accuracy
    total[1] += prf.precision
    total[2] += prf.recall
    total[3] += prf.f1


# -- 2. extractiveness ---------------------------------------------------------------------------


class _SuffixAutomaton(SubstringIndex):
    """The substrings of ``text[start:stop]`` (:class:`utils.metrics.SubstringIndex`, Blumer et al.'s
    construction in linear time), with where each match first ends in ``text``: a match found while
    scanning another string is placed at its earliest occurrence, as difflib places it."""

    __slots__ = ("offset",)

    def __init__(self, text: str, start: int, stop: int) -> None:
        super().__init__(text[start:stop])
        self.offset = start

    def match_lengths(self, text: str, start: int, stop: int, lengths: list[int], first_ends: list[int]) -> None:
        """For each ``p`` in ``range(start, stop)``, the longest ``text[q:p+1]`` (``q >= start``) found
        in the automaton's text: its length into ``lengths[p]``, where it first ends into ``first_ends[p]``."""
        nxt, link, length, first_end = self.next, self.link, self.length, self.first_end
        state = size = 0
        for position in range(start, stop):
            char = text[position]
            while state and char not in nxt[state]:
                state = link[state]
                size = length[state]
            if char in nxt[state]:
                state = nxt[state][char]
                size += 1
            else:
                state = size = 0
            lengths[position] = size
            first_ends[position] = first_end[state] + self.offset if state else -1


class _RangeMax:
    """Maximum of a list of integers over any range, with whole ranges replaced, in logarithmic time."""

    __slots__ = ("leaves", "tree")

    def __init__(self, count: int) -> None:
        self.leaves = 1 << max(count - 1, 0).bit_length()
        self.tree = [0] * (2 * self.leaves)

    def assign(self, start: int, values: list[int]) -> None:
        tree = self.tree
        low = start + self.leaves
        high = low + len(values)
        tree[low:high] = values
        low //= 2
        high = (high - 1) // 2
        while low >= 1:
            for node in range(low, high + 1):
                left = tree[2 * node]
                right = tree[2 * node + 1]
                tree[node] = left if left > right else right
            low //= 2
            high //= 2

    def max(self, start: int, stop: int) -> int:
        tree = self.tree
        best = 0
        low = start + self.leaves
        high = stop + self.leaves
        while low < high:
            if low & 1:
                best = max(best, tree[low])
                low += 1
            if high & 1:
                high -= 1
                best = max(best, tree[high])
            low //= 2
            high //= 2
        return best


#: How many of a parent's matches that reach outside a region are searched for again inside it
#: (``str.find``, each a pass over the region in C) before the region is scanned whole instead.
_REPAIRS_BEFORE_SCAN = 16


def copied_characters(target: str, source: str, min_block: int = 4) -> tuple[int, int]:
    """``(characters of target inside common blocks of at least min_block, longest common substring)``.

    The blocks are those of :class:`difflib.SequenceMatcher` with autojunk off (in Japanese,
    frequent characters such as の are content, not noise): the longest common substring (the one
    starting first in ``source``, then first in ``target``), then the same on each side of it,
    recursively. Short blocks are ignored because two Japanese texts share many single characters
    and particles by chance. difflib's search is quadratic in frequent characters (one
    8,000-character answer took 43 s); here it is near-linear:

    - a region is scanned with a suffix automaton of its part of ``target``, in linear time, which
      gives, for each position of ``source``, the longest match ending there and where it first
      ends in ``target``;
    - a region inside an already scanned one needs no scan of its own when the best match its
      parent found there (kept in a range-maximum tree) lies wholly inside it: a region's matches
      are never longer than its parent's, so that match is still the longest and still first. An
      answer copied in many short runs (each region the last one minus one run) then costs one
      scan, not one per run;
    - a region whose longest match is shorter than ``min_block`` holds no block that counts, so it
      is not split further.
    """
    if not target or not source:
        return 0, 0
    count = len(source)
    lengths = [0] * count
    first_ends = [-1] * count
    best_of = _RangeMax(count)
    # One key per position of source: longer matches first, then earlier positions (difflib's tie).
    stride = count + 1

    def scan(source_start: int, source_stop: int, target_start: int, target_stop: int) -> None:
        automaton = _SuffixAutomaton(target, target_start, target_stop)
        automaton.match_lengths(source, source_start, source_stop, lengths, first_ends)
        keys = [lengths[p] * stride + count - p for p in range(source_start, source_stop)]
        best_of.assign(source_start, keys)

    def repair(end: int, size: int, source_start: int, target_start: int, target_stop: int) -> None:
        """Replace the parent's match ending at ``end`` by the longest one inside this region."""
        low, high, first_end = 0, min(size, end - source_start + 1), -1
        while low < high:  # a match's suffixes are matches too: bisect on the length
            middle = (low + high + 1) // 2
            found = target.find(source[end - middle + 1 : end + 1], target_start, target_stop)
            if found < 0:
                high = middle - 1
            else:
                low, first_end = middle, found + middle - 1
        lengths[end] = low
        first_ends[end] = first_end
        best_of.assign(end, [low * stride + count - end])

    def longest(source_start: int, source_stop: int, target_start: int, target_stop: int) -> tuple[int, int, int]:
        for repairs in range(_REPAIRS_BEFORE_SCAN + 1):
            key = best_of.max(source_start, source_stop)
            size, end = key // stride, count - key % stride
            if not size or (
                end - size + 1 >= source_start
                and first_ends[end] - size + 1 >= target_start
                and first_ends[end] < target_stop
            ):
                return end - size + 1, first_ends[end] - size + 1, size
            if repairs < _REPAIRS_BEFORE_SCAN:
                repair(end, size, source_start, target_start, target_stop)
        # Many of the parent's matches reach outside this region: scanning it is cheaper.
        scan(source_start, source_stop, target_start, target_stop)
        key = best_of.max(source_start, source_stop)
        size, end = key // stride, count - key % stride
        return end - size + 1, first_ends[end] - size + 1, size

    scan(0, count, 0, len(target))
    covered = 0
    regions = [(0, count, 0, len(target))]
    longest_common = longest(*regions[0])[2]
    while regions:
        source_start, source_stop, target_start, target_stop = regions.pop()
        i, j, size = longest(source_start, source_stop, target_start, target_stop)
        if size < min_block or size == 0:
            continue
        covered += size
        if source_start < i and target_start < j:
            regions.append((source_start, i, target_start, j))
        if i + size < source_stop and j + size < target_stop:
            regions.append((i + size, source_stop, j + size, target_stop))
    return covered, longest_common


def extractiveness(dialogues: Iterable[Dialogue], min_block: int = 4) -> pd.DataFrame:
    """One row per answer with at least one sentence citing a quote.

    ``covered_share``: characters of those sentences copied (blocks of at least ``min_block``) from
    the quotes each sentence cites, over their total characters; sentences citing only summaries
    are left out, and copying is found in order (``difflib``'s matching blocks), so reordered
    copying counts less than it is. ``longest_common``: the longest run
    of characters a sentence shares with its cited quotes (the maximum over the answer's sentences).
    """
    rows = []
    for dialogue in dialogues:
        if not answered(dialogue):
            continue
        steps = trail(dialogue)
        covered = total = longest = used = 0
        for sentence in sentences(dialogue):
            quotes = [steps[c].text for c in sentence.citations if steps[c].content == QUOTE]
            if not quotes:
                continue
            used += 1
            part, run = copied_characters(sentence.text, "\n".join(quotes), min_block)
            covered += part
            total += len(sentence.text)
            longest = max(longest, run)
        if used:
            rows.append(
                {
                    "id": int(dialogue.meta.get("id", dialogue.id)),
                    "sentences_with_quotes": used,
                    "chars": total,
                    "covered_chars": covered,
                    "covered_share": covered / total if total else 0.0,
                    "longest_common": longest,
                }
            )
    return pd.DataFrame(
        rows, columns=["id", "sentences_with_quotes", "chars", "covered_chars", "covered_share", "longest_common"]
    )


# -- 3. answerability ----------------------------------------------------------------------------

#: Features of how the worker navigated: no look at what the steps found or yielded.
NAVIGATION_FEATURES = (
    "steps",
    "search_steps",
    "link_steps",
    "keywords_per_search",
    "distinct_pages",
    "max_link_depth",
)
#: What the steps found and yielded. These are part of the outcome, not signs of it: a search that
#: found nothing (``not_found``) or a page that yielded nothing is how a failed session is recorded,
#: and a quote is taken for an answer. A model that uses them does not predict the outcome.
OUTCOME_FEATURES = ("not_found", "quotes", "summaries", "nothing")
#: Navigation plus the outcome-like features: an upper bound that shows how much they give away.
TRAIL_FEATURES = (*NAVIGATION_FEATURES, *OUTCOME_FEATURES)


def trail_features(dialogues: Iterable[Dialogue]) -> pd.DataFrame:
    """One row of trail features per session plus the ``answered`` target."""
    rows = []
    for dialogue in dialogues:
        steps = trail(dialogue)
        searches = [s for s in steps if s.origin == "search"]
        rows.append(
            {
                "id": int(dialogue.meta.get("id", dialogue.id)),
                "steps": len(steps),
                "search_steps": len(searches),
                "link_steps": len(steps) - len(searches),
                "keywords_per_search": sum(len(s.keywords) for s in searches) / len(searches) if searches else 0.0,
                "distinct_pages": len({s.url for s in steps if s.title is not None}),
                "max_link_depth": max(link_depths(steps), default=0),
                "not_found": sum(s.content == NOT_FOUND for s in steps),
                "quotes": sum(s.content == QUOTE for s in steps),
                "summaries": sum(s.content == SUMMARY for s in steps),
                "nothing": sum(s.content == NOTHING for s in steps),
                "answered": answered(dialogue),
            }
        )
    return pd.DataFrame(rows)


def answerability_scores(
    features: pd.DataFrame, *, folds: int = 5, seed: int = 0
) -> pd.DataFrame:
    """Cross-validated accuracy, balanced accuracy and F1 (of "answered") of three classifiers.

    The majority class, a logistic regression on :data:`NAVIGATION_FEATURES` only (the prediction),
    and one on all trail features, :data:`OUTCOME_FEATURES` included (an upper bound, not a
    prediction). Folds are stratified and shuffled with ``seed``; fewer folds are used when a class
    has fewer members than ``folds`` (the demo sample).
    """
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_validate
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    target = features["answered"].astype(int)
    smallest = int(target.value_counts().min()) if target.nunique() == 2 else 0
    k = min(folds, smallest)
    if k < 2:
        raise ValueError("answerability needs at least two answered and two not-answered sessions")
    splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    models = {
        "majority class": (DummyClassifier(strategy="most_frequent"), NAVIGATION_FEATURES),
        "logistic regression, navigation only": (
            make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
            NAVIGATION_FEATURES,
        ),
        "logistic regression, whole trail": (
            make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
            TRAIL_FEATURES,
        ),
    }
    rows = []
    for name, (model, columns) in models.items():
        result = cross_validate(
            model, features[list(columns)], target, cv=splitter, scoring=["accuracy", "balanced_accuracy", "f1"]
        )
        rows.append(
            {
                "model": name,
                "folds": k,
                "accuracy": result["test_accuracy"].mean(),
                "balanced_accuracy": result["test_balanced_accuracy"].mean(),
                "f1_answered": result["test_f1"].mean(),
            }
        )
    return pd.DataFrame(rows)


# -- tables and figures for readers ----------------------------------------------------------------
# Each *_view shows a frame of this module through utils.book.tables.table: methods named for readers,
# counts as integers, scores as percentages with one decimal.

#: Method and model names as the chapter's tables show them.
METHOD_LABELS = {
    "random (expected)": "random step holding text (expected score)",
    "first quoted reference": "first step holding a quote",
    "majority class": "majority class (always the more common outcome)",
    "logistic regression, navigation only": "logistic regression, navigation features only",
    "logistic regression, whole trail": "logistic regression, whole trail (outcome-like features included: "
    "not a prediction)",
}


def _method_label(name: str) -> str:
    if name.startswith("char ") and name.endswith("-gram overlap"):
        return f"character {name.removeprefix('char ')} with the sentence"
    return METHOD_LABELS.get(name, name)


def _caption(text: str, data: Iterable[Provenance]) -> str:
    return f"{data_caveat(data)} {text}".strip()


def _left(table: tables.Table, column: str) -> tables.Table:
    """The label column reads from the left (a notebook's own style right-aligns every cell)."""
    table.styler.set_properties(subset=[column], **{"text-align": "left"})
    return table


def attribution_table(scores: pd.DataFrame, *, caption: str, data: Iterable[Provenance] = ()) -> tables.Table:
    """:func:`attribution_scores` for readers: accuracy and mean set precision, recall and F1 in %."""
    table = tables.table(
        scores.assign(method=scores["method"].map(_method_label)),
        labels={
            "method": "Method",
            "sentences": "Sentences scored",
            "accuracy": "Accuracy",
            "precision": "Precision",
            "recall": "Recall",
            "f1": "F1",
        },
        integers=["sentences"],
        percents={"accuracy": 1, "precision": 1, "recall": 1, "f1": 1},
        caption=_caption(caption, data),
        notes=["Accuracy: the predicted step is one of the sentence's citations. Precision, recall and F1 "
               "compare the predicted set with the cited set, averaged over sentences; all with one decimal."],
    )
    return _left(table, "method")


def attribution_by_n_table(frame: pd.DataFrame, *, data: Iterable[Provenance] = ()) -> tables.Table:
    """:func:`attribution_by_n` for readers."""
    return tables.table(
        frame,
        labels={"n": "n (characters per n-gram)", "sentences": "Sentences scored", "accuracy": "Accuracy", "f1": "F1"},
        integers=["n", "sentences"],
        percents={"accuracy": 1, "f1": 1},
        caption=_caption("Character n-gram overlap for several n, in sessions with at least two steps holding text.",
                         data),
    )


def extractiveness_table(frame: pd.DataFrame, *, data: Iterable[Provenance] = ()) -> tables.Table:
    """How an :func:`extractiveness` frame is distributed: mean, quartiles and extremes per answer.

    Quantiles of the longest run are observed values (nearest rank), so they stay whole characters.
    """
    share, longest = frame["covered_share"], frame["longest_common"]
    statistics = {
        "mean": (share.mean(), longest.mean()),
        "first quartile": (share.quantile(0.25), longest.quantile(0.25, interpolation="nearest")),
        "median": (share.median(), longest.quantile(0.5, interpolation="nearest")),
        "third quartile": (share.quantile(0.75), longest.quantile(0.75, interpolation="nearest")),
        "minimum": (share.min(), longest.min()),
        "maximum": (share.max(), longest.max()),
    }
    summary = pd.DataFrame(
        [{"statistic": name, "covered": pair[0], "longest": pair[1]} for name, pair in statistics.items()]
    )
    answers = len(frame)
    table = tables.table(
        summary,
        labels={
            "statistic": "Over answers",
            "covered": "Characters copied from the cited quotes",
            "longest": "Longest run shared with a cited quote (characters)",
        },
        percents={"covered": 1},
        integers=["longest"],
        caption=_caption(
            f"How extractive the {answers:,} answer{'s' if answers != 1 else ''} with a sentence citing a quote are.",
            data,
        ),
        notes=["Copied: characters of the sentences citing a quote that lie in blocks of at least four characters "
               "shared, in order, with the quotes each sentence cites; shares with one decimal."],
    )
    # the mean run is not a whole number of characters
    table.styler.format(lambda value: tables.decimal(value, 1), subset=pd.IndexSlice[[0], ["longest"]])
    return _left(table, "statistic")


def answerability_table(scores: pd.DataFrame, *, data: Iterable[Provenance] = ()) -> tables.Table:
    """:func:`answerability_scores` for readers: cross-validated scores in %."""
    folds = sorted(set(scores["folds"]))
    table = tables.table(
        scores.assign(model=scores["model"].map(_method_label)),
        labels={
            "model": "Model",
            "accuracy": "Accuracy",
            "balanced_accuracy": "Balanced accuracy",
            "f1_answered": "F1 of \u201canswered\u201d",
        },
        percents={"accuracy": 1, "balanced_accuracy": 1, "f1_answered": 1},
        caption=_caption(
            f"Answered or not, predicted from the trail alone: means over {', '.join(map(str, folds))} stratified "
            "cross-validation folds.",
            data,
        ),
        notes=["Balanced accuracy is the mean of the recall of each class: 50% for a constant guess."],
    )
    return _left(table, "model")


def extractiveness_alt(frame: pd.DataFrame) -> str:
    """Alt text for :func:`plot_extractiveness`, with the medians it depicts."""
    if frame.empty:
        return "Two empty histograms: no answer has a sentence citing a quote."
    return (
        f"Two histograms over {len(frame):,} answers. Top: the share of characters copied from the cited quotes, "
        f"median {frame['covered_share'].median():.0%}, from {frame['covered_share'].min():.0%} to "
        f"{frame['covered_share'].max():.0%}. Bottom: the longest run of characters shared with a cited quote, "
        f"median {frame['longest_common'].median():.0f} characters, at most {frame['longest_common'].max():.0f}."
    )


@text_as_typed
def plot_extractiveness(frame: pd.DataFrame) -> Any:
    """Two histograms of an :func:`extractiveness` frame, one above the other: covered share and
    longest common substring (7 in wide, text of at least 9 pt)."""
    import matplotlib.pyplot as plt

    from .stats import FIGURE_FONTS, SESSION_COLOURS

    with plt.rc_context(FIGURE_FONTS):
        fig, axes = plt.subplots(2, 1, figsize=(7.0, 5.6))
        axes[0].hist(frame["covered_share"] * 100, bins=[5 * i for i in range(21)], color=SESSION_COLOURS["answered"])
        axes[0].set_xlabel("characters copied from the cited quotes (% of the sentences citing a quote)")
        axes[0].set_ylabel("answers")
        axes[0].set_title("How extractive are the answers?")
        axes[1].hist(frame["longest_common"], bins=30, color="#1565c0")
        axes[1].set_xlabel("longest run of characters shared with a cited quote")
        axes[1].set_ylabel("answers")
        axes[1].set_title("Longest copied span per answer")
        fig.tight_layout()
    return fig
