"""What the Wizard of Wikipedia chapter states of the files, checked on the files it ran on.

The chapter says that ParlAI's example counts hang together on every split (each turn one example
of the default teacher; the three wizard teachers count the same examples; every turn but one per
dialogue is a wizard's or an apprentice's example) and that every KILT example has an answer. Each is
a :class:`~utils.book.chapters.Claim` computed from the records; on a copy where one does not hold the
chapter still builds and says so in a sentence (:func:`utils.book.chapters.differences`). The folder's
``tests/test_wow_claims.py`` checks them on the real files and on a split built to break them.
"""

from __future__ import annotations

from collections.abc import Mapping

from utils.book.chapters import Claim

from ...loading import LoadedSplit
from . import stats


def _claim(statement: str, broken: list[str]) -> Claim:
    return Claim(statement, not broken, f"not in {', '.join(broken)}")


def check(splits: Mapping[str, LoadedSplit], kilt_dev: LoadedSplit | None = None) -> list[Claim]:
    """Every claim of the chapter about its raw ``splits`` (name to split) and ``kilt_dev``."""
    default, wizard_teachers, wizard_or_apprentice, roles = [], [], [], []
    for name, split in splits.items():
        examples = stats.parlai_examples(split)
        turns = len(split.turns(["dialogue_index"]))  # the labels, a dict per turn, left undecoded
        if examples["wizard_of_wikipedia"] != turns:
            default.append(name)
        if not examples["generator"] == examples["wizard_dialog_knowledge"] == examples["basic_wizard_dialog"]:
            wizard_teachers.append(name)
        if examples["generator"] + examples["basic_apprentice_dialog"] != turns - len(split):
            wizard_or_apprentice.append(name)
        values = stats.summary(split)
        if values["wizard_turns"] + values["apprentice_turns"] != turns:
            roles.append(name)
    claims = [
        _claim("in every split each turn is one example of ParlAI's default teacher", default),
        _claim("in every split the generator, wizard_dialog_knowledge and basic_wizard_dialog teachers count the "
               "same examples", wizard_teachers),
        _claim("in every split every turn but one per dialogue is a wizard's or an apprentice's example",
               wizard_or_apprentice),
        _claim("in every split every turn is the wizard's or the apprentice's", roles),
    ]
    if kilt_dev is not None:
        kilt = stats.kilt_summary(kilt_dev)
        claims.append(Claim("every KILT example has an answer", kilt["answers"] == kilt["examples"],
                            f"{kilt['answers']:,.0f} answers for {kilt['examples']:,.0f} examples"))
    return claims
