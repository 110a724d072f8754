"""FaithDial statistics: split sizes, edits, BEGIN/VRM distributions, lengths, overlap, the audit.

Everything is computed from loaded splits (:func:`utils.load`; a list of their dialogues works too,
see :data:`utils.loading.Dialogues`) at run time. A FaithDial split
is first flattened by :func:`utterances` into one row per utterance record of the original file
(one wizard response with its knowledge, its WoW original and its labels); the audit files are
summarised from the dialogues of :mod:`utils.formats.faithdial_audit` (one per CSV row).

FaithDial's BEGIN and VRM labels describe the WoW response the annotators judged: the
``original_response`` when there is one, else the kept ``response`` (see
:mod:`utils.formats.faithdial`). Every statistic about labels here is therefore about the
``labelled_response`` column, never about the edited ``response`` of an edited turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import matplotlib.pyplot as plt
import pandas as pd

from ..formats.faithdial import DESCRIBES_ORIGINAL, begin_class, labelled_text
from ..formats.faithdial import labels_describe as _labels_describe
from ..formats.faithdial_audit import BEGIN_CLASSES, STATUS_LABELLED, VRM_CLASSES, audit_report
from ..loading import Dialogues
from ..metrics import grounding_overlap
from ..records import SEEKER, WIZARD
from ..reported import reported, reported_value
from ..text import word_tokens

#: BEGIN classes counted as hallucinated (the paper's ">60%" adds both).
HALLUCINATED = ("Hallucination", "Partial Hallucination")


def utterances(dialogues: Dialogues) -> pd.DataFrame:
    """One row per utterance record (wizard response) of a FaithDial split.

    Columns: ``dialogue_id``, ``turn_index``, ``history_length``, ``knowledge``, ``response`` (the
    faithful response), ``original_response`` (``""`` when the WoW response was kept), ``edited``
    (``original_response`` is non-empty), ``labels_describe`` (``"original_response"`` or
    ``"response"``), ``labelled_response`` (the text the labels describe: the original when edited,
    else the response), ``BEGIN`` and ``VRM`` (cleaned lists) and ``begin_class`` (the one BEGIN
    class the list means, ``None`` when unlabelled).
    """
    rows = []
    for dialogue in dialogues:
        for turn in dialogue.turns:
            if turn.role != WIZARD or turn.raw.get("from_history"):
                continue
            original = turn.raw.get("original_response")
            original = original if isinstance(original, str) else ""
            begin = list(turn.labels.get("BEGIN", []))
            rows.append(
                {
                    "dialogue_id": dialogue.id,
                    "turn_index": turn.index,
                    "history_length": turn.raw.get("history_length", 0),
                    "knowledge": " ".join(item.text for item in turn.selected_evidence),
                    "response": turn.text,
                    "original_response": original,
                    "edited": _labels_describe(original) == DESCRIBES_ORIGINAL,
                    "labels_describe": _labels_describe(original),
                    "labelled_response": labelled_text(turn),
                    "BEGIN": begin,
                    "VRM": list(turn.labels.get("VRM", [])),
                    "begin_class": begin_class(begin),
                }
            )
    columns = ["dialogue_id", "turn_index", "history_length", "knowledge", "response", "original_response", "edited"]
    labels = ["labels_describe", "labelled_response", "BEGIN", "VRM", "begin_class"]
    return pd.DataFrame(rows, columns=[*columns, *labels])


def count_turns(dialogues: Dialogues) -> dict[str, int]:
    """Dialogues, utterance records (wizard responses), seeker turns and all turns of a split.

    ``turns`` counts every utterance of the rebuilt conversations, seeker and wizard, which is
    what the dataset card's "turns" counts (about nine per conversation in the paper).
    """
    counts = Counter(dialogues=0, responses=0, seeker_turns=0, wizard_turns=0, turns=0)
    for dialogue in dialogues:
        counts["dialogues"] += 1
        counts["turns"] += len(dialogue.turns)
        for turn in dialogue.turns:
            if turn.role == SEEKER:
                counts["seeker_turns"] += 1
            else:
                counts["wizard_turns"] += 1
                counts["responses"] += 0 if turn.raw.get("from_history") else 1
    return dict(counts)


def split_sizes(splits: Mapping[str, Dialogues]) -> pd.DataFrame:
    """:func:`count_turns` for several loaded splits, one row each, with where each came from."""
    rows = []
    for name, split in splits.items():
        provenance = getattr(split, "provenance", None)
        rows.append({"split": name, **count_turns(split), "data": provenance.kind if provenance else "in memory"})
    return pd.DataFrame(rows).set_index("split")


def reported_vs_reproduced(splits: Mapping[str, Dialogues]) -> pd.DataFrame:
    """The card's turn and dialogue counts beside the counts computed from the loaded splits.

    ``asserted`` is True only where every split the number covers is the full official file;
    elsewhere (demo or partial data) the comparison is shown but not checked.
    """
    sizes = split_sizes(splits)
    full = {
        name: bool(getattr(split, "provenance", None) and split.provenance.is_full) for name, split in splits.items()
    }
    rows = []
    for item in reported("faithdial").itertuples():
        # the whole-dataset numbers cover train + valid + test (valid and test hold seen and unseen)
        covered = [item.split] if item.split else ["train", "valid", "test"]
        if any(s not in sizes.index for s in covered):
            continue
        column = "turns" if item.name == "turns" else "dialogues"
        value = int(sizes.loc[covered, column].sum())
        complete = all(full[s] for s in covered)
        rows.append(
            {
                "number": item.name,
                "split": item.split or "train+valid+test",
                "reported": int(item.value),
                "reproduced": value,
                "asserted": complete,
                "note": "full official data: checked" if complete else "not the full data: shown, not checked",
                "source": item.source,
            }
        )
    return pd.DataFrame(rows)


def edited_share(frame: pd.DataFrame) -> float:
    """Share of responses that annotators edited (non-empty ``original_response``)."""
    return float(frame["edited"].mean()) if len(frame) else 0.0


def label_distribution(frame: pd.DataFrame, scheme: str = "BEGIN") -> pd.DataFrame:
    """Labelled responses per BEGIN class or per VRM mode, and their share of all responses.

    The labels describe ``labelled_response`` (the WoW original of an edited turn). For ``"BEGIN"``
    each response counts once, in its class (:func:`utils.formats.faithdial.begin_class`: the list
    ``["Hallucination", "Entailment"]`` is one Partial Hallucination, not two labels), so the
    shares add up to the share of labelled responses. VRM modes are multi-valued: a response counts
    once under each of its modes, and the shares add up to more than one. ``share`` is of all rows.
    """
    if scheme == "BEGIN":
        counts = Counter(label for label in frame["begin_class"] if pd.notna(label))
        known = BEGIN_CLASSES
    else:
        counts = Counter(label for labels in frame[scheme] for label in dict.fromkeys(labels))
        known = VRM_CLASSES
    order = [label for label in known if label in counts] + sorted(set(counts) - set(known))
    total = len(frame)
    return pd.DataFrame(
        {"label": order, "responses": [counts[x] for x in order], "share": [counts[x] / total for x in order]}
    ).set_index("label")


def begin_lists(frame: pd.DataFrame) -> pd.DataFrame:
    """Every BEGIN list as the files write it, the class it means, and how many responses carry it.

    Shows that ``["Hallucination", "Entailment"]`` is how the files spell Partial Hallucination.
    Sorted by count (then by the list), an empty list shown as ``(none)``.
    """
    written = [" + ".join(labels) or "(none)" for labels in frame["BEGIN"]]
    counts = Counter(written)
    classes = dict(zip(written, frame["begin_class"], strict=True))
    order = sorted(counts, key=lambda key: (-counts[key], key))
    return pd.DataFrame(
        {
            "BEGIN as written": order,
            "BEGIN class": [classes[key] if pd.notna(classes[key]) else "-" for key in order],
            "responses": [counts[key] for key in order],
        }
    ).set_index("BEGIN as written")


def precision_by_begin_class(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean knowledge precision per BEGIN class over the edited rows (where the two texts differ).

    ``precision of the labelled original`` scores the text the class describes;
    ``precision of the faithful rewrite`` scores the edited ``response``, which is what code that
    pairs the labels with ``response`` would put under the same class. Only the first column is
    about the text the annotators judged.
    """
    edited = frame[frame["edited"] & frame["begin_class"].notna()]
    rows = []
    for label in [cls for cls in BEGIN_CLASSES if cls in set(edited["begin_class"])]:
        group = edited[edited["begin_class"] == label]
        knowledge = list(group["knowledge"])
        labelled = [knowledge_overlap(r, k)[0] for r, k in zip(group["labelled_response"], knowledge, strict=True)]
        rewrite = [knowledge_overlap(r, k)[0] for r, k in zip(group["response"], knowledge, strict=True)]
        rows.append(
            {
                "BEGIN class": label,
                "edited responses": len(group),
                "precision of the labelled original": sum(labelled) / len(labelled),
                "precision of the faithful rewrite": sum(rewrite) / len(rewrite),
            }
        )
    columns = [
        "BEGIN class",
        "edited responses",
        "precision of the labelled original",
        "precision of the faithful rewrite",
    ]
    return pd.DataFrame(rows, columns=columns).set_index("BEGIN class")


def lengths(frame: pd.DataFrame) -> pd.DataFrame:
    """Word tokens of the original and the edited response, for the edited responses only."""
    edited = frame[frame["edited"]]
    return pd.DataFrame(
        {
            "original": [len(word_tokens(text)) for text in edited["original_response"]],
            "edited": [len(word_tokens(text)) for text in edited["response"]],
        },
        index=edited.index,
    )


def knowledge_overlap(response: str, knowledge: str) -> tuple[float, float]:
    """``(precision, recall)`` of the response's word tokens against the knowledge's.

    Precision is the share of response tokens found in the knowledge (how much of what is said is
    supported, lexically); recall the share of knowledge tokens the response uses. Tokens are
    ParlAI-normalised words counted as multisets, as in unigram F1 (:func:`utils.metrics.grounding_overlap`).
    """
    prf = grounding_overlap(response, knowledge)
    return prf.precision, prf.recall


def overlap_before_after(frame: pd.DataFrame) -> pd.DataFrame:
    """Knowledge precision and recall of the original and the edited response (edited rows)."""
    edited = frame[frame["edited"]]
    rows = []
    for row in edited.itertuples():
        before = knowledge_overlap(row.original_response, row.knowledge)
        after = knowledge_overlap(row.response, row.knowledge)
        rows.append(
            {
                "precision_original": before[0],
                "recall_original": before[1],
                "precision_edited": after[0],
                "recall_edited": after[1],
            }
        )
    columns = ["precision_original", "recall_original", "precision_edited", "recall_edited"]
    return pd.DataFrame(rows, index=edited.index, columns=columns)


def before_after_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean length and knowledge overlap of the edited responses, before and after editing."""
    sizes = lengths(frame)
    overlap = overlap_before_after(frame)
    return pd.DataFrame(
        {
            "original WoW response": [
                sizes["original"].mean(),
                overlap["precision_original"].mean(),
                overlap["recall_original"].mean(),
            ],
            "edited FaithDial response": [
                sizes["edited"].mean(),
                overlap["precision_edited"].mean(),
                overlap["recall_edited"].mean(),
            ],
        },
        index=["mean length (words)", "knowledge precision", "knowledge recall"],
    )


# -- the audit ---------------------------------------------------------------------------------


def audit_rows(files: Mapping[str, Dialogues]) -> pd.DataFrame:
    """One row per labelled response of the audit files: file, system, benchmark, labels, text."""
    rows = []
    for name, dialogues in files.items():
        for dialogue in dialogues:
            if dialogue.meta.get("status") != STATUS_LABELLED:
                continue
            wizard = next(turn for turn in dialogue.turns if turn.role == WIZARD)
            rows.append(
                {
                    "file": name,
                    "system": dialogue.meta["system"],
                    "benchmark": dialogue.meta["benchmark"],
                    "row": dialogue.meta["row"],
                    "begin_class": dialogue.meta["begin_class"],
                    "BEGIN": wizard.labels["BEGIN"],
                    "VRM": wizard.labels["VRM"],
                    "vrm_missing": bool(dialogue.meta.get("vrm_missing")),
                    "response": wizard.text,
                    "knowledge": " ".join(item.text for item in wizard.selected_evidence),
                }
            )
    columns = [
        "file",
        "system",
        "benchmark",
        "row",
        "begin_class",
        "BEGIN",
        "VRM",
        "vrm_missing",
        "response",
        "knowledge",
    ]
    return pd.DataFrame(rows, columns=columns)


def audit_dropped(files: Mapping[str, Dialogues]) -> pd.DataFrame:
    """:func:`utils.formats.faithdial_audit.audit_report` over several files: what was left out, why."""
    return audit_report(dialogue for dialogues in files.values() for dialogue in dialogues)


def audit_begin_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Share of each BEGIN class per audit file (rows: files; a column ``n`` of labelled responses).

    Each response has one class (:func:`utils.formats.faithdial_audit.begin_class`), so a row sums
    to one; ``hallucinated`` adds Hallucination and Partial Hallucination.
    """
    table = pd.crosstab(rows["file"], rows["begin_class"]).reindex(columns=list(BEGIN_CLASSES), fill_value=0)
    n = table.sum(axis=1)
    shares = table.div(n, axis=0)
    shares["hallucinated"] = shares[list(HALLUCINATED)].sum(axis=1)
    shares.insert(0, "n", n)
    return shares.reindex([f for f in dict.fromkeys(rows["file"])])


def audit_vrm_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Share of labelled responses (with a VRM label) carrying each VRM mode, per audit file."""
    usable = rows[~rows["vrm_missing"]]
    records = []
    for name, group in usable.groupby("file", sort=False):
        counts = Counter(label for labels in group["VRM"] for label in labels)
        records.append({"file": name, "n": len(group), **{mode: counts[mode] / len(group) for mode in VRM_CLASSES}})
    return pd.DataFrame(records).set_index("file")


def hallucination_share(rows: pd.DataFrame, file: str) -> tuple[int, int, float]:
    """``(hallucinated, labelled, share)`` for one audit file (Hallucination + Partial Hallucination)."""
    group = rows[rows["file"] == file]
    hallucinated = int(group["begin_class"].isin(HALLUCINATED).sum())
    return hallucinated, len(group), hallucinated / len(group) if len(group) else 0.0


def audit_reported_vs_reproduced(
    files: Mapping[str, Dialogues], rows: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The audit paper's ">60%" hallucinated WoW responses beside the share computed from the file.

    The paper gives a lower bound, so the check is ``reproduced > reported``; ``asserted`` is True
    only when the file loaded is the full official one.
    """
    rows = audit_rows(files) if rows is None else rows
    records = []
    for item in reported("faithdial_audit").itertuples():
        if item.split not in files:
            continue
        hallucinated, labelled, share = hallucination_share(rows, item.split)
        provenance = getattr(files[item.split], "provenance", None)
        full = bool(provenance and provenance.is_full)
        records.append(
            {
                "number": "share of responses labelled Hallucination or Partial Hallucination",
                "file": item.split,
                "reported": f"> {item.value:.0%}",
                "reproduced": share,
                "counts": f"{hallucinated} of {labelled}",
                "check": "reproduced > reported",
                "holds": share > item.value,
                "asserted": full,
                "source": item.source,
            }
        )
    return pd.DataFrame(records)


# -- figures -----------------------------------------------------------------------------------


def plot_label_distribution(frame: pd.DataFrame, scheme: str = "BEGIN", title: str = "") -> plt.Axes:
    """A bar chart of :func:`label_distribution`."""
    table = label_distribution(frame, scheme)
    _, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar(table.index, table["share"] * 100, color="#4c78a8")
    ax.set_ylabel("% of responses")
    ax.set_xlabel("BEGIN class" if scheme == "BEGIN" else f"{scheme} mode")
    ax.set_title(title or f"FaithDial: {scheme} of the labelled (original) responses (n = {len(frame):,})")
    ax.tick_params(axis="x", rotation=20)
    plt.tight_layout()
    return ax


def plot_before_after(frame: pd.DataFrame, title: str = "") -> plt.Figure:
    """Histograms of length and knowledge precision before and after editing (edited responses)."""
    sizes = lengths(frame)
    overlap = overlap_before_after(frame)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    left.hist([sizes["original"], sizes["edited"]], bins=15, label=["original (WoW)", "edited (FaithDial)"])
    left.set_xlabel("response length (words)")
    left.set_ylabel("responses")
    left.legend()
    right.hist(
        [overlap["precision_original"], overlap["precision_edited"]],
        bins=[i / 10 for i in range(11)],
        label=["original (WoW)", "edited (FaithDial)"],
    )
    right.set_xlabel("token precision against the knowledge")
    right.set_ylabel("responses")
    right.legend()
    fig.suptitle(title or f"Before and after editing ({len(sizes):,} edited responses)")
    fig.tight_layout()
    return fig


def plot_audit_begin(table: pd.DataFrame, title: str = "Hallucination audit: BEGIN class per file") -> plt.Axes:
    """Stacked bars of :func:`audit_begin_table` (one bar per audit file)."""
    _, ax = plt.subplots(figsize=(9, 3.8))
    bottom = pd.Series(0.0, index=table.index)
    for label in BEGIN_CLASSES:
        ax.bar(table.index, table[label] * 100, bottom=bottom * 100, label=label)
        bottom += table[label]
    bound = reported_value("faithdial_audit", "hallucination_share_lower_bound", "gold_wow").value
    ax.axhline(bound * 100, color="black", linestyle="--", linewidth=1, label=f"reported for gold WoW: > {bound:.0%}")
    ax.set_ylabel("% of labelled responses")
    ax.set_xlabel("audit file (system_benchmark)")
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=35)
    ax.legend(fontsize=8, bbox_to_anchor=(1.01, 1), loc="upper left")
    plt.tight_layout()
    return ax
