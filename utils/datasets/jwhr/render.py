"""HTML rendering of one Japanese Wikipedia Human Retrieval session.

The question, then the worker's retrieval trail as a numbered list (how each page was reached:
search keywords or "link from step N"; the page title linked to its URL; the quote or summary taken
from it, or nothing), then the answer sentence by sentence with citation markers that jump to the
references they cite. Labels carry short English glosses for readers who do not read Japanese, and
an optional ``glosses`` mapping (:func:`glosses`: the atlas's translations of the sessions its
chapter shows, keyed as :mod:`utils.book.glosses` says) adds English under the question, the quotes,
summaries and answer sentences and beside titles and keywords.
Every dataset string is escaped and only http(s) URLs become links; Japanese text is marked
``lang="ja"`` so browsers pick Japanese glyph forms (the page itself is English).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from utils.book.glosses import english as gloss_english
from utils.book.glosses import gloss_key  # noqa: F401  (part of this module's API: the key of a gloss)
from utils.book.glosses import glosses as dataset_glosses
from utils.book.render.html import SafeHTML, badge, details, dialogue_frame, esc, link, sr_only, turn_block

from ...records import SEEKER, WIZARD, Dialogue
from .parser import NO_PAGE, NOT_FOUND, NOTHING, QUOTE, SUMMARY, Step, answered, question, sentences, trail

#: What the search box of :func:`utils.book.widgets.browse` matches, per session status.
STATUS_TAGS = {True: "status:answered", False: "status:unanswered"}

_JA = 'lang="ja"'


def glosses() -> Mapping[str, str]:
    """The atlas's own English translations of the JWHR text its chapter shows (see :mod:`utils.book.glosses`)."""
    return dataset_glosses("jwhr")


def _gloss(text: str | None, glosses: Mapping[str, str], *, inline: bool = False) -> str:
    english = gloss_english(text, glosses)
    if not english:
        return ""
    if inline:
        return f' <span class="atlas-gloss" lang="en">({esc(english)})</span>'
    return f'<div class="atlas-gloss" lang="en">{esc(english)}</div>'

_CONTENT_LABELS = {
    QUOTE: "quote (引用)",
    SUMMARY: "summary (要約)",
    NOTHING: "nothing taken from this page",
    NOT_FOUND: "search found no article",
    NO_PAGE: "page not recorded",
}


def render(
    dialogue: Dialogue, *, note: str = "", show_method: bool = True, glosses: Mapping[str, str] | None = None
) -> SafeHTML:
    """One session as safe HTML: question, ordered trail, answer with citation markers.

    ``note`` is shown under the title (for example the split's provenance); ``show_method`` adds
    the worker's note on how each summary was written, folded; ``glosses`` (see :func:`glosses`)
    adds English where it has a translation of the text.
    """
    glosses = glosses or {}
    prefix = _anchor_prefix(dialogue)
    steps = trail(dialogue)
    status = "answered (回答あり)" if answered(dialogue) else "not answered (回答なし)"
    asked = question(dialogue)
    body = [
        turn_block(SEEKER, "question (質問)", f"<span {_JA}>{esc(asked)}</span>{_gloss(asked, glosses)}"),
        _trail_html(steps, prefix, show_method, glosses),
        _answer_html(dialogue, prefix, glosses),
    ]
    return dialogue_frame(f"JWHR session {dialogue.id}: {status}", "".join(body), note)


def _anchor_prefix(dialogue: Dialogue) -> str:
    # Several sessions can share a notebook page: anchors name split and id, reduced to safe characters.
    return "jwhr-" + re.sub(r"[^A-Za-z0-9_-]+", "-", f"{dialogue.split}-{dialogue.id}")


def _trail_html(steps: Sequence[Step], prefix: str, show_method: bool, glosses: Mapping[str, str]) -> str:
    if not steps:
        return '<div class="atlas-note">Retrieval trail (検索の記録): no step was recorded.</div>'
    items = [_step_html(step, prefix, show_method, glosses) for step in steps]
    return (
        '<div class="atlas-note">Retrieval trail (検索の記録), in the order the worker recorded it:</div>'
        f'<ol class="atlas-evidence atlas-trail" start="0">{"".join(items)}</ol>'
    )


def _step_html(step: Step, prefix: str, show_method: bool, glosses: Mapping[str, str] | None = None) -> str:
    glosses = glosses or {}
    if step.origin == "search":
        words = "".join(badge(word) + _gloss(word, glosses, inline=True) for word in step.keywords)
        words = f"<span {_JA}>{words}</span>" if words else badge("(no keywords)")
        how = f"{badge('search (検索)', 'search')} keywords: {words}"
    else:
        # The parser makes referrers and citations ints; escaped anyway for hand-built sessions.
        referrer = esc(str(step.referrer))
        how = f'{badge("link (リンク)", "link")} from <a href="#{prefix}-ref-{referrer}">step {referrer}</a>'
        if not step.referrer_is_earlier:
            how += " (as recorded: not an earlier step)"
    if step.title is not None:
        page = f"page: <span {_JA}>{link(step.title, step.url)}</span>{_gloss(step.title, glosses, inline=True)}"
    elif step.content == NOT_FOUND:
        page = link("search results page", step.url)
    else:
        page = ""
    content = badge(_CONTENT_LABELS.get(step.content, step.content), step.content)
    if step.content == QUOTE:
        content += f'<blockquote class="atlas-quote" {_JA}>{esc(step.text)}</blockquote>{_gloss(step.text, glosses)}'
    elif step.content == SUMMARY:
        content += f'<div class="atlas-summary" {_JA}>{esc(step.text)}</div>{_gloss(step.text, glosses)}'
        if show_method and step.summary_method:
            method = f"<div {_JA}>{esc(step.summary_method)}</div>{_gloss(step.summary_method, glosses)}"
            content += details("how the worker summarised (要約の方法)", method)
    cited = ""
    if step.cited:
        cited = " · cited by answer sentence " + ", ".join(str(i + 1) for i in step.cited_by)
    css = ' class="atlas-selected"' if step.cited else ""
    return (
        f'<li id="{prefix}-ref-{esc(str(step.index))}"{css}><strong>[{esc(str(step.index))}]</strong> '
        f"{how} {page}{esc(cited)}"
        f"<div>{content}</div></li>"
    )


def _answer_html(dialogue: Dialogue, prefix: str, glosses: Mapping[str, str]) -> str:
    if not answered(dialogue):
        text = "<em>No answer: the worker could not build one from these pages (回答なし).</em>"
        return turn_block(WIZARD, "answer (回答)", text)
    parts, english = [], []
    for sentence in sentences(dialogue):
        if translated := gloss_english(sentence.text, glosses):
            english.append(translated)
        markers = "".join(
            f'<sup class="atlas-cite"><a href="#{prefix}-ref-{c}" title="reference {c}" aria-label="cites step {c}">'
            f"[{c}]</a></sup>"
            for c in map(esc, map(str, sentence.citations))
        )
        if not sentence.citations:
            said = sr_only(" cites nothing")
            markers = f'<sup class="atlas-cite" title="this sentence cites no reference">[–]{said}</sup>'
        parts.append(f"<span {_JA}>{esc(sentence.text)}</span>{markers}")
    body = "".join(parts) or f"<span {_JA}>{esc(dialogue.turns_by(WIZARD)[0].text)}</span>"
    if english:
        body += f'<div class="atlas-gloss" lang="en">{esc(" ".join(english))}</div>'
    return turn_block(WIZARD, "answer (回答), with citations [step]", body)


def search_text(dialogue: Dialogue) -> str:
    """Text the viewers search: status tag, question, answer, page titles and keywords."""
    steps = trail(dialogue)
    parts = [
        STATUS_TAGS[answered(dialogue)],
        question(dialogue),
        dialogue.turns_by(WIZARD)[0].text,
        *(step.title or "" for step in steps),
        *(word for step in steps for word in step.keywords),
    ]
    return " ".join(part for part in parts if part)
