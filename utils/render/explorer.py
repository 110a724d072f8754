"""A static dialogue explorer for the published book: no kernel, no third-party servers.

:func:`static_explorer` takes a chapter's splits and embeds, per split, a seeded random sample of
dialogues (after the ones the chapter's prose shows), as many as fit a byte budget: the whole of a
small dataset, a fair share of each split of a large one. Each dialogue is pre-rendered by the
atlas's renderers (which escape every dataset string) and carries its facet values, a few numeric
columns and its search text (:mod:`utils.render.explorer_fields`). The book's own script
``book/_static/explorer.js`` adds search, label filters, column statistics, permalinks
(``#<dataset>/<split>/<id>``) and keyboard paging. Without that
script (in Jupyter, or with JavaScript off) the first dialogue still shows, rendered on the server,
with the sentence saying how many of how many are embedded and how they were chosen.

The embedded items are one JSON list, gzip-compressed and base64-encoded (HTML renderings compress
about eight-fold), inside ``<script type="application/json">`` with the rest of the explorer's
settings. The browser ends that element at the first ``</script`` whatever the JSON means, so
``<``, ``>`` and ``&`` (and U+2028/2029) are written as ``\\u003c``-style escapes (valid JSON,
decoded by ``JSON.parse``); base64 has none of them anyway.
"""

from __future__ import annotations

import base64
import gzip
import heapq
import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..loading import DEMO, SYNTHETIC
from ..records import Dialogue
from ..sources import get_source
from . import render_dialogue
from ._html import SafeHTML, esc, json_for_script, stylesheet
from .explorer_fields import columns, facets, search_words

if TYPE_CHECKING:
    from ..viewer import SplitRows

#: Bytes of embedded data (the compressed, base64-encoded items) one explorer may add to a page.
DEFAULT_BUDGET = 1_500_000
#: The seed of every explorer's random sample (a fixed seed: the same book shows the same sample).
DEFAULT_SEED = 0
#: How the items are packed; explorer.js refuses anything else.
ENCODING = "gzip+base64"
#: The facet every explorer with more than one split gets.
SPLIT_FACET = "split"

#: Splits that stand in for a dataset: left out of an explorer when real data of the chapter is loaded.
_STAND_INS = (DEMO, SYNTHETIC)


def explorer_search_text(dialogue: Dialogue) -> str:
    """What the explorer's search box matches by default: topic, every turn's text, every evidence title."""
    titles = {item.title for turn in dialogue.turns for item in turn.evidence if item.title}
    parts = [dialogue.topic or "", *(turn.text for turn in dialogue.turns), *sorted(titles)]
    return " ".join(part for part in parts if part)


def _dataset_search_text(dialogue: Dialogue) -> str:
    """The dataset's own search text (as its viewer in Jupyter searches), else :func:`explorer_search_text`."""
    own = get_source(dialogue.dataset).search_text
    return own(dialogue) if own else explorer_search_text(dialogue)


def explorer_label(dialogue: Dialogue, width: int = 70) -> str:
    """A short plain-text name for the index: the topic, else the opening turn (a JWHR question), else the id."""
    text = dialogue.topic or next((turn.text for turn in dialogue.turns if turn.text.strip()), "") or str(dialogue.id)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def item_key(dialogue: Dialogue, index: int, *, by_id: bool = True) -> str:
    """The permalink of one item: ``dataset/split/id``, the record's own id (URL-quoted), as headings
    show it. With ``by_id=False`` (a split whose ids repeat), ``dataset/split/@index``: ``@12`` is
    ``utils.load(dataset, split)[12]``.

    A ``/`` in an id stays as it is (``<dataset>/train/train/0``, readable in the address bar; everything
    after the split is the id, so the key still parses); ``%``, ``#``, spaces, quotes and the like
    are escaped, and so is ``@``, which would otherwise read as a position. Links written before,
    with the slash escaped (``train%2F0``), name the same item."""
    if by_id:
        return f"{dialogue.dataset}/{dialogue.split}/{quote(str(dialogue.id), safe='/')}"
    return f"{dialogue.dataset}/{dialogue.split}/@{index}"


def _unique_ids(dialogues: Sequence[Dialogue]) -> bool:
    arrow = getattr(dialogues, "arrow", None)
    ids = arrow("dialogues").column("id").to_pylist() if arrow else [str(d.id) for d in dialogues]
    return len(set(map(str, ids))) == len(ids)


# -- choosing what to embed -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Part:
    """One split as the explorer shows it: its name, its dialogues, when known its provenance kind,
    and the name readers see (``valid seen`` for ``valid_seen``)."""

    name: str
    dialogues: Sequence[Dialogue]
    kind: str | None
    label: str
    #: positions of records without a single turn (the audit files' blank rows): nothing to show
    empty: frozenset[int] = frozenset()

    @property
    def shown(self) -> int:
        """How many of the split's records have something to show."""
        return len(self.dialogues) - len(self.empty)


def _parts(
    splits: Mapping[str, Sequence[Dialogue]] | Sequence[Dialogue], labels: Mapping[str, str] | None = None
) -> list[_Part]:
    if isinstance(splits, Mapping):
        named = list(splits.items())
    else:
        found = {dialogue.split for dialogue in splits}
        name = getattr(splits, "split", None) or (found.pop() if len(found) == 1 else "dialogues")
        named = [(str(name), splits)]
    parts = []
    for name, dialogues in named:
        provenance = getattr(dialogues, "provenance", None)
        label = (labels or {}).get(str(name), str(name).replace("_", " "))
        parts.append(_Part(str(name), dialogues, getattr(provenance, "kind", None), label, _empty(dialogues)))
    return parts


def _empty(dialogues: Sequence[Dialogue]) -> frozenset[int]:
    """Positions of the records without turns, read from a loaded split's table where there is one."""
    arrow = getattr(dialogues, "arrow", None)
    counts = arrow("dialogues").column("turn_count").to_pylist() if arrow else [len(d.turns) for d in dialogues]
    return frozenset(index for index, count in enumerate(counts) if count == 0)


def _real_parts(parts: list[_Part]) -> tuple[list[_Part], list[_Part]]:
    """``(kept, left out)``: demo and synthetic splits give way when the chapter has real data."""
    real = [part for part in parts if part.kind not in _STAND_INS]
    if not real:
        return parts, []
    return real, [part for part in parts if part.kind in _STAND_INS]


def sample_order(size: int, seed: int, name: str) -> list[int]:
    """A split's indices in the seeded random order the explorer draws them in (same seed, same order)."""
    return random.Random(f"{seed}/{name}").sample(range(size), size)


def _raw_size(item: Mapping[str, Any]) -> int:
    return len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def encode_items(items: Sequence[Mapping[str, Any]]) -> str:
    """The items as the explorer embeds them: JSON, gzip (reproducible: no timestamp), base64."""
    raw = json.dumps(list(items), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def decode_items(data: str | Mapping[str, Any]) -> list[dict[str, Any]]:
    """The embedded items back from an explorer's data block (its JSON text or the parsed object)."""
    meta = json.loads(data) if isinstance(data, str) else data
    if meta.get("encoding") != ENCODING:
        raise ValueError(f"unknown explorer data encoding {meta.get('encoding')!r}")
    return json.loads(gzip.decompress(base64.b64decode(meta["items"])).decode("utf-8"))


@dataclass
class _Chosen:
    part: int
    index: int
    item: dict[str, Any]
    pinned: bool


def _choose(
    parts: list[_Part],
    build: Callable[[int, int], dict[str, Any]],
    *,
    budget: int | None,
    seed: int,
    pinned: Mapping[str, Iterable[int]],
    max_items: int | None,
) -> tuple[list[_Chosen], int]:
    """Candidates in the order they are drawn, and how many of the first ones are known to fit.

    The pinned items come first, then items from each split's seeded random order, always from the
    split with the fewest bytes so far (a small split ends up whole, a large one gets a fair share).
    Items compress far better in reading order than in drawing order, so the size is measured on
    the encoding itself, at checkpoints placed where the budget should run out; drawing stops at
    the first checkpoint over the budget and the caller cuts back to what fits.
    """
    chosen: list[_Chosen] = []
    taken: set[tuple[int, int]] = set()
    used = [0] * len(parts)
    positions = {part.name: number for number, part in enumerate(parts)}

    def add(number: int, index: int, *, pin: bool) -> None:
        item = build(number, index)
        chosen.append(_Chosen(number, index, item, pin))
        taken.add((number, index))
        used[number] += _raw_size(item)

    for name, indices in pinned.items():
        if name not in positions:
            continue  # a stand-in split left out, or a split this explorer does not show
        number = positions[name]
        for index in indices:
            if not 0 <= index < len(parts[number].dialogues):
                size = len(parts[number].dialogues)
                raise ValueError(f"pinned index {index} is outside split {name!r} ({size} items)")
            if index in parts[number].empty:
                continue  # nothing to show, and not counted
            if (number, index) not in taken:
                add(number, index, pin=True)
    fits, checkpoint = len(chosen), _FIRST_CHECKPOINT
    orders = [iter(sample_order(len(part.dialogues), seed, part.name)) for part in parts]
    heap = [(used[number], number) for number in range(len(parts))]
    heapq.heapify(heap)
    while heap and (max_items is None or len(chosen) < max_items):
        _, number = heapq.heappop(heap)
        empty = parts[number].empty
        index = next((i for i in orders[number] if (number, i) not in taken and i not in empty), None)
        if index is None:
            continue  # this split is embedded whole
        add(number, index, pin=False)
        heapq.heappush(heap, (used[number], number))
        if budget is not None and sum(used) >= checkpoint:
            size = len(_encode(chosen)[1])
            if size > budget:
                break
            # The next check where the budget should run out at this compression ratio (a little
            # beyond, so that the check after it is rarely needed).
            fits, checkpoint = len(chosen), max(sum(used) * 11 // 10, sum(used) * budget * 21 // (size * 20))
    return chosen, fits


#: Raw bytes drawn before the first size check (a small explorer is encoded once).
_FIRST_CHECKPOINT = 256_000


def _split_is_implied(items: Sequence[Mapping[str, Any]]) -> bool:
    """True when another facet names the split of every item (JWHR's "answered" is its split): the
    split facet would only repeat it."""
    if not items or any(SPLIT_FACET not in item["facets"] for item in items):
        return False
    names = {name for item in items for name in item["facets"]} - {SPLIT_FACET}
    splits = {item["split"] for item in items}
    for name in names:
        pairs = {(item["split"], tuple(item["facets"].get(name, ()))) for item in items}
        one_value_per_split = len(pairs) == len(splits) and all(len(values) == 1 for _, values in pairs)
        if one_value_per_split and len({values for _, values in pairs}) == len(splits):
            return True
    return False


def _encode(chosen: Sequence[_Chosen]) -> tuple[list[_Chosen], str]:
    ordered = sorted(chosen, key=lambda c: (c.part, c.index))
    return ordered, encode_items([c.item for c in ordered])


# -- the explorer ---------------------------------------------------------------------------------

#: Prefix of the anchors inside explorer items (see :func:`_scoped_anchors`).
ANCHOR_SCOPE = "explore-"
_ID = re.compile(r'(\sid=")([^"]+)"')
_IN_PAGE_LINK = re.compile(r'(\shref="#)([^"]+)"')


def _scoped_anchors(html: str) -> str:
    """``html`` with its ``id``s, and the links to them, prefixed by :data:`ANCHOR_SCOPE`.

    A chapter often shows a dialogue above its explorer too; with the same ids twice, a citation
    clicked in the explorer would jump to the copy above. Only attributes the renderer wrote can
    match (in escaped dataset text a quote is ``&#34;``); links to anything outside the item, a
    section of the chapter or another page, are left alone.
    """
    if 'id="' not in html:  # most renderers write no ids: a plain search, not the regex, says so
        return html
    ids = {name for _, name in _ID.findall(html)}
    if not ids:
        return html
    html = _ID.sub(lambda match: f'{match.group(1)}{ANCHOR_SCOPE}{match.group(2)}"', html)
    return _IN_PAGE_LINK.sub(
        lambda match: f'{match.group(1)}{ANCHOR_SCOPE}{match.group(2)}"' if match.group(2) in ids else match.group(0),
        html,
    )



def static_explorer(
    splits: Mapping[str, Sequence[Dialogue]] | Sequence[Dialogue],
    *,
    title: str = "Explore the dialogues",
    note: str | None = None,
    noun: str = "dialogues",
    budget: int | None = DEFAULT_BUDGET,
    seed: int = DEFAULT_SEED,
    pinned: Mapping[str, Iterable[int]] | None = None,
    max_items: int | None = None,
    prefer_real: bool = True,
    render: Callable[..., str] = render_dialogue,
    search_text: Callable[[Dialogue], str] | None = None,
    glosses: Mapping[str, str] | None = None,
    split_labels: Mapping[str, str] | None = None,
    **render_options: Any,
) -> SafeHTML:
    """A self-contained HTML explorer over a sample of ``splits`` (search, filters, statistics, links).

    ``splits`` maps a split's name to its dialogues (a loaded split or a list; a plain sequence is one
    split). Per split, the items ``pinned`` names (indices, for example the dialogues the chapter
    shows) come first, then a random sample (``seed``) drawn split by split, fewest bytes first,
    until ``budget`` bytes of compressed data are used (``None``: no limit) or ``max_items`` are
    embedded. With ``prefer_real``, demo and synthetic splits are left out when another split is
    real data (the page says so). ``note`` is shown under the title (by default, what data each split
    is: ``train: official; valid seen: demo sample``), ``noun`` names the items in the
    sentence that says how many are embedded. ``render`` and ``render_options`` choose the rendering
    of each dialogue; ``glosses`` is passed to ``render`` and its English is searched too;
    ``search_text`` replaces the dataset's default search text. Splits are shown to readers by
    ``split_labels`` (``{"kilt_dev": "KILT dev"}``), else by their name with spaces for underscores.
    """
    if max_items is not None and max_items < 1:
        raise ValueError(f"max_items must be at least 1, not {max_items}")
    named = _parts(splits, split_labels)
    parts, left_out = _real_parts(named) if prefer_real else (named, [])
    if glosses is not None:
        render_options["glosses"] = glosses
    text_of = search_text or _dataset_search_text
    keys: set[str] = set()
    by_id = [_unique_ids(part.dialogues) for part in parts]

    def build(number: int, index: int) -> dict[str, Any]:
        part = parts[number]
        dialogue = part.dialogues[index]
        key = item_key(dialogue, index, by_id=by_id[number])
        if key in keys:
            raise ValueError(f"two explorer items have the permalink {key!r}: give each split once")
        keys.add(key)
        found = facets(dialogue)
        if len(parts) > 1:
            found = {SPLIT_FACET: [part.label], **found}
        search = " ".join([text_of(dialogue), part.name, part.label, *search_words(dialogue, glosses)])
        return {
            "key": key,
            "split": part.name,
            "index": index,
            "label": f"{part.label} #{index}: {explorer_label(dialogue)}",
            "html": _scoped_anchors(str(render(dialogue, **render_options))),
            "search": " ".join(search.split()).lower(),
            "facets": found,
            "columns": columns(dialogue),
        }

    chosen, fits = _choose(parts, build, budget=budget, seed=seed, pinned=pinned or {}, max_items=max_items)
    if _split_is_implied([c.item for c in chosen]):
        for c in chosen:
            del c.item["facets"][SPLIT_FACET]
    if note is None:
        note = "; ".join(f"{part.label}: {part.kind}" for part in named if part.kind)
    note_html = f'<div class="atlas-explorer-note">{esc(note)}</div>' if note else ""
    if not chosen:
        return SafeHTML(
            f'<section class="atlas-explorer atlas-explorer-empty"><div class="atlas-explorer-title">{esc(title)}</div>'
            f"{note_html}<p><em>No {esc(noun)} to show.</em></p></section>"
        )
    # The viewer has every split, the stand-ins too (labelled so): the explorer's sample prefers real data.
    viewer_splits = _write_viewer(named, render, render_options, glosses, text_of)
    chosen, encoded = _encode_within_budget(chosen, fits, budget)
    items = [c.item for c in chosen]
    # the explorer opens at the first item the chapter shows (pinned), else the first embedded one
    first = next((c.item for c in chosen if c.pinned), items[0])
    facet_names = list(dict.fromkeys(name for item in items for name in item["facets"]))
    sentence = _sample_sentence(parts, chosen, left_out, noun=noun, seed=seed, budget=budget, max_items=max_items)
    sample_html = f'<p class="atlas-explorer-sample">{esc(sentence)}</p>'
    meta = {
        "encoding": ENCODING,
        "count": len(items),
        "total": sum(part.shown for part in parts),
        "noun": noun,
        "facets": facet_names,
        "columns": list(dict.fromkeys(name for item in items for name in item["columns"])),
        "items": encoded,
        "start": first["key"],
        "facet_notes": _facet_notes(parts, facet_names),
        # the splits of the data viewer under the explorer (book/_static/viewer.js), every row of each
        "viewer": viewer_splits,
    }
    fallback = (
        f'<p class="atlas-explorer-static">Showing {esc(first["label"])}; '
        "the book's explorer script pages through, searches and filters the rest.</p>"
    )
    return SafeHTML(
        f'<section class="atlas-explorer" data-atlas-explorer="1" data-count="{len(items)}" aria-label="{esc(title)}">'
        f'<div class="atlas-explorer-title">{esc(title)}</div>{note_html}{sample_html}{_CONTROLS}{fallback}'
        f'<div class="atlas-explorer-view" tabindex="-1">{first["html"]}</div>'
        f'<script type="application/json" class="atlas-explorer-data">{json_for_script(meta)}</script>'
        f'{_viewer_holder(viewer_splits)}{stylesheet()}</section>'
    )


def _facet_notes(parts: Sequence[_Part], names: Sequence[str]) -> dict[str, str]:
    """What each facet counts, where its dataset says (``facet_notes`` of its declaration)."""
    from ..sources import get_source

    notes: dict[str, str] = {}
    for dataset in dict.fromkeys(part.dialogues[0].dataset for part in parts if len(part.dialogues)):
        notes.update(get_source(dataset).facet_notes)
    return {name: notes[name] for name in names if name in notes}


#: Where the viewer's data files sit in the built site, from its root.
VIEWER_PATH = "_viewer"


def viewer_rows(
    dialogues: Sequence[Dialogue],
    *,
    glosses: Mapping[str, str] | None = None,
    text_of: Callable[[Dialogue], str] | None = None,
    visit: Callable[[Dialogue], None] | None = None,
) -> SplitRows:
    """One split's rows as the book's data viewer shows them: the three levels of
    :func:`utils.viewer.split_rows` with the dataset's facets, columns, search words and English
    glosses, grouped as the dataset groups them (:func:`utils.render.viewer_fields.dataset_rows`).
    ``text_of`` is the dialogue's search text (by default the dataset's own); ``visit`` is given
    each dialogue during the walk (``split_rows``'s)."""
    from ..glosses import english
    from ..sources import get_source
    from ..viewer import split_rows
    from .viewer_fields import dataset_rows, row_texts, single_labels

    if not len(dialogues):
        raise ValueError("a split without dialogues has no rows to show")
    dataset = dialogues[0].dataset
    searched = text_of or _dataset_search_text

    def search(dialogue: Dialogue) -> str:
        return " ".join([str(dialogue.id), searched(dialogue), *search_words(dialogue, glosses)])

    rows = split_rows(
        dialogues,
        label_keys=get_source(dataset).label_keys,
        facets=facets,
        columns=columns,
        search_text=search,
        english=(lambda text: english(text, glosses)) if glosses else None,
        visit=visit,
        texts=row_texts(dataset),
        single_labels=single_labels(dataset),
    )
    return dataset_rows(dataset, dialogues, rows)


def _write_viewer(
    parts: Sequence[_Part],
    render: Callable[..., str],
    render_options: Mapping[str, Any],
    glosses: Mapping[str, str] | None,
    text_of: Callable[[Dialogue], str],
) -> list[dict[str, str]]:
    """Write every split's data files for the book's data viewer (during a book build: see
    :func:`utils.viewer.viewer_dir`) and return where they are, for viewer.js."""
    from ..viewer import viewer_dir, write_split

    directory = viewer_dir()
    if directory is None:
        return []  # not building the book: no files, so no viewer to offer
    splits = []
    for part in parts:
        if not len(part.dialogues):
            continue
        dataset, name = part.dialogues[0].dataset, part.dialogues[0].split
        splits.append({"dataset": dataset, "split": name, "label": part.label,
                       "path": f"{VIEWER_PATH}/{dataset}/{name}/"})
    for part, entry in zip([p for p in parts if len(p.dialogues)], splits, strict=True):
        # the rows and the renderings in one walk over the split (rebuilding its dialogues is slow)
        write_split(
            directory / entry["dataset"] / entry["split"],
            part.dialogues,
            partial(_viewer_rows_visiting, part.dialogues, glosses, text_of),
            render=lambda dialogue: _scoped_anchors(str(render(dialogue, **render_options))),
            meta=partial(_viewer_meta, part, entry),
        )
    return splits


def _viewer_rows_visiting(
    dialogues: Sequence[Dialogue],
    glosses: Mapping[str, str] | None,
    text_of: Callable[[Dialogue], str],
    visit: Callable[[Dialogue], None],
) -> SplitRows:
    return viewer_rows(dialogues, glosses=glosses, text_of=text_of, visit=visit)


def _viewer_meta(part: _Part, entry: Mapping[str, str], rows: SplitRows) -> dict[str, Any]:
    from .viewer_fields import example_queries, identifying

    dataset = entry["dataset"]
    return {
        "identifying": identifying(dataset),
        "dataset": dataset,
        "title": get_source(dataset).title,
        "split": entry["split"],
        "label": part.label,
        "kind": part.kind or "",
        "queries": example_queries(dataset, rows),
    }


#: Where the book's viewer pages are, from the site's root (book/viewer/<dataset folder>.md).
VIEWER_PAGES = "book/viewer"


def _viewer_holder(splits: Sequence[Mapping[str, str]]) -> str:
    """Where viewer.js builds the chapter's compact view of its splits (a few rows, opening the
    dataset's viewer page; hidden until it does: without the script, nothing shows)."""
    if not splits:
        return ""
    page = f"{VIEWER_PAGES}/{get_source(splits[0]['dataset']).folder.name}.html"
    return f'<div class="atlas-viewer atlas-viewer-compact" data-viewer-page="{esc(page)}" hidden></div>'


def _encode_within_budget(chosen: list[_Chosen], fits: int, budget: int | None) -> tuple[list[_Chosen], str]:
    """The drawn items that fit the budget, in reading order (split, then index), and their encoding.

    The first ``fits`` items are known to fit (or are pinned, and stay whatever their size). The
    size grows almost linearly with the count, so a few interpolation steps find the cut.
    """
    best = _encode(chosen)
    if budget is None or len(best[1]) <= budget:
        return best
    high, high_size = len(chosen), len(best[1])
    low = max(fits, 1)  # with nothing known to fit, one item rather than none
    best = _encode(chosen[:low])
    low_size = len(best[1])
    for _ in range(_INTERPOLATION_STEPS):
        if high - low <= 1 or low_size >= budget:
            break
        guess = low + (budget - low_size) * (high - low) // max(high_size - low_size, 1)
        guess = min(max(guess, low + 1), high - 1)
        attempt = _encode(chosen[:guess])
        if len(attempt[1]) <= budget:
            low, low_size, best = guess, len(attempt[1]), attempt
        else:
            high, high_size = guess, len(attempt[1])
    return best


#: Encodings tried at most to find the cut (each compresses the whole payload).
_INTERPOLATION_STEPS = 6


def _human_size(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    return f"{size / 1000:.0f} kB" if size >= 1000 else f"{size} bytes"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}"


def _sample_sentence(
    parts: Sequence[_Part],
    chosen: Sequence[_Chosen],
    left_out: Sequence[_Part],
    *,
    noun: str,
    seed: int,
    budget: int | None,
    max_items: int | None,
) -> str:
    """The sentence under an explorer's title: how many items of how many are embedded, and how chosen."""
    total = sum(part.shown for part in parts)
    per_part = [sum(1 for c in chosen if c.part == number) for number in range(len(parts))]
    by_split = "; ".join(
        f"{part.label}: {k:,} of {part.shown:,}" for part, k in zip(parts, per_part, strict=True)
    )
    if len(chosen) == total:
        sentence = f"All {_count(total, noun)} are embedded in this page ({by_split})."
    else:
        pins = [f"{parts[c.part].label} #{c.index}" for c in chosen if c.pinned]
        first = f"the {noun} the chapter shows ({', '.join(pins)}), then " if pins else ""
        if max_items is not None and len(chosen) >= max_items:
            until = f"{max_items:,} were embedded"
        else:
            until = f"the page's budget of {_human_size(budget or 0)} of compressed data was used"
        sentence = (
            f"Embedded in this page: {len(chosen):,} of {_count(total, noun)} ({by_split}), chosen as {first}a "
            f"random sample of every split (seed {seed}), drawn from the split with the least data so far, "
            f"until {until}."
        )
    if left_out:
        names = ", ".join(part.label for part in left_out)
        sentence += f" Left out since real data is loaded: {names} (demo or synthetic stand-ins, not the dataset)."
    blank = "; ".join(f"{part.label}: {len(part.empty):,}" for part in parts if part.empty)
    if blank:
        sentence += f" Not counted or embedded: records without a single turn, with nothing to show ({blank})."
    return sentence


_CONTROLS = (
    # The controls start hidden: they only appear once explorer.js has unpacked the data, so a page
    # without the script shows a plain, correct rendering of the first item.
    '<div class="atlas-explorer-controls" hidden>'
    '<div class="atlas-explorer-bar">'
    '<label class="atlas-explorer-search-label">Search '
    '<input type="search" class="atlas-explorer-search" placeholder="text, label or English gloss" '
    'autocomplete="off" aria-keyshortcuts="/"></label>'
    '<span class="atlas-explorer-count" role="status" aria-live="polite"></span>'
    "</div>"
    '<details class="atlas-explorer-filters"><summary>Filter by label</summary>'
    '<div class="atlas-explorer-facets"></div></details>'
    '<div class="atlas-explorer-pager">'
    '<button type="button" class="atlas-explorer-prev" aria-label="previous item" aria-keyshortcuts="ArrowLeft">'
    "&#9664;</button>"
    '<select class="atlas-explorer-index" aria-label="item"></select>'
    '<button type="button" class="atlas-explorer-next" aria-label="next item" aria-keyshortcuts="ArrowRight">'
    "&#9654;</button>"
    "</div>"
    '<div class="atlas-explorer-linkbar">'
    '<span class="atlas-explorer-position"></span>'
    '<a class="atlas-explorer-permalink" href="#">link to this item</a>'
    '<button type="button" class="atlas-explorer-copy">Copy link</button>'
    '<input type="text" class="atlas-explorer-linkfield" readonly hidden aria-label="link to this item">'
    '<span class="atlas-explorer-copied" aria-live="polite"></span>'
    '<span class="atlas-explorer-keys">keys: &#8592; &#8594; page, / search</span>'
    "</div>"
    '<details class="atlas-explorer-stats"><summary>Column statistics</summary>'
    '<div class="atlas-explorer-charts"></div></details>'
    "</div>"
)


__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_SEED",
    "ENCODING",
    "SPLIT_FACET",
    "decode_items",
    "encode_items",
    "explorer_label",
    "explorer_search_text",
    "item_key",
    "json_for_script",
    "sample_order",
    "static_explorer",
    "viewer_rows",
]
