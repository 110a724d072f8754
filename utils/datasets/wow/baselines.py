"""Baselines of Wizard of Wikipedia: knowledge selection, response retrieval and unigram-F1 reference points.

1. **Knowledge selection.** At each wizard turn ParlAI offers every sentence shown (the chosen
   topic's passage and the passages retrieved for the last two turns, see
   :mod:`utils.datasets.wow.parser`) plus a "no passage used" candidate. :func:`knowledge_selection`
   scores chance and a TF-IDF ranker (scikit-learn) that picks the candidate closest to the
   dialogue context. Chance is ParlAI's ``know_chance``: the mean over the generator teacher's
   wizard examples of ``1 / (knowledge lines)``, the lines being the "no passage used" option plus
   every sentence shown (``knowledge_lines`` of :func:`utils.datasets.wow.stats.wizard_turns`).
2. **Response retrieval.** Valid and test wizard turns carry 100 ``candidate_responses``.
   :func:`response_retrieval` gives R@1 of random choice and of ParlAI's IR baseline
   (:func:`ir_scores`, a re-implementation of ``parlai/agents/ir_baseline``).
3. **Unigram F1 reference points** (:func:`f1_reference_points`): copying the checked sentence,
   copying the TF-IDF ranker's sentence, echoing the apprentice.

Examples are ParlAI's (:func:`utils.datasets.wow.stats.wizard_turns`, column ``parlai_example``), so the
numbers are comparable with ParlAI's ``know_chance`` and the leaderboard.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from utils.book.figures import caption
from utils.book.tables import Table, declared_table

from ...loading import LoadedSplit
from ...metrics import unigram_f1
from ...records import Turn
from ...reported import Reproduced, compare
from .parser import NO_PASSAGES_USED
from .reported import AUTHORS_RESULT_NAMES, REPORTED
from .stats import COLUMNS, split_label, wizard_turns

#: ParlAI's "no passage used" knowledge candidate (``TOKEN_NOCHOSEN`` twice, title and sentence).
NO_PASSAGE_CANDIDATE = f"{NO_PASSAGES_USED} {NO_PASSAGES_USED}"

# ParlAI's DictionaryAgent default tokenizer ("re"): words, single punctuation marks and newlines.
_PARLAI_RETOK = re.compile(r"\w+|[^\w\s]|\n", re.UNICODE)


# -- knowledge selection --------------------------------------------------------------------------


def knowledge_candidates(turn: Turn) -> list[str]:
    """ParlAI's ``label_candidates`` for knowledge selection at one wizard turn.

    ``"no_passages_used no_passages_used"`` first, then ``"<title> <sentence>"`` for every sentence
    shown, in order (as ``WizardDialogKnowledgeTeacher`` with ``--label-type chosen_sent``).
    """
    return [NO_PASSAGE_CANDIDATE, *(f"{item.title} {item.text}" for item in turn.evidence)]


def gold_candidate(turn: Turn) -> int | None:
    """Index of the checked sentence in :func:`knowledge_candidates` (0 = no passage used).

    None when the checked sentence is not among the sentences shown (rare in the real data).
    """
    if turn.labels.get("checked_source") == [NO_PASSAGES_USED]:
        return 0
    for position, item in enumerate(turn.evidence, start=1):
        if item.selected:
            return position
    return None


def selection_context(topic: str, previous: str | None, before_previous: str | None, turn_index: int) -> str:
    """The text ParlAI gives a knowledge selector at a wizard turn (``--label-type chosen_sent``).

    The chosen topic at the dialogue's first turn, the topic and the apprentice's message at the
    second, afterwards the wizard's previous message and the apprentice's last one.
    """
    if turn_index == 0:
        return topic
    if turn_index == 1:
        return f"{topic}\n{previous}"
    return f"{before_previous}\n{previous}"


def candidate_codes(titles: pd.Series, texts: pd.Series) -> tuple[np.ndarray, list[str]]:
    """ParlAI's ``"<title> <sentence>"`` candidate of each row, as a code per row into the distinct ones.

    Returns ``(codes, candidates)``: row ``i`` names ``candidates[codes[i]]``, in order of first
    appearance, as ``pd.factorize`` of the strings spelt per row gives them (a missing title or text
    spelt as empty). Each distinct pair is
    spelt once: a passage is shown at many turns, and a string per row took about 50 MB (and its freed
    memory stayed with the process) on a full-size held-out split of the synthetic benchmark files.
    """
    title_codes, title_values = pd.factorize(titles.fillna(""))
    text_codes, text_values = pd.factorize(texts.fillna(""))
    width = max(len(text_values), 1)
    pair_codes, pairs = pd.factorize(title_codes.astype(np.int64) * width + text_codes)
    spelt = [f"{title_values[pair // width]} {text_values[pair % width]}" for pair in pairs.tolist()]
    # two pairs may spell one candidate ("A B" + "C", "A" + "B C"): one code per distinct string
    string_codes, candidates = pd.factorize(np.array(spelt, dtype=object))
    return string_codes[pair_codes], candidates.tolist()


def row_similarities(
    left: Any, left_rows: np.ndarray, right: Any, right_rows: np.ndarray, chunk: int = 1 << 16
) -> np.ndarray:
    """``left[left_rows[i]] · right[right_rows[i]]`` for every ``i``, for two sparse matrices of vectors.

    The rows are gathered a chunk at a time, so that a split's candidates are never spelt out as one
    vector per row at once (a full-size held-out split shows about 290,000 at its turns).
    """
    if chunk < 1:
        raise ValueError(f"row_similarities: chunk must be at least 1, not {chunk}")
    if len(left_rows) != len(right_rows):
        raise ValueError(f"row_similarities: {len(left_rows)} left rows but {len(right_rows)} right rows")
    result = np.zeros(len(left_rows), dtype=np.result_type(left.dtype, right.dtype))
    for start in range(0, len(left_rows), chunk):
        rows = slice(start, start + chunk)
        pairs = left[left_rows[rows]].multiply(right[right_rows[rows]])
        result[rows] = np.asarray(pairs.sum(axis=1)).ravel()
    return result


def _examples(split: LoadedSplit) -> pd.DataFrame:
    """ParlAI's wizard examples with their context, previous utterance and gold."""
    turns = split.turns(["dialogue_index", "turn_index", "text"])
    by_dialogue = turns.groupby("dialogue_index", sort=False)["text"]
    previous = by_dialogue.shift(1)
    before_previous = by_dialogue.shift(2)
    wizard = wizard_turns(split)
    wizard = wizard[wizard["parlai_example"]].copy()
    wizard["previous"] = previous.loc[wizard.index]
    wizard["before_previous"] = before_previous.loc[wizard.index]
    wizard["context"] = [
        selection_context(topic or "", prev, before, index)
        for topic, prev, before, index in zip(
            wizard["topic"], wizard["previous"], wizard["before_previous"], wizard["turn_index"], strict=True
        )
    ]
    return wizard.reset_index(drop=True)


def knowledge_selection(split: LoadedSplit) -> tuple[dict[str, float], pd.DataFrame]:
    """Chance and TF-IDF accuracy of knowledge selection on one raw split.

    The TF-IDF ranker (scikit-learn, English stop words removed, fitted on the split's distinct
    candidate sentences) scores each ``"<title> <sentence>"`` against :func:`selection_context` and picks
    the highest; when no candidate shares a word with the context it answers "no passage used".
    A turn whose checked sentence is not among the sentences shown counts as a miss.

    Returns the scores and the per-example frame (``predicted_text`` is the chosen sentence, empty
    for "no passage used").
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    examples = _examples(split)
    evidence = split.evidence(["dialogue_index", "turn_index", "text", "title", "selected"])
    keys = pd.MultiIndex.from_frame(examples[["dialogue_index", "turn_index"]])
    position = pd.Series(np.arange(len(examples)), index=keys)
    evidence_keys = pd.MultiIndex.from_frame(evidence[["dialogue_index", "turn_index"]])
    evidence["example"] = position.reindex(evidence_keys).to_numpy()
    evidence = evidence[evidence["example"].notna()].reset_index(drop=True)
    evidence["example"] = evidence["example"].astype(np.int64)

    predicted = np.full(len(examples), -1, dtype=np.int64)  # evidence row, -1 = no passage used
    if len(evidence):
        # A sentence is shown at several turns (the topic's at every one): vectorise each text once.
        codes, unique_text = candidate_codes(evidence["title"], evidence["text"])
        vectorizer = TfidfVectorizer(stop_words="english", dtype=np.float32)
        candidates = vectorizer.fit_transform(unique_text)
        queries = vectorizer.transform(examples["context"])
        # One dot product per evidence row with its own example's query, without a dense matrix.
        scores = row_similarities(candidates, codes, queries, evidence["example"].to_numpy())
        frame = pd.DataFrame({"example": evidence["example"], "score": scores})
        best = frame.groupby("example", sort=False)["score"].idxmax()
        best_score = frame.loc[best.to_numpy(), "score"].to_numpy()
        chosen = best.to_numpy()[best_score > 0]
        predicted[best.index.to_numpy()[best_score > 0]] = chosen

    examples["candidates"] = examples["evidence_count"] + 1
    gold_none = (examples["checked_source"] == NO_PASSAGES_USED).to_numpy()
    chose_none = predicted < 0
    selected = evidence["selected"].to_numpy()
    # A chosen sentence is right when it is the selected one; a sentence that was not shown never is.
    correct = np.where(chose_none, gold_none, selected[np.maximum(predicted, 0)] if len(evidence) else False)
    examples["predicted_text"] = np.where(
        chose_none, "", evidence["text"].to_numpy()[np.maximum(predicted, 0)] if len(evidence) else ""
    )
    examples["tfidf_correct"] = correct
    n = len(examples)
    scores_out = {
        "examples": n,
        "knowledge_chance": float((1.0 / examples["knowledge_lines"]).mean()) if n else math.nan,
        "tfidf_accuracy": float(correct.mean()) if n else math.nan,
        "no_passage_share": float(gold_none.mean()) if n else math.nan,
        "always_topic_first_sentence": float(_first_sentence_accuracy(examples, evidence)) if n else math.nan,
    }
    return scores_out, examples


def _first_sentence_accuracy(examples: pd.DataFrame, evidence: pd.DataFrame) -> float:
    """Accuracy of always choosing the first sentence of the chosen topic's passage."""
    if not len(evidence):
        return 0.0
    first = evidence.groupby("example", sort=False)["selected"].first()
    hits = first.reindex(np.arange(len(examples)), fill_value=False).to_numpy(dtype=bool)
    return float(hits.mean())


# -- response retrieval ---------------------------------------------------------------------------


def parlai_tokenize(text: str) -> list[str]:
    """ParlAI's default dictionary tokenizer (``re``): ``\\w+``, single punctuation marks, newlines."""
    return _PARLAI_RETOK.findall(text)


def word_frequencies(texts: Iterable[str]) -> Counter[str]:
    """Token counts of a training text, as ParlAI's dictionary keeps them (case kept)."""
    # One regex pass per 2,000 texts joined (tokens never span the separating space): faster than a
    # pass per text, and unlike one pass over the whole train, whose list of 2.7 million tokens
    # left 150 MB with the process after it was freed, it holds some 40,000 tokens at a time.
    counts: Counter[str] = Counter()
    batch: list[str] = []
    for text in texts:
        batch.append(text)
        if len(batch) == 2000:
            counts.update(_PARLAI_RETOK.findall(" ".join(batch)))
            batch.clear()
    counts.update(_PARLAI_RETOK.findall(" ".join(batch)))
    return counts


def ir_scores(
    query: str,
    candidates: Sequence[str],
    frequencies: Mapping[str, int],
    length_penalty: float = 0.5,
    words_of: dict[str, dict[str, None]] | None = None,
) -> list[float]:
    """ParlAI's IR baseline score of each candidate for ``query``.

    Query words (lowercased, ParlAI-tokenised) weigh ``1 / (1 + log(1 + freq))``; a candidate scores
    the sum of the weights of its distinct words found in the query, divided by
    ``(sqrt(distinct candidate words) * sqrt(query words)) ** length_penalty`` when that exceeds 1.
    ``words_of`` remembers each candidate's distinct words between calls: a split's candidate lists
    draw on the same responses again and again (111,100 candidates, 1,310 distinct texts in a
    quarter-size synthetic valid split).
    """
    words = parlai_tokenize(query.lower())
    weights = {word: 1.0 / (1.0 + math.log(1.0 + frequencies.get(word, 0))) for word in words}
    query_norm = math.sqrt(len(words))
    scores = []
    for candidate in candidates:
        if candidate == "":
            scores.append(0.0)
            continue
        used = words_of.get(candidate) if words_of is not None else None
        if used is None:
            # Its distinct words in the order they first occur: summed in ParlAI's order, so that the
            # scores, and the ties parlai_top breaks, stay ParlAI's bit for bit.
            used = dict.fromkeys(parlai_tokenize(candidate.lower()))
            if words_of is not None:
                words_of[candidate] = used
        score = 0.0
        for word in used:
            if word in weights:
                score += weights[word]
        norm = math.pow(math.sqrt(len(used)) * query_norm, length_penalty)
        scores.append(score / norm if norm > 1 else score)
    return scores


def parlai_top(scores: Sequence[float], candidates: Sequence[str]) -> int:
    """The candidate ParlAI ranks first: highest score, ties to the greatest string (its heap order)."""
    return max(range(len(candidates)), key=lambda i: (scores[i], candidates[i]))


def ir_query(topic: str, previous: str | None, turn_index: int) -> str:
    """The IR baseline's query: ParlAI's ``text`` of the example (history size 1)."""
    if turn_index == 0:
        return topic
    if turn_index == 1:
        return f"{topic}\n{previous}"
    return previous or ""


def response_retrieval(split: LoadedSplit, frequencies: Mapping[str, int]) -> tuple[dict[str, float], pd.DataFrame]:
    """R@1 among the ``candidate_responses`` of a valid or test split: random and ParlAI's IR baseline.

    ``frequencies`` are the training text's token counts (:func:`word_frequencies`). Turns without
    100 candidates (train) are skipped.
    """
    examples = _examples(split)
    start = split.arrow("dialogues").column("turn_start").to_numpy()
    rows = start[examples["dialogue_index"].to_numpy()] + examples["turn_index"].to_numpy()
    # only the examples' raw texts: the whole column decompressed is as large as the split's turns table
    candidates = [json.loads(text).get("candidate_responses") for text in split.raw_texts(rows)]
    records = []
    words_of: dict[str, dict[str, None]] = {}
    columns = zip(
        candidates,
        examples["dialogue_index"],
        examples["turn_index"],
        examples["topic"],
        examples["previous"],
        examples["text"],
        strict=True,
    )
    for cands, dialogue_index, turn_index, topic, previous, gold in columns:
        if not cands:
            continue
        scores = ir_scores(ir_query(topic or "", previous, int(turn_index)), cands, frequencies, words_of=words_of)
        top = parlai_top(scores, cands)
        records.append(
            {
                "dialogue_index": dialogue_index,
                "turn_index": turn_index,
                "candidates": len(cands),
                "gold_in_candidates": gold in cands,
                "ir_hit": cands[top] == gold,
                "ir_choice": cands[top],
            }
        )
    frame = pd.DataFrame(
        records, columns=["dialogue_index", "turn_index", "candidates", "gold_in_candidates", "ir_hit", "ir_choice"]
    )
    n = len(frame)
    result = {
        "examples": n,
        "random_r@1": float((1.0 / frame["candidates"]).mean() * 100) if n else math.nan,
        "ir_baseline_r@1": float(frame["ir_hit"].mean() * 100) if n else math.nan,
    }
    return result, frame


# -- unigram F1 reference points ------------------------------------------------------------------


def f1_reference_points(examples: pd.DataFrame) -> dict[str, float]:
    """Unigram F1 (ParlAI normalisation) of three copy strategies against the wizard's response.

    ``examples`` is the frame from :func:`knowledge_selection`. Copying the checked sentence and the
    TF-IDF sentence is scored on turns where a passage was used; echoing the apprentice on every
    turn that has a previous utterance.
    """
    used = examples[examples["checked_source"] != NO_PASSAGES_USED]
    echo = examples[examples["previous"].notna()]

    def mean_f1(predictions: Iterable[str], golds: Iterable[str]) -> float:
        values = [unigram_f1(p, g) for p, g in zip(predictions, golds, strict=True)]
        return float(np.mean(values)) if values else math.nan

    return {
        "copy_checked_sentence": mean_f1(used["checked_sentence"], used["text"]),
        "copy_tfidf_sentence": mean_f1(used["predicted_text"], used["text"]),
        "echo_apprentice": mean_f1(echo["previous"], echo["text"]),
        "examples_with_passage": len(used),
        "examples_with_history": len(echo),
    }


# -- all baselines and the reported table ---------------------------------------------------------


def run_all(splits: Mapping[str, LoadedSplit], train: LoadedSplit) -> pd.DataFrame:
    """Every baseline on every split given (raw WoW names): one column per split, one row per measure.

    Shares and accuracies are between 0 and 1, R@1 in percent (as the leaderboard reports it), F1
    between 0 and 1; the ``examples`` rows count what each was scored on and ``data`` is the split's
    provenance kind.
    """
    frequencies = word_frequencies(train.arrow("turns", ["text"]).column("text").to_pylist())
    train.release_pages()  # the scan's pages of the cache: every turn's text of the training split
    rows: dict[str, dict[str, object]] = {}
    for name, split in splits.items():
        knowledge, examples = knowledge_selection(split)
        retrieval, _ = response_retrieval(split, frequencies)
        f1 = f1_reference_points(examples)
        rows[name] = {**knowledge, **{k: v for k, v in retrieval.items() if k != "examples"}, **f1}
        rows[name]["retrieval_examples"] = retrieval["examples"]
        rows[name]["data"] = split.provenance.kind
    return pd.DataFrame(rows)


#: The knowledge-selection columns of :func:`run_all`, as the chapter's first table shows them.
SELECTION_COLUMNS = ("examples", "knowledge_chance", "tfidf_accuracy", "no_passage_share",
                     "always_topic_first_sentence")
#: The unigram-F1 reference points of :func:`run_all`, each beside the examples it was scored on.
F1_COLUMNS = ("copy_checked_sentence", "copy_tfidf_sentence", "examples_with_passage", "echo_apprentice",
              "examples_with_history")
#: The unigram-F1 columns of :func:`run_all` (between 0 and 1).
F1_REFERENCE_POINTS = ("copy_checked_sentence", "copy_tfidf_sentence", "echo_apprentice")


def _by_split(results: pd.DataFrame, columns: Sequence[str], text: str, splits: Mapping[str, LoadedSplit]) -> Table:
    """Some columns of :func:`run_all`'s ``results`` for readers, one row per split (headers and units
    from :data:`utils.datasets.wow.stats.COLUMNS`)."""
    return declared_table(
        results.T[list(columns)],
        COLUMNS,
        index="Split",
        row_labels={name: split_label(name) for name in splits},
        caption=caption(text, *splits.values()),
    )


def knowledge_selection_table(results: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> Table:
    """Knowledge selection of :func:`run_all` (``results`` on ``splits``): the accuracy of each strategy."""
    return _by_split(
        results,
        SELECTION_COLUMNS,
        "Knowledge selection on ParlAI's wizard examples: accuracy of each strategy.",
        splits,
    )


def f1_reference_points_table(results: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> Table:
    """The unigram-F1 reference points of :func:`run_all` (``results`` on ``splits``), each beside the
    examples it was scored on."""
    return _by_split(
        results,
        F1_COLUMNS,
        "Unigram F1 against the wizard's reply (between 0 and 1, as ParlAI reports it) of three ways of "
        "copying text.",
        splits,
    )


#: Reported baseline -> (column of :func:`run_all`, tolerance). Others are quoted only.
#: Tolerances are tight enough to catch a mistake in building the candidates: leaving out the "no
#: passage used" candidate moves the chance by about 7e-4 (reported to 4 decimals), one point of
#: R@1 is about 90 test turns (reported to 1 decimal; ties and tokenisation may move a few).
_REPRODUCIBLE = {
    "knowledge_chance": ("knowledge_chance", 2e-4),
    "random_r@1": ("random_r@1", 0.05),
    "ir_baseline_r@1": ("ir_baseline_r@1", 0.5),
}
#: The reported baselines: the reproducible ones above, and trained models quoted from their source.
BASELINE_NAMES = (
    "knowledge_chance",
    "end2end_knowledge_accuracy",
    "end2end_f1",
    "end2end_ppl",
    "random_r@1",
    "ir_baseline_r@1",
    "bow_memnet_r@1",
    "transformer_memnet_r@1",
)


def reported_vs_reproduced(results: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """Each reported WoW baseline beside the value computed here, in :func:`utils.reported.compare`'s schema.

    ``results`` is :func:`run_all`'s table. Chance and the IR baseline are reproduced and checked
    (within ``tolerance``) only when their split is the full official one; a reproducible row whose
    split was not run says "not checked: split not loaded"; the trained models (ParlAI's end-to-end
    generator, the memory networks) are *quoted only*. The baselines computed here that no source
    reports (the TF-IDF ranker, the F1 reference points) are rows of ``results`` only.
    """
    computed = {}
    for item in REPORTED:
        if item.dataset != "wow" or item.name not in _REPRODUCIBLE:
            continue
        column, tolerance = _REPRODUCIBLE[item.name]
        if item.split in results.columns:
            value = float(cast(float, results.at[column, item.split]))
            computed[(item.name, item.split)] = Reproduced(value, (splits[item.split].provenance.kind,), tolerance)
        else:
            computed[(item.name, item.split)] = Reproduced(None, (), tolerance)
    table = compare("wow", computed)
    return table[table["name"].isin(BASELINE_NAMES)].reset_index(drop=True)


def authors_results() -> pd.DataFrame:
    """The trained models' test perplexities and the human ratings the ParlAI project page reports,
    in :func:`utils.reported.compare`'s schema: every row is *quoted only*, since reproducing them
    means training those models (or running a human evaluation), which the atlas does not do."""
    table = compare("wow")
    return table[table["name"].isin(AUTHORS_RESULT_NAMES)].reset_index(drop=True)


# -- KILT: baselines in KILT's submission format ----------------------------------------------------


def kilt_submission(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """KILT's submission records (what ``atlas score wow_kilt`` and KILT's own scorer read) from a
    frame with ``id``, ``answer`` and, optionally, ``wikipedia_id`` (one predicted page; empty or
    missing for none)."""
    pages = frame["wikipedia_id"] if "wikipedia_id" in frame else pd.Series("", index=frame.index)
    def provenance(page: object) -> list[dict[str, str]]:  # a missing page (None, NaN after a merge): none
        return [{"wikipedia_id": page}] if isinstance(page, str) and page else []

    return [{"id": example_id, "output": [{"answer": answer, "provenance": provenance(page)}]}
            for example_id, answer, page in zip(frame["id"], frame["answer"], pages, strict=True)]


def kilt_baselines(split: LoadedSplit) -> dict[str, pd.DataFrame]:
    """Two baselines that need no model nor KILT's Wikipedia, as frames for :func:`kilt_submission`:

    * ``copy the last message``: the answer repeats the apprentice's last message; no page;
    * ``TF-IDF page + last message``: the same answer, with the page whose title is closest (TF-IDF
      cosine, scikit-learn) to the whole dialogue so far, among the pages the split's own provenance
      names. That closed set is small and holds every gold page, so its R-precision is far above what
      the same ranker would reach over KILT's 5.9 million pages: a ceiling for title matching.

    The answers of KILT's files are the last turn of each example (:meth:`LoadedSplit.turns`); the
    messages before it are the input."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    turns = split.turns()
    last_turn = turns.groupby("dialogue_index")["turn_index"].transform("max")
    inputs = turns[turns["turn_index"] < last_turn]
    examples = pd.DataFrame({
        "id": turns.groupby("dialogue_index")["dialogue_id"].first(),
        "answer": inputs.groupby("dialogue_index")["text"].last(),
        "history": inputs.groupby("dialogue_index")["text"].agg("\n".join),
    }).fillna("")
    evidence = split.evidence()
    pages = (evidence.assign(wikipedia_id=evidence["id"].str.partition("@")[0])[["wikipedia_id", "title"]]
             .drop_duplicates("wikipedia_id").reset_index(drop=True))
    vectorizer = TfidfVectorizer().fit(pd.concat([pages["title"], examples["history"]]))
    similarity = vectorizer.transform(examples["history"]) @ vectorizer.transform(pages["title"]).T
    best = np.asarray(similarity.argmax(axis=1)).ravel()
    return {
        "copy the last message": examples[["id", "answer"]],
        "TF-IDF page + last message": examples[["id", "answer"]].assign(
            wikipedia_id=pages["wikipedia_id"].to_numpy()[best] if len(pages) else ""),
    }
