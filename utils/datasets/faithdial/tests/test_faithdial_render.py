"""The FaithDial renderer: content, the diff, badges, and dataset text rendered inert."""

from __future__ import annotations

from html.parser import HTMLParser

import utils
from utils.datasets.faithdial.render import render
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.render import render_dialogue

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
