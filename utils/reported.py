"""Numbers the datasets' authors reported, each with its source. The one place they live.

Chapters set these beside the numbers they compute from data at run time; nothing here is ever
shown as reproduced. ``source`` is a short human-readable citation and ``citation_key`` a key of
``book/references.bib``.
"""

from __future__ import annotations

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


_GEM = ("GEM data card for Wizard of Wikipedia, train statistics", "dinan2019wizard")
_WOW_PAPER = ("Dinan et al. (2019), section 3", "dinan2019wizard")
_PARLAI_COUNTS = ("ParlAI wizard_of_wikipedia task, recorded example counts", "miller2017parlai")
_PARLAI_E2E_SEEN = ("ParlAI project page, end-to-end generator eval (random split)", "dinan2019wizard")
_PARLAI_E2E_UNSEEN = ("ParlAI project page, end-to-end generator eval (topic split)", "dinan2019wizard")
_LEADERBOARD = ("ParlAI project page, retrieval leaderboard (Dinan et al. 2019)", "dinan2019wizard")
_FAITHDIAL_CARD = ("FaithDial dataset card", "dziri2022faithdial")
_AUDIT_PAPER = (
    "Dziri et al. (2022), 'On the Origin of Hallucinations', abstract: the standard benchmarks (WoW among them) "
    "consist of >60% hallucinated responses",
    "dziri2022origin",
)
_WISE_README = ("WISE data description", "ren2021wizard")
_JWHR_CARD = ("Japanese Wikipedia Human Retrieval dataset card", "oda2023jwhr")


def _r(dataset: str, name: str, value: float, src: tuple[str, str], split: str = "", unit: str = "") -> Reported:
    return Reported(dataset, name, value, src[0], src[1], split, unit)


REPORTED: tuple[Reported, ...] = (
    # Wizard of Wikipedia: statistics
    _r("wow", "dialogues", 18430, _GEM, "train"),
    _r("wow", "utterances", 166787, _GEM, "train"),
    _r("wow", "topics", 1247, _GEM, "train"),
    _r("wow", "turns_per_dialogue", 9.0, _GEM, "train"),
    _r("wow", "dialogues", 22311, _WOW_PAPER),
    _r("wow", "utterances", 201999, _WOW_PAPER),
    _r("wow", "utterances", 17715, _WOW_PAPER, "valid"),
    _r("wow", "utterances", 17497, _WOW_PAPER, "test"),
    _r("wow", "topics_shared_with_train", 533, _WOW_PAPER, "test_seen"),
    _r("wow", "new_topics", 58, _WOW_PAPER, "test_unseen"),
    _r("wow", "dialogues", 981, _PARLAI_COUNTS, "valid_seen"),
    _r("wow", "utterances", 8909, _PARLAI_COUNTS, "valid_seen"),
    _r("wow", "dialogues", 965, _PARLAI_COUNTS, "test_seen"),
    _r("wow", "utterances", 8715, _PARLAI_COUNTS, "test_seen"),
    _r("wow", "wizard_examples_without_first_turn", 74092, _PARLAI_COUNTS, "train"),
    _r("wow", "wizard_examples_without_first_turn", 3939, _PARLAI_COUNTS, "valid_seen"),
    _r("wow", "wizard_examples_without_first_turn", 3865, _PARLAI_COUNTS, "test_seen"),
    _r("wow_kilt", "examples", 3054, ("KILT benchmark, WoW dev split", "petroni2021kilt"), "dev"),
    # Wizard of Wikipedia: baselines
    _r("wow", "knowledge_chance", 0.02625, _PARLAI_E2E_SEEN, "valid_seen"),
    _r("wow", "knowledge_chance", 0.02496, _PARLAI_E2E_UNSEEN, "valid_unseen"),
    _r("wow", "end2end_knowledge_accuracy", 0.2201, _PARLAI_E2E_SEEN, "valid_seen"),
    _r("wow", "end2end_knowledge_accuracy", 0.1123, _PARLAI_E2E_UNSEEN, "valid_unseen"),
    _r("wow", "end2end_f1", 0.1717, _PARLAI_E2E_SEEN, "valid_seen"),
    _r("wow", "end2end_f1", 0.1498, _PARLAI_E2E_UNSEEN, "valid_unseen"),
    _r("wow", "end2end_ppl", 61.21, _PARLAI_E2E_SEEN, "valid_seen"),
    _r("wow", "end2end_ppl", 103.1, _PARLAI_E2E_UNSEEN, "valid_unseen"),
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
    _r("faithdial_audit", "hallucination_share_lower_bound", 0.60, _AUDIT_PAPER, "gold_wow"),
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
    raise UnknownNameError(f"reported number of {dataset!r}", f"{name}@{split or 'all'}", known)
