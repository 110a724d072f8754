"""How long a chapter takes, measured rather than guessed.

A chapter's **Time to learn** is the time to read its prose at a stated reading speed
(:data:`WORDS_PER_MINUTE`) plus the time its code took to run, measured by the chapter itself when
it ran (so in the book: when the book was built, on the data it was built on). Code, outputs and
markup are not counted as words; the exercises' text is, since students read it.

A chapter finishes with one call, :func:`finish`: its Time to learn, and what its text states of the
official files (each dataset's ``claims`` module, a list of :class:`Claim`) checked on the files it
ran on. A copy that differs (a page renamed, a smaller file) builds, and the chapter says in a
sentence what differs (:func:`differences`) instead of stopping on an ``AssertionError``.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Reading speed for technical prose, in words a minute: an assumption the chapters state, not a
#: measurement of any reader.
WORDS_PER_MINUTE = 200

#: A chapter's line under *Prerequisites*, as written in the notebook: a sentence that reads the same in
#: JupyterLab, where Jupyter Book's ``{glue:text}`` role cannot be resolved (jupyterlab-myst shows its
#: key), and the measured time is not known before the last cell has run.
TIME_TO_LEARN_LINE = (
    "- **Time to learn**: measured each time the chapter runs, and printed by its last cell "
    "(see {ref}`how it is measured <time-to-learn>`)"
)
#: The same line in the book, which shows the time measured when the book last ran the chapter
#: (:func:`book_source`).
TIME_TO_LEARN_BOOK_LINE = (
    "- **Time to learn**: {glue:text}`time_to_learn:s` (measured when this chapter last ran: "
    "see {ref}`how it is measured <time-to-learn>`)"
)

_FENCE_OPENING = re.compile(r"^(`{3,}|~{3,})\s*(\{[^}]*\})?")
_ROLE = re.compile(r"\{[a-z:]+\}`[^`]*`")
_LINK = re.compile(r"\]\([^)]*\)")


def prose_words(notebook: str | Path) -> int:
    """Words of the notebook's markdown cells (or of a MyST ``.md`` page): code blocks, option lines,
    roles and link targets left out.

    Directives that hold prose (an ``{exercise}``, a ``{note}``) keep their text; fenced code and
    ``{code-cell}`` blocks do not.
    """
    path = Path(notebook)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":  # a MyST page of the book: one text, its front matter left out
        markdown = [text.split("\n---\n", 1)[1] if text.startswith("---\n") else text]
    else:
        markdown = ["".join(cell["source"]) for cell in json.loads(text)["cells"] if cell["cell_type"] == "markdown"]
    words = 0
    for source in markdown:
        open_fences: list[bool] = []  # one per open fence: True for code, False for a prose directive
        for line in source.splitlines():
            fence = _FENCE_OPENING.match(line.strip())
            if fence:
                directive = fence.group(2) or ""
                rest = line.strip()[fence.end() :]
                if open_fences and not directive and not rest:
                    open_fences.pop()  # a bare fence closes the innermost one
                    continue
                is_code = not directive or "code" in directive
                open_fences.append(is_code)
                if not is_code and not any(open_fences[:-1]):
                    words += len(rest.split())  # an exercise's or a note's title is read
                continue
            if any(open_fences) or line.strip().startswith(":"):
                continue
            words += len(_LINK.sub("]", _ROLE.sub("x", book_roles(line))).split())
    return words


def time_to_learn(notebook: str | Path, run_seconds: float, *, words_per_minute: int = WORDS_PER_MINUTE) -> str:
    """The chapter's Time to learn in one sentence, for example "16 minutes: 2,990 words of prose at
    200 words a minute (15 min) and 11 s of code run time"."""
    words = prose_words(notebook)
    reading = words / words_per_minute
    total = max(1, math.ceil(reading + run_seconds / 60))
    return (
        f"{total} minutes: {words:,} words of prose at {words_per_minute} words a minute "
        f"({reading:.0f} min) and {run_seconds:.0f} s of code run time"
    )


# -- a chapter's markdown as JupyterLab reads it, and as the book does ------------------------------------
#
# A chapter is written to read in JupyterLab (jupyterlab-myst), where Jupyter Book's roles cannot be
# resolved: ``{glue:text}`key``` shows its key, ``{cite:p}`key``` an "ⓘ key". So the notebook holds
# forms JupyterLab reads, and the book's build turns them into the roles (:func:`book_source`):
#
# * a value computed by the chapter is an inline expression, ``{eval}`name``` or, formatted,
#   ``{eval}`f"{name:.1%}"```: jupyterlab-myst shows the expression until the cell runs and its value
#   after (:func:`glue` binds ``name`` in the kernel); the book glues it, ``{glue:text}`name:.1%```
#   (``{glue:md}`name``` for a value glued as ``Markdown``);
# * a citation is a link to the book's bibliography whose text is the label the book shows,
#   ``([Dinan et al., 2019a](../book/bibliography.md#cite-dinan2019wizard))`` for ``{cite:p}`` and
#   ``[Dziri et al. (2022c)](../book/bibliography.md#cite-dziri2022origin)`` for ``{cite:t}``.

#: A chapter's link to the bibliography page (``notebooks/`` to ``book/``); its anchors are ``cite-<key>``.
BIBLIOGRAPHY_LINK = "../book/bibliography.md#cite-"
_BIB = re.escape(BIBLIOGRAPHY_LINK)
#: ``([label](../book/bibliography.md#cite-key))``: a parenthetical citation, ``{cite:p}`key```.
CITE_P = re.compile(r"\(\[(?P<text>[^\[\]]+)\]\(" + _BIB + r"(?P<key>[^)\s]+)\)\)")
#: ``[Author (year)](../book/bibliography.md#cite-key)``: a textual citation, ``{cite:t}`key```.
CITE_T = re.compile(r"\[(?P<text>[^\[\]]+ \((?P<year>[^()]+)\))\]\(" + _BIB + r"(?P<key>[^)\s]+)\)")
#: Any link to the bibliography (one that is neither form above is a mistake the tests name).
BIBLIOGRAPHY_LINKS = re.compile(r"\[(?P<text>[^\[\]]*)\]\(" + _BIB + r"(?P<key>[^)\s]*)\)")
#: An inline expression: ``{eval}`name``` or ``{eval}`f"{name:spec}"```.
EVAL = re.compile(r"\{eval\}`(?P<expression>[^`]*)`")
_GLUED_NAME = re.compile(r"(?P<name>[A-Za-z_]\w*)|f\"\{(?P<formatted>[A-Za-z_]\w*):(?P<spec>[^{}\"`]+)\}\"")
#: What JupyterLab cannot resolve in a chapter's markdown: Jupyter Book's glue and citation roles.
BOOK_ONLY_ROLES = re.compile(r"\{(?:glue(?::\w+)?|cite(?::\w+)?)\}`[^`]*`")
#: ``glue("name", Markdown(...))``: a value the book shows as Markdown (``{glue:md}``).
_GLUED_MARKDOWN = re.compile(r"""\bglue\(\s*["'](?P<name>[A-Za-z_]\w*)["']\s*,\s*Markdown\(""")


def markdown_glued(code: str) -> frozenset[str]:
    """The names a chapter's code glues as ``Markdown`` (``glue("name", Markdown(...))``)."""
    return frozenset(match.group("name") for match in _GLUED_MARKDOWN.finditer(code))


def glued_role(expression: str, markdown_names: frozenset[str] | set[str] = frozenset()) -> str:
    """The book's glue role for a chapter's inline expression (``name`` or ``f"{name:spec}"``)."""
    match = _GLUED_NAME.fullmatch(expression.strip())
    if match is None:
        raise ValueError(
            f"{{eval}}`{expression}`: a chapter's inline expression is a glued name or f\"{{name:format}}\", "
            "which the book reads as {glue:text}`name:format`"
        )
    if match.group("name"):
        name = match.group("name")
        return f"{{glue:md}}`{name}`" if name in markdown_names else f"{{glue:text}}`{name}`"
    return f"{{glue:text}}`{match.group('formatted')}:{match.group('spec')}`"


def book_roles(markdown: str, markdown_names: frozenset[str] | set[str] = frozenset()) -> str:
    """A chapter's markdown with its JupyterLab forms read as the book's roles: inline expressions
    become glue roles and links to the bibliography citations (see above)."""
    text = EVAL.sub(lambda match: glued_role(match.group("expression"), markdown_names), markdown)
    text = CITE_P.sub(lambda match: f"{{cite:p}}`{match.group('key')}`", text)
    return CITE_T.sub(lambda match: f"{{cite:t}}`{match.group('key')}`", text)


def book_source(markdown: str, markdown_names: frozenset[str] | set[str] = frozenset()) -> str:
    """A markdown cell as the book reads it: :data:`TIME_TO_LEARN_LINE` becomes
    :data:`TIME_TO_LEARN_BOOK_LINE`, and the values and citations written for JupyterLab the book's
    roles (:func:`book_roles`; ``markdown_names``: :func:`markdown_glued` of the chapter's code). The
    book's build calls this on every chapter as it reads it."""
    return book_roles(markdown.replace(TIME_TO_LEARN_LINE, TIME_TO_LEARN_BOOK_LINE), markdown_names)


def glue(name: str, value: object, display: bool = True) -> None:
    """myst-nb's ``glue`` where the book's tools are installed; elsewhere (a student's JupyterLab
    with only the ``lab`` extra) the value is shown when asked and otherwise left alone, so a
    chapter runs the same in both. In a kernel, ``name`` is also bound to the value in the
    notebook's namespace, so that the chapter's ``{eval}`name``` shows it in JupyterLab."""
    _bind(name, value)
    try:
        from myst_nb import glue as book_glue
    except ImportError:
        if display:
            from IPython.display import display as show

            show(value)
        return
    book_glue(name, value, display=display)


def _bind(name: str, value: object) -> None:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with every kernel
        return
    shell = get_ipython()
    if shell is not None and name.isidentifier():
        shell.user_ns[name] = value


# -- what a chapter states of the official files, checked on the files it ran on --------------------


@dataclass(frozen=True)
class Claim:
    """One thing a chapter's text states of the official files, checked on the files it ran on.

    ``statement`` says it as the chapter does ("the longest trail has 5 steps in both files"),
    ``holds`` whether the loaded files bear it out, and ``found`` what they hold instead (shown only
    when it does not hold)."""

    statement: str
    holds: bool
    found: str = ""


def differences(claims: Sequence[Claim]) -> str:
    """One sentence naming the claims that do not hold ("This copy differs from the official files in
    2 of the 9 facts the chapter states: ..."), or ``""`` when all hold."""
    failed = [claim for claim in claims if not claim.holds]
    if not failed:
        return ""
    listed = "; ".join(f"{claim.statement} (here: {claim.found})" if claim.found else claim.statement
                       for claim in failed)
    return (
        f"This copy differs from the official files in {len(failed)} of the {len(claims)} facts the chapter "
        f"states of them, so the text says more than these files show: {listed}."
    )


def finish(
    notebook: str | Path,
    *,
    started: float,
    claims: Sequence[Claim] = (),
) -> str:
    """What a chapter's last cell does, in one call: its Time to learn (glued as ``time_to_learn``,
    measured from ``started``, the :func:`time.perf_counter` of its first cell) and, where the files
    it ran on differ from what its text states of the official ones (``claims``), a note saying so
    in a sentence (:func:`differences`) instead of stopping the build. Returns the note (``""``)."""
    path = Path(notebook)
    if path.is_file():  # a copy run elsewhere (Colab) is not on disk under its name
        measured = time_to_learn(path, time.perf_counter() - started)
        # printed for a reader in JupyterLab (the chapter's first lines say so); the book hides this
        # cell and shows the glued value under Prerequisites instead
        print(f"Time to learn: {measured}")
        glue("time_to_learn", measured, display=False)
    note = differences(claims)
    if note:
        from IPython.display import display

        from utils.book.render.html import SafeHTML, esc

        display(SafeHTML(f'<div class="admonition note" role="note"><p>{esc(note)}</p></div>'))
    return note
