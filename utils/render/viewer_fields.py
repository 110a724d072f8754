"""What each dataset adds to the book's data viewer (:mod:`utils.viewer`): row groupings and example SQL.

One section per dataset family, found like :mod:`utils.render.explorer_fields` finds its functions:
a renderer module may define ``viewer_rows(dialogues, rows)`` and ``viewer_queries(rows)``;
otherwise ``_<renderer>_rows`` and ``_<renderer>_queries`` here serve every dataset that renderer
shows. (These sections move to each dataset's own folder with the redesign of the package.)

Example queries read the tables ``dialogues``, ``turns`` and ``evidence`` the SQL console holds;
label columns holding lists are unnested. A query is offered only when the columns it reads are
present in the split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from ..records import Dialogue
from ..sources import get_source
from ..viewer import DIALOGUE, SEARCH, SplitRows

#: (title, SQL, columns it needs as "table.column")
Query = tuple[str, str, tuple[str, ...]]

#: Queries every split gets.
COMMON_QUERIES: tuple[Query, ...] = (
    (
        "Turns and their mean length by role",
        "SELECT role, count(*) AS turns, round(avg(length(text)), 1) AS mean_characters\n"
        "FROM turns GROUP BY role ORDER BY turns DESC",
        ("turns.role", "turns.text"),
    ),
    (
        "The longest dialogues",
        "SELECT id, topic, turns FROM dialogues ORDER BY turns DESC, id LIMIT 20",
        ("dialogues.id", "dialogues.turns"),
    ),
)


# -- Wizard of Wikipedia (raw and KILT) -------------------------------------------------------------


def _wow_rows(dialogues: Sequence[Dialogue], rows: SplitRows) -> SplitRows:
    """KILT's examples are prefixes of dialogues (one per wizard turn): group them into their dialogues.

    The dialogue row is the longest example, with how many examples the file has of it and their
    ids (searchable); the turn rows are that example's turns, so that no turn is counted twice; the
    evidence rows stay one per example (each names the example it belongs to).
    """
    frame = rows.frames["dialogues"]
    groups = [dialogue.meta.get("wow_dialogue_id") for dialogue in dialogues]
    if not len(frame) or not all(groups):
        return rows
    frame = frame.assign(**{"KILT example": frame["id"], "_group": groups})
    frame["_length"] = frame["turns"]
    ordered = frame.sort_values(["_group", "_length", DIALOGUE])
    examples = ordered.groupby("_group", sort=False)["KILT example"].agg(list)
    longest = ordered.groupby("_group", sort=False).tail(1).set_index("_group")
    grouped = longest.assign(
        id=longest.index,
        **{"KILT examples": examples.loc[longest.index].map(len).to_numpy()},
        **{"KILT example ids": examples.loc[longest.index].to_list()},
    ).sort_values(DIALOGUE)
    if SEARCH in grouped:
        grouped[SEARCH] = grouped[SEARCH] + " " + grouped["KILT example ids"].map(" ".join)
    grouped = grouped.drop(columns=["_length", "KILT example"]).reset_index(drop=True)
    keep = set(grouped[DIALOGUE])
    turns = rows.frames["turns"]
    turns = turns[turns[DIALOGUE].isin(keep)].copy()
    group_of = dict(zip(frame[DIALOGUE], frame["_group"], strict=True))
    turns.insert(0, "KILT example", turns["dialogue id"])
    turns["dialogue id"] = turns[DIALOGUE].map(group_of)
    evidence = rows.frames["evidence"].copy()
    evidence.insert(0, "KILT example", evidence["dialogue id"])
    evidence["dialogue id"] = evidence[DIALOGUE].map(group_of)
    note = (
        f"The file's {len(frame):,} examples are prefixes of {len(grouped):,} dialogues (one example per "
        "wizard turn): a dialogue row is its longest example, with the ids of all its examples; turns are "
        "that example's turns; evidence rows name their example."
    )
    return SplitRows(
        frames={"dialogues": grouped, "turns": turns, "evidence": evidence},
        id_columns={**rows.id_columns, "turns": "dialogue id", "evidence": "dialogue id"},
        kinds={
            **rows.kinds,
            "turns": {**rows.kinds.get("turns", {}), "KILT example": "id"},
            "evidence": {**rows.kinds.get("evidence", {}), "KILT example": "id"},
        },
        note=note,
    )


_WOW_QUERIES: tuple[Query, ...] = (
    (
        "Wizard turns with no knowledge used, by topic",
        "SELECT topic, count(*) AS wizard_turns\nFROM turns\n"
        "WHERE role = 'wizard' AND list_contains(checked_source, 'no_passages_used')\n"
        "GROUP BY topic ORDER BY wizard_turns DESC, topic LIMIT 50",
        ("turns.role", "turns.checked_source"),
    ),
    (
        "Where the wizard's knowledge came from",
        "SELECT source, count(*) AS wizard_turns\nFROM (SELECT unnest(checked_source) AS source FROM turns)\n"
        "GROUP BY source ORDER BY wizard_turns DESC",
        ("turns.checked_source",),
    ),
    (
        "Dialogues with the most KILT examples",
        'SELECT id, topic, "KILT examples" FROM dialogues ORDER BY "KILT examples" DESC, id LIMIT 20',
        ("dialogues.KILT examples",),
    ),
    (
        "Most cited Wikipedia pages in the provenance",
        "SELECT title, count(*) AS rows FROM evidence WHERE title IS NOT NULL\n"
        "GROUP BY title ORDER BY rows DESC, title LIMIT 20",
        ("evidence.title",),
    ),
)


def _wow_queries(rows: SplitRows) -> tuple[Query, ...]:
    return _WOW_QUERIES


# -- FaithDial and the hallucination audit ----------------------------------------------------------

_FAITHDIAL_QUERIES: tuple[Query, ...] = (
    (
        "BEGIN labels as written, by role",
        "SELECT role, label, count(*) AS turns\nFROM (SELECT role, unnest(BEGIN) AS label FROM turns)\n"
        "GROUP BY role, label ORDER BY turns DESC",
        ("turns.role", "turns.BEGIN"),
    ),
    (
        "Responses labelled Hallucination, with their text",
        "SELECT \"dialogue id\", turn, text FROM turns\nWHERE list_contains(BEGIN, 'Hallucination') LIMIT 100",
        ("turns.BEGIN", "turns.text"),
    ),
)


def _faithdial_queries(rows: SplitRows) -> tuple[Query, ...]:
    return _FAITHDIAL_QUERIES


# -- WISE -------------------------------------------------------------------------------------------

_WISE_QUERIES: tuple[Query, ...] = (
    (
        "User intents and how often they occur",
        "SELECT intent, count(*) AS turns\nFROM (SELECT unnest(intent) AS intent FROM turns)\n"
        "GROUP BY intent ORDER BY turns DESC",
        ("turns.intent",),
    ),
    (
        "System turns with their English gloss",
        'SELECT "dialogue id", turn, text, "text (English)" FROM turns WHERE role = \'wizard\' LIMIT 100',
        ("turns.role", "turns.text (English)"),
    ),
)


def _wise_queries(rows: SplitRows) -> tuple[Query, ...]:
    return _WISE_QUERIES


# -- Japanese Wikipedia Human Retrieval -------------------------------------------------------------

_JWHR_QUERIES: tuple[Query, ...] = (
    (
        "Sessions by number of search steps",
        "SELECT steps, count(*) AS sessions FROM dialogues GROUP BY steps ORDER BY steps",
        ("dialogues.steps",),
    ),
    (
        "The longest answers",
        'SELECT id, "answer length (characters)" FROM dialogues\n'
        'WHERE "answer length (characters)" IS NOT NULL ORDER BY 2 DESC LIMIT 20',
        ("dialogues.answer length (characters)",),
    ),
)


def _jwhr_queries(rows: SplitRows) -> tuple[Query, ...]:
    return _JWHR_QUERIES


# -- dispatch ---------------------------------------------------------------------------------------


def _hook(dataset: str, kind: str) -> Callable[..., object] | None:
    from . import renderer_module

    own = getattr(renderer_module(dataset), f"viewer_{kind}", None)
    if callable(own):
        return own
    short = get_source(dataset).renderer.rsplit(".", 1)[-1]
    return globals().get(f"_{short}_{kind}")


def dataset_rows(dataset: str, dialogues: Sequence[Dialogue], rows: SplitRows) -> SplitRows:
    """The split's rows as the dataset shows them (unchanged when it has no grouping of its own)."""
    hook = _hook(dataset, "rows")
    return hook(dialogues, rows) if hook else rows  # type: ignore[return-value]


def example_queries(dataset: str, rows: SplitRows) -> list[dict[str, str]]:
    """The example SQL offered for a split: the dataset's own, then the common ones, where their columns exist."""
    hook = _hook(dataset, "queries")
    found: Sequence[Query] = hook(rows) if hook else ()  # type: ignore[assignment]
    present = {f"{level}.{name}" for level, frame in rows.frames.items() for name in _columns(frame)}
    return [
        {"title": title, "sql": sql}
        for title, sql, needs in (*found, *COMMON_QUERIES)
        if all(need in present for need in needs)
    ]


def _columns(frame: pd.DataFrame) -> list[str]:
    # a column with no value at all (a label no turn of this split carries) is not offered
    return [name for name in frame.columns if frame[name].notna().any()]


__all__ = ["COMMON_QUERIES", "dataset_rows", "example_queries"]
