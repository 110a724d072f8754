"""Small Sphinx fixes for the atlas's book.

sphinx-thebe registers its inline configuration script once per read phase, and jupyter-book 1.x
runs that phase twice, so every page declared ``const THEBE_JS_URL`` twice and threw a SyntaxError
on load. We keep the first copy of each identical script.

Exercises are numbered per chapter: sphinx-exercise numbers them through Sphinx's figure numbers,
which run on across the whole book in an unnumbered table of contents (the FaithDial chapter's first
exercise was "Exercise 4"). After Sphinx assigns the numbers, each page's exercises are renumbered
from 1 in their order on the page, so the chapter, its contents and the teachers' guide all say
"Exercise 1" for a chapter's first exercise.

The book cites author-year ("Dziri et al., 2022c"), so its bibliography is labelled the same way
instead of [1]-[17]: the ``atlas`` bibliography style is pybtex's ``plain`` with author-year labels.
"""

from __future__ import annotations

from typing import Any


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
    # after Sphinx's own numbering (TocTreeCollector, default priority 500)
    app.connect("env-get-updated", _number_exercises_per_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
