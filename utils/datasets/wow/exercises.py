"""Checker of the Wizard of Wikipedia chapter's knowledge-selection exercise (the generic checks are in
:mod:`utils.teaching.exercises`).

A student's selector picks one knowledge candidate at each of ParlAI's wizard examples of a held-out
split. The check never trusts a score the student reports: it recomputes their accuracy from their
choices and the checked sentences, checks that the reported accuracy is that one, recomputes the
chapter's TF-IDF ranker (:func:`utils.datasets.wow.baselines.knowledge_selection`) on the same split
and asks for at least its accuracy. Its messages name the likely slip, never the expected value.
"""

from __future__ import annotations

import contextlib
import io
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from utils.teaching.checking import (
    ExerciseCheckError,
    Mistake,
    as_mapping,
    check_keys,
    compare_number,
    fail,
    passed,
    practice_check,
)
from utils.teaching.projects import HeldOut, in_assignment, project_inputs

from ...loading import LoadedSplit
from . import baselines, stats
from .parser import NO_PASSAGES_USED

#: What a student stores for "no passage used" (ParlAI's own candidate string is accepted too).
NO_PASSAGE_CHOICE = NO_PASSAGES_USED
#: A selector right at every turn where that is possible, on at least this many turns, has read the
#: answer (the ``selected`` flag, the labels or the reply): no honest selector comes near it.
_ORACLE_MIN_TURNS = 20

_Key = tuple[str, int]


class ShownChoices(Mapping[str, str]):
    """The accepted spellings of the candidates shown at one turn, each mapped to the candidate it names
    (its sentence's text, ``""`` for "no passage used"): the text itself, ParlAI's
    ``"<title> <sentence>"``, ``"no_passages_used"`` and ParlAI's ``"no_passages_used no_passages_used"``.

    The ParlAI spellings are matched, not stored: with a dict per turn, the check's peak was about
    100 MB higher on a full-size held-out split of the synthetic benchmark files.
    """

    __slots__ = ("_texts", "_titles")

    def __init__(self, texts: Sequence[str], titles: Sequence[str]) -> None:
        if len(texts) != len(titles):
            raise ValueError(f"ShownChoices: {len(texts)} texts but {len(titles)} titles")
        self._texts = tuple(texts)
        self._titles = tuple(titles)

    def __repr__(self) -> str:
        return f"ShownChoices({dict(self)!r})"

    def __getitem__(self, spelling: str) -> str:
        if not isinstance(spelling, str):
            raise KeyError(spelling)
        if spelling in (NO_PASSAGE_CHOICE, baselines.NO_PASSAGE_CANDIDATE):
            return ""
        # in the order the candidates were shown, a text before its ParlAI spelling: the first match wins
        for text, title in zip(self._texts, self._titles, strict=True):
            if spelling == text or (
                len(spelling) == len(title) + 1 + len(text)
                and spelling.startswith(title)
                and spelling.endswith(text)
                and spelling[len(title)] == " "
            ):
                return text
        raise KeyError(spelling)

    def __iter__(self) -> Iterator[str]:
        spellings = [NO_PASSAGE_CHOICE, baselines.NO_PASSAGE_CANDIDATE]
        for text, title in zip(self._texts, self._titles, strict=True):
            spellings += [text, f"{title} {text}"]
        return iter(dict.fromkeys(spellings))

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(frozen=True)
class SelectionTurn:
    """One of ParlAI's wizard examples as the check sees it: what may be chosen and what is right."""

    choices: Mapping[str, str]  # accepted spelling -> the candidate it names ("" = no passage used)
    checked: frozenset[str]  # the right candidates: the selected sentences, or "" for no passage used


def selection_turns(split: LoadedSplit) -> dict[_Key, SelectionTurn]:
    """ParlAI's wizard examples of ``split``, keyed by ``(dialogue id, turn index)``, in split order.

    Each sentence shown may be given as its text or as ParlAI's ``"<title> <sentence>"`` candidate,
    "no passage used" as ``"no_passages_used"`` or ParlAI's ``"no_passages_used no_passages_used"``
    (:class:`ShownChoices`). A turn whose checked sentence is not among those shown has no right
    candidate (a miss for every selector, as in the chapter's baseline).
    """
    examples = stats.wizard_turns(split)
    examples = examples[examples["parlai_example"]]
    evidence = split.evidence(["dialogue_id", "turn_index", "text", "title", "selected"])
    dialogue_ids = evidence["dialogue_id"].to_numpy()
    turn_indexes = evidence["turn_index"].to_numpy()
    texts = evidence["text"].fillna("").to_numpy()
    titles = evidence["title"].fillna("").to_numpy()
    selected = evidence["selected"].to_numpy(dtype=bool)
    # The table is in turn order, so a turn's rows are one run of consecutive rows; were a turn met
    # again further on, its later run would follow the earlier one, in table order.
    new_turn = np.ones(len(evidence), dtype=bool)
    new_turn[1:] = (dialogue_ids[1:] != dialogue_ids[:-1]) | (turn_indexes[1:] != turn_indexes[:-1])
    starts = np.flatnonzero(new_turn).tolist()
    stops = [*starts[1:], len(evidence)] if starts else []  # a split may show no evidence at all
    shown: dict[_Key, list[np.ndarray]] = {}
    for start, stop in zip(starts, stops, strict=True):
        shown.setdefault((dialogue_ids[start], int(turn_indexes[start])), []).append(np.arange(start, stop))
    nothing_shown = np.empty(0, dtype=np.int64)
    turns = {}
    for dialogue_id, turn_index, source in zip(
        examples["dialogue_id"], examples["turn_index"], examples["checked_source"], strict=True
    ):
        key = (dialogue_id, int(turn_index))
        rows = np.concatenate(shown[key]) if key in shown else nothing_shown
        checked = {""} if source == NO_PASSAGES_USED else set()
        checked.update(texts[rows[selected[rows]]].tolist())
        turns[key] = SelectionTurn(ShownChoices(texts[rows].tolist(), titles[rows].tolist()), frozenset(checked))
    return turns


def _key(key: Any) -> _Key | None:
    """A ``(dialogue id, turn index)`` pair from what a student may have used as a key, else None."""
    if isinstance(key, (tuple, list)) and len(key) == 2:
        dialogue_id, turn_index = key
        if isinstance(turn_index, (int, np.integer)) and not isinstance(turn_index, bool):
            return str(dialogue_id), int(turn_index)
    return None


def _choices(answer: Any, split: LoadedSplit, turns: Mapping[_Key, SelectionTurn], what: str) -> dict[_Key, str]:
    """The student's choices, checked to cover exactly ParlAI's examples with candidates shown there."""
    given = as_mapping(answer, what)
    choices: dict[_Key, Any] = {}
    for key, value in given.items():
        pair = _key(key)
        if pair is None:
            fail(
                what,
                f"the keys should be (dialogue id, turn index) pairs such as {next(iter(turns))!r}, "
                f"but one is {key!r}.",
            )
        choices[pair] = value
    extra = [key for key in choices if key not in turns]
    if extra:
        wizard = stats.wizard_turns(split)
        wizard_keys = set(zip(wizard["dialogue_id"], wizard["turn_index"].astype(int), strict=True))
        left_out = [key for key in extra if key in wizard_keys]
        split_name = split.provenance.split
        elsewhere = [key for key in extra if not key[0].startswith(f"{split_name}/")]
        if elsewhere:
            fail(what, f"{len(elsewhere)} key(s) name dialogues of another split, for example {elsewhere[0]!r}: "
                        f"choose for the turns of the split passed to the check ({split_name}).")
        if left_out:
            fail(
                what,
                f"{len(left_out)} key(s) are wizard turns that ParlAI makes no example of, for example "
                f"{left_out[0]!r}: the last wizard turn of a dialogue the wizard opened. Leave them out, as "
                "the chapter's baseline does (the `parlai_example` column of stats.wizard_turns).",
            )
        fail(what, f"{len(extra)} key(s) are not wizard turns of this split, for example {extra[0]!r}: "
                    "choose only at the wizard's turns.")
    missing = [key for key in turns if key not in choices]
    if missing:
        fail(what, f"{len(missing)} of {len(turns)} wizard examples have no choice, for example {missing[0]!r}: "
                    "choose one candidate at every one of ParlAI's wizard examples.")
    not_text = [key for key, value in choices.items() if not isinstance(value, str)]
    if not_text:
        key = not_text[0]
        fail(what, f"the choice for {key!r} is a {type(choices[key]).__name__}; store the chosen sentence's text "
                    f"(or {NO_PASSAGE_CHOICE!r}).")
    unknown = [key for key, value in choices.items() if value not in turns[key].choices]
    if unknown:
        fail(
            what,
            f"{len(unknown)} choice(s) are not among the candidates shown at their turn, for example at "
            f"{unknown[0]!r}. Store a sentence shown (its `text`, exactly as written) or {NO_PASSAGE_CHOICE!r}; "
            "never the wizard's reply or a text of your own.",
        )
    return {key: turns[key].choices[value] for key, value in choices.items()}


def _accuracy(chosen: Mapping[_Key, str], checked: Mapping[_Key, frozenset[str]]) -> float:
    return float(np.mean([chosen[key] in right for key, right in checked.items()]))


def tfidf_choices(split: LoadedSplit) -> dict[_Key, str]:
    """The chapter's TF-IDF ranker's choice at each of ParlAI's wizard examples ("" = no passage used)."""
    _, examples = baselines.knowledge_selection(split)
    return {
        (dialogue_id, int(turn_index)): text
        for dialogue_id, turn_index, text in zip(
            examples["dialogue_id"], examples["turn_index"], examples["predicted_text"], strict=True
        )
    }


#: The knowledge-selection project (wow-ex-4) is scored like a shared task in a course: students get
#: the candidates of ``valid_unseen``'s wizard examples without what the wizard checked
#: (:mod:`utils.teaching.projects`).
SELECTION_EXERCISE = "wow-ex-4"
#: Where the wizard used no passage: a candidate of every example.
NO_PASSAGE = NO_PASSAGES_USED
#: The columns a candidate table has that say which candidate is right.
SELECTION_LABELS = ("selected", "checked_source", "right")
_EXAMPLE_COLUMNS = ("dialogue_id", "turn_index", "topic", "apprentice", "wizard_before")


# The last split's candidate table, remembered: the chapter's exercise asks for one split's up to four
# times (its inputs, the accuracy, the misses; 100 MB of build peak each on a half-size synthetic
# held-out split) and each caller gets its own frame over the same columns (pandas copies on write).
# One slot, held weakly: a split fitted on and left (the seen one) does not keep its table.
_LAST_TABLE: list[tuple[weakref.ref[LoadedSplit], pd.DataFrame]] = []


def candidate_table(split: LoadedSplit, *, labels: bool = True) -> pd.DataFrame:
    """One row per knowledge candidate at each of ParlAI's wizard examples of ``split``: every sentence
    shown, plus a "no passage used" row, with what a selector may read before the reply (the topic,
    the apprentice's last message, the wizard's message before it, the candidate's text, title, origin
    and place in its passage) and an ``id`` per row; with ``labels``, also which one is ``right``
    (the checked sentence, or "no passage used" where the wizard used none)."""
    if not (_LAST_TABLE and _LAST_TABLE[0][0]() is split):
        _LAST_TABLE.clear()  # the previous table goes before the next is built
        _LAST_TABLE.append((weakref.ref(split), _candidate_table(split)))
    table = _LAST_TABLE[0][1]
    columns = ["id", *_EXAMPLE_COLUMNS, "text", "title", "origin", "position"]
    return table[columns + list(SELECTION_LABELS)] if labels else table[columns]


def _candidate_table(split: LoadedSplit) -> pd.DataFrame:
    # The messages as Python strings: the merges below then copy a reference to each, not its text.
    turns = split.turns(["dialogue_id", "turn_index", "text"]).astype({"text": object})
    said = turns.groupby("dialogue_id", sort=False)["text"]
    turns = turns.assign(apprentice=said.shift(1), wizard_before=said.shift(2)).drop(columns="text")
    examples = stats.wizard_turns(split)
    examples = examples[examples["parlai_example"]][["dialogue_id", "turn_index", "topic", "checked_source"]]
    examples = examples.merge(turns, on=["dialogue_id", "turn_index"])
    shown = split.evidence(["dialogue_id", "turn_index", "id", "text", "title", "origin", "selected"])
    # ids read "<title>#<k>": cut in Arrow, not split into a Python list per row (36 MB at the peak on a
    # half-size synthetic held-out split)
    shown["position"] = shown["id"].str.replace(r"^.*#", "", regex=True).astype(int)
    shown = shown.drop(columns="id")  # read into position: not carried through the sorts below
    # A sentence shown twice at a turn (in two passages) is one candidate: keep the checked copy.
    shown = shown.sort_values("selected", ascending=False, kind="stable")
    shown = shown.drop_duplicates(["dialogue_id", "turn_index", "text"]).sort_index()
    shown = shown.merge(examples, on=["dialogue_id", "turn_index"])
    no_passage = examples.assign(text=NO_PASSAGE, title="", origin="none", position=-1, selected=False)
    # in the dtypes of the sentences' columns: concatenated with pandas' default string columns, which
    # Arrow backs, the shared strings were spelt out row by row (+40 MB, and 30 more to sort them, on a
    # half-size synthetic held-out split)
    no_passage = no_passage.astype({name: shown[name].dtype for name in ("text", "title", "origin")})
    table = pd.concat([shown, no_passage], ignore_index=True)
    table["right"] = table["selected"] | ((table["origin"] == "none") & (table["checked_source"] == NO_PASSAGE))
    table = table.sort_values(["dialogue_id", "turn_index"], kind="stable").reset_index(drop=True)
    number = table.groupby(["dialogue_id", "turn_index"], sort=False).cumcount().astype(str)
    table.insert(0, "id", table["dialogue_id"].astype(str) + "/" + table["turn_index"].astype(str) + "#" + number)
    return table


def selection_inputs(split: LoadedSplit) -> pd.DataFrame:
    """The candidates of wow-ex-4, as :func:`candidate_table` gives them without their labels."""
    return candidate_table(split, labels=False)


HELD_OUT = [
    HeldOut(
        exercise=SELECTION_EXERCISE,
        dataset="wow",
        splits=("valid_unseen",),
        inputs=selection_inputs,
        labels=SELECTION_LABELS,
        group_by=_EXAMPLE_COLUMNS,
    )
]


def _check_released_choices(choices: Any, what: str) -> None:
    """In a course assignment: one choice per released example, each one of its candidates."""
    inputs = project_inputs(SELECTION_EXERCISE)
    offered: dict[tuple[str, int], set[str]] = {}
    for dialogue_id, turn_index, text in zip(inputs["dialogue_id"], inputs["turn_index"], inputs["text"], strict=True):
        offered.setdefault((str(dialogue_id), int(turn_index)), set()).add(str(text))
    given = as_mapping(choices, what)
    keyed = {}
    for key, value in given.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            fail(what, f"{key!r} is not a key of an example: use (dialogue_id, turn_index) tuples.")
        keyed[(str(key[0]), int(key[1]))] = value
    check_keys(
        keyed,
        list(offered),
        what,
        extra="{count} key(s) are not examples of the released inputs, for example {example!r}.",
        missing="{count} of the {total} released examples have no choice, for example {example!r}.",
    )
    for key, value in keyed.items():
        if value not in offered[key]:
            fail(what, f"the choice for {key!r} is not one of that example's candidates: give a candidate's `text` "
                        f"exactly as in the inputs, or {NO_PASSAGE!r}.")
    passed(what, f"{len(offered)} choices, one per released example: they are scored against the sentences the "
                  "wizards checked, which your teacher keeps, when the notebook is graded")


@practice_check
def check_knowledge_selection(choices: Any, accuracy: Any, split: LoadedSplit) -> None:
    """``choices`` maps each of ParlAI's wizard examples of ``split`` (``(dialogue id, turn index)``) to
    the candidate a selector picked, ``accuracy`` is their accuracy against the checked sentence, and it
    reaches the chapter's TF-IDF ranker's on the same split."""
    what = "knowledge selection"
    if in_assignment(SELECTION_EXERCISE):  # a course assignment: what the wizards checked is the teacher's
        _check_released_choices(choices, what)
        return
    if not isinstance(split, LoadedSplit):
        raise ExerciseCheckError(
            f"{what}: pass the loaded split (for example utils.load('wow', 'valid_unseen')) as the third "
            f"argument, not a {type(split).__name__}."
        )
    turns = selection_turns(split)
    if not turns:
        raise ExerciseCheckError(f"{what}: the split passed holds no wizard examples; do not rebind its name.")
    chosen = _choices(choices, split, turns, what)
    checked = {key: turn.checked for key, turn in turns.items()}
    del turns  # the candidates shown: freed before the ranker below spells out the split's evidence again
    right = [chosen[key] in answers for key, answers in checked.items()]
    possible = [bool(answers) for answers in checked.values()]
    if len(checked) >= _ORACLE_MIN_TURNS and right == possible:
        fail(what, "your choices are the checked sentence at every turn where it was shown: a selector may not "
                    "read the `selected` flag, the turn's labels or the wizard's reply.")
    expected = float(np.mean(right))
    answerable = [hit for hit, can in zip(right, possible, strict=True) if can]
    used = [hit for hit, answers in zip(right, checked.values(), strict=True) if "" not in answers]
    mistakes = [
        Mistake(float(np.mean(answerable)) if answerable else np.nan,
                 "you left out the turns whose checked sentence is not among those shown; count them as misses, "
                 "as the chapter does."),
        Mistake(float(np.mean(used)) if used else np.nan,
                 "you left out the turns where the wizard used no passage; every wizard example counts."),
        Mistake(float(sum(right)), "this is the number of right choices; divide by the number of examples."),
    ]
    if accuracy is not None:  # None: the grader's test, which scores the choices alone
        with contextlib.redirect_stdout(io.StringIO()):  # one verdict for the whole exercise, printed below
            compare_number(accuracy, expected, what=f"{what}: your accuracy, recomputed from your choices",
                            share=True, mistakes=[m for m in mistakes if not np.isnan(m.value)])
    baseline = _accuracy(tfidf_choices(split), checked)
    if expected < baseline:
        fail(what, "your choices and your accuracy agree, but your selector does not yet reach the accuracy of the "
                    "chapter's TF-IDF ranker on this split. Improve the selector (see the hints).")
    passed(what, f"{len(checked)} wizard examples; at least the TF-IDF ranker's accuracy on them")


__all__ = [
    "NO_PASSAGE_CHOICE",
    "SelectionTurn",
    "ShownChoices",
    "check_knowledge_selection",
    "selection_turns",
    "tfidf_choices",
]
