"""The static explorer: safe JSON in a script element, inert hostile strings, n respected."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import utils
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.render._html import SafeHTML, bullet_list, dialogue_frame, esc, turn_block
from utils.render.explorer import explorer_label, explorer_search_text, json_for_script, static_explorer

REPO = Path(__file__).resolve().parents[1]
HOSTILE = [
    "</script><script>alert('x')</script>",
    '<img src=x onerror="alert(1)">',
    "</div></section><b>bold</b>",
    "<!-- comment --> & &amp; <![CDATA[ ]]>",
    "line\u2028separator\u2029paragraph",
    "<svg onload=alert(1)>",
]


def simple_render(dialogue: Dialogue, **_: object) -> SafeHTML:
    """A minimal renderer built from the shared helpers (the dataset renderers do the same)."""
    body = "".join(
        turn_block(
            turn.role,
            turn.speaker,
            esc(turn.text),
            bullet_list(f"<b>{esc(item.title)}</b>: {esc(item.text)}" for item in turn.evidence),
        )
        for turn in dialogue.turns
    )
    return dialogue_frame(dialogue.topic or dialogue.id, body)


def make_dialogue(i: int, topic: str | None = None, text: str | None = None) -> Dialogue:
    evidence = [Evidence(id=f"e{i}", text=text or f"evidence {i}", title=f"Title {i}", origin="test", selected=True)]
    turns = [
        Turn(0, SEEKER, "Apprentice", text or f"question number {i}"),
        Turn(1, WIZARD, "Wizard", text or f"answer number {i}", evidence=evidence),
    ]
    return Dialogue(id=f"d{i}", dataset="wow", split="test", turns=turns, topic=topic or f"Topic {i}")


class TagCollector(HTMLParser):
    """Every start tag and its attributes, parsed the way a browser tokenises (script is raw text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.script_bodies: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_bodies.append(data)


def parse(markup: str) -> TagCollector:
    collector = TagCollector()
    collector.feed(markup)
    collector.close()
    return collector


def assert_inert(markup: str) -> None:
    found = parse(markup)
    names = {tag for tag, _ in found.tags}
    assert not names & {"img", "svg", "iframe", "object", "embed"}, names
    for tag, attrs in found.tags:
        assert not any(name.startswith("on") for name, _ in attrs), (tag, attrs)
        if tag == "script":
            assert dict(attrs).get("type") == "application/json", attrs


# -- JSON in a script element ---------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE)
def test_json_for_script_escapes_and_round_trips(text: str) -> None:
    encoded = json_for_script({"html": text, "list": [text]})
    for forbidden in ("<", ">", "&", "\u2028", "\u2029"):
        assert forbidden not in encoded
    assert json.loads(encoded) == {"html": text, "list": [text]}


def test_json_for_script_keeps_non_ascii_readable() -> None:
    assert json_for_script(["知识 ナレッジ"]) == '["知识 ナレッジ"]'


# -- the explorer ---------------------------------------------------------------------------------


def explorer_payload(markup: str) -> list[dict[str, str]]:
    bodies = parse(markup).script_bodies
    assert len(bodies) == 1
    return json.loads(bodies[0])


def test_n_is_respected() -> None:
    dialogues = [make_dialogue(i) for i in range(30)]
    assert len(explorer_payload(static_explorer(dialogues, render=simple_render))) == 20
    assert len(explorer_payload(static_explorer(dialogues, 7, render=simple_render))) == 7
    # fewer dialogues than n (the demo samples): all of them, and the count says so
    few = static_explorer(dialogues[:3], 20, render=simple_render)
    assert [item["id"] for item in explorer_payload(few)] == ["d0", "d1", "d2"]
    assert 'data-count="3"' in few


def test_n_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        static_explorer([make_dialogue(0)], 0, render=simple_render)


def test_empty_input_renders_a_message() -> None:
    markup = static_explorer([], render=simple_render)
    assert "No dialogues to show" in markup
    assert "<script" not in markup


def test_first_dialogue_is_server_rendered_and_controls_wait_for_the_script() -> None:
    dialogues = [make_dialogue(i) for i in range(3)]
    markup = static_explorer(dialogues, render=simple_render, title="Demo", note="demo sample")
    view = markup.split('<div class="atlas-explorer-view">', 1)[1]
    assert view.startswith(str(simple_render(dialogues[0])))
    assert '<div class="atlas-explorer-controls" hidden>' in markup
    assert "demo sample" in markup
    assert "<style>" in markup  # the atlas stylesheet travels with the output (Jupyter has no book CSS)


def test_items_carry_html_label_and_search_text() -> None:
    dialogue = make_dialogue(4, topic="Blue Whale", text="Krill is ALL it eats")
    [item] = explorer_payload(static_explorer([dialogue], render=simple_render))
    assert item["html"] == str(simple_render(dialogue))
    assert item["label"] == "1. Blue Whale"
    assert "blue whale" in item["search"]
    assert "krill is all it eats" in item["search"]
    assert "title 4" in item["search"]


def test_label_falls_back_to_the_opening_turn_then_the_id() -> None:
    dialogue = make_dialogue(2)
    dialogue.topic = None
    assert explorer_label(dialogue) == "question number 2"
    dialogue.turns[0].text = "  a   very long question " * 10
    assert len(explorer_label(dialogue)) == 70 and explorer_label(dialogue).endswith("…")
    dialogue.turns = []
    assert explorer_label(dialogue) == "d2"


def test_search_text_covers_topic_turns_and_titles() -> None:
    text = explorer_search_text(make_dialogue(1))
    assert text.startswith("Topic 1 ")
    assert "question number 1" in text
    assert "answer number 1" in text
    assert text.endswith("Title 1")


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_strings_stay_inert(hostile: str) -> None:
    dialogues = [make_dialogue(0, topic=hostile, text=hostile), make_dialogue(1)]
    markup = static_explorer(dialogues, render=simple_render, title=hostile, note=hostile)
    assert_inert(markup)
    assert markup.count("<script") == 1
    assert markup.count("</script>") == 1
    payload = explorer_payload(markup)
    # labels stay plain text (the script sets them with textContent), whitespace folded
    assert payload[0]["label"] == f"1. {explorer_label(dialogues[0])}"
    assert explorer_label(dialogues[0]).startswith(" ".join(hostile.split())[:60])
    for item in payload:
        assert_inert(item["html"])


def test_hostile_strings_stay_inert_with_the_real_renderer() -> None:
    render = pytest.importorskip("utils.render.wow", reason="the WoW renderer is not written yet")
    dialogue = make_dialogue(0, topic=HOSTILE[0], text=HOSTILE[1])
    markup = static_explorer([dialogue], render=render.render)
    assert_inert(markup)
    for item in explorer_payload(markup):
        assert_inert(item["html"])


# -- the script itself ----------------------------------------------------------------------------


def test_explorer_script_inserts_markup_only_from_the_renderers() -> None:
    script = (REPO / "book" / "_static" / "explorer.js").read_text(encoding="utf-8")
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", script, flags=re.S)
    for forbidden in ("eval(", "new Function", "document.write", "insertAdjacentHTML", "outerHTML", "http:", "https:"):
        assert forbidden not in code
    assert re.findall(r"\w*\.innerHTML\s*=\s*[^;]+", code) == ["view.innerHTML = item.html"]


# -- live viewers degrade to a note where widget JavaScript cannot run -------------------------------


def _viewers() -> dict[str, object]:
    from utils.widgets import browse, jwhr, wise

    return {
        "browse": browse([make_dialogue(0), make_dialogue(1)]),
        "wise.viewer": wise.viewer(utils.load("wise", "test")),
        "jwhr.viewer": jwhr.viewer({"answered": utils.load("jwhr", "answered")}),
    }


@pytest.mark.parametrize("name", ["browse", "wise.viewer", "jwhr.viewer"])
def test_every_viewer_shows_a_note_not_a_repr_in_a_static_page(name: str) -> None:
    from utils.widgets import _STATIC_NOTE

    bundle = _viewers()[name]._repr_mimebundle_()
    assert bundle["text/plain"] == _STATIC_NOTE, f"{name} would print its repr in the book"
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_safe_html_is_markup_and_esc_always_escapes() -> None:
    from markupsafe import Markup

    frame = dialogue_frame("t", "<p>body</p>")
    assert isinstance(frame, Markup)
    # Markup's rule: plain text joined to safe HTML is escaped, safe HTML is not.
    assert frame + "<b>" == str(frame) + "&lt;b&gt;"
    assert SafeHTML("<i>") + SafeHTML("<b>") == "<i><b>"
    # esc escapes a value even when it claims to be HTML (dataset values are text), and maps None to "".
    assert esc(SafeHTML("<b>x</b>")) == "&lt;b&gt;x&lt;/b&gt;"
    assert esc(None) == "" and esc(3) == "3"
    assert esc("'\"&") == "&#39;&#34;&amp;" and type(esc("a")) is str
