"""Every dataset of the atlas, one folder each.

A folder holds everything about its dataset, in the manner of TensorFlow Datasets and ParlAI's
``tasks/<name>/``: its declaration (``__init__.py``: ``DATASETS``, the
:class:`~utils.sources.DatasetSource` objects it declares, and ``ORDER``, its place in the book's
lists), its parser(s), renderer, viewer fields, statistics, baselines, reported numbers, demo
samples (``demo/``, laid out like the data directory) and English glosses (``glosses_en.json``).

The registry (:func:`utils.sources.registry`) is built from the folders found here, as ``ir_datasets``
registers each dataset once: adding a dataset is adding a folder. See *Contributing and adding a
dataset* in the book.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..sources import DatasetSource

#: A folder that does not say where it stands in the book's lists comes after those that do.
_LAST = 1_000


@cache
def discovered() -> Mapping[str, DatasetSource]:
    """Every dataset declared by a folder of this package, by name, in ``ORDER`` then folder name."""
    folders = []
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        folders.append((getattr(module, "ORDER", _LAST), info.name, module.DATASETS))
    found: dict[str, DatasetSource] = {}
    for _, folder, declared in sorted(folders, key=lambda entry: entry[:2]):
        for source in declared:
            if source.name in found:
                raise ValueError(f"utils/datasets/{folder}: the dataset name {source.name!r} is declared twice")
            found[source.name] = source
    return found
