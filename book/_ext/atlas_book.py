"""Small Sphinx fixes for the atlas's book.

sphinx-thebe registers its inline configuration script once per read phase, and jupyter-book 1.x
runs that phase twice, so every page declared ``const THEBE_JS_URL`` twice and threw a SyntaxError
on load. We keep the first copy of each identical script.

Exercises are numbered per chapter: sphinx-exercise numbers them through Sphinx's figure numbers,
which run on across the whole book in an unnumbered table of contents (the FaithDial chapter's first
exercise was "Exercise 4"). After Sphinx assigns the numbers, each page's exercises are renumbered
from 1 in their order on the page, so the chapter, its contents and the teachers' guide all say
"Exercise 1" for a chapter's first exercise.

The **student edition** (``ATLAS_EDITION=student``, ``make book EDITION=student``) reads every
chapter as its learner copy (:mod:`utils.teaching.learner`: no solution, no model answer, no cell computing
an answer, no autograded test) and leaves the teachers' guide out but for how times are measured;
its launch buttons open the learner copies, which the publishing workflow keeps on the branch
``atlas_learner_branch``. In both editions a chapter page links its learner copy for download, and
a Markdown page has no launch buttons (Binder and Colab open notebooks, not MyST Markdown).

The book cites author-year ("Dziri et al., 2022c"), so its bibliography is labelled the same way
instead of [1]-[17]: the ``atlas`` bibliography style is pybtex's ``plain`` with author-year labels.

The renderings' rules (:func:`utils.book.render.stylesheet_css`) are written to ``_static/atlas-render.css`` at
each build and linked from every page: notebook outputs carry them, but a viewer page has none, and the
rows it opens were unstyled. A chapter is written in the notebook to read in JupyterLab: its Time to learn
line (:data:`utils.book.chapters.TIME_TO_LEARN_LINE`), its computed values (inline expressions) and its citations
(links to the bibliography); the build reads them as the measured value, glue roles and citations.
:func:`published_links` derives the addresses the README gives (the site, its screenshot, Binder,
Colab) from ``_config.yml``.

What a dataset folder holds for the book (:mod:`utils.folder_files`) is found there, so adding a
folder needs no edit to the book's settings or pages: its ``citation.bib`` joins ``bibtex_bibfiles``
when the build starts, a page's ``{atlas-by-hand}`` block becomes every folder's ``by_hand.md`` (MyST
includes, in the book's order), and ``{atlas-bibtex} KEY ...`` shows entries of those files to copy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.util import logging
from sphinx.util.console import bold
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

#: The SQL console's files, from the npm packages ``make vendor`` installs into book/_vendor.
VENDOR = Path(__file__).resolve().parents[1] / "_vendor" / "node_modules"
#: package-relative source -> name in the site's ``_static/vendor/duckdb``
VENDOR_FILES = {
    "@duckdb/duckdb-wasm/dist/duckdb-browser.mjs": "duckdb-browser.mjs",
    "@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js": "duckdb-browser-eh.worker.js",
    "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm": "duckdb-eh.wasm",
    # the package ships no licence file; its package.json declares MIT
    "@duckdb/duckdb-wasm/package.json": "duckdb-wasm-package.json",
    "apache-arrow/Arrow.es2015.min.js": "Arrow.es2015.min.js",
    "apache-arrow/LICENSE.txt": "LICENSE-apache-arrow.txt",
    "apache-arrow/NOTICE.txt": "NOTICE-apache-arrow.txt",
}
#: The environment variable that selects the edition: ``student`` (see above) or the default, ``teacher``.
EDITION_VARIABLE = "ATLAS_EDITION"
#: Where a build writes the learner copies it links, under the site's root.
LEARNER_DIR = "learner"
#: Set on every page of a book built without the SQL console's files: the viewer says so in its place.
SQL_CONSOLE_MISSING_META = '<meta name="atlas-sql-console" content="missing">'
SQL_CONSOLE_MISSING = (
    "the SQL console's files are not installed (npm was not found, or `make vendor` was not run): the book is "
    "built without its SQL console, and its data viewers say so (make system-deps installs Node.js and npm)"
)
#: The environment variable that makes a build a publication: rows of datasets whose licence does not
#: allow redistribution are left out of the site.
PUBLISH_VARIABLE = "ATLAS_PUBLISH_SITE"


#: Where the site carries the screenshot the browser test of the built site takes (the README shows it).
SCREENSHOT = "_static/atlas-screenshot.png"


def published_links(config: dict[str, Any]) -> dict[str, str]:
    """The addresses the README links, from ``_config.yml``'s ``repository`` (and ``launch_buttons``):
    ``site`` (the book on GitHub Pages, where the publishing workflow deploys it), ``screenshot``, and
    ``binder`` and ``colab`` (on the learner copies) where the configuration names them. The one place
    they are derived."""
    url = str(config["repository"]["url"]).rstrip("/")
    match = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+)", url)
    if match is None:
        raise ValueError(f"_config.yml: repository.url {url!r} is not a GitHub repository's address")
    owner, name = match.groups()
    site = f"https://{owner.lower()}.github.io/{name}/"
    links = {"site": site, "screenshot": site + SCREENSHOT}
    buttons = config.get("launch_buttons") or {}
    # The badges open the learner copies (no solutions), on the branch the publishing workflow keeps
    # them on, as the published student edition's buttons do: the README is read by students too.
    learner = str(config.get("sphinx", {}).get("config", {}).get("atlas_learner_branch") or "learner-copies")
    if buttons.get("binderhub_url"):  # JupyterLab on the learner copies
        binder = buttons["binderhub_url"].rstrip("/")
        links["binder"] = f"{binder}/v2/gh/{owner}/{name}/{learner}?urlpath=lab/tree/wow.ipynb"
    if buttons.get("colab_url"):  # the first chapter's learner copy
        colab = buttons["colab_url"].rstrip("/")
        links["colab"] = f"{colab}/github/{owner}/{name}/blob/{learner}/wow.ipynb"
    return links


def _drop_duplicate_scripts(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, str]] = set()
    unique = []
    for script in scripts:
        # An inline script's filename is None or "" depending on who added it: compare bodies.
        filename = getattr(script, "filename", script) or ""
        key = (str(filename), str(getattr(script, "attributes", {}).get("body", "")))
        if key in seen:
            continue
        seen.add(key)
        unique.append(script)
    context["script_files"] = unique


#: A prose table (MyST's ``<table class="table">``) scrolls sideways when wider than the column.
_PROSE_TABLE = re.compile(r'<table class="table"(?![^>]*tabindex)')


def _accessible_body(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Markup fixes axe-core asks for, made to each page's body before the theme wraps it.

    * docutils marks each bibliography entry ``role="doc-biblioentry"`` inside a ``role="list"``;
      ARIA 1.3 deprecates that role, so axe-core (4.10+) reads the entries as no list items and
      the list's children as not allowed (a critical violation). Each entry becomes a ``listitem``.
    * a prose table that scrolls sideways is focusable, so that a keyboard can scroll it.
    """
    body = context.get("body")
    if not body:
        return
    body = body.replace('role="doc-biblioentry"', 'role="listitem"')
    body = _PROSE_TABLE.sub('<table class="table" tabindex="0"', body)
    context["body"] = body


def _author_year_style() -> type:
    from pybtex.richtext import Text
    from pybtex.style.formatting.plain import Style as Plain
    from pybtex.style.labels import BaseLabelStyle
    from pybtex.style.sorting.author_year_title import SortingStyle as AuthorYearTitle

    def surname(person: Any) -> str:
        # LaTeX braces ("{Facebook AI Research}", "Rockt{\\"a}schel") rendered as a reader sees them
        return Text.from_latex(" ".join(person.prelast_names + person.last_names)).render_as("text")

    class AuthorYearLabels(BaseLabelStyle):
        """``Dinan et al., 2019a``, ``Robertson and Zaragoza, 2009``: the label a citation in the text shows."""

        def format_labels(self, sorted_entries: Any) -> Any:
            for entry in sorted_entries:
                people = entry.persons.get("author") or entry.persons.get("editor") or []
                if len(people) > 2:
                    who = f"{surname(people[0])} et al."
                elif people:
                    who = " and ".join(surname(person) for person in people)
                else:
                    who = entry.key
                yield f"{who}, {entry.fields.get('year', 'n.d.')}"

    class ReadersOrder(AuthorYearTitle):
        """Sorted as the labels read: an organisation's braced name ("{GEM benchmark}") by its letters."""

        def person_key(self, person: Any) -> str:
            return super().person_key(person).replace("{", "").replace("}", "")

    class AuthorYear(Plain):
        default_label_style = AuthorYearLabels
        default_sorting_style = ReadersOrder

    return AuthorYear


def _say_the_data(app: Any) -> None:
    """The build's log says which data the chapters run on: the data directory, then one line per
    dataset with what each split is built on (as ``atlas status`` lists them; issue 50)."""
    from utils import config
    from utils.split_files import dataset_lines

    logger.info(bold(f"atlas: data directory {config.data_dir()}"))
    for line in dataset_lines():
        logger.info(f"atlas: {line}")


def _encrypt_kernels(app: Any) -> None:
    """The chapters' kernels, started by this process, talk to it with CurveZMQ keys the kernel
    manager provisions, where the kernel says it can (ipykernel 7.4 and later): each kernel started
    without them warns that it "is running over TCP without encryption", once per chapter in the
    log (issue 50). The default is set on the class: myst-nb makes its kernel managers without a
    configuration this process could pass."""
    from jupyter_client.manager import KernelManager

    if "transport_encryption" in KernelManager.class_traits():  # jupyter_client 8.10 and later
        KernelManager.transport_encryption.default_value = "auto"


def _viewer_dir(app: Any) -> Path:
    return Path(app.outdir) / "_viewer"


def _start_viewer(app: Any) -> None:
    """Chapters run in kernels started by this process: tell them where the viewer's files go."""
    if app.builder.format != "html":
        return
    if _missing_vendor_files():  # said first, so that a reader of the build's output is not surprised
        logger.info(bold(f"atlas: {SQL_CONSOLE_MISSING}"))
    directory = _viewer_dir(app)
    # Not emptied: a chapter that is executed rewrites its splits' files, and an incremental build that
    # executes no chapter keeps the pages, and so the files, of the previous one.
    directory.mkdir(parents=True, exist_ok=True)
    os.environ["ATLAS_VIEWER_DIR"] = str(directory)


def _missing_vendor_files() -> list[str]:
    return [name for name in VENDOR_FILES if not (VENDOR / name).is_file()]


def _mark_missing_sql_console(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if _missing_vendor_files():
        context["metatags"] = context.get("metatags", "") + SQL_CONSOLE_MISSING_META + "\n"


def _copy_vendor(outdir: Path) -> bool:
    """DuckDB-WASM and Apache Arrow into ``_static/vendor/duckdb``, served by the book itself; False
    (and nothing copied) when they are not installed: a book built without npm has no SQL console.

    duckdb-browser.mjs imports the bare name ``apache-arrow``, which a browser cannot resolve without
    a bundler; the copy imports our shim (``_static/viewer-arrow.mjs``, which re-exports the Arrow
    bundle's global) instead. Nothing else in the files changes.
    """
    target = outdir / "_static" / "vendor" / "duckdb"
    if _missing_vendor_files():
        # files of an earlier build would contradict the pages, which say the console is missing
        shutil.rmtree(target, ignore_errors=True)
        return False
    target.mkdir(parents=True, exist_ok=True)
    for source, name in VENDOR_FILES.items():
        if name == "duckdb-browser.mjs":
            text = (VENDOR / source).read_text(encoding="utf-8")
            rewritten = text.replace('from"apache-arrow"', 'from"../../viewer-arrow.mjs"')
            if 'from"apache-arrow"' not in text or "apache-arrow\"" in rewritten.replace('"apache-arrow":', ""):
                raise RuntimeError(f"{source}: its imports of apache-arrow are not written as expected")
            (target / name).write_text(rewritten, encoding="utf-8")
        else:
            shutil.copyfile(VENDOR / source, target / name)
    return True


def _withhold_unlicensed(directory: Path) -> list[str]:
    """Remove the rows of datasets whose licence does not allow redistribution (demo samples are the
    atlas's own and stay); each gets ``withheld.json`` with the reason, which the viewer shows."""
    from utils.loading import DEMO, SYNTHETIC
    from utils.sources import get_source

    withheld = []
    for dataset_dir in sorted(path for path in directory.iterdir() if path.is_dir()):
        source = get_source(dataset_dir.name)
        if source.redistributable:
            continue
        for split_dir in sorted(path for path in dataset_dir.iterdir() if path.is_dir()):
            manifest = json.loads((split_dir / "manifest.json").read_text(encoding="utf-8"))
            if manifest.get("kind") in (DEMO, SYNTHETIC):
                continue
            shutil.rmtree(split_dir)
            split_dir.mkdir()
            (split_dir / "withheld.json").write_text(
                json.dumps({"dataset": source.title, "licence": source.license, "reason": source.redistribution}),
                encoding="utf-8",
            )
            withheld.append(f"{dataset_dir.name}/{split_dir.name}")
    return withheld


#: Where the built site carries each dataset's Croissant card (``<name>.croissant.json``), linked from
#: the page "Getting the data".
CARDS = Path("_static") / "croissant"


def _write_cards(outdir: Path) -> None:
    """Each dataset's Croissant card (``atlas croissant``), written at build time so that it cannot go
    stale: the declarations it is made from are those the book was built with."""
    from utils.croissant import write_card
    from utils.sources import registry

    target = outdir / CARDS
    target.mkdir(parents=True, exist_ok=True)
    for name in registry():
        write_card(name, target / f"{name}.croissant.json")


#: The renderings' stylesheet in the built site (``_static/``): :func:`utils.book.render.stylesheet_css`, the
#: rules every notebook output carries in a ``<style>`` element. A viewer page (``book/viewer/*.md``) has no
#: notebook output, so the rows it opens would show unstyled without it: every page links it.
RENDER_CSS = "atlas-render.css"


def _write_render_css(app: Any, exception: BaseException | None) -> None:
    """Written from the package at each build (never a copy kept in ``book/_static``): the one source
    of the rules stays ``utils/book/render/atlas.css`` and the dataset folders' ``render.css``."""
    if exception is not None or app.builder.format != "html":
        return
    from utils.book.render import stylesheet_css

    target = Path(app.outdir) / "_static" / RENDER_CSS
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(stylesheet_css(), encoding="utf-8")


#: The splits whose viewer files a build wrote, for the viewer pages (book/viewer/<dataset>.md).
VIEWER_INDEX = "index.json"


def write_viewer_index(directory: Path) -> list[dict[str, str]]:
    """List every split under ``directory`` (``_viewer``), as the viewer pages read it: dataset, split,
    label and path from each split's manifest, in the registry's order of datasets and of their splits."""
    from utils.sources import registry

    sources = registry()
    splits = []
    for split_dir in sorted(path for path in directory.glob("*/*") if path.is_dir()):
        # a split withheld by an earlier publishing build has only withheld.json: listed, it says why
        found = [split_dir / name for name in ("manifest.json", "withheld.json") if (split_dir / name).is_file()]
        written = found[0] if found else None
        if written is None:
            continue
        manifest = json.loads(written.read_text(encoding="utf-8"))
        dataset, split = split_dir.parent.name, split_dir.name
        splits.append({"dataset": dataset, "split": split, "label": str(manifest.get("label") or split),
                       "path": f"_viewer/{dataset}/{split}/"})
    datasets = list(sources)

    def order(entry: dict[str, str]) -> tuple[int, int, str]:
        source = sources.get(entry["dataset"])
        names = list(source.splits) if source else []
        return (datasets.index(entry["dataset"]) if source else len(datasets),
                names.index(entry["split"]) if entry["split"] in names else len(names), entry["split"])

    splits.sort(key=order)
    index = json.dumps({"splits": splits}, ensure_ascii=False, indent=1)
    (directory / VIEWER_INDEX).write_text(index, encoding="utf-8")
    return splits


def _finish_viewer(app: Any, exception: BaseException | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    _write_cards(Path(app.outdir))
    if _viewer_dir(app).is_dir():  # before any split is withheld: its page then says why it has no rows
        write_viewer_index(_viewer_dir(app))
    if not _copy_vendor(Path(app.outdir)):
        logger.info(bold(f"atlas: {SQL_CONSOLE_MISSING}"))
    if os.environ.get(PUBLISH_VARIABLE) == "1" and _viewer_dir(app).is_dir():
        _withhold_unlicensed(_viewer_dir(app))


def _student_edition() -> bool:
    edition = os.environ.get(EDITION_VARIABLE, "teacher").strip().lower() or "teacher"
    if edition not in ("teacher", "student"):
        raise ValueError(f"${EDITION_VARIABLE} is {edition!r}: use 'student' or 'teacher'")
    return edition == "student"


def _student_source(app: Any, docname: str, source: list[str]) -> None:
    """In the student edition, a chapter is read as its learner copy, and the teachers' guide as the
    one section of it a student needs (how the chapters' times are measured)."""
    if not _student_edition():
        return
    path = Path(app.env.doc2path(docname))
    if path.suffix == ".ipynb" and docname.startswith("notebooks/"):
        import nbformat

        from utils.teaching.learner import PLACEHOLDER_TAG, WRITTEN_ANSWER_TAG, learner_notebook

        copy, _ = learner_notebook(nbformat.reads(source[0], as_version=4), name=path.name)
        # The page shows the tasks; answering and checking happen in the downloaded copy (a
        # placeholder raises until it is answered, so it cannot even run here).
        work = {PLACEHOLDER_TAG, WRITTEN_ANSWER_TAG, "check", "learner-note"}
        copy.cells = [cell for cell in copy.cells if not work & set(cell.metadata.get("tags", []))]
        source[0] = nbformat.writes(copy)
    elif docname == "book/teaching":
        text = source[0]
        front, _, body = text.partition("\n---\n") if text.startswith("---\n") else ("", "", text)
        start = body.index("(time-to-learn)=")
        end = body.index("\n### ", start + len("(time-to-learn)=\n### "))
        code = body[body.index("```{code-cell}", body.index("## The chapters at a glance")) :]
        code = code[: code.index("```\n", code.index("\n")) + 4]
        source[0] = (
            (front + "\n---\n" if front else "")
            + "# Teaching with the atlas\n\nThis is the **student edition** of the book: the teachers' guide "
            "(model answers, rubrics, grading) is left out. Each chapter page links its learner copy, the "
            "notebook you work in.\n\n"
            + code
            + "\n"
            + body[start:end].replace("\n### ", "\n## ", 1)
            + "\n(checking-answers)=\n## Checking and grading\n\nUnder each exercise of a learner copy, a practice "
            "check prints `Correct` or `Not yet` with the likely slip; it grades nothing. When your teacher "
            "grades with the atlas's course (nbgrader), the grade comes from tests that run on the data the "
            "teacher loads, so work on the data your class was told to use.\n"
        )


def _learner_copies(app: Any, exception: BaseException | None) -> None:
    """Every chapter's learner copy in the site, for the download link on its page."""
    if exception is not None or app.builder.format != "html":
        return
    from utils.teaching.learner import write_learner_copies

    chapters = Path(app.srcdir) / "notebooks"
    if any(chapters.glob("*.ipynb")):  # a project of other pages only has no copies to write
        write_learner_copies(chapters, Path(app.outdir) / LEARNER_DIR)


def _launch_and_download_buttons(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """After the theme's launch buttons: none on a Markdown page; a chapter's learner copy as a
    download; in the student edition, Binder and Colab open the learner copy."""
    buttons = context.get("header_buttons")
    if buttons is None:
        return
    source = Path(app.env.doc2path(pagename)) if pagename in app.env.all_docs else None
    launch = [b for b in buttons if b.get("type") == "group" and b.get("label") == "launch-buttons"]
    if source is None or source.suffix != ".ipynb":
        for group in launch:
            buttons.remove(group)
        return
    if not pagename.startswith("notebooks/"):
        return
    name = source.name
    relative = "../" * pagename.count("/")
    for group in buttons:
        if group.get("type") == "group" and group.get("label") == "download-buttons":
            group["buttons"].append(
                {
                    "type": "link",
                    "url": f"{relative}{LEARNER_DIR}/{name}",
                    "text": "learner copy",
                    "tooltip": "Download the learner copy: this chapter with the solutions removed",
                    "icon": "fas fa-graduation-cap",
                    "label": "download-learner-button",
                }
            )
    if not _student_edition():
        return
    branch = app.config.atlas_learner_branch
    for group in launch:
        for button in group.get("buttons", []):
            url = button.get("url", "")
            if "/v2/gh/" in url:  # Binder: the learner branch, opened at the copy
                base = url.split("?", 1)[0].rsplit("/", 1)[0]
                button["url"] = f"{base}/{branch}?urlpath=tree/{name}"
            elif "/github/" in url and "/blob/" in url:  # Colab: the copy on the learner branch
                button["url"] = url.split("/blob/", 1)[0] + f"/blob/{branch}/{name}"


def _add_folder_bibliographies(app: Any, config: Any) -> None:
    """Each registered dataset folder's ``citation.bib`` after the files ``_config.yml`` names
    (sphinxcontrib-bibtex reads the list when the builder starts, after this)."""
    from utils.folder_files import CITATION, folder_files

    if "bibtex_bibfiles" not in config:  # a project without sphinxcontrib-bibtex has no bibliography
        return
    listed = list(config.bibtex_bibfiles)
    known = {Path(app.srcdir, name).resolve() for name in listed}
    for path in folder_files(CITATION):
        if path.resolve() not in known:
            # relative to the book's root, as the names in _config.yml are
            listed.append(Path(os.path.relpath(path, app.srcdir)).as_posix())
    config.bibtex_bibfiles = listed


def _chapter_book_lines(app: Any, docname: str, source: list[str]) -> None:
    """A chapter's lines written to read in JupyterLab (:func:`utils.book.chapters.book_source`) are read as
    the book's: its Time to learn, unknown there before its last cell runs, gets the measured value;
    its inline expressions (``{eval}`name```) the values glued when the book ran it; its links to the
    bibliography become citations. Connected after the student edition's rewrite, so the learner copy
    a student edition reads is changed too."""
    if not docname.startswith("notebooks/") or Path(app.env.doc2path(docname)).suffix != ".ipynb":
        return
    import nbformat

    from utils.book.chapters import book_source, markdown_glued

    notebook = nbformat.reads(source[0], as_version=4)
    markdown_names = markdown_glued("\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code"))
    changed = False
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            text = book_source(cell.source, markdown_names)
            changed |= text != cell.source
            cell.source = text
    if changed:
        source[0] = nbformat.writes(notebook)


#: The block a page writes where every folder's "by hand" section goes.
BY_HAND_BLOCK = "```{atlas-by-hand}\n```"


def by_hand_includes(page: Path) -> str:
    """MyST includes of every registered folder's ``by_hand.md``, in the book's order, relative to ``page``."""
    from utils.folder_files import BY_HAND, folder_files

    return "\n\n".join(
        f"```{{include}} {Path(os.path.relpath(path, page.parent)).as_posix()}\n```" for path in folder_files(BY_HAND)
    )


def _include_by_hand_sections(app: Any, docname: str, source: list[str]) -> None:
    if BY_HAND_BLOCK not in source[0]:
        return
    source[0] = source[0].replace(BY_HAND_BLOCK, by_hand_includes(Path(app.env.doc2path(docname))))


class BibtexEntries(SphinxDirective):
    """``{atlas-bibtex} KEY ...``: the BibTeX entries of the keys, from the book's bibliography files,
    as a code block to copy (the files are the one copy: a page quotes them, never a copy of them)."""

    required_arguments = 1
    optional_arguments = 20

    def run(self) -> list[Any]:
        from utils.errors import UnknownNameError
        from utils.folder_files import bibtex_entries

        # the files the build cites from: _config.yml's and the folders'
        files = [Path(self.env.srcdir, name) for name in self.config.bibtex_bibfiles]
        for path in files:
            self.env.note_dependency(str(path))
        try:
            text = bibtex_entries(self.arguments, files)
        except UnknownNameError as error:
            raise self.error(f"{{atlas-bibtex}}: {error}") from None
        block = nodes.literal_block(text, text, language="bibtex")
        self.set_source_info(block)
        return [block]


# -- the datasets' pages in the table of contents, from the folders -------------------------------------

#: The parts of ``_toc.yml`` the build completes: a dataset folder's chapter (``notebooks/<folder>.ipynb``)
#: not listed under the first is added at its end, and the second lists one viewer page per chapter there.
DATASETS_PART, VIEWER_PART = "The datasets", "The data viewer"
#: Where the build writes the table of contents it completed (in the build folder, never in the project).
BUILT_TOC = "atlas-toc.yml"


def dataset_pages(toc: dict[str, Any], srcdir: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """``toc`` completed from the dataset folders, and the viewer pages to write (path -> text): a
    folder that ships a chapter is listed under :data:`DATASETS_PART`, and each listed chapter of a
    folder gets its viewer page under :data:`VIEWER_PART`, generated (no page is written by hand)."""
    import copy

    from utils.book.render.chapter_view import VIEWER_PAGES, viewer_page_source
    from utils.sources import registry

    toc = copy.deepcopy(toc)
    parts = toc.get("parts", [])
    datasets = next((part for part in parts if part.get("caption") == DATASETS_PART), None)
    if datasets is None:  # a book of other pages (a test's small book): nothing to complete
        return toc, {}
    folders = list(dict.fromkeys(source.folder.name for source in registry().values()))
    chapters = datasets.setdefault("chapters", [])

    def document(entry: dict[str, Any]) -> str:  # a toc names a file with or without its suffix
        return str(entry.get("file", "")).removesuffix(".ipynb").removesuffix(".md")

    listed = {document(entry) for entry in chapters}
    for folder in folders:
        if (srcdir / "notebooks" / f"{folder}.ipynb").is_file() and f"notebooks/{folder}" not in listed:
            chapters.append({"file": f"notebooks/{folder}"})
    pages: dict[str, str] = {}
    viewer_entries = []
    for entry in chapters:
        name = document(entry).rpartition("/")[2]
        if name in folders:
            pages[f"{VIEWER_PAGES}/{name}.md"] = viewer_page_source(name)
            viewer_entries.append({"file": f"{VIEWER_PAGES}/{name}"})
    viewer = next((part for part in parts if part.get("caption") == VIEWER_PART), None)
    if viewer is None:
        viewer = {"caption": VIEWER_PART}
        parts.insert(parts.index(datasets) + 1, viewer)
    viewer["chapters"] = viewer_entries
    return toc, pages


def _complete_the_toc(app: Any, config: Any) -> None:
    """Before sphinx-external-toc reads the table of contents (``config-inited`` at its priority 900):
    the viewer pages written and the toc completed from the folders, so that a new dataset needs no
    line outside its folder and its chapter (``book/contributing.md``)."""
    import yaml

    external_toc = getattr(config, "external_toc_path", None)
    if not external_toc:  # a project without sphinx-external-toc (a test's small book): nothing to complete
        return
    toc_path = Path(app.srcdir) / str(external_toc)
    if not toc_path.is_file():
        return
    toc, pages = dataset_pages(yaml.safe_load(toc_path.read_text(encoding="utf-8")), Path(app.srcdir))
    if not pages:
        return
    for relative, text in pages.items():
        page = Path(app.srcdir) / relative
        page.parent.mkdir(parents=True, exist_ok=True)
        if not page.is_file() or page.read_text(encoding="utf-8") != text:  # unchanged: not rebuilt
            page.write_text(text, encoding="utf-8")
    built = Path(app.doctreedir).parent / BUILT_TOC
    built.parent.mkdir(parents=True, exist_ok=True)
    built.write_text(yaml.safe_dump(toc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    config.external_toc_path = str(built)


def _number_exercises_per_page(app: Any, env: Any) -> list[str]:
    for numbers_by_type in env.toc_fignumbers.values():
        numbers = numbers_by_type.get("exercise")
        if numbers:
            in_order = sorted(numbers, key=lambda key: numbers[key])
            numbers_by_type["exercise"] = {key: (position,) for position, key in enumerate(in_order, 1)}
    return []


def setup(app: Any) -> dict[str, Any]:
    from pybtex.plugin import register_plugin

    register_plugin("pybtex.style.formatting", "atlas", _author_year_style())
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    app.connect("html-page-context", _accessible_body)
    app.connect("html-page-context", _mark_missing_sql_console)
    app.connect("builder-inited", _say_the_data)
    app.connect("builder-inited", _encrypt_kernels)
    app.connect("builder-inited", _start_viewer)
    app.connect("build-finished", _finish_viewer)
    app.add_css_file(RENDER_CSS)
    app.connect("build-finished", _write_render_css)
    app.add_config_value("atlas_learner_branch", "learner-copies", "html")
    app.connect("source-read", _student_source)
    app.connect("source-read", _chapter_book_lines, priority=600)
    app.connect("config-inited", _add_folder_bibliographies)
    app.connect("config-inited", _complete_the_toc, priority=400)
    app.connect("source-read", _include_by_hand_sections)
    app.add_directive("atlas-bibtex", BibtexEntries)
    app.connect("build-finished", _learner_copies)
    # after the theme's launch buttons (sphinx-book-theme connects them at priority 501)
    app.connect("html-page-context", _launch_and_download_buttons, priority=510)
    # after Sphinx's own numbering (TocTreeCollector, default priority 500)
    app.connect("env-get-updated", _number_exercises_per_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
