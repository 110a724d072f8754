"""Checkers for the chapters' exercises: a student passes their answer and the data they used.

Every checker recomputes the expected result from the dialogues it is given (a loaded split or a
list of :class:`~utils.records.Dialogue`), so it is right for the demo sample, a partial copy and the
full official split alike; no answer is written down anywhere.

The checks are **practice**: each prints one line, starting with ``Correct`` or with ``Not yet`` and
the likely reason (the wrong role, a percentage where a share was asked, turns counted instead of
dialogues), and never raises, so no traceback mode (``%xmode Verbose``, ``%debug``) can show the
values it compared. It says neither "too high" nor "too low": a verdict to bisect on would hand
out the answer. Grades come from the course's hidden tests (:mod:`utils.teaching.course`), which call
:func:`graded` with data they load themselves.

Usage in a chapter::

    from utils.teaching.exercises import check_turn_count
    check_turn_count(n_wizard_turns, split, role="wizard")
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from numbers import Real
from typing import Any, NoReturn

import numpy as np
import pandas as pd
import pyarrow as pa

from utils._cache import json_values
from utils.loading import LoadedSplit
from utils.metrics import selected_evidence_f1
from utils.records import ROLES, SEEKER, WIZARD, Dialogue, Turn
from utils.sources import source_of
from utils.text import tokenizer_for

#: Relative tolerance for computed floats: answers computed another reasonable way (numpy vs pure
#: Python, mean of means avoided) agree far closer than this, and wrong methods differ far more.
REL_TOL = 1e-6
ABS_TOL = 1e-9
#: An answer that is not a count may be rounded to this many decimals (the exercises ask for at
#: least three): half a unit of the last decimal is accepted on top of :data:`REL_TOL`.
DECIMALS = 3


class ExerciseCheckError(AssertionError):
    """An answer did not match; the message says what is off without giving the answer away."""


class CheckOptionError(ValueError):
    """A check was called with an option it does not have (the chapter's mistake, not the student's)."""


_Check = Callable[..., None]


def practice_check(check: _Check) -> _Check:
    """A checker that prints its verdict instead of raising.

    The checker's own frames hold the expected value; an exception escaping them would show it to
    ``%xmode Verbose`` or ``%debug``. So the verdict is printed and nothing escapes but the misuse
    of a check's own options (:class:`CheckOptionError`, raised before anything is computed). :func:`graded`
    runs the raising checker for the course's hidden tests.
    """

    @functools.wraps(check)
    def practice(*args: Any, **options: Any) -> None:
        try:
            check(*args, **options)
        except ExerciseCheckError as problem:
            message = str(problem) if str(problem).startswith("Not yet") else f"Not yet: {problem}"
        except CheckOptionError as problem:
            raise CheckOptionError(*problem.args) from None
        except Exception as problem:
            message = f"Not yet: the check could not read your answer ({type(problem).__name__}: {problem})."
        else:
            return
        print(message)

    del practice.__wrapped__  # introspection would lead straight back to the raising function
    _RAISING[practice] = check
    return practice


#: The raising checker behind each practice check, for :func:`graded`.
_RAISING: dict[Callable[..., None], _Check] = {}


def graded(check: _Check, answer: Any, *data: Any, exercise: str = "", **options: Any) -> None:
    """Raise :class:`AssertionError` unless ``answer`` passes ``check`` on ``data``.

    For the course's autograded tests: they load ``data`` themselves and call this. Under grading
    (nbgrader sets ``NBGRADER_EXECUTION``; the atlas's grader runs the test outside the student's
    kernel, :mod:`utils.teaching.grading`) a failure raises, with a message that names the exercise and what is
    off, never the expected value, and a traceback cut at this function. Anywhere else (the book, a
    teacher's JupyterLab) the test checks the chapter's own reference solution: a failure there says
    something about the data loaded (a user's copy, a partial file), so it is shown as a note under
    the exercise instead of stopping the chapter.
    """
    raising = _RAISING.get(check, check)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            raising(answer, *data, **options)
    except ExerciseCheckError as problem:
        message = str(problem)
    else:
        return
    message = f"{exercise + ': ' if exercise else ''}{message}"
    if os.environ.get("NBGRADER_EXECUTION"):
        raise AssertionError(message) from None
    from IPython.display import display

    from utils.book.render.html import SafeHTML, esc

    note = (
        f"The chapter's reference solution did not pass its autograded test on the data loaded here: {message} "
        "A course graded on these data would give the reference answer no points for this test: check which "
        "data the chapter loaded (its banner at the top) before setting this exercise."
    )
    display(SafeHTML(f'<div class="admonition warning" role="note"><p>{esc(note)}</p></div>'))


@dataclass(frozen=True)
class _Mistake:
    """A value a typical wrong method produces, and what to tell the student who produced it."""

    value: float
    message: str


# -- comparing answers -----------------------------------------------------------------------------


def _fail(what: str, problem: str) -> NoReturn:
    raise ExerciseCheckError(f"Not yet: {what}: {problem}")


def _passed(what: str, detail: str = "") -> None:
    print(f"Correct: {what}{' (' + detail + ')' if detail else ''}.")


def _is_close(a: float, b: float, rel_tol: float = REL_TOL) -> bool:
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=ABS_TOL)


def _rounds_to(value: float, expected: float, rel_tol: float = REL_TOL) -> bool:
    """``value`` is ``expected``, computed another way or rounded to :data:`DECIMALS` decimals."""
    return _is_close(value, expected, rel_tol) or abs(value - expected) <= 0.5 * 10**-DECIMALS + ABS_TOL


def _as_number(answer: Any, what: str) -> float:
    """The answer as a float, or a failure naming the type actually given."""
    if answer is None or answer is Ellipsis or answer is NotImplemented:
        _fail(what, "the answer is empty (None or ...): assign your result to the variable first.")
    if isinstance(answer, bool):
        _fail(what, "the answer is True/False, but a number was asked for.")
    if hasattr(answer, "item") and getattr(answer, "size", 1) == 1:  # numpy / pandas scalars
        answer = answer.item()
    if not isinstance(answer, Real):
        kind = type(answer).__name__
        hint = (
            " Take a single number out of it (for example with len(), .sum() or .mean())."
            if hasattr(answer, "__len__")
            else ""
        )
        _fail(what, f"expected a single number, got a {kind}.{hint}")
    value = float(answer)
    if math.isnan(value):
        _fail(what, "the answer is NaN: did you divide by zero or take the mean of an empty selection?")
    return value


def _compare_number(
    answer: Any,
    expected: float,
    *,
    what: str,
    integer: bool = False,
    share: bool = False,
    mistakes: Iterable[_Mistake] = (),
    rel_tol: float = REL_TOL,
) -> None:
    """Check one number; on failure explain the most likely mistake, never the expected value."""
    value = _as_number(answer, what)
    if _is_close(value, expected, rel_tol) or (not integer and _rounds_to(value, expected, rel_tol)):
        _passed(what)
        return
    if integer and not float(value).is_integer():
        _fail(what, f"a count is a whole number, but you gave {value!r}.")
    if share and 1 < value <= 100 and _rounds_to(value / 100, expected, rel_tol):
        _fail(what, "this looks like a percentage; give a fraction between 0 and 1 instead.")
    # Several mistakes can give the same number on small data: name every one that fits.
    matching = [
        mistake.message
        for mistake in mistakes
        if not _rounds_to(mistake.value, expected, rel_tol) and _rounds_to(value, mistake.value, rel_tol)
    ]
    if matching:
        _fail(what, " Or: ".join(dict.fromkeys(matching)))
    if share and not 0 <= value <= 1:
        _fail(what, f"a share lies between 0 and 1, but you gave {value:g}.")
    # No "too high" or "too low": a direction to bisect on would give the answer away.
    _fail(what, "not the expected value. Re-read the task: which split, which role, which turns or items count?")


def _as_mapping(answer: Any, what: str) -> dict[Any, Any]:
    """A dict from a dict, a pandas Series, or a one-column DataFrame."""
    if answer is None or answer is Ellipsis:
        _fail(what, "the answer is empty (None or ...): assign your result to the variable first.")
    if hasattr(answer, "to_dict") and hasattr(answer, "columns"):  # DataFrame
        if len(answer.columns) != 1:
            _fail(
                what,
                f"expected one value per key (a dict or a Series), got a table with columns {list(answer.columns)}.",
            )
        answer = answer[answer.columns[0]]
    if hasattr(answer, "to_dict"):  # Series
        index = getattr(answer, "index", None)
        if index is not None and not index.is_unique:
            repeated = index[index.duplicated()][0]
            _fail(what, f"the key {repeated!r} occurs more than once: give one value per key.")
        answer = answer.to_dict()
    if not isinstance(answer, Mapping):
        _fail(what, f"expected a dict (or a pandas Series) from key to value, got a {type(answer).__name__}.")
    return dict(answer)


def _compare_mapping(
    answer: Any,
    expected: Mapping[Any, float],
    *,
    what: str,
    key_name: str,
    share: bool = False,
    integer: bool = False,
    rel_tol: float = REL_TOL,
) -> None:
    """Check a key -> number mapping: same keys, each value right; name the wrong keys only."""
    given = _as_mapping(answer, what)
    missing = [key for key in expected if key not in given]
    extra = [key for key in given if key not in expected]
    if missing or extra:
        _fail(what, _key_mismatch(given, expected, missing, extra, key_name))
    values = {key: _as_number(given[key], f"{what} [{key!r}]") for key in expected}
    if share and any(not 0 <= value <= 1 for value in values.values()):
        _fail(what, _not_shares(values, expected, rel_tol))
    for key, value in values.items():
        if integer and not float(value).is_integer():
            _fail(what, f"the value for {key!r} should be a whole count, not {value!r}.")
    wrong = [
        key
        for key, target in expected.items()
        if not (_is_close(values[key], target, rel_tol) or (not integer and _rounds_to(values[key], target, rel_tol)))
    ]
    if wrong:
        _fail(what, _keys_off(wrong, len(expected)))
    _passed(what, f"{len(expected)} {key_name}{'' if len(expected) == 1 else 's'}")


def _key_mismatch(
    given: Mapping[Any, Any], expected: Mapping[Any, float], missing: list[Any], extra: list[Any], key_name: str
) -> str:
    """What is wrong with a mapping's keys, and the likeliest reason."""
    parts = []
    if missing:
        parts.append(f"{len(missing)} {key_name}(s) missing, for example {missing[0]!r}")
    if extra:
        parts.append(f"{len(extra)} {key_name}(s) that do not occur in these data, for example {extra[0]!r}")
    folded = {str(key).casefold() for key in expected}
    if any(str(key).casefold() in folded for key in extra):
        hint = "Use the exact names found in the data: these differ only in case."
    elif missing and not extra:
        hint = f"Every {key_name} that occurs needs a value: did you look at only part of the data?"
    elif extra and not missing and any(_nonzero(given[key]) for key in extra):
        # a value for a key these data lack: the answer was computed on other data (another split)
        hint = f"Your answer gives values to {key_name}s these data do not have: was it computed on another split?"
    elif extra and not missing:
        hint = f"Leave out the {key_name}s that do not occur (a count or share of 0 is not asked for)."
    else:
        hint = "Use the names exactly as the data write them."
    return "; ".join(parts) + ". " + hint


def _not_shares(values: Mapping[Any, float], expected: Mapping[Any, float], rel_tol: float) -> str:
    """Why values of which one lies outside 0..1 are not shares: percentages, counts, or that one value."""
    key, value = next((k, v) for k, v in values.items() if not 0 <= v <= 1)
    if all(_rounds_to(values[k] / 100, expected[k], rel_tol) for k in expected):
        return "these look like percentages; give fractions between 0 and 1 instead."
    if all(float(v).is_integer() for v in values.values()):
        return "these look like counts; divide each by the total it is a share of."
    return f"the value for {key!r} is {value:g}, but a share lies between 0 and 1."


def _keys_off(wrong: list[Any], total: int) -> str:
    """Which keys are off, never in which direction (that would allow bisecting to the answer)."""
    shown = ", ".join(repr(key) for key in wrong[:3])
    more = f" and {len(wrong) - 3} more" if len(wrong) > 3 else ""
    return f"{len(wrong)} of {total} values are off: {shown}{more}."


def _nonzero(value: Any) -> bool:
    try:
        return bool(float(value))
    except (TypeError, ValueError):
        return True


def _dialogues(data: Iterable[Dialogue], what: str) -> Sequence[Dialogue]:
    """The dialogues of a loaded split or a list, checked to be dialogues.

    A loaded split is walked as it is, never copied into a list: on a full-size split that list held
    every evidence object at once (gigabytes for Wizard of Wikipedia's train split).
    """
    if isinstance(data, Dialogue):
        return [data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)) and not len(data):
        raise ExerciseCheckError(
            f"{what}: the data passed to the check hold no dialogues. Pass the loaded split, and do not "
            "rebind its name in your answer."
        )
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        if len(data) and not isinstance(data[0], Dialogue):
            raise ExerciseCheckError(
                f"{what}: the second argument should be the loaded split (for example the result of "
                f"utils.load(...)), but it holds {type(data[0]).__name__} objects."
            )
        return data
    try:
        items = list(data)
    except TypeError:
        raise ExerciseCheckError(
            f"{what}: pass the loaded split (or a list of dialogues) as the second argument, "
            f"not a {type(data).__name__}."
        ) from None
    if items and not isinstance(items[0], Dialogue):
        raise ExerciseCheckError(
            f"{what}: the second argument should be the loaded split (for example the result of "
            f"utils.load(...)), but it holds {type(items[0]).__name__} objects."
        )
    return items


def _turns(dialogues: Iterable[Dialogue], role: str | None = None) -> list[Turn]:
    return list(_walk_turns(dialogues, role))


def _walk_turns(dialogues: Iterable[Dialogue], role: str | None = None) -> Iterator[Turn]:
    """The turns (of ``role``), one dialogue at a time: for checks that need to see each turn once."""
    return (turn for dialogue in dialogues for turn in dialogue.turns if role is None or turn.role == role)


class _TurnFacts:
    """What the count and share checks read of each turn and evidence piece, as arrays.

    A loaded split's come from its cached tables, only the columns a check needs, without rebuilding
    a dialogue (a walk of a full-size split rebuilds millions of evidence objects: seconds, for a
    count); dialogues in a list are walked once. Either way every check below computes its expected
    value from these arrays alone, so the two sources cannot disagree about the rules.
    """

    def __init__(self, dialogues: Sequence[Dialogue]) -> None:
        self._dialogues = dialogues
        self._split = dialogues if isinstance(dialogues, LoadedSplit) else None

    def __len__(self) -> int:
        return len(self._dialogues)

    @cached_property
    def _walked(self) -> dict[str, Any]:
        columns: dict[str, list[Any]] = {
            "dialogue_index": [], "role": [], "evidence_count": [], "selected_count": [], "labels": []
        }
        evidence: dict[str, list[Any]] = {"origin": [], "selected": []}
        for position, dialogue in enumerate(self._dialogues):
            for turn in dialogue.turns:
                columns["dialogue_index"].append(position)
                columns["role"].append(turn.role)
                columns["evidence_count"].append(len(turn.evidence))
                columns["selected_count"].append(len(turn.selected_evidence))
                columns["labels"].append(turn.labels)
                evidence["origin"].extend(item.origin for item in turn.evidence)
                evidence["selected"].extend(item.selected for item in turn.evidence)
        return {**columns, "evidence": evidence}

    def _column(self, name: str) -> np.ndarray:
        if self._split is not None:
            return self._split.arrow("turns", [name]).column(name).to_numpy(zero_copy_only=False)
        return np.asarray(self._walked[name], dtype=object if name == "role" else np.int64)

    @cached_property
    def roles(self) -> np.ndarray:
        """The role of every turn, in order."""
        return self._column("role")

    @cached_property
    def turns_per_dialogue(self) -> np.ndarray:
        """How many turns each dialogue has (0 for one with none)."""
        return np.bincount(self._column("dialogue_index").astype(np.int64), minlength=len(self))

    @cached_property
    def selected_counts(self) -> np.ndarray:
        """How many of its evidence pieces every turn selects."""
        return self._column("selected_count")

    def count(self, role: str | None) -> int:
        """How many turns ``role`` speaks (``None``: all turns)."""
        return len(self.roles) if role is None else int(np.count_nonzero(self.roles == role))

    def labels(self, role: str | None) -> list[dict[str, list[str]]]:
        """The labels of the turns of ``role`` (``None``: all), in order; decoded only for those turns."""
        if self._split is None:
            return [labels for labels, r in zip(self._walked["labels"], self.roles, strict=True) if role in (None, r)]
        stored = self._split.arrow("turns", ["labels"]).column("labels")
        if role is not None:
            stored = stored.filter(pa.array(self.roles == role))
        return json_values(stored)

    def evidence(self) -> pd.DataFrame:
        """One row per evidence piece: its turn's ``role``, its ``origin`` and whether it is ``selected``."""
        if self._split is None:
            frame = pd.DataFrame(self._walked["evidence"], columns=["origin", "selected"])
            counts = np.asarray(self._walked["evidence_count"], dtype=np.int64)
        else:
            # as stored: the origin a category (a byte or two per row, not a string), millions of rows
            frame = self._split.arrow("evidence", ["origin", "selected"]).to_pandas()
            counts = self._column("evidence_count")
        roles = pd.Categorical(self.roles)
        # evidence rows lie in turn order: each turn's role repeated over its pieces, as a category
        role_column: Any = pd.Categorical.from_codes(np.repeat(roles.codes, counts), roles.categories)
        frame.insert(0, "role", role_column)
        return frame


def _check_role(role: str | None) -> None:
    if role is not None and role not in ROLES:
        raise CheckOptionError(f"role must be one of {', '.join(ROLES)} or None, not {role!r}")


def _language(dialogue: Dialogue) -> str:
    """``en``, ``zh`` or ``ja`` for a dialogue, from the declaration it carries."""
    return source_of(dialogue).language_code


# -- counts and shares over turns --------------------------------------------------------------------


@practice_check
def check_turn_count(answer: Any, data: Iterable[Dialogue], role: str | None = WIZARD) -> None:
    """``answer`` is the number of turns spoken in ``role`` (``None``: all turns) in ``data``."""
    _check_role(role)
    what = f"number of {role or 'all'} turns"
    facts = _TurnFacts(_dialogues(data, what))
    expected = facts.count(role)
    other = SEEKER if role == WIZARD else WIZARD
    mistakes = [
        _Mistake(facts.count(None), "this is the number of ALL turns; count only one role."),
        _Mistake(len(facts), "this is the number of dialogues, not of turns."),
    ]
    if role is not None:
        mistakes.append(_Mistake(facts.count(other), f"this counts the {other} turns instead."))
    _compare_number(answer, expected, what=what, integer=True, mistakes=mistakes)


@practice_check
def check_mean_turns(answer: Any, data: Iterable[Dialogue]) -> None:
    """``answer`` is the mean number of turns per dialogue in ``data``."""
    what = "mean number of turns (utterance records) per dialogue"
    facts = _TurnFacts(_dialogues(data, what))
    if not len(facts):
        raise ExerciseCheckError(f"{what}: the data hold no dialogues, so there is no mean to check.")
    counts = facts.turns_per_dialogue
    expected = int(counts.sum()) / len(counts)
    wizard_mean = facts.count(WIZARD) / len(facts)
    mistakes = [
        _Mistake(wizard_mean, "this is the mean number of wizard turns only; count every turn."),
        _Mistake(int(counts.sum()), "this is the total number of turns; divide by the number of dialogues."),
        _Mistake(int(np.sort(counts)[len(counts) // 2]), "this looks like the median; the task asks for the mean."),
    ]
    _compare_number(answer, expected, what=what, mistakes=mistakes)


@practice_check
def check_selected_share(answer: Any, data: Iterable[Dialogue], *, without: bool = False) -> None:
    """``answer`` is the share of wizard turns WITH (``without=True``: WITHOUT) any selected evidence."""
    what = f"share of wizard turns {'without' if without else 'with'} selected evidence"
    facts = _TurnFacts(_dialogues(data, what))
    with_selection = _selected_share(facts)
    if with_selection is None:
        raise ExerciseCheckError(f"{what}: the data hold no wizard turns.")
    expected = 1 - with_selection if without else with_selection
    all_turns_share = int(np.count_nonzero(facts.selected_counts)) / facts.count(None)
    mistakes = [
        _Mistake(
            1 - expected, f"you computed the opposite share (turns {'with' if without else 'without'} a selection)."
        ),
        _Mistake(
            1 - all_turns_share if without else all_turns_share,
            "the denominator should be the wizard turns only, not all turns.",
        ),
    ]
    _compare_number(answer, expected, what=what, share=True, mistakes=mistakes)


@practice_check
def check_mean_evidence(
    answer: Any, data: Iterable[Dialogue], *, per: str = "dialogue", origin: str | None = None
) -> None:
    """``answer`` is the mean number of evidence pieces (of one ``origin``, or all) per dialogue or per wizard turn."""
    if per not in ("dialogue", "wizard turn"):
        raise CheckOptionError("per must be 'dialogue' or 'wizard turn'")
    kind = f"{origin!r} evidence pieces" if origin else "evidence pieces"
    what = f"mean number of {kind} per {per}"
    facts = _TurnFacts(_dialogues(data, what))
    evidence = facts.evidence()
    if per == "dialogue":
        units = len(facts)
    else:
        units = facts.count(WIZARD)
        evidence = evidence[evidence["role"] == WIZARD]
    if origin is not None:
        evidence = evidence[evidence["origin"] == origin]
    total, selected = len(evidence), int(evidence["selected"].sum())
    if units == 0:
        raise ExerciseCheckError(f"{what}: the data hold no {per}s.")
    mistakes = [
        _Mistake(selected / units, "you counted only the selected (cited) pieces; count every piece shown."),
        _Mistake(float(total), f"this is the total; divide by the number of {per}s."),
    ]
    if per == "dialogue" and facts.count(None) and facts.count(None) != units:
        mistakes.append(_Mistake(total / facts.count(None), "this is per turn (utterance); divide by the number "
                                                           "of dialogues (sessions) instead."))
    _compare_number(answer, total / units, what=what, mistakes=mistakes)


# -- labels and origins --------------------------------------------------------------------------


def _label_counts(data: Iterable[Dialogue] | _TurnFacts, scheme: str, role: str | None = WIZARD) -> Counter[str]:
    """How many turns (of ``role``) carry each label of ``scheme`` (a turn counts once per label)."""
    facts = data if isinstance(data, _TurnFacts) else _TurnFacts(_dialogues(data, "label counts"))
    return Counter(label for labels in facts.labels(role) for label in dict.fromkeys(labels.get(scheme, [])))


@practice_check
def check_label_counts(answer: Any, data: Iterable[Dialogue], scheme: str, role: str | None = WIZARD) -> None:
    """``answer`` maps each ``scheme`` label (``"BEGIN"``, ``"action"``, ...) to the number of turns carrying it."""
    _check_role(role)
    what = f"number of {role or 'all'} turns per {scheme} label"
    expected = _label_counts(_TurnFacts(_dialogues(data, what)), scheme, role)
    if not expected:
        raise ExerciseCheckError(f"{what}: no turn in these data carries a {scheme!r} label; check the scheme name.")
    _compare_mapping(answer, expected, what=what, key_name="label", integer=True)


@practice_check
def check_origin_shares(answer: Any, data: Iterable[Dialogue], *, selected_only: bool = False) -> None:
    """``answer`` maps each evidence ``origin`` to its share of the evidence on wizard turns.

    With ``selected_only`` only the selected (checked, cited) pieces count.
    """
    what = f"share of {'selected ' if selected_only else ''}evidence per origin"
    evidence = _TurnFacts(_dialogues(data, what)).evidence()
    evidence = evidence[evidence["role"] == WIZARD]
    # Both readings of the task: all pieces shown, or only the selected ones.
    every = Counter(_counts(evidence["origin"]))
    chosen = Counter(_counts(evidence.loc[evidence["selected"].astype(bool), "origin"]))
    counts, other = (chosen, every) if selected_only else (every, chosen)
    total = sum(counts.values())
    if not total:
        raise ExerciseCheckError(
            f"{what}: no wizard turn in these data has {'selected ' if selected_only else ''}evidence."
        )
    expected = {origin: count / total for origin, count in counts.items()}
    # The other reading of the task (all pieces shown vs only the selected ones) is the usual slip.
    other_total = sum(other.values())
    given = _as_mapping(answer, what)
    other_shares = {origin: count / other_total for origin, count in other.items()} if other_total else {}
    if (
        set(given) == set(other_shares) == set(expected)
        and all(_is_close(_as_number(given[k], what), other_shares[k]) for k in other_shares)
        and any(not _is_close(expected[k], other_shares[k]) for k in other_shares)
    ):
        _fail(
            what,
            "these are the shares of ALL the pieces shown; count only the selected ones."
            if selected_only
            else "these are the shares of the selected pieces only; count every piece shown.",
        )
    _compare_mapping(given, expected, what=what, key_name="origin", share=True)


@practice_check
def check_selected_origin_shares(answer: Any, data: Iterable[Dialogue]) -> None:
    """``answer`` maps each evidence ``origin`` to its share of the evidence selected on wizard turns."""
    _RAISING[check_origin_shares](answer, data, selected_only=True)


@practice_check
def check_selected_share_by_label(answer: Any, data: Iterable[Dialogue], scheme: str) -> None:
    """``answer`` maps each ``scheme`` label to the share of wizard turns with that label that select evidence."""
    what = f"share of wizard turns with selected evidence, per {scheme} label"
    facts = _TurnFacts(_dialogues(data, what))
    carrying: Counter[str] = Counter()
    selecting: Counter[str] = Counter()
    selections = facts.selected_counts[facts.roles == WIZARD]
    for labels, selected in zip(facts.labels(WIZARD), selections, strict=True):
        for label in dict.fromkeys(labels.get(scheme, [])):
            carrying[label] += 1
            selecting[label] += bool(selected)
    if not carrying:
        raise ExerciseCheckError(f"{what}: no wizard turn in these data carries a {scheme!r} label.")
    expected = {label: selecting[label] / carrying[label] for label in carrying}
    _compare_mapping(answer, expected, what=what, key_name="label", share=True)


# -- overlap -------------------------------------------------------------------------------------------


@practice_check
def check_mean_overlap(answer: Any, data: Iterable[Dialogue]) -> None:
    """``answer`` is the mean unigram F1 between wizard turns and their selected evidence (joined).

    Only wizard turns with a selection count; words for English, characters for Chinese/Japanese
    (:func:`utils.text.tokenizer_for`).
    """
    what = "mean unigram F1 between wizard turns and their selected evidence"
    dialogues = _dialogues(data, what)
    scores: list[float] = []
    with_zeros = 0
    for dialogue in dialogues:
        tokenize = tokenizer_for(_language(dialogue))
        for turn in dialogue.turns_by(WIZARD):
            score = selected_evidence_f1(turn, tokenize)
            if score is not None:
                scores.append(score)
            with_zeros += 1
    if not scores:
        raise ExerciseCheckError(f"{what}: no wizard turn in these data selected any evidence.")
    expected = sum(scores) / len(scores)
    mistakes = [
        _Mistake(sum(scores) / with_zeros, "average over the wizard turns WITH a selection only (skip the others)."),
        _Mistake(expected * 100, "give F1 as a fraction between 0 and 1, not a percentage."),
    ]
    first = next(iter(dialogues), None)
    if first is not None and _language(first) in ("zh", "ja"):
        spaced = [
            score
            for dialogue in dialogues
            for turn in dialogue.turns_by(WIZARD)
            if (score := selected_evidence_f1(turn, str.split)) is not None
        ]
        if spaced:
            mistakes.append(_Mistake(sum(spaced) / len(spaced), "these are whitespace tokens: Chinese and Japanese "
                                     "text has no spaces between words, so measure it character by character "
                                     "(utils.text.tokenizer_for)."))
    _compare_number(answer, expected, what=what, share=True, mistakes=mistakes)


# -- across datasets ---------------------------------------------------------------------------------


@practice_check
def check_by_dataset(answer: Any, splits: Mapping[str, Iterable[Dialogue]], measure: str) -> None:
    """``answer`` maps each name of ``splits`` to ``measure`` computed on that split.

    ``measure`` is ``"mean_turns"``, ``"selected_share"`` (share of wizard turns with a selection)
    or ``"mean_overlap"`` (as :func:`check_mean_overlap`).
    """
    measures: dict[str, Callable[[Sequence[Dialogue]], float | None]] = {
        "mean_turns": lambda ds: _TurnFacts(ds).count(None) / len(ds) if len(ds) else None,
        "selected_share": lambda ds: _selected_share(_TurnFacts(ds)),
        "mean_overlap": _mean_overlap,
    }
    if measure not in measures:
        raise CheckOptionError(f"measure must be one of {', '.join(measures)}, not {measure!r}")
    what = {
        "mean_turns": "mean number of turns per dialogue, per dataset",
        "selected_share": "share of wizard turns with selected evidence, per dataset",
        "mean_overlap": "mean unigram F1 between wizard turns and their selected evidence, per dataset",
    }[measure]
    expected = {}
    for name, data in splits.items():
        value = measures[measure](_dialogues(data, f"{what} [{name}]"))
        if value is None:
            raise ExerciseCheckError(f"{what}: {name!r} has nothing to measure (no dialogues or no selections).")
        expected[name] = value
    _compare_mapping(answer, expected, what=what, key_name="dataset", share=measure != "mean_turns")


def _selected_share(facts: _TurnFacts) -> float | None:
    selections = facts.selected_counts[facts.roles == WIZARD]
    return int(np.count_nonzero(selections)) / len(selections) if len(selections) else None


def _counts(values: pd.Series) -> dict[str, int]:
    """How often each value occurs (a category that never does left out), as plain ints."""
    counted = values.value_counts(sort=False, dropna=False)
    return {str(key): int(count) for key, count in counted.items() if count}


def _mean_overlap(dialogues: Sequence[Dialogue]) -> float | None:
    scores = [
        score
        for dialogue in dialogues
        for turn in dialogue.turns_by(WIZARD)
        if (score := selected_evidence_f1(turn, tokenizer_for(_language(dialogue)))) is not None
    ]
    return sum(scores) / len(scores) if scores else None


__all__ = [
    "CheckOptionError",
    "ExerciseCheckError",
    "check_by_dataset",
    "check_label_counts",
    "check_mean_evidence",
    "check_mean_overlap",
    "check_mean_turns",
    "check_origin_shares",
    "check_selected_origin_shares",
    "check_selected_share",
    "check_selected_share_by_label",
    "check_turn_count",
    "graded",
    "practice_check",
]
