"""What ``atlas stats`` gives for a split, computed by the library.

``parlai data_stats``' counts per role (:func:`role_counts`), label and evidence counts
(:func:`label_counts`, :func:`evidence_counts`). The split's dialogues as records of the one record
schema (``atlas export``) are :func:`utils.loading.export_records`; the name is kept here too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from utils.declaration import DatasetSource
from utils.loading import LoadedSplit
from utils.loading import export_records as export_records  # where ``atlas export`` found it first
from utils.records import ROLES
from utils.text import tokenizer_for


def _label_values(source: DatasetSource, key: str, values: Sequence[str]) -> list[str]:
    if key in source.joined_labels:
        return ["-".join(values)] if values else []
    return list(values)


def role_counts(split: LoadedSplit) -> list[dict[str, Any]]:
    """``parlai data_stats``' counts per role and for all turns.

    Tokens are words for English (ParlAI's normalisation, :func:`utils.text.word_tokens`) and
    characters for Chinese and Japanese (:func:`utils.text.char_tokens`, punctuation left out).
    """
    tokenize = tokenizer_for(split.source.language_code)
    frame = split.turns()
    rows = []
    for role in (*ROLES, "all"):
        texts = frame["text"] if role == "all" else frame.loc[frame["role"] == role, "text"]
        tokens = [token for text in texts for token in tokenize(text)]
        count = len(texts)
        rows.append(
            {
                "role": role,
                "utterances": count,
                "tokens": len(tokens),
                "unique tokens": len(set(tokens)),
                "unique utterances": int(texts.nunique()),
                "average length": round(len(tokens) / count, 2) if count else 0.0,
            }
        )
    return rows


def label_counts(split: LoadedSplit) -> list[dict[str, Any]]:
    """Turns carrying each label of the dataset's categorical label schemes (the dataset's declared ``label_keys``),
    a turn counted once per label; then any counts the dataset declares besides (JWHR's references per kind)."""
    rows: list[dict[str, Any]] = []
    keys = split.source.label_keys
    counters: dict[str, Counter[str]] = {key: Counter() for key in keys}
    for labels in split.turns()["labels"]:
        for key in keys:
            if key in labels:
                counters[key].update(set(_label_values(split.source, key, labels[key])))
    for key in keys:
        rows += [
            {"scheme": key, "label": label, "count": n, "unit": "turns"} for label, n in counters[key].most_common()
        ]
    extra = split.source.extra_label_counts
    return rows + (extra(split) if extra else [])


def evidence_counts(split: LoadedSplit) -> list[dict[str, Any]]:
    """Evidence pieces shown and selected, per origin (the channel they came through)."""
    frame = split.evidence(["origin", "selected"])
    if not len(frame):
        return []
    grouped = frame.groupby("origin", sort=True)["selected"].agg(["size", "sum"])
    return [{"origin": str(o), "shown": int(r["size"]), "selected": int(r["sum"])} for o, r in grouped.iterrows()]
