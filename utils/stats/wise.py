"""Statistics of WISE: sizes per split, label distributions, candidates and selections, lengths.

Everything is computed from the loaded splits (:func:`utils.load`) and the document collection
(:func:`utils.formats.wise_documents.load_documents`) at run time. Labels are shown under their
published names (the stored lists joined with ``-``, see :func:`utils.formats.wise.published_label`);
lengths are in characters, the natural unit for Chinese.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import pandas as pd

from ..formats.wise import (
    ACTIONS,
    INTENTS,
    SCORED_ACTION_GROUPS,
    UnknownLabelWarning,
    published_label,
    stored_form,
    vocab_entry,
)
from ..formats.wise_documents import WiseDocuments
from ..glosses import english as gloss_english
from ..loading import LoadedSplit
from ..records import SEEKER, WIZARD, Dialogue
from ..reported import reported_value

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The splits that together make the whole dataset (test is the union of test seen and unseen).
WHOLE_DATASET_SPLITS = ("train", "valid", "test")

_COUNT_COLUMNS = {
    "query_candidate": "query candidates",
    "selected_query": "selected queries",
    "document_candidate": "document candidates",
    "selected_document": "selected documents",
    "selected_passage": "selected passages",
}


def _turn_ids(split: LoadedSplit) -> pd.Series:
    """The original ``turn_id`` of every utterance (``None`` where the file has none)."""
    raws = split.arrow("turns").column("raw").to_pylist()
    return pd.Series([json.loads(raw).get("turn_id") for raw in raws], dtype="object")


def utterances_frame(dialogue: Dialogue, glosses: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per utterance of ``dialogue``: speaker, text, the intent or action (published name),
    selected passages and, when ``glosses`` has one, an English translation."""
    glosses = glosses or {}
    rows = [
        {
            "speaker": turn.speaker,
            "text": turn.text,
            "intent or action": published_label(turn.labels.get("intent") or turn.labels.get("action") or []),
            "selected passages": ", ".join(turn.labels.get("selected_passage", [])),
            "English (gloss)": gloss_english(turn.text, glosses) or "",
        }
        for turn in dialogue.turns
    ]
    frame = pd.DataFrame(rows)
    return frame if glosses else frame.drop(columns="English (gloss)")


def split_sizes(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """One row per split: conversations, utterances (user/system), turns and their averages.

    A *turn* is a distinct ``turn_id`` within a conversation (a user utterance and the system's
    reply usually share one); utterances per conversation are shown too, since "turns" is read
    both ways in the literature.
    """
    rows = []
    for name, split in splits.items():
        frame = split.turns()
        frame["turn_id"] = _turn_ids(split)
        conversations = len(split)
        turns = int(frame.dropna(subset=["turn_id"]).groupby("dialogue_index")["turn_id"].nunique().sum())
        rows.append(
            {
                "split": name,
                "source": split.provenance.kind,
                "conversations": conversations,
                "utterances": len(frame),
                "user utterances": int((frame["role"] == SEEKER).sum()),
                "system utterances": int((frame["role"] == WIZARD).sum()),
                "turns": turns,
                "turns per conversation": turns / conversations if conversations else float("nan"),
                "utterances per conversation": len(frame) / conversations if conversations else float("nan"),
            }
        )
    return pd.DataFrame(rows).set_index("split")


def _whole(splits: Mapping[str, LoadedSplit]) -> tuple[dict[str, float], bool]:
    parts = [splits[name] for name in WHOLE_DATASET_SPLITS if name in splits]
    sizes = split_sizes({name: splits[name] for name in WHOLE_DATASET_SPLITS if name in splits})
    conversations = int(sizes["conversations"].sum())
    values = {
        "dialogues": conversations,
        "utterances": int(sizes["utterances"].sum()),
        "turns_per_dialogue": float(sizes["turns"].sum() / conversations) if conversations else float("nan"),
    }
    complete = len(parts) == len(WHOLE_DATASET_SPLITS) and all(part.provenance.is_full for part in parts)
    return values, complete


#: How close a reproduced number must be to a reported one. The README rounds: "1.9K", "37K", "9.2".
_TOLERANCE = {"dialogues": 50, "utterances": 500, "turns_per_dialogue": 0.05}
#: Numbers whose definition the data description leaves open: shown, never asserted. "Turns" is one:
#: 37K utterances in 1.9K conversations are 9.4 to 10.1 user-system pairs whatever the rounding, not
#: 9.2, and the files' ``turn_id`` does not pair them either (the description's own example has a
#: user utterance at turn 3 answered at turn 4). The atlas counts distinct ``turn_id`` values.
_UNDEFINED = {"turns_per_dialogue": "definition not published: shown, not checked"}


def reported_vs_reproduced(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """The data description's sizes beside the same sizes computed over train + valid + test.

    ``asserted`` is True only when all three splits are the full official files, and never for a
    number the description does not define (``note`` says so); on demo or partial data the
    comparison is shown but means nothing, and ``matches`` is left empty.
    """
    values, complete = _whole(splits)
    rows = []
    for name, value in values.items():
        item = reported_value("wise", name)
        matches = abs(value - item.value) <= _TOLERANCE[name] if complete else None
        checked = complete and name not in _UNDEFINED
        rows.append(
            {
                "statistic": name,
                "reported": item.value,
                "reported as": item.unit or "as published",
                "reproduced": round(value, 2),
                "tolerance": _TOLERANCE[name],
                "matches": matches,
                "asserted": checked,
                "note": _UNDEFINED.get(name, "checked" if checked else "not the full data: shown, not checked"),
                "source": item.source,
                "cite as": item.citation_key,
            }
        )
    return pd.DataFrame(rows).set_index("statistic")


def intent_distribution(split: LoadedSplit) -> pd.DataFrame:
    """Counts and shares of user intents: all 12 of the authors' vocab (zero counts included), then
    one row per label outside it (``published`` False), which also raises an
    :class:`~utils.formats.wise.UnknownLabelWarning` naming it."""
    frame = split.turns()
    labels = [published_label(row.get("intent", [])) for row in frame.loc[frame["role"] == SEEKER, "labels"]]
    return label_distribution(labels, INTENTS, "intent", where=_where(split))


def action_distribution(split: LoadedSplit) -> pd.DataFrame:
    """Counts and shares of system actions: all 23 of the authors' vocab (zero counts included),
    then one row per label outside it, reported as for :func:`intent_distribution`."""
    frame = split.turns()
    labels = [published_label(row.get("action", [])) for row in frame.loc[frame["role"] == WIZARD, "labels"]]
    return label_distribution(labels, ACTIONS, "action", where=_where(split))


def _where(split: LoadedSplit) -> str:
    return f"WISE {split.split} ({split.provenance.kind})"


#: How an empty label list is shown (the authors' vocab has no entry for it either).
NO_LABEL = "(none)"


def label_distribution(
    labels: Iterable[str], published: Iterable[str], name: str, *, where: str = "the labels"
) -> pd.DataFrame:
    """One row per published label, in the published order, with its count (0 when absent), share,
    ``published`` True and the authors' vocab entry; then one row per other label seen (an empty
    label as ``(none)``), ``published`` False and no vocab entry, most frequent first.

    Labels outside the published set are never dropped: they keep their rows and counts, and an
    :class:`~utils.formats.wise.UnknownLabelWarning` names them with their counts.
    """
    counts = Counter(label or NO_LABEL for label in labels)
    known = list(published)
    unknown = sorted((label for label in counts if label not in known), key=lambda label: (-counts[label], label))
    if unknown:
        listed = ", ".join(f"{label!r} ({counts[label]})" for label in unknown)
        warnings.warn(
            f"{where}: {len(unknown)} {name} label(s) outside the authors' {len(known)}-label vocab, "
            f"kept as rows with published=False: {listed}",
            UnknownLabelWarning,
            stacklevel=3,
        )
    order = known + unknown
    total = sum(counts.values())
    frame = pd.DataFrame(
        {
            "count": [counts[label] for label in order],
            "share": [counts[label] / total if total else 0.0 for label in order],
            "published": [label in known for label in order],
            "authors' vocab": [vocab_entry(stored_form(label)) if label in known else "" for label in order],
        },
        index=pd.Index(order, name=name),
    )
    return frame


def system_turns(split: LoadedSplit) -> pd.DataFrame:
    """One row per system utterance: action, its group, counts of candidates and selections, length."""
    frame = split.turns()
    frame = frame[frame["role"] == WIZARD].reset_index(drop=True)
    labels = frame["labels"]
    out = pd.DataFrame(
        {
            "dialogue_id": frame["dialogue_id"],
            "turn_index": frame["turn_index"],
            "action": [published_label(row.get("action", [])) for row in labels],
            "action group": [(row.get("action") or ["(none)"])[0] for row in labels],
        }
    )
    for key, column in _COUNT_COLUMNS.items():
        out[column] = [len(row.get(key, [])) for row in labels]
    # Passage candidates are the turn's evidence (plus any selected passage outside them).
    out["passage candidates"] = frame["evidence_count"].to_numpy()
    out["cites passages"] = out["selected passages"] > 0
    out["response characters"] = frame["text"].str.len().to_numpy()
    return out


def candidate_summary(split: LoadedSplit) -> pd.DataFrame:
    """Mean, median and maximum of candidates and selections per system utterance."""
    columns = ["query candidates", "selected queries", "document candidates", "selected documents",
               "passage candidates", "selected passages"]
    table = system_turns(split)[columns]
    return table.agg(["mean", "median", "max"]).T


def citation_share(split: LoadedSplit) -> pd.DataFrame:
    """Per action group: system utterances, how many select passages, and the share.

    Clarify turns rarely cite (they ask before searching); Answer turns usually do. The last row
    is all system utterances together.
    """
    table = system_turns(split)
    groups = table.groupby("action group")["cites passages"].agg(["size", "sum"])
    groups.loc["all"] = [len(table), int(table["cites passages"].sum())]
    groups.columns = ["system utterances", "cite passages"]
    groups["share"] = groups["cite passages"] / groups["system utterances"]
    groups["scored by the authors"] = [name in SCORED_ACTION_GROUPS for name in groups.index]
    return groups


def response_lengths(split: LoadedSplit) -> pd.DataFrame:
    """Utterance length in characters (whitespace excluded) per role: count, mean, median, max."""
    frame = split.turns()
    frame["characters"] = frame["text"].str.replace(r"\s+", "", regex=True).str.len()
    frame["speaker"] = frame["speaker"].fillna("")
    return frame.groupby("speaker")["characters"].agg(["count", "mean", "median", "max"])


def document_summary(documents: WiseDocuments) -> pd.DataFrame:
    """Documents, passages and sentences in the document collection, with per-unit averages."""
    passages = documents.passages_frame()
    n_documents, n_passages = len(documents), len(passages)
    n_sentences = int(passages["sentences"].sum()) if n_passages else 0
    rows = {
        "documents": n_documents,
        "passages": n_passages,
        "sentences": n_sentences,
        "passages per document": n_passages / n_documents if n_documents else float("nan"),
        "sentences per passage": n_sentences / n_passages if n_passages else float("nan"),
        "characters per passage": float(passages["characters"].mean()) if n_passages else float("nan"),
    }
    return pd.Series(rows, name=documents.provenance.kind).to_frame()


# -- figures ---------------------------------------------------------------------------------------------
# Figures with Chinese labels need a CJK font: call utils.plotting.use_cjk_font() first.


def plot_labels(split: LoadedSplit) -> Figure:
    """Two bar charts: user intents and system actions, every label of the authors' vocab (zero
    counts included) and any other label seen, most frequent first."""
    import matplotlib.pyplot as plt

    intents, actions = (table.sort_values("count", ascending=False, kind="stable")
                        for table in (intent_distribution(split), action_distribution(split)))
    fig, axes = plt.subplots(1, 2, figsize=(12, max(3.0, 0.28 * max(len(intents), len(actions)) + 1)))
    for ax, table, name in ((axes[0], intents, "user intent"), (axes[1], actions, "system action")):
        ordered = table.iloc[::-1]
        # a label outside the authors' vocab stands out in red
        colours = ["#4c78a8" if known else "#e45756" for known in ordered["published"]]
        ax.barh(ordered.index, ordered["count"], color=colours)
        ax.set_title(f"{name} ({split.split}, {split.provenance.kind})")
        ax.set_xlabel("utterances")
    fig.tight_layout()
    return fig


def plot_search(split: LoadedSplit) -> Figure:
    """Candidates and selections per system utterance, and the share citing passages per action group."""
    import matplotlib.pyplot as plt

    table = system_turns(split)
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    pairs = (("queries", "query candidates", "selected queries"),
             ("passages", "passage candidates", "selected passages"))
    for ax, (what, shown, chosen) in zip(axes[:2], pairs, strict=True):
        high = int(max(table[shown].max(), 1))
        # one bar per count while counts are small; 40 bins once real turns list 100+ passages
        bins = [count - 0.5 for count in range(0, high + 2)] if high <= 40 else 40  # bars centred on counts
        ax.hist([table[shown], table[chosen]], bins=bins, label=[shown, chosen])
        ax.set_title(f"{what} per system utterance")
        ax.set_xlabel("count")
        ax.set_ylabel("system utterances")
        ax.legend()
    share = citation_share(split).drop(index="all")
    axes[2].bar(share.index, share["share"], color="#54a24b")
    axes[2].set_ylim(0, 1)
    axes[2].set_title("share of system utterances citing passages")
    axes[2].set_xlabel("action group")
    axes[2].tick_params(axis="x", rotation=30)
    fig.suptitle(f"WISE search behaviour ({split.split}, {split.provenance.kind})")
    fig.tight_layout()
    return fig


def plot_lengths(split: LoadedSplit, documents: WiseDocuments) -> Figure:
    """Utterance lengths in characters per role, and passage lengths in the document collection."""
    import matplotlib.pyplot as plt

    frame = split.turns()
    frame["characters"] = frame["text"].str.replace(r"\s+", "", regex=True).str.len()
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    for speaker, group in frame.groupby("speaker"):
        axes[0].hist(group["characters"], bins=20, alpha=0.6, label=str(speaker))
    axes[0].set_title(f"utterance length ({split.split}, {split.provenance.kind})")
    axes[0].set_xlabel("characters")
    axes[0].set_ylabel("utterances")
    axes[0].legend()
    passages = documents.passages_frame()
    axes[1].hist(passages["characters"], bins=20, color="#f58518")
    axes[1].set_title(f"passage length in document_line.json ({documents.provenance.kind})")
    axes[1].set_xlabel("characters")
    axes[1].set_ylabel("passages")
    fig.tight_layout()
    return fig


def top_keyphrases(split: LoadedSplit, n: int = 15) -> pd.Series:
    """The ``n`` most frequent keyphrases in the system ``state`` labels."""
    frame = split.turns()
    phrases = [phrase for labels in frame["labels"] for phrase in labels.get("state", [])]
    return pd.Series(phrases, dtype="object").value_counts().head(n)


def plot_keyphrases(split: LoadedSplit, n: int = 15) -> Figure:
    """A bar chart of the most frequent state keyphrases (Chinese labels: needs a CJK font)."""
    import matplotlib.pyplot as plt

    counts = top_keyphrases(split, n).iloc[::-1]
    fig, ax = plt.subplots(figsize=(7, max(3.0, 0.3 * len(counts) + 1)))
    ax.barh(counts.index, counts.to_numpy(), color="#b279a2")
    ax.set_title(f"most frequent keyphrases, 关键词 ({split.split}, {split.provenance.kind})")
    ax.set_xlabel("system utterances")
    fig.tight_layout()
    return fig
