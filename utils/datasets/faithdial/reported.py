"""What FaithDial's dataset card and the hallucination audit's paper report.

Each number is one the authors (or a page that quotes them) state, with where it stands; the chapters
set them beside what they compute from the loaded data. Nothing here is ever shown as reproduced.
"""

from __future__ import annotations

from ...declaration import LOWER_BOUND, Reported, number

_FAITHDIAL_CARD = ("FaithDial dataset card", "faithdial2022card")
#: the abstract says the standard benchmarks (WoW among them) "consist of >60% hallucinated responses"
_AUDIT_PAPER = ("Dziri et al. (2022c), 'On the Origin of Hallucinations', abstract", "dziri2022origin")

REPORTED: tuple[Reported, ...] = (
    number("faithdial", "turns", 36809, _FAITHDIAL_CARD, "train"),
    number("faithdial", "turns", 6851, _FAITHDIAL_CARD, "valid"),
    number("faithdial", "turns", 7101, _FAITHDIAL_CARD, "test"),
    number("faithdial", "turns", 50761, _FAITHDIAL_CARD),
    number("faithdial", "dialogues", 5649, _FAITHDIAL_CARD),
    number("faithdial_audit", "hallucination_share_lower_bound", 60, _AUDIT_PAPER, "gold_wow", "%", bound=LOWER_BOUND),
)

#: How the tables name these quantities.
QUANTITY_LABELS = {"hallucination_share_lower_bound": "hallucinated responses"}
