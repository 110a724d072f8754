"""The public helpers of a dataset's exercise checks (``utils/datasets/<name>/exercises.py``).

A dataset's check is a function ``check_<what>(answer, data, ...)`` wrapped in :func:`practice_check`
(it prints ``Correct ...`` or ``Not yet: ...`` and never raises, so no traceback shows the expected
value); it recomputes the expected result from the dialogues it is given and compares with these
helpers, which explain a slip without giving the answer away:

- :func:`fail` (stop with ``Not yet: <what>: <problem>``) and :func:`passed` (say ``Correct``);
- :func:`as_mapping` and :func:`as_number` (an answer as a dict or a number, or a failure naming
  what was given), :func:`compare_number` (a number against the expected one, explaining the
  likely :class:`Mistake` when it is off) and :func:`check_keys` (an answer keyed by ids holds
  every id asked for and no other);
- :func:`dialogues_of` and :func:`turns_of` (the dialogues of a loaded split or a list, checked;
  their turns of one role).

The shared checks themselves (turn counts, label counts, ...) are :mod:`utils.teaching.exercises`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn

from utils.records import Dialogue, Turn
from utils.teaching import exercises as _checks
from utils.teaching.exercises import CheckOptionError, ExerciseCheckError, practice_check

#: A value a typical wrong method produces, and what to tell the student who produced it:
#: ``Mistake(value, message)``.
Mistake = _checks._Mistake

__all__ = [
    "CheckOptionError",
    "ExerciseCheckError",
    "Mistake",
    "as_mapping",
    "as_number",
    "check_keys",
    "compare_number",
    "dialogues_of",
    "fail",
    "keys_missing_and_extra",
    "passed",
    "practice_check",
    "turns_of",
]

# The helpers call the module's own functions when called (not when imported), so that a test
# standing in for one of them (the learner copies' test records the expected values) sees every call.


def fail(what: str, problem: str) -> NoReturn:
    """Raise :class:`ExerciseCheckError` ``Not yet: <what>: <problem>`` (printed by :func:`practice_check`)."""
    _checks._fail(what, problem)


def passed(what: str, detail: str = "") -> None:
    """Print ``Correct: <what> (<detail>).``."""
    _checks._passed(what, detail)


def as_mapping(answer: Any, what: str) -> dict[Any, Any]:
    """The answer as a dict, from a dict, a pandas Series or a one-column DataFrame; else a failure."""
    return _checks._as_mapping(answer, what)


def as_number(answer: Any, what: str) -> float:
    """The answer as a float (numpy and pandas scalars too), or a failure naming the type given."""
    return _checks._as_number(answer, what)


def compare_number(
    answer: Any,
    expected: float,
    *,
    what: str,
    integer: bool = False,
    share: bool = False,
    mistakes: Iterable[Mistake] = (),
    rel_tol: float = _checks.REL_TOL,
) -> None:
    """Check one number; on failure explain the most likely mistake (``mistakes``, a percentage
    given for a ``share``, a fraction for an ``integer``), never the expected value."""
    _checks._compare_number(
        answer, expected, what=what, integer=integer, share=share, mistakes=mistakes, rel_tol=rel_tol
    )


def dialogues_of(data: Iterable[Dialogue], what: str) -> Sequence[Dialogue]:
    """The dialogues of a loaded split or a list, checked to be dialogues (a loaded split is not copied)."""
    return _checks._dialogues(data, what)


def turns_of(dialogues: Iterable[Dialogue], role: str | None = None) -> list[Turn]:
    """The turns of ``dialogues`` (of ``role`` only, when given), in order."""
    return _checks._turns(dialogues, role)


def keys_missing_and_extra(given: Mapping[Any, Any], wanted: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """The keys of ``wanted`` that ``given`` lacks, and the keys of ``given`` that are not in ``wanted``,
    each in order."""
    wanted_set = set(wanted)
    return [key for key in wanted if key not in given], [key for key in given if key not in wanted_set]


def check_keys(
    given: Mapping[Any, Any],
    wanted: Sequence[Any],
    what: str,
    *,
    missing: str,
    extra: str,
    together: str | None = None,
    **fields: object,
) -> None:
    """Fail when an answer keyed by ids lacks an id of ``wanted`` or holds one that is not in it.

    ``missing`` and ``extra`` are the messages, formatted with ``count`` (how many), ``total``
    (``len(wanted)``), ``example`` (the first such key) and any other ``fields``: ``"{count} of the
    {total} turns have no prediction, for example {example!r}"``. By default a key that does not
    belong is reported first and alone; with ``together`` both problems are reported in one message,
    joined by ``"; "`` and followed by ``together`` (what to do).
    """
    lacking, surplus = keys_missing_and_extra(given, wanted)
    problems = []
    if surplus:
        problems.append(extra.format(count=len(surplus), total=len(wanted), example=surplus[0], **fields))
    if lacking:
        problems.append(missing.format(count=len(lacking), total=len(wanted), example=lacking[0], **fields))
    if not problems:
        return
    if together is None:
        fail(what, problems[0])
    fail(what, "; ".join(reversed(problems)) + together)
