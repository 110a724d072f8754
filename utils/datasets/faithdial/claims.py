"""What the FaithDial chapter states of the official files, checked on the files it ran on.

The chapter's facts about the authors' hallucination audit (how many rows are labelled, how many the
critic can score, how many gold WoW responses are hallucinated) as :class:`~utils.book.chapters.Claim`\\ s
computed from the records. On a copy that differs the chapter still builds and says, in a sentence,
which of them do not hold (:func:`utils.book.chapters.differences`); the folder's
``tests/test_faithdial_claims.py`` checks that all hold on the official files.
"""

from __future__ import annotations

from collections.abc import Mapping

from utils.book.chapters import Claim

from ...loading import Dialogues
from . import baselines, stats

#: Labelled rows of the twelve official audit files, and of those the rows with a response to score
#: (one labelled row has an empty response).
AUDIT_LABELLED, AUDIT_SCORABLE = 2404, 2403
#: Hallucinated (Hallucination or Partial Hallucination) among the labelled gold WoW responses.
GOLD_WOW_HALLUCINATED, GOLD_WOW_LABELLED = 122, 200


def check_audit(audit: Mapping[str, Dialogues]) -> list[Claim]:
    """The chapter's claims about the audit files ``audit`` (split name to records)."""
    rows = stats.audit_rows(audit)
    scorable = len(baselines.audit_examples(rows))
    claims = [
        Claim(f"the twelve audit files hold {AUDIT_LABELLED:,} labelled rows", len(rows) == AUDIT_LABELLED,
              f"{len(rows):,}"),
        Claim(f"{AUDIT_SCORABLE:,} of the labelled rows have a response the critic can score",
              scorable == AUDIT_SCORABLE, f"{scorable:,}"),
    ]
    hallucinated, labelled, _ = stats.hallucination_share(rows, "gold_wow")
    claims.append(Claim(f"{GOLD_WOW_HALLUCINATED} of the {GOLD_WOW_LABELLED} labelled gold WoW responses are "
                        "Hallucination or Partial Hallucination",
                        (hallucinated, labelled) == (GOLD_WOW_HALLUCINATED, GOLD_WOW_LABELLED),
                        f"{hallucinated} of {labelled}"))
    return claims
