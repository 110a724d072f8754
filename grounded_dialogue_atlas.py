"""The ``atlas`` command's entry point, and the check that ``import utils`` finds the atlas's package.

The atlas's package is called ``utils``, a name other code uses too: PyPI's unrelated ``utils``
(``pip install utils`` writes its own ``utils/__init__.py`` over ours, or comes first on the path
before an editable install), or a ``utils.py`` (or ``utils/`` folder) in the folder Python was
started from, which ``python -c``, ``python -m`` and a notebook's kernel look in first. ``import
utils`` then finds that one, and the atlas fails far from the cause (an ``AttributeError`` on
``utils.load``, an ``ImportError`` of ``utils.cli``). This module has a name of its own, so it can
always be imported, and says what shadows the atlas and how to fix it.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
from pathlib import Path
from types import ModuleType

#: Set in the atlas's ``utils/__init__.py``; another ``utils`` does not have it.
MARKER = "__grounded_dialogue_atlas__"
DISTRIBUTION = "grounded-dialogue-atlas"


class ShadowedUtilsError(ImportError):
    """``import utils`` found a module that is not the atlas's."""


def require_atlas_utils() -> ModuleType:
    """The atlas's ``utils`` package; :class:`ShadowedUtilsError` saying what is imported instead, and how
    to fix it, when ``import utils`` finds another module."""
    try:
        module = importlib.import_module("utils")
    except ImportError as error:  # another utils whose own imports fail, or none at all
        found = sys.modules.get("utils")
        if found is not None and not getattr(found, MARKER, False):
            raise ShadowedUtilsError(shadowing_message(found)) from error
        raise
    if not getattr(module, MARKER, False):
        raise ShadowedUtilsError(shadowing_message(module))
    return module


def _location(module: ModuleType) -> Path | None:
    """The file or folder ``module`` was imported from: ``utils.py``, or the ``utils/`` folder of a package."""
    file = getattr(module, "__file__", None)
    if file:
        path = Path(file)
        return path.parent if path.name == "__init__.py" else path
    folders = list(getattr(module, "__path__", []) or [])  # a namespace package: a utils/ folder without __init__
    return Path(folders[0]) if folders else None


def _other_distributions() -> list[str]:
    """Installed distributions other than the atlas that put a top-level ``utils`` on the path."""
    try:
        owners = importlib.metadata.packages_distributions().get("utils", [])
    except Exception:  # unreadable metadata of some other package: name none rather than fail here
        return []
    return sorted({owner for owner in owners if owner.lower().replace("_", "-") != DISTRIBUTION})


#: Files only the atlas's ``utils`` folder holds together.
_ATLAS_FILES = ("loading.py", "declaration.py", "sources.py", "datasets")


def _is_the_atlas_folder(location: Path) -> bool:
    """Whether ``location`` is the atlas's own ``utils`` folder (its files are there), whatever its
    ``__init__.py`` now is."""
    return location.is_dir() and all((location / name).exists() for name in _ATLAS_FILES)


def shadowing_message(module: ModuleType) -> str:
    """What ``import utils`` found instead of the atlas's package, and how to fix it."""
    location = _location(module)
    shown = str(location) if location is not None else repr(module)
    if location is not None and location.parent.resolve() == Path(os.getcwd()).resolve():
        kind = "folder" if location.is_dir() else "file"
        return (
            f"`import utils` found {shown}, a {kind} in the folder Python was started from, not the Grounded "
            f"Dialogue Atlas's `utils` package: Python looks in that folder first. Rename {location.name}, or "
            "run from another folder (the `atlas` command itself does not look there)."
        )
    others = _other_distributions()
    if location is not None and _is_the_atlas_folder(location):
        # The atlas's own files with another __init__.py, or none: `pip install utils` wrote its
        # __init__.py over a non-editable install and `pip uninstall utils` then deleted it. The
        # folder is the atlas: removing it, as the last message below says of a stranger, would be wrong.
        first = f"`pip uninstall {' '.join(others)}`, then " if others else ""
        return (
            f"`import utils` found {shown}, the Grounded Dialogue Atlas's own `utils` folder, but its "
            "`__init__.py` is missing or is another package's (`pip install utils` writes its own over the "
            f"atlas's, and `pip uninstall utils` then deletes it). Keep the folder: {first}reinstall the atlas "
            "(in the clone: `pip install --force-reinstall --no-deps -e .`, or delete .venv and run make again)."
        )
    if others:
        packages = ", ".join(others)
        return (
            f"`import utils` found {shown}, installed by the package {packages} (`pip install utils` installs an "
            "unrelated package of that name), not the Grounded Dialogue Atlas's `utils` package. Fix: "
            f"`pip uninstall {' '.join(others)}`, then reinstall the atlas (in the clone: "
            "`pip install --force-reinstall --no-deps -e .`, or delete .venv and run make again)."
        )
    return (
        f"`import utils` found {shown}, which is not the Grounded Dialogue Atlas's `utils` package: it comes "
        "earlier on Python's path (sys.path, PYTHONPATH). Remove or rename it, or reinstall the atlas "
        "(`pip install --force-reinstall --no-deps -e .` in the clone)."
    )


def main() -> int:
    """The ``atlas`` command: the atlas's own, or a message saying what shadows it (exit status 1)."""
    try:
        require_atlas_utils()
    except ShadowedUtilsError as error:
        print(f"atlas: error: {error}", file=sys.stderr)
        return 1
    from utils.cli import main as atlas

    return atlas()


if __name__ == "__main__":
    sys.exit(main())
