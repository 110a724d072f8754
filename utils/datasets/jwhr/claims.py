"""What the JWHR chapter states of the official files, checked on the files it ran on.

Each :class:`~utils.book.chapters.Claim` is a sentence of the chapter's text about the real files (the
one step with no page, the longest trail, the most cited pages, ...). On a copy that differs (a page
renamed, a session left out) the chapter still builds and says, in a sentence, which of them do not
hold (:func:`utils.book.chapters.differences`); the folder's ``tests/test_jwhr_claims.py`` checks that all
hold on the official files.

The baselines' frames (attribution where there is a choice, extractiveness, answerability) are the
chapter's own: it passes the ones it computed; a caller without them (a test) gets them computed here
from the same records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import pandas as pd

from utils.book.chapters import Claim

from ...records import Dialogue
from . import baselines, stats

#: The pages the chapter names as the most cited in answered sessions.
MOST_CITED = ("円相場", "飛行機", "鳥インフルエンザ", "地震")


def check(
    answered: Sequence[Dialogue],
    not_answered: Sequence[Dialogue],
    *,
    choice: pd.DataFrame | None = None,
    extractive: pd.DataFrame | None = None,
    answerability: pd.DataFrame | None = None,
) -> list[Claim]:
    """Every claim of the chapter about the official files, on ``answered`` and ``not_answered``.

    ``choice``, ``extractive`` and ``answerability`` are the chapter's
    ``baselines.attribution_scores(answered, n=2, min_candidates=2)``,
    ``baselines.extractiveness(answered)`` and ``baselines.answerability_scores`` of both chunks'
    trail features; each is computed when not given."""
    splits = {"answered": list(answered), "not answered": list(not_answered)}
    claims = []

    flagged = stats.flagged_steps(splits)
    missing = flagged.loc[flagged["page_missing"], ["session", "step"]].to_numpy().tolist()
    claims.append(Claim("one step has neither a page nor a not-found record: step 4 of answered session 23",
                        missing == [[23, 4]], f"{missing}"))
    as_written = int(flagged["title_as_written"].notna().sum())
    claims.append(Claim("8 page titles have a space or a line break around them", as_written == 8, f"{as_written}"))

    lengths = stats.trail_length_frame(splits)
    longest = {chunk: int(lengths[chunk][lengths[chunk] > 0].index.max()) for chunk in lengths}
    claims.append(Claim("the longest trail has 5 steps in both files",
                        longest["answered"] == longest["not answered"] == 5, f"{longest}"))
    short, long = int(lengths["not answered"].loc[:2].sum()), int(lengths["not answered"].loc[6:].sum())
    claims.append(Claim("at most 5 not-answered sessions have fewer than 3 steps and none more than 5",
                        short <= 5 and long == 0, f"{short} with fewer than 3, {long} with more than 5"))

    summary = stats.summary_frame(splits)

    def cell(row: str, column: str) -> float:
        return float(cast(float, summary.at[row, column]))  # summary_frame's rows are numbers

    for row in ("references per session (mean)", "link steps (share)", "nothing (share of references)"):
        more, fewer = cell(row, "not answered"), cell(row, "answered")
        claims.append(Claim(f"not-answered sessions have more {row} than answered ones", more > fewer,
                            f"{more:.3g} against {fewer:.3g}"))
    quote = cell("quote (share of references)", "answered")
    claims.append(Claim("more than 80% of the answered sessions' references are quotes", quote > 0.8, f"{quote:.0%}"))
    cited = cell("cited references with a quote (share)", "answered")
    claims.append(Claim("more than 90% of the cited references hold a quote", cited > 0.9, f"{cited:.0%}"))
    few = float((stats.session_frame(splits["answered"])["search_steps"] <= 2).mean())
    claims.append(Claim("most answered sessions search at most twice", few > 0.5, f"{few:.0%}"))

    top = stats.top_pages(splits["answered"], k=4, cited_only=True)
    absent = [page for page in MOST_CITED if page not in set(top.index)]
    shown = ", ".join(map(str, top.index))
    claims.append(Claim(f"the most cited pages are {', '.join(MOST_CITED)}", not absent,
                        f"{', '.join(absent)} not among the four most cited; those are {shown}"))

    repeated = stats.duplicate_ids(answered, not_answered)
    claims.append(Claim("no session id occurs twice", not repeated, f"repeated: {repeated[:10]}"))
    claims.extend(_baseline_claims(splits, choice, extractive, answerability))
    return claims


def _baseline_claims(
    splits: dict[str, list[Dialogue]],
    choice: pd.DataFrame | None,
    extractive: pd.DataFrame | None,
    answerability: pd.DataFrame | None,
) -> list[Claim]:
    if choice is None:
        choice = baselines.attribution_scores(splits["answered"], n=2, min_candidates=2)
    if extractive is None:
        extractive = baselines.extractiveness(splits["answered"])
    if answerability is None:
        answerability = baselines.answerability_scores(
            baselines.trail_features(splits["answered"] + splits["not answered"]))

    f1 = choice.set_index("method")["f1"]
    overlap, rivals = float(f1["char 2-gram overlap"]), f1[["random (expected)", "first quoted reference"]]
    claims = [Claim("where there is a choice, character 2-gram overlap attributes sentences with a higher F1 than "
                    "both the random and the first-quote baselines", overlap > float(rivals.max()),
                    f"{overlap:.1%} against {float(rivals.max()):.1%} ({rivals.idxmax()})")]
    copied = float(extractive["covered_share"].median())
    claims.append(Claim("the median answer copies more than half the characters of its quote-citing sentences from "
                        "the cited quotes", copied > 0.5, f"{copied:.0%}"))
    accuracy = answerability.set_index("model")["accuracy"]
    navigation, majority = float(accuracy["logistic regression, navigation only"]), float(accuracy["majority class"])
    claims.append(Claim("a logistic regression on navigation alone predicts answerability more accurately than the "
                        "majority class", navigation > majority, f"{navigation:.1%} against {majority:.1%}"))
    return claims
