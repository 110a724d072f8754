"""How long a chapter takes, measured rather than guessed.

A chapter's **Time to learn** is the time to read its prose at a stated reading speed
(:data:`WORDS_PER_MINUTE`) plus the time its code took to run, measured by the chapter itself when
it ran (so in the book: when the book was built, on the data it was built on). Code, outputs and
markup are not counted as words; the exercises' text is, since students read it.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

#: Reading speed for technical prose, in words a minute: an assumption the chapters state, not a
#: measurement of any reader.
WORDS_PER_MINUTE = 200

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
            words += len(_LINK.sub("]", _ROLE.sub("x", line)).split())
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


def glue(name: str, value: object, display: bool = True) -> None:
    """myst-nb's ``glue`` where the book's tools are installed; elsewhere (a student's JupyterLab
    with only the ``lab`` extra) the value is shown when asked and otherwise left alone, so a
    chapter runs the same in both."""
    try:
        from myst_nb import glue as book_glue
    except ImportError:
        if display:
            from IPython.display import display as show

            show(value)
        return
    book_glue(name, value, display=display)
