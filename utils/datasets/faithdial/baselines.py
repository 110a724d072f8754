"""FaithDial baselines: simple responses scored against the faithful response, and a lexical critic.

1. :func:`response_baselines` scores three responses that need no model (copy the knowledge,
   copy its first sentence, keep the original WoW response) against the faithful FaithDial response
   with BLEU (sacrebleu), ROUGE-L (rouge-score) and unigram F1, plus knowledge precision (share of
   the response's words found in the knowledge) as a crude faithfulness proxy.
2. :class:`LexicalCritic` calls a response hallucinated when its token precision against the
   knowledge falls below a threshold chosen on training data. Its examples are built as the
   authors build their critic's (McGill-NLP/FaithDial, ``models/critic_data.py``): each BEGIN label
   goes with the text it describes, ``original_response or response`` (:func:`critic_examples`),
   and on the training split the faithful rewrites are added as negatives. It is evaluated with
   accuracy, F1 and ROC (scikit-learn) on the test split's labelled responses and on the audit
   files against the human BEGIN labels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score, roc_curve

from utils.book.cjk_fonts import text_as_typed
from utils.book.figures import caption
from utils.book.render.html import esc
from utils.book.tables import Table, declared_table, table

from ...loading import Dialogues
from ...metrics import corpus_bleu, rouge_l, unigram_f1
from .stats import COLUMNS, HALLUCINATED, audit_file_label, knowledge_overlap

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (split after ``.``, ``!`` or ``?`` followed by a capital)."""
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


@lru_cache(maxsize=1 << 16)
def knowledge_precision(response: str, knowledge: str) -> float:
    """Share of the response's word tokens found in the knowledge (multiset, ParlAI-normalised)."""
    # Remembered per pair of texts (a pure function of them): the lexical critic scores the same
    # responses to fit, to predict and to score, and BEGIN's chapter reuses it on every split, every
    # model and every exercise check (46,000 calls for 5,000 responses).
    return knowledge_overlap(response, knowledge)[0]


def score_responses(hypotheses: Sequence[str], references: Sequence[str], knowledge: Sequence[str]) -> dict[str, float]:
    """Corpus BLEU (0-100), mean ROUGE-L F, mean unigram F1 and mean knowledge precision."""
    n = len(hypotheses)
    if n == 0:
        return {"BLEU": float("nan"), "ROUGE-L": float("nan"), "F1": float("nan"), "knowledge precision": float("nan")}
    return {
        "BLEU": corpus_bleu(hypotheses, references),
        "ROUGE-L": float(np.mean([rouge_l(h, r).f1 for h, r in zip(hypotheses, references, strict=True)])),
        "F1": float(np.mean([unigram_f1(h, r) for h, r in zip(hypotheses, references, strict=True)])),
        "knowledge precision": float(
            np.mean([knowledge_precision(h, k) for h, k in zip(hypotheses, knowledge, strict=True)])
        ),
    }


def response_baselines(frame: pd.DataFrame, *, edited_only: bool = True) -> pd.DataFrame:
    """The three baselines, plus the faithful response itself for scale, scored on ``frame``.

    ``frame`` comes from :func:`utils.datasets.faithdial.stats.utterances`. With ``edited_only`` (default)
    only responses that annotators edited are scored, because elsewhere the original WoW response
    *is* the reference and would score perfectly. Where it is kept (empty ``original_response``),
    the original baseline uses the response itself.
    """
    rows = frame[frame["edited"]] if edited_only else frame
    references = list(rows["response"])
    knowledge = list(rows["knowledge"])
    pairs = zip(rows["original_response"], rows["response"], strict=True)
    originals = [original if original.strip() else response for original, response in pairs]
    candidates = {
        "copy the knowledge": knowledge,
        "first sentence of the knowledge": [first_sentence(k) for k in knowledge],
        "original WoW response": originals,
        "faithful response (reference)": references,
    }
    table = pd.DataFrame({name: score_responses(h, references, knowledge) for name, h in candidates.items()}).T
    table.insert(0, "responses", len(references))
    table.index.name = "baseline"
    return table


# -- the lexical critic ------------------------------------------------------------------------


#: ``critic_examples``' ``source`` values: a text the BEGIN label describes, or a faithful rewrite.
LABELLED = "labelled"
REWRITE = "faithful rewrite"


def critic_label(begin: Sequence[str]) -> int | None:
    """The critic's class of one BEGIN list, as the authors' ``FaithCriticProcessor`` converts it:
    1 (hallucinated) when it holds Hallucination (so Partial Hallucination, written
    ``["Hallucination", "Entailment"]``, is 1) or Partial Hallucination, else 0 when it holds
    Entailment, else ``None`` (Generic, Uncooperative, no label: left out)."""
    if any(label in HALLUCINATED for label in begin):
        return 1
    if "Entailment" in begin:
        return 0
    return None


def critic_examples(frame: pd.DataFrame, *, with_rewrites: bool = False) -> pd.DataFrame:
    """Labelled examples for the critic from a FaithDial split (rows of
    :func:`utils.datasets.faithdial.stats.utterances`).

    One example per labelled utterance record: the text its BEGIN label describes
    (``labelled_response``: the WoW original when the turn was edited, else the kept response) with
    :func:`critic_label` as ``hallucinated``. So every positive is a response the annotators judged
    hallucinated, never the rewrite that replaced it. With ``with_rewrites`` (for training, as the
    authors do on their train fold) each edited record whose label converts also gives its faithful
    rewrite as a negative. Unlike the authors' condition, which also repeats an unedited response as
    a second negative, a rewrite is added only where ``original_response`` holds text.

    Columns ``response``, ``knowledge``, ``hallucinated``, ``source`` (:data:`LABELLED` or
    :data:`REWRITE`).
    """
    classes = frame["BEGIN"].map(critic_label)
    usable = frame[classes.notna()]
    labelled = pd.DataFrame(
        {
            "response": usable["labelled_response"],
            "knowledge": usable["knowledge"],
            "hallucinated": classes[classes.notna()].astype(int),
            "source": LABELLED,
        }
    )
    if not with_rewrites:
        return labelled.reset_index(drop=True)
    edited = usable[usable["edited"]]
    rewrites = pd.DataFrame(
        {"response": edited["response"], "knowledge": edited["knowledge"], "hallucinated": 0, "source": REWRITE}
    )
    return pd.concat([labelled, rewrites], ignore_index=True)


@dataclass(frozen=True)
class CriticResult:
    """Accuracy, F1 (of the hallucinated class), ROC AUC and the ROC curve on one labelled set."""

    name: str
    n: int
    positives: int
    accuracy: float
    f1: float
    roc_auc: float
    fpr: np.ndarray
    tpr: np.ndarray

    @property
    def majority_accuracy(self) -> float:
        """Accuracy of always answering the more frequent class: the floor for :attr:`accuracy`."""
        return max(self.positives, self.n - self.positives) / self.n if self.n else float("nan")

    @property
    def flag_all_f1(self) -> float:
        """F1 of calling every response hallucinated (precision = share of positives, recall 1)."""
        return 2 * self.positives / (self.positives + self.n) if self.n else float("nan")

    def row(self) -> dict[str, float | int | str]:
        return {
            "evaluated on": self.name,
            "responses": self.n,
            "hallucinated": self.positives,
            "accuracy": self.accuracy,
            "majority-class accuracy": self.majority_accuracy,
            "F1 (hallucinated)": self.f1,
            "F1 of flagging all": self.flag_all_f1,
            "ROC AUC": self.roc_auc,
        }


def best_threshold(values: np.ndarray, labels: np.ndarray, *, flag_below: bool) -> float:
    """The threshold with the best accuracy on ``labels``, flagging a value below it (``flag_below``) or
    at or above it. Candidates are the midpoints between consecutive distinct values, plus both ends,
    so a threshold never sits exactly on a training value.

    Ties go to the threshold that flags the fewest values: the lowest when values below it are
    flagged, the highest when values at or above it are. The rule reads the decisions, not the axis,
    so a critic fitted on a score or on its complement (knowledge precision, or one minus it, as
    ``atlas score`` reads a critic's file) flags the same responses."""
    values, labels = np.asarray(values), np.asarray(labels)
    distinct = np.unique(values)
    candidates = np.concatenate([[distinct[0]], (distinct[:-1] + distinct[1:]) / 2, [distinct[-1] + 1e-9]])
    # Counted by binary search in the sorted values rather than by comparing every value with every
    # candidate: the same counts, in n log n (``atlas score`` fits a threshold on each bootstrap resample).
    below = np.searchsorted(np.sort(values), candidates, side="left")
    positives_below = np.searchsorted(np.sort(values[labels == 1]), candidates, side="left")
    positives = int((labels == 1).sum())
    negatives_below = below - positives_below
    if flag_below:  # right: the positives below and the negatives at or above
        correct = positives_below + (len(values) - positives - negatives_below)
    else:  # right: the negatives below and the positives at or above
        correct = negatives_below + (positives - positives_below)
    best = np.flatnonzero(correct == correct.max())
    return float(candidates[best[0] if flag_below else best[-1]])


@dataclass(frozen=True)
class LexicalCritic:
    """Flags a response as hallucinated when its knowledge precision is below ``threshold``."""

    threshold: float

    def __str__(self) -> str:
        return f"hallucinated when knowledge precision < {self.threshold:.3f}"

    def _repr_html_(self) -> str:
        return f"<p>Lexical critic: a response is {esc(str(self))}.</p>"

    @staticmethod
    def scores(responses: Iterable[str], knowledge: Iterable[str]) -> np.ndarray:
        """Hallucination scores: one minus knowledge precision (higher = less supported)."""
        return np.array([1.0 - knowledge_precision(r, k) for r, k in zip(responses, knowledge, strict=True)])

    @classmethod
    def fit(cls, examples: pd.DataFrame) -> LexicalCritic:
        """Choose the precision threshold that maximises accuracy on ``examples`` (ties: the lowest,
        which flags the fewest: :func:`best_threshold`).

        Candidates are the midpoints between consecutive distinct precisions, plus both ends, so a
        threshold never sits exactly on a training value.
        """
        precision = 1.0 - cls.scores(examples["response"], examples["knowledge"])
        return cls(threshold=best_threshold(precision, examples["hallucinated"].to_numpy(), flag_below=True))

    def predict(self, responses: Iterable[str], knowledge: Iterable[str]) -> np.ndarray:
        """1 for hallucinated (knowledge precision below the threshold), else 0."""
        return ((1.0 - self.scores(responses, knowledge)) < self.threshold).astype(int)

    def probability(self, responses: Iterable[str], knowledge: Iterable[str]) -> np.ndarray:
        """The critic's score as the authors' critic gives one, a probability of hallucination that
        decides at 0.5 (``atlas score faithdial ... --task critic`` reads it so): above 0.5 exactly
        where the critic flags the response, ranked as one minus knowledge precision ranks it."""
        precision = 1.0 - self.scores(responses, knowledge)
        return np.clip(0.5 + (self.threshold - precision) / 2, 0.0, 1.0)

    def evaluate(self, examples: pd.DataFrame, name: str) -> CriticResult:
        """Accuracy, F1 and ROC of the critic on labelled ``examples`` (``response``, ``knowledge``,
        ``hallucinated``). AUC is NaN when only one class is present."""
        labels = examples["hallucinated"].to_numpy().astype(int)
        scores = self.scores(examples["response"], examples["knowledge"])
        predicted = (1.0 - scores < self.threshold).astype(int)
        both = len(set(labels)) == 2
        fpr, tpr, _ = roc_curve(labels, scores) if both else (np.array([]), np.array([]), None)
        return CriticResult(
            name=name,
            n=len(labels),
            positives=int(labels.sum()),
            accuracy=float(accuracy_score(labels, predicted)),
            f1=float(f1_score(labels, predicted, zero_division=0)),
            roc_auc=float(roc_auc_score(labels, scores)) if both else float("nan"),
            fpr=fpr,
            tpr=tpr,
        )


def audit_examples(rows: pd.DataFrame, file: str | None = None) -> pd.DataFrame:
    """Critic examples from :func:`utils.datasets.faithdial.stats.audit_rows`: a response is hallucinated when
    its human BEGIN class is Hallucination or Partial Hallucination. Empty responses are left out
    (nothing to score)."""
    chosen = rows if file is None else rows[rows["file"] == file]
    chosen = chosen[chosen["response"].str.strip() != ""]
    return pd.DataFrame(
        {
            "response": chosen["response"],
            "knowledge": chosen["knowledge"],
            "hallucinated": chosen["begin_class"].isin(HALLUCINATED).astype(int),
        }
    )


#: :meth:`CriticResult.row` columns as the tables show them.
RESULT_LABELS = {
    "responses": "responses",
    "hallucinated": "hallucinated",
    "accuracy": "accuracy",
    "majority-class accuracy": "majority class",
    "F1 (hallucinated)": "F1",
    "F1 of flagging all": "flag all: F1",
    "ROC AUC": "ROC AUC",
}


def results_frame(results: Sequence[CriticResult]) -> pd.DataFrame:
    """The results side by side as numbers, one row per evaluation set."""
    return pd.DataFrame([result.row() for result in results]).set_index("evaluated on")


def results_table(
    results: Sequence[CriticResult],
    *,
    columns: Sequence[str] | None = None,
    caption: str = "",
    notes: Sequence[str] = (),
) -> Table:
    """The results side by side for readers (:func:`utils.book.tables.table`): counts as integers,
    accuracies in percent, F1 and ROC AUC with two decimals; ``columns`` picks some of
    :data:`RESULT_LABELS`. An empty cell (AUC of a set with one class) is a dash, explained;
    ``notes`` go under the table."""
    names = list(columns) if columns is not None else list(RESULT_LABELS)
    return table(
        results_frame(results),
        index="evaluated on",
        labels={name: RESULT_LABELS[name] for name in names},
        integers=["responses", "hallucinated"],
        percents={"accuracy": 1, "majority-class accuracy": 1},
        decimals={"F1 (hallucinated)": 2, "F1 of flagging all": 2, "ROC AUC": 2},
        caption=caption,
        notes=notes,
        empty_note="– ROC AUC needs both classes in the set",
    )


def response_baselines_table(frame: pd.DataFrame, split: Dialogues) -> Table:
    """:func:`response_baselines` of ``frame`` (:func:`utils.datasets.faithdial.stats.utterances` of
    ``split``) for readers."""
    return declared_table(
        response_baselines(frame),
        COLUMNS,
        ["responses", "BLEU", "ROUGE-L", "F1", "knowledge precision"],
        index="candidate response",
        caption=caption(
            "Responses that need no model, scored against the faithful response of the test split's edited turns.",
            split,
        ),
    )


#: The columns of :func:`critic_results_table`.
CRITIC_COLUMNS = ("responses", "accuracy", "majority-class accuracy", "F1 (hallucinated)", "F1 of flagging all")


def audit_files_to_score(audit: Mapping[str, Dialogues], *, fitted_on_full: bool) -> dict[str, Dialogues]:
    """The audit files a critic may be scored on: all of them when its threshold was fitted on the full
    training split, else only those that are demo samples too (a threshold fitted on a demo sample
    never scores real data)."""
    def is_full(split: Dialogues) -> bool:
        provenance = getattr(split, "provenance", None)
        return provenance is not None and provenance.is_full

    return {name: split for name, split in audit.items() if fitted_on_full or not is_full(split)}


def evaluated_as(name: str, split: Dialogues) -> str:
    """The name of a set the critic is evaluated on, saying when the data scored is a demo sample."""
    provenance = getattr(split, "provenance", None)
    return name if provenance is not None and provenance.is_full else f"{name} (demo sample, not the dataset)"


def critic_results_table(results: Sequence[CriticResult], splits: Sequence[Dialogues], *, left_out: int = 0) -> Table:
    """:func:`results_table` of the lexical critic (threshold chosen on FaithDial train) evaluated on
    FaithDial test and on the audit files it may be applied to; ``splits`` are the data it was fitted
    and evaluated on, ``left_out`` the official audit files a threshold from the demo sample must not
    score (a note under the table says so)."""
    notes = [] if not left_out else [
        f"Not scored here: the {left_out} official audit files. The threshold comes from the demo sample, "
        "and a threshold fitted on demo data is never applied to real data; the next table judges those files "
        "without it."
    ]
    return results_table(
        results,
        columns=CRITIC_COLUMNS,
        caption=caption(
            "The lexical critic with the threshold chosen on FaithDial train, on the labelled responses of "
            "FaithDial test and of each audit file it may be applied to, beside two trivial rules: always "
            "answering the majority class (accuracy) and flagging every response (F1). Accuracy in percent; F1 "
            "of the hallucinated class, from 0 to 1.",
            *splits,
        ),
        notes=notes,
    )


def audit_separation(rows: pd.DataFrame) -> pd.DataFrame:
    """How well knowledge precision alone separates hallucinated from other responses in each audit file.

    One row per file (:func:`utils.datasets.faithdial.stats.audit_file_label`) and one for all files:
    ``responses``, ``hallucinated share``, ``ROC AUC`` (needs no threshold), the ``tuned threshold``
    that fits that file best and its ``tuned accuracy`` (an upper bound: chosen and scored on the
    same rows), beside the ``majority-class accuracy``.
    """
    sets = [(audit_file_label(name), audit_examples(rows, name)) for name in dict.fromkeys(rows["file"])]
    sets.append(("all files", audit_examples(rows)))
    records = []
    for name, examples in sets:
        tuned = LexicalCritic.fit(examples)
        result = tuned.evaluate(examples, name)
        records.append(
            {
                "file": name,
                "responses": result.n,
                "hallucinated share": result.positives / result.n,
                "ROC AUC": result.roc_auc,
                "tuned threshold": tuned.threshold,
                "tuned accuracy": result.accuracy,
                "majority-class accuracy": result.majority_accuracy,
            }
        )
    return pd.DataFrame(records).set_index("file")


def audit_separation_table(separation: pd.DataFrame, files: Mapping[str, Dialogues]) -> Table:
    """:func:`audit_separation` (``separation``, of the audit ``files``) for readers."""
    return declared_table(
        separation,
        COLUMNS,
        ["responses", "hallucinated share", "ROC AUC", "tuned threshold", "tuned accuracy", "majority-class accuracy"],
        index="audit file",
        caption=caption(
            "How well knowledge precision alone separates hallucinated responses in each audit file. The tuned "
            "threshold and its accuracy are fitted and scored on the same rows: an upper bound. Majority class: "
            "the accuracy of always answering the majority class.",
            *files.values(),
        ),
    )


def audit_roc_curves(rows: pd.DataFrame) -> list[CriticResult]:
    """ROC curves of the lexical score on the audit ``rows`` (:func:`utils.datasets.faithdial.stats.audit_rows`):
    all files, the gold (human) responses and the model responses. A ROC curve needs no threshold:
    each set is scored with the critic tuned on that set, never with the FaithDial one (which may
    come from the demo sample)."""
    gold = rows["system"] == "gold"
    sets = {
        "audit, all files": rows,
        "audit, gold responses": rows[gold],
        "audit, model responses": rows[~gold],
    }
    curves = []
    for name, chosen in sets.items():
        examples = audit_examples(chosen)
        curves.append(LexicalCritic.fit(examples).evaluate(examples, name))
    return curves


def audit_roc_alt(curves: Sequence[CriticResult]) -> str:
    """Alt text for :func:`plot_roc` of :func:`audit_roc_curves`: each set's AUC."""
    aucs = "; ".join(f"{curve.name}, AUC {curve.roc_auc:.2f}" for curve in curves)
    return (
        f"ROC curves of the lexical hallucination score on the audit: {aucs}. "
        "The dotted diagonal is chance, AUC 0.50."
    )


@text_as_typed
def plot_roc(results: Sequence[CriticResult]) -> plt.Figure:
    """ROC curves of several evaluations on one plot (sets with one class only are skipped)."""
    fig, ax = plt.subplots(figsize=(5.5, 4.8))
    for result in results:
        if len(result.fpr):
            ax.plot(result.fpr, result.tpr, label=f"{result.name} (AUC {result.roc_auc:.2f})")
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="chance (AUC 0.50)")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_aspect("equal")
    ax.legend(fontsize=9, loc="lower right")
    fig.tight_layout()
    return fig
