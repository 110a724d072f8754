"""The FaithDial renderer: content, the diff, badges, and dataset text rendered inert."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

import utils
from utils.book.render import render_dialogue
from utils.datasets.faithdial.render import render
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

EVIL = "<script>alert(1)</script><img src=x onerror=alert(2)></div></li>\"'&"


class _Audit(HTMLParser):
    """Collects tags, attributes and the open/close balance of a rendered fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.depth: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]
        self.depth[tag] = self.depth.get(tag, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        self.depth[tag] = self.depth.get(tag, 0) - 1


def _inspect(html: str) -> _Audit:
    parser = _Audit()
    parser.feed(html)
    parser.close()
    return parser


def _assert_inert(html: str) -> None:
    parsed = _inspect(html)
    assert "script" not in parsed.tags and "img" not in parsed.tags
    assert not [name for name in parsed.attributes if name.startswith("on")]
    assert all(count == 0 for count in parsed.depth.values()), parsed.depth  # data closed no element
    assert "&lt;script&gt;" in html


def _faithdial(text: str = EVIL) -> Dialogue:
    wizard = Turn(
        index=1,
        role=WIZARD,
        speaker="Wizard" + text,
        text="edited " + text,
        evidence=[Evidence(id="knowledge", text="knowledge " + text, origin="knowledge", selected=True)],
        labels={"BEGIN": ["Hallucination", text], "VRM": [text]},
        raw={"original_response": "original " + text, "utterance": 0, "history_length": 1},
    )
    seeker = Turn(index=0, role=SEEKER, speaker="Seeker", text="question " + text, raw={"from_history": True})
    return Dialogue(id="id" + text, dataset="faithdial", split="train" + text, turns=[seeker, wizard])


def test_faithdial_text_is_inert() -> None:
    _assert_inert(render(_faithdial(), note="note " + EVIL))


def test_audit_text_is_inert() -> None:
    wizard = Turn(
        index=1,
        role=WIZARD,
        speaker="response",
        text=EVIL,
        evidence=[Evidence(id="knowledge", text=EVIL, origin="knowledge", selected=True)],
        labels={"BEGIN": ["Generic"], "VRM": []},
        raw={"begin_raw": EVIL, "vrm_raw": EVIL, "label_notes": [EVIL]},
    )
    dialogue = Dialogue(
        id="x",
        dataset="faithdial_audit",
        split="gold_wow",
        turns=[Turn(index=0, role=SEEKER, speaker="history", text=EVIL), wizard],
        meta={"status": EVIL, "system": EVIL, "benchmark": "wow", "row": 3, "begin_class": EVIL},
    )
    _assert_inert(render_dialogue(dialogue))


def test_edited_turn_shows_both_responses_diff_and_badges() -> None:
    dialogue = _faithdial("text")
    dialogue.turns[1].raw["original_response"] = "I went there twice"
    dialogue.turns[1].text = "I have not been there"
    dialogue.turns[1].labels = {"BEGIN": ["Hallucination"], "VRM": ["text"]}
    html = render(dialogue)
    assert "original WoW response (labelled)" in html and "the faithful rewrite (FaithDial response)" in html
    assert '<del class="atlas-diff-del">went</del>' in html
    assert '<ins class="atlas-diff-ins">have not been</ins>' in html
    labelled, rewrite = html.split("the faithful rewrite", 1)
    assert 'atlas-badge-begin-hallucination">BEGIN: Hallucination<' in labelled  # with the original...
    assert "VRM: text" in labelled and "I went there twice" in labelled
    assert "atlas-badge" not in rewrite  # ...not with the rewrite


def test_unedited_turn_says_kept() -> None:
    dialogue = _faithdial("text")
    dialogue.turns[1].raw["original_response"] = ""
    html = render(dialogue)
    assert "kept from WoW" in html and "atlas-sidebyside" not in html
    assert "labels of this response:" in html


def test_demo_splits_render() -> None:
    for dialogue in utils.load("faithdial", "train"):
        html = render_dialogue(dialogue)
        assert html.count('class="atlas-turn') == len(dialogue.turns)
        assert all(count == 0 for count in _inspect(html).depth.values())
    for dialogue in utils.load("faithdial_audit", "gold_topical"):
        html = render_dialogue(dialogue)
        if dialogue.meta["status"] == "blank row":
            assert "Blank row" in html
        assert all(count == 0 for count in _inspect(html).depth.values())


def test_max_turns() -> None:
    dialogue = utils.load("faithdial", "train")[0]
    html = render(dialogue, max_turns=2)
    assert html.count('class="atlas-turn') == 2 and "more turns not shown" in html


def test_audit_label_cells_shown_as_written_without_a_repr() -> None:
    wizard = Turn(
        index=1,
        role=WIZARD,
        speaker="response",
        text="Cats sleep.",
        evidence=[Evidence(id="knowledge", text="Cats sleep a lot.", origin="knowledge", selected=True)],
        labels={"BEGIN": ["Partial Hallucination"], "VRM": []},
        raw={"begin_raw": "entailment,\nhallucination", "vrm_raw": "", "label_notes": []},
    )
    dialogue = Dialogue(
        id="x",
        dataset="faithdial_audit",
        split="gpt2_wow",
        turns=[wizard],
        meta={"status": "labelled", "system": "gpt2", "benchmark": "wow", "row": 3, "begin_class": "Partial"},
    )
    html = render_dialogue(dialogue)
    assert "BEGIN cell: “entailment, ⏎ hallucination” · VRM cell: (empty)" in html
    assert "\\n" not in html and "''" not in html


# -- audit rows whose cells hold code: an empty history list, TopicalChat's fun facts ------------------

_ARTICLE = "Google LLC is an American technology company ."
_KNOWLEDGE_FORMS = {
    # as TopicalChat's JSON writes it, with the record's closing brace left in the cell
    "json": _ARTICLE
    + ' "fun_facts": [\n  "Google uses goats to mow its lawns",\n  "A search uses much power"\n]\n},\n',
    # as a Python list
    "python": _ARTICLE + "', 'fun_facts': ['Google uses goats to mow its lawns', 'A search uses much power']",
    # a Python list the file cuts short before its bracket
    "cut": _ARTICLE + "', 'fun_facts': ['Google uses goats to mow its lawns', 'A search uses much power'",
}


def _audit_row(history: str, knowledge: str) -> Dialogue:
    wizard = Turn(
        index=1,
        role=WIZARD,
        speaker="response",
        text="I love Google.",
        evidence=[Evidence(id="knowledge", text=knowledge, origin="knowledge", selected=True)],
        labels={"BEGIN": ["Hallucination"], "VRM": ["Disclosure"]},
        raw={"begin_raw": "Hallucination", "vrm_raw": "disclosure", "label_notes": []},
    )
    return Dialogue(
        id="gold_topical-1",
        dataset="faithdial_audit",
        split="gold_topical",
        turns=[Turn(index=0, role=SEEKER, speaker="history", text=history), wizard],
        meta={"status": "labelled", "system": "gold", "benchmark": "topical", "row": 1, "begin_class": "Hallucination"},
    )


def _reader_text(html: str) -> str:
    import html as html_module
    import re

    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_fun_facts_are_split_from_the_article_in_every_form_the_audit_writes_them() -> None:
    from utils.datasets.faithdial.render import split_fun_facts

    for form, knowledge in _KNOWLEDGE_FORMS.items():
        text, facts = split_fun_facts(knowledge)
        assert text == _ARTICLE, form
        assert facts == ["Google uses goats to mow its lawns", "A search uses much power"], form
    assert split_fun_facts(_ARTICLE) == (_ARTICLE, [])


def test_an_audit_row_shows_no_raw_list_neither_its_empty_history_nor_its_fun_facts() -> None:
    for form, knowledge in _KNOWLEDGE_FORMS.items():
        html = str(render(_audit_row("[]", knowledge)))
        text = _reader_text(html)
        assert "fun_facts" not in text and "[" not in text and "]" not in text, (form, text)
        assert "No earlier turn" in text
        assert "Google uses goats to mow its lawns" in text and "A search uses much power" in text
    _assert_inert(str(render(_audit_row("[]", _ARTICLE + ' "fun_facts": ["' + EVIL.replace('"', "'") + '"]'))))


@pytest.mark.realdata
def test_no_real_audit_row_renders_a_raw_list(real_data_dir: Path) -> None:
    from conftest import require_real_file

    require_real_file(real_data_dir, "faithdial-audit/gold/topical.csv")
    raw = []
    for split in utils.split_names("faithdial_audit"):
        for dialogue in utils.load("faithdial_audit", split):
            text = _reader_text(str(render(dialogue)))
            if "fun_facts" in text or " [] " in f" {text} ":
                raw.append(dialogue.id)
    assert not raw, raw[:5]
