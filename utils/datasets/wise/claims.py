"""What the WISE chapter states of the official files, checked on the files it ran on.

Each :class:`~utils.book.chapters.Claim` is a sentence of the chapter's text about the official files
(the test file is the union of the seen and unseen test files; Answer turns cite passages more often
than Clarify turns), computed from the records. On a copy that differs the chapter still builds and
says, in a sentence, which of them do not hold (:func:`utils.book.chapters.differences`); the folder's
``tests/test_wise_claims.py`` checks them on the official files where those are present.
"""

from __future__ import annotations

from collections.abc import Mapping

from utils.book.chapters import Claim

from ...loading import LoadedSplit
from . import stats


def check(splits: Mapping[str, LoadedSplit]) -> list[Claim]:
    """Every claim of the chapter about the official files, on ``splits`` (split name to loaded split)."""
    test = [dialogue.id for dialogue in splits["test"]]
    seen = {dialogue.id for dialogue in splits["test_seen"]}
    unseen = {dialogue.id for dialogue in splits["test_unseen"]}
    both, missing = sorted(seen & unseen), sorted(set(test) ^ (seen | unseen))
    claims = [
        Claim("no test conversation is in both the seen and the unseen test file", not both,
              f"in both: {', '.join(both[:5])}"),
        Claim("the test file holds exactly the conversations of the seen and unseen test files",
              not missing and len(test) == len(set(test)),
              f"{len(missing)} conversations in only one side, {len(test) - len(set(test))} repeated"),
    ]
    citations = stats.citation_share(splits["train"])["share"].to_dict()
    answer, clarify = float(citations.get("Answer", 0.0)), float(citations.get("Clarify", 0.0))
    claims.append(Claim("in train, Answer turns cite passages more often than Clarify turns", answer > clarify,
                        f"{answer:.0%} of Answer turns against {clarify:.0%} of Clarify turns"))
    return claims
