"""Tokenisation and normalisation for English, Chinese and Japanese text.

English follows ParlAI's ``normalize_answer`` (lowercase, punctuation to spaces, drop a/an/the,
collapse whitespace), so that unigram F1 here equals ParlAI's. Chinese and Japanese have no spaces
between words, so they are compared character by character (the convention of WISE's evaluation).
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable

_PARLAI_PUNCTUATION = re.compile(r"[!\"#$%&()*+,\-./:;<=>?@\[\]\\^`{|}~_']")
_PARLAI_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CJK_PUNCTUATION = set("，。、；：？！「」『』（）《》〈〉【】〔〕…—～·・“”‘’")


def counted(count: int, plural: str) -> str:
    """``1 session``, ``2 sessions``, ``1,271 sessions``: a count and its unit, ``plural`` the unit's plural."""
    return f"{count:,} {plural.removesuffix('s') if count == 1 else plural}"


def normalize_parlai(text: str) -> str:
    """ParlAI's answer normalisation: lowercase, punctuation to spaces, no articles, single spaces."""
    text = text.lower()
    text = _PARLAI_PUNCTUATION.sub(" ", text)
    text = _PARLAI_ARTICLES.sub(" ", text)
    return " ".join(text.split())


def word_tokens(text: str) -> list[str]:
    """English word tokens after ParlAI normalisation."""
    return normalize_parlai(text).split()


#: ASCII punctuation as Python's ``string.punctuation`` has it (the same 32 characters ParlAI turns
#: into spaces), deleted by :func:`normalize_squad`.
_SQUAD_DELETED = str.maketrans("", "", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def normalize_squad(text: str) -> str:
    """SQuAD v1.1's answer normalisation, which KILT's ``eval_downstream.py`` keeps: lowercase,
    punctuation **deleted** (ParlAI turns it into spaces: ``U.S.`` is ``us`` here, ``u s`` there),
    no articles, single spaces."""
    text = text.lower().translate(_SQUAD_DELETED)
    text = _PARLAI_ARTICLES.sub(" ", text)
    return " ".join(text.split())


def squad_tokens(text: str) -> list[str]:
    """English word tokens after SQuAD's (and KILT's) normalisation, :func:`normalize_squad`."""
    return normalize_squad(text).split()


def _dropped(char: str, drop_punctuation: bool) -> bool:
    """Whether :func:`char_tokens` leaves ``char`` out: whitespace, and (optionally) punctuation."""
    return char.isspace() or (
        drop_punctuation and (char in _CJK_PUNCTUATION or _PARLAI_PUNCTUATION.fullmatch(char) is not None)
    )


class _KeptCharacters(dict):
    """A ``str.translate`` table deleting the characters :func:`_dropped` names, filled on first sight
    of each character: translating in C is many times faster than testing a text char by char."""

    def __init__(self, drop_punctuation: bool) -> None:
        super().__init__()
        self._drop_punctuation = drop_punctuation

    def __missing__(self, code: int) -> int | None:
        kept = None if _dropped(chr(code), self._drop_punctuation) else code
        self[code] = kept
        return kept


_KEPT = {True: _KeptCharacters(True), False: _KeptCharacters(False)}


def char_tokens(text: str, *, drop_punctuation: bool = True) -> list[str]:
    """Characters of a Chinese or Japanese string, without whitespace (and CJK/ASCII punctuation)."""
    return list(text.translate(_KEPT[bool(drop_punctuation)]))


def char_ngrams(text: str, n: int) -> list[str]:
    """Overlapping character n-grams of ``text`` with whitespace removed (punctuation kept)."""
    compact = "".join(text.split())
    return [compact[i : i + n] for i in range(len(compact) - n + 1)]


#: Language name (as :attr:`utils.sources.DatasetSource.language` writes it) -> the code
#: :func:`tokenizer_for` expects. The one place that maps the two.
LANGUAGE_CODES = {"English": "en", "Chinese": "zh", "Japanese": "ja"}


def tokenizer_for(language: str) -> Callable[[str], list[str]]:
    """The tokeniser the atlas uses for ``language`` (``"en"``, ``"zh"`` or ``"ja"``)."""
    if language == "en":
        return word_tokens
    if language in ("zh", "ja"):
        return char_tokens
    raise ValueError(f"no tokeniser for language {language!r}; choose en, zh or ja")


#: Pairs of words (one of each text) above which a stretch of two texts is not handed to difflib:
#: its search is quadratic in the stretch (a 20,000-word text of one repeated word took minutes).
_DIFF_PAIRS = 40_000


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """A word-level diff of two strings as ``(op, text)`` pieces, ``op`` one of ``"equal"``,
    ``"delete"`` (only in ``before``) and ``"insert"`` (only in ``after``).

    Words are whitespace-separated and compared exactly (case and punctuation kept), so the pieces
    joined with spaces give back ``before`` (equal + delete) and ``after`` (equal + insert) up to
    whitespace. A replacement is a delete followed by an insert.

    The cost stays linear in the texts (issue 50): the words both texts share at their start and end
    are set aside first; a longer middle is cut at the words that occur once in each text, in the
    same order (the longest such run, as patience diff does); stretches between those cuts of up to
    :data:`_DIFF_PAIRS` pairs of words are diffed by :class:`difflib.SequenceMatcher`, and a longer
    one is shown whole as deleted and inserted. Two texts of up to :data:`_DIFF_PAIRS` pairs of words
    (200 words each; edited responses have a few dozen) get difflib's diff of the whole, as before.
    """
    old, new = before.split(), after.split()
    ops: list[tuple[str, int, int, int, int]] = []
    whole = len(old) * len(new) <= _DIFF_PAIRS
    for i1, i2, j1, j2 in [(0, len(old), 0, len(new))] if whole else _diff_stretches(old, new):
        if (i2 - i1) * (j2 - j1) <= _DIFF_PAIRS:
            matcher = difflib.SequenceMatcher(a=old[i1:i2], b=new[j1:j2], autojunk=False)
            ops += [(op, a1 + i1, a2 + i1, b1 + j1, b2 + j1) for op, a1, a2, b1, b2 in matcher.get_opcodes()]
        else:
            ops.append(("replace", i1, i2, j1, j2))
    pieces: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in ops:
        if op == "equal":
            _add_piece(pieces, "equal", old[i1:i2], merge=not whole)
            continue
        if i2 > i1:
            _add_piece(pieces, "delete", old[i1:i2], merge=not whole)
        if j2 > j1:
            _add_piece(pieces, "insert", new[j1:j2], merge=not whole)
    return pieces


def _add_piece(pieces: list[tuple[str, str]], op: str, words: list[str], *, merge: bool) -> None:
    """Append ``words`` as one piece, joined to the last piece when it has the same ``op`` and
    ``merge`` is set (two stretches' diffs meet there)."""
    if merge and pieces and pieces[-1][0] == op:
        pieces[-1] = (op, f"{pieces[-1][1]} {' '.join(words)}")
    else:
        pieces.append((op, " ".join(words)))


def _diff_stretches(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    """``(i1, i2, j1, j2)`` stretches covering both word lists in order: equal runs at the start and
    end, and between them stretches cut at words occurring once in each list, in the same order."""
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old, end_new = end_old - 1, end_new - 1
    stretches = [(0, start, 0, start)] if start else []
    middle: list[tuple[int, int, int, int]] = []
    cut_old, cut_new = start, start
    for i, j in _unique_anchors(old, new, start, end_old, end_new):
        middle.append((cut_old, i, cut_new, j))
        cut_old, cut_new = i, j
    middle.append((cut_old, end_old, cut_new, end_new))
    stretches += [s for s in middle if s[1] > s[0] or s[3] > s[2]]
    if end_old < len(old):
        stretches.append((end_old, len(old), end_new, len(new)))
    return stretches


def _unique_anchors(old: list[str], new: list[str], start: int, end_old: int, end_new: int) -> list[tuple[int, int]]:
    """Positions ``(i, j)`` of words occurring once in ``old[start:end_old]`` and once in
    ``new[start:end_new]``, the longest run of them in the same order in both (n log n)."""
    seen_old: dict[str, int] = {}
    for i in range(start, end_old):
        seen_old[old[i]] = -1 if old[i] in seen_old else i
    seen_new: dict[str, int] = {}
    for j in range(start, end_new):
        seen_new[new[j]] = -1 if new[j] in seen_new else j
    pairs = sorted((i, seen_new[word]) for word, i in seen_old.items() if i >= 0 and seen_new.get(word, -1) >= 0)
    # the longest increasing run of j over pairs in order of i
    tails: list[int] = []  # tails[k]: the smallest last j of a run of length k + 1
    tail_at: list[int] = []  # the pair index of that last element
    previous = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_at.append(index)
        else:
            tails[k], tail_at[k] = j, index
        previous[index] = tail_at[k - 1] if k else -1
    run: list[tuple[int, int]] = []
    at = tail_at[-1] if tail_at else -1
    while at >= 0:
        run.append(pairs[at])
        at = previous[at]
    return run[::-1]
