"""Statistics of the Japanese Wikipedia Human Retrieval sessions: trails, citations, lengths, ids.

A session's retrieval trail is the worker's wizard-turn evidence in order; the JWHR format module
reads it back (:func:`~utils.datasets.jwhr.parser.trail` gives :class:`~utils.datasets.jwhr.parser.Step` objects,
:func:`~utils.datasets.jwhr.parser.sentences` the answer's sentences with their citations). The frame
builders give one row per session, per reference and per answer sentence, and :func:`summary_frame`
puts the issue's statistics for answered and not-answered sessions side by side. Every function
takes a loaded split (or a mapping of split names to loaded splits); the chapter passes lists of the
same sessions, materialised once (:data:`utils.loading.Dialogues`). Lengths are in characters, the
natural unit for Japanese.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from utils.book import tables
from utils.book.cjk_fonts import text_as_typed
from utils.book.figures import data_caveat
from utils.book.render.html import esc

from ...loading import Dialogues
from ...records import WIZARD, Dialogue
from ...reported import Reproduced, compare
from .parser import NOT_FOUND, NOTHING, QUOTE, SUMMARY, Step, answered, question, sentences, trail

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

    from ...loading import Provenance

#: Content kinds in display order (``"no page"`` is a link step recorded without its page).
CONTENT_KINDS = (QUOTE, SUMMARY, NOTHING, NOT_FOUND, "no page")


def first_with(
    dialogues: Dialogues, *, origin: str | None = None, content: str | None = None
) -> Dialogue:
    """The first session whose trail has a step reached through ``origin`` and a step holding
    ``content`` (for example a link step and a summary), to show one that has both."""
    for dialogue in dialogues:
        steps = trail(dialogue)
        if (origin is None or any(s.origin == origin for s in steps)) and (
            content is None or any(s.content == content for s in steps)
        ):
            return dialogue
    raise LookupError(f"no session has a {origin or 'any'} step and {content or 'any'} content")


def link_chain(steps: Sequence[Step], index: int) -> list[int]:
    """The step indices from the search that started a chain of links down to step ``index``.

    ``[0, 1, 3]`` means: step 0 was a search, step 1 a link clicked on step 0's page, step 3 a link
    clicked on step 1's page. A referrer that is not an earlier step ends the chain, so a
    self-referring link gives just ``[index]``.
    """
    chain = [index]
    current = steps[index]
    while current.origin == "link" and current.referrer is not None and current.referrer_is_earlier:
        chain.append(current.referrer)
        current = steps[current.referrer]
    return chain[::-1]


def link_depth(steps: Sequence[Step], index: int) -> int:
    """How many links were followed to reach step ``index`` (0 for a search step).

    For every step of a trail use :func:`link_depths`: this walks back the whole chain, so calling it
    once per step costs the square of a chain's length."""
    return len(link_chain(steps, index)) - 1 if steps[index].origin == "link" else 0


def link_depths(steps: Sequence[Step]) -> list[int]:
    """:func:`link_depth` of every step, in one pass over the trail.

    A link's referrer that is an earlier step already has its depth, so a link's depth is its
    referrer's plus one; a chain of n links costs n steps, not n squared (issue 50: one session whose
    links each point at the step before took 12.5 s at 16,000 links)."""
    depths: list[int] = []
    for position, step in enumerate(steps):
        referrer = step.referrer
        follows = step.origin == "link" and step.referrer_is_earlier and referrer is not None and referrer < position
        depths.append(depths[referrer] + 1 if follows and referrer is not None else 0)
    return depths


def session_frame(dialogues: Dialogues) -> pd.DataFrame:
    """One row per session: lengths, trail composition and answer structure."""
    rows = []
    for dialogue in dialogues:
        steps = trail(dialogue)
        answer = sentences(dialogue)
        searches = [s for s in steps if s.origin == "search"]
        cited = [s for s in steps if s.cited]
        row = {
            "id": int(dialogue.meta.get("id", dialogue.id)),
            "answered": answered(dialogue),
            "question_chars": len(question(dialogue)),
            "answer_chars": len(dialogue.turns_by(WIZARD)[0].text) if answered(dialogue) else None,
            "references": len(steps),
            "search_steps": len(searches),
            "link_steps": len(steps) - len(searches),
            "keywords_per_search": _mean([len(s.keywords) for s in searches]),
            "distinct_pages": len({s.url for s in steps if s.title is not None}),
            "max_link_depth": max(link_depths(steps), default=0),
            "sentences": len(answer) if answered(dialogue) else None,
            "citations": sum(len(s.citations) for s in answer) if answered(dialogue) else None,
            "cited_references": len(cited) if answered(dialogue) else None,
        }
        for kind in CONTENT_KINDS:
            row[kind] = sum(1 for s in steps if s.content == kind)
        rows.append(row)
    return pd.DataFrame(rows)


def reference_frame(dialogues: Dialogues) -> pd.DataFrame:
    """One row per reference (trail step), with its session's id and answered flag."""
    rows = []
    for dialogue in dialogues:
        steps = trail(dialogue)
        depths = link_depths(steps)
        for position, step in enumerate(steps):
            rows.append(
                {
                    "id": int(dialogue.meta.get("id", dialogue.id)),
                    "answered": answered(dialogue),
                    "step": step.index,
                    "origin": step.origin,
                    "content": step.content,
                    "keywords": len(step.keywords) if step.origin == "search" else None,
                    "referrer": step.referrer,
                    "referrer_is_earlier": step.referrer_is_earlier,
                    "link_depth": depths[position],
                    "title": step.title,
                    "text_chars": len(step.text),
                    "cited": step.cited,
                }
            )
    return pd.DataFrame(rows)


def sentence_frame(dialogues: Dialogues) -> pd.DataFrame:
    """One row per answer sentence: length, number of citations, what the cited references hold."""
    rows = []
    for dialogue in dialogues:
        steps = trail(dialogue)
        for sentence in sentences(dialogue):
            kinds = [steps[c].content for c in sentence.citations]
            rows.append(
                {
                    "id": int(dialogue.meta.get("id", dialogue.id)),
                    "sentence": sentence.index,
                    "chars": len(sentence.text),
                    "citations": len(sentence.citations),
                    "cites_quote": QUOTE in kinds,
                    "cites_summary_only": bool(kinds) and QUOTE not in kinds,
                }
            )
    return pd.DataFrame(rows, columns=["id", "sentence", "chars", "citations", "cites_quote", "cites_summary_only"])


def id_gaps(*splits: Dialogues) -> list[tuple[int, int]]:
    """Record ids missing between 1 and the largest id, over all the given splits together, as
    ``(first, last)`` ranges: one huge id (5,000,000 or 10**9) is one range, not millions of ids."""
    ids = sorted({int(d.meta.get("id", d.id)) for split in splits for d in split})
    gaps, expected = [], 1
    for value in ids:
        if value > expected:
            gaps.append((expected, value - 1))
        expected = max(expected, value + 1)
    return gaps


#: Most gap ranges a page lists; the rest are counted.
GAPS_LISTED = 20


def id_gaps_text(gaps: Sequence[tuple[int, int]], limit: int = GAPS_LISTED) -> str:
    """The ranges of :func:`id_gaps` for a page: ``"82, 88, 368–370"``, at most ``limit`` of them and
    then how many more (and how many ids they hold), ``"none"`` for none."""
    if not gaps:
        return "none"
    # ids are names, not amounts: written as the files write them, without thousands separators
    shown = ", ".join(f"{first}" if first == last else f"{first}–{last}" for first, last in gaps[:limit])
    rest = gaps[limit:]
    if not rest:
        return shown
    ids = sum(last - first + 1 for first, last in rest)
    return f"{shown} and {len(rest):,} more range{'s' if len(rest) > 1 else ''} ({ids:,} ids)"


def duplicate_ids(*splits: Dialogues) -> list[int]:
    """Record ids that occur more than once over all the given splits."""
    seen: dict[int, int] = {}
    for split in splits:
        for dialogue in split:
            key = int(dialogue.meta.get("id", dialogue.id))
            seen[key] = seen.get(key, 0) + 1
    return sorted(key for key, count in seen.items() if count > 1)


def trail_length_frame(splits: Mapping[str, Dialogues]) -> pd.DataFrame:
    """Sessions per number of trail steps, one column per split (index: steps, 0 to the longest).

    Shows what the dataset card does not say: whether the collection bounded the trails (both
    chunks of the published files stop at exactly five steps, and not-answered sessions start at
    three).
    """
    counts = {name: pd.Series([len(trail(d)) for d in dialogues]).value_counts() for name, dialogues in splits.items()}
    longest = max((int(c.index.max()) for c in counts.values() if len(c)), default=0)
    frame = pd.DataFrame({name: c.reindex(range(longest + 1), fill_value=0) for name, c in counts.items()})
    frame.index.name = "steps"
    return frame.astype(int)


def summary_frame(splits: Mapping[str, Dialogues]) -> pd.DataFrame:
    """The chapter's statistics, one column per split (for example answered / not answered)."""
    columns = {}
    for name, dialogues in splits.items():
        dialogues = list(dialogues)
        sessions = session_frame(dialogues)
        references = reference_frame(dialogues)
        answer_sentences = sentence_frame(dialogues)
        columns[name] = _summary(sessions, references, answer_sentences)
    return pd.DataFrame(columns)


def _summary(sessions: pd.DataFrame, references: pd.DataFrame, answer: pd.DataFrame) -> dict[str, float]:
    n_refs = len(references)
    searches = references[references["origin"] == "search"] if n_refs else references
    out: dict[str, float] = {
        "sessions": len(sessions),
        "references per session (mean)": sessions["references"].mean(),
        "references per session (median)": sessions["references"].median(),
        "sessions without references": int((sessions["references"] == 0).sum()),
        "search steps (share)": _share(references, "origin", "search"),
        "link steps (share)": _share(references, "origin", "link"),
        "links not pointing back (count)": int((~references["referrer_is_earlier"]).sum()) if n_refs else 0,
        "max link depth": sessions["max_link_depth"].max(),
    }
    for kind in CONTENT_KINDS:
        out[f"{kind} (share of references)"] = _share(references, "content", kind)
    out["keywords per search (mean)"] = searches["keywords"].mean() if len(searches) else float("nan")
    out["distinct pages per session (mean)"] = sessions["distinct_pages"].mean()
    out["question length, chars (mean)"] = sessions["question_chars"].mean()
    has_answer = sessions[sessions["answered"]]
    out["answer length, chars (mean)"] = has_answer["answer_chars"].mean() if len(has_answer) else float("nan")
    out["sentences per answer (mean)"] = has_answer["sentences"].mean() if len(has_answer) else float("nan")
    out["citations per sentence (mean)"] = answer["citations"].mean() if len(answer) else float("nan")
    out["sentences with several citations (share)"] = (answer["citations"] > 1).mean() if len(answer) else float("nan")
    out["sentences without citation (share)"] = (answer["citations"] == 0).mean() if len(answer) else float("nan")
    cited = references[references["cited"]] if n_refs else references
    out["cited references with a quote (share)"] = _share(cited, "content", QUOTE)
    return out


def _share(frame: pd.DataFrame, column: str, value: str) -> float:
    return float((frame[column] == value).mean()) if len(frame) else float("nan")


def _mean(values: list[int]) -> float | None:
    return sum(values) / len(values) if values else None


def reported_vs_reproduced(splits: Mapping[str, Dialogues]) -> pd.DataFrame:
    """Session counts the dataset card reports beside the counts in the loaded splits.

    ``splits`` maps a split name of the card (``"answered"``, ``"not_answered"``) to a loaded split.
    Returns :func:`utils.reported.compare`'s table: a count is checked only when its split is a
    complete official file (a demo sample, a partial copy or a plain list of dialogues is shown,
    not checked).
    """
    computed = {}
    for name, dialogues in splits.items():
        provenance = getattr(dialogues, "provenance", None)
        kinds = (provenance.kind,) if provenance is not None else ()
        computed[("sessions", name)] = Reproduced(len(dialogues), kinds)
    return compare("jwhr", computed)


def top_pages(dialogues: Dialogues, k: int = 15, *, cited_only: bool = False) -> pd.Series:
    """The ``k`` page titles visited (or cited) in the most sessions."""
    counts: dict[str, int] = {}
    for dialogue in dialogues:
        titles = {s.title for s in trail(dialogue) if s.title is not None and (s.cited or not cited_only)}
        for title in titles:
            counts[title] = counts.get(title, 0) + 1
    series = pd.Series(counts, dtype=int, name="sessions").sort_values(ascending=False, kind="stable")
    return series.head(k)


def flagged_steps(splits: Mapping[str, Iterable[Dialogue]]) -> pd.DataFrame:
    """The steps the parser flagged: recorded without a page, or with a title it had to strip.

    One row per flagged step: the chunk (the key of ``splits``), session id, step index, how the
    step was reached, what was taken, whether the page is missing, the title as written in the
    file (``None`` when it needed no stripping) and the stripped title.
    """
    rows = []
    for chunk, dialogues in splits.items():
        for dialogue in dialogues:
            for evidence in dialogue.turns_by(WIZARD)[0].evidence:
                meta = evidence.meta
                if not (meta.get("page_missing") or "title_as_written" in meta):
                    continue
                rows.append(
                    {
                        "chunk": chunk,
                        "session": int(dialogue.meta.get("id", dialogue.id)),
                        "step": int(meta.get("index", evidence.id)),
                        "origin": evidence.origin,
                        "content": meta.get("content", ""),
                        "page_missing": bool(meta.get("page_missing", False)),
                        "title_as_written": meta.get("title_as_written"),
                        "title": evidence.title,
                    }
                )
    return pd.DataFrame(rows, columns=list(_FLAGGED_LABELS))


# -- tables for readers ----------------------------------------------------------------------------
# Each *_view turns a frame of this module into a utils.book.tables.Table: human labels with units,
# counts as integers, shares as percentages, Japanese text marked lang="ja", dashes explained.

#: Rows of :func:`summary_frame` as the chapter shows them: label, how the value is shown, decimals.
SUMMARY_ROWS: dict[str, tuple[str, str, int]] = {
    "sessions": ("sessions", "count", 0),
    "references per session (mean)": ("steps (references) per session, mean", "mean", 2),
    "references per session (median)": ("steps per session, median", "median", 1),
    "sessions without references": ("sessions without any step", "count", 0),
    "search steps (share)": ("steps reached by a search (% of steps)", "share", 1),
    "link steps (share)": ("steps reached by a link (% of steps)", "share", 1),
    "links not pointing back (count)": ("links whose referrer is not an earlier step", "count", 0),
    "max link depth": ("longest chain of links followed (links)", "count", 0),
    "quote (share of references)": ("steps yielding a quote (% of steps)", "share", 1),
    "summary (share of references)": ("steps yielding a summary (% of steps)", "share", 1),
    "nothing (share of references)": ("steps yielding nothing (% of steps)", "share", 1),
    "not found (share of references)": ("searches that found no article (% of steps)", "share", 1),
    "no page (share of references)": ("steps recorded without their page (% of steps)", "share", 1),
    "keywords per search (mean)": ("keywords per search, mean", "mean", 2),
    "distinct pages per session (mean)": ("distinct pages per session, mean", "mean", 2),
    "question length, chars (mean)": ("question length in characters, mean", "mean", 1),
    "answer length, chars (mean)": ("answer length in characters, mean", "mean", 1),
    "sentences per answer (mean)": ("sentences per answer, mean", "mean", 2),
    "citations per sentence (mean)": ("citations per answer sentence, mean", "mean", 2),
    "sentences with several citations (share)": ("answer sentences citing several steps (% of sentences)", "share", 1),
    "sentences without citation (share)": ("answer sentences citing no step (% of sentences)", "share", 1),
    "cited references with a quote (share)": ("cited steps holding a quote (% of cited steps)", "share", 1),
}

_FLAGGED_LABELS = {
    "chunk": "Chunk",
    "session": "Session",
    "step": "Step",
    "origin": "Reached by",
    "content": "Taken from the page",
    "page_missing": "Page missing",
    "title_as_written": "Title as written",
    "title": "Title used",
}

#: How whitespace around a title as written is made visible.
_WHITESPACE_MARKS = {" ": "␣", "\u3000": "␣", "\n": "⏎", "\r": "⏎", "\t": "⇥"}


def _caption(text: str, data: Iterable[Provenance]) -> str:
    return f"{data_caveat(data)} {text}".strip()


def _ja(value: object) -> str:
    """Japanese dataset text as escaped HTML marked ``lang="ja"``; an empty value as the dash."""
    if value is None or (isinstance(value, float) and pd.isna(value)) or value == "":
        return tables.EMPTY
    if isinstance(value, (tuple, list)):
        value = "、".join(str(item) for item in value)
    return f'<span lang="ja">{esc(value)}</span>'


def _mark_japanese(table: tables.Table, columns: Iterable[str]) -> tables.Table:
    table.styler.format(_ja, subset=list(columns))
    return table


def _left(table: tables.Table, columns: Iterable[str]) -> tables.Table:
    """Text columns read from the left (a notebook's own style right-aligns every cell)."""
    table.styler.set_properties(subset=list(columns), **{"text-align": "left"})
    return table


def _readable(table: tables.Table, column: str) -> tables.Table:
    """A column of sentences keeps a readable width on a phone (the table scrolls instead)."""
    table.styler.set_properties(subset=[column], **{"min-width": "14em"})
    return table


def _visible_whitespace(text: object) -> str:
    """``'歩行補助車\\n'`` as ``歩行補助車⏎``: the spaces and line breaks around a title made visible."""
    if not isinstance(text, str):
        return tables.EMPTY
    core = text.strip()
    start = text.find(core) if core else len(text)
    lead, tail = text[:start], text[start + len(core) :]

    def mark(part: str) -> str:
        return "".join(_WHITESPACE_MARKS.get(char, "␣") for char in part)

    return f'{mark(lead)}<span lang="ja">{esc(core)}</span>{mark(tail)}'


def summary_table(summary: pd.DataFrame, *, data: Iterable[Provenance] = ()) -> tables.Table:
    """:func:`summary_frame` for readers: one row per statistic, one column per chunk.

    Counts are integers, shares percentages with one decimal, means with one or two decimals (as
    the row label says); a statistic that does not apply (an answer of a not-answered session) is
    a dash. ``data`` are the provenances of the splits summarised (a demo sample is named in the
    caption).
    """
    rows = [row for row in SUMMARY_ROWS if row in summary.index]
    columns = [str(column) for column in summary.columns]
    frame = summary.loc[rows].set_axis(columns, axis="columns")
    table = tables.table(
        frame,
        index="Statistic",
        row_labels={row: SUMMARY_ROWS[row][0] for row in rows},
        labels={column: column.capitalize() for column in columns},
        decimals=dict.fromkeys(columns, 2),
        caption=_caption("Trails, pages and answers of the two chunks, computed from the files loaded here.", data),
        notes=["Steps are the references of a session's trail, in the order the worker recorded them."],
        empty_note="– not applicable: a not-answered session has no answer and cites nothing",
    )
    shows = {"count": tables.integer, "share": tables.percent, "mean": tables.decimal, "median": tables.median_count}
    for position, row in enumerate(rows):
        _, kind, places = SUMMARY_ROWS[row]
        show = shows[kind]
        formatter = (
            show if kind in ("count", "median") else (lambda value, show=show, places=places: show(value, places))
        )
        table.styler.format(formatter, subset=pd.IndexSlice[[position], columns])
    return _left(table, ["Statistic"])


def turns_table(dialogue: Dialogue, width: int = 60) -> tables.Table:
    """The session's turns as the atlas records them: role, speaker, evidence count, text (cut)."""
    rows = [
        {
            "role": turn.role,
            "speaker": turn.speaker,
            "evidence": len(turn.evidence),
            "text": turn.text if len(turn.text) <= width else turn.text[:width] + "…",
        }
        for turn in dialogue.turns
    ]
    table = tables.table(
        pd.DataFrame(rows, columns=["role", "speaker", "evidence", "text"]),
        labels={
            "role": "Role",
            "speaker": "Speaker",
            "evidence": "Evidence (trail steps)",
            "text": f"Text (first {width} characters)",
        },
        integers=["evidence"],
        caption=f"Session {dialogue.id} as two turns of the atlas's records.",
        empty_note="– no text: a not-answered session keeps an empty answer turn",
    )
    return _readable(_left(_mark_japanese(table, ["text"]), ["role", "speaker", "text"]), "text")


def trail_table(dialogue: Dialogue) -> tables.Table:
    """The session's trail, one row per step: how it was reached, the page, what was taken, who cites it."""
    rows = []
    for step in trail(dialogue):
        taken = step.content in (QUOTE, SUMMARY)
        rows.append(
            {
                "step": step.index,
                "reached": "search" if step.origin == "search" else f"link from step {step.referrer}",
                "keywords": step.keywords if step.origin == "search" else None,
                "title": step.title,
                "content": step.content,
                "chars": len(step.text) if taken else None,
                "cited_by": ", ".join(str(i + 1) for i in step.cited_by) if step.cited else "not cited",
            }
        )
    table = tables.table(
        pd.DataFrame(rows, columns=["step", "reached", "keywords", "title", "content", "chars", "cited_by"]),
        labels={
            "step": "Step",
            "reached": "Reached by",
            "keywords": "Search keywords",
            "title": "Page",
            "content": "Taken from the page",
            "chars": "Characters taken",
            "cited_by": "Cited by answer sentence",
        },
        integers=["step", "chars"],
        caption=f"The trail of session {dialogue.id}, in the order the worker recorded it (steps from 0).",
        empty_note="– not applicable: a link step has no keywords, a search that found nothing has no page, "
        "and nothing is taken when the step yields no quote or summary",
        unbroken=["reached", "keywords", "title"],  # short labels on one line: on a phone the table scrolls
    )
    return _left(_mark_japanese(table, ["keywords", "title"]), ["reached", "keywords", "title", "content", "cited_by"])


def sentences_table(dialogue: Dialogue) -> tables.Table:
    """The answer's sentences (numbered from 1, as in the rendering) and the steps each cites."""
    rows = [
        {
            "sentence": sentence.index + 1,
            "text": sentence.text,
            "chars": len(sentence.text),
            "cites": ", ".join(str(c) for c in sentence.citations) if sentence.citations else "none",
        }
        for sentence in sentences(dialogue)
    ]
    table = tables.table(
        pd.DataFrame(rows, columns=["sentence", "cites", "chars", "text"]),
        labels={"sentence": "Sentence", "cites": "Cites steps", "chars": "Characters", "text": "Text"},
        integers=["sentence", "chars"],
        caption=f"The answer of session {dialogue.id}, sentence by sentence, with the trail steps each cites.",
    )
    return _readable(_left(_mark_japanese(table, ["text"]), ["text", "cites"]), "text")


def flagged_table(flagged: pd.DataFrame, *, data: Iterable[Provenance] = ()) -> tables.Table:
    """:func:`flagged_steps` for readers: the whitespace around a title as written made visible."""
    found = len(flagged)
    what = f"{found} flagged step{'s' if found != 1 else ''}" if found else "No flagged step"
    table = tables.table(
        flagged,
        # the page_missing flag is the "no page" content already
        labels={key: label for key, label in _FLAGGED_LABELS.items() if key != "page_missing"},
        integers=["session", "step"],
        caption=_caption(f"{what} in the files loaded here.", data),
        notes=["␣ marks a space and ⏎ a line break that the title as written has around it."],
        empty_note="– not applicable: the page is missing, or the title needed no stripping",
        unbroken=["chunk", "title_as_written", "title"],  # short labels on one line: on a phone the table scrolls
    )
    table.styler.format(_visible_whitespace, subset=["title_as_written"])
    return _left(_mark_japanese(table, ["title"]), ["chunk", "origin", "content", "title_as_written", "title"])


# -- figures -------------------------------------------------------------------------------------
# Each returns a matplotlib Figure at most 7.5 in wide with text of at least 9 pt; the chapter shows
# it through utils.book.figures.figure with a caption and the alt text built by the *_alt functions.
# Labels are English; Japanese page titles need a CJK font (utils.book.cjk_fonts.use_cjk_font).

#: Colours of answered and not-answered sessions in every JWHR figure: Okabe and Ito's blue and
#: vermillion, told apart by readers with any common colour-vision deficiency.
SESSION_COLOURS = {"answered": "#0072B2", "not answered": "#D55E00"}
#: Text sizes in points: nothing under 9 pt at the figure's printed width.
FIGURE_FONTS: dict[RcKeyType, Any] = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "figure.titlesize": 11,
}


@text_as_typed
def plot_trails(splits: Mapping[str, Dialogues]) -> Any:
    """Six panels in a 3 x 2 grid comparing the splits' trails: length, pages, search/link, contents,
    keywords, depth; one legend for the figure, each bar a share of the chunk's sessions, steps or searches."""
    import matplotlib.pyplot as plt

    frames = {name: (session_frame(d), reference_frame(d)) for name, d in ((n, list(v)) for n, v in splits.items())}
    with plt.rc_context(FIGURE_FONTS):
        fig, axes = plt.subplots(3, 2, figsize=(7.5, 9.0))
        _hist(axes[0, 0], {n: s["references"] for n, (s, _) in frames.items()}, "steps per session", "steps",
              "share of sessions")
        _hist(axes[0, 1], {n: s["distinct_pages"] for n, (s, _) in frames.items()}, "distinct pages per session",
              "pages", "share of sessions")
        _bars(axes[1, 0], {n: r["origin"].value_counts(normalize=True) for n, (_, r) in frames.items()},
              ["search", "link"], "how each step was reached")
        _bars(axes[1, 1], {n: r["content"].value_counts(normalize=True) for n, (_, r) in frames.items()},
              list(CONTENT_KINDS), "what was taken from the page")
        _hist(axes[2, 0], {n: r["keywords"].dropna() for n, (_, r) in frames.items()}, "keywords per search",
              "keywords", "share of searches")
        _hist(axes[2, 1], {n: r["link_depth"] for n, (_, r) in frames.items()}, "links followed to reach a step",
              "links", "share of steps")
        _legend(fig, {name: len(sessions) for name, (sessions, _) in frames.items()})
    return fig


@text_as_typed
def plot_answers(dialogues: Dialogues, not_answered: Dialogues = ()) -> Any:
    """Four panels in a 2 x 2 grid: sentences per answer, citations per sentence, question lengths
    (answered and, when given, not-answered sessions) and answer lengths, in characters."""
    import matplotlib.pyplot as plt

    dialogues, not_answered = list(dialogues), list(not_answered)
    sessions, sentence_rows = session_frame(dialogues), sentence_frame(dialogues)
    questions = {"answered": sessions["question_chars"]}
    counts = {"answered": len(sessions)}
    if not_answered:
        questions["not answered"] = session_frame(not_answered)["question_chars"]
        counts["not answered"] = len(not_answered)
    with plt.rc_context(FIGURE_FONTS):
        fig, axes = plt.subplots(2, 2, figsize=(7.5, 6.0))
        _hist(axes[0, 0], {"answered": sessions["sentences"].dropna()}, "sentences per answer", "sentences",
              "share of answers")
        _hist(axes[0, 1], {"answered": sentence_rows["citations"]}, "citations per answer sentence", "citations",
              "share of sentences")
        _hist(axes[1, 0], questions, "question length", "characters", "share of sessions", bins=30)
        _hist(axes[1, 1], {"answered": sessions["answer_chars"].dropna()}, "answer length", "characters",
              "share of answers", bins=30)
        _legend(fig, counts)
    return fig


@text_as_typed
def plot_top_pages(dialogues: Dialogues, k: int = 15) -> Any:
    """The pages cited in the most answers, as a horizontal bar chart (Japanese titles)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    top = top_pages(dialogues, k, cited_only=True)
    with plt.rc_context(FIGURE_FONTS):
        fig, ax = plt.subplots(figsize=(6.5, 0.3 * max(len(top), 3) + 1.0))
        ax.barh(list(top.index)[::-1], list(top.to_numpy())[::-1], color=SESSION_COLOURS["answered"])
        ax.set_xlabel("answers citing the page")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        fig.tight_layout()
    return fig


def trails_alt(summary: pd.DataFrame) -> str:
    """Alt text for :func:`plot_trails`, with the numbers of :func:`summary_frame` it depicts."""
    parts = []
    for name in summary.columns:
        column = summary[name]
        parts.append(
            f"{str(name).capitalize()} ({_sessions(int(column['sessions']))}): "
            f"{column['references per session (mean)']:.1f} steps and "
            f"{column['distinct pages per session (mean)']:.1f} distinct pages per session on average, "
            f"{column['link steps (share)']:.0%} of steps reached by a link, "
            f"{column['quote (share of references)']:.0%} yielding a quote and "
            f"{column['nothing (share of references)']:.0%} yielding nothing, "
            f"{column['keywords per search (mean)']:.1f} keywords per search, "
            f"links followed at most {int(column['max link depth'])} deep"
        )
    return "Six histograms and bar charts comparing the trails of the chunks. " + "; ".join(parts) + "."


def answers_alt(summary: pd.DataFrame, answered: str = "answered") -> str:
    """Alt text for :func:`plot_answers`, with the means of :func:`summary_frame` it depicts."""
    column = summary[answered]
    questions = ", ".join(
        f"{float(cast(float, summary.at['question length, chars (mean)', name])):.0f} characters for {name} sessions"
        for name in summary.columns
    )
    return (
        f"Four histograms over the answered sessions ({_sessions(int(column['sessions']))}): "
        f"{column['sentences per answer (mean)']:.1f} sentences per answer and "
        f"{column['citations per sentence (mean)']:.2f} citations per sentence on average; "
        f"mean question length {questions}; mean answer length {column['answer length, chars (mean)']:.0f} characters."
    )


def top_pages_alt(top: pd.Series) -> str:
    """Alt text for :func:`plot_top_pages`: every bar, title and count."""
    if top.empty:
        return "An empty bar chart: no answer cites a page."
    bars = ", ".join(f"{title} ({count})" for title, count in top.items())
    return f"Horizontal bars for the {len(top)} pages cited in the most answers, with the answers citing each: {bars}."


def _sessions(count: int) -> str:
    return f"{count:,} session{'s' if count != 1 else ''}"


def _hist(
    ax: Any, series: dict[str, pd.Series], title: str, unit: str, share_of: str, bins: int | None = None
) -> None:
    """Histograms whose bars are shares of each series, side by side in each bin (bars laid over one
    another would mix the two colours into a third); unit-wide bins unless ``bins`` is given."""
    values = {name: pd.to_numeric(s, errors="coerce").dropna() for name, s in series.items()}
    top = max((int(v.max()) for v in values.values() if len(v)), default=1)
    if bins is None:
        edges = [x - 0.5 for x in range(0, top + 2)]
    else:  # the same edges for every series, so that their bars compare
        low = min((float(v.min()) for v in values.values() if len(v)), default=0.0)
        high = max((float(v.max()) for v in values.values() if len(v)), default=1.0)
        edges = [low + (high - low) * i / bins for i in range(bins + 1)] if high > low else [low - 0.5, low + 0.5]
    names = list(values)
    ax.hist(
        [values[name].to_numpy() for name in names],
        bins=edges,
        weights=[[1 / len(values[name])] * len(values[name]) if len(values[name]) else [] for name in names],
        color=[SESSION_COLOURS.get(name) for name in names],
    )
    ax.set_title(title)
    ax.set_xlabel(unit)
    ax.set_ylabel(share_of)


def _bars(ax: Any, shares: dict[str, pd.Series], order: list[str], title: str) -> None:
    width = 0.8 / max(len(shares), 1)
    for offset, (name, series) in enumerate(shares.items()):
        heights = [float(series.get(key, 0.0)) for key in order]
        positions = [i + offset * width for i in range(len(order))]
        ax.bar(positions, heights, width=width, color=SESSION_COLOURS.get(name))
    ax.set_xticks([i + width * (len(shares) - 1) / 2 for i in range(len(order))], order, rotation=20)
    ax.set_title(title)
    ax.set_ylabel("share of steps")


def _legend(fig: Any, sessions: Mapping[str, int]) -> None:
    """One legend above the panels (a legend inside a panel hides its bars), then a tight layout."""
    from matplotlib.patches import Patch

    handles = [Patch(color=SESSION_COLOURS.get(name), label=f"{name} ({_sessions(count)})")
               for name, count in sessions.items()]
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.95 if fig.get_figheight() < 7 else 0.965))
