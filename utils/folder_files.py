"""What a dataset folder gives the book besides its code: files found by their names.

A folder of ``utils/datasets/`` may hold, beside its declaration, parser and renderer:

- ``citation.bib``: the BibTeX entries of the dataset itself (its papers, repositories, project
  pages, dataset cards). The book's bibliography is ``book/references.bib`` (the sources no one
  dataset owns) plus every folder's ``citation.bib``; the book adds them to Sphinx's
  ``bibtex_bibfiles`` when it starts, so ``_config.yml`` names none of them.
- ``by_hand.md``: its section of the book's page "Getting the data", on getting the files by hand
  (MyST Markdown: a label ``(data-<name>)=`` and a ``###`` heading, then the steps). The page
  includes every folder's section where it says ``{atlas-by-hand}``.
- ``render.css``: the CSS of the classes only its renderer uses; :func:`utils.book.render.stylesheet`
  serves the atlas's own rules followed by every folder's.

Each is looked for in every registered folder, in the registry's order (the book's order); a folder
without one gives nothing. :func:`folder_check` (``python -m utils.folder_files FOLDER``) lists every
part a folder may hold and what one it lacks leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from .errors import UnknownNameError
from .sources import registry

__all__ = [
    "BY_HAND",
    "CITATION",
    "CSS",
    "FOLDER_PARTS",
    "GENERAL_BIBLIOGRAPHY",
    "REQUIRED_PARTS",
    "bibliography_files",
    "bibtex_entries",
    "dataset_css",
    "dataset_folders",
    "entry_text",
    "folder_check",
    "folder_files",
]

CITATION = "citation.bib"
BY_HAND = "by_hand.md"
CSS = "render.css"
#: The bibliography's entries that belong to no one dataset (in a checkout of the repository; the
#: installed package does not carry the book).
GENERAL_BIBLIOGRAPHY = Path(__file__).resolve().parents[1] / "book" / "references.bib"


def dataset_folders() -> list[Path]:
    """Every registered dataset folder, once (a folder may declare several datasets), in the book's order."""
    return list(dict.fromkeys(source.folder for source in registry().values()))


def folder_files(name: str) -> list[Path]:
    """The file ``name`` of every registered folder that has one, in the book's order."""
    return [folder / name for folder in dataset_folders() if (folder / name).is_file()]


def bibliography_files() -> list[Path]:
    """The book's BibTeX files: the general one, then each folder's ``citation.bib``."""
    general = [GENERAL_BIBLIOGRAPHY] if GENERAL_BIBLIOGRAPHY.is_file() else []
    return general + folder_files(CITATION)


#: ``year = {2019a}``: a letter that tells apart the bibliography's sources of one first author and year
_YEAR_LETTER = re.compile(r"(\byear\s*=\s*[{\"]\d{4})[a-z]([}\"])")


#: the key of each entry of a BibTeX file
_KEY = re.compile(r"^@\w+\s*\{\s*([^,\s]+)\s*,", flags=re.MULTILINE)


def entry_text(text: str, key: str) -> str | None:
    """The BibTeX entry of ``key`` in ``text`` as written there (nested braces kept), or None."""
    start = re.search(r"@\w+\s*\{\s*" + re.escape(key) + r"\s*,", text)
    if start is None:
        return None
    depth = 0
    for position in range(text.index("{", start.start()), len(text)):
        depth += {"{": 1, "}": -1}.get(text[position], 0)
        if depth == 0:
            return text[start.start() : position + 1]
    raise ValueError(f"the BibTeX entry {key!r} is not closed")


def as_published(entry: str) -> str:
    """A BibTeX entry with the year as published: the bibliography's year letters (``2019a``,
    ``2019b``) only tell apart this book's sources of one first author and year."""
    return _YEAR_LETTER.sub(r"\1\2", entry)


def bibtex_entries(keys: Iterable[str], files: Iterable[Path] | None = None) -> str:
    """The BibTeX entries of ``keys``, as written in ``files`` (by default :func:`bibliography_files`),
    to copy: one copy of each entry, in the files, which a page quotes instead of repeating it.

    The year letters of the bibliography (``2019a``, ``2019b``) only tell apart this book's sources
    of one first author and year: an entry to copy carries the year as published.
    """
    texts = [(path, path.read_text(encoding="utf-8")) for path in (bibliography_files() if files is None else files)]
    entries = []
    for key in keys:
        found = [entry for _, text in texts if (entry := entry_text(text, key)) is not None]
        if not found:
            known = [name for _, text in texts for name in _KEY.findall(text)]
            raise UnknownNameError("bibliography key", key, known)
        entries.append(as_published(found[0]))
    return "\n\n".join(entries) + "\n"


def dataset_css() -> str:
    """Every folder's ``render.css``, in the book's order, each headed by a comment naming its folder."""
    return _css_of(tuple(folder_files(CSS)))


@cache
def _css_of(paths: tuple[Path, ...]) -> str:
    # Read once per set of folders: the stylesheet goes with every rendering a notebook shows.
    return "".join(f"\n/* {path.parent.name}/{CSS} */\n{path.read_text(encoding='utf-8')}" for path in paths)


# -- the contributor's check: what a folder holds, and what each optional part it lacks would give ------

#: Every part a folder holds or may hold, each with what the atlas does with it (file names only: no
#: dataset); the :data:`REQUIRED_PARTS` among them a folder cannot do without.
FOLDER_PARTS: tuple[tuple[str, str], ...] = (
    ("__init__.py", "its declaration (DATASETS): what the registry finds"),
    ("parser.py", "its original format read into the atlas's records"),
    ("render.py", "the renderings of its dialogues: the chapters, viewer and widgets show them"),
    ("viewer.py", "the data viewer's facets, columns, example SQL and viewer-page text (PAGE_ROWS)"),
    ("card.py", "the record sets of its Croissant card (`atlas croissant`): its fields and label vocabularies"),
    ("exercises.py", "its chapter's exercises in the course (`atlas course`): their checks and hidden tests"),
    ("scoring.py", "its tasks in `atlas score`: predictions formats and metric variants"),
    ("claims.py", "what its chapter's text states of the official files, checked on the files it ran on"),
    ("reported.py", "the authors' numbers beside the reproduced ones, each with its source"),
    (CITATION, "its entries in the book's bibliography and on the cite page"),
    (BY_HAND, "its section of 'Getting the data': the files by hand"),
    (CSS, "the rules of classes only its renderer uses"),
    ("demo", "its demo sample: the offline fallback, and the seed of the fuzz and HTML-safety tests"),
    ("tests", "its own tests, collected with the suite"),
)


#: The parts without which a folder is not a dataset the atlas can load and show.
REQUIRED_PARTS = ("__init__.py", "parser.py", "render.py")


def folder_check(name: str) -> list[tuple[str, bool, str]]:
    """``(part, present, what it gives)`` for every part a dataset folder may hold: the contributor's
    check (``python -m utils.folder_files FOLDER``), which says what a missing part leaves out."""
    folder = next((path for path in dataset_folders() if path.name == name), None)
    if folder is None:
        raise UnknownNameError("dataset folder", name, [path.name for path in dataset_folders()])
    return [(part, (folder / part).exists(), gives) for part, gives in FOLDER_PARTS]


def main(argv: list[str] | None = None) -> int:
    """Print :func:`folder_check` for each folder named (every registered folder by default). Exit
    status 1 when a folder lacks a required part, 2 for a name that is no dataset folder."""
    import sys

    names = (sys.argv[1:] if argv is None else argv) or [path.name for path in dataset_folders()]
    status = 0
    for name in names:
        try:
            parts = folder_check(name)
        except UnknownNameError as error:
            print(error.args[0] if error.args else error, file=sys.stderr)
            return 2
        print(f"utils/datasets/{name}/")
        for part, present, gives in parts:
            required = part in REQUIRED_PARTS
            print(f"  {'has' if present else 'LACKS' if required else 'lacks':5} {part:14} {gives}")
            status = 1 if required and not present else status
    return status


if __name__ == "__main__":
    raise SystemExit(main())
