"""Grounded Dialogue Atlas: load, inspect and measure knowledge-grounded dialogue datasets.

The public API is small::

    import utils
    utils.dataset_names()                   # what can be loaded; utils.split_names(name) its splits
    split = utils.load(name, split_name)    # official file, download, partial copy or demo sample
    split.provenance                        # where it came from, how big it is
    split[0]                                # a Dialogue with Turns and Evidence
    split.turns()                           # a pandas DataFrame, one row per turn
    split.to_hf_dataset()                   # a datasets.Dataset
    utils.score(name, split_name, "predictions.jsonl")  # your model's outputs, scored (utils.scoring)

Each dataset's own code (parser, renderer, statistics, baselines, reported numbers) lives in its
folder, ``utils.datasets.<name>``, imported explicitly by the chapter that needs it; the shared
machinery (``utils.loading``, ``utils.book.render``, ``utils.book.widgets``, ``utils.book.tables``, ...) knows no
dataset by name.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .config import data_dir
from .errors import AtlasError, DataError, DataUnavailableError, DownloadError, UnknownNameError
from .records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from .reported import reported
from .sources import dataset_names, get_source, registry, split_names

if TYPE_CHECKING:
    from .loading import CacheWarning, DemoDataWarning, LoadedSplit, Provenance, check_ids, data_status, load
    from .scoring import score

#: Names whose module imports pandas and pyarrow: imported on first use (PEP 562), so that
#: ``import utils`` and ``atlas --help`` stay quick.
_LAZY = {
    "CacheWarning": "loading",
    "DemoDataWarning": "loading",
    "LoadedSplit": "loading",
    "Provenance": "loading",
    "check_ids": "loading",
    "data_status": "loading",
    "load": "loading",
    "score": "scoring",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "SEEKER",
    "WIZARD",
    "AtlasError",
    "CacheWarning",
    "DataError",
    "DataUnavailableError",
    "DemoDataWarning",
    "Dialogue",
    "DownloadError",
    "Evidence",
    "LoadedSplit",
    "Provenance",
    "Turn",
    "UnknownNameError",
    "check_ids",
    "data_dir",
    "data_status",
    "dataset_names",
    "get_source",
    "load",
    "registry",
    "reported",
    "score",
    "split_names",
]

__version__ = "0.1.0"
#: Tells this package from another ``utils`` (PyPI's, a ``utils.py`` beside a notebook): see
#: ``grounded_dialogue_atlas.require_atlas_utils``.
__grounded_dialogue_atlas__ = True
