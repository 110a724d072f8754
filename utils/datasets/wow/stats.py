"""Statistics of Wizard of Wikipedia (raw ParlAI splits and the KILT version), set beside the reported ones.

Everything is computed from the tables of a :class:`~utils.loading.LoadedSplit` (``turns()``,
``dialogues_frame()``), never from Python objects turn by turn, so a full split of 166,787 utterances
takes about a second. :func:`reported_vs_reproduced` pairs each number in :mod:`utils.reported` with
the number computed here (:func:`utils.reported.compare`): the pair is checked only when every split
it needs is the full official split.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from textwrap import shorten
from typing import Any

import numpy as np
import pandas as pd

from utils.book import tables
from utils.book.cjk_fonts import text_as_typed
from utils.book.figures import caption

from ...declaration import Reported
from ...errors import UnknownNameError
from ...loading import LoadedSplit
from ...records import SEEKER, WIZARD, Dialogue, Turn
from ...reported import Reproduced, compare
from ...text import counted
from .parser import NO_PASSAGES_USED, evidence_source
from .reported import REPORTED

#: The raw splits in reading order.
RAW_SPLITS = ("train", "valid_seen", "valid_unseen", "test_seen", "test_unseen")


#: ParlAI's Wizard of Wikipedia teachers whose example counts the atlas reproduces, each with the rule
#: its ``len_episode`` applies to one dialogue (``parlai/tasks/wizard_of_wikipedia/agents.py``, default
#: ``--add-missing-turns none``). A dialogue of ``n`` turns gives ``(n - 1) // 2`` examples when its
#: first speaker matches the teacher's test, else ``n // 2``; ``basicdialog`` always gives ``n // 2``
#: (pairs of consecutive turns) and the default teacher ``n`` (every turn).
PARLAI_TEACHER_RULES = {
    "wizard_of_wikipedia": "every turn",
    "generator": "wizard turns; (n-1)//2 when 'Wizard' is in the first speaker (case-sensitive), else n//2",
    "wizard_dialog_knowledge": "as generator (GeneratorTeacher subclasses WizardDialogKnowledgeTeacher)",
    "basic_wizard_dialog": "wizard replies; (n-1)//2 when 'wizard' is in the lower-cased first speaker, else n//2",
    "basic_apprentice_dialog": "apprentice replies; (n-1)//2 when 'apprentice' is in the lower-cased first "
    "speaker, else n//2",
    "basicdialog": "pairs of consecutive turns, n//2",
}

#: ParlAI's separator between a knowledge line's title and its sentence (``TOKEN_KNOWLEDGE``).
_KNOWLEDGE_TOKEN = "__knowledge__"


def parlai_episodes(split: LoadedSplit) -> pd.DataFrame:
    """One row per dialogue: ``turns``, ``first_speaker`` and the examples each ParlAI teacher makes of it.

    One column per teacher of :data:`PARLAI_TEACHER_RULES`, each computed with that teacher's own
    test on the raw speaker string (``0_Wizard``, ``1_Apprentice``, ...), as ParlAI does: the
    generator asks whether ``"Wizard"`` is in it, the basic dialogue teachers look for the lower-cased
    role name. Summing a column gives the teacher's ``num_examples``.
    """
    turns = split.turns(["dialogue_index", "speaker"])
    grouped = turns.groupby("dialogue_index", sort=True)["speaker"]
    n = grouped.size()
    first = grouped.first()
    lowered = first.str.lower()
    frame = pd.DataFrame({"turns": n, "first_speaker": first})

    def opened_by(matches: pd.Series) -> np.ndarray:
        return np.where(matches.to_numpy(), (n.to_numpy() - 1) // 2, n.to_numpy() // 2)

    frame["wizard_of_wikipedia"] = n
    frame["generator"] = opened_by(first.str.contains("Wizard", regex=False))
    frame["wizard_dialog_knowledge"] = frame["generator"]
    frame["basic_wizard_dialog"] = opened_by(lowered.str.contains("wizard", regex=False))
    frame["basic_apprentice_dialog"] = opened_by(lowered.str.contains("apprentice", regex=False))
    frame["basicdialog"] = n // 2
    return frame


def parlai_examples(split: LoadedSplit) -> dict[str, int]:
    """Each ParlAI teacher's ``num_examples`` for this split (see :func:`parlai_episodes`)."""
    episodes = parlai_episodes(split)
    return {teacher: int(episodes[teacher].sum()) for teacher in PARLAI_TEACHER_RULES}


def parlai_example_turns(split: LoadedSplit, teacher: str) -> pd.DataFrame:
    """One row per example of a ParlAI teacher: ``dialogue_index``, ``example`` (ParlAI's
    ``entry_idx``), ``label_turn`` (the turn whose text is the label), ``episode_done``.

    ParlAI picks turns by position, not by role: the generator's label is turn ``2e`` of a dialogue
    its test says the wizard opened and ``2e + 1`` otherwise; a basic dialogue teacher's label is
    turn ``2e + 2`` when the first speaker is the role it trains and ``2e + 1`` otherwise (its text is
    the turn before); ``basicdialog`` labels turn ``2e + 1``; the default teacher every turn.
    """
    if teacher not in PARLAI_TEACHER_RULES:
        raise UnknownNameError("ParlAI teacher", teacher, list(PARLAI_TEACHER_RULES))
    episodes = parlai_episodes(split)
    counts = episodes[teacher].to_numpy()
    dialogue = np.repeat(episodes.index.to_numpy(), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    example = np.arange(counts.sum()) - starts
    if teacher == "wizard_of_wikipedia":
        label = example
    elif teacher == "basicdialog":
        label = 2 * example + 1
    else:
        speaker = episodes["first_speaker"]
        if teacher in ("generator", "wizard_dialog_knowledge"):
            opened = speaker.str.contains("Wizard", regex=False)
        else:  # basic_wizard_dialog, basic_apprentice_dialog
            opened = speaker.str.lower().str.contains(teacher.split("_")[1], regex=False)
        offset = np.repeat(opened.to_numpy(), counts)
        if teacher in ("generator", "wizard_dialog_knowledge"):
            label = 2 * example + np.where(offset, 0, 1)
        else:
            label = 2 * example + np.where(offset, 2, 1)
    return pd.DataFrame(
        {
            "dialogue_index": dialogue,
            "example": example,
            "label_turn": label,
            "episode_done": example == np.repeat(counts, counts) - 1,
        }
    )


# The chapter asks for a split's wizard turns many times (summary, comparison, figures, alt text);
# a loaded split never changes, so they are worked out once per split and each caller gets a copy.
_WIZARD_TURNS: weakref.WeakKeyDictionary[LoadedSplit, pd.DataFrame] = weakref.WeakKeyDictionary()


def wizard_turns(split: LoadedSplit) -> pd.DataFrame:
    """One row per wizard turn with ParlAI's view of it.

    The columns of ``turns()`` but ``labels`` (decoded, a dict per turn that the split's remembered frame
    would keep: about 130 MB on a full-size train), with the labels the statistics read as columns:
    ``checked_source`` (``chosen``/``self``/``partner``/``no_passages_used``), ``knowledge``
    (``found``/``not_found``/``no_passages_used``) and ``checked_sentence`` (its text, ``""`` where
    absent). Beyond those: ``wizard_first`` (the dialogue opens with the wizard),
    ``parlai_example`` (the turn is one of the ``generator`` / ``wizard_dialog_knowledge`` teacher's
    examples: ParlAI takes turns ``0, 2, 4, ...`` of a dialogue whose first speaker contains
    ``"Wizard"`` and ``1, 3, 5, ...`` of any other, ``len_episode`` of them, so with its default
    ``--add-missing-turns none`` the *last* wizard turn of each wizard-first dialogue is left out),
    ``candidates`` (every sentence shown plus the "no passage used" option) and ``knowledge_lines``
    (the lines of knowledge ParlAI's end-to-end generator counts for ``know_chance``: the "no passage
    used" line plus one line per sentence shown, more when a sentence holds a line break; equal to
    ``candidates`` in the real files). The labels themselves: ``split.turns()`` at the same index.
    """
    if split not in _WIZARD_TURNS:
        _WIZARD_TURNS[split] = _wizard_turns(split)
        split.release_pages()  # the ParlAI knowledge lines scan every passage text of the cache
    return _WIZARD_TURNS[split].copy()


#: The labels that :func:`wizard_turns` reads into columns (each holds one value where present).
_LABEL_COLUMNS = ("checked_source", "knowledge", "checked_sentence")
#: The columns of ``turns()`` that :func:`wizard_turns` keeps: all but ``labels``, read into columns.
_TURN_COLUMNS_BUT_LABELS = ("dialogue_index", "dialogue_id", "topic", "turn_index", "role", "speaker", "text",
                            "evidence_count", "selected_count")
#: Rows of labels decoded at a time by :func:`_first_labels`.
_LABEL_BATCH = 4096


def _first_labels(split: LoadedSplit, names: Sequence[str]) -> dict[str, np.ndarray]:
    """The first value of each of the labels ``names`` at every turn (``""`` where absent or empty), as
    object arrays in turn order.

    Decoded into a struct of those fields alone, a batch at a time: as dicts, a full-size train's labels
    take about 200 MB, which Python's allocator kept from the system once they were freed.
    """
    import msgspec
    import pyarrow as pa

    fields: list[tuple[str, Any, Any]] = [(name, list[str], msgspec.field(default_factory=list)) for name in names]
    decoder = msgspec.json.Decoder(msgspec.defstruct("Labels", fields))
    column = split.arrow("turns", columns=["labels"]).column("labels")
    values: dict[str, list[str]] = {name: [] for name in names}
    for chunk in column.chunks:
        binary = chunk.view(pa.large_binary() if pa.types.is_large_string(chunk.type) else pa.binary())
        for start in range(0, len(binary), _LABEL_BATCH):
            for labels in map(decoder.decode, binary.slice(start, _LABEL_BATCH).to_pylist()):
                for name in names:
                    values[name].append((getattr(labels, name) or [""])[0])
    split.release_pages()
    result = {}
    for name in names:
        result[name] = np.empty(len(values[name]), dtype=object)
        result[name][:] = values.pop(name)
    return result


def _wizard_turns(split: LoadedSplit) -> pd.DataFrame:
    turns = split.turns(_TURN_COLUMNS_BUT_LABELS)
    first_role = turns.groupby("dialogue_index", sort=False)["role"].transform("first")
    turns["wizard_first"] = first_role.to_numpy() == WIZARD
    examples = parlai_example_turns(split, "generator")
    chosen = pd.MultiIndex.from_arrays([examples["dialogue_index"], examples["label_turn"]])
    turns["parlai_example"] = pd.MultiIndex.from_arrays([turns["dialogue_index"], turns["turn_index"]]).isin(chosen)
    wizard = turns[turns["role"] == WIZARD].copy()
    labels = _first_labels(split, _LABEL_COLUMNS)
    rows = wizard.index.to_numpy()  # turns() is indexed by turn row, the labels' order
    for name in _LABEL_COLUMNS:
        wizard[name] = pd.Series(labels[name][rows], index=wizard.index, dtype=object)
    wizard["candidates"] = wizard["evidence_count"] + 1
    wizard["knowledge_lines"] = wizard["candidates"] + _extra_knowledge_lines(split, wizard)
    return wizard


def _extra_knowledge_lines(split: LoadedSplit, wizard: pd.DataFrame) -> np.ndarray:
    """Lines beyond one per sentence that ParlAI's ``_parse_knowledge`` makes at each wizard turn.

    ParlAI joins ``"<title> __knowledge__ <sentence>"`` lines with newlines and splits them again,
    dropping empty lines, so a sentence holding a line break counts once per non-empty piece.
    """
    import pyarrow.compute as pc

    extra = np.zeros(len(wizard), dtype=np.int64)
    # Each distinct text is stored once (the passages table): look for line breaks there, then find
    # the evidence rows showing such a passage.
    passages = split.arrow("passages")
    broken = pc.or_kleene(*(pc.match_substring(passages.column(name), "\n") for name in ("text", "title")))
    if not pc.any(broken).as_py():
        return extra
    table = split.arrow("evidence")
    shown = pc.is_in(table.column("passage"), value_set=pc.indices_nonzero(pc.fill_null(broken, False)))
    found = table.filter(shown).select(["dialogue_index", "turn_index", "passage"])
    texts = passages.take(found.column("passage")).select(["title", "text"])
    rows = [{**key, **value} for key, value in zip(found.to_pylist(), texts.to_pylist(), strict=True)]
    position = {key: i for i, key in enumerate(zip(wizard["dialogue_index"], wizard["turn_index"], strict=True))}
    for row in rows:
        line = f"{row['title'] or ''} {_KNOWLEDGE_TOKEN} {row['text']}"
        pieces = sum(1 for piece in line.split("\n") if piece.strip())
        where = position.get((row["dialogue_index"], row["turn_index"]))
        if where is not None:
            extra[where] += pieces - 1
    return extra


def word_counts(split: LoadedSplit) -> pd.Series:
    """Whitespace-separated words of every turn, in ``turns()`` order (counted by Arrow, in C++)."""
    import pyarrow.compute as pc

    counts = pc.count_substring_regex(split.arrow("turns", columns=["text"]).column("text"), r"\S+")
    split.release_pages()  # the scan's pages of the cache: a full-size train's turn texts
    return pd.Series(counts.to_numpy(zero_copy_only=False), name="words")


def summary(split: LoadedSplit) -> dict[str, float]:
    """The statistics of one raw split (see :data:`SUMMARY_LABELS` for what each key means)."""
    turns = split.turns(["dialogue_index", "topic", "role"])
    wizard = wizard_turns(split)
    dialogues = len(split)
    words = word_counts(split)
    is_wizard = (turns["role"] == WIZARD).to_numpy()
    first = turns.groupby("dialogue_index", sort=False)["role"].first()
    examples = parlai_examples(split)
    return {
        "dialogues": dialogues,
        "utterances": len(turns),
        "topics": turns["topic"].nunique(),
        "turns_per_dialogue": len(turns) / dialogues if dialogues else math.nan,
        "wizard_turns": int(is_wizard.sum()),
        "apprentice_turns": int((turns["role"] == SEEKER).sum()),
        "wizard_first_dialogues": int((first == WIZARD).sum()),
        "wizard_examples": examples["generator"],
        "apprentice_examples": examples["basic_apprentice_dialog"],
        "basicdialog_examples": examples["basicdialog"],
        "no_passage_share": float((wizard["checked_source"] == NO_PASSAGES_USED).mean()) if len(wizard) else math.nan,
        "checked_not_in_knowledge": int((wizard["knowledge"] == "not_found").sum()),
        "candidates_per_wizard_turn": float(wizard["candidates"].mean()) if len(wizard) else math.nan,
        "candidates_median": float(wizard["candidates"].median()) if len(wizard) else math.nan,
        "words_per_utterance": float(words.mean()),
        "words_per_wizard_turn": float(words[is_wizard].mean()),
        "words_per_apprentice_turn": float(words[~is_wizard].mean()),
    }


def kilt_summary(split: LoadedSplit) -> dict[str, float]:
    """The statistics of one KILT split: examples, their turns, answers and provenance."""
    turns = split.turns()
    frame = split.dialogues_frame()
    answers = turns[turns["labels"].str.get("target").notna()]
    examples = len(split)
    evidence = split.evidence(["dialogue_index", "title"])
    words = word_counts(split)
    dialogue_ids = frame["meta"].str.get("wow_dialogue_id")
    return {
        "dialogues": int(dialogue_ids.nunique()),
        "examples": examples,
        "utterances": len(turns),
        "turns_per_example": len(turns) / examples if examples else math.nan,
        "history_turns_per_example": (len(turns) - len(answers)) / examples if examples else math.nan,
        "answers": len(answers),
        "answers_without_provenance": int((answers["evidence_count"] == 0).sum()),
        "provenance_per_answer": float(answers["evidence_count"].mean()) if len(answers) else math.nan,
        "provenance_titles": int(evidence["title"].nunique()),
        "words_per_answer": float(words[answers.index].mean()) if len(answers) else math.nan,
        "words_per_utterance": float(words.mean()),
    }


#: What each statistic means, for table row labels.
SUMMARY_LABELS = {
    "dialogues": "dialogues",
    "examples": "examples (KILT lines)",
    "utterances": "utterances",
    "topics": "distinct topics",
    "turns_per_dialogue": "utterances per dialogue",
    "turns_per_example": "turns per KILT example (history + answer)",
    "history_turns_per_example": "history turns per KILT example",
    "wizard_turns": "wizard turns",
    "apprentice_turns": "apprentice turns",
    "wizard_first_dialogues": "dialogues opened by the wizard",
    "wizard_examples": "ParlAI wizard examples (generator, wizard_dialog_knowledge, basic_wizard_dialog)",
    "apprentice_examples": "ParlAI apprentice examples (basic_apprentice_dialog)",
    "basicdialog_examples": "ParlAI turn pairs (basicdialog)",
    "no_passage_share": "wizard turns with no passage used (share)",
    "checked_not_in_knowledge": "checked sentence not among the sentences shown",
    "candidates_per_wizard_turn": "knowledge candidates per wizard turn (mean)",
    "candidates_median": "knowledge candidates per wizard turn (median)",
    "words_per_utterance": "words per utterance",
    "words_per_wizard_turn": "words per wizard turn",
    "words_per_apprentice_turn": "words per apprentice turn",
    "answers": "answers",
    "answers_without_provenance": "answers without provenance",
    "provenance_per_answer": "provenance spans per answer",
    "provenance_titles": "distinct provenance titles",
    "words_per_answer": "words per answer",
}


def summary_frame(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """One column per split (raw WoW or KILT), one row per statistic, with the data's provenance."""
    columns: dict[str, dict[str, object]] = {}
    for name, split in splits.items():
        values = kilt_summary(split) if split.dataset == "wow_kilt" else summary(split)
        columns[name] = {SUMMARY_LABELS[key]: value for key, value in values.items()}
        columns[name]["data"] = split.provenance.kind
    table = pd.DataFrame(columns)
    order = [label for label in [*SUMMARY_LABELS.values(), "data"] if label in table.index]
    return table.loc[order]


def topics(split: LoadedSplit) -> set[str]:
    """The distinct chosen topics of a split."""
    return set(split.arrow("dialogues").column("topic").drop_null().unique().to_pylist())


def topic_overlap(train: LoadedSplit, others: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """For each held-out split: its topics, how many also occur in train, and how many are new."""
    train_topics = topics(train)
    rows = []
    for name, split in others.items():
        own = topics(split)
        rows.append(
            {
                "split": name,
                "topics": len(own),
                "shared_with_train": len(own & train_topics),
                "new": len(own - train_topics),
                "data": split.provenance.kind,
            }
        )
    return pd.DataFrame(rows).set_index("split")


def top_topics(split: LoadedSplit, n: int = 15) -> pd.Series:
    """The ``n`` most frequent chosen topics with their number of dialogues."""
    return split.arrow("dialogues").column("topic").to_pandas().value_counts().head(n)


# -- tables for readers ---------------------------------------------------------------------------
# Each *_table turns a result of this module into a utils.book.tables.Table for the chapter: headers and
# units from COLUMNS, rows named for readers, a caption naming any demo or partial split.

#: Every column the WoW tables show (statistics and baselines): its header and its unit.
COLUMNS: dict[str, tables.Column] = {
    # a dialogue's turns, and the columns of turns()
    "turn": tables.Column("Turn", tables.COUNT),
    "speaker": tables.Column("Speaker in the file"),
    "role": tables.Column("Role in the atlas"),
    "text": tables.Column("Text (start)"),
    "column": tables.Column("Column"),
    "holds": tables.Column("What it holds"),
    "first": tables.Column("First row"),
    # what the wizard was shown, and the choice made
    "origin": tables.Column("Shown as"),
    "from_turn": tables.Column("Retrieved for turn", tables.COUNT),
    "passage": tables.Column("Passage no.", tables.COUNT),
    "title": tables.Column("Title"),
    "sentences": tables.Column("Sentences", tables.COUNT),
    "checked": tables.Column("Holds the checked sentence"),
    "label": tables.Column("Key of wizard_turn.labels"),
    "field": tables.Column("Field of the file"),
    "key": tables.Column("Key"),
    "value": tables.Column("Value"),
    "statistic": tables.Column("Statistic"),
    # wizard turns by a label
    "turns": tables.Column("Wizard turns", tables.COUNT),
    "share": tables.Column("Share", tables.PERCENT, 1),
    # topics
    "topics": tables.Column("Topics", tables.COUNT),
    "shared_with_train": tables.Column("Also topics of train", tables.COUNT),
    "new": tables.Column("Not topics of train", tables.COUNT),
    # baselines (utils.datasets.wow.baselines.run_all): accuracies in percent, unigram F1 from 0 to 1
    "examples": tables.Column("Wizard examples", tables.COUNT),
    "knowledge_chance": tables.Column("Chance, know_chance", tables.PERCENT),
    "tfidf_accuracy": tables.Column("TF-IDF ranker", tables.PERCENT),
    "no_passage_share": tables.Column("Gold is “no passage used”", tables.PERCENT),
    "always_topic_first_sentence": tables.Column("Always the topic's first sentence", tables.PERCENT),
    "copy_checked_sentence": tables.Column("Copy the checked sentence", tables.DECIMAL, 3),
    "copy_tfidf_sentence": tables.Column("Copy the TF-IDF sentence", tables.DECIMAL, 3),
    "examples_with_passage": tables.Column("… scored on (examples with a passage)", tables.COUNT),
    "echo_apprentice": tables.Column("Echo the apprentice", tables.DECIMAL, 3),
    "examples_with_history": tables.Column("… scored on (examples with an apprentice turn)", tables.COUNT),
}

#: What the main columns of ``turns()`` hold.
TURNS_COLUMNS = {
    "dialogue_index": "position of the dialogue in the split",
    "turn_index": "position of the turn in its dialogue",
    "role": "wizard or seeker (the apprentice)",
    "speaker": "the speaker as the file writes it",
    "text": "what was said",
    "evidence_count": "sentences of knowledge shown (wizard turns only)",
    "selected_count": "how many of them the wizard checked (0 or 1)",
    "labels": "the checked sentence and passage, decoded (see below)",
}

#: The channels an :class:`~utils.records.Evidence` of WoW comes from (its ``origin``), for readers.
EVIDENCE_ORIGINS = {
    "topic": "chosen topic",
    "retrieved:seeker": "retrieved for the apprentice's turn",
    "retrieved:wizard": "retrieved for the wizard's previous turn",
}

#: Where a wizard turn took its checked sentence (``checked_source``), for readers.
CHECKED_SOURCES = {
    "chosen": "the chosen topic's passage (chosen)",
    "partner": "a passage retrieved for the apprentice's turn (partner)",
    "self": "a passage retrieved for the wizard's previous turn (self)",
    NO_PASSAGES_USED: "no passage used",
}

#: The label ``knowledge`` of a wizard turn, for readers.
KNOWLEDGE_LABELS = {
    "found": "found among the sentences shown",
    "not_found": "not found among the sentences shown",
    NO_PASSAGES_USED: "no passage used",
}

#: Statistics of :func:`summary` shown as counts, then those shown as averages or shares.
COUNT_KEYS = ("dialogues", "utterances", "topics", "wizard_turns", "apprentice_turns", "wizard_first_dialogues",
              "checked_not_in_knowledge")
AVERAGE_KEYS = ("turns_per_dialogue", "candidates_per_wizard_turn", "candidates_median", "words_per_utterance",
                "words_per_wizard_turn", "words_per_apprentice_turn", "no_passage_share")
#: Statistics of :func:`kilt_summary` that are averages (two decimals); the others are counts.
KILT_AVERAGES = frozenset({"turns_per_example", "history_turns_per_example", "provenance_per_answer",
                           "words_per_answer", "words_per_utterance"})


def _split_columns(names: Iterable[str]) -> dict[str, str]:
    return {name: split_label(name) for name in names}


def turns_table(split: LoadedSplit, index: int = 0) -> tables.Table:
    """The turns of dialogue ``index`` of ``split``: position, speaker as written, role, text (start)."""
    dialogue = split[index]
    rows = pd.DataFrame(
        {
            "turn": turn.index,
            "speaker": turn.speaker,
            "role": turn.role,
            "text": shorten(turn.text, 70, placeholder=" …"),
        }
        for turn in dialogue.turns
    )
    which = "the first dialogue" if index == 0 else f"dialogue {index}"
    return tables.declared_table(
        rows,
        COLUMNS,
        caption=caption(f"The {len(dialogue.turns)} turns of “{dialogue.topic}”, {which} of {split.split}.", split),
    )


def turns_columns_table(split: LoadedSplit) -> tables.Table:
    """The main columns of ``split.turns()`` (:data:`TURNS_COLUMNS`), with the first row's values."""
    # the labels of the first turn alone: decoded for every turn, they are a dict per turn
    turns = split.turns([name for name in TURNS_COLUMNS if name != "labels"])
    first = turns.iloc[0]
    first_row = [str(first[name]) for name in TURNS_COLUMNS if name != "labels"]
    first_labels = split[int(first["dialogue_index"])].turns[0].labels
    first_row.append("; ".join(f"{key}: {', '.join(values)}" for key, values in first_labels.items()))
    frame = pd.DataFrame(
        {
            "column": list(TURNS_COLUMNS),
            "holds": list(TURNS_COLUMNS.values()),
            "first": [shorten(text, 60, placeholder=" …") for text in first_row],
        }
    )
    return tables.declared_table(
        frame,
        COLUMNS,
        caption=caption(f"Columns of {split.split}.turns(): one row per turn, {len(turns):,} rows.", split),
    )


def shown_frame(turn: Turn) -> pd.DataFrame:
    """The sentences shown before a wizard turn, one row per passage: ``origin`` (in the words of
    :data:`EVIDENCE_ORIGINS`), ``from_turn``, ``passage`` and ``title`` (decoded from each sentence's
    id by :func:`~utils.datasets.wow.parser.evidence_source`), ``sentences`` and ``checked`` (the
    passage holds the checked sentence)."""
    shown = pd.DataFrame({**evidence_source(e), "origin": e.origin, "selected": e.selected} for e in turn.evidence)
    return (
        shown.groupby(["origin", "from_turn", "passage", "title"], dropna=False, sort=False)
        .agg(sentences=("sentence", "size"), checked=("selected", "any"))
        .reset_index()
        .assign(origin=lambda frame: frame["origin"].map(EVIDENCE_ORIGINS))
    )


def shown_table(dialogue: Dialogue, turn: Turn, split: LoadedSplit) -> tables.Table:
    """:func:`shown_frame` of a wizard ``turn`` of ``dialogue`` for readers."""
    passages = shown_frame(turn)
    return tables.declared_table(
        passages,
        COLUMNS,
        empty_note="– the chosen topic's passage, shown at every wizard turn",
        notes=["Passage no.: its position among the passages retrieved for that turn, counted from 0"],
        caption=caption(
            f"What the wizard was shown before turn {turn.index} of “{dialogue.topic}”: {len(turn.evidence)} "
            f"sentences in {len(passages)} passages, plus the “no passage used” option.",
            split,
        ),
    )


def labels_table(turn: Turn, split: LoadedSplit) -> tables.Table:
    """The labels the atlas decodes from a wizard turn's choice (``turn.labels``)."""
    labels = turn.labels
    frame = pd.DataFrame({"label": list(labels), "value": [", ".join(values) for values in labels.values()]})
    return tables.declared_table(
        frame, COLUMNS, caption=caption(f"How the atlas decodes the choice made at turn {turn.index}.", split)
    )


def raw_choice_table(turn: Turn, split: LoadedSplit) -> tables.Table:
    """A wizard turn's choice as the file records it: ``checked_sentence`` and ``checked_passage``."""
    frame = pd.DataFrame(
        {"field": field, "key": key, "value": value}
        for field in ("checked_sentence", "checked_passage")
        for key, value in turn.raw.get(field, {}).items()
    )
    return tables.declared_table(
        frame,
        COLUMNS,
        caption=caption(f"The same choice as the file records it (wizard_turn.raw), turn {turn.index}.", split),
    )


def _share_table(
    values: pd.Series, labels: Mapping[str, str], header: str, what: str, split: LoadedSplit
) -> tables.Table:
    """Counts and shares of one column of wizard turns, in the order of ``labels`` (values not in it after)."""
    counts = values.value_counts()
    order = [*labels, *(value for value in counts.index if value not in labels)]
    frame = counts.reindex(order, fill_value=0).rename("turns").to_frame()
    frame["share"] = frame["turns"] / max(len(values), 1)
    return tables.declared_table(frame, COLUMNS, index=header, row_labels=labels, caption=caption(what, split))


def checked_source_table(split: LoadedSplit) -> tables.Table:
    """Wizard turns by where their checked sentence came from (:data:`CHECKED_SOURCES`)."""
    wizard = wizard_turns(split)
    return _share_table(
        wizard["checked_source"],
        CHECKED_SOURCES,
        "Checked sentence from",
        f"Where the {len(wizard):,} wizard turns of {split.split} took their checked sentence.",
        split,
    )


def knowledge_label_table(split: LoadedSplit) -> tables.Table:
    """Wizard turns by their label ``knowledge`` (:data:`KNOWLEDGE_LABELS`)."""
    wizard = wizard_turns(split)
    return _share_table(
        wizard["knowledge"],
        KNOWLEDGE_LABELS,
        "Checked sentence",
        f"The {len(wizard):,} wizard turns of {split.split} by the label knowledge.",
        split,
    )


def topic_overlap_table(train: LoadedSplit, others: Mapping[str, LoadedSplit]) -> tables.Table:
    """:func:`topic_overlap` for readers."""
    return tables.declared_table(
        topic_overlap(train, others),
        COLUMNS,
        index="Split",
        row_labels=SPLIT_LABELS,
        caption=caption(
            "Distinct chosen topics of each held-out split, and how many are topics of train. Only the full "
            "files say how far the splits share topics (the GEM card's numbers are compared below).",
            train,
            *others.values(),
        ),
    )


def kilt_table(split: LoadedSplit) -> tables.Table:
    """:func:`kilt_summary` for readers: counts as integers, averages with two decimals."""
    kilt = kilt_summary(split)
    frame = pd.DataFrame(
        {
            "statistic": [SUMMARY_LABELS[key] for key in kilt],
            "value": [tables.decimal(v, 2) if key in KILT_AVERAGES else tables.integer(v) for key, v in kilt.items()],
        }
    )
    return tables.declared_table(
        frame,
        COLUMNS,
        caption=caption(f"The KILT {split.split} split in numbers (words are whitespace-separated).", split),
    )


def counts_table(summary: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> tables.Table:
    """The counts (:data:`COUNT_KEYS`) of :func:`summary_frame` ``(splits)``, one column per split."""
    return tables.table(
        summary.loc[[SUMMARY_LABELS[key] for key in COUNT_KEYS]],
        index="Count",
        labels=_split_columns(splits),
        integers=list(splits),
        caption=caption("Counts of the five raw splits.", *splits.values()),
    )


def averages_table(summary: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> tables.Table:
    """The averages and the no-passage share (in percent; :data:`AVERAGE_KEYS`) of
    :func:`summary_frame` ``(splits)``, one column per split."""
    averages = summary.loc[[SUMMARY_LABELS[key] for key in AVERAGE_KEYS]].astype(float)
    no_passage = SUMMARY_LABELS["no_passage_share"]
    averages.loc[no_passage] *= 100
    table = tables.table(
        averages.rename(index={no_passage: "wizard turns with no passage used (%)"}),
        index="Average or share",
        labels=_split_columns(splits),
        decimals=dict.fromkeys(splits, 1),
        caption=caption("Averages of the five raw splits (means unless marked median).", *splits.values()),
    )
    # the median of a count is a count (61) or halfway between two (61.5), never 61.0
    median_row = AVERAGE_KEYS.index("candidates_median")
    table.styler.format(tables.median_count, subset=pd.IndexSlice[[median_row], list(splits)])
    return table


def parlai_examples_table(splits: Mapping[str, LoadedSplit]) -> tables.Table:
    """:func:`parlai_examples` of every split: one row per ParlAI teacher, one column per split."""
    return tables.table(
        pd.DataFrame({name: parlai_examples(split) for name, split in splits.items()}),
        index="ParlAI teacher",
        labels=_split_columns(splits),
        integers=list(splits),
        caption=caption("Examples (num_examples) each ParlAI teacher makes of each split.", *splits.values()),
    )


def selected_origins_table(shares: Mapping[str, pd.Series], *splits: LoadedSplit) -> tables.Table:
    """Shares of the selected evidence by origin (:data:`EVIDENCE_ORIGINS`), one column per split:
    ``shares`` maps a split's name to its shares (origin -> share between 0 and 1)."""
    return tables.table(
        pd.DataFrame(dict(shares)).fillna(0),
        index="Origin of the selected sentence",
        row_labels=EVIDENCE_ORIGINS,
        labels={name: split_label(name).capitalize() for name in shares},
        percents=dict.fromkeys(shares, 1),
        caption=caption("Share of the selected evidence by origin.", *splits),
    )


# -- reported versus reproduced -------------------------------------------------------------------


@dataclass(frozen=True)
class _Check:
    """How to reproduce one reported number: the splits it needs and the tolerance of the check."""

    needs: tuple[str, ...]
    tolerance: float = 0.0


_CHECKS = {
    ("wow", "dialogues", "train"): _Check(("train",)),
    ("wow", "utterances", "train"): _Check(("train",)),
    ("wow", "topics", "train"): _Check(("train",)),
    # the card rounds to one decimal
    ("wow", "turns_per_dialogue", "train"): _Check(("train",), 0.05),
    ("wow", "dialogues", ""): _Check(RAW_SPLITS),
    ("wow", "utterances", ""): _Check(RAW_SPLITS),
    ("wow", "utterances", "valid"): _Check(("valid_seen", "valid_unseen")),
    ("wow", "utterances", "test"): _Check(("test_seen", "test_unseen")),
    ("wow", "topics_shared_with_train", "test_seen"): _Check(("train", "test_seen")),
    ("wow", "new_topics", "test_unseen"): _Check(("train", "valid_seen", "valid_unseen", "test_unseen")),
    ("wow", "dialogues", "valid_seen"): _Check(("valid_seen",)),
    ("wow", "dialogues", "test_seen"): _Check(("test_seen",)),
    **{
        ("wow", name, split): _Check((split,))
        for name in ("all_turn_examples", "wizard_examples", "apprentice_examples", "basicdialog_examples")
        for split in ("train", "valid_seen", "test_seen")
    },
    ("wow_kilt", "examples", "dev"): _Check(("kilt_dev",)),
}


def teachers_of(item: Reported) -> list[str]:
    """The ParlAI teachers a reported count names (several teachers may record one count)."""
    return [name.strip() for name in item.teacher.split(",") if name.strip()]


def _reproduce(item: Reported, splits: Mapping[str, LoadedSplit], cache: dict[str, Any]) -> float:
    check = _CHECKS[(item.dataset, item.name, item.split)]

    def stat(split_name: str, key: str) -> float:
        if split_name not in cache:
            split = splits[split_name]
            cache[split_name] = kilt_summary(split) if split.dataset == "wow_kilt" else summary(split)
        return cache[split_name][key]

    if item.name == "topics_shared_with_train":
        return len(topics(splits["test_seen"]) & topics(splits["train"]))
    if item.name == "new_topics":
        seen = set().union(*(topics(splits[name]) for name in check.needs[:-1]))
        return len(topics(splits["test_unseen"]) - seen)
    if item.name.endswith("_examples") and item.teacher:
        # Each named teacher counts with its own rule; one count is reproduced only when they agree.
        counts = set()
        for teacher in teachers_of(item):
            for name in check.needs:
                if f"parlai:{name}" not in cache:
                    cache[f"parlai:{name}"] = parlai_examples(splits[name])
            counts.add(sum(cache[f"parlai:{name}"][teacher] for name in check.needs))
        return counts.pop() if len(counts) == 1 else math.nan
    key = item.name
    return sum(stat(name, key) for name in check.needs)


def reported_vs_reproduced(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """Every reported WoW and KILT statistic beside the value computed from ``splits``.

    ``splits`` maps raw split names (:data:`RAW_SPLITS`) and ``"kilt_dev"`` to loaded splits. The
    result is :func:`utils.reported.compare` over ``wow`` and ``wow_kilt``, narrowed to the statistics
    (the baselines are :func:`utils.datasets.wow.baselines.reported_vs_reproduced`'s): a row is checked only
    when every split it needs is the full official file (exactly for counts, within ``tolerance``
    for averages); a row whose splits are not all given says "not checked: split not loaded".
    """
    computed: dict[tuple[str, str, str], Reproduced] = {}
    cache: dict[str, dict[str, float]] = {}
    for item in REPORTED:
        key = (item.dataset, item.name, item.split)
        if key not in _CHECKS:
            continue
        check = _CHECKS[key]
        kinds = tuple(sorted({splits[name].provenance.kind for name in check.needs if name in splits}))
        if all(name in splits for name in check.needs):
            computed[key] = Reproduced(_reproduce(item, splits, cache), kinds, check.tolerance)
        else:
            computed[key] = Reproduced(None, kinds, check.tolerance)
    # the datasets this module checks numbers of: WoW and its KILT version
    table = compare(sorted({dataset for dataset, _, _ in _CHECKS}), computed)
    checked = {(dataset, name, split or "all") for dataset, name, split in _CHECKS}
    keep = [row in checked for row in zip(table["dataset"], table["name"], table["split"], strict=True)]
    return table[keep].reset_index(drop=True)


# -- figures --------------------------------------------------------------------------------------


#: Split names as figures and tables show them.
SPLIT_LABELS = {
    "train": "train",
    "valid_seen": "valid seen",
    "valid_unseen": "valid unseen",
    "test_seen": "test seen",
    "test_unseen": "test unseen",
    "kilt_dev": "KILT dev",
}
#: Legend text, at least 9 pt at the figure's printed size (figures are at most 7.5 in wide).
_LEGEND_POINTS = 9


def comparison_table(compared: pd.DataFrame, text: str, *splits: LoadedSplit) -> tables.Table:
    """:func:`utils.book.tables.comparison` of a WoW table, splits named for readers ("valid seen",
    "KILT dev"), captioned with ``text`` and the demo or partial ``splits`` it was computed on."""
    def label(dataset: str, split: str) -> str:
        return "KILT dev" if dataset == "wow_kilt" else split_label(split)

    return tables.comparison(compared, caption=caption(text, *splits), split_label=label)


def split_label(name: str) -> str:
    """``valid_seen`` as tables and figures show it ("valid seen")."""
    return SPLIT_LABELS.get(name, name.replace("_", " "))


def lengths_alt(splits: Mapping[str, LoadedSplit]) -> str:
    """Alt text for :func:`plot_lengths`: what it shows and each split's mean lengths."""
    words = "; ".join(f"{split_label(name)} {word_counts(split).mean():.1f}" for name, split in splits.items())
    turns = "; ".join(
        f"{split_label(name)} {len(split.turns(['dialogue_index'])) / max(len(split), 1):.1f}"
        for name, split in splits.items()
    )
    return (
        "Two histograms with one line per split. Top: words per utterance, mean "
        f"{words}. Bottom: utterances per dialogue, mean {turns}."
    )


def candidates_alt(splits: Mapping[str, LoadedSplit]) -> str:
    """Alt text for :func:`plot_candidates`: what it shows and each split's median."""
    medians = "; ".join(
        f"{split_label(name)} {wizard_turns(split)['candidates'].median():.0f}" for name, split in splits.items()
    )
    return f"Histogram of knowledge candidates per wizard turn, one line per split; median {medians}."


def topics_alt(train: LoadedSplit, others: Mapping[str, LoadedSplit], n: int = 15) -> str:
    """Alt text for :func:`plot_topics` drawn on ``train``: its top topics and each split's overlap."""
    counts = top_topics(train, n)
    overlap = topic_overlap(train, others)
    shared = "; ".join(
        f"{split_label(str(name))} {row.shared_with_train} of {row.topics}" for name, row in overlap.iterrows()
    )
    lead = f", led by {counts.index[0]} ({counted(int(counts.iloc[0]), 'dialogues')})" if len(counts) else ""
    return (
        f"Two bar charts. Top: the {len(counts)} most frequent topics of train by number of dialogues{lead}. "
        f"Bottom: topics of each held-out split that are also topics of train: {shared}."
    )


@text_as_typed
def plot_lengths(splits: Mapping[str, LoadedSplit]):
    """Histograms of utterance length (words) and of utterances per dialogue, one panel above the other."""
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6.4))
    for name, split in splits.items():
        turns = split.turns(["dialogue_index"])
        words = word_counts(split)
        label = split_label(name)
        top.hist(words.clip(upper=60), bins=np.arange(0, 62, 2), histtype="step", density=True, label=label)
        per_dialogue = turns.groupby("dialogue_index").size()
        bottom.hist(per_dialogue, bins=np.arange(0.5, 25.5, 1), histtype="step", density=True, label=label)
    top.set(title="Utterance length", xlabel="words (60 = 60 or more)", ylabel="share of utterances")
    bottom.set(title="Utterances per dialogue", xlabel="utterances", ylabel="share of dialogues")
    top.legend(fontsize=_LEGEND_POINTS)
    fig.tight_layout()
    return fig


@text_as_typed
def plot_candidates(splits: Mapping[str, LoadedSplit]):
    """Histogram of knowledge candidates per wizard turn."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for name, split in splits.items():
        candidates = wizard_turns(split)["candidates"]
        ax.hist(candidates, bins=list(np.arange(0.5, 121.5, 4)), histtype="step", density=True, label=split_label(name))
    ax.set(title="Knowledge candidates per wizard turn", xlabel="candidates (sentences + no passage)", ylabel="share")
    ax.legend(fontsize=_LEGEND_POINTS)
    fig.tight_layout()
    return fig


@text_as_typed
def plot_topics(split: LoadedSplit, train: LoadedSplit, others: Mapping[str, LoadedSplit], n: int = 15):
    """The most frequent topics of ``split`` above, the held-out splits' topics seen in train below."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    counts = top_topics(split, n)
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(7, 3.2 + 0.22 * len(counts)), gridspec_kw={"height_ratios": [max(len(counts), 3), 6]}
    )
    top.barh(counts.index[::-1], counts.to_numpy()[::-1])
    top.set(title=f"Most frequent topics ({split_label(split.split)})", xlabel="dialogues")
    top.xaxis.set_major_locator(MaxNLocator(integer=True))
    overlap = topic_overlap(train, others)
    positions = np.arange(len(overlap))
    bottom.bar(positions, overlap["shared_with_train"], label="also a topic of train")
    bottom.bar(positions, overlap["new"], bottom=overlap["shared_with_train"], label="not in train")
    bottom.set_xticks(positions, [split_label(name) for name in overlap.index])
    bottom.set(title="Held-out topics seen in train", ylabel="topics")
    bottom.yaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.legend(fontsize=_LEGEND_POINTS)
    fig.tight_layout()
    return fig
