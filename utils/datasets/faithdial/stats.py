"""FaithDial statistics: split sizes, edits, BEGIN/VRM distributions, lengths, overlap, the audit.

Everything is computed from loaded splits (:func:`utils.load`; a list of their dialogues works too,
see :data:`utils.loading.Dialogues`) at run time. A FaithDial split
is first flattened by :func:`utterances` into one row per utterance record of the original file
(one wizard response with its knowledge, its WoW original and its labels); the audit files are
summarised from the dialogues of :mod:`utils.datasets.faithdial.audit_parser` (one per CSV row).

FaithDial's BEGIN and VRM labels describe the WoW response the annotators judged: the
``original_response`` when there is one, else the kept ``response`` (see
:mod:`utils.datasets.faithdial.parser`). Every statistic about labels here is therefore about the
``labelled_response`` column, never about the edited ``response`` of an edited turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from utils.book import tables
from utils.book.cjk_fonts import text_as_typed
from utils.book.figures import caption

from ...loading import Dialogues, LoadedSplit
from ...metrics import grounding_overlap
from ...records import SEEKER, WIZARD, Dialogue
from ...reported import Reproduced, compare, reported, reported_value
from ...text import word_tokens
from .audit_parser import (
    BEGIN_CLASSES,
    BENCHMARKS,
    STATUS_LABELLED,
    SYSTEMS,
    VRM_CLASSES,
    audit_file_label,
    audit_report,
)
from .parser import DESCRIBES_ORIGINAL, begin_class, labelled_text
from .parser import labels_describe as _labels_describe

#: BEGIN classes counted as hallucinated (the paper's ">60%" adds both).
HALLUCINATED = ("Hallucination", "Partial Hallucination")


#: Table headers for the BEGIN classes and VRM modes, with soft hyphens where a narrow column may break
#: the word (a table of twelve audit files by six classes must fit a page).
HEADERS = {
    "Hallucination": "Hallu\u00adcination",
    "Partial Hallucination": "Partial Hallu\u00adcination",
    "Entailment": "Entail\u00adment",
    "Generic": "Generic",
    "Uncooperative": "Uncoop\u00aderative",
    "hallucinated": "hallu\u00adcinated",
    "Disclosure": "Disclo\u00adsure",
    "Edification": "Edifi\u00adcation",
    "Advisement": "Advise\u00adment",
    "Confirmation": "Confir\u00admation",
    "Question": "Question",
    "Acknowledgment": "Acknow\u00adledgment",
}


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
    what the dataset card's "turns" counts: its totals give about nine per conversation (50,761 turns in
    5,649 conversations), the length of a whole WoW dialogue.
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


def _kind(split: Sequence[Dialogue]) -> str:
    provenance = getattr(split, "provenance", None)
    return provenance.kind if provenance else "in memory"


def reported_vs_reproduced(splits: Mapping[str, Dialogues]) -> pd.DataFrame:
    """The card's turn and dialogue counts beside the counts computed from the loaded splits.

    The one comparison schema of :func:`utils.reported.compare`: a number is checked only where
    every split it covers is the full official file, and is *not checked* (split not loaded, demo
    sample, partial copy) otherwise. The whole-dataset numbers cover train + valid + test (valid and
    test each hold their seen and unseen halves).
    """
    computed: dict[tuple[str, str], Reproduced] = {}
    reported_rows: Iterable[Any] = reported("faithdial").itertuples()  # compare()'s columns
    for item in reported_rows:
        covered = [item.split] if item.split else ["train", "valid", "test"]
        if any(name not in splits for name in covered):
            computed[(item.name, item.split)] = Reproduced(None, ())
            continue
        column = "turns" if item.name == "turns" else "dialogues"
        value = sum(count_turns(splits[name])[column] for name in covered)
        computed[(item.name, item.split)] = Reproduced(value, tuple(_kind(splits[name]) for name in covered))
    return compare("faithdial", computed)


def edited_share(frame: pd.DataFrame) -> float:
    """Share of responses that annotators edited (non-empty ``original_response``)."""
    return float(frame["edited"].mean()) if len(frame) else 0.0


def edit_counts(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Responses, edited responses and the edited share of several :func:`utterances` frames (one row each)."""
    rows = [
        {
            "split": name,
            "responses": len(frame),
            "edited": int(frame["edited"].sum()),
            "edited share": edited_share(frame),
        }
        for name, frame in frames.items()
    ]
    return pd.DataFrame(rows, columns=["split", "responses", "edited", "edited share"]).set_index("split")


def label_distribution(frame: pd.DataFrame, scheme: str = "BEGIN") -> pd.DataFrame:
    """Labelled responses per BEGIN class or per VRM mode, and their share of all responses.

    The labels describe ``labelled_response`` (the WoW original of an edited turn). For ``"BEGIN"``
    each response counts once, in its class (:func:`utils.datasets.faithdial.parser.begin_class`: the list
    ``["Hallucination", "Entailment"]`` is one Partial Hallucination, not two labels), so the
    shares add up to the share of labelled responses. VRM modes are multi-valued: a response counts
    once under each of its modes, and the shares add up to more than one. ``share`` is of all rows.
    """
    if scheme == "BEGIN":
        counts = Counter(label for label in frame["begin_class"] if pd.notna(label))
        known: Sequence[str] = BEGIN_CLASSES
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
    edited_rows: Iterable[Any] = edited.itertuples()  # utterances()'s columns
    for row in edited_rows:
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


# -- tables for readers ---------------------------------------------------------------------------
# Each *_table turns a result of this module into a utils.book.tables.Table for the chapter: headers and
# units from COLUMNS, a caption naming any demo or partial split.

#: Every column the FaithDial tables show (statistics, audit and baselines): its header and its unit.
COLUMNS: dict[str, tables.Column] = {
    # what the parser did with the audit files' rows (audit_dropped)
    "rows": tables.Column("rows", tables.COUNT),
    "labelled": tables.Column("labelled", tables.COUNT),
    "blank row": tables.Column("blank", tables.COUNT),
    "no BEGIN label": tables.Column("no BEGIN", tables.COUNT),
    "labelled, no VRM label": tables.Column("no VRM", tables.COUNT),
    "labelled, empty response": tables.Column("empty response", tables.COUNT),
    "labels repaired": tables.Column("repaired", tables.COUNT),
    "unreadable label left out": tables.Column("unreadable", tables.COUNT),
    # BEGIN classes and VRM modes per audit file (n: the responses the shares are of)
    "n": tables.Column("labelled", tables.COUNT),
    **{name: tables.Column(header, tables.PERCENT) for name, header in HEADERS.items()},
    # turns and split sizes
    "dialogue_id": tables.Column("dialogue"),
    "turn_index": tables.Column("turn", tables.COUNT),
    "role": tables.Column("role"),
    "text": tables.Column("text"),
    "selected_count": tables.Column("knowledge items", tables.COUNT),
    "dialogues": tables.Column("dialogues", tables.COUNT),
    "responses": tables.Column("responses", tables.COUNT),
    "seeker_turns": tables.Column("seeker turns", tables.COUNT),
    "wizard_turns": tables.Column("wizard turns", tables.COUNT),
    "turns": tables.Column("turns", tables.COUNT),
    "data": tables.Column("data"),
    # responses (utterances) and their labels
    "edited": tables.Column("edited", tables.COUNT),
    "edited share": tables.Column("edited share", tables.PERCENT),
    "response": tables.Column("response (FaithDial)"),
    "original_response": tables.Column("original_response (WoW)"),
    "labels_describe": tables.Column("labels describe"),
    "begin_class": tables.Column("BEGIN class"),
    "BEGIN class": tables.Column("BEGIN class"),
    "VRM": tables.Column("VRM"),
    "share": tables.Column("share of all responses", tables.PERCENT),
    # before and after editing; knowledge precision per BEGIN class
    "mean length (words)": tables.Column("mean length (words)", tables.DECIMAL, 1),
    "knowledge precision": tables.Column("knowledge precision", tables.PERCENT),
    "knowledge recall": tables.Column("mean knowledge recall", tables.PERCENT),
    "edited responses": tables.Column("edited responses", tables.COUNT),
    "precision of the labelled original": tables.Column("precision of the labelled original", tables.PERCENT),
    "precision of the faithful rewrite": tables.Column("precision of the faithful rewrite", tables.PERCENT),
    # baselines (utils.datasets.faithdial.baselines): responses that need no model, the critic's separation
    "BLEU": tables.Column("BLEU (0-100)", tables.DECIMAL, 1),
    "ROUGE-L": tables.Column("ROUGE-L F", tables.PERCENT),
    "F1": tables.Column("unigram F1", tables.PERCENT),
    "hallucinated share": tables.Column("hallucinated", tables.PERCENT),
    "ROC AUC": tables.Column("ROC AUC", tables.DECIMAL, 2),
    "tuned threshold": tables.Column("tuned threshold", tables.DECIMAL, 2),
    "tuned accuracy": tables.Column("tuned accuracy", tables.PERCENT),
    "majority-class accuracy": tables.Column("majority class", tables.PERCENT),
}


def _audit_shares_table(shares: pd.DataFrame, modes: Sequence[str], n: tables.Column, text: str,
                        files: Mapping[str, Dialogues]) -> tables.Table:
    return tables.declared_table(
        shares,
        {**COLUMNS, "n": n},
        ["n", *modes],
        index="audit file",
        row_labels={name: audit_file_label(name) for name in files},
        caption=caption(text, *files.values()),
    )


def audit_dropped_table(files: Mapping[str, Dialogues]) -> tables.Table:
    """:func:`audit_dropped` for readers: what the parser did with the rows of each audit file."""
    return tables.declared_table(
        audit_dropped(files),
        COLUMNS,
        index="audit file",
        row_labels={name: audit_file_label(name) for name in files},
        caption=caption("What the parser did with the rows of each audit file.", *files.values()),
        notes=[
            "labelled: rows used; blank: empty rows; no BEGIN: a response without a BEGIN label (left out); no "
            "VRM and empty response: labelled rows without a VRM label or without a response text; repaired: rows "
            "whose labels were normalised; unreadable: labels that could not be read and were left out."
        ],
    )


def audit_begin_shares_table(shares: pd.DataFrame, files: Mapping[str, Dialogues]) -> tables.Table:
    """:func:`audit_begin_frame` (``shares``, of the audit ``files``) for readers, in percent."""
    return _audit_shares_table(
        shares,
        [*BEGIN_CLASSES, "hallucinated"],
        COLUMNS["n"],
        "BEGIN class of the labelled responses of each audit file, in percent of the file's labelled responses; "
        "hallucinated = Hallucination + Partial Hallucination.",
        files,
    )


def audit_vrm_shares_table(rows: pd.DataFrame, files: Mapping[str, Dialogues]) -> tables.Table:
    """:func:`audit_vrm_frame` of the audit ``rows`` (:func:`audit_rows` of ``files``) for readers, in percent."""
    return _audit_shares_table(
        audit_vrm_frame(rows),
        VRM_CLASSES,
        tables.Column("with VRM", tables.COUNT),
        "Share of the responses with a VRM label (with VRM) that use each mode, per audit file, in percent.",
        files,
    )


def first_turns_table(split: LoadedSplit, n: int = 6) -> tables.Table:
    """The first ``n`` rows of ``split.turns()``, one per turn; the labels are left out, since they
    describe the ORIGINAL response of an edited turn (:func:`first_responses_table` shows them)."""
    return tables.declared_table(
        split.turns().head(n),
        COLUMNS,
        ["dialogue_id", "turn_index", "role", "text", "selected_count"],
        caption=caption(
            f"The first {_NUMBER_WORDS.get(n, n)} turns of {_split_words(split)}, one row per turn.", split
        ),
    )


def split_sizes_table(splits: Mapping[str, Dialogues]) -> tables.Table:
    """:func:`split_sizes` for readers."""
    return tables.declared_table(
        split_sizes(splits),
        COLUMNS,
        index="split",
        caption=caption("Size of each loaded FaithDial split.", *splits.values()),
    )


def edit_counts_table(frames: Mapping[str, pd.DataFrame], splits: Mapping[str, Dialogues]) -> tables.Table:
    """:func:`edit_counts` of the :func:`utterances` ``frames`` of ``splits`` for readers."""
    return tables.declared_table(
        edit_counts(frames),
        COLUMNS,
        index="split",
        caption=caption(
            "Responses (utterance records) and how many the annotators edited (a non-empty original_response).",
            *(splits[name] for name in frames),
        ),
    )


def first_responses_table(frame: pd.DataFrame, split: Dialogues, n: int = 4) -> tables.Table:
    """The first ``n`` rows of :func:`utterances` with both texts and the one the labels describe."""
    return tables.declared_table(
        frame.head(n),
        COLUMNS,
        ["response", "original_response", "labels_describe", "begin_class", "VRM"],
        caption=caption(
            f"The first {_NUMBER_WORDS.get(n, n)} responses of {_split_words(split)} and the text their labels "
            "describe.",
            split,
        ),
    )


def begin_lists_table(frame: pd.DataFrame, split: Dialogues) -> tables.Table:
    """:func:`begin_lists` for readers."""
    return tables.declared_table(
        begin_lists(frame),
        COLUMNS,
        index="BEGIN as written",
        caption=caption(f"Every BEGIN list of {_split_words(split)} as the file writes it.", split),
    )


def begin_distribution_table(frame: pd.DataFrame, split: Dialogues) -> tables.Table:
    """:func:`label_distribution` of the BEGIN classes for readers."""
    return tables.declared_table(
        label_distribution(frame, "BEGIN"),
        COLUMNS,
        index="BEGIN class",
        caption=caption(f"Labelled responses of {_split_words(split)} per BEGIN class.", split),
    )


def label_distributions_alt(frame: pd.DataFrame) -> str:
    """Alt text for :func:`plot_label_distributions`: every BEGIN class and VRM mode with its share."""
    return (
        "Two horizontal bar charts of the training split's labelled responses. "
        f"BEGIN classes: {shares_text(label_distribution(frame, 'BEGIN'))}. "
        f"VRM modes: {shares_text(label_distribution(frame, 'VRM'))}."
    )


def before_after_table(summary: pd.DataFrame, split: Dialogues) -> tables.Table:
    """:func:`before_after_summary` (``summary``) for readers: one row before and one after editing."""
    return tables.declared_table(
        summary.T,
        {**COLUMNS, "knowledge precision": tables.Column("mean knowledge precision", tables.PERCENT)},
        ["mean length (words)", "knowledge precision", "knowledge recall"],
        index="edited responses",
        caption=caption(f"The edited responses of {_split_words(split)} before and after editing.", split),
    )


def before_after_alt(summary: pd.DataFrame) -> str:
    """Alt text for :func:`plot_before_after`, from :func:`before_after_summary` (``summary``)."""
    length = summary.loc["mean length (words)"]
    precision = summary.loc["knowledge precision"]
    return (
        "Two histograms comparing the original and the edited responses: "
        f"length in words (mean {length.iloc[0]:.1f} before, {length.iloc[1]:.1f} after) "
        f"and knowledge precision (mean {precision.iloc[0]:.0%} before, {precision.iloc[1]:.0%} after)."
    )


def precision_by_begin_class_table(frame: pd.DataFrame, split: Dialogues) -> tables.Table:
    """:func:`precision_by_begin_class` for readers."""
    return tables.declared_table(
        precision_by_begin_class(frame),
        COLUMNS,
        index="BEGIN class",
        caption=caption("Mean knowledge precision of the edited responses per BEGIN class.", split),
    )


#: Small counts in captions, in words.
_NUMBER_WORDS = {4: "four", 6: "six"}


def _split_words(split: Dialogues) -> str:
    """``the training split`` (or ``the test split``...) for captions."""
    name = getattr(split, "split", "")
    return "the training split" if name == "train" else f"the {name} split"


# -- the audit ---------------------------------------------------------------------------------


def one_row_per_class(dialogues: Iterable[Dialogue], classes: Sequence[str] = BEGIN_CLASSES) -> list[Dialogue]:
    """The first labelled audit row of each BEGIN class in ``classes`` (in that order; absent ones skipped)."""
    found: dict[str, Dialogue] = {}
    for dialogue in dialogues:
        label = dialogue.meta.get("begin_class")
        if dialogue.meta.get("status") == STATUS_LABELLED and isinstance(label, str) and label in classes \
                and label not in found:
            found[label] = dialogue
    return [found[label] for label in classes if label in found]


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
    """:func:`utils.datasets.faithdial.audit_parser.audit_report` over several files: what was left out, why."""
    return audit_report(dialogue for dialogues in files.values() for dialogue in dialogues)


def audit_begin_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Share of each BEGIN class per audit file (rows: files; a column ``n`` of labelled responses).

    Each response has one class (:func:`utils.datasets.faithdial.audit_parser.begin_class`), so a row sums
    to one; ``hallucinated`` adds Hallucination and Partial Hallucination.
    """
    table = pd.crosstab(rows["file"], rows["begin_class"]).reindex(columns=list(BEGIN_CLASSES), fill_value=0)
    n = table.sum(axis=1)
    shares = table.div(n, axis=0)
    shares["hallucinated"] = shares[list(HALLUCINATED)].sum(axis=1)
    shares.insert(0, "n", n)
    return shares.reindex([f for f in dict.fromkeys(rows["file"])])


def audit_vrm_frame(rows: pd.DataFrame) -> pd.DataFrame:
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


def audit_begin_alt(table: pd.DataFrame) -> str:
    """Alt text for :func:`plot_audit_begin`, from the numbers it draws."""
    shares = table["hallucinated"]
    low, high = str(shares.idxmin()), str(shares.idxmax())  # audit file names
    gold = f" Gold WoW: {shares['gold_wow']:.0%}." if "gold_wow" in shares else ""
    bound = reported_value("faithdial_audit", "hallucination_share_lower_bound", "gold_wow").value
    return (
        f"Stacked horizontal bars, one per audit file ({len(table)} files), splitting its labelled responses "
        f"into the five BEGIN classes. The hallucinated share (Hallucination plus Partial Hallucination) runs "
        f"from {shares[low]:.0%} ({audit_file_label(low)}) to {shares[high]:.0%} ({audit_file_label(high)}).{gold} "
        f"A dashed line marks the reported lower bound for gold WoW, {bound:g}%."
    )


def shares_text(table: pd.DataFrame) -> str:
    """``label_distribution`` in words: ``Hallucination 3 (33%), Entailment 2 (22%)``."""
    # iterrows() gives each row as one Series, so the count arrives as a float beside the share
    return ", ".join(f"{label} {int(row.responses):,} ({row.share:.0%})" for label, row in table.iterrows())


def audit_reported_vs_reproduced(
    files: Mapping[str, Dialogues], rows: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The audit paper's ">60%" hallucinated WoW responses beside the share computed from the file.

    The one comparison schema of :func:`utils.reported.compare`, in percent. The paper gives a lower
    bound (:data:`utils.reported.LOWER_BOUND`), so the check holds when the share computed from the
    gold WoW file is above 60%; it runs only when that file is the full official one.
    """
    rows = audit_rows(files) if rows is None else rows
    computed: dict[tuple[str, str], Reproduced] = {}
    reported_rows: Iterable[Any] = reported("faithdial_audit").itertuples()  # compare()'s columns
    for item in reported_rows:
        if item.split not in files:
            computed[(item.name, item.split)] = Reproduced(None, ())
            continue
        _, _, share = hallucination_share(rows, item.split)
        computed[(item.name, item.split)] = Reproduced(100 * share, (_kind(files[item.split]),))
    return compare("faithdial_audit", computed)


# -- figures -----------------------------------------------------------------------------------
# Every figure is at most 7.5 in wide and uses matplotlib's 10-point default text (nothing smaller
# than 9 points), so that :func:`utils.book.figures.figure` can show it at its size on the page.

#: One colour per BEGIN class, the same in every figure (hallucinated classes warm, the others cool).
BEGIN_COLOURS = {
    "Hallucination": "#c0392b",
    "Partial Hallucination": "#e69138",
    "Entailment": "#2e75b6",
    "Generic": "#9aa5ad",
    "Uncooperative": "#7d4f9e",
}


def _colours(table: pd.DataFrame, scheme: str) -> list[str]:
    if scheme == "BEGIN":
        return [BEGIN_COLOURS.get(label, "#4c78a8") for label in table.index]
    return ["#4c78a8"] * len(table)


def _share_bars(ax: plt.Axes, table: pd.DataFrame, colours: Sequence[str]) -> None:
    """Horizontal bars of ``table["share"]`` in percent, each labelled with its count and share."""
    labels = list(table.index)[::-1]
    shares = table["share"].to_numpy()[::-1] * 100
    counts = table["responses"].to_numpy()[::-1]
    ax.barh(labels, shares, color=list(colours)[::-1])
    for y, (share, count) in enumerate(zip(shares, counts, strict=True)):
        ax.text(share + 1, y, f"{count:,} ({share:.0f}%)", va="center", fontsize=9)
    ax.set_xlim(0, max(100.0, float(shares.max(initial=0)) + 20))
    ax.set_xlabel("% of responses")


@text_as_typed
def plot_label_distributions(frame: pd.DataFrame) -> plt.Figure:
    """BEGIN classes above VRM modes: the share of labelled responses carrying each (one figure)."""
    begin = label_distribution(frame, "BEGIN")
    vrm = label_distribution(frame, "VRM")
    heights = [max(len(begin), 1), max(len(vrm), 1)]
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(7.0, 0.42 * sum(heights) + 2.2), gridspec_kw={"height_ratios": heights}
    )
    _share_bars(top, begin, _colours(begin, "BEGIN"))
    top.set_title(f"BEGIN class (one per response; n = {len(frame):,})", fontsize=10)
    _share_bars(bottom, vrm, _colours(vrm, "VRM"))
    bottom.set_title("VRM modes (a response can have several)", fontsize=10)
    fig.tight_layout()
    return fig


@text_as_typed
def plot_before_after(frame: pd.DataFrame, title: str = "") -> plt.Figure:
    """Histograms of length and knowledge precision before and after editing (edited responses)."""
    sizes = lengths(frame)
    overlap = overlap_before_after(frame)
    names = ["original (WoW)", "edited (FaithDial)"]
    colours = ["#e69138", "#2e75b6"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.2, 3.2))
    left.hist([sizes["original"], sizes["edited"]], bins=15, label=names, color=colours)
    left.set_xlabel("response length (words)")
    left.set_ylabel("edited responses")
    right.hist(
        [overlap["precision_original"], overlap["precision_edited"]],
        bins=[i / 10 for i in range(11)],
        label=names,
        color=colours,
    )
    right.set_xlabel("knowledge precision")
    handles, labels = left.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=2, frameon=False, fontsize=10)
    if title:
        fig.suptitle(title, y=1.06, fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig


@text_as_typed
def plot_audit_begin(table: pd.DataFrame) -> plt.Figure:
    """Stacked horizontal bars of :func:`audit_begin_frame`: one bar per audit file, one colour per
    BEGIN class, and the paper's lower bound for gold WoW as a dashed line."""
    files = list(table.index)
    fig, ax = plt.subplots(figsize=(7.2, 0.36 * len(files) + 2.0))
    left = pd.Series(0.0, index=files)
    labels = [audit_file_label(name) for name in files]
    for label in BEGIN_CLASSES:
        ax.barh(labels, table[label] * 100, left=left * 100, label=label, color=BEGIN_COLOURS[label])
        left += table[label]
    bound = reported_value("faithdial_audit", "hallucination_share_lower_bound", "gold_wow").value
    ax.axvline(bound, color="black", linestyle="--", linewidth=1, label=f"reported for gold WoW: more than {bound:g}%")
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of labelled responses (left: hallucinated classes)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, frameon=False, fontsize=9)
    fig.tight_layout()
    return fig


# -- do the models hallucinate more than the data they learnt from? ----------------------------------


def amplification_frame(shares: pd.DataFrame) -> pd.DataFrame:
    """Each model's hallucinated share beside the gold responses' on the same benchmark.

    ``shares`` is :func:`audit_begin_frame`'s. One row per model and benchmark whose model file and
    gold file both have labelled responses: ``benchmark`` and ``model`` (the audit's names),
    ``gold`` and ``model share`` (hallucinated shares, 0 to 1), ``difference`` (model minus gold)
    and ``gold n`` / ``model n`` (the labelled responses each share rests on).
    """
    rows = []
    hallucinated = shares["hallucinated"]
    for benchmark in BENCHMARKS:
        gold = f"gold_{benchmark}"
        if gold not in shares.index or not shares.loc[gold, "n"]:
            continue
        for system in SYSTEMS:
            name = f"{system}_{benchmark}"
            if system == "gold" or name not in shares.index or not shares.loc[name, "n"]:
                continue
            rows.append(
                {
                    "benchmark": benchmark,
                    "model": system,
                    "gold": float(hallucinated[gold]),
                    "model share": float(hallucinated[name]),
                    "difference": float(hallucinated[name] - hallucinated[gold]),
                    "gold n": int(shares["n"][gold]),
                    "model n": int(shares["n"][name]),
                }
            )
    return pd.DataFrame(rows, columns=["benchmark", "model", "gold", "model share", "difference", "gold n", "model n"])


def _names(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def amplification_finding(frame: pd.DataFrame) -> str:
    """What :func:`amplification_frame` shows, in one sentence computed from it: which models
    hallucinate more than the gold responses of the same benchmark, on which benchmarks, and which
    less. For example "GPT2 and DoHA hallucinate more than the gold responses on all three
    benchmarks; CTRL more on CMU-DoG (+1.8 points) and TopicalChat (+1.7 points), less on WoW (-25.0
    points).", each mixed case with its difference in points.
    """
    if frame.empty:
        return "No benchmark has both a gold file and a model file with labelled responses."
    benchmarks = list(dict.fromkeys(frame["benchmark"]))
    everywhere, mixed = [], []
    for model, group in frame.groupby("model", sort=False):
        def where(rows: pd.DataFrame) -> list[str]:
            return [f"{BENCHMARKS[b]} ({100 * d:+.1f} points)" for b, d in zip(rows["benchmark"], rows["difference"],
                                                                             strict=True)]

        above = where(group[group["difference"] > 0])
        below = where(group[group["difference"] < 0])
        level = [BENCHMARKS[b] for b in group.loc[group["difference"] == 0, "benchmark"]]
        if len(above) == len(group) == len(benchmarks):
            everywhere.append(SYSTEMS[str(model)])
            continue
        parts = [f"more on {_names(above)}"] if above else []
        parts += [f"less on {_names(below)}"] if below else []
        parts += [f"as much on {_names(level)}"] if level else []
        mixed.append(f"{SYSTEMS[str(model)]} {', '.join(parts)}")
    count = {1: "the one benchmark", 2: "both benchmarks", 3: "all three benchmarks"}.get(
        len(benchmarks), f"all {len(benchmarks)} benchmarks"
    )
    sentences = []
    if everywhere:
        verb = "hallucinates" if len(everywhere) == 1 else "hallucinate"
        sentences.append(f"{_names(everywhere)} {verb} more than the gold responses on {count}")
        if mixed:
            sentences.append("; ".join(mixed))
        text = "; ".join(sentences)
    else:
        text = "Compared with the gold responses of the same benchmark, " + "; ".join(mixed)
    return text + "."


def amplification_table(frame: pd.DataFrame, files: Mapping[str, Dialogues]) -> tables.Table:
    """:func:`amplification_frame` for readers: per benchmark, the gold share and each model's, and
    the difference in percentage points, captioned with the demo or partial audit ``files``."""
    shown = frame.assign(
        benchmark=frame["benchmark"].map(BENCHMARKS),
        model=frame["model"].map(SYSTEMS),
        points=100 * frame["difference"],
    )[["benchmark", "model", "gold", "model share", "points", "gold n", "model n"]]
    return tables.table(
        shown,
        labels={
            "benchmark": "benchmark",
            "model": "model",
            "gold": "gold responses hallucinated",
            "model share": "model responses hallucinated",
            "points": "model minus gold (points)",
            "gold n": "gold labelled",
            "model n": "model labelled",
        },
        percents={"gold": 1, "model share": 1},
        decimals={"points": 1},
        integers=["gold n", "model n"],
        caption=caption(
            "Hallucinated share (Hallucination + Partial Hallucination) of each model's responses beside the "
            "gold responses of the same benchmark; a positive difference means the model hallucinates more "
            "than the human responses it learnt from.",
            *files.values(),
        ),
    )
