"""Metrics shared by the chapters: token and grounding overlap, set overlap, ranking, BLEU and ROUGE-L.

BLEU comes from ``sacrebleu`` and ROUGE-L is ``rouge-score``'s (its tokens and formula, an LCS computed
a machine word at a time); the overlap measures follow
ParlAI's definitions so that numbers are comparable with the published ones.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .text import word_tokens

if TYPE_CHECKING:
    from .records import Turn


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1."""

    precision: float
    recall: float
    f1: float


def token_prf(predicted: Sequence[Hashable], gold: Sequence[Hashable]) -> PRF:
    """Multiset token overlap, as ParlAI's ``_prec_recall_f1_score`` (zero when nothing overlaps)."""
    common = Counter(predicted) & Counter(gold)
    overlap = sum(common.values())
    if overlap == 0:
        return PRF(0.0, 0.0, 0.0)
    precision = overlap / len(predicted)
    recall = overlap / len(gold)
    return PRF(precision, recall, 2 * precision * recall / (precision + recall))


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """The overlapping ``n``-grams of ``tokens`` as tuples (none when there are fewer than ``n``)."""
    return list(zip(*(tokens[i:] for i in range(n)), strict=False))


def ngram_prf(predicted: Sequence[str], reference: Sequence[str], n: int = 1, *, distinct: bool = False) -> PRF:
    """Overlap of the ``n``-grams of two token sequences, as precision (share of ``predicted``'s
    n-grams found in ``reference``), recall and F1.

    Counted as multisets by default (:func:`token_prf`, ParlAI's definition); ``distinct=True``
    counts each distinct n-gram once, so precision is the *containment* of ``predicted`` in
    ``reference``. Zero when nothing overlaps or ``predicted`` has no n-gram.
    """
    units: tuple[Sequence[Hashable], Sequence[Hashable]] = (
        (ngrams(predicted, n), ngrams(reference, n)) if n > 1 else (predicted, reference)
    )
    if not distinct:
        return token_prf(*units)
    wanted, found = set(units[0]), set(units[1])
    hits = len(wanted & found)
    if not hits:
        return PRF(0.0, 0.0, 0.0)
    precision, recall = hits / len(wanted), hits / len(found)
    return PRF(precision, recall, 2 * precision * recall / (precision + recall))


def grounding_overlap(
    response: str,
    evidence: str,
    *,
    tokenize: Callable[[str], Sequence[str]] = word_tokens,
    n: int = 1,
    distinct: bool = False,
) -> PRF:
    """How much of ``response`` is found in the ``evidence`` it is grounded on (precision) and how
    much of the evidence it uses (recall): :func:`ngram_prf` of the two texts' tokens.

    The chapters measure grounding with this one function and differ only in its parameters, on
    purpose: FaithDial compares ParlAI-normalised words as multisets (the defaults, as in unigram
    F1); the cross-dataset chapter counts words for English and characters for Chinese and Japanese,
    single and in pairs (``n=2``); JWHR's attribution baseline asks which share of a sentence's
    *distinct* character bigrams occur in a reference (``distinct=True``, characters with
    punctuation kept), so that a long quote is not penalised for the text the sentence did not use.
    """
    return ngram_prf(tokenize(response), tokenize(evidence), n, distinct=distinct)


def selected_evidence_f1(turn: Turn, tokenize: Callable[[str], list[str]]) -> float | None:
    """Unigram F1 between a turn's text and its selected evidence joined; None without a selection.

    The measure of the chapters' grounding exercises and of the cross-dataset chapter's comparison,
    one definition for both."""
    chosen = turn.selected_evidence
    if not chosen:
        return None
    return unigram_f1(turn.text, " ".join(item.text for item in chosen), tokenize=tokenize)


class SubstringIndex:
    """Every run of consecutive items of a sequence (its substrings), indexed in linear time: a suffix
    automaton (Blumer et al.). :meth:`longest_match` finds the longest run another sequence shares
    with it in one scan of that sequence.

    Extending a match at every place its last item occurs, or :meth:`difflib.SequenceMatcher.find_longest_match`,
    is quadratic in an item that repeats ("the the the ...", one character over and over: issue 50).
    """

    __slots__ = ("first_end", "length", "link", "next")

    def __init__(self, sequence: Sequence[Hashable]) -> None:
        self.next: list[dict[Hashable, int]] = [{}]
        self.link = [-1]
        self.length = [0]
        #: where the strings of each state first end in the sequence (a state's strings share their ends)
        self.first_end = [-1]
        nxt, link, length, first_end = self.next, self.link, self.length, self.first_end
        last = 0
        for position, item in enumerate(sequence):
            current = len(length)
            nxt.append({})
            link.append(0)
            length.append(length[last] + 1)
            first_end.append(position)
            state = last
            while state != -1 and item not in nxt[state]:
                nxt[state][item] = current
                state = link[state]
            if state != -1:
                target = nxt[state][item]
                if length[state] + 1 == length[target]:
                    link[current] = target
                else:
                    clone = len(length)
                    nxt.append(dict(nxt[target]))
                    link.append(link[target])
                    length.append(length[state] + 1)
                    first_end.append(first_end[target])
                    while state != -1 and nxt[state].get(item) == target:
                        nxt[state][item] = clone
                        state = link[state]
                    link[target] = link[current] = clone
            last = current

    def longest_match(self, other: Iterable[Hashable]) -> tuple[int, int]:
        """``(start, size)``: the longest run of consecutive items of ``other`` that occurs in the
        indexed sequence, as where it starts there and its length; of several, the one that starts
        first in the indexed sequence (as :meth:`difflib.SequenceMatcher.find_longest_match` picks).
        ``(0, 0)`` when they share no item."""
        nxt, link, length, first_end = self.next, self.link, self.length, self.first_end
        best_start, best = 0, 0
        state = size = 0
        for item in other:
            while state and item not in nxt[state]:
                state = link[state]
                size = length[state]
            if item in nxt[state]:
                state = nxt[state][item]
                size += 1
            else:
                state = size = 0
                continue
            start = first_end[state] - size + 1
            if size > best or (size == best and start < best_start):
                best_start, best = start, size
        return (best_start, best) if best else (0, 0)


def longest_common_run(first: Sequence[Hashable], second: Sequence[Hashable]) -> int:
    """The length of the longest run of consecutive items of ``first`` that also occurs, consecutively,
    in ``second`` (the longest common substring of two token lists), in time linear in both
    (:class:`SubstringIndex`)."""
    if not first or not second:
        return 0
    return SubstringIndex(second).longest_match(first)[1]


def unigram_f1(predicted: str, gold: str, tokenize: Callable[[str], list[str]] = word_tokens) -> float:
    """ParlAI's unigram F1 between two strings (ParlAI normalisation by default)."""
    return token_prf(tokenize(predicted), tokenize(gold)).f1


def set_prf(predicted: Iterable[object], gold: Iterable[object]) -> PRF:
    """Set precision/recall/F1. Both empty counts as a perfect match; one empty as zero."""
    predicted_set, gold_set = set(predicted), set(gold)
    if not predicted_set and not gold_set:
        return PRF(1.0, 1.0, 1.0)
    hits = len(predicted_set & gold_set)
    precision = hits / len(predicted_set) if predicted_set else 0.0
    recall = hits / len(gold_set) if gold_set else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    return PRF(precision, recall, f1)


def recall_at_1(scores: Sequence[float], gold_index: int) -> float:
    """1.0 when the gold candidate has the strictly highest score, else 0.0 (ties count as misses)."""
    best = max(scores)
    winners = [i for i, score in enumerate(scores) if score == best]
    return 1.0 if winners == [gold_index] else 0.0


def corpus_bleu(
    hypotheses: Sequence[str], references: Sequence[str], *, tokenize: str = "13a", max_order: int = 4
) -> float:
    """Corpus BLEU (0-100) from sacrebleu. ``tokenize="zh"`` splits Chinese into characters;
    ``max_order=1`` gives BLEU-1."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(tokenize=tokenize, max_ngram_order=max_order, effective_order=max_order < 4)
    return metric.corpus_score(list(hypotheses), [list(references)]).score


#: The order of :func:`bleu_statistics`' columns: lengths, then matches and totals per n-gram order.
BLEU_STATISTICS = ("hypothesis_length", "reference_length", *(f"correct_{n}" for n in range(1, 5)),
                   *(f"total_{n}" for n in range(1, 5)))


def bleu_statistics(hypothesis: str, reference: str, *, tokenize: str = "13a") -> dict[str, int]:
    """One pair's share of corpus BLEU (sacrebleu's sufficient statistics, named as
    :data:`BLEU_STATISTICS`): summed over any set of pairs, :func:`bleu_from_statistics` gives the
    corpus BLEU sacrebleu gives on that set, so a bootstrap needs no corpus rescored per resample."""
    from sacrebleu.metrics.helpers import extract_all_word_ngrams

    tokenizer = _bleu_tokenizer(tokenize)
    guessed, length = extract_all_word_ngrams(tokenizer(hypothesis.rstrip()), 1, 4)
    wanted, reference_length = extract_all_word_ngrams(tokenizer(reference.rstrip()), 1, 4)
    row = {"hypothesis_length": length, "reference_length": reference_length}
    for n in range(1, 5):
        row[f"correct_{n}"] = sum(min(count, wanted[gram]) for gram, count in guessed.items() if len(gram) == n)
        row[f"total_{n}"] = max(0, length - n + 1)
    return row


@functools.cache
def _bleu_tokenizer(name: str) -> Callable[[str], str]:
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize=name).tokenizer


def bleu_from_statistics(sums: Mapping[str, float]) -> float:
    """Corpus BLEU (0-100, sacrebleu's default exponential smoothing) of summed :func:`bleu_statistics`."""
    from sacrebleu.metrics import BLEU

    return BLEU.compute_bleu(
        [int(sums[f"correct_{n}"]) for n in range(1, 5)], [int(sums[f"total_{n}"]) for n in range(1, 5)],
        int(sums["hypothesis_length"]), int(sums["reference_length"]), smooth_method="exp",
    ).score


class _CallableTokenizer:
    """Adapter: rouge-score asks for an object with a ``tokenize`` method."""

    def __init__(self, tokenize: Callable[[str], list[str]]) -> None:
        self._tokenize = tokenize

    def tokenize(self, text: str) -> list[str]:
        return self._tokenize(text)


def lcs_length(first: Sequence[str], second: Sequence[str]) -> int:
    """The length of the longest common subsequence of two token sequences.

    Computed a machine word of ``second`` at a time (Allison and Dix's bit-vector recurrence, as
    Hyyrö states it): the row of the textbook table is one integer whose set bits mark where the
    row's value steps up, and each token of ``first`` updates it with a few integer operations. The
    table cell by cell (WISE's authors' code, rouge-score) costs a Python step per pair of tokens
    (issue 50: quadratic in a long turn); this is exact, and costs len(first) integer operations on
    len(second)-bit integers.
    """
    if not first or not second:
        return 0
    matches: dict[str, int] = {}
    for position, token in enumerate(second):
        matches[token] = matches.get(token, 0) | (1 << position)
    mask = (1 << len(second)) - 1
    row = mask  # every bit set: no step up yet
    for token in first:
        match = matches.get(token, 0)
        low = row & match
        row = ((row + low) | (row - low)) & mask
    return len(second) - row.bit_count()


def rouge_l(predicted: str, gold: str, tokenize: Callable[[str], list[str]] | None = None) -> PRF:
    """ROUGE-L (sentence-level LCS) as rouge-score computes it, on its tokens (pass ``tokenize`` for
    character-level Chinese). The LCS is :func:`lcs_length`'s: rouge-score fills the whole table in
    Python, a step per pair of tokens, which is quadratic in a long response (issue 50)."""
    from rouge_score import scoring, tokenizers

    tokenizer = _CallableTokenizer(tokenize) if tokenize is not None else tokenizers.DefaultTokenizer(use_stemmer=False)
    target, prediction = tokenizer.tokenize(gold), tokenizer.tokenize(predicted)
    if not target or not prediction:
        return PRF(0.0, 0.0, 0.0)
    common = lcs_length(target, prediction)
    precision, recall = common / len(prediction), common / len(target)
    return PRF(precision, recall, scoring.fmeasure(precision, recall))

#: How many examples a comparison needs before the project checks ask for an interval rather than
#: a point: below it, a 95 % interval of a difference spans nearly everything (a demo sample's 8
#: responses), and the point comparison is all one can do.
MIN_FOR_INTERVAL = 50
