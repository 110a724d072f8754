"""Statistics of the Japanese Wikipedia Human Retrieval sessions: trails, citations, lengths, ids.

A session's retrieval trail is the worker's wizard-turn evidence in order; the JWHR format module
reads it back (:func:`~utils.formats.jwhr.trail` gives :class:`~utils.formats.jwhr.Step` objects,
:func:`~utils.formats.jwhr.sentences` the answer's sentences with their citations). The frame
builders give one row per session, per reference and per answer sentence, and :func:`summary_table`
puts the issue's statistics for answered and not-answered sessions side by side. Every function
takes a loaded split (or a mapping of split names to loaded splits); the chapter passes lists of the
same sessions, materialised once (:data:`utils.loading.Dialogues`). Lengths are in characters, the
natural unit for Japanese.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..formats.jwhr import NOT_FOUND, NOTHING, QUOTE, SUMMARY, Step, answered, question, sentences, trail
from ..loading import Dialogues
from ..records import WIZARD, Dialogue

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
    """How many links were followed to reach step ``index`` (0 for a search step)."""
    return len(link_chain(steps, index)) - 1 if steps[index].origin == "link" else 0


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
            "max_link_depth": max((link_depth(steps, s.index) for s in steps), default=0),
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
        for step in steps:
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
                    "link_depth": link_depth(steps, step.index),
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


def id_gaps(*splits: Dialogues) -> list[int]:
    """Record ids missing between 1 and the largest id, over all the given splits together."""
    ids = {int(d.meta.get("id", d.id)) for split in splits for d in split}
    return [i for i in range(1, max(ids, default=0) + 1) if i not in ids]


def duplicate_ids(*splits: Dialogues) -> list[int]:
    """Record ids that occur more than once over all the given splits."""
    seen: dict[int, int] = {}
    for split in splits:
        for dialogue in split:
            key = int(dialogue.meta.get("id", dialogue.id))
            seen[key] = seen.get(key, 0) + 1
    return sorted(key for key, count in seen.items() if count > 1)


def summary_table(splits: Mapping[str, Dialogues]) -> pd.DataFrame:
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


def cited_content(dialogues: Dialogues) -> pd.Series:
    """How many cited references hold a quote, a summary or something else (each reference once)."""
    frame = reference_frame(dialogues)
    if frame.empty:
        return pd.Series(dtype=int)
    return frame[frame["cited"]]["content"].value_counts().reindex(CONTENT_KINDS, fill_value=0)


def _share(frame: pd.DataFrame, column: str, value: str) -> float:
    return float((frame[column] == value).mean()) if len(frame) else float("nan")


def _mean(values: list[int]) -> float | None:
    return sum(values) / len(values) if values else None


def reported_vs_reproduced(splits: Mapping[str, Dialogues]) -> pd.DataFrame:
    """Session counts the dataset card reports beside the counts in the loaded splits.

    ``splits`` maps a split name (``"answered"``, ``"not_answered"``) to a loaded split. The
    ``checked`` column says whether the chapter asserts the match: only for a full official split.
    """
    from ..reported import reported_value

    rows = []
    for name, dialogues in splits.items():
        claim = reported_value("jwhr", "sessions", name)
        provenance = getattr(dialogues, "provenance", None)
        full = bool(provenance is not None and provenance.is_full)
        rows.append(
            {
                "split": name,
                "quantity": "sessions",
                "reported": int(claim.value),
                "reproduced": len(dialogues),
                "match": len(dialogues) == claim.value,
                "checked": "asserted (full official split)" if full else f"not asserted ({_kind(provenance)})",
                "source": claim.source,
            }
        )
    return pd.DataFrame(rows)


def _kind(provenance: object) -> str:
    return str(getattr(provenance, "kind", "a list of dialogues"))


def top_pages(dialogues: Dialogues, k: int = 15, *, cited_only: bool = False) -> pd.Series:
    """The ``k`` page titles visited (or cited) in the most sessions."""
    counts: dict[str, int] = {}
    for dialogue in dialogues:
        titles = {s.title for s in trail(dialogue) if s.title is not None and (s.cited or not cited_only)}
        for title in titles:
            counts[title] = counts.get(title, 0) + 1
    series = pd.Series(counts, dtype=int, name="sessions").sort_values(ascending=False, kind="stable")
    return series.head(k)


# -- figures -------------------------------------------------------------------------------------
# Each returns a matplotlib Figure; the chapter shows it with plt.show(). Labels are English;
# Japanese page titles need a CJK font (utils.plotting.use_cjk_font) set before plotting.

_COLOURS = {"answered": "#2e7d32", "not answered": "#c62828"}


def plot_trails(splits: Mapping[str, Dialogues]) -> Any:
    """Six panels comparing the splits' trails: length, search/link, contents, keywords, pages, depth."""
    import matplotlib.pyplot as plt

    frames = {name: (session_frame(d), reference_frame(d)) for name, d in ((n, list(v)) for n, v in splits.items())}
    fig, axes = plt.subplots(2, 3, figsize=(14, 7.5))
    _hist(axes[0, 0], {n: s["references"] for n, (s, _) in frames.items()}, "references per session")
    _bars(axes[0, 1], {n: r["origin"].value_counts(normalize=True) for n, (_, r) in frames.items()},
          ["search", "link"], "how each page was reached (share of steps)")
    _bars(axes[0, 2], {n: r["content"].value_counts(normalize=True) for n, (_, r) in frames.items()},
          list(CONTENT_KINDS), "what was taken from the page (share of steps)")
    _hist(axes[1, 0], {n: r["keywords"].dropna() for n, (_, r) in frames.items()}, "keywords per search")
    _hist(axes[1, 1], {n: s["distinct_pages"] for n, (s, _) in frames.items()}, "distinct pages per session")
    _hist(axes[1, 2], {n: r["link_depth"] for n, (_, r) in frames.items()}, "links followed to reach a step")
    fig.suptitle("Retrieval trails of answered and not-answered sessions")
    fig.tight_layout()
    return fig


def plot_answers(dialogues: Dialogues, not_answered: Dialogues = ()) -> Any:
    """Five panels on answers: sentences per answer, citations per sentence, question and answer
    lengths in characters, and whether cited references hold a quote or a summary."""
    import matplotlib.pyplot as plt

    dialogues, not_answered = list(dialogues), list(not_answered)
    sessions, sentence_rows = session_frame(dialogues), sentence_frame(dialogues)
    fig, axes = plt.subplots(1, 5, figsize=(19, 3.8))
    _hist(axes[0], {"answered": sessions["sentences"].dropna()}, "sentences per answer")
    _hist(axes[1], {"answered": sentence_rows["citations"]}, "citations per sentence")
    questions = {"answered": sessions["question_chars"]}
    if not_answered:
        questions["not answered"] = session_frame(not_answered)["question_chars"]
    _hist(axes[2], questions, "question length (characters)", bins=30)
    _hist(axes[3], {"answered": sessions["answer_chars"].dropna()}, "answer length (characters)", bins=30)
    held = cited_content(dialogues)
    shares = held / held.sum() if held.sum() else held.astype(float)
    _bars(axes[4], {"answered": shares}, [QUOTE, SUMMARY], "what cited references hold (share)")
    fig.suptitle("Questions and answers")
    fig.tight_layout()
    return fig


def plot_top_pages(dialogues: Dialogues, k: int = 15) -> Any:
    """The pages cited in the most answers, as a horizontal bar chart (Japanese titles)."""
    import matplotlib.pyplot as plt

    top = top_pages(dialogues, k, cited_only=True)
    fig, ax = plt.subplots(figsize=(7, 0.32 * max(len(top), 3) + 1.2))
    ax.barh(list(top.index)[::-1], list(top.to_numpy())[::-1], color="#2e7d32")
    ax.set_xlabel("answers citing the page")
    ax.set_title(f"The {len(top)} pages cited in the most answers")
    fig.tight_layout()
    return fig


def _hist(ax: Any, series: dict[str, pd.Series], title: str, bins: int | None = None) -> None:
    values = {name: pd.to_numeric(s, errors="coerce").dropna() for name, s in series.items()}
    top = max((int(v.max()) for v in values.values() if len(v)), default=1)
    edges = bins if bins is not None else [x - 0.5 for x in range(0, top + 2)]
    for name, v in values.items():
        ax.hist(v, bins=edges, alpha=0.6, density=True, label=f"{name} (n={len(v)})", color=_COLOURS.get(name))
    ax.set_title(title)
    ax.set_xlabel(title.split(" (")[0])
    ax.set_ylabel("share")
    ax.legend(fontsize=8)


def _bars(ax: Any, shares: dict[str, pd.Series], order: list[str], title: str) -> None:
    width = 0.8 / max(len(shares), 1)
    for offset, (name, series) in enumerate(shares.items()):
        heights = [float(series.get(key, 0.0)) for key in order]
        positions = [i + offset * width for i in range(len(order))]
        ax.bar(positions, heights, width=width, label=name, color=_COLOURS.get(name))
    ax.set_xticks([i + width * (len(shares) - 1) / 2 for i in range(len(order))], order, rotation=20)
    ax.set_title(title)
    ax.set_ylabel("share")
    ax.legend(fontsize=8)
