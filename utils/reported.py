"""Numbers the datasets' authors reported, each with its source. The one place they live.

Chapters set these beside the numbers they compute from data at run time; nothing here is ever
shown as reproduced. ``source`` is a short human-readable citation that says where on the cited
page the number stands, and ``citation_key`` a key of ``book/references.bib`` for that page. Only
numbers a readable source states are listed: where a paper's table could not be read, its numbers
are left out (the chapters say so) rather than filled in from memory.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from .errors import UnknownNameError


@dataclass(frozen=True)
class Reported:
    """One reported number."""

    dataset: str
    name: str
    value: float
    source: str
    citation_key: str
    #: the split or subset the number describes (``""`` for the whole dataset)
    split: str = ""
    unit: str = ""
    #: the ParlAI teacher(s) whose recorded count this is, comma-separated (``""`` when not a ParlAI count)
    teacher: str = ""
    #: what the number measures, where its name does not say it
    note: str = ""
    #: ``">"`` when the source gives only a lower bound ("more than 60%"): a check then holds when
    #: the reproduced value is above ``value``; ``""`` for a value.
    bound: str = ""


#: :attr:`Reported.bound` of a number the source states as "more than".
LOWER_BOUND = ">"


_GEM = ("GEM data card for Wizard of Wikipedia, 'Data Statistics' (train split)", "gem2021wowcard")
_GEM_COLLECTION = (
    "GEM data card for Wizard of Wikipedia, 'Initial Data Collection and Normalization' "
    "(the paper's totals, quoted by the card)",
    "gem2021wowcard",
)
_PARLAI_FIXTURES = (
    "ParlAI test fixtures parlai/tasks/wizard_of_wikipedia/test/wizard_of_wikipedia_<teacher>_<split>.yml "
    "(num_episodes / num_examples; valid and test are the random_split files)",
    "parlai2021wowfixtures",
)
# ParlAI's eval_model defaults to --datatype valid, so these are valid-split numbers.
_PARLAI_E2E_SEEN = (
    "ParlAI Wizard of Wikipedia project page, 'End-to-End generative': eval_model on "
    "generator:random_split (datatype valid)",
    "parlai2019wowproject",
)
_PARLAI_E2E_UNSEEN = (
    "ParlAI Wizard of Wikipedia project page, 'End-to-End generative': eval_model on "
    "generator:topic_split (datatype valid)",
    "parlai2019wowproject",
)
_LEADERBOARD = (
    "ParlAI Wizard of Wikipedia project page, leaderboard 'Retrieval Models' (from Dinan et al. 2019a)",
    "parlai2019wowproject",
)
_KILT_README = ("KILT repository README, 'KILT data catalogue': wow-dev-kilt.jsonl", "kilt2020repo")
_FAITHDIAL_CARD = ("FaithDial dataset card", "faithdial2022card")
#: the abstract says the standard benchmarks (WoW among them) "consist of >60% hallucinated responses"
_AUDIT_PAPER = ("Dziri et al. (2022c), 'On the Origin of Hallucinations', abstract", "dziri2022origin")
#: WISE.md of PengjieRen/CaSE_WISE states "1.9K conversation", "37K utterances" and "an average turn
#: number of 9.2", nothing more; the paper's tables (split sizes, baseline scores) are not readable here
#: and nothing from them is recorded.
_WISE_README = ("WISE data description (WISE.md in the authors' repository)", "ren2021wisedata")
_JWHR_CARD = ("Japanese Wikipedia Human Retrieval dataset card", "oda2023jwhr")

#: ParlAI's teachers of the wizard's turns: three teachers, one recorded count.
_WIZARD_TEACHERS = "generator, wizard_dialog_knowledge, basic_wizard_dialog"
#: ``know_chance`` as ParlAI's end-to-end generator computes it (``projects/wizard_of_wikipedia/generator``).
_KNOW_CHANCE = (
    "mean over the generator teacher's wizard examples of 1 / (knowledge lines), the lines being the "
    "'no_passages_used' option plus every sentence shown"
)


def _r(
    dataset: str,
    name: str,
    value: float,
    src: tuple[str, str],
    split: str = "",
    unit: str = "",
    teacher: str = "",
    note: str = "",
    bound: str = "",
) -> Reported:
    return Reported(dataset, name, value, src[0], src[1], split, unit, teacher, note, bound)


REPORTED: tuple[Reported, ...] = (
    # Wizard of Wikipedia: statistics
    _r("wow", "dialogues", 18430, _GEM, "train"),
    _r("wow", "utterances", 166787, _GEM, "train"),
    _r("wow", "topics", 1247, _GEM, "train"),
    _r("wow", "turns_per_dialogue", 9.0, _GEM, "train"),
    _r("wow", "dialogues", 22311, _GEM_COLLECTION),
    _r("wow", "utterances", 201999, _GEM_COLLECTION),
    _r("wow", "utterances", 17715, _GEM_COLLECTION, "valid"),
    _r("wow", "utterances", 17497, _GEM_COLLECTION, "test"),
    _r("wow", "topics_shared_with_train", 533, _GEM_COLLECTION, "test_seen"),
    _r("wow", "new_topics", 58, _GEM_COLLECTION, "test_unseen"),
    # ParlAI's recorded counts: num_episodes, then num_examples teacher by teacher
    _r("wow", "dialogues", 981, _PARLAI_FIXTURES, "valid_seen", teacher="wizard_of_wikipedia"),
    _r("wow", "dialogues", 965, _PARLAI_FIXTURES, "test_seen", teacher="wizard_of_wikipedia"),
    _r("wow", "all_turn_examples", 166787, _PARLAI_FIXTURES, "train", teacher="wizard_of_wikipedia"),
    _r("wow", "all_turn_examples", 8909, _PARLAI_FIXTURES, "valid_seen", teacher="wizard_of_wikipedia"),
    _r("wow", "all_turn_examples", 8715, _PARLAI_FIXTURES, "test_seen", teacher="wizard_of_wikipedia"),
    _r("wow", "wizard_examples", 74092, _PARLAI_FIXTURES, "train", teacher=_WIZARD_TEACHERS),
    _r("wow", "wizard_examples", 3939, _PARLAI_FIXTURES, "valid_seen", teacher=_WIZARD_TEACHERS),
    _r("wow", "wizard_examples", 3865, _PARLAI_FIXTURES, "test_seen", teacher=_WIZARD_TEACHERS),
    _r("wow", "apprentice_examples", 74265, _PARLAI_FIXTURES, "train", teacher="basic_apprentice_dialog"),
    _r("wow", "apprentice_examples", 3989, _PARLAI_FIXTURES, "valid_seen", teacher="basic_apprentice_dialog"),
    _r("wow", "apprentice_examples", 3885, _PARLAI_FIXTURES, "test_seen", teacher="basic_apprentice_dialog"),
    _r("wow", "basicdialog_examples", 82965, _PARLAI_FIXTURES, "train", teacher="basicdialog"),
    _r("wow", "basicdialog_examples", 4434, _PARLAI_FIXTURES, "valid_seen", teacher="basicdialog"),
    _r("wow", "basicdialog_examples", 4336, _PARLAI_FIXTURES, "test_seen", teacher="basicdialog"),
    _r("wow_kilt", "examples", 3054, _KILT_README, "dev"),
    # Wizard of Wikipedia: baselines
    _r("wow", "knowledge_chance", 0.02625, _PARLAI_E2E_SEEN, "valid_seen", teacher="generator", note=_KNOW_CHANCE),
    _r("wow", "knowledge_chance", 0.02496, _PARLAI_E2E_UNSEEN, "valid_unseen", teacher="generator", note=_KNOW_CHANCE),
    _r("wow", "end2end_knowledge_accuracy", 0.2201, _PARLAI_E2E_SEEN, "valid_seen", teacher="generator"),
    _r("wow", "end2end_knowledge_accuracy", 0.1123, _PARLAI_E2E_UNSEEN, "valid_unseen", teacher="generator"),
    _r("wow", "end2end_f1", 0.1717, _PARLAI_E2E_SEEN, "valid_seen", teacher="generator"),
    _r("wow", "end2end_f1", 0.1498, _PARLAI_E2E_UNSEEN, "valid_unseen", teacher="generator"),
    _r("wow", "end2end_ppl", 61.21, _PARLAI_E2E_SEEN, "valid_seen", teacher="generator"),
    _r("wow", "end2end_ppl", 103.1, _PARLAI_E2E_UNSEEN, "valid_unseen", teacher="generator"),
    _r("wow", "random_r@1", 1.0, _LEADERBOARD, "test_seen", "%"),
    _r("wow", "random_r@1", 1.0, _LEADERBOARD, "test_unseen", "%"),
    _r("wow", "ir_baseline_r@1", 17.8, _LEADERBOARD, "test_seen", "%"),
    _r("wow", "ir_baseline_r@1", 14.2, _LEADERBOARD, "test_unseen", "%"),
    _r("wow", "bow_memnet_r@1", 71.3, _LEADERBOARD, "test_seen", "%"),
    _r("wow", "bow_memnet_r@1", 33.1, _LEADERBOARD, "test_unseen", "%"),
    _r("wow", "transformer_memnet_r@1", 87.4, _LEADERBOARD, "test_seen", "%"),
    _r("wow", "transformer_memnet_r@1", 69.8, _LEADERBOARD, "test_unseen", "%"),
    # FaithDial
    _r("faithdial", "turns", 36809, _FAITHDIAL_CARD, "train"),
    _r("faithdial", "turns", 6851, _FAITHDIAL_CARD, "valid"),
    _r("faithdial", "turns", 7101, _FAITHDIAL_CARD, "test"),
    _r("faithdial", "turns", 50761, _FAITHDIAL_CARD),
    _r("faithdial", "dialogues", 5649, _FAITHDIAL_CARD),
    _r("faithdial_audit", "hallucination_share_lower_bound", 60, _AUDIT_PAPER, "gold_wow", "%", bound=LOWER_BOUND),
    # WISE
    _r("wise", "dialogues", 1900, _WISE_README, unit="approx."),
    _r("wise", "utterances", 37000, _WISE_README, unit="approx."),
    _r("wise", "turns_per_dialogue", 9.2, _WISE_README),
    # Japanese Wikipedia Human Retrieval
    _r("jwhr", "sessions", 838, _JWHR_CARD, "answered"),
    _r("jwhr", "sessions", 433, _JWHR_CARD, "not_answered"),
)


def reported(dataset: str, name: str | None = None, split: str | None = None) -> pd.DataFrame:
    """The reported numbers of ``dataset`` as a table, optionally narrowed to one name or split."""
    datasets = sorted({item.dataset for item in REPORTED})
    if dataset not in datasets:
        raise UnknownNameError("dataset with reported numbers", dataset, datasets)
    rows = [
        item
        for item in REPORTED
        if item.dataset == dataset
        and (name is None or item.name == name)
        and (split is None or item.split == split)
    ]
    return pd.DataFrame([vars(item) for item in rows])


def reported_value(dataset: str, name: str, split: str = "") -> Reported:
    """Exactly one reported number; raises :class:`KeyError` naming what exists when absent."""
    for item in REPORTED:
        if (item.dataset, item.name, item.split) == (dataset, name, split):
            return item
    known = sorted({f"{i.name}@{i.split or 'all'}" for i in REPORTED if i.dataset == dataset})
    raise UnknownNameError("reported number", f"{name}@{split or 'all'}", known, of=dataset)


# -- the one reported-versus-reproduced comparison ---------------------------------------------------

#: Status of a comparison row. Only ``HELD`` and ``FAILED`` are checks; the others say why not.
HELD = "held"
FAILED = "failed"
NOT_CHECKED = "not checked"
QUOTED_ONLY = "quoted only"

#: Names of quantities as a reader reads them; anything absent reads as its name with spaces.
QUANTITY_LABELS = {
    "turns_per_dialogue": "turns per dialogue",
    "topics_shared_with_train": "topics shared with train",
    "new_topics": "topics not seen in train or valid",
    "knowledge_chance": "knowledge selection by chance (know_chance)",
    "end2end_knowledge_accuracy": "end-to-end generator: knowledge accuracy",
    "end2end_f1": "end-to-end generator: unigram F1",
    "end2end_ppl": "end-to-end generator: perplexity",
    "random_r@1": "random candidate: R@1",
    "ir_baseline_r@1": "IR baseline: R@1",
    "bow_memnet_r@1": "BoW memory network: R@1",
    "transformer_memnet_r@1": "Transformer memory network: R@1",
    "hallucination_share_lower_bound": "hallucinated responses",
}


def quantity_label(name: str) -> str:
    """``name`` as the tables show it (``turns_per_dialogue`` reads "turns per dialogue")."""
    return QUANTITY_LABELS.get(name, name.replace("_", " "))


@dataclass(frozen=True)
class Reproduced:
    """A value computed from loaded data, with what it was computed on.

    ``kinds`` are the provenance kinds (:mod:`utils.loading`) of the splits the value needs; the row
    is checked only when every one of them is a complete official split. ``value`` is ``None`` when
    a split it needs was not loaded. ``note`` says why a row cannot be checked even on full data
    (for example a definition the source does not publish).
    """

    value: float | None
    kinds: tuple[str, ...]
    tolerance: float = 0.0
    note: str = ""


_FULL_KINDS = ("official", "user copy")


def _status(item: Reported, computed: Reproduced | None) -> str:
    if computed is None:
        return QUOTED_ONLY
    if computed.value is None:
        return f"{NOT_CHECKED}: split not loaded"
    if computed.note:
        return f"{NOT_CHECKED}: {computed.note}"
    partial = sorted({kind for kind in computed.kinds if kind not in _FULL_KINDS})
    if partial or not computed.kinds:
        return f"{NOT_CHECKED}: {', '.join(partial) or 'no provenance'}"
    if item.bound == LOWER_BOUND:
        return HELD if computed.value > item.value else FAILED
    return HELD if abs(computed.value - item.value) <= computed.tolerance else FAILED


def _decimals(value: float) -> int:
    """Decimals the source printed ``value`` with: 0 for a count, 3 for 0.262, 1 for 9.0."""
    if isinstance(value, int):
        return 0
    text = repr(float(value))
    return len(text.split(".")[1]) if "." in text and "e" not in text else 3


def compare(
    dataset: str | Sequence[str], computed: Mapping[tuple[str, str], Reproduced] | None = None
) -> pd.DataFrame:
    """Every number reported for ``dataset`` beside the value computed from data, in one schema.

    ``computed`` maps ``(name, split)`` of a :data:`REPORTED` row (split ``""`` for the whole
    dataset; a dataset given as a sequence takes ``(dataset, name, split)`` keys) to what the
    chapter computed. A reported row with no computed value is *quoted only*; a computed value
    with no reported row is an error, so that a typo cannot silently drop a check.

    Columns: ``dataset``, ``split``, ``quantity`` (for readers), ``name`` (the key), ``reported``,
    ``unit``, ``source``, ``citation_key``, ``reproduced``, ``tolerance``, ``status`` (``held``,
    ``failed``, ``not checked: <why>`` or ``quoted only``), ``decimals`` (the precision the
    source printed the number with), ``teacher`` (the ParlAI teacher a count belongs to, or ``""``),
    ``note`` (what the number measures, where its name does not say it) and ``bound``
    (:attr:`Reported.bound`: ``">"`` for a lower bound, whose check holds when the reproduced value
    is above it, with no tolerance).
    """
    datasets = [dataset] if isinstance(dataset, str) else list(dataset)
    known = {item.dataset for item in REPORTED}
    for name in datasets:
        if name not in known:
            raise UnknownNameError("dataset with reported numbers", name, sorted(known))
    computed = dict(computed or {})

    def key(item: Reported) -> tuple[str, ...]:
        return (item.name, item.split) if isinstance(dataset, str) else (item.dataset, item.name, item.split)

    items = [item for item in REPORTED if item.dataset in datasets]
    unmatched = set(computed) - {key(item) for item in items}
    if unmatched:
        raise KeyError(f"computed values with no reported number: {sorted(unmatched)}")
    rows = []
    for item in items:
        value = computed.get(key(item))
        rows.append(
            {
                "dataset": item.dataset,
                "split": item.split or "all",
                "quantity": quantity_label(item.name),
                "name": item.name,
                "reported": float(item.value),
                "unit": item.unit,
                "source": item.source,
                "citation_key": item.citation_key,
                "reproduced": math.nan if value is None or value.value is None else float(value.value),
                "tolerance": math.nan if value is None else float(value.tolerance),
                "status": _status(item, value),
                "decimals": _decimals(item.value),
                "teacher": item.teacher,
                "note": item.note,
                "bound": item.bound,
            }
        )
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


COMPARISON_COLUMNS = (
    "dataset", "split", "quantity", "name", "reported", "unit", "source", "citation_key",
    "reproduced", "tolerance", "status", "decimals", "teacher", "note", "bound",
)


def failures(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a :func:`compare` table whose check failed (empty when every check held)."""
    return table[table["status"] == FAILED]


def assert_held(table: pd.DataFrame) -> int:
    """Raise :class:`AssertionError` naming every failed row; return how many checks held."""
    failed = failures(table)
    if not failed.empty:
        lines = [
            f"{row.dataset}/{row.split} {row.quantity}: reported {row.reported}, reproduced {row.reproduced}"
            f" (tolerance {row.tolerance})"
            for row in failed.itertuples()
        ]
        raise AssertionError("reported numbers not reproduced:\n" + "\n".join(lines))
    return int((table["status"] == HELD).sum())
