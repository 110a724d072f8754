"""Statistics of WISE: sizes per split, label distributions, candidates and selections, lengths.

Everything is computed from the loaded splits (:func:`utils.load`) and the document collection
(:func:`utils.datasets.wise.documents.load_documents`) at run time. Labels are shown under their
published names (the stored lists joined with ``-``, see :func:`utils.datasets.wise.parser.published_label`);
lengths are in characters, the natural unit for Chinese.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import pandas as pd

from utils.book import tables
from utils.book.cjk_fonts import text_as_typed
from utils.book.figures import data_caveat
from utils.book.glosses import english as gloss_english
from utils.book.tables import EMPTY, Table

from ...loading import LoadedSplit, Provenance
from ...records import SEEKER, WIZARD, Dialogue, Turn
from ...reported import Reproduced, compare, reported_value
from .documents import WiseDocuments
from .parser import (
    ACTIONS,
    INTENTS,
    SCORED_ACTION_GROUPS,
    UnknownLabelWarning,
    label_sets_frame,
    published_label,
    stored_form,
    vocab_entry,
)

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


def _whole(splits: Mapping[str, LoadedSplit]) -> tuple[dict[str, float | None], tuple[str, ...]]:
    """The three sizes over train + valid + test, and the provenance kinds of those splits.

    A size is ``None`` when one of the three splits is not loaded: a part of the dataset is not it.
    """
    names = [name for name in WHOLE_DATASET_SPLITS if name in splits]
    kinds = tuple(splits[name].provenance.kind for name in names)
    if len(names) < len(WHOLE_DATASET_SPLITS):
        return dict.fromkeys(("dialogues", "utterances", "turns_per_dialogue")), kinds
    sizes = split_sizes({name: splits[name] for name in names})
    conversations = int(sizes["conversations"].sum())
    values: dict[str, float | None] = {
        "dialogues": conversations,
        "utterances": int(sizes["utterances"].sum()),
        "turns_per_dialogue": float(sizes["turns"].sum() / conversations) if conversations else None,
    }
    return values, kinds


#: How close a reproduced number must be to a reported one. The README rounds: "1.9K", "37K", "9.2".
_TOLERANCE = {"dialogues": 50, "utterances": 500, "turns_per_dialogue": 0.05}
#: Numbers whose definition the data description leaves open: shown, never checked. "Turns" is one:
#: 37K utterances in 1.9K conversations are 9.4 to 10.1 user-system pairs whatever the rounding, not
#: 9.2 (:func:`pairs_per_conversation_range`), and the files' ``turn_id`` does not pair them either
#: (the description's own example has a user utterance at turn 3 answered at turn 4). The atlas
#: counts distinct ``turn_id`` values.
_UNDEFINED = {"turns_per_dialogue": "the description does not define a turn"}


def reported_vs_reproduced(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """The data description's three sizes beside the same sizes computed over train + valid + test.

    The :func:`utils.reported.compare` table: conversations and utterances are checked when all
    three splits are the full official files; turns per conversation is shown but never checked
    (the description does not say what a turn is).
    """
    values, kinds = _whole(splits)
    computed = {
        (name, ""): Reproduced(value, kinds, _TOLERANCE[name], _UNDEFINED.get(name, ""))
        for name, value in values.items()
    }
    return compare("wise", computed)


def pairs_per_conversation_range() -> tuple[float, float]:
    """The user-system pairs per conversation the description's rounded sizes allow, lowest and highest.

    "37K" utterances and "1.9K" conversations are read as any value that rounds to them (the
    tolerances of the comparison), and a pair is two utterances.
    """
    utterances = reported_value("wise", "utterances").value
    conversations = reported_value("wise", "dialogues").value
    low = (utterances - _TOLERANCE["utterances"]) / (conversations + _TOLERANCE["dialogues"]) / 2
    high = (utterances + _TOLERANCE["utterances"]) / (conversations - _TOLERANCE["dialogues"]) / 2
    return low, high


def reported_utterances_per_conversation() -> float:
    """Utterances per conversation in the description's own rounded sizes ("37K" over "1.9K")."""
    return reported_value("wise", "utterances").value / reported_value("wise", "dialogues").value


def intent_distribution(split: LoadedSplit) -> pd.DataFrame:
    """Counts and shares of user intents: all 12 of the authors' vocab (zero counts included), then
    one row per label outside it (``published`` False), which also raises an
    :class:`~utils.datasets.wise.parser.UnknownLabelWarning` naming it."""
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
    :class:`~utils.datasets.wise.parser.UnknownLabelWarning` names them with their counts.
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
# Figures with Chinese labels need a CJK font: call utils.book.cjk_fonts.use_cjk_font() first.


#: Figure widths stay within the book's text column (utils.book.figures.MAX_WIDTH_INCHES), fonts >= 9 pt.
_WIDTH = 7.5


@text_as_typed
def plot_labels(split: LoadedSplit) -> Figure:
    """Two bar charts, one above the other: user intents and system actions, every label of the
    authors' vocab (zero counts included) and any other label seen (in red), most frequent first."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    intents, actions = (table.sort_values("count", ascending=False, kind="stable")
                        for table in (intent_distribution(split), action_distribution(split)))
    # one row of bars per label, panels stacked so that long label names keep the full width
    fig, axes = plt.subplots(2, 1, figsize=(_WIDTH, 0.22 * (len(intents) + len(actions)) + 2.2),
                             gridspec_kw={"height_ratios": [len(intents), len(actions)]})
    for ax, table, name, unit in ((axes[0], intents, "user intents", "user utterances"),
                                  (axes[1], actions, "system actions", "system utterances")):
        ordered = table.iloc[::-1]
        # a label outside the authors' vocab stands out in red
        colours = ["#4c78a8" if known else "#e45756" for known in ordered["published"]]
        ax.barh(ordered.index, ordered["count"], color=colours)
        ax.set_title(f"{name} ({split.split}, {split.provenance.kind})", fontsize=11)
        ax.set_xlabel(unit)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no 0.5 ticks on small data
        ax.tick_params(labelsize=9)
        ax.margins(y=0.01)
    fig.tight_layout()
    return fig


def _most_frequent(table: pd.DataFrame) -> str:
    if not len(table) or table["count"].max() == 0:
        return "none occurs"
    top = table["count"].idxmax()
    return f"the most frequent is {top} ({int(table['count'].max()):,})"


def labels_alt(split: LoadedSplit) -> str:
    """Alt text for :func:`plot_labels`, computed from the split."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownLabelWarning)  # the tables above warned already
        intents, actions = intent_distribution(split), action_distribution(split)
    unknown = int((~intents["published"]).sum() + (~actions["published"]).sum())
    return (
        f"Two horizontal bar charts of label counts in WISE {split.split}. Top: the {len(intents)} user "
        f"intents over {int(intents['count'].sum()):,} user utterances; {_most_frequent(intents)}, and "
        f"{int((intents['count'] == 0).sum())} have no utterance. Bottom: the {len(actions)} system actions "
        f"over {int(actions['count'].sum()):,} system utterances; {_most_frequent(actions)}, and "
        f"{int((actions['count'] == 0).sum())} have no utterance. "
        + (f"{unknown} label(s) outside the authors' vocab are drawn in red." if unknown
           else "Every label seen is in the authors' vocab.")
    )


@text_as_typed
def plot_search(split: LoadedSplit) -> Figure:
    """Candidates and selections per system utterance (queries, passages), and below them the share
    of system utterances citing passages per action group."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    table = system_turns(split)
    fig = plt.figure(figsize=(_WIDTH, 6.4))
    grid = fig.add_gridspec(2, 2)
    top = [fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])]
    bottom = fig.add_subplot(grid[1, :])
    pairs = (("queries", "query candidates", "selected queries"),
             ("passages", "passage candidates", "selected passages"))
    for ax, (what, shown, chosen) in zip(top, pairs, strict=True):
        high = int(max(table[shown].max(), 1))
        # one bar per count while counts are small; 40 bins once real turns list 100+ passages
        bins = [count - 0.5 for count in range(0, high + 2)] if high <= 40 else 40  # bars centred on counts
        ax.hist([table[shown], table[chosen]], bins=bins, label=["candidates", "selected"])
        ax.set_title(f"{what} per system utterance", fontsize=11)
        ax.set_xlabel(f"{what} (count)")
        ax.set_ylabel("system utterances")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        if high <= 40:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(top=ax.get_ylim()[1] * 1.35)  # room for the legend above the bars
        ax.legend(fontsize=9, loc="upper right")
    share = citation_share(split).drop(index="all")
    bars = bottom.bar(share.index, 100 * share["share"], color="#54a24b")
    # a share of 0 draws no bar: the label says it is 0, and out of how many utterances
    bottom.bar_label(bars, labels=[f"{100 * value:.0f}% of {int(n):,}"
                                   for value, n in zip(share["share"], share["system utterances"], strict=True)],
                     fontsize=9, padding=2)
    bottom.set_ylim(0, 115)
    bottom.set_yticks(range(0, 101, 20))
    bottom.set_title("system utterances citing at least one passage, per action group", fontsize=11)
    bottom.set_xlabel("action group")
    bottom.set_ylabel("share (%)")
    fig.suptitle(f"WISE search behaviour ({split.split}, {split.provenance.kind})", fontsize=12)
    fig.tight_layout()
    return fig


def search_alt(split: LoadedSplit) -> str:
    """Alt text for :func:`plot_search`, computed from the split."""
    table = system_turns(split)
    share = citation_share(split).drop(index="all")
    means = {column: table[column].mean() for column in
             ("query candidates", "selected queries", "passage candidates", "selected passages")}
    cites = "; ".join(f"{group} {100 * value:.0f}%" for group, value in share["share"].items())
    return (
        f"Three charts of the {len(table):,} system utterances of WISE {split.split}. Histograms of query "
        f"candidates and selected queries per utterance (means {means['query candidates']:.1f} and "
        f"{means['selected queries']:.1f}) and of passage candidates and selected passages (means "
        f"{means['passage candidates']:.1f} and {means['selected passages']:.1f}); a bar chart of the share "
        f"citing at least one passage per action group: {cites}."
    )


@text_as_typed
def plot_lengths(split: LoadedSplit, documents: WiseDocuments) -> Figure:
    """Utterance lengths in characters per role, and passage lengths in the document collection."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    frame = split.turns()
    frame["characters"] = frame["text"].str.replace(r"\s+", "", regex=True).str.len()
    fig, axes = plt.subplots(1, 2, figsize=(_WIDTH, 3.4))
    edges = np.histogram_bin_edges(frame["characters"], bins=20)  # one set of bins for both speakers
    for speaker, group in frame.groupby("speaker"):
        axes[0].hist(group["characters"], bins=edges, alpha=0.6, label=str(speaker))
    axes[0].set_title(f"utterances ({split.split}, {split.provenance.kind})", fontsize=11)
    axes[0].set_xlabel("characters")
    axes[0].set_ylabel("utterances")
    axes[0].legend(fontsize=9)
    passages = documents.passages_frame()
    axes[1].hist(passages["characters"], bins=20, color="#f58518")
    axes[1].set_title(f"passages (documents, {documents.provenance.kind})", fontsize=11)
    axes[1].set_xlabel("characters")
    axes[1].set_ylabel("passages")
    for ax in axes:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    return fig


def lengths_alt(split: LoadedSplit, documents: WiseDocuments) -> str:
    """Alt text for :func:`plot_lengths`, computed from the split and the document collection."""
    lengths = response_lengths(split)
    roles = "; ".join(f"{speaker} utterances median {row['median']:.0f}, longest {int(row['max']):,}"
                      for speaker, row in lengths.iterrows())
    passages = documents.passages_frame()
    passage = (f"median {passages['characters'].median():.0f}, longest {int(passages['characters'].max()):,}"
               if len(passages) else "none")
    return (
        f"Two histograms of length in characters. Left: utterances of WISE {split.split} by speaker ({roles}). "
        f"Right: the {len(passages):,} passages of the document collection ({passage})."
    )


def top_keyphrases(split: LoadedSplit, n: int = 15) -> pd.Series:
    """The ``n`` most frequent keyphrases in the system ``state`` labels."""
    frame = split.turns()
    phrases = [phrase for labels in frame["labels"] for phrase in labels.get("state", [])]
    return pd.Series(phrases, dtype="object").value_counts().head(n)


@text_as_typed
def plot_keyphrases(split: LoadedSplit, n: int = 15) -> Figure:
    """A bar chart of the most frequent state keyphrases (Chinese labels: needs a CJK font)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    counts = top_keyphrases(split, n).iloc[::-1]
    fig, ax = plt.subplots(figsize=(7, max(3.0, 0.3 * len(counts) + 1)))
    ax.barh(counts.index, counts.to_numpy(), color="#b279a2")
    ax.set_title(f"most frequent keyphrases, 关键词 ({split.split}, {split.provenance.kind})", fontsize=11)
    ax.set_xlabel("system utterances")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.tick_params(labelsize=10)
    fig.tight_layout()
    return fig


def keyphrases_alt(split: LoadedSplit, n: int = 15) -> str:
    """Alt text for :func:`plot_keyphrases`, computed from the split."""
    counts = top_keyphrases(split, n)
    if counts.empty:
        return f"An empty bar chart: no system utterance of WISE {split.split} has a keyphrase."
    listed = ", ".join(f"{phrase} ({int(count):,})" for phrase, count in counts.head(3).items())
    return (
        f"Horizontal bar chart of the {len(counts)} most frequent keyphrases in the system turns' state "
        f"labels of WISE {split.split}, in Chinese; the first three: {listed}."
    )


# -- tables for readers ------------------------------------------------------------------------------------
# Each function formats one of the frames above with utils.book.tables.table: human headers, counts as
# integers, shares as percentages, and a caption that names demo or partial data.


def _caption(text: str, provenances: Iterable[Provenance]) -> str:
    return f"{data_caveat(provenances)} {text}".strip()


def label_sets_table() -> Table:
    """The 12 intents and 23 actions as published: kind, name, the stored list (as JSON) and the
    atlas's English gloss (the authors' vocab entry is the name in brackets, which the chapter says)."""
    frame = label_sets_frame()
    frame["stored as"] = [json.dumps(stored, ensure_ascii=False) for stored in frame["stored as"]]
    return tables.table(
        frame,
        labels={"kind": "Kind", "published name": "Published name", "stored as": "Stored in the files as",
                "gloss": "Meaning (atlas's gloss)"},
        caption=f"The {len(INTENTS)} user intents and {len(ACTIONS)} system actions of WISE, as the authors "
        "publish them.",
    )


def utterances_table(dialogue: Dialogue, provenance: Provenance, glosses: Mapping[str, str] | None = None) -> Table:
    """:func:`utterances_frame` of ``dialogue`` for readers, captioned with its provenance."""
    frame = utterances_frame(dialogue, glosses)
    frame["intent or action"] = frame["intent or action"].replace("", NO_LABEL)
    # selected passages are left to turn_labels_table: the utterances and glosses need the width
    labels = {"speaker": "Speaker", "text": "Utterance", "intent or action": "Intent or action"}
    # the atlas translated only its demo sample: a column of blanks on the real files is left out
    if "English (gloss)" in frame.columns and frame["English (gloss)"].astype(bool).any():
        labels["English (gloss)"] = "English (atlas's translation)"
    frame.index = [turn.index for turn in dialogue.turns]
    return tables.table(
        frame,
        labels=labels,
        index="Turn",
        integers=["Turn"],
        caption=_caption(f"The utterances of WISE conversation {dialogue.id} ({dialogue.split}).", [provenance]),
        empty_note="",
    )


#: The labels of a system utterance, in the data description's order, with what each holds.
TURN_LABEL_FIELDS = {
    "state": "keyphrases of the conversation so far (状态)",
    "query_candidate": "queries the search engine suggested",
    "selected_query": "the queries the wizard chose",
    "action": "what the wizard does next, as a list",
    "document_candidate": "ids of the documents returned",
    "selected_document": "ids of the documents the wizard used",
    "selected_passage": "ids of the passages the wizard used (document-passage)",
}


def turn_labels_table(turn: Turn, provenance: Provenance) -> Table:
    """The labels of one system utterance: field, what it holds, how many values and the values."""
    rows = [
        {"field": field, "holds": meaning, "values": len(turn.labels.get(field, [])),
         "listed": ", ".join(turn.labels.get(field, [])) or EMPTY}
        for field, meaning in TURN_LABEL_FIELDS.items()
    ]
    others = sorted(set(turn.labels) - set(TURN_LABEL_FIELDS))
    rows += [{"field": field, "holds": "(a field the data description does not list)",
              "values": len(turn.labels[field]), "listed": ", ".join(turn.labels[field]) or EMPTY}
             for field in others]
    return tables.table(
        pd.DataFrame(rows),
        labels={"field": "Field in the file", "holds": "What it holds", "values": "Values", "listed": "Values listed"},
        integers=["values"],
        caption=_caption(f"The labels of the system utterance with turn index {turn.index}.", [provenance]),
        notes=[f"{EMPTY} empty list"] if any(row["listed"] == EMPTY for row in rows) else (),
        empty_note="",
    )


def evidence_table(split: LoadedSplit, dialogue_index: int, turn_index: int) -> Table:
    """The passage candidates of one system utterance as the atlas stores them (one row per evidence)."""
    # One dialogue rebuilt, not the split's evidence spelt out: on the full-size train that took a
    # gigabyte of the chapter's kernel to show a hundred rows.
    turn = next(turn for turn in split[dialogue_index].turns if turn.index == turn_index)
    frame = pd.DataFrame(
        [(item.id, item.title, item.text, item.selected) for item in turn.evidence],
        columns=["id", "title", "text", "selected"],
    )
    frame = frame.assign(title=frame["title"].fillna(EMPTY), text=frame["text"].fillna(EMPTY))
    return tables.table(
        frame,
        labels={"id": "Passage id", "title": "Document title", "text": "Passage text", "selected": "Selected"},
        caption=_caption(f"The passage candidates of utterance {turn_index} of conversation "
                         f"{dialogue_index + 1} in {split.split}, as evidence.", [split.provenance]),
        notes=[f"{EMPTY} the document file has no text for this passage"] if (frame["text"] == EMPTY).any() else (),
        empty_note="",
    )


#: Said once, where the documents are loaded, when the conversations are real but the document
#: collection is not in the data directory: what the chapter shows and what it cannot.
WITHOUT_DOCUMENTS_NOTE = (
    "The conversations are the official files, but the document collection (document_line.json, "
    "published on Google Drive and Baidu Pan only) is not in the data directory. Everything that "
    "needs no passage text is computed on the real conversations: intents, actions, keyphrases "
    "(states), queries, the selections of queries, documents and passages (by id), lengths, and the "
    "intent, action, keyphrase and query-selection baselines. What needs the passages' text is left "
    "out rather than shown on the demo sample's invented documents: the passage text in the "
    "renderings, the tables of passages and documents, the passage-length figure, passage selection "
    "(T5) and the response oracle (T6). Place document_line.json beside the conversation files to "
    "add them (see Getting the data)."
)


def passages_table(documents: WiseDocuments, n: int = 5) -> Table:
    """The first ``n`` passages of the document collection."""
    frame = documents.passages_frame().head(n)
    return tables.table(
        frame,  # the id is "<document>-<passage>": the separate number columns would repeat it
        labels={"id": "Passage id", "title": "Document title", "sentences": "Sentences",
                "characters": "Characters", "text": "Text"},
        integers=["sentences", "characters"],
        caption=_caption(f"The first {len(frame)} passages of the document collection.", [documents.provenance]),
    )


def sizes_table(splits: Mapping[str, LoadedSplit]) -> Table:
    """:func:`split_sizes` for readers: counts and turns per conversation (the total of turns and the
    utterances per conversation stay in the frame: one is the chapter's first exercise)."""
    sizes = split_sizes(splits)
    sizes.index = [name.replace("_", " ") for name in sizes.index]
    return tables.table(
        sizes,
        labels={"conversations": "Conversations", "utterances": "Utterances",
                "user utterances": "User utterances", "system utterances": "System utterances",
                "turns per conversation": "Turns per conversation"},
        index="Split",
        integers=["conversations", "utterances", "user utterances", "system utterances"],
        decimals={"turns per conversation": 2},
        caption=_caption("Size of each WISE split (test is the union of test seen and test unseen).",
                         [split.provenance for split in splits.values()]),
        notes=["A turn is a distinct turn_id within a conversation; a user utterance and the system's reply "
               "usually share one."],
    )


def _label_table(distribution: pd.DataFrame, split: LoadedSplit, what: str, unit: str) -> Table:
    """The labels that occur in the split (a published label that does not is counted in a note, not
    shown as a row of zeros: on a small split most of the 12 intents and 23 actions would be)."""
    absent = distribution["published"] & (distribution["count"] == 0)
    frame = distribution[~absent].copy()
    frame["authors' vocab"] = frame["authors' vocab"].replace("", EMPTY)
    unknown = int((~frame["published"]).sum())
    published = int(distribution["published"].sum())
    missing = list(distribution.index[absent])
    notes = []
    if missing:
        notes.append(f"{len(missing)} of the authors' {published} {what}s do not occur in this split and are "
                     f"not listed: {', '.join(missing)}.")
    if unknown:
        notes.append(f"{unknown} label(s) outside the authors' vocab, listed last: their models have no class for "
                     f"them ({EMPTY} no vocab entry).")
    return tables.table(
        frame,
        labels={"count": unit.capitalize(), "share": "Share", "published": "In the authors' vocab",
                "authors' vocab": "Vocab entry"},
        index=what.capitalize(),
        integers=["count"],
        percents={"share": 1},
        caption=_caption(f"{what.capitalize()}s of WISE {split.split} that occur in it, in the order of the "
                         "authors' vocab.", [split.provenance]),
        notes=notes,
        empty_note="",
    )


def intent_table(split: LoadedSplit) -> Table:
    """:func:`intent_distribution` for readers."""
    return _label_table(intent_distribution(split), split, "user intent", "user utterances")


def action_table(split: LoadedSplit) -> Table:
    """:func:`action_distribution` for readers."""
    return _label_table(action_distribution(split), split, "system action", "system utterances")


def candidates_table(split: LoadedSplit) -> Table:
    """:func:`candidate_summary` for readers."""
    summary = candidate_summary(split)
    table = tables.table(
        summary,
        labels={"mean": "Mean", "median": "Median", "max": "Maximum"},
        index="Per system utterance",
        decimals={"mean": 2},
        integers=["max"],
        caption=_caption(f"Candidates and selections per system utterance in WISE {split.split} "
                         f"({len(system_turns(split)):,} system utterances).", [split.provenance]),
    )
    table.styler.format(tables.median_count, subset=["median"])  # a median of counts: 2 or 2.5, never 2.0
    return table


def citations_table(split: LoadedSplit) -> Table:
    """:func:`citation_share` for readers (the last row is every system utterance)."""
    shares = citation_share(split)
    # the authors score some groups, not "all of them together": no yes/no for that row
    shares["scored by the authors"] = shares["scored by the authors"].astype(object)
    shares.loc["all", "scored by the authors"] = None
    return tables.table(
        shares,
        labels={"system utterances": "System utterances", "cite passages": "Citing a passage",
                "share": "Share citing", "scored by the authors": "Scored on selection by the authors"},
        row_labels={"all": "all action groups"},
        index="Action group",
        integers=["system utterances", "cite passages"],
        percents={"share": 0},  # whole percents: "100.0" would read as a count
        caption=_caption(f"System utterances that select at least one passage, per action group, in WISE "
                         f"{split.split}.", [split.provenance]),
        empty_note=f"{EMPTY} the authors score Clarify and Answer turns, not all groups together",
    )


def lengths_table(split: LoadedSplit) -> Table:
    """:func:`response_lengths` for readers."""
    table = tables.table(
        response_lengths(split),
        labels={"count": "Utterances", "mean": "Mean (characters)", "median": "Median (characters)",
                "max": "Longest (characters)"},
        index="Speaker",
        integers=["count", "max"],
        decimals={"mean": 1},
        caption=_caption(f"Utterance length in characters, whitespace excluded, in WISE {split.split}.",
                         [split.provenance]),
    )
    table.styler.format(tables.median_count, subset=["median"])  # a median of counts: 13 or 13.5, never 13.0
    return table


def documents_table(documents: WiseDocuments) -> Table:
    """:func:`document_summary` for readers: one row, counts as integers, averages with decimals."""
    summary = document_summary(documents).T
    return tables.table(
        summary,
        labels={"documents": "Documents", "passages": "Passages", "sentences": "Sentences",
                "passages per document": "Passages per document", "sentences per passage": "Sentences per passage",
                "characters per passage": "Characters per passage"},
        integers=["documents", "passages", "sentences"],
        decimals={"passages per document": 2, "sentences per passage": 2, "characters per passage": 1},
        caption=_caption("Size of the document collection (document_line.json).", [documents.provenance]),
    )
