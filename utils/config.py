"""Where data lives, and whether the atlas may download.

``ATLAS_DATA_DIR``
    The data directory: official files are looked for (and downloaded) here, in the layout of
    ``book/data.md``. Default: the per-user cache, for example ``~/.cache/grounded-dialogue-atlas``.
    A relative path means the folder the command was typed in: it is resolved against ``$PWD``,
    which the shell sets and every child process inherits (a notebook kernel that Jupyter starts in
    ``notebooks/`` still has the ``$PWD`` of the shell that started Jupyter), or against the working
    directory where ``$PWD`` is unset, once, at its first use, and written back as an absolute path
    so that every later use and every child process sees the same folder. ``make`` resolves it
    against the folder it was run from before anything starts.
``ATLAS_CACHE_DIR``
    Where parsed splits are cached. Default: ``parsed/`` in the per-user cache, never inside the data
    directory, which may be a read-only or shared copy of the official files. A relative path is
    resolved as ``ATLAS_DATA_DIR`` is.
``ATLAS_OFFLINE``
    ``1`` forbids downloads (the tests set it); the loaders then use local copies or demo samples.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import platformdirs

APP_NAME = "grounded-dialogue-atlas"
#: Written by ``benchmarks.synthetic`` beside the files it generates: a file next to it is never taken
#: for the dataset, even where an official file would sit.
SYNTHETIC_MARKER = "SYNTHETIC.txt"
DATA_DIR_ENV = "ATLAS_DATA_DIR"
CACHE_DIR_ENV = "ATLAS_CACHE_DIR"
OFFLINE_ENV = "ATLAS_OFFLINE"


def typed_in_folder() -> Path:
    """The folder the command was typed in: ``$PWD`` when the shell set it to a folder, else the
    working directory. A kernel runs in the notebook's folder but inherits ``$PWD`` from the shell
    that started Jupyter, so a relative path given there means the same folder in the chapters."""
    shell_folder = os.environ.get("PWD", "")
    if os.path.isabs(shell_folder) and os.path.isdir(shell_folder):
        return Path(shell_folder)
    return Path(os.getcwd())


def _configured_dir(variable: str) -> Path | None:
    """``$variable`` as an absolute path, resolved once: a relative value is taken against
    :func:`typed_in_folder` at its first use and written back to the environment, so a later
    ``chdir`` (or a child process started elsewhere) does not move the folder."""
    configured = os.environ.get(variable)
    if not configured:
        return None
    path = Path(configured).expanduser()
    if not path.is_absolute():
        # normalised as make's $(abspath) does ("../shared/data" from /x/atlas is /x/shared/data)
        path = Path(os.path.normpath(typed_in_folder() / path))
        os.environ[variable] = str(path)
    return path


def data_dir(override: str | Path | None = None) -> Path:
    """The data directory: ``override``, else ``$ATLAS_DATA_DIR``, else the per-user cache."""
    if override is not None:
        return Path(os.path.abspath(Path(override).expanduser()))
    return _configured_dir(DATA_DIR_ENV) or default_data_dir()


def default_data_dir() -> Path:
    """The data directory when none is named: a folder of the per-user cache."""
    return Path(platformdirs.user_cache_dir(APP_NAME))


def data_dir_problem(directory: Path) -> str:
    """Why a named data directory cannot hold any file (``""`` when it can): a typo, a file, a
    folder not mounted yet. The default folder may be missing: a first download creates it."""
    if directory.is_dir() or directory == default_data_dir():
        return ""
    try:
        os.stat(directory)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # not "missing": the links are there, and lead back to themselves
            return (
                f"the data directory {directory} is a symbolic link loop (its links lead back to themselves, "
                f"never to a folder; ${DATA_DIR_ENV} names the folder of the files)"
            )
    if directory.is_symlink() and not directory.exists():
        what = f"it is a link to {os.readlink(directory)}, which is not there"
    else:
        what = "it is a file, not a folder" if directory.exists() else "nothing is there"
    return f"the data directory {directory} does not exist ({what}; ${DATA_DIR_ENV} names the folder of the files)"


def cache_dir() -> Path:
    """Where parsed splits are cached: ``$ATLAS_CACHE_DIR``, else ``parsed/`` in the per-user cache.

    Never inside a data directory that ``$ATLAS_DATA_DIR`` points at: that may be a shared,
    read-only copy (and permission bits do not stop root), and the cache key already names the
    source file, so one cache serves them all. (By default both live in the per-user cache, the
    parsed splits in a folder of their own that no official file uses.)
    """
    return _configured_dir(CACHE_DIR_ENV) or Path(platformdirs.user_cache_dir(APP_NAME)) / "parsed"


def offline() -> bool:
    """True when downloads are forbidden by ``$ATLAS_OFFLINE``."""
    return os.environ.get(OFFLINE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def display_path(path: str | Path) -> str:
    """``path`` as a reader should see it: relative to the data directory or the package.

    A file in the data directory reads ``$ATLAS_DATA_DIR/<its path there>``, a demo sample
    ``utils/datasets/<folder>/demo/<its path>``; nothing of the machine's own layout is shown. Any
    other path shows its last two parts.
    """
    path = Path(path)
    for root, label in ((Path(__file__).parent, "utils"), (data_dir(), f"${DATA_DIR_ENV}")):
        try:
            return f"{label}/{path.resolve().relative_to(root.resolve()).as_posix()}"
        except ValueError:
            continue
    return "/".join(["…", *path.parts[-2:]])
