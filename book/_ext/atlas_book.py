"""Small Sphinx fixes for the atlas's book.

sphinx-thebe registers its inline configuration script once per read phase, and jupyter-book 1.x
runs that phase twice, so every page declared ``const THEBE_JS_URL`` twice and threw a SyntaxError
on load. We keep the first copy of each identical script.
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


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
