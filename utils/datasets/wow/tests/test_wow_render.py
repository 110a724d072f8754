"""The WoW renderer: knowledge shown, checked sentence and shared words marked, everything escaped."""

from __future__ import annotations

import re

import pytest

import utils
from utils.book.render import render_dialogue
from utils.datasets.wow.render import render, shared_words
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

_EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)"></div>'


def _dialogue(text: str = "Oolong tea is half oxidised, I think.") -> Dialogue:
    evidence = [
        Evidence("Tea#0", "Tea is a drink.", "Tea", "topic"),
        Evidence("0:Oolong#0", "Oolong is half oxidised.", "Oolong", "retrieved:seeker", selected=True),
    ]
    return Dialogue(
        id="valid_seen/0",
        dataset="wow",
        split="valid_seen",
        topic="Tea",
        meta={"persona": "i drink tea.", "wizard_eval": 5},
        turns=[
            Turn(0, SEEKER, "0_Apprentice", "Tell me about oolong."),
            Turn(1, WIZARD, "1_Wizard", text, evidence, {"checked_source": ["partner"]}),
            Turn(2, SEEKER, "0_Apprentice", "Nice."),
            Turn(3, WIZARD, "1_Wizard", "I just like it.", evidence[:1], {"checked_source": ["no_passages_used"]}),
        ],
    )


def test_shared_words_skip_stop_words() -> None:
    assert shared_words("Oolong tea is half oxidised, I think.", "Oolong is half oxidised.") == {
        "oolong",
        "half",
        "oxidised",
    }


def test_render_marks_checked_sentence_and_shared_words() -> None:
    html = render(_dialogue())
    assert html.count('<mark class="atlas-shared">Oolong</mark>') >= 2  # response and checked sentence
    assert '<span class="atlas-selected">' in html
    assert "retrieved for the apprentice&#39;s last turn" in html
    assert "no passage used" in html
    assert "Knowledge shown (2 sentences)" in html
    assert "0_Apprentice" in html and "1_Wizard" in html
    assert "i drink tea." in html


def test_render_dispatch_and_demo() -> None:
    for split in ("train", "valid_unseen"):
        for dialogue in utils.load("wow", split):
            html = render_dialogue(dialogue, show_candidates=True)
            assert html.startswith('<div class="atlas-dialogue">')
    kilt = utils.load("wow_kilt", "dev")[0]
    assert "KILT provenance" in render_dialogue(kilt)


def test_render_escapes_everything() -> None:
    dialogue = _dialogue(text=_EVIL + " Oolong")
    dialogue.topic = _EVIL
    dialogue.meta["persona"] = _EVIL
    dialogue.turns[0].text = _EVIL
    dialogue.turns[0].speaker = _EVIL
    dialogue.turns[1].evidence[1].text = _EVIL + " Oolong"
    dialogue.turns[1].evidence[1].title = _EVIL
    dialogue.turns[1].raw["candidate_responses"] = [_EVIL, dialogue.turns[1].text]
    html = render(dialogue, show_candidates=True)
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert not re.search(r"<[^>]*onerror", html, re.IGNORECASE)
    # every </div> in the output is one the renderer opened
    assert html.count("<div") == html.count("</div>")
    assert "&lt;script&gt;" in html


def test_a_passage_block_reads_the_same_built_or_remembered() -> None:
    from utils.datasets.wow import render as wow_render

    dialogue = _dialogue()
    dialogue.turns[1].evidence[0].title = _EVIL  # an unchecked passage: its block is remembered
    dialogue.turns[1].evidence[0].text = _EVIL + " Tea"
    wow_render._passage_block.cache_clear()
    built = render(dialogue)
    remembered = render(dialogue)
    assert wow_render._passage_block.cache_info().hits >= 1
    assert built == remembered
    escaped = str(wow_render.esc(_EVIL))
    block = (
        f'<li><span class="atlas-badge atlas-badge-origin">chosen topic</span><strong>{escaped}</strong>'
        f'<ul class="atlas-evidence"><li>{escaped} Tea</li></ul></li>'
    )
    assert block in built
    assert "<script" not in built.lower()


def test_every_demo_dialogue_renders_the_same_from_remembered_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    from utils.datasets.wow import render as wow_render

    for split in ("train", "valid_unseen"):
        dialogues = list(utils.load("wow", split))
        wow_render._passage_block.cache_clear()
        remembered = [render(dialogue, show_candidates=True) for dialogue in dialogues]
        with monkeypatch.context() as patch:  # every block built anew
            patch.setattr(wow_render, "_passage_block", wow_render._passage_block.__wrapped__)
            built = [render(dialogue, show_candidates=True) for dialogue in dialogues]
        assert remembered == built
