"""What the BEGIN chapter states of the official files, checked on the files it ran on.

Each :class:`~utils.book.chapters.Claim` is a sentence of the chapter's text about the official splits
(most responses not fully attributable, the precision gap between the labels, the lexical critic
above both trivial rules on WoW test, ...), computed from the records. On a copy that differs the
chapter still builds and says, in a sentence, which of them do not hold
(:func:`utils.book.chapters.differences`); the folder's ``tests/test_begin_claims.py`` checks that all
hold on the official files.

The critics' frames are costly (a bootstrap per split): the chapter passes the ones it already
computed; a caller without them (a test) gets them computed here from the same records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from utils.book.chapters import Claim

from ...records import Dialogue
from . import baselines, stats
from .parser import FULLY, NOT_FULLY

#: The test split whose critics the chapter's text describes.
MAIN_TEST = "wow_test"


def check(
    splits: Mapping[str, Iterable[Dialogue]],
    *,
    evaluation: pd.DataFrame | None = None,
    evaluation_by_model: pd.DataFrame | None = None,
    improvement: pd.DataFrame | None = None,
) -> list[Claim]:
    """Every claim of the chapter about the official files, on ``splits`` (split name to records).

    ``evaluation``, ``evaluation_by_model`` and ``improvement`` are :func:`baselines.evaluate_on_test`
    (by split, and by split and model) and :func:`baselines.improvement_frame` of the same splits;
    each is computed when not given."""
    rows = stats.response_frame(splits)
    claims = []

    by_split = stats.label_counts_frame(rows, "split")
    not_fully = by_split["Not fully attributable (share)"]
    claims.append(Claim("most responses of every split are not fully attributable", bool(not_fully.min() > 0.5),
                        f"{stats.split_label(str(not_fully.idxmin()))}: {not_fully.min():.0%}"))
    generic = by_split["Generic (share)"]
    claims.append(Claim("Generic responses are most common in CMU-DoG dev", generic.idxmax() == "cmu_dev",
                        f"most common in {stats.split_label(str(generic.idxmax()))}"))

    by_label = baselines.features_by_label(rows)
    fully, not_fully_row = FULLY, NOT_FULLY
    if {fully, not_fully_row} <= set(by_label.index):
        precision = by_label["unigram_precision"].astype(float).to_dict()
        precision_fully, precision_not = precision[fully], precision[not_fully_row]
        claims.append(Claim("the knowledge precision of fully attributable responses is over 30 points above that "
                            "of not fully attributable ones", precision_fully > precision_not + 0.3,
                            f"{precision_fully:.0%} against {precision_not:.0%}"))
        first_person = by_label["first_person"].astype(float).to_dict()
        first_fully, first_not = first_person[fully], first_person[not_fully_row]
        claims.append(Claim("first-person words are more frequent in not fully attributable responses",
                            first_not > first_fully, f"{first_not:.1%} against {first_fully:.1%}"))
    else:
        claims.append(Claim("both attributable and not fully attributable responses occur", False,
                            f"labels: {', '.join(map(str, by_label.index))}"))

    pairs = baselines.dev_test_pairs(list(splits))
    examples = baselines.critic_examples(rows)
    if evaluation is None:
        evaluation = baselines.evaluate_on_test(examples, pairs)
    if evaluation_by_model is None:
        evaluation_by_model = baselines.evaluate_on_test(examples, pairs, by=("split", "model"))
    if improvement is None:
        improvement = baselines.improvement_frame(examples, pairs)

    lexical = evaluation[evaluation["critic"] == baselines.LEXICAL].set_index("split") if len(evaluation) else None
    if lexical is None or MAIN_TEST not in lexical.index:
        claims.append(Claim(f"the critics are evaluated on {stats.split_label(MAIN_TEST)}", False,
                            f"no {MAIN_TEST} split with its dev split among those loaded"))
        return claims
    row = lexical.loc[MAIN_TEST]
    claims.append(Claim(f"on {stats.split_label(MAIN_TEST)} the lexical critic's ROC AUC is above 0.9 over its whole "
                        "interval", bool(row["ROC AUC low"] > 0.9), f"{row['ROC AUC low']:.3f} at its low end"))
    claims.append(Claim(f"on {stats.split_label(MAIN_TEST)} the lexical critic is more accurate than the majority "
                        "class",
                        bool(row["accuracy"] > row["majority accuracy"]),
                        f"{row['accuracy']:.1%} against {row['majority accuracy']:.1%}"))
    claims.append(Claim(f"on {stats.split_label(MAIN_TEST)} the lexical critic's F1 is above flagging every response",
                        bool(row["F1"] > row["flag-all F1"]), f"{row['F1']:.2f} against {row['flag-all F1']:.2f}"))

    per_model = evaluation_by_model[(evaluation_by_model["critic"] == baselines.LEXICAL)
                                    & (evaluation_by_model["split"] == MAIN_TEST)
                                    & (evaluation_by_model["model"] != "all")].set_index("model")
    worst = str(per_model["F1"].idxmin()) if len(per_model) else "no model"
    claims.append(Claim(f"on {stats.split_label(MAIN_TEST)} the lexical critic's F1 is lowest on CTRL's "
                        "responses",
                        worst == "ctrl", f"lowest on {stats.model_names().get(worst, worst)}"))

    gains = improvement.set_index("split")
    if MAIN_TEST in gains.index:
        gain = gains.loc[MAIN_TEST]
        claims.append(Claim(f"on {stats.split_label(MAIN_TEST)} the feature critic's gains in ROC AUC and accuracy "
                            "over the lexical critic lie above zero over their whole intervals",
                            bool(gain["ROC AUC low"] > 0 and gain["accuracy low"] > 0),
                            f"low ends {gain['ROC AUC low']:+.3f} (ROC AUC) and "
                            f"{gain['accuracy low']:+.3f} (accuracy)"))
    return claims
