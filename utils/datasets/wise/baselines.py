"""Baselines for WISE's six sub-tasks, scored the way the authors' evaluation code scores them.

The authors' ``evaluation/Evaluation.py`` (PengjieRen/CaSE_WISE, with ``evaluation/Rouge.py`` and the
``char_tokenizer`` of ``common/Utils.py``) turns every system utterance into one example: the
conversation up to it, the *intent of the latest user utterance* (T1), the system's keyphrase
``state`` (T2), its ``action`` (T3), the selected queries (T4) and passages (T5) and the response
(T6). Labels are the stored lists joined with ``-``. Its rules, each reproduced here:

* **T1 intent**: macro P/R/F1 over the classes present in the gold labels; precision is averaged
  only over the gold classes the system predicted at least once (an unpredicted class has no
  precision and is skipped rather than counted as 0); classes only predicted never count.
* **T3 action**: the same, but every sum is divided by ``(number of classes + 1)``, which shrinks
  the score by a factor ``n / (n + 1)``.
* **T4/T5 selection**: only gold ``Clarify``/``Answer`` turns with a non-empty gold selection; set
  P/R/F1 per turn, precision recorded only when something was predicted; averaged per gold action,
  and the per-action averages summed and divided by ``(number of actions + 1)``.
* **T2 keyphrases**: gold ``Clarify``/``Answer`` turns with a non-empty gold state; a turn with no
  predicted keyphrase is skipped. Each predicted phrase gets BLEU-1 and ROUGE-L against *all* gold
  phrases as references, averaged over the predicted phrases; then per gold action, + 1 as above.
* **T6 responses**: BLEU-1 and ROUGE-L per gold ``Clarify``/``Answer`` turn, per gold action, + 1.
* Text is cut into the authors' character tokens (:func:`authors_char_tokens`: lower-cased,
  whitespace dropped, punctuation kept, a ``##<link##N##link>##`` placeholder one token).
* **BLEU-1** is NLTK 3.5's ``sentence_bleu(refs, hyp, weights=(1.,),
  smoothing_function=SmoothingFunction().method2)`` (3.5 is the version the authors pin): no
  matching character gives 0, otherwise ``(matches + 1) / (length + 1)`` times the brevity penalty.
  NLTK 3.6 and later stopped smoothing unigrams, so their code run today gives other numbers.
* **ROUGE-L** is ``Rouge.py``'s ``sentence_rouge`` with ``beta = 1.2``: LCS precision and recall,
  each the maximum over the references, combined as ``(1 + b^2) P R / (R + b^2 P)``.

Each table has the authors' scoring as the column :data:`AUTHORS` and a plain average beside it:
:data:`PLAIN_MACRO` (scikit-learn's macro average over the union of gold and predicted classes) for
T1/T3, :data:`PLAIN_MEAN` (the mean over the same scored turns of the same per-turn scores) for
T2, T4, T5 and T6. Where the authors' code would crash (an empty average, ``max`` of nothing in
``Rouge.py``), the functions here return 0.
"""

from __future__ import annotations

import functools
import json
import math
import operator
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from statistics import median
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd
from rank_bm25 import BM25Plus

from utils.book import tables
from utils.book.figures import data_caveat
from utils.book.tables import Table

from ...loading import LoadedSplit, Provenance
from ...metrics import PRF, SubstringIndex, lcs_length, set_prf
from ...records import SEEKER, WIZARD, Dialogue
from ...text import char_tokens
from .parser import SCORED_ACTION_GROUPS, published_label

if TYPE_CHECKING:
    from scipy import sparse

_MIN_NUM = 1e-8  # the authors' epsilon in F1 = 2pr / (p + r + eps)
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])")

#: The tables' column for the authors' scoring.
AUTHORS = "as the authors score it (CaSE_WISE Evaluation.py)"
#: Beside it for T1/T3: scikit-learn's macro average over every gold or predicted class.
PLAIN_MACRO = "plain macro average (scikit-learn)"
#: Beside it for T2, T4, T5 and T6: the plain mean of the same per-turn scores over the same turns.
PLAIN_MEAN = "plain mean over the scored turns"


# -- examples ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemTurnExample:
    """One evaluation example: a system utterance and what came before it."""

    dialogue_id: str
    turn_index: int
    #: earlier utterances, oldest first
    context: tuple[str, ...]
    #: the latest user utterance before this system turn ("" when none)
    user_text: str
    #: the published name of that user utterance's intent (the T1 target); "" when there is none,
    #: where the authors' ``evaluate`` would silently reuse the previous example's intent
    intent: str
    #: the published name of the system action (the T3 target), and its group ("Answer", ...)
    action: str
    action_group: str
    state: tuple[str, ...]
    query_candidates: tuple[str, ...]
    selected_queries: tuple[str, ...]
    passage_ids: tuple[str, ...]
    #: passage id -> text, for the candidates whose text the document file supplied
    passage_texts: Mapping[str, str] = field(default_factory=dict)
    selected_passages: tuple[str, ...] = ()
    response: str = ""

    @property
    def scored_by_authors(self) -> bool:
        """True for gold Clarify and Answer turns, the ones T2, T4, T5 and T6 are scored on."""
        return self.action_group in SCORED_ACTION_GROUPS


def system_turn_examples(dialogues: Iterable[Dialogue]) -> list[SystemTurnExample]:
    """One :class:`SystemTurnExample` per system utterance, as the authors' evaluation builds them.

    A loaded split is read straight from its cached tables (the same rows its dialogues are rebuilt
    from), which spares rebuilding a million :class:`~utils.records.Evidence` objects on full WISE.
    """
    if isinstance(dialogues, LoadedSplit):
        return _examples_from_tables(dialogues)
    # One string object per distinct passage id and text: a passage is a candidate at many turns,
    # and keeping a copy per turn held gigabytes on full-size data.
    shared: dict[str, str] = {}
    examples = []
    for dialogue in dialogues:
        context: list[str] = []
        user_text, intent = "", ""
        for turn in dialogue.turns:
            if turn.role == WIZARD:
                ids = [shared.setdefault(item.id, item.id) for item in turn.evidence]
                texts = {pid: shared.setdefault(item.text, item.text)
                         for pid, item in zip(ids, turn.evidence, strict=True) if item.text}
                examples.append(_example(dialogue.id, turn.index, context, user_text, intent, turn.labels,
                                         ids, texts, turn.text))
            elif turn.role == SEEKER:
                user_text, intent = turn.text, published_label(turn.labels.get("intent", []))
            context.append(turn.text)
    return examples


def _example(
    dialogue_id: str,
    turn_index: int,
    context: list[str],
    user_text: str,
    intent: str,
    labels: Mapping[str, list[str]],
    passage_ids: list[str],
    passage_texts: dict[str, str],
    response: str,
) -> SystemTurnExample:
    action = labels.get("action", [])
    return SystemTurnExample(
        dialogue_id=dialogue_id,
        turn_index=turn_index,
        context=tuple(context),
        user_text=user_text,
        intent=intent,
        action=published_label(action),
        action_group=action[0] if action else "",
        state=tuple(labels.get("state", [])),
        query_candidates=tuple(labels.get("query_candidate", [])),
        selected_queries=tuple(labels.get("selected_query", [])),
        passage_ids=tuple(passage_ids),
        passage_texts=passage_texts,
        selected_passages=tuple(labels.get("selected_passage", [])),
        response=response,
    )


def _interned(column: object, shared: dict[str, str]) -> list[str | None]:
    # Dictionary-encoding a chunk turns its many repeats into one Python string per distinct value.
    values: list[str | None] = []
    for chunk in column.chunks:  # type: ignore[attr-defined]
        encoded = chunk.dictionary_encode(null_encoding="encode")
        words = [None if word is None else shared.setdefault(word, word) for word in encoded.dictionary.to_pylist()]
        values.extend([words[index] for index in encoded.indices.to_pylist()])
    return values


def _examples_from_tables(split: LoadedSplit) -> list[SystemTurnExample]:
    """:func:`system_turn_examples` of a loaded split, from the turns and evidence tables."""
    columns = ("dialogue_index", "dialogue_id", "turn_index", "role", "text", "labels", "evidence_start",
               "evidence_count")
    turns, evidence = split.arrow("turns", columns), split.arrow("evidence", ["id"])
    shared: dict[str, str] = {}
    e_ids = _interned(evidence.column("id"), shared)
    # Each passage's text is one string, shared by every row that shows it.
    e_texts = split.evidence_texts()
    rows = zip(*(turns.column(name).to_pylist() for name in columns), strict=True)
    examples: list[SystemTurnExample] = []
    current, user_text, intent = None, "", ""
    context: list[str] = []
    for d_index, d_id, t_index, role, text, labels_json, start, count in rows:
        if d_index != current:
            current, context, user_text, intent = d_index, [], "", ""
        labels = json.loads(labels_json)
        if role == WIZARD:
            ids = cast("list[str]", e_ids[start : start + count])  # an evidence id is never null
            texts = {pid: item for pid, item in zip(ids, e_texts[start : start + count], strict=True) if item}
            examples.append(_example(d_id, t_index, context, user_text, intent, labels, ids, texts, text))
        elif role == SEEKER:
            user_text, intent = text, published_label(labels.get("intent", []))
        context.append(text)
    return examples


# -- T1/T3: macro averages ----------------------------------------------------------------------------


def standard_macro_prf(gold: Sequence[str], predicted: Sequence[str]) -> PRF:
    """scikit-learn's macro P/R/F1 (``precision_recall_fscore_support(average="macro", zero_division=0)``)
    over every class seen in ``gold`` or ``predicted``; 0 when ``gold`` is empty. Counted here rather
    than by scikit-learn, whose call costs a millisecond: ``atlas score`` computes it on a thousand
    bootstrap resamples."""
    if not gold:
        return PRF(0.0, 0.0, 0.0)
    count_gold, count_pred = Counter(gold), Counter(predicted)
    correct = Counter(g for g, p in zip(gold, predicted, strict=True) if g == p)
    labels = set(count_gold) | set(count_pred)
    precision = sum(correct[c] / count_pred[c] for c in labels if count_pred[c]) / len(labels)
    recall = sum(correct[c] / count_gold[c] for c in labels if count_gold[c]) / len(labels)
    f1 = sum(2 * correct[c] / (count_gold[c] + count_pred[c]) for c in labels) / len(labels)
    return PRF(precision, recall, f1)


def original_macro_prf(gold: Sequence[str], predicted: Sequence[str], *, plus_one: bool) -> PRF:
    """The authors' macro P/R/F1 (``evaluate_T1`` with ``plus_one=False``, ``evaluate_T3`` with True).

    Classes are those in ``gold``. Precision is averaged over the gold classes that were predicted
    at least once; recall and F1 over all gold classes; with ``plus_one`` each sum is divided by
    one more than the number of classes it runs over.
    """
    if not gold:
        return PRF(0.0, 0.0, 0.0)
    count_gold, count_pred = Counter(gold), Counter(predicted)
    correct = Counter(g for g, p in zip(gold, predicted, strict=True) if g == p)
    precisions, recalls, f1s = [], [], []
    for label, n_gold in count_gold.items():
        p = correct[label] / count_pred[label] if label in count_pred else 0.0
        if label in count_pred:
            precisions.append(p)
        r = correct[label] / n_gold
        recalls.append(r)
        f1s.append(2.0 * (p * r / (p + r + _MIN_NUM)))
    extra = 1 if plus_one else 0

    def average(values: list[float]) -> float:
        denominator = len(values) + extra
        return sum(values) / denominator if denominator else 0.0

    return PRF(average(precisions), average(recalls), average(f1s))


# -- T4/T5: selection ---------------------------------------------------------------------------------


def original_selection_prf(
    gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]], actions: Sequence[str]
) -> PRF:
    """The authors' T4/T5 score: set P/R/F1 on gold Clarify/Answer examples with a gold selection,
    averaged per gold action, then summed and divided by (number of actions + 1)."""
    per_action: dict[str, dict[str, list[float]]] = defaultdict(lambda: {"p": [], "r": [], "f": []})
    for gold_items, predicted_items, action in zip(gold, predicted, actions, strict=True):
        if not scored_action(action) or not gold_items:
            continue
        hits = len(set(gold_items) & set(predicted_items))
        p = hits / len(predicted_items) if predicted_items else 0.0
        r = hits / len(gold_items)
        scores = per_action[action]
        if predicted_items:
            scores["p"].append(p)
        scores["r"].append(r)
        scores["f"].append(2.0 * (p * r / (p + r + _MIN_NUM)))

    def average(key: str) -> float:
        means = [float(np.mean(scores[key])) for scores in per_action.values() if scores[key]]
        return sum(means) / (len(means) + 1)

    return PRF(average("p"), average("r"), average("f"))


def standard_selection_prf(
    gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]], actions: Sequence[str]
) -> PRF:
    """Mean set P/R/F1 (:func:`utils.metrics.set_prf`) over the same examples the authors score."""
    scores = [
        set_prf(p, g)
        for g, p, action in zip(gold, predicted, actions, strict=True)
        if scored_action(action) and g
    ]
    if not scores:
        return PRF(0.0, 0.0, 0.0)
    return PRF(*(float(np.mean([getattr(s, name) for s in scores])) for name in ("precision", "recall", "f1")))


# -- T2/T6: BLEU-1 and ROUGE-L on the authors' character tokens -----------------------------------------

_LINK_PLACEHOLDER = re.compile(r"(##<link##[1-9]\d*##link>##)")


def authors_char_tokens(text: str) -> list[str]:
    """The authors' ``char_tokenizer`` (CaSE_WISE ``common/Utils.py``): lower-case, one token per
    character with whitespace dropped (punctuation kept), a link placeholder as the token ``[Link]``."""
    tokens: list[str] = []
    for span in _LINK_PLACEHOLDER.split(text.lower()):
        if "##<link##" in span and "##link>##" in span:
            tokens.append("[Link]")
        else:
            tokens.extend("".join(span.split()))
    return tokens


def authors_bleu1(references: Sequence[Sequence[str]], hypothesis: Sequence[str]) -> float:
    """NLTK 3.5 ``sentence_bleu(references, hypothesis, weights=(1.,), smoothing_function=method2)``.

    Clipped unigram matches ``m`` (each token counted at most as often as in the reference that has
    it most), hypothesis length ``c``, and ``r`` the reference length closest to ``c`` (the shorter
    on a tie): 0 when ``m == 0``, else ``(m + 1) / (c + 1) * BP`` with ``BP = 1`` when ``c > r``,
    0 when ``c == 0`` and ``exp(1 - r / c)`` otherwise.
    """
    counts = Counter(hypothesis)
    most: Counter[str] = Counter()
    for reference in references:
        most |= Counter(reference)  # per token, the largest count in any one reference
    matches = sum(min(count, most[token]) for token, count in counts.items())
    if matches == 0:
        return 0.0
    length = len(hypothesis)
    closest = min((len(reference) for reference in references), key=lambda n: (abs(n - length), n))
    penalty = 1.0 if length > closest else math.exp(1 - closest / length)
    return penalty * (matches + 1) / (length + 1)


def authors_rouge_l(references: Sequence[Sequence[str]], candidate: Sequence[str], beta: float = 1.2) -> float:
    """``Rouge.py``'s ``sentence_rouge``: with ``P`` the largest LCS / len(candidate) and ``R`` the
    largest LCS / len(reference) over the references (taken separately, so from possibly different
    references), ``(1 + beta^2) P R / (R + beta^2 P)``, or 0 when either is 0.

    An empty candidate, or only empty references, gives 0 (``Rouge.py`` would fail on ``max([])``).
    """
    lcs = [lcs_length(reference, candidate) for reference in references]
    precisions = [n / len(candidate) for n in lcs] if candidate else []
    recalls = [n / len(reference) for n, reference in zip(lcs, references, strict=True) if reference]
    if not precisions or not recalls:
        return 0.0
    p, r = max(precisions), max(recalls)
    if p == 0 or r == 0:
        return 0.0
    return (1 + beta**2) * p * r / (r + beta**2 * p)


def char_bleu1(hypothesis: str, reference: str) -> float:
    """BLEU-1 of two strings as the authors compute it (:func:`authors_bleu1` on
    :func:`authors_char_tokens`), 0-1."""
    return authors_bleu1([authors_char_tokens(reference)], authors_char_tokens(hypothesis))


def char_rouge_l(hypothesis: str, reference: str) -> float:
    """ROUGE-L (beta 1.2) of two strings as the authors compute it (:func:`authors_rouge_l` on
    :func:`authors_char_tokens`), 0-1."""
    return authors_rouge_l([authors_char_tokens(reference)], authors_char_tokens(hypothesis))


def phrases_scores(predicted: Sequence[str], gold: Sequence[str]) -> tuple[float, float]:
    """T2's BLEU-1 and ROUGE-L of one turn's predicted keyphrases, as ``evaluate_T2`` scores them."""
    # evaluate_T2: every predicted phrase against all gold phrases as references, then the mean
    # over the predicted phrases.
    references = [authors_char_tokens(phrase) for phrase in gold]
    bleu = [authors_bleu1(references, authors_char_tokens(phrase)) for phrase in predicted]
    rouge = [authors_rouge_l(references, authors_char_tokens(phrase)) for phrase in predicted]
    return float(np.mean(bleu)), float(np.mean(rouge))


def scored_action(action: str) -> bool:
    """Whether the authors score T2, T4, T5 and T6 on a turn whose gold action is ``action``."""
    # evaluate_T2/T4/T5/T6 test the first part of the stored list, the action group
    return action.split("-")[0] in SCORED_ACTION_GROUPS


def generation_scores(
    hypotheses: Sequence[str], references: Sequence[str], actions: Sequence[str]
) -> dict[str, float]:
    """T6: BLEU-1 and ROUGE-L (0-1) of responses, as the authors compute them, on gold
    Clarify/Answer turns.

    ``authors_*``: per-turn scores averaged per gold action, summed, divided by (actions + 1).
    ``plain_*``: the mean of the same per-turn scores over the same turns.
    """
    kept = [(h, r, a) for h, r, a in zip(hypotheses, references, actions, strict=True) if scored_action(a)]
    bleu = [char_bleu1(h, r) for h, r, _ in kept]
    rouge = [char_rouge_l(h, r) for h, r, _ in kept]
    return _generation_summary(bleu, rouge, [a for *_, a in kept])


def keyphrase_scores(
    predicted: Sequence[Sequence[str]], gold: Sequence[Sequence[str]], actions: Sequence[str]
) -> dict[str, float]:
    """T2: BLEU-1 and ROUGE-L (0-1) of predicted keyphrases, as the authors compute them: gold
    Clarify/Answer turns with a non-empty gold state, skipping turns with no predicted phrase.

    Averaged as :func:`generation_scores` averages (``authors_*`` and ``plain_*``).
    """
    kept = [(p, g, a) for p, g, a in zip(predicted, gold, actions, strict=True) if scored_action(a) and g and p]
    scores = [phrases_scores(p, g) for p, g, _ in kept]
    return _generation_summary([b for b, _ in scores], [r for _, r in scores], [a for *_, a in kept])


def _generation_summary(bleu: Sequence[float], rouge: Sequence[float], actions: Sequence[str]) -> dict[str, float]:
    if not actions:
        return {"authors_bleu1": 0.0, "authors_rouge_l": 0.0, "plain_bleu1": 0.0, "plain_rouge_l": 0.0, "examples": 0}
    return {
        "authors_bleu1": _per_action_plus_one(bleu, actions),
        "authors_rouge_l": _per_action_plus_one(rouge, actions),
        "plain_bleu1": float(np.mean(bleu)),
        "plain_rouge_l": float(np.mean(rouge)),
        "examples": len(actions),
    }


def _per_action_plus_one(scores: Sequence[float], actions: Sequence[str]) -> float:
    groups: dict[str, list[float]] = defaultdict(list)
    for score, action in zip(scores, actions, strict=True):
        groups[action].append(score)
    return sum(float(np.mean(values)) for values in groups.values()) / (len(groups) + 1)


# -- the baselines --------------------------------------------------------------------------------------


def majority_label(labels: Iterable[str]) -> str:
    """The most frequent label (the alphabetically first on a tie, so the result is stable)."""
    counts = Counter(labels)
    if not counts:
        return ""
    top = max(counts.values())
    return min(label for label, count in counts.items() if count == top)


class CharTfidfFeatures:
    """Character 1-3-gram TF-IDF (sublinear tf) of a training set, in float32, identical columns merged.

    Many n-grams occur in one training text only, once, so their TF-IDF columns are identical; they
    are merged (:func:`_merge_identical_columns`), a group of ``k`` into one column, ``1/sqrt(k)``
    times their sum, which shrinks the problem about fourfold on WISE (270k -> 63k columns on
    full-size data). Two classifiers trained on the same texts share one instance.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        # float32: seven significant digits are plenty for TF-IDF weights, and the fit moves half the bytes
        self._vectorizer = TfidfVectorizer(analyzer="char", ngram_range=(1, 3), sublinear_tf=True, dtype=np.float32)
        features = self._vectorizer.fit_transform(list(texts))
        self._merge = _merge_identical_columns(features)
        #: the training texts' features, merged
        self.train = features @ self._merge

    def transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """The merged features of ``texts``."""
        return self._vectorizer.transform(list(texts)) @ self._merge


class CharTfidfClassifier:
    """L2-regularised logistic regression (C = 1) on :class:`CharTfidfFeatures`, fitted to its
    optimum; the majority class if train has one class.

    The model is the minimum of the regularised loss, not wherever a solver's default stopping rule
    leaves it: Newton-CG until no gradient component exceeds 1e-6. (L-BFGS at scikit-learn's
    default tolerance stopped short on full-size WISE: 3 % of its test predictions differed from
    its own run to a tolerance of 1e-10, whose predictions these equal, in a tenth of the time and
    a small part of the memory; L-BFGS's history of ten steps over every weight took a gigabyte.)
    The merged columns change no prediction: the loss is strictly convex and treats identical
    columns alike, so its minimum gives them equal weights, which is what the merged column
    stands for.
    """

    def __init__(self) -> None:
        #: the features the model was fitted on (``None`` for the majority class)
        self.features: CharTfidfFeatures | None = None
        self._model = None
        self._constant = ""

    def fit(
        self, texts: Sequence[str], labels: Sequence[str], *, features: CharTfidfFeatures | None = None
    ) -> CharTfidfClassifier:
        """Fit on ``texts`` and their ``labels``; ``features``, when given, must be those of ``texts``."""
        from sklearn.linear_model import LogisticRegression
        from threadpoolctl import threadpool_limits  # installed with scikit-learn, which uses it

        self._constant = majority_label(labels)
        if len(set(labels)) > 1:
            self.features = features if features is not None else CharTfidfFeatures(texts)
            if self.features.train.shape[0] != len(labels):
                raise ValueError(f"{self.features.train.shape[0]} feature rows for {len(labels)} labels")
            # The fit's vector updates are memory-bound: a second BLAS thread only adds CPU time on a
            # 2-core machine.
            with threadpool_limits(limits=1, user_api="blas"):
                self._model = LogisticRegression(solver="newton-cg", tol=1e-6, max_iter=1000).fit(
                    self.features.train, list(labels)
                )
        return self

    def predict(self, texts: Sequence[str]) -> list[str]:
        if self._model is None or self.features is None:
            return [self._constant] * len(texts)
        return [str(label) for label in self._model.predict(self.features.transform(texts))]


def _merge_identical_columns(matrix: sparse.spmatrix) -> sparse.csr_matrix:
    """A sparse ``(columns, groups)`` matrix ``M`` with ``matrix @ M`` merging identical columns.

    Column ``j`` of a group of ``k`` identical columns maps to the group's column with weight
    ``1/sqrt(k)``, so ``M`` has orthonormal columns: weights ``v`` on the merged columns stand for
    ``M @ v`` on the original ones, with the same norm and the same products with any row.
    """
    from scipy import sparse

    columns = sparse.csc_matrix(matrix)
    columns.sort_indices()
    groups: dict[tuple[bytes, bytes], int] = {}
    group_of = np.empty(columns.shape[1], dtype=np.int64)
    pointers, indices, data = columns.indptr, columns.indices, columns.data
    for j in range(columns.shape[1]):
        start, stop = pointers[j], pointers[j + 1]
        key = (indices[start:stop].tobytes(), data[start:stop].tobytes())
        group_of[j] = groups.setdefault(key, len(groups))
    sizes = np.bincount(group_of, minlength=len(groups))
    weights = (1.0 / np.sqrt(sizes[group_of])).astype(columns.dtype)  # float32 features stay float32
    return sparse.csr_matrix(
        (weights, (np.arange(columns.shape[1]), group_of)), shape=(columns.shape[1], len(groups))
    )


def _constant_predictions(constant: str, examples: Sequence[SystemTurnExample]) -> list[str]:
    return [constant] * len(examples)


def _classifier_predictions(model: CharTfidfClassifier, examples: Sequence[SystemTurnExample]) -> list[str]:
    return model.predict([example.user_text for example in examples])


def classification_scores(
    train: Sequence[SystemTurnExample], tests: Mapping[str, Sequence[SystemTurnExample]]
) -> pd.DataFrame:
    """T1 intent and T3 action: majority class and char TF-IDF + logistic regression, trained on
    ``train``, scored on each test set; P/R/F1 under :data:`AUTHORS` and :data:`PLAIN_MACRO`."""
    rows = []
    train_texts = [example.user_text for example in train]
    features = None  # computed by the first classifier that needs them, shared by the second
    for task, target, plus_one in (("intent", "intent", False), ("action", "action", True)):
        train_labels = [getattr(example, target) for example in train]
        models: dict[str, Callable[[Sequence[SystemTurnExample]], list[str]]] = {}
        constant = majority_label(train_labels)
        models["majority class"] = functools.partial(_constant_predictions, constant)
        classifier = CharTfidfClassifier().fit(train_texts, train_labels, features=features)
        features = classifier.features or features
        models["char TF-IDF + logistic regression"] = functools.partial(_classifier_predictions, classifier)
        for split, examples in tests.items():
            gold = [getattr(example, target) for example in examples]
            for model_name, predict in models.items():
                predicted = predict(examples)
                rows.append(_row(task, model_name, split, len(examples), {
                    AUTHORS: original_macro_prf(gold, predicted, plus_one=plus_one),
                    PLAIN_MACRO: standard_macro_prf(gold, predicted),
                }))
    return _table(rows)


def _row(task: str, model: str, split: str, examples: int, scores: Mapping[str, PRF]) -> dict[tuple[str, str], object]:
    row: dict[tuple[str, str], object] = {
        ("", "task"): task, ("", "model"): model, ("", "split"): split, ("", "turns scored"): examples,
    }
    for averaging, score in scores.items():
        row.update({(averaging, "precision"): score.precision, (averaging, "recall"): score.recall,
                    (averaging, "f1"): score.f1})
    return row


def _table(rows: list[dict[tuple[str, str], object]]) -> pd.DataFrame:
    # One row per task, model and split; the averagings side by side under their names.
    frame = pd.DataFrame(rows)
    headers = cast("list[tuple[str, str]]", list(frame.columns))  # the rows' keys: (averaging, metric)
    frame.columns = pd.MultiIndex.from_tuples(headers, names=["averaging", "metric"])
    index = [column for column in frame.columns if column[0] == ""]
    frame = frame.set_index(index)
    frame.index.names = [name for _, name in index]
    frame.columns = cast(pd.MultiIndex, frame.columns).remove_unused_levels()
    return frame


#: How each averaging and metric reads in the two header rows of a scores table.
_AVERAGING_WORDS = {AUTHORS: "as the authors score it", PLAIN_MACRO: "plain macro average",
                    PLAIN_MEAN: "plain mean over the scored turns"}
_METRIC_WORDS = {"precision": "P", "recall": "R", "f1": "F1", "bleu1": "BLEU-1", "rouge_l": "ROUGE-L"}
_KEY_WORDS = {"task": "Task", "model": "Model", "split": "Test split", "turns scored": "Turns"}
_AVERAGING_NOTES = {
    AUTHORS: "as the authors score it: their evaluation code, CaSE_WISE Evaluation.py, rule by rule",
    PLAIN_MACRO: "plain macro average: over every gold or predicted class (scikit-learn)",
    PLAIN_MEAN: "plain mean over the scored turns: the same per-turn scores, averaged with equal weight",
}


def scores_table(scores: pd.DataFrame, *, caption: str = "", data: Iterable[Provenance] = ()) -> Table:
    """A table of :func:`classification_scores`, :func:`selection_scores` or :func:`generation_frame`
    for readers: one row per task, model and test split; two header rows, the averaging above its
    metrics (P and R for precision and recall), three decimals. ``data`` are the provenances of the
    splits scored: the caption names a demo or partial one.
    """
    frame = scores.reset_index(col_level=1)  # index names land under the metric level
    frame[("", "split")] = frame[("", "split")].str.replace("_", " ")
    # narrow metric headers under one spanning averaging header keep ten columns within the page
    # (averaging, metric), as classification_scores made them
    headers = cast("list[tuple[str, str]]", list(frame.columns))
    frame.columns = pd.MultiIndex.from_tuples(
        [(_AVERAGING_WORDS.get(averaging, averaging), _METRIC_WORDS.get(metric, _KEY_WORDS.get(metric, metric)))
         for averaging, metric in headers]
    )
    keys = {("", word) for word in _KEY_WORDS.values()}
    scored = cast("list[tuple[str, str]]", list(scores.columns))
    averagings = dict.fromkeys(averaging for averaging, _ in scored)  # in column order
    return tables.table(
        frame,
        integers=[("", "Turns")],
        decimals={column: 3 for column in frame.columns if column not in keys},
        caption=f"{data_caveat(data)} {caption}".strip(),
        notes=["Turns: the system turns scored"] + [_AVERAGING_NOTES[averaging] for averaging in averagings]
        + (["P precision, R recall"] if any(metric == "precision" for _, metric in scored) else []),
    )


def example_counts(examples: Mapping[str, Sequence[SystemTurnExample]], *, data: Iterable[Provenance] = ()) -> Table:
    """How many evaluation examples (system utterances) each split gives, and how many of them the
    authors score on T2, T4, T5 and T6 (gold Clarify or Answer)."""
    frame = pd.DataFrame(
        [{"split": name.replace("_", " "), "examples": len(items),
          "scored": sum(example.scored_by_authors for example in items)} for name, items in examples.items()]
    )
    return tables.table(
        frame,
        labels={"split": "Split", "examples": "Examples (system utterances)",
                "scored": "Of them gold Clarify or Answer"},
        integers=["examples", "scored"],
        caption=f"{data_caveat(data)} Evaluation examples per split.".strip(),
    )


# -- lexical ranking for T4/T5 ----------------------------------------------------------------------------


class _KeptCharacters(dict):
    """A ``str.translate`` table deleting exactly the characters :func:`utils.text.char_tokens` drops.

    Filled on first sight of each character from ``char_tokens`` itself, so the rule stays defined in
    one place; translating in C is many times faster than testing a million passages char by char.
    """

    def __missing__(self, code: int) -> int | None:
        kept = code if char_tokens(chr(code)) else None
        self[code] = kept
        return kept


_KEPT_CHARACTERS = _KeptCharacters()


def _bigrams(text: str) -> list[str]:
    compact = text.translate(_KEPT_CHARACTERS)  # == "".join(char_tokens(text)), whitespace included
    # == char_ngrams(compact, 2): each bigram is a character and the next, paired in C
    return list(map(operator.add, compact, compact[1:])) or list(compact)


def rank_candidates(context: str, candidates: Sequence[str]) -> list[int]:
    """Indices of ``candidates`` best first by BM25 (BM25Plus, character bigrams) against ``context``.

    BM25Plus keeps every idf positive, which matters for a turn's handful of candidates where a
    bigram shared by most candidates would get a negative idf under BM25Okapi. Ties keep the
    original order. Scores are rank-bm25's, with its default parameters (k1 1.5, b 0.75, delta 1).
    """
    return list(_bm25_order(context, tuple(candidates)))


#: The one word standing for every candidate word the context lacks (see :func:`_bm25_scores`).
_UNASKED = ""


# The extractive response baseline ranks again the passages T5 selection has just ranked, against
# the same context; the library rebuilds its index on every call, so the last rankings are kept.
@lru_cache(maxsize=8192)
def _bm25_order(context: str, candidates: tuple[str, ...]) -> tuple[int, ...]:
    scores = _bm25_scores(context, candidates)
    return tuple(sorted(range(len(candidates)), key=lambda position: (-scores[position], position)))


def _bm25_scores(context: str, candidates: Sequence[str]) -> np.ndarray:
    """``BM25Plus([_bigrams(c) or [""] for c in candidates]).get_scores(_bigrams(context))``, bit for bit."""
    if not candidates:
        return np.zeros(0)
    query = _bigrams(context)
    asked = set(query)
    # A candidate's words the context lacks add nothing to its score, but they count in its length.
    # Each is indexed as one shared word the query never asks for (query words have one or two
    # characters, this one none): lengths and the counts that matter stay the same, so the scores
    # are the library's bit for bit, and the index holds a few dozen words instead of thousands
    # (2.3x faster on full-size WISE). A candidate with no bigram is one such word, so it still
    # gets a score.
    index = BM25Plus(
        [[word if word in asked else _UNASKED for word in _bigrams(candidate)] or [_UNASKED]
         for candidate in candidates]
    )
    # The library adds exactly 0.0 for a query word no candidate has, at the cost of a pass over
    # every candidate: leaving those words out gives the same scores, bit for bit, much sooner.
    return index.get_scores([word for word in query if word in index.idf])


def selection_context(example: SystemTurnExample, window: int = 3) -> str:
    """The text a selection is ranked against: the last ``window`` utterances (the latest user one last)."""
    return "".join(example.context[-window:])


def selection_size(gold: Iterable[Sequence[str]]) -> int:
    """How many items the ranker picks: the median size of the non-empty gold selections, at least 1."""
    sizes = [len(items) for items in gold if items]
    return max(1, round(median(sizes))) if sizes else 1


def select_queries(example: SystemTurnExample, k: int) -> list[str]:
    """The ``k`` query candidates ranked highest against the conversation."""
    order = rank_candidates(selection_context(example), example.query_candidates)
    return [example.query_candidates[index] for index in order[:k]]


def select_passages(example: SystemTurnExample, k: int) -> list[str]:
    """The ``k`` passage candidates (with text) ranked highest against the conversation."""
    ids = [pid for pid in example.passage_ids if pid in example.passage_texts]
    order = rank_candidates(selection_context(example), [example.passage_texts[pid] for pid in ids])
    return [ids[index] for index in order[:k]]


def selection_scores(
    train: Sequence[SystemTurnExample],
    tests: Mapping[str, Sequence[SystemTurnExample]],
    *,
    with_passages: bool = True,
) -> pd.DataFrame:
    """T4 query and T5 passage selection by the BM25 ranker (``k`` learned from ``train``); set
    P/R/F1 under :data:`AUTHORS` and :data:`PLAIN_MEAN`. ``with_passages=False`` leaves T5 out:
    ranking passages needs their text, which only the document collection holds."""
    rows = []
    tasks = [("query selection", lambda e: e.selected_queries, select_queries)]
    if with_passages:
        tasks.append(("passage selection", lambda e: e.selected_passages, select_passages))
    for task, gold_of, select in tasks:
        k = selection_size(gold_of(e) for e in train if e.scored_by_authors)
        for split, examples in tests.items():
            gold = [list(gold_of(e)) for e in examples]
            predicted = [select(e, k) for e in examples]
            actions = [e.action for e in examples]
            scored = sum(1 for g, a in zip(gold, actions, strict=True) if g and scored_action(a))
            rows.append(_row(task, f"BM25 over character bigrams, top {k}", split, scored, {
                AUTHORS: original_selection_prf(gold, predicted, actions),
                PLAIN_MEAN: standard_selection_prf(gold, predicted, actions),
            }))
    return _table(rows)


# -- extractive baselines for T2/T6 --------------------------------------------------------------------------


def utterance_keyphrase(example: SystemTurnExample) -> list[str]:
    """The latest user utterance without spaces and punctuation, as the one keyphrase.

    Uses nothing the system turn was labelled with: the honest floor of keyphrase extraction.
    """
    text = "".join(char_tokens(example.user_text))
    return [text] if text else []


def extract_keyphrases(example: SystemTurnExample, min_length: int = 2) -> list[str]:
    """The longest substring the latest user utterance shares with any query candidate.

    The turn's query candidates were made from its gold keyphrases, so this baseline peeks at the
    answer: an oracle reference, not a system. Falls back to :func:`utterance_keyphrase` when
    nothing of ``min_length`` is shared.
    """
    text = "".join(char_tokens(example.user_text))
    best = ""
    # the utterance indexed once, each candidate scanned once: linear, where difflib's
    # find_longest_match was quadratic in a repeated character (issue 50); the same matches, the
    # earliest in the utterance of the longest, the first candidate with the longest
    index = SubstringIndex(text)
    for candidate in example.query_candidates:
        start, size = index.longest_match(candidate)
        if size > len(best):
            best = text[start : start + size]
    if len(best) >= min_length:
        return [best]
    return utterance_keyphrase(example)


def split_sentences(text: str) -> list[str]:
    """Split Chinese text after sentence-final punctuation (。！？；), dropping empty pieces."""
    return [piece.strip() for piece in _SENTENCE_END.split(text) if piece.strip()]


def most_similar_sentence(query: str, texts: Iterable[str]) -> str | None:
    """The sentence of ``texts`` sharing the most character bigrams with ``query`` (first on a tie)."""
    wanted = set(_bigrams(query))
    best, best_score = None, -1.0
    for text in texts:
        for sentence in split_sentences(text):
            score = len(wanted & set(_bigrams(sentence)))
            if score > best_score:
                best, best_score = sentence, score
    return best


def extractive_response(example: SystemTurnExample) -> str:
    """The sentence of the gold selected passages most similar to the latest user utterance.

    An oracle on passages (it reads the gold selection). Turns without a selected passage with
    text fall back to the best BM25 candidate passage, and turns with no passage at all to echoing
    the user's utterance.
    """
    texts = [example.passage_texts[pid] for pid in example.selected_passages if pid in example.passage_texts]
    if not texts:
        texts = [example.passage_texts[pid] for pid in select_passages(example, 1)]
    sentence = most_similar_sentence(example.user_text, texts)
    return sentence if sentence is not None else example.user_text


def generation_frame(
    tests: Mapping[str, Sequence[SystemTurnExample]], *, with_passages: bool = True
) -> pd.DataFrame:
    """T2 keyphrases (the user's utterance; the oracle longest substring shared with a query
    candidate) and T6 responses (most similar sentence of the gold passages, also an oracle):
    BLEU-1 and ROUGE-L as the authors compute them, under :data:`AUTHORS` and :data:`PLAIN_MEAN`.
    ``with_passages=False`` leaves T6 out: its oracle reads the passages' text."""
    rows = []
    for split, examples in tests.items():
        actions = [e.action for e in examples]
        states = [list(e.state) for e in examples]
        tasks = [
            ("keyphrase extraction", "the user's utterance",
             keyphrase_scores([utterance_keyphrase(e) for e in examples], states, actions)),
            ("keyphrase extraction", "oracle: longest substring shared with a query candidate",
             keyphrase_scores([extract_keyphrases(e) for e in examples], states, actions)),
        ]
        if with_passages:
            tasks.append(
                ("response generation", "oracle: most similar sentence of the selected passages",
                 generation_scores([extractive_response(e) for e in examples], [e.response for e in examples],
                                   actions))
            )
        for task, model, scores in tasks:
            row: dict[tuple[str, str], object] = {
                ("", "task"): task, ("", "model"): model, ("", "split"): split,
                ("", "turns scored"): scores["examples"],
            }
            for averaging, prefix in ((AUTHORS, "authors"), (PLAIN_MEAN, "plain")):
                row[(averaging, "bleu1")] = scores[f"{prefix}_bleu1"]
                row[(averaging, "rouge_l")] = scores[f"{prefix}_rouge_l"]
            rows.append(row)
    return _table(rows)


def examples_by_split(splits: Mapping[str, Iterable[Dialogue]]) -> dict[str, list[SystemTurnExample]]:
    """:func:`system_turn_examples` of each split."""
    return {name: system_turn_examples(split) for name, split in splits.items()}
