"""Every dataset of the atlas, one folder each.

A folder holds everything about its dataset, in the manner of TensorFlow Datasets and ParlAI's
``tasks/<name>/``: its declaration (``__init__.py``: ``DATASETS``, the
:class:`~utils.declaration.DatasetSource` objects it declares, and ``ORDER``, its place in the
book's lists), its parser(s), renderer, viewer fields, statistics, baselines, reported numbers,
demo samples (``demo/``, laid out like the data directory), English glosses (``glosses_en.json``)
and its tests (``tests/``).

The registry (:func:`utils.sources.registry`) is built from the folders found here, as
``ir_datasets`` registers each dataset once: adding a dataset is adding a folder. This package
imports nothing: the registry imports it, and a folder imports only the schema
(:mod:`utils.declaration`) and the helpers below it. See *Contributing and adding a dataset* in the
book.
"""
