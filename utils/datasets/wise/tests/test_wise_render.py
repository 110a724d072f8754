"""WISE renderer: everything the viewer must show, and dataset text rendered inert."""

from __future__ import annotations

from html.parser import HTMLParser

import utils
from utils.book.glosses import gloss_key
from utils.book.render import render_dialogue
from utils.datasets.wise import render as rw
from utils.datasets.wise import widgets as wise_widgets
from utils.datasets.wise.documents import load_documents
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn

EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)"></div>'


def _evil_dialogue() -> Dialogue:
    return Dialogue(
        id="1<b>", dataset="wise", split="test", topic=EVIL,
        meta={"search_intent": f"intent:{EVIL} description:{EVIL}"},
        turns=[
            Turn(0, SEEKER, "user", f"我想了解{EVIL}", labels={"intent": [EVIL]}),
            Turn(
                1, WIZARD, "system", f"回答{EVIL}",
                evidence=[Evidence("1-1", EVIL, title=EVIL, origin="passage", selected=True),
                          Evidence("1-2", EVIL, origin="passage")],
                labels={"action": ["Answer", EVIL], "state": [EVIL], "query_candidate": [EVIL, "普通查询"],
                        "selected_query": [EVIL], "selected_passage": ["1-1"]},
                raw={"unresolved_selected_passage": [EVIL]},
            ),
        ],
    )


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        self.attributes.extend(name for name, _ in attrs)
        self.depth += tag == "div"

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag == "div"


def test_dataset_text_renders_inert() -> None:
    html = rw.render(_evil_dialogue(), glosses={gloss_key(f"回答{EVIL}"): EVIL}, note=EVIL)
    parser = _Tags()
    parser.feed(html)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert not [name for name in parser.attributes if name.startswith("on")]
    assert parser.depth == 0  # the data's </div> closed nothing
    assert html.count("&lt;script&gt;") >= 8


def test_shipped_glosses_are_keys_not_dataset_text() -> None:
    shipped = rw.demo_glosses()
    assert all(len(key) == 16 and set(key) <= set("0123456789abcdef") for key in shipped)
    first_utterance = "最近想学跳舞，现代舞是什么样的？"
    assert shipped[gloss_key(first_utterance)] == "I'd like to take up dancing: what is modern dance like?"


def test_system_turn_shows_the_search() -> None:
    dialogue = utils.load("wise", "train")[0]
    html = rw.render(dialogue, glosses=rw.demo_glosses())
    assert html == render_dialogue(dialogue, glosses=rw.demo_glosses())
    # intent, state, queries with the selected ones marked, passages with text, action, response
    assert "Reveal" in html and "现代舞" in html
    assert '<li class="atlas-selected" lang="zh-Hans">✓ 现代舞的起源</li>' in html
    assert "✓ <code>1000003251-1</code>" in html and "爵士舞二十世纪初起源于美国" in html
    assert "Clarify-Choice" in html and "asks the user to choose between options" in html
    assert "stored as [&#34;Answer&#34;, &#34;open-text&#34;]" in html
    assert "请问您是想了解现代舞的起源" in html
    assert "I&#39;d like to take up dancing: what is modern dance like?" in html  # English gloss
    assert "text not in the document file" in html  # candidate document 1000003299 is missing


def test_documents_fill_missing_passage_text() -> None:
    documents = load_documents()
    evidence = [Evidence("1000003251-2", "", origin="passage", selected=True)]
    dialogue = Dialogue("x", "wise", "test", [Turn(0, WIZARD, "system", "好", evidence=evidence,
                                                 labels={"action": ["Answer", "fact-text"]})])
    assert "强调身体各部位的独立律动" in rw.render(dialogue, documents=documents)
    assert "强调身体各部位的独立律动" not in rw.render(dialogue)


def test_hiding_unselected_candidates() -> None:
    dialogue = utils.load("wise", "train")[0]
    html = rw.render(dialogue, show_unselected=False)
    assert "街舞入门" not in html and "passage candidates not selected" not in html


def test_search_text_and_viewer() -> None:
    dialogues = utils.load("wise", "train")
    text = rw.search_text(dialogues[0])
    assert "Clarify-Choice" in text and "爵士舞" in text and "现代舞入门视频" in text
    viewer = wise_widgets.viewer(dialogues, glosses=rw.demo_glosses())
    viewer.search.value = "故宫"
    assert viewer.matches == [2]
