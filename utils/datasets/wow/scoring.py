"""Scoring a model on Wizard of Wikipedia (see :mod:`utils.scoring` for the machinery).

``wow`` (``TASKS``), on ParlAI's wizard examples (the ``generator`` teacher's: ``parlai_example`` of
:func:`utils.datasets.wow.stats.wizard_turns`), keyed by the dialogue's position in the split's file
and the wizard turn's position in the dialogue (both from 0, as ``atlas show`` and ``atlas export``
number them), one JSON object per line:

* ``generation``: ``{"dialogue": 12, "turn": 3, "text": "..."}``, scored with ``f1_parlai`` (ParlAI's
  ``F1Metric`` against the wizard's reply), ``f1_kilt`` (the same with SQuAD's normaliser, which KILT
  uses), ``knowledge_f1_parlai`` (ParlAI's ``knowledge_f1``: F1 against the checked sentence, which
  is ParlAI's ``no_passages_used`` token where the wizard used none) and ``rare_word_f1_parlai``
  (ParlAI's ``rare_word_f1``: F1 on the words rarer than the cut-off of the release's ``data.json``,
  :class:`RareWords`; a reply whose reference has no rare word is left out of the mean, as ParlAI's
  zero-denominator metric is);
* ``selection``: ``{"dialogue": 12, "turn": 3, "title": "...", "sentence": "..."}`` (``no_passages_used``
  for both to choose no passage), scored with ParlAI's ``title_r@1`` (normalised titles equal) and
  ``passage_r@1`` (the normalised checked sentence contained in the normalised predicted one). The
  gold title is the checked sentence's title as the atlas's parser reads it from the sentence's key;
  ParlAI's ``_get_chosen_title_and_sent`` also searches the passages shown when that title does not
  hold the sentence, which can differ on a few turns.

``wow_kilt`` (``KILT_TASKS``): KILT's own submission file, accepted unchanged, one JSON object per line::

    {"id": "<KILT id>", "output": [{"answer": "...", "provenance": [{"wikipedia_id": "265182"}, ...]}]}

scored with the definitions of KILT's ``kilt/eval_downstream.py`` and ``kilt/eval_retrieval.py``
(facebookresearch/KILT, the files as of :data:`KILT_COMMIT`), reimplemented here, not copied:

* the answer is ``str(answer).strip()``; an empty answer scores 0 on every downstream metric (KILT's
  ``continue``) but still counts in the mean;
* ``accuracy_kilt``: the stripped answer is one of the gold answers exactly; ``em_kilt`` and ``f1_kilt``:
  exact match and token F1 after SQuAD's normalisation (:func:`utils.text.normalize_squad`: lowercase,
  punctuation **deleted**, no a/an/the), the best over the gold answers; ``rougel_kilt``: ROUGE-L F
  from the ``rouge`` package KILT installs (pltrdy/rouge 1.0.1), on the raw strings, 0 where it
  refuses an empty hypothesis;
* ``rprec_kilt``: page-level R-precision: the prediction's first output's distinct ``wikipedia_id``
  list, its first R entries against each gold output's R distinct pages, the best over gold outputs;
  ``recall5_kilt``: KILT's recall@5 over evidence sets (a set counts once all its pages are predicted);
* ``kilt_accuracy``, ``kilt_em``, ``kilt_f1``, ``kilt_rougel``: the same, counted only for examples whose
  R-precision is exactly 1 (0 elsewhere);
* ``f1_parlai``: the same token F1 with ParlAI's normaliser (punctuation to spaces), to show the
  difference on one's own outputs.

Coverage follows KILT too: its ``validate_input`` refuses a file that misses or repeats an id, and
expects exactly one output per line. KILT prints a warning and skips a provenance item without a
``wikipedia_id``; here such a line is refused, naming the field.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import DataError, DataUnavailableError
from ...formats import iter_json_lines, iter_json_list
from ...metrics import token_prf
from ...scoring import Gold, Metric, Prediction, Task, WeightsMetric, json_lines
from ...text import normalize_parlai, squad_tokens, word_tokens

#: The KILT commit whose ``kilt/eval_downstream.py`` (last changed in 2734b46b, 8 Dec 2021) and
#: ``kilt/eval_retrieval.py`` (last changed in c730838c, 22 Mar 2022) these definitions follow.
KILT_COMMIT = "2664322"
KILT_DOWNSTREAM = f"facebookresearch/KILT kilt/eval_downstream.py at {KILT_COMMIT}"
KILT_RETRIEVAL = f"facebookresearch/KILT kilt/eval_retrieval.py at {KILT_COMMIT}"
PARLAI_F1 = "facebookresearch/ParlAI parlai/core/metrics.py (normalize_answer, F1Metric) at 1581891"
PARLAI_WOW = "facebookresearch/ParlAI parlai/tasks/wizard_of_wikipedia/agents.py (custom_evaluation) at fb4d8aa"
#: ParlAI's token for "no passage used" (TOKEN_NOCHOSEN), as the raw files write it too.
NO_PASSAGE = "no_passages_used"
#: KILT's recall@k is reported at k = 5 by eval_downstream.py.
_RECALL_AT = 5


# -- KILT's definitions, one example at a time -----------------------------------------------------------


def _distinct(values: Sequence[str]) -> list[str]:
    """``values`` without repeats, first occurrences kept in order (KILT's ``_remove_duplicates``)."""
    return list(dict.fromkeys(values))


def r_precision(predicted_pages: Sequence[str], gold_page_lists: Sequence[Sequence[str] | None]) -> float:
    """KILT's page-level R-precision: for each gold output's R distinct pages, the share of the first R
    of the prediction's distinct pages found among them (0 when R is 0); the best over gold outputs."""
    guess = _distinct(predicted_pages)
    best = 0.0
    for gold in gold_page_lists:
        pages = _distinct(gold or ())
        if pages:
            best = max(best, sum(page in pages for page in guess[: len(pages)]) / len(pages))
    return best


def recall_at_k(predicted_pages: Sequence[str], gold_page_lists: Sequence[Sequence[str] | None], k: int) -> float:
    """KILT's recall@k: each distinct gold evidence set is one point of the ranking, placed where its
    last page is predicted; the share of the evidence sets among the first k points (0 with no
    predicted page)."""
    guess = _distinct(predicted_pages)
    if not guess:
        return 0.0
    evidence_sets: list[set[str]] = []
    for pages in gold_page_lists:
        if pages is not None and set(pages) not in evidence_sets:
            evidence_sets.append(set(pages))
    if not evidence_sets:
        return 0.0
    remaining = [set(pages) for pages in evidence_sets]
    rank: list[object] = []
    for page in guess:
        found = False
        for position, left in enumerate(remaining):
            if page in left:
                found = True
                partial = f"evidence_set:{position}"
                if partial in rank:  # an earlier page of this set held its place; the set moves here
                    rank.remove(partial)
                left.discard(page)
                rank.append(True if not left else partial)
        if not found:
            rank.append(False)
    return rank[:k].count(True) / len(evidence_sets)


@cache
def _rouge() -> Any:
    from rouge import Rouge  # the package KILT's eval_downstream.py imports (pltrdy/rouge)

    return Rouge()


def rouge_l_kilt(prediction: str, gold: str) -> float:
    """ROUGE-L F as KILT computes it: ``rouge.Rouge().get_scores(prediction, gold, avg=True)``, no
    normalisation, 0 where the package refuses the hypothesis (``ValueError``: an empty one)."""
    try:
        return float(_rouge().get_scores(prediction, gold, avg=True)["rouge-l"]["f"])
    except ValueError:
        return 0.0


def f1_kilt(prediction: str, gold: str) -> float:
    """Token F1 after SQuAD's (KILT's) normalisation: punctuation deleted."""
    return token_prf(squad_tokens(prediction), squad_tokens(gold)).f1


def f1_parlai(prediction: str, gold: str) -> float:
    """Token F1 after ParlAI's normalisation: punctuation turned into spaces."""
    return token_prf(word_tokens(prediction), word_tokens(gold)).f1


def kilt_example(answer: str, pages: Sequence[str], gold: Mapping[str, Any]) -> dict[str, float]:
    """Every KILT measurement of one prediction (``answer``, predicted ``pages``) against one gold
    example (``{"answers": set of stripped answers, "pages": [page list per output]}``)."""
    answer = answer.strip()
    answers: set[str] = gold["answers"]
    rprec = r_precision(pages, gold["pages"])
    row = {"rprec": rprec, "recall5": recall_at_k(pages, gold["pages"], _RECALL_AT)}
    if answer:
        normalised = squad_tokens(answer)
        row["accuracy"] = float(answer in answers)
        row["em"] = float(any(normalised == squad_tokens(g) for g in answers))
        row["f1"] = max(f1_kilt(answer, g) for g in answers)
        row["rougel"] = max(rouge_l_kilt(answer, g) for g in answers)
        row["f1_parlai"] = max(f1_parlai(answer, g) for g in answers)
    else:  # KILT's eval_downstream.py skips the example's downstream sums
        row.update(accuracy=0.0, em=0.0, f1=0.0, rougel=0.0, f1_parlai=0.0)
    for name in ("accuracy", "em", "f1", "rougel"):
        row[f"kilt_{name}"] = row[name] if rprec == 1 else 0.0
    return row


# -- the task ---------------------------------------------------------------------------------------------


def _page_id(value: Any, *, path: Path, record: str, field: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise DataError(f"expected a string or an integer, found {type(value).__name__}", path=path, record=record,
                        field=field)
    return str(value).strip()


def read_kilt_predictions(path: Path) -> list[Prediction]:
    """A KILT submission file: ``id`` and exactly one ``output`` with an ``answer`` and optional
    ``provenance`` items, each with a ``wikipedia_id``. Each prediction's value is ``(answer, pages)``."""
    found = []
    for line, record in json_lines(path):
        where = f"line {line}"
        if "id" not in record:
            raise DataError("required field is missing", path=path, record=where, field="id")
        example_id = _page_id(record["id"], path=path, record=where, field="id")
        output = record.get("output")
        if not isinstance(output, list) or len(output) != 1 or not isinstance(output[0], dict):
            raise DataError("expected a list of exactly one object (KILT's one output per example)", path=path,
                            record=where, field="output")
        if "answer" not in output[0]:
            raise DataError("required field is missing", path=path, record=where, field="output[0].answer")
        answer = output[0]["answer"]
        if not isinstance(answer, str):
            raise DataError(f"expected a string, found {type(answer).__name__}", path=path, record=where,
                            field="output[0].answer")
        provenance = output[0].get("provenance", [])
        if not isinstance(provenance, list):
            raise DataError(f"expected a list, found {type(provenance).__name__}", path=path, record=where,
                            field="output[0].provenance")
        pages = []
        for position, item in enumerate(provenance):
            field = f"output[0].provenance[{position}].wikipedia_id"
            if not isinstance(item, dict) or "wikipedia_id" not in item:
                raise DataError("required field is missing", path=path, record=where, field=field)
            pages.append(_page_id(item["wikipedia_id"], path=path, record=where, field=field))
        found.append(Prediction(example_id, (answer, pages), line))
    return found


def _kilt_gold(split: str) -> Gold:
    """The split's answers and pages read from the very file the loader chose (official, partial or
    demo), as KILT reads its gold file: answers stripped, empty ones left out."""
    from ...loading import load

    loaded = load("wow_kilt", split)
    path = Path(loaded.provenance.path)
    ids, answers, units = [], {}, {}
    for line, record in iter_json_lines(path):
        example_id = str(record["id"]).strip()
        outputs = record.get("output") or []
        texts = {o["answer"].strip() for o in outputs if isinstance(o.get("answer"), str) and o["answer"].strip()}
        if not texts:
            raise DataError("no gold answer to score against (KILT's test file has none; its leaderboard scores it)",
                            path=path, record=f"line {line}", field="output")
        # None for an output without provenance: KILT's recall leaves it out of the evidence sets
        pages = [None if "provenance" not in o else [str(p["wikipedia_id"]).strip() for p in o["provenance"]]
                 for o in outputs]
        ids.append(example_id)
        answers[example_id] = {"answers": texts, "pages": pages}
        dialogue, _, turn = example_id.rpartition("_")
        units[example_id] = dialogue if dialogue and turn.isdigit() else example_id
    return Gold(tuple(ids), answers, units, split=loaded, path=path)


_COLUMNS = ("accuracy", "em", "f1", "rougel", "kilt_accuracy", "kilt_em", "kilt_f1", "kilt_rougel",
            "rprec", "recall5", "f1_parlai")


def _kilt_examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                  list[dict[str, Any]]]:
    rows = []
    for example_id, (answer, pages) in zip(ids, values, strict=True):
        rows.append({"id": example_id, **kilt_example(answer, pages, gold.answers[example_id])})
    columns = {name: np.array([row[name] for row in rows], dtype=float) for name in _COLUMNS}
    return columns, rows


KILT_TASKS = (
    Task(
        name="kilt",
        description="KILT's knowledge-grounded dialogue task: the wizard's answer and the Wikipedia pages it rests on",
        format='one JSON object per line, KILT\'s submission format: {"id": "<KILT id>", "output": '
        '[{"answer": "...", "provenance": [{"wikipedia_id": "..."}]}]}',
        gold=_kilt_gold,
        read=read_kilt_predictions,
        examples=_kilt_examples,
        metrics=(
            Metric("accuracy_kilt", KILT_DOWNSTREAM, "the stripped answer equals a gold answer exactly", "accuracy"),
            Metric("em_kilt", KILT_DOWNSTREAM, "exact match after SQuAD's normalisation (punctuation deleted)", "em"),
            Metric("f1_kilt", KILT_DOWNSTREAM, "token F1 after SQuAD's normalisation (punctuation deleted)", "f1"),
            Metric("rougel_kilt", KILT_DOWNSTREAM, "ROUGE-L F of the rouge package on raw strings", "rougel"),
            Metric("kilt_accuracy", KILT_DOWNSTREAM, "accuracy_kilt counted only where R-precision is 1",
                   "kilt_accuracy"),
            Metric("kilt_em", KILT_DOWNSTREAM, "em_kilt counted only where R-precision is 1", "kilt_em"),
            Metric("kilt_f1", KILT_DOWNSTREAM, "f1_kilt counted only where R-precision is 1", "kilt_f1"),
            Metric("kilt_rougel", KILT_DOWNSTREAM, "rougel_kilt counted only where R-precision is 1", "kilt_rougel"),
            Metric("rprec_kilt", KILT_RETRIEVAL, "page-level R-precision of the first R distinct predicted pages",
                   "rprec"),
            Metric("recall5_kilt", KILT_RETRIEVAL, "share of gold evidence sets complete in the first 5 ranks",
                   "recall5"),
            Metric("f1_parlai", PARLAI_F1, "token F1 after ParlAI's normalisation (punctuation to spaces)",
                   "f1_parlai"),
        ),
        notes=(
            "ROUGE-L comes from the rouge package (pltrdy/rouge 1.0.1), the one KILT's eval_downstream.py imports.",
        ),
    ),
)


# -- ParlAI's rare_word_f1 -------------------------------------------------------------------------------

PARLAI_RARE = ("facebookresearch/ParlAI parlai/tasks/wizard_of_wikipedia/agents.py (RareWordF1Calculator, "
               "_build_rare_word_f1) at fb4d8aa")
#: ParlAI's ``top_p``: the frequent words are those making up the first half of the corpus's tokens.
RARE_TOP_P = 0.5


@dataclass(frozen=True)
class RareWords:
    """ParlAI's ``RareWordF1Calculator``: word counts of a reference corpus (ParlAI-normalised tokens)
    and the cut-off count, the count of the word at which the most common words first make up more
    than ``top_p`` of all tokens. A word is rare when the corpus holds it fewer times than the
    cut-off; a word the corpus lacks is dropped, as ParlAI's ``freq_dist.get(w, cutoff) < cutoff``
    drops it."""

    counts: Mapping[str, int]
    cutoff: int

    @classmethod
    def of_texts(cls, texts: Iterable[str], top_p: float = RARE_TOP_P) -> RareWords:
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(word_tokens(text))
        return cls.of_counts(counts, top_p)

    @classmethod
    def of_counts(cls, counts: Mapping[str, int], top_p: float = RARE_TOP_P) -> RareWords:
        target, running = sum(counts.values()) * top_p, 0
        for count in sorted(counts.values(), reverse=True):
            running += count
            if running > target:
                return cls(counts, count)
        raise ValueError("no words in the reference corpus: the rare-word cut-off is undefined")

    def kept(self, text: str) -> list[str]:
        return [word for word in word_tokens(text) if self.counts.get(word, self.cutoff) < self.cutoff]

    def f1(self, prediction: str, reference: str) -> float:
        """F1 of the rare words, NaN where the reference holds none (ParlAI's ``F1Metric(0, 0)``,
        which its mean leaves out)."""
        gold = self.kept(reference)
        if not gold:
            return math.nan
        return token_prf(self.kept(prediction), gold).f1


@cache
def _rare_words_of(path: Path, size: int, modified: float) -> RareWords:
    """ParlAI's reference of ``data.json``: every message's text of every dialogue, read a dialogue at
    a time (the file holds the passages too: about a gigabyte, never in memory at once). Size and
    time are in the key, so that a file replaced in place is read again."""
    counts: Counter[str] = Counter()
    for index, dialogue in iter_json_list(path):
        messages = dialogue.get("dialog") if isinstance(dialogue, dict) else None
        if not isinstance(messages, list):
            raise DataError("expected a list of messages", path=path, record=f"dialogue {index}", field="dialog")
        for position, message in enumerate(messages):
            if not isinstance(message, dict) or not isinstance(message.get("text"), str):
                raise DataError("expected a message with a text", path=path, record=f"dialogue {index}",
                                field=f"dialog[{position}].text")
            counts.update(word_tokens(message["text"]))
    return RareWords.of_counts(counts)


def rare_words() -> tuple[RareWords, str]:
    """ParlAI's reference for ``rare_word_f1``, the release's ``data.json`` (every dialogue's
    messages), and a note when another corpus stands in: without ``data.json`` here, the train split
    as the loader finds it (official, partial or demo), which the note names. A corpus where no word
    is rare (a cut-off of one occurrence: a tiny sample) leaves the metric undefined, and the note says so."""
    from ...loading import load, resolve_file

    try:
        path, _kind, _checksum, _detail = resolve_file("wow", "data", download=False)
    except DataUnavailableError:
        train = load("wow", "train")
        provenance = train.provenance
        stat = Path(provenance.path).stat()
        key = (str(provenance.path), stat.st_size, stat.st_mtime)
        if key not in _STAND_IN:  # a second score() on the same file counts nothing again
            texts = train.arrow("turns", ["text"]).column("text").to_pylist()
            train.release_pages()  # a scan of every turn's text: the chapter's kernel keeps none of its pages
            _STAND_IN[key] = RareWords.of_texts(texts)
        rare = _STAND_IN[key]
        note = ("rare_word_f1_parlai: ParlAI counts words in the release's data.json, which is not here; the train "
                f"split stands in ({provenance.summary()})")
    else:
        stat = path.stat()
        rare, note = _rare_words_of(path, stat.st_size, stat.st_mtime), ""
    if rare.cutoff <= 1:  # "fewer times than once": no word can be rare
        note = (f"{note}; " if note else "rare_word_f1_parlai: ") + (
            "no word is rare in this corpus (the most common words reach half of its tokens at words seen once), "
            "so rare_word_f1 is undefined")
    return rare, note


#: The stand-in corpora's word counts, by the file they were read from (path, size, time).
_STAND_IN: dict[tuple[str, int, float], RareWords] = {}


# -- the optional tier: metrics that need model weights ------------------------------------------------


def _bertscore_f1(predictions: Sequence[str], references: Sequence[str]) -> np.ndarray:
    from bert_score import score  # the optional tier's package: imported only when asked for

    _, _, f1 = score(list(predictions), list(references), model_type="roberta-large", num_layers=17, verbose=False)
    return np.asarray(f1.tolist(), dtype=float)


def bertscore(reference: str) -> WeightsMetric:
    """BERTScore F1 of each reply against the gold answer's ``reference`` field, as ``bert_score.score``
    computes it for English (``lang="en"``: roberta-large, layer 17, no baseline rescaling)."""
    return WeightsMetric(
        "bertscore_f1", "Tiiiger/bert_score bert_score.score (lang='en' defaults: roberta-large, layer 17) 0.3.13",
        "F1 of greedily matched contextual embeddings, not of words; no baseline rescaling",
        package="bert-score", module="bert_score", model="roberta-large",
        download="about 1.4 GB from huggingface.co on first use", compute=_bertscore_f1, reference=reference)


# -- ParlAI's wizard examples ---------------------------------------------------------------------------


def _example_id(record: Mapping[str, Any], *, path: Path, line: int) -> str:
    parts = []
    for key in ("dialogue", "turn"):
        if key not in record:
            raise DataError("required field is missing", path=path, record=f"line {line}", field=key)
        value = record[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise DataError(f"expected an integer, found {type(value).__name__}", path=path, record=f"line {line}",
                            field=key)
        parts.append(str(value))
    return ":".join(parts)


def _text_field(record: Mapping[str, Any], key: str, *, path: Path, line: int) -> str:
    if key not in record:
        raise DataError("required field is missing", path=path, record=f"line {line}", field=key)
    if not isinstance(record[key], str):
        raise DataError(f"expected a string, found {type(record[key]).__name__}", path=path, record=f"line {line}",
                        field=key)
    return str(record[key])


def read_responses(path: Path) -> list[Prediction]:
    """``{"dialogue", "turn", "text"}`` lines."""
    return [Prediction(_example_id(r, path=path, line=n), _text_field(r, "text", path=path, line=n), n)
            for n, r in json_lines(path)]


def read_selections(path: Path) -> list[Prediction]:
    """``{"dialogue", "turn", "title", "sentence"}`` lines."""
    return [Prediction(_example_id(r, path=path, line=n), (_text_field(r, "title", path=path, line=n),
                                                          _text_field(r, "sentence", path=path, line=n)), n)
            for n, r in json_lines(path)]


def _wizard_gold(split: str) -> Gold:
    """ParlAI's wizard examples of the raw split: the reply, the checked sentence and its title."""
    from ...loading import load
    from .stats import wizard_turns

    loaded = load("wow", split)
    turns = wizard_turns(loaded)
    turns = turns[turns["parlai_example"]]
    # wizard_turns leaves the labels out (a dict per turn): those of the examples, by turn row
    labels_of = loaded.turns(["labels"])["labels"].loc[turns.index]
    ids, answers, units = [], {}, {}
    for dialogue, turn, text, labels in zip(turns["dialogue_index"], turns["turn_index"], turns["text"],
                                            labels_of, strict=True):
        example_id = f"{dialogue}:{turn}"
        sentence = (labels.get("checked_sentence") or [NO_PASSAGE])[0] or NO_PASSAGE
        source = (labels.get("checked_source") or [""])[0]
        chose_none = source == NO_PASSAGE or sentence == NO_PASSAGE
        title = NO_PASSAGE if chose_none else (labels.get("checked_title") or [""])[0]
        ids.append(example_id)
        answers[example_id] = {"text": text, "sentence": sentence, "title": title}
        units[example_id] = str(dialogue)
    return Gold(tuple(ids), answers, units, split=loaded, path=Path(loaded.provenance.path))


def _generation_gold(split: str) -> Gold:
    """The wizard examples, with ParlAI's rare-word reference beside them."""
    gold = _wizard_gold(split)
    rare, note = rare_words()
    return Gold(gold.ids, gold.answers, gold.units, split=gold.split, path=gold.path,
                notes=(note,) if note else (), context={"rare_words": rare})


def response_rows(ids: Sequence[str], replies: Sequence[str], references: Sequence[str],
                  knowledge: Sequence[str]) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """The response measures every English dialogue task shares: ``f1_parlai`` and ``f1_kilt`` against
    the reference, ``knowledge_f1_parlai`` against the knowledge; as columns and one row per example."""
    rows = [{"id": i, "f1_parlai": f1_parlai(text, reference), "f1_kilt": f1_kilt(text, reference),
             "knowledge_f1_parlai": f1_parlai(text, known)}
            for i, text, reference, known in zip(ids, replies, references, knowledge, strict=True)]
    names = ("f1_parlai", "f1_kilt", "knowledge_f1_parlai")
    return {name: np.array([row[name] for row in rows], dtype=float) for name in names}, rows


def _generation_examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                       list[dict[str, Any]]]:
    answers = [gold.answers[i] for i in ids]
    references = [a["text"] for a in answers]
    columns, rows = response_rows(ids, values, references, [a["sentence"] for a in answers])
    rare: RareWords = gold.context["rare_words"]
    for row, text, reference in zip(rows, values, references, strict=True):
        row["rare_word_f1_parlai"] = rare.f1(text, reference)
    columns["rare_word_f1_parlai"] = np.array([row["rare_word_f1_parlai"] for row in rows], dtype=float)
    return columns, rows


def _selection_examples(gold: Gold, ids: Sequence[str], values: Sequence[Any]) -> tuple[dict[str, np.ndarray],
                                                                                      list[dict[str, Any]]]:
    rows = []
    for example_id, (title, sentence) in zip(ids, values, strict=True):
        answer = gold.answers[example_id]
        rows.append({
            "id": example_id,
            "title_r1": float(normalize_parlai(title) == normalize_parlai(answer["title"])),
            "passage_r1": float(normalize_parlai(answer["sentence"]) in normalize_parlai(sentence)),
        })
    return {name: np.array([row[name] for row in rows], dtype=float) for name in ("title_r1", "passage_r1")}, rows


TASKS = (
    Task(
        name="generation",
        description="the wizard's reply at each of ParlAI's wizard examples",
        format='one JSON object per line: {"dialogue": <index in the split>, "turn": <wizard turn index>, '
        '"text": "<your reply>"}',
        gold=_generation_gold,
        read=read_responses,
        examples=_generation_examples,
        metrics=(
            Metric("f1_parlai", PARLAI_F1, "token F1, ParlAI's normaliser (punctuation to spaces)", "f1_parlai"),
            Metric("f1_kilt", KILT_DOWNSTREAM, "token F1, SQuAD's normaliser (punctuation deleted)", "f1_kilt"),
            Metric("knowledge_f1_parlai", PARLAI_WOW, "f1_parlai against the checked sentence, not the reply",
                   "knowledge_f1_parlai"),
            Metric("rare_word_f1_parlai", PARLAI_RARE, "f1_parlai on the words rarer than data.json's cut-off "
                   "(the top half of its tokens are frequent); replies whose reference has no rare word left out",
                   "rare_word_f1_parlai"),
        ),
        weights=(bertscore("text"),),
    ),
    Task(
        name="selection",
        description="the knowledge sentence chosen at each of ParlAI's wizard examples",
        format='one JSON object per line: {"dialogue": <index>, "turn": <wizard turn index>, "title": "...", '
        '"sentence": "..."} (no_passages_used for both: no passage)',
        gold=_wizard_gold,
        read=read_selections,
        examples=_selection_examples,
        metrics=(
            Metric("title_r1_parlai", PARLAI_WOW, "the normalised title equals the checked sentence's", "title_r1"),
            Metric("passage_r1_parlai", PARLAI_WOW, "the normalised checked sentence is contained in the prediction",
                   "passage_r1"),
        ),
    ),
)
