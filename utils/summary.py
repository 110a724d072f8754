"""What ``atlas stats`` and ``atlas export`` give for a split, computed by the library.

``parlai data_stats``' counts per role (:func:`role_counts`), label and evidence counts
(:func:`label_counts`, :func:`evidence_counts`), and the split's dialogues as records of the one
record schema (:func:`export_records`, :data:`utils.records.RECORD_SCHEMA`), which ``atlas export``
writes and :meth:`utils.loading.LoadedSplit.to_hf_dataset` hands to ``datasets``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from .loading import LoadedSplit
from .records import ROLES
from .sources import get_source
from .text import tokenizer_for


def _label_values(dataset: str, key: str, values: Sequence[str]) -> list[str]:
    if key in get_source(dataset).joined_labels:
        return ["-".join(values)] if values else []
    return list(values)


def role_counts(split: LoadedSplit) -> list[dict[str, Any]]:
    """``parlai data_stats``' counts per role and for all turns.

    Tokens are words for English (ParlAI's normalisation, :func:`utils.text.word_tokens`) and
    characters for Chinese and Japanese (:func:`utils.text.char_tokens`, punctuation left out).
    """
    tokenize = tokenizer_for(get_source(split.dataset).language_code)
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
    keys = get_source(split.dataset).label_keys
    counters: dict[str, Counter[str]] = {key: Counter() for key in keys}
    for labels in split.turns()["labels"]:
        for key in keys:
            if key in labels:
                counters[key].update(set(_label_values(split.dataset, key, labels[key])))
    for key in keys:
        rows += [
            {"scheme": key, "label": label, "count": n, "unit": "turns"} for label, n in counters[key].most_common()
        ]
    extra = get_source(split.dataset).extra_label_counts
    return rows + (extra(split) if extra else [])


def evidence_counts(split: LoadedSplit) -> list[dict[str, Any]]:
    """Evidence pieces shown and selected, per origin (the channel they came through)."""
    frame = split.evidence(["origin", "selected"])
    if not len(frame):
        return []
    grouped = frame.groupby("origin", sort=True)["selected"].agg(["size", "sum"])
    return [{"origin": str(o), "shown": int(r["size"]), "selected": int(r["sum"])} for o, r in grouped.iterrows()]


def export_records(split: LoadedSplit, *, parquet: bool = False) -> Iterator[dict[str, Any]]:
    """The split's dialogues as records of :data:`~utils.records.RECORD_SCHEMA`; with
    ``parquet``, ``meta`` fields as JSON text and labels as a list of ``{name, values}``."""
    provenance = split.provenance
    source = {
        "kind": provenance.kind,
        "checksum": provenance.checksum,
        "source": str(provenance.path),
        "size_bytes": provenance.size_bytes,
        "dialogues": provenance.dialogues,
        "turns": provenance.turns,
    }

    def meta(value: dict[str, Any]) -> Any:
        return json.dumps(value, ensure_ascii=False, sort_keys=True) if parquet else value

    def labels(value: dict[str, list[str]]) -> Any:
        if parquet:
            return [{"name": key, "values": list(values)} for key, values in value.items()]
        return {key: list(values) for key, values in value.items()}

    for index, dialogue in enumerate(split):
        yield {
            "dataset": split.dataset,
            "split": split.split,
            "index": index,
            "id": str(dialogue.id),
            "topic": dialogue.topic,
            "meta": meta(dialogue.meta),
            "turns": [
                {
                    "index": turn.index,
                    "role": turn.role,
                    "speaker": turn.speaker,
                    "text": turn.text,
                    "labels": labels(turn.labels),
                    "evidence": [
                        {
                            "id": item.id,
                            "title": item.title,
                            "origin": item.origin,
                            "text": item.text,
                            "selected": item.selected,
                            "meta": meta(item.meta),
                        }
                        for item in turn.evidence
                    ],
                }
                for turn in dialogue.turns
            ],
            "provenance": source,
        }
