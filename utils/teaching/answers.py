"""A student's answers as plain data: how a graded notebook hands its answer values to the grader.

When a submission is graded (:mod:`utils.teaching.grading`), the student's notebook runs in a sandbox and
each autograded test cell is replaced by one line that hands in the values the test reads
(:func:`hand_in`). The values travel as JSON of a small, closed vocabulary (numbers, strings,
booleans, ``None``, lists, dicts, pandas Series and DataFrames, NumPy arrays), and the verdict is
computed outside the student's process from what :func:`decode` rebuilds. Nothing in this format can
run code when it is read: it is parsed with :func:`json.loads` and rebuilt type by type, and anything
else is an :class:`Unreadable` answer that fails its test with a message saying what was given.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: The MIME type of a hand-in in a cell's outputs.
MIME_TYPE = "application/vnd.grounded-dialogue-atlas.answers+json"
#: Encoded answers larger than this are refused (a prediction file for a held-out split of a few
#: thousand examples is well under 1 MB; a student's whole frame of millions of rows is not an answer).
MAX_BYTES = 20_000_000
_DEPTH = 20
_KIND = "__atlas_kind__"


@dataclass(frozen=True)
class Unreadable:
    """An answer that could not be handed in as data: ``what`` says what it was."""

    what: str

    def __repr__(self) -> str:
        return f"<an answer that could not be handed in: {self.what}>"


@dataclass(frozen=True)
class Missing:
    """A name the test reads that the student's notebook never defined."""

    name: str

    def __repr__(self) -> str:
        return f"<{self.name} is not defined>"


def _key(key: Any) -> Any:
    if isinstance(key, (str, int, float, bool)) or key is None:
        return key
    if isinstance(key, tuple):
        return {_KIND: "tuple", "items": [_key(part) for part in key]}
    if hasattr(key, "item"):  # a NumPy scalar key
        return _key(key.item())
    raise TypeError(f"a key of type {type(key).__name__}")


def encode_value(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready data of the closed vocabulary (raises TypeError for anything else)."""
    if depth > _DEPTH:
        raise TypeError("a value nested more than 20 levels deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {_KIND: "float", "repr": repr(value)}
    encoded = _encode_library_value(value, depth)
    if encoded is not _UNMATCHED:
        return encoded
    if isinstance(value, Mapping):
        return {_KIND: "dict", "items": [[_key(key), encode_value(item, depth + 1)] for key, item in value.items()]}
    if isinstance(value, (list, tuple, set, frozenset)):
        kind = {list: "list", tuple: "tuple"}.get(type(value), "set")
        items = sorted(value, key=repr) if kind == "set" else value
        return {_KIND: kind, "items": [encode_value(item, depth + 1) for item in items]}
    raise TypeError(f"a {type(value).__name__}")


#: What :func:`_encode_library_value` returns for a value neither NumPy's nor pandas' (None is an encoding).
_UNMATCHED: Any = object()


def _encode_library_value(value: Any, depth: int) -> Any:
    """A NumPy array or scalar, or a pandas Series or DataFrame, encoded; :data:`_UNMATCHED` for anything else."""
    module = type(value).__module__.split(".")[0]
    if module == "numpy":
        import numpy as np

        if isinstance(value, np.ndarray):
            return {_KIND: "array", "items": [encode_value(item, depth + 1) for item in value.tolist()]}
        if isinstance(value, np.generic):
            return encode_value(value.item(), depth + 1)
    if module == "pandas":
        import pandas as pd

        if isinstance(value, pd.Series):
            return {
                _KIND: "series",
                "name": encode_value(value.name, depth + 1)
                if value.name is None or isinstance(value.name, str)
                else None,
                "index": [_key(key) for key in value.index.tolist()],
                "values": [encode_value(item, depth + 1) for item in value.tolist()],
            }
        if isinstance(value, pd.DataFrame):
            return {
                _KIND: "frame",
                "columns": [_key(column) for column in value.columns.tolist()],
                "index": [_key(key) for key in value.index.tolist()],
                "rows": [[encode_value(item, depth + 1) for item in row] for row in value.itertuples(index=False)],
            }
    return _UNMATCHED


def encode(values: Mapping[str, Any]) -> dict[str, Any]:
    """The hand-in of ``values`` (name -> value): each encoded, or marked unreadable or missing."""
    encoded: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, Missing):
            encoded[name] = {_KIND: "missing"}
            continue
        try:
            encoded[name] = encode_value(value)
        except (TypeError, ValueError, RecursionError) as problem:
            encoded[name] = {_KIND: "unreadable", "what": str(problem)[:200]}
    return encoded


class AnswerFormatError(ValueError):
    """A hand-in that is not of the format :func:`encode` writes."""


def _decode_key(key: Any) -> Any:
    if isinstance(key, dict):
        if key.get(_KIND) != "tuple" or not isinstance(key.get("items"), list):
            raise AnswerFormatError("a key of an unknown kind")
        return tuple(_decode_key(part) for part in key["items"])
    if isinstance(key, list):
        raise AnswerFormatError("a list as a key")
    return key


def decode_value(data: Any, depth: int = 0) -> Any:
    """The value :func:`encode_value` encoded, rebuilt from plain JSON data."""
    if depth > _DEPTH + 2:
        raise AnswerFormatError("nested too deep")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        raise AnswerFormatError("a bare list (lists are written with their kind)")
    if not isinstance(data, dict):
        raise AnswerFormatError(f"a {type(data).__name__}")
    kind = data.get(_KIND)
    items = data.get("items")
    if kind == "float":
        return float(str(data.get("repr")))
    if kind in ("list", "tuple", "set", "array") and isinstance(items, list):
        return _decode_collection(kind, items, depth)
    if kind == "dict" and isinstance(items, list):
        return _decode_dict(items, depth)
    if kind == "series":
        return _decode_series(data, depth)
    if kind == "frame":
        return _decode_frame(data, depth)
    if kind == "unreadable":
        return Unreadable(str(data.get("what", "an object"))[:200])
    if kind == "missing":
        return Missing("the variable")
    raise AnswerFormatError(f"an unknown kind {str(kind)[:40]!r}")


def _decode_collection(kind: str, items: list[Any], depth: int) -> Any:
    """A list, tuple, set or NumPy array of the decoded ``items``."""
    values = [decode_value(item, depth + 1) for item in items]
    if kind == "tuple":
        return tuple(values)
    if kind == "set":
        try:
            return set(values)
        except TypeError:
            raise AnswerFormatError("a set of unhashable values") from None
    if kind == "array":
        import numpy as np

        return np.asarray(values, dtype=object if any(isinstance(v, (str, dict)) for v in values) else None)
    return values


def _decode_dict(items: list[Any], depth: int) -> dict[Any, Any]:
    result = {}
    for pair in items:
        if not isinstance(pair, list) or len(pair) != 2:
            raise AnswerFormatError("a dict entry that is not a key and a value")
        key = _decode_key(pair[0])
        try:
            result[key] = decode_value(pair[1], depth + 1)
        except TypeError:
            raise AnswerFormatError("an unhashable key") from None
    return result


def _decode_series(data: dict[str, Any], depth: int) -> Any:
    import pandas as pd

    index, series_values = data.get("index"), data.get("values")
    if not isinstance(index, list) or not isinstance(series_values, list) or len(index) != len(series_values):
        raise AnswerFormatError("a Series whose index and values differ in length")
    name = data.get("name")
    return pd.Series(
        [decode_value(v, depth + 1) for v in series_values],
        index=pd.Index([_decode_key(k) for k in index], tupleize_cols=False) if index else None,
        name=name if isinstance(name, str) else None,
        dtype=None if series_values else object,
    )


def _decode_frame(data: dict[str, Any], depth: int) -> Any:
    import pandas as pd

    columns, index, rows = data.get("columns"), data.get("index"), data.get("rows")
    if not (isinstance(columns, list) and isinstance(index, list) and isinstance(rows, list)) or len(rows) != len(
        index
    ):
        raise AnswerFormatError("a DataFrame whose parts do not fit")
    if any(not isinstance(row, list) or len(row) != len(columns) for row in rows):
        raise AnswerFormatError("a DataFrame row of the wrong length")
    return pd.DataFrame(
        [[decode_value(v, depth + 1) for v in row] for row in rows],
        columns=[_decode_key(c) for c in columns],
        index=[_decode_key(k) for k in index] if index else None,
    )


def decode(text: str | bytes) -> dict[str, Any]:
    """The answers of a hand-in: name -> value (an :class:`Unreadable` where a value could not be read)."""
    if len(text) > MAX_BYTES:
        raise AnswerFormatError(f"the hand-in has {len(text):,} bytes, more than the {MAX_BYTES:,} allowed")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as problem:
        raise AnswerFormatError(f"not JSON ({type(problem).__name__})") from None
    if not isinstance(data, dict) or not all(isinstance(name, str) for name in data):
        raise AnswerFormatError("not a mapping from names to values")
    answers: dict[str, Any] = {}
    for name, value in data.items():
        try:
            decoded = decode_value(value)
        except (AnswerFormatError, ValueError, TypeError, RecursionError) as problem:
            decoded = Unreadable(f"a value the grader cannot read ({problem})")
        answers[name] = Missing(name) if isinstance(decoded, Missing) else decoded
    return answers


def hand_in(names: list[str], namespace: Mapping[str, Any]) -> None:
    """Display the values of ``names`` in ``namespace`` as a hand-in (the grader's sandbox calls this
    in place of an autograded test cell). It grades nothing: the grader reads the display."""
    from IPython.display import display

    values = {name: namespace.get(name, Missing(name)) for name in names}
    text = json.dumps(encode(values), ensure_ascii=False, allow_nan=False)
    if len(text) > MAX_BYTES:
        text = json.dumps({name: {_KIND: "unreadable", "what": "an answer over 20 MB"} for name in names})
    display({MIME_TYPE: text, "text/plain": f"(answers handed in for grading: {', '.join(names)})"}, raw=True)
