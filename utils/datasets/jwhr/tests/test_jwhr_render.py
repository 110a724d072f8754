"""The JWHR renderer: trail order, link steps, citation markers, escaping and URL safety."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import utils
from utils.book.render import render_dialogue
from utils.book.render._html import link, safe_href
from utils.datasets.jwhr import render as renderer
from utils.datasets.jwhr import widgets as jwhr_widgets
from utils.datasets.jwhr.parser import Step
from utils.loading import parse_file

EVIL = '<script>alert(1)</script><img src=x onerror=alert(2)></div>'


def _session(tmp_path: Path, record: dict[str, Any], split: str = "answered") -> utils.Dialogue:
    path = tmp_path / f"{split}.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    return next(iter(parse_file("jwhr", path, split)))


def _record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": 9,
        "question": "桜はいつ咲く？",
        "answer": {
            "text": "桜は春に咲きます。東京では三月下旬です。",
            "sentences": [
                {"text": "桜は春に咲きます。", "citations": [0, 1]},
                {"text": "東京では三月下旬です。", "citations": []},
            ],
        },
        "references": [
            {"search": {"keywords": ["桜", "開花"]},
             "page": {"title": "サクラ", "url": "https://ja.wikipedia.org/wiki/a",
                      "quote": {"text": "桜は春に咲く。"}}},
            {"link": {"referrer": 0},
             "page": {"title": "桜前線", "url": "https://ja.wikipedia.org/wiki/b",
                      "summary": {"text": "南から北へ開花が進む。", "method": "冒頭を要約した"}}},
            {"search": {"keywords": ["花見"]}, "not_found": {"url": "https://ja.wikipedia.org/w/index.php?search=x"}},
        ],
    }
    record.update(changes)
    return record


class _Collector(HTMLParser):
    """Collects tags, attributes and script contents to prove nothing from the data became markup."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)


def test_trail_and_answer_are_rendered_in_order(tmp_path: Path) -> None:
    html = str(renderer.render(_session(tmp_path, _record())))
    assert html.index("桜はいつ咲く？") < html.index("サクラ") < html.index("桜前線") < html.index("桜は春に咲きます。")
    assert 'id="jwhr-answered-9-ref-1"' in html
    assert 'from <a href="#jwhr-answered-9-ref-0">step 0</a>' in html
    assert '<a href="https://ja.wikipedia.org/wiki/a" target="_blank" rel="noopener noreferrer">サクラ</a>' in html
    assert "桜は春に咲く。" in html and "南から北へ開花が進む。" in html and "冒頭を要約した" in html
    assert "search found no article" in html
    # the first sentence cites steps 0 and 1, the second none
    first, second = html.split("桜は春に咲きます。")[1].split("東京では三月下旬です。")
    assert re.findall(r'href="#jwhr-answered-9-ref-(\d)"', first) == ["0", "1"]
    assert "cites no reference" in second
    assert "cited by answer sentence 1" in html


def test_japanese_text_is_marked_as_japanese(tmp_path: Path) -> None:
    html = str(renderer.render(_session(tmp_path, _record())))
    for text in ("桜はいつ咲く？", "サクラ", "桜は春に咲く。", "冒頭を要約した", "桜は春に咲きます。"):
        opening = html[: html.index(text)].rsplit("<", 1)[-1]
        if opening.startswith("a "):  # a page title: its link sits inside the marked span
            opening = html[: html.index(text)].rsplit("<span", 1)[-1]
        assert 'lang="ja"' in opening, f"{text} is not marked lang=ja"


def test_not_answered_session_shows_no_answer(tmp_path: Path) -> None:
    record = _record()
    record.pop("answer")
    html = str(render_dialogue(_session(tmp_path, record, "not_answered")))
    assert "No answer" in html and "not answered" in html and "サクラ" in html


def test_self_referring_link_is_labelled(tmp_path: Path) -> None:
    record = _record()
    record["references"][1]["link"]["referrer"] = 1
    html = str(renderer.render(_session(tmp_path, record)))
    assert "not an earlier step" in html


def test_dataset_text_renders_inert(tmp_path: Path) -> None:
    record = _record(question=EVIL, id=3)
    record["answer"]["sentences"][0]["text"] = EVIL
    record["references"][0]["page"]["title"] = EVIL
    record["references"][0]["page"]["quote"]["text"] = EVIL
    record["references"][0]["search"]["keywords"] = [EVIL]
    record["references"][1]["page"]["summary"] = {"text": EVIL, "method": EVIL}
    html = str(renderer.render(_session(tmp_path, record), note=EVIL))
    assert "<script" not in html and "<img" not in html and "</div></div><img" not in html
    collector = _Collector()
    collector.feed(html)
    assert "script" not in collector.tags and "img" not in collector.tags
    assert not any(name.startswith("on") for name, _ in collector.attributes)
    assert html.count("<div") == html.count("</div>")


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        " JAVASCRIPT:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "//evil.example/x",
        "https://x\nonerror=1",
        "vbscript:msgbox",
    ],
)
def test_only_http_urls_become_links(tmp_path: Path, url: str) -> None:
    record = _record()
    record["references"][0]["page"]["url"] = url
    record["references"][2]["not_found"]["url"] = url
    html = str(renderer.render(_session(tmp_path, record)))
    collector = _Collector()
    collector.feed(html)
    hrefs = [value for name, value in collector.attributes if name == "href"]
    assert all(h and (h.startswith("#") or h.startswith("https://ja.wikipedia.org/wiki/b")) for h in hrefs)
    assert safe_href(url) is None


def test_quotes_in_urls_are_escaped() -> None:
    html = link("x", 'https://a.example/"onmouseover="alert(1)')
    assert '"onmouseover' not in html and "&#34;onmouseover" in html


def test_search_text_tags_the_status(tmp_path: Path) -> None:
    text = renderer.search_text(_session(tmp_path, _record()))
    assert text.startswith("status:answered") and "桜前線" in text and "開花" in text
    assert "status:answered" not in renderer.STATUS_TAGS[False]


def test_viewer_switches_between_splits() -> None:
    with pytest.warns(utils.DemoDataWarning):
        answered = utils.load("jwhr", "answered")
    with pytest.warns(utils.DemoDataWarning):
        not_answered = utils.load("jwhr", "not_answered")
    box = jwhr_widgets.viewer({"answered": answered, "not answered": not_answered})
    switch, browser = box.children
    assert len(browser.matches) == 6
    switch.value = "not answered"
    assert len(box.children[1].matches) == 3
    assert "回答なし" in box.children[1].view.value


def test_numbers_of_a_hand_built_trail_are_escaped_too() -> None:
    # The parser makes these ints; a session built by hand may carry anything.
    hostile = '"><img src=x onerror=alert(1)>'
    step = Step(index=hostile, origin="link", title="t", url=None, content="nothing", text="", referrer=hostile)
    html = renderer._step_html(step, "jwhr-x", show_method=False)
    assert "<img" not in html and "&lt;img" in html


def test_glosses_show_under_the_text_they_translate(tmp_path: Path) -> None:
    session = _session(tmp_path, _record())
    question = "桜はいつ咲く？"
    glosses = {renderer.gloss_key(question): "When do cherry trees <bloom>?", renderer.gloss_key("サクラ"): "cherry"}
    html = str(renderer.render(session, glosses=glosses))
    assert html.index(question) < html.index("When do cherry trees &lt;bloom&gt;?")  # escaped, under the text
    assert "(cherry)" in html
    assert "When do cherry" not in str(renderer.render(session))  # none without glosses


def test_shipped_glosses_are_keys_not_dataset_text() -> None:
    shipped = renderer.glosses()
    assert len(shipped) > 10
    assert all(re.fullmatch(r"[0-9a-f]{16}", key) for key in shipped)
    assert renderer.gloss_key("富士山の高さはどのくらいですか？") in shipped  # the demo sample's question
