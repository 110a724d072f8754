"""Tokenisation and normalisation for English, Chinese and Japanese text.

English follows ParlAI's ``normalize_answer`` (lowercase, punctuation to spaces, drop a/an/the,
collapse whitespace), so that unigram F1 here equals ParlAI's. Chinese and Japanese have no spaces
between words, so they are compared character by character (the convention of WISE's evaluation).
"""

from __future__ import annotations

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


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """A word-level diff of two strings as ``(op, text)`` pieces, ``op`` one of ``"equal"``,
    ``"delete"`` (only in ``before``) and ``"insert"`` (only in ``after``).

    Words are whitespace-separated and compared exactly (case and punctuation kept), so the pieces
    joined with spaces give back ``before`` (equal + delete) and ``after`` (equal + insert) up to
    whitespace. A replacement is a delete followed by an insert.
    """
    old, new = before.split(), after.split()
    pieces: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            pieces.append(("equal", " ".join(old[i1:i2])))
            continue
        if i2 > i1:
            pieces.append(("delete", " ".join(old[i1:i2])))
        if j2 > j1:
            pieces.append(("insert", " ".join(new[j1:j2])))
    return pieces
