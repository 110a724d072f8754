"""What the JWHR dataset card reports.

Each number is one the authors (or a page that quotes them) state, with where it stands; the chapters
set them beside what they compute from the loaded data. Nothing here is ever shown as reproduced.
"""

from __future__ import annotations

from ...declaration import Reported, number

_JWHR_CARD = ("Japanese Wikipedia Human Retrieval dataset card", "oda2023jwhr")

REPORTED: tuple[Reported, ...] = (
    number("jwhr", "sessions", 838, _JWHR_CARD, "answered"),
    number("jwhr", "sessions", 433, _JWHR_CARD, "not_answered"),
)
