"""A chapter's view of its dataset (:mod:`utils.book.render.chapter_view`): its pinned dialogues rendered
on the server, each with a link to the viewer page at its split and row, the compact view's holder and
data block (safe JSON in a script element), inert hostile strings; the facets, columns and search
words every viewer row carries (:mod:`utils.book.viewer_fields`)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import utils
from utils.book.render._html import SafeHTML, bullet_list, dialogue_frame, esc, json_for_script, turn_block
from utils.book.render.chapter_view import chapter_view, default_search_text, viewer_link
from utils.book.viewer_fields import columns, facets, search_words
from utils.loading import DEMO
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

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


def make_dialogue(i: int, topic: str | None = None, text: str | None = None, split: str = "test") -> Dialogue:
    evidence = [Evidence(id=f"e{i}", text=text or f"evidence {i}", title=f"Title {i}", origin="test", selected=True)]
    turns = [
        Turn(0, SEEKER, "Apprentice", text or f"question number {i}"),
        Turn(1, WIZARD, "Wizard", text or f"answer number {i}", evidence=evidence),
    ]
    return Dialogue(id=f"d{i}", dataset="wow", split=split, turns=turns, topic=topic or f"Topic {i}")


class FakeSplit(Sequence[Dialogue]):
    """A sequence of dialogues with a provenance, as :func:`utils.load` returns."""

    def __init__(self, dialogues: list[Dialogue], kind: str) -> None:
        self._dialogues = dialogues
        self.provenance = type("Provenance", (), {"kind": kind})()

    def __len__(self) -> int:
        return len(self._dialogues)

    def __getitem__(self, index: Any) -> Any:
        return self._dialogues[index]


class TagCollector(HTMLParser):
    """Every start tag and its attributes, parsed the way a browser tokenises (script is raw text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.script_bodies: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_script = tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_bodies.append(data)
        else:
            self.text.append(data)


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


def view_data(markup: str) -> dict[str, Any]:
    """The view's data block, parsed as the browser's JSON.parse would."""
    bodies = [body for body in parse(markup).script_bodies if body.lstrip().startswith("{")]
    assert len(bodies) == 1
    return json.loads(bodies[0])


# -- JSON in a script element ---------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE)
def test_json_for_script_escapes_and_round_trips(text: str) -> None:
    encoded = json_for_script({"html": text, "list": [text]})
    for forbidden in ("<", ">", "&", "\u2028", "\u2029"):
        assert forbidden not in encoded
    assert json.loads(encoded) == {"html": text, "list": [text]}


def test_json_for_script_keeps_non_ascii_readable() -> None:
    assert json_for_script(["知识 ナレッジ"]) == '["知识 ナレッジ"]'


# -- the chapter's view ------------------------------------------------------------------------------


def pinned_figures(markup: str) -> list[str]:
    return re.findall(r'(?s)<figure class="atlas-chapter-pinned".*?</figure>', markup)


def test_the_pinned_dialogues_are_rendered_on_the_server_each_with_a_link_to_its_row() -> None:
    dialogues = [make_dialogue(i) for i in range(40)]
    markup = chapter_view({"test": dialogues}, render=simple_render, pinned={"test": [37, 2]}, title="Demo")
    first, second = pinned_figures(markup)
    assert first.endswith(str(simple_render(dialogues[37])) + "</figure>")
    assert second.endswith(str(simple_render(dialogues[2])) + "</figure>")
    link = "../book/viewer/wow.html#viewer=wow/test&amp;level=dialogues&amp;row=d37"
    assert f'test #37 (id d37): <a href="{link}">open it in the data viewer</a>' in first
    assert "<style>" in markup  # the atlas stylesheet travels with the output (Jupyter has no book CSS)
    # nothing else of the split is embedded: the viewer's files hold the rows
    assert str(simple_render(dialogues[5])) not in markup
    assert "Demo" in markup


def test_a_pinned_position_outside_its_split_or_a_split_not_shown_is_an_error() -> None:
    dialogues = [make_dialogue(i) for i in range(3)]
    with pytest.raises(ValueError, match="outside split 'test'"):
        chapter_view({"test": dialogues}, render=simple_render, pinned={"test": [3]})
    with pytest.raises(ValueError, match="pinned split 'valid'"):
        chapter_view({"test": dialogues}, render=simple_render, pinned={"valid": [0]})


def test_a_pinned_record_without_turns_is_left_out() -> None:
    # the audit files' blank rows are records with no turn at all: nothing to show
    blank = Dialogue(dataset="wow", split="test", id="blank", turns=[])
    markup = chapter_view({"test": [make_dialogue(0), blank]}, render=simple_render, pinned={"test": [1, 0]})
    assert [figure.count('data-index="0"') for figure in pinned_figures(markup)] == [1]


@pytest.mark.parametrize(
    ("record_id", "row"),
    [("a/b c#1", "a/b+c%231"), ("train/0", "train/0"), ("@3", "%403"), ("100%/x", "100%25/x"),
     ("x+y&z=1", "x%2By%26z%3D1"), ("知识", "%E7%9F%A5%E8%AF%86")],
)
def test_the_link_names_the_row_as_the_viewer_writes_its_hash(record_id: str, row: str) -> None:
    """As url-state.js's hashValue: encodeURIComponent, "/" kept, a space as "+"."""
    dialogue = Dialogue(id=record_id, dataset="wow", split="valid_seen", turns=make_dialogue(0).turns)
    assert viewer_link(dialogue) == f"../book/viewer/wow.html#viewer=wow/valid_seen&level=dialogues&row={row}"


def test_during_a_build_the_view_lists_every_split_for_the_compact_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from utils.book.viewer_files import VIEWER_DIR_VARIABLE

    monkeypatch.setenv(VIEWER_DIR_VARIABLE, str(tmp_path))
    demo = FakeSplit([make_dialogue(i, split="valid") for i in range(2)], DEMO)
    markup = chapter_view({"valid": demo, "test": [make_dialogue(i) for i in range(3)]}, render=simple_render)
    assert view_data(markup)["viewer"] == [
        {"dataset": "wow", "split": "valid", "label": "valid", "path": "_viewer/wow/valid/"},
        {"dataset": "wow", "split": "test", "label": "test", "path": "_viewer/wow/test/"},
    ]
    # the holder the viewer's modules fill, hidden until they do (without the script, nothing shows)
    holder = '<div class="atlas-viewer atlas-viewer-compact" data-viewer-page="book/viewer/wow.html" hidden></div>'
    assert holder in markup
    assert (tmp_path / "wow" / "test").is_dir() and (tmp_path / "wow" / "valid").is_dir()


def test_outside_a_build_no_viewer_is_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    from utils.book.viewer_files import VIEWER_DIR_VARIABLE

    monkeypatch.delenv(VIEWER_DIR_VARIABLE, raising=False)
    markup = chapter_view([make_dialogue(0)], render=simple_render, pinned={"test": [0]})
    assert "<script" not in markup and "atlas-viewer-compact" not in markup
    assert len(pinned_figures(markup)) == 1


def test_search_text_covers_topic_turns_and_titles() -> None:
    text = default_search_text(make_dialogue(1))
    assert text.startswith("Topic 1 ")
    assert "question number 1" in text
    assert "answer number 1" in text
    assert text.endswith("Title 1")


# -- facets, columns and search words per dataset ------------------------------------------------------


def wow_dialogue(sources: list[str]) -> Dialogue:
    turns = []
    for i, source in enumerate(sources):
        turns.append(Turn(2 * i, SEEKER, "1_Apprentice", "tell me more"))
        turns.append(Turn(2 * i + 1, WIZARD, "0_Wizard", "one two three four", labels={"checked_source": [source]}))
    return Dialogue(id="x", dataset="wow", split="valid_seen", turns=turns, topic="Bees")


def test_wow_facets_name_the_checked_source_and_no_passage_used() -> None:
    dialogue = wow_dialogue(["partner", "chosen", "partner", "no_passages_used"])
    assert facets(dialogue) == {
        "checked source": ["apprentice's turn (partner)", "topic passage (chosen)", "no passage used"],
        "no passage used": ["on some turn"],
    }
    assert facets(wow_dialogue(["self"]))["no passage used"] == ["never"]
    assert columns(dialogue) == {"turns": 8, "reply length (words)": 4.0}
    assert "apprentice's turn (partner)" in search_words(dialogue)


def faithdial_turns(*wizard: tuple[str, dict[str, list[str]], str]) -> list[Turn]:
    turns = []
    for i, (text, labels, original) in enumerate(wizard):
        turns.append(Turn(2 * i, SEEKER, "Seeker", "hi there"))
        evidence = [Evidence(id="k", text="a b c d e f", origin="knowledge", selected=True)]
        raw = {"original_response": original}
        turns.append(Turn(2 * i + 1, WIZARD, "Wizard", text, evidence=evidence, labels=labels, raw=raw))
    return turns


def test_faithdial_facets_come_from_the_turns_labels_whichever_turn_holds_them() -> None:
    turns = faithdial_turns(
        ("I do", {"BEGIN": ["Hallucination", "Entailment"], "VRM": ["Disclosure"]}, "I do love them"),
        ("yes it is", {"BEGIN": ["Entailment"], "VRM": ["Edification", "Disclosure"]}, ""),
    )
    dialogue = Dialogue(id="0", dataset="faithdial", split="train", turns=turns)
    assert facets(dialogue) == {
        "BEGIN labels": ["Hallucination", "Entailment"],
        "VRM labels": ["Disclosure", "Edification"],
        "edited": ["edited", "not edited"],
    }
    assert columns(dialogue) == {"turns": 4, "response length (words)": 2.5, "knowledge length (words)": 6.0}
    # a parser that moves the labels to another turn (say, one holding the original response) moves the facet
    turns[1].labels, turns[0].labels = {}, {"BEGIN": ["Generic"]}
    assert facets(dialogue)["BEGIN labels"] == ["Generic", "Entailment"]


def test_audit_rows_have_begin_and_vrm_but_no_edits() -> None:
    turns = faithdial_turns(("a reply", {"BEGIN": ["Partial Hallucination"], "VRM": ["Question"]}, ""))
    row = Dialogue(id="gold_wow-1", dataset="faithdial_audit", split="gold_wow", turns=turns)
    assert facets(row) == {
        "BEGIN labels": ["Partial Hallucination"],
        "VRM labels": ["Question"],
        "BEGIN class of the audit row": ["no BEGIN label"],
    }
    # a model file writes Partial Hallucination as two labels: the row's one class is a facet of its own
    turns[1].labels["BEGIN"] = ["Entailment", "Hallucination"]
    row.meta["begin_class"] = "Partial Hallucination"
    assert facets(row)["BEGIN labels"] == ["Entailment", "Hallucination"]
    assert facets(row)["BEGIN class of the audit row"] == ["Partial Hallucination"]
    assert "turns" not in columns(row)
    assert "Partial Hallucination" in search_words(row)


def test_wise_facets_and_search_words_include_the_label_glosses() -> None:
    turns = [
        Turn(0, SEEKER, "user", "我想了解爵士舞", labels={"intent": ["Reveal"]}),
        Turn(1, WIZARD, "system", "请问您想了解哪种？", labels={"action": ["Clarify", "Choice"]}),
    ]
    dialogue = Dialogue(id="1", dataset="wise", split="train", turns=turns)
    assert facets(dialogue) == {"user intent": ["Reveal"], "system action": ["Clarify-Choice"]}
    from utils.book.glosses import gloss_key

    # keyed as utils.book.glosses keys the book's glosses (a hash of the text), not by the text itself
    words = search_words(dialogue, {gloss_key("我想了解爵士舞"): "I want to know about jazz dance."})
    assert "I want to know about jazz dance." in words
    assert "asks the user to choose between options" in words  # the published gloss of Clarify-Choice
    assert columns(dialogue) == {"utterances": 2, "reply length (characters)": 9.0, "passages selected": 0}


def test_jwhr_facets_columns_and_english_glosses_on_the_demo_sample() -> None:
    from utils.datasets.jwhr import render as jwhr_render

    sessions = list(utils.load("jwhr", "answered"))
    session = sessions[0]
    found = facets(session)
    assert found["answered"] == ["answered"]
    assert set(found["search / link"]) <= {"search", "link"}
    assert set(found["quote / summary"]) <= {"quote", "summary", "nothing", "not found", "no page"}
    words = search_words(session, jwhr_render.glosses())
    english = set(jwhr_render.glosses().values())
    assert any(word in english for word in words), "the atlas's translation of the session is searchable"
    assert search_words(session) == [value for values in found.values() for value in values]
    assert columns(session)["steps"] == len(session.turns_by(WIZARD)[0].evidence)


# -- hostile strings ------------------------------------------------------------------------------


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_strings_stay_inert(hostile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from utils.book.viewer_files import VIEWER_DIR_VARIABLE

    monkeypatch.setenv(VIEWER_DIR_VARIABLE, str(tmp_path))
    dialogues = [make_dialogue(0, topic=hostile, text=hostile), make_dialogue(1)]
    markup = chapter_view(
        {hostile: dialogues}, render=simple_render, title=hostile, note=hostile, pinned={hostile: [0]}
    )
    assert_inert(markup)
    assert markup.count("<script") == 1
    assert markup.count("</script>") == 1
    assert view_data(markup)["viewer"][0]["label"] == hostile


def test_hostile_labels_and_glosses_stay_inert_with_the_real_renderers() -> None:
    from utils.datasets.wise import render as wise_render

    hostile = HOSTILE[0]
    turns = [
        Turn(0, SEEKER, "user", hostile, labels={"intent": [hostile]}),
        Turn(1, WIZARD, "system", hostile, labels={"action": [hostile]}),
    ]
    dialogue = Dialogue(id=hostile, dataset="wise", split="train", turns=turns, topic=hostile)
    markup = chapter_view([dialogue], render=wise_render.render, glosses={hostile: hostile}, pinned={"train": [0]})
    assert_inert(markup)
    assert len(pinned_figures(markup)) == 1
    assert facets(dialogue) == {"user intent": [hostile], "system action": [hostile]}


def test_hostile_strings_stay_inert_with_the_wow_renderer() -> None:
    from utils.datasets.wow import render as wow

    dialogue = make_dialogue(0, topic=HOSTILE[0], text=HOSTILE[1])
    dialogue.id = HOSTILE[2]
    markup = chapter_view([dialogue], render=wow.render, pinned={"test": [0]})
    assert_inert(markup)
    assert len(pinned_figures(markup)) == 1


# -- live viewers degrade to a note where widget JavaScript cannot run -------------------------------


def _viewers() -> dict[str, object]:
    from utils.book.widgets import browse
    from utils.datasets.jwhr import widgets as jwhr
    from utils.datasets.wise import widgets as wise

    return {
        "browse": browse([make_dialogue(0), make_dialogue(1)]),
        "wise.viewer": wise.viewer(utils.load("wise", "test")),
        "jwhr.viewer": jwhr.viewer({"answered": utils.load("jwhr", "answered")}),
    }


@pytest.mark.parametrize("name", ["browse", "wise.viewer", "jwhr.viewer"])
def test_every_viewer_shows_a_note_not_a_repr_in_a_static_page(name: str) -> None:
    from utils.book.widgets import _STATIC_NOTE

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


# -- marks said in words, not by colour alone -----------------------------------------------------------


def test_the_gold_reply_among_the_candidates_is_labelled_in_words() -> None:
    from utils.datasets.wow import render as wow

    dialogue = utils.load("wow", "valid_seen")[0]
    with_candidates = [turn for turn in dialogue.turns if turn.raw.get("candidate_responses")]
    assert with_candidates, "the demo sample has candidate responses"
    markup = str(wow.render(dialogue, show_candidates=True))
    text = "".join(parse(markup).text)
    assert text.count("gold: the wizard's actual reply") == len(with_candidates)
    assert "candidate responses (the gold reply is labelled)" in text


def test_selected_evidence_and_citations_are_said_to_screen_readers() -> None:
    from utils.datasets.faithdial import render as faithdial
    from utils.datasets.jwhr import render as jwhr
    from utils.datasets.wow import render as wow

    wow_markup = str(wow.render(utils.load("wow", "train")[0]))
    assert '<span class="atlas-selected"><span class="atlas-sr">checked: </span>' in wow_markup
    faithdial_markup = str(faithdial.render(utils.load("faithdial", "train")[0]))
    assert '<span class="atlas-selected"><span class="atlas-sr">selected </span>knowledge: ' in faithdial_markup
    session = next(d for d in utils.load("jwhr", "answered") if any(s.citations for s in jwhr.sentences(d)))
    jwhr_markup = str(jwhr.render(session))
    marker = r'<a href="#jwhr-[^"]+-ref-0" title="reference 0" aria-label="cites step 0">\[0\]</a>'
    assert re.search(marker, jwhr_markup)
    css = (REPO / "utils" / "book" / "render" / "atlas.css").read_text(encoding="utf-8")
    hidden = re.search(r"\.atlas-sr \{[^}]*clip: rect\(0, 0, 0, 0\)", css)
    assert hidden, "the screen-reader text must be hidden on screen"


def test_anchors_inside_pinned_renderings_do_not_collide_with_the_chapter_s_own_rendering() -> None:
    # JWHR's renderer gives each reference an id and each citation a link to it; the chapter shows
    # the same session above its view, so the view's copies carry ids of their own.
    def render(dialogue: Dialogue, **_: Any) -> SafeHTML:
        text = esc(dialogue.turns[0].text)
        return SafeHTML(
            f'<p id="s{dialogue.id}-ref-1">{text}</p><a href="#s{dialogue.id}-ref-1">[1]</a>'
            f'<a href="https://example.org/#top">out</a><a href="../book/bibliography.html#cite-x">bib</a>'
            '<a href="#overview">a section of the chapter</a>'
        )

    hostile = make_dialogue(0)
    hostile.turns[0].text = f'see id="s{hostile.id}-ref-1" and href="#s{hostile.id}-ref-1"'
    markup = chapter_view([hostile, make_dialogue(1)], render=render, pinned={"test": [0, 1]})
    (first, second) = pinned_figures(markup)
    assert f'id="explore-s{hostile.id}-ref-1"' in first
    assert f'href="#explore-s{hostile.id}-ref-1"' in first
    assert f'id="explore-s{make_dialogue(1).id}-ref-1"' in second
    # links to other pages keep their fragments; the dataset's own text is not touched
    assert 'href="https://example.org/#top"' in first
    assert 'href="../book/bibliography.html#cite-x"' in first
    assert 'href="#overview"' in first  # not an id of the rendering: a link out of it
    assert f"see id=&#34;s{hostile.id}-ref-1&#34; and href=&#34;#s{hostile.id}-ref-1&#34;" in first


def test_the_note_says_by_default_what_data_each_split_is() -> None:
    splits = {name: utils.load("jwhr", name) for name in ("answered", "not_answered")}
    markup = chapter_view(splits)
    kinds = {split.provenance.kind for split in splits.values()}
    (kind,) = kinds
    assert f'<div class="atlas-chapter-view-note">answered: {kind}; not answered: {kind}</div>' in markup
    assert "atlas-chapter-view-note" not in chapter_view(splits, note="")


def test_kilt_examples_are_not_charted_as_dialogues(tmp_path: Path) -> None:
    """A KILT example is one wizard turn cut from a dialogue with the turns before it: the viewer
    charts its context apart from whole dialogues' turns, and its reply is the answer alone."""
    from utils.sources import get_source

    line = {
        "id": "abc_2",
        "input": "Hi, I love tea.\nSo do I, green tea most.\nWhat is it made of?",
        "output": [
            {
                "answer": "Leaves of the tea plant, steamed.",
                "provenance": [
                    {"wikipedia_id": "1", "title": "Green tea", "start_paragraph_id": 1, "start_character": 0,
                     "end_paragraph_id": 1, "end_character": 20, "bleu_score": 0.5, "section": "Section::::Abstract."}
                ],
            }
        ],
    }
    path = tmp_path / "wow-dev-kilt.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (example,) = list(get_source("wow_kilt").parse(path, split="dev"))
    found = columns(example)
    assert "turns" not in found
    assert found == {"KILT example: turns of context": 3, "reply length (words)": 6}
