"""WoW's per-passage parsing loops in Python: what ``_speedups.c`` compiles.

:mod:`.parser` uses the compiled module where it is built (``pip install`` builds it wherever a C
compiler is found) and these functions otherwise, with a warning that the first load is slower. Both
give the same results (this folder's ``tests/test_wow_speedups.py`` checks them against each other), so a cache
written with one reads the same with the other.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

#: Bumped with ``SPEEDUPS_VERSION`` in ``_speedups.c`` whenever an argument or result changes.
VERSION = 2

#: What :func:`passage_rows` remembers of a passage: its first row, its text or sentences, its sentence count.
Entry = tuple[int, Any, int]

#: A turn's note: ``None`` where nothing was retrieved, else how many passages were retrieved and the
#: ``{title: passage}`` of those no wizard turn shows (``None`` if it shows them all).
Note = tuple[int, list[dict[str, Any]] | None] | None


def shown_passages(
    retrieved: list[Any],
    roles: list[str],
    wizard: str,
    seeker: str,
    topic: str,
    topic_passage: Any,
    topic_prefix: str,
    codes: tuple[int, int, int],
) -> tuple[list[str], list[Any], list[str], list[int], list[int], list[Note]]:
    """The passages shown at each wizard turn of a dialogue, in ParlAI's order (as ``_knowledge``): the
    topic's, then those retrieved for the turn before, then for the one before that; a title kept once.

    ``retrieved`` holds each turn's ``retrieved_passages`` (a list of ``{title: passage}`` dicts, or
    anything else for none), ``topic_passage`` the topic's, and ``codes`` the origin codes of the topic,
    the seeker and the wizard. A passage is its sentences or their JSON text, passed on as given.
    Returns the shown passages of all wizard turns, flat (titles, passages, evidence id prefixes and
    origin codes), how many each turn shows (0 for a seeker's turn) and each turn's :data:`Note`.
    """
    topic_code, seeker_code, wizard_code = codes
    items = [
        [item for entry in given for item in entry.items()] if isinstance(given, list) else [] for given in retrieved
    ]
    titles: list[str] = []
    sentence_lists: list[Any] = []
    prefixes: list[str] = []
    origins: list[int] = []
    counts: list[int] = []
    shown: set[tuple[int, int]] = set()  # (turn, item) pairs that some wizard turn shows
    for position, role in enumerate(roles):
        if role != wizard:
            counts.append(0)
            continue
        first = len(titles)
        titles.append(topic)
        sentence_lists.append(topic_passage)
        prefixes.append(topic_prefix)
        origins.append(topic_code)
        seen = {topic}
        for source in (position - 1, position - 2):
            if source < 0:
                continue
            origin = seeker_code if roles[source] == seeker else wizard_code
            for k, (title, sentences) in enumerate(items[source]):
                if title in seen:
                    continue
                seen.add(title)
                shown.add((source, k))
                titles.append(title)
                sentence_lists.append(sentences)
                prefixes.append(f"{source}:{k}:{title}#")
                origins.append(origin)
        counts.append(len(titles) - first)
    notes: list[Note] = []
    for position, passages in enumerate(items):
        if not passages:
            notes.append(None)
            continue
        unshown = [{title: sentences} for k, (title, sentences) in enumerate(passages) if (position, k) not in shown]
        notes.append((len(passages), unshown or None))
    return titles, sentence_lists, prefixes, origins, counts, notes


def passage_rows(
    titles: list[str],
    values: list[Any],
    by_title: dict[str, Entry],
    remembered: dict[tuple[str, int, str], Entry],
    written: int,
    remembered_count: int,
    limit: int,
    decode: Callable[[Any], list[str]],
) -> tuple[bytes, bytes, list[str], list[str], list[int], int]:
    """The first passages row and the sentence count of each shown passage (native ``int64`` values),
    numbering from ``written`` those not met before.

    A passage's ``value`` is its sentences, or their JSON text (the typed path's ``msgspec.Raw``), which
    ``decode`` reads (raising on a text that is not a list of strings). Any row holding the same title
    and sentences will do: the passage of that title met last (``by_title``), then any of the same
    title, sentence count and first sentence (``remembered``, at most ``limit`` sentences; then both
    are forgotten, costing only some sharing). A text is first compared as bytes with the text stored
    for the title: nine in ten shown passages are repeats, and comparing one block of bytes costs less
    than decoding it, or than comparing a list of strings no longer in the processor's caches. Both
    dicts are updated; an :data:`Entry` stores a text (a copy: a decoded text is a view of its read
    window) or a list of sentences, as given. Returns the rows, the counts, the sentences and titles of
    the new passages (a title once per passage), each new passage's sentence count, and how many
    sentences ``remembered`` now holds.
    """
    rows: list[int] = []
    sizes: list[int] = []
    texts: list[str] = []
    new_titles: list[str] = []
    repeats: list[int] = []
    for title, value in zip(titles, values, strict=True):
        known = by_title.get(title)
        if known is not None and _same_value(known[1], value):
            rows.append(known[0])
            sizes.append(known[2])
            continue
        sentences = value if isinstance(value, list) else decode(value)
        key = (title, len(sentences), sentences[0] if sentences else "")
        known = remembered.get(key)
        if known is not None and _sentences(known[1], decode) == sentences:
            by_title[title] = known
            rows.append(known[0])
            sizes.append(known[2])
            continue
        if remembered_count + len(sentences) > limit:
            remembered.clear()
            by_title.clear()
            remembered_count = 0
        start = written + len(texts)
        stored = value if isinstance(value, list) else bytes(value)
        remembered[key] = by_title[title] = (start, stored, len(sentences))
        remembered_count += len(sentences)
        texts += sentences
        new_titles.append(title)
        repeats.append(len(sentences))
        rows.append(start)
        sizes.append(len(sentences))
    # "q", a C long long, is 64 bits wherever CPython runs
    return array("q", rows).tobytes(), array("q", sizes).tobytes(), texts, new_titles, repeats, remembered_count


def _same_value(stored: Any, value: Any) -> bool:
    """Whether a stored passage is shown to be ``value``: equal lists, or equal texts byte for byte."""
    if isinstance(stored, list) or isinstance(value, list):
        return isinstance(stored, list) and isinstance(value, list) and stored == value
    return memoryview(value) == stored


def _sentences(stored: Any, decode: Callable[[Any], list[str]]) -> list[str]:
    return stored if isinstance(stored, list) else decode(stored)
