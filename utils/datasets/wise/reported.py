"""What WISE's data description reports.

Each number is one the authors (or a page that quotes them) state, with where it stands; the chapters
set them beside what they compute from the loaded data. Nothing here is ever shown as reproduced.
"""

from __future__ import annotations

from ...declaration import Reported, number

#: WISE.md of PengjieRen/CaSE_WISE states "1.9K conversation", "37K utterances" and "an average turn
#: number of 9.2", nothing more; the paper's tables (split sizes, baseline scores) are not readable here
#: and nothing from them is recorded.
_WISE_README = ("WISE data description (WISE.md in the authors' repository)", "ren2021wisedata")

REPORTED: tuple[Reported, ...] = (
    number("wise", "dialogues", 1900, _WISE_README, unit="approx."),
    number("wise", "utterances", 37000, _WISE_README, unit="approx."),
    number("wise", "turns_per_dialogue", 9.2, _WISE_README),
)
