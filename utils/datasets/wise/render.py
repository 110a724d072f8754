"""HTML rendering of one WISE conversation, with the search behind every system turn.

User turns show the utterance and its intent. System turns show, in the order the wizard worked:
the user intent it answers, the keyphrase ``state``, the query candidates (selected ones marked),
the passage candidates (selected ones first and marked, each with its text from the document file,
the rest folded), the action and the response. Label names carry short English glosses, and an
optional ``glosses`` mapping adds an English line under Chinese text (the atlas ships one for the
demo sample, :func:`demo_glosses`). Chinese is marked ``lang="zh-Hans"`` so browsers pick Chinese glyph forms.
Every dataset string is escaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from utils.book.glosses import english as gloss_english
from utils.book.glosses import glosses as dataset_glosses
from utils.book.render.html import SafeHTML, badge, details, dialogue_frame, esc, turn_block

from ...records import SEEKER, Dialogue, Evidence, Turn
from .parser import ACTIONS, INTENTS, published_label

if TYPE_CHECKING:
    from .documents import WiseDocuments

_ZH = 'lang="zh-Hans"'


def demo_glosses() -> Mapping[str, str]:
    """English translations of the demo sample's utterances and search intents (written by the atlas;
    see :mod:`utils.book.glosses`)."""
    return dataset_glosses("wise")


def render(
    dialogue: Dialogue,
    *,
    note: str = "",
    glosses: Mapping[str, str] | None = None,
    documents: WiseDocuments | None = None,
    show_unselected: bool = True,
) -> SafeHTML:
    """One conversation as safe HTML.

    ``glosses`` (keyed as :mod:`utils.book.glosses` says) gives the English line shown under Chinese
    text; ``documents`` supplies passage text the parsed evidence lacks; ``show_unselected=False``
    leaves out the folded lists of unselected candidates.
    """
    glosses = glosses or {}
    search_intent = dialogue.meta.get("search_intent", "") or ""
    header = (
        f'<div class="atlas-note">Search intent given to the user (搜索意图): <span {_ZH}>{esc(search_intent)}</span>'
        f"{_gloss(search_intent, glosses)}</div>"
        if search_intent
        else ""
    )
    body, last_intent = [header], ""
    for turn in dialogue.turns:
        if turn.role == SEEKER:
            last_intent = published_label(turn.labels.get("intent", []))
            body.append(_user_html(turn, glosses))
        else:
            body.append(_system_html(turn, last_intent, glosses, documents, show_unselected))
    title = f"WISE conversation {dialogue.id} ({dialogue.split})"
    return dialogue_frame(title, "".join(body), note)


def _gloss(text: str, glosses: Mapping[str, str]) -> str:
    english = gloss_english(text, glosses)
    return f'<div class="atlas-gloss" lang="en">{esc(english)}</div>' if english else ""


def _label_badge(name: str, known: Mapping[str, str], kind: str) -> str:
    if not name:
        return badge("(none)", kind)
    gloss = known.get(name)
    title = esc(gloss) if gloss else "not in the published label set"
    return f'<span title="{title}">{badge(name, kind)}</span>' + (f" <small>{esc(gloss)}</small>" if gloss else "")


def _user_html(turn: Turn, glosses: Mapping[str, str]) -> str:
    intent = published_label(turn.labels.get("intent", []))
    text = f"<span {_ZH}>{esc(turn.text)}</span>{_gloss(turn.text, glosses)}"
    extra = f'<div class="atlas-labels">intent: {_label_badge(intent, INTENTS, "intent")}</div>'
    return turn_block(turn.role, f"{turn.speaker} (用户)", text, extra)


def _system_html(
    turn: Turn,
    last_intent: str,
    glosses: Mapping[str, str],
    documents: WiseDocuments | None,
    show_unselected: bool,
) -> str:
    labels = turn.labels
    action = labels.get("action", [])
    keyphrases = "".join(badge(k, "state") for k in labels.get("state", [])) or "<em>none</em>"
    stored = esc(json.dumps(action, ensure_ascii=False))
    rows = [
        f"answers user intent: {_label_badge(last_intent, INTENTS, 'intent')}",
        f"state (keyphrases, 关键词): {keyphrases}",
        _queries_html(labels.get("query_candidate", []), labels.get("selected_query", []), show_unselected),
        _passages_html(turn.evidence, documents, show_unselected),
        f"action: {_label_badge(published_label(action), ACTIONS, 'action')} <small>· stored as {stored}</small>",
    ]
    unresolved = turn.raw.get("unresolved_selected_passage")
    if unresolved:
        rows.append(f"<small>selected passages without a document id: {esc(unresolved)}</small>")
    search = "".join(f'<div class="atlas-labels">{row}</div>' for row in rows)
    response = f"<span {_ZH}>{esc(turn.text)}</span>{_gloss(turn.text, glosses)}"
    text = f'<div class="atlas-response">response (回复): {response}</div>'
    return turn_block(turn.role, f"{turn.speaker} (系统): search, then response", search + text)


def _queries_html(candidates: Sequence[str], selected: Sequence[str], show_unselected: bool) -> str:
    chosen = set(selected)
    if not candidates and not selected:
        return "query candidates (候选查询): <em>none</em>"
    items = [
        f'<li class="atlas-selected" {_ZH}>✓ {esc(query)}</li>' if query in chosen else f"<li {_ZH}>{esc(query)}</li>"
        for query in dict.fromkeys([*candidates, *selected])
        if show_unselected or query in chosen
    ]
    head = f"query candidates (候选查询): {len(candidates)}, selected: {len(chosen)}"
    return f'{esc(head)}<ul class="atlas-evidence">{"".join(items)}</ul>'


def _passage_text(item: Evidence, documents: WiseDocuments | None) -> str | None:
    if item.text:
        return item.text
    if documents is not None:
        return documents.passage_text(item.id)
    return None


def _passage_item(item: Evidence, documents: WiseDocuments | None) -> str:
    text = _passage_text(item, documents)
    body = f"<span {_ZH}>{esc(text)}</span>" if text else "<em>text not in the document file</em>"
    title = f' <small {_ZH}>《{esc(item.title)}》</small>' if item.title else ""
    mark = "✓ " if item.selected else ""
    css = ' class="atlas-selected"' if item.selected else ""
    return f"<li{css}>{mark}<code>{esc(item.id)}</code>{title}: {body}</li>"


def _passages_html(evidence: Sequence[Evidence], documents: WiseDocuments | None, show_unselected: bool) -> str:
    if not evidence:
        return "passage candidates (候选段落): <em>none</em>"
    selected = [item for item in evidence if item.selected]
    others = [item for item in evidence if not item.selected]
    head = esc(f"passage candidates (候选段落): {len(evidence)}, selected: {len(selected)}")
    html = head
    if selected:
        html += '<ul class="atlas-evidence">' + "".join(_passage_item(item, documents) for item in selected) + "</ul>"
    if others and show_unselected:
        folded = '<ul class="atlas-evidence">' + "".join(_passage_item(item, documents) for item in others) + "</ul>"
        html += details(f"{len(others)} passage candidates not selected", folded)
    return html


def search_text(dialogue: Dialogue) -> str:
    """Text the viewer's search box matches: topic, utterances, labels, queries and keyphrases."""
    parts = [dialogue.topic or "", str(dialogue.meta.get("search_intent", ""))]
    for turn in dialogue.turns:
        parts.append(turn.text)
        for key in ("intent", "action"):
            if key in turn.labels:
                parts.append(published_label(turn.labels[key]))
        for key in ("state", "query_candidate"):
            parts.extend(turn.labels.get(key, []))
    return " ".join(part for part in parts if part)
