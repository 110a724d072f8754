"""What Wizard of Wikipedia adds to the book's data viewer (:mod:`utils.book.viewer_files`): its rows' facets,
columns and search words, KILT's examples grouped into their dialogues, and example SQL."""

from __future__ import annotations

from collections.abc import Sequence

from utils.book.viewer_fields import Columns, Facets, rounded_mean, unique_values, word_count
from utils.book.viewer_files import DIALOGUE, SEARCH, Query, SplitRows

from ...records import WIZARD, Dialogue
from .parser import NO_PASSAGES_USED

#: What the dataset's viewer page (``book/viewer/wow.md``, written by the build) says its rows are.
PAGE_ROWS = "Every row of ParlAI's files of every split, and KILT's examples grouped into their dialogues"

#: A dialogue is known by its topic and its first turn. (Hooks found by name: see
#: :mod:`utils.book.viewer_fields`.)
IDENTIFYING = {"dialogues": ("topic", "first turn"), "turns": ("topic", "role", "text", "checked_source")}
#: A wizard turn checks one source (or none), and one knowledge sentence; a KILT turn has one target.
SINGLE_LABELS = ("no passage used", "checked_source", "knowledge", "target")


def kilt_rows(dialogues: Sequence[Dialogue], rows: SplitRows) -> SplitRows:
    """KILT's examples are prefixes of dialogues (one per wizard turn): group them into their dialogues.

    The dialogue row is the longest example, with how many examples the file has of it and their
    ids (searchable); the turn rows are that example's turns, so that no turn is counted twice; the
    evidence rows stay one per example (each names the example it belongs to).
    """
    frame = rows.frames["dialogues"]
    groups = [dialogue.meta.get("wow_dialogue_id") for dialogue in dialogues]
    if not len(frame) or not all(groups):
        return rows
    frame = frame.copy()
    frame["KILT example"], frame["_group"] = frame["id"], groups
    frame["_length"] = frame["turns"]
    ordered = frame.sort_values(["_group", "_length", DIALOGUE])
    examples = ordered.groupby("_group", sort=False)["KILT example"].agg(list)
    longest = ordered.groupby("_group", sort=False).tail(1).set_index("_group")
    grouped = longest.assign(id=longest.index)
    grouped["KILT examples"] = examples.loc[longest.index].map(len).to_numpy()
    grouped["KILT example ids"] = examples.loc[longest.index].to_list()
    grouped = grouped.sort_values(DIALOGUE)
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


QUERIES: tuple[Query, ...] = (
    (
        "Wizard turns with no knowledge used, by topic",
        "SELECT topic, count(*) AS wizard_turns\nFROM turns\n"
        "WHERE role = 'wizard' AND checked_source = 'no_passages_used'\n"
        "GROUP BY topic ORDER BY wizard_turns DESC, topic LIMIT 50",
        ("turns.role", "turns.checked_source"),
    ),
    (
        "Where the wizard's knowledge came from",
        "SELECT checked_source AS source, count(*) AS wizard_turns\nFROM turns WHERE checked_source IS NOT NULL\n"
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


# -- the facets, columns and search words of its rows (its declaration names them) ---------------

#: ``checked_source`` as the file writes it, and as the viewer's facet names it.
WOW_SOURCES = {
    "chosen": "topic passage (chosen)",
    "partner": "apprentice's turn (partner)",
    "self": "wizard's turn (self)",
    NO_PASSAGES_USED: "no passage used",
}


def facets(dialogue: Dialogue) -> Facets:
    """Which source the wizard checked on its turns, and whether it ever used no passage."""
    wizard = dialogue.turns_by(WIZARD)
    sources = [source for turn in wizard for source in turn.labels.get("checked_source", [])]
    if not sources:  # KILT examples carry a provenance, not the wizard's tick
        return {}
    return {
        "checked source": unique_values(WOW_SOURCES.get(source, source) for source in sources),
        "no passage used": ["on some turn" if NO_PASSAGES_USED in sources else "never"],
    }


def columns(dialogue: Dialogue) -> Columns:
    """Turns, the wizard's reply length in words and the knowledge shown per reply."""
    wizard = dialogue.turns_by(WIZARD)
    shown = [len(turn.evidence) for turn in wizard if any(item.origin != "provenance" for item in turn.evidence)]
    return {
        "turns": len(dialogue.turns),
        "reply length (words)": rounded_mean([word_count(turn.text) for turn in wizard]),
        "knowledge shown (sentences per reply)": rounded_mean(shown),
    }


def kilt_columns(dialogue: Dialogue) -> Columns:
    """A KILT example is one wizard turn with the dialogue before it, not a dialogue: its length is the
    context it carries, counted apart from whole dialogues' turns."""
    # The parser puts the answer, when the file has one (the test file has none), last, marked with
    # the index of the output it comes from.
    answered = bool(dialogue.turns) and "output_index" in dialogue.turns[-1].raw
    context = dialogue.turns[:-1] if answered else dialogue.turns
    return {
        "KILT example: turns of context": len(context),
        "reply length (words)": word_count(dialogue.turns[-1].text) if answered else None,
    }
