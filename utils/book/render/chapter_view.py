"""A chapter's view of its dataset: the dialogues its prose discusses, and the way into the data viewer.

:func:`chapter_view` writes, during a book build, every split's files for the book's data viewer
(:mod:`utils.book.viewer_files`, read by the ES modules in ``book/_static/viewer/``) and returns the chapter's
block: each pinned dialogue rendered on the server by the dataset's renderer (which escapes every
dataset string), with a link to the dataset's viewer page (``book/viewer/<dataset>.md``) open at its
split and row, and the compact view (a few rows of each split; a row opens the viewer page at the same
split and row). Without the viewer's script (in Jupyter, or with JavaScript off) the pinned
dialogues still show; opened from disk (``file://``), a note says how to serve the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from utils.book.render import render_dialogue
from utils.book.render._html import SafeHTML, esc, json_for_script, stylesheet
from utils.book.viewer_fields import columns, facets, search_words
from utils.errors import UnknownNameError
from utils.records import Dialogue
from utils.sources import DatasetSource, get_source, registry, source_of

if TYPE_CHECKING:
    from utils.book.viewer_files import SplitRows


def default_search_text(dialogue: Dialogue) -> str:
    """What a search matches by default: topic, every turn's text, every evidence title."""
    titles = {item.title for turn in dialogue.turns for item in turn.evidence if item.title}
    parts = [dialogue.topic or "", *(turn.text for turn in dialogue.turns), *sorted(titles)]
    return " ".join(part for part in parts if part)


def _dataset_search_text(dialogue: Dialogue) -> str:
    """The dataset's own search text (as its viewer in Jupyter searches), else :func:`default_search_text`."""
    own = source_of(dialogue).search_text
    return own(dialogue) if own else default_search_text(dialogue)


@dataclass(frozen=True)
class _Part:
    """One split as the chapter's view shows it: its name, its dialogues, when known its provenance kind,
    and the name readers see (``valid seen`` for ``valid_seen``)."""

    name: str
    dialogues: Sequence[Dialogue]
    kind: str | None
    label: str


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
        parts.append(_Part(str(name), dialogues, getattr(provenance, "kind", None), label))
    return parts


def viewer_page(dataset: str) -> str:
    """The viewer page of ``dataset``, from the site's root (``book/viewer/<folder>.html``)."""
    return _viewer_page_of(get_source(dataset))


def _viewer_page_of(source: DatasetSource) -> str:
    return f"{VIEWER_PAGES}/{source.folder.name}.html"


def viewer_page_source(folder: str) -> str:
    """The viewer page of a dataset folder (``book/viewer/<folder>.md``), as the book's build writes it:
    the datasets the folder declares, what their rows are (``PAGE_ROWS`` of the folder's ``viewer.py``)
    and where the page keeps its tools. A folder needs no page of its own."""
    sources = [source for source in registry().values() if source.folder.name == folder]
    if not sources:
        raise UnknownNameError("dataset folder", folder, sorted({s.folder.name for s in registry().values()}))
    main = next((source for source in sources if source.name == folder), sources[0])
    title = main.title.split(" (")[0]  # the name a reader knows it by, not its expansion in brackets
    rows = main.hook("viewer", "PAGE_ROWS") or f"Every row of every split of {title}"
    names = " ".join(source.name for source in sources)
    return (
        "---\nhtml_theme.sidebar_secondary.remove: true\n---\n\n"
        f"# {title}: the data viewer\n\n"
        f"{rows}, at three levels (dialogues, turns, evidence). Search and sort here; filters, downloads and an "
        "embed snippet are in the panel under the search, every split and level is queryable in SQL below the "
        f"rows, and the view is kept in the page's address. The chapter on {title} explains the data.\n\n"
        f'<div class="atlas-viewer atlas-viewer-wide" data-datasets="{esc(names)}" hidden></div>\n'
    )


def viewer_link(dialogue: Dialogue, *, from_root: str = "../") -> str:
    """The address of the dataset's viewer page open at ``dialogue`` (its split, the dialogues level,
    the row with its id), from a chapter (``notebooks/<name>.html``: one folder below the root).
    The fragment is written as the viewer's url-state.js writes it (``/`` kept, spaces as ``+``)."""
    from urllib.parse import quote

    def value(text: str) -> str:
        return quote(text, safe="/!'()*~-_.").replace("%20", "+")

    split = f"{dialogue.dataset}/{dialogue.split}"
    return (f"{from_root}{_viewer_page_of(source_of(dialogue))}#viewer={value(split)}&level=dialogues"
            f"&row={value(str(dialogue.id))}")


def chapter_view(
    splits: Mapping[str, Sequence[Dialogue]] | Sequence[Dialogue],
    *,
    title: str = "The dialogues in the data viewer",
    note: str | None = None,
    pinned: Mapping[str, Iterable[int]] | None = None,
    render: Callable[..., str] = render_dialogue,
    search_text: Callable[[Dialogue], str] | None = None,
    glosses: Mapping[str, str] | None = None,
    split_labels: Mapping[str, str] | None = None,
    **render_options: Any,
) -> SafeHTML:
    """A chapter's block: its pinned dialogues rendered, each linking to the viewer page at its row,
    and the compact view of every split of ``splits`` (written for the data viewer during a build).

    ``splits`` maps a split's name to its dialogues (a loaded split or a list; a plain sequence is one
    split). ``pinned`` names, per split, the positions of the dialogues the chapter's prose discusses
    (a record without turns is left out: it has nothing to show). ``note`` is shown under the title
    (by default, what data each split is: ``train: official; valid seen: demo sample``). ``render``
    and ``render_options`` choose the rendering (``glosses`` is passed to ``render`` and its English
    is searched in the viewer too); ``search_text`` replaces the dataset's default search text.
    Splits are shown to readers by ``split_labels`` (``{"kilt_dev": "KILT dev"}``), else by their name
    with spaces for underscores.
    """
    parts = _parts(splits, split_labels)
    if glosses is not None:
        render_options["glosses"] = glosses
    text_of = search_text or _dataset_search_text
    by_name = {part.name: part for part in parts}
    pinned_html = []
    for name, indices in (pinned or {}).items():
        if name not in by_name:
            raise ValueError(f"pinned split {name!r} is not among the chapter's splits {sorted(by_name)}")
        part = by_name[name]
        for index in indices:
            if not 0 <= index < len(part.dialogues):
                raise ValueError(f"pinned index {index} is outside split {name!r} ({len(part.dialogues)} items)")
            dialogue = part.dialogues[index]
            if not dialogue.turns:
                continue  # an audit file's blank row: nothing to show
            html = _scoped_anchors(str(render(dialogue, **render_options)))
            caption = (f'<figcaption class="atlas-chapter-pinned-caption">{esc(part.label)} #{index} '
                       f'(id {esc(dialogue.id)}): <a href="{esc(viewer_link(dialogue))}">open it in the data '
                       f"viewer</a></figcaption>")
            pinned_html.append(f'<figure class="atlas-chapter-pinned" data-split="{esc(name)}" '
                               f'data-index="{index}">{caption}{html}</figure>')
    if note is None:
        note = "; ".join(f"{part.label}: {part.kind}" for part in parts if part.kind)
    note_html = f'<div class="atlas-chapter-view-note">{esc(note)}</div>' if note else ""
    viewer_splits = _write_viewer(parts, render, render_options, glosses, text_of)
    # the splits the compact view shows (none outside a book build: no files, so no viewer to offer)
    data = (f'<script type="application/json" class="atlas-viewer-data">'
            f'{json_for_script({"viewer": viewer_splits})}</script>') if viewer_splits else ""
    return SafeHTML(
        f'<section class="atlas-chapter-view" aria-label="{esc(title)}">'
        f'<div class="atlas-chapter-view-title">{esc(title)}</div>{note_html}{"".join(pinned_html)}'
        f"{data}{_viewer_holder(viewer_splits)}{stylesheet()}</section>"
    )


#: Prefix of the anchors inside pinned renderings (see :func:`_scoped_anchors`).
ANCHOR_SCOPE = "explore-"
_ID = re.compile(r'(\sid=")([^"]+)"')
_IN_PAGE_LINK = re.compile(r'(\shref="#)([^"]+)"')


def _scoped_anchors(html: str) -> str:
    """``html`` with its ``id``s, and the links to them, prefixed by :data:`ANCHOR_SCOPE`.

    A chapter often shows the same dialogue above its view too; with the same ids twice, a citation
    clicked in the pinned rendering would jump to the copy above. Only attributes the renderer wrote can
    match (in escaped dataset text a quote is ``&#34;``); links to anything outside the rendering, a
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




#: Where the viewer's data files sit in the built site, from its root.
VIEWER_PATH = "_viewer"


def viewer_rows(
    dialogues: Sequence[Dialogue],
    *,
    glosses: Mapping[str, str] | None = None,
    text_of: Callable[[Dialogue], str] | None = None,
) -> SplitRows:
    """One split's rows as the book's data viewer shows them: the three levels of
    :func:`utils.book.viewer_files.split_rows` with the dataset's facets, columns, search words and English
    glosses, grouped as the dataset groups them (:func:`utils.book.viewer_fields.dataset_rows`).
    ``text_of`` is the dialogue's search text (by default the dataset's own)."""
    from utils.book.glosses import english
    from utils.book.viewer_fields import dataset_rows, row_texts, single_labels
    from utils.book.viewer_files import split_rows
    from utils.sources import get_source

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
    :func:`utils.book.viewer_files.viewer_dir`) and return where they are, for viewer.js."""
    from utils.book.viewer_files import viewer_dir, write_split

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
        # the rows made inside write_split, which lets each level's frame go once written
        write_split(
            directory / entry["dataset"] / entry["split"],
            part.dialogues,
            partial(viewer_rows, part.dialogues, glosses=glosses, text_of=text_of),
            render=lambda dialogue: _scoped_anchors(str(render(dialogue, **render_options))),
            meta=partial(_viewer_meta, part, entry),
        )
    return splits


def _viewer_meta(part: _Part, entry: Mapping[str, str], rows: SplitRows) -> dict[str, Any]:
    from utils.book.viewer_fields import column_notes, example_queries, identifying

    dataset = entry["dataset"]
    return {
        "identifying": identifying(dataset),
        "dataset": dataset,
        "title": get_source(dataset).title,
        "split": entry["split"],
        "label": part.label,
        "kind": part.kind or "",
        "queries": example_queries(dataset, rows),
        "column_notes": column_notes(dataset),
    }


#: Where the book's viewer pages are, from the site's root (book/viewer/<dataset folder>.md).
VIEWER_PAGES = "book/viewer"


def _viewer_holder(splits: Sequence[Mapping[str, str]]) -> str:
    """Where viewer.js builds the chapter's compact view of its splits (a few rows, opening the
    dataset's viewer page; hidden until it does: without the script, nothing shows)."""
    if not splits:
        return ""
    page = viewer_page(splits[0]["dataset"])
    return f'<div class="atlas-viewer atlas-viewer-compact" data-viewer-page="{esc(page)}" hidden></div>'


__all__ = ["chapter_view", "default_search_text", "viewer_link", "viewer_page", "viewer_page_source", "viewer_rows"]
