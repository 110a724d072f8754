"""The atlas's performance benchmark and the synthetic full-size files it measures.

Not part of the ``utils`` package (nor of its wheel): run from the repository root with
``python -m benchmarks.bench`` (``make bench``) and ``python -m benchmarks.synthetic``.
"""
