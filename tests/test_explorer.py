"""The static explorer: a fair sample within a byte budget, facets, columns, search words, permalink
keys, safe JSON in a script element, inert hostile strings."""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import utils
from utils.loading import DEMO, OFFICIAL
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.render._html import SafeHTML, bullet_list, dialogue_frame, esc, turn_block
from utils.render.explorer import (
    decode_items,
    explorer_label,
    explorer_search_text,
    json_for_script,
    sample_order,
    static_explorer,
)
from utils.render.explorer_fields import columns, facets, search_words

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


def bulky_dialogue(i: int, split: str = "test") -> Dialogue:
    """A dialogue whose rendering barely compresses (random-looking words), to fill a budget fast."""
    words = " ".join(f"w{(i * 7919 + k * 104729) % 1000003:x}" for k in range(300))
    return make_dialogue(i, text=words, split=split)


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


def explorer_meta(markup: str) -> dict[str, Any]:
    """The explorer's data block, parsed as the browser's JSON.parse would."""
    bodies = [body for body in parse(markup).script_bodies if body.lstrip().startswith("{")]
    assert len(bodies) == 1
    return json.loads(bodies[0])


def explorer_payload(markup: str) -> list[dict[str, Any]]:
    """The embedded items, unpacked by hand (base64, gzip, JSON) rather than with the module's decoder."""
    meta = explorer_meta(markup)
    assert meta["encoding"] == "gzip+base64"
    return json.loads(gzip.decompress(base64.b64decode(meta["items"])))


def sample_sentence(markup: str) -> str:
    match = re.search(r'<p class="atlas-explorer-sample">(.*?)</p>', markup)
    assert match, "no sentence says how many items are embedded"
    return parse(match.group(1)).text[0] if parse(match.group(1)).text else ""


# -- JSON in a script element ---------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE)
def test_json_for_script_escapes_and_round_trips(text: str) -> None:
    encoded = json_for_script({"html": text, "list": [text]})
    for forbidden in ("<", ">", "&", "\u2028", "\u2029"):
        assert forbidden not in encoded
    assert json.loads(encoded) == {"html": text, "list": [text]}


def test_json_for_script_keeps_non_ascii_readable() -> None:
    assert json_for_script(["知识 ナレッジ"]) == '["知识 ナレッジ"]'


def test_payload_round_trips_through_the_module_decoder() -> None:
    markup = static_explorer([make_dialogue(i) for i in range(3)], render=simple_render)
    assert decode_items(explorer_meta(markup)) == explorer_payload(markup)
    with pytest.raises(ValueError, match="encoding"):
        decode_items({"encoding": "plain", "items": "[]"})


# -- what is embedded -------------------------------------------------------------------------------


def test_a_small_dataset_is_embedded_whole_and_the_page_says_so() -> None:
    dialogues = [make_dialogue(i) for i in range(30)]
    markup = static_explorer(dialogues, render=simple_render, noun="sessions")
    items = explorer_payload(markup)
    assert [item["index"] for item in items] == list(range(30))  # reading order: by index
    assert [item["key"] for item in items[:2]] == ["wow/test/d0", "wow/test/d1"]
    assert 'data-count="30"' in markup
    assert sample_sentence(markup) == "All 30 sessions are embedded in this page (test: 30 of 30)."


def test_the_budget_limits_the_data_and_the_page_says_how_many_of_how_many() -> None:
    dialogues = [bulky_dialogue(i) for i in range(200)]
    budget = 60_000
    markup = static_explorer(dialogues, render=simple_render, budget=budget)
    meta = explorer_meta(markup)
    items = explorer_payload(markup)
    assert len(meta["items"]) <= budget
    assert 5 < len(items) < 200
    # the budget is used, not wasted: one more item (about 1.3 KB compressed) would not have fitted
    assert len(meta["items"]) > budget - 5_000
    sentence = sample_sentence(markup)
    assert sentence.startswith(f"Embedded in this page: {len(items)} of 200 dialogues (test: {len(items)} of 200)")
    assert "random sample of every split (seed 0)" in sentence
    assert "60 kB of compressed data" in sentence


def test_the_sample_is_seeded_and_random_not_the_first_items() -> None:
    dialogues = [bulky_dialogue(i) for i in range(200)]

    def keys(seed: int) -> list[int]:
        markup = static_explorer(dialogues, render=simple_render, budget=30_000, seed=seed)
        return [item["index"] for item in explorer_payload(markup)]

    first = keys(0)
    assert first == keys(0), "the same seed must give the same sample"
    assert first != keys(1)
    assert first != list(range(len(first))), "the sample must not be the first dialogues"
    assert first == sorted(sample_order(200, 0, "test")[: len(first)])


def test_sample_order_is_a_permutation_that_depends_on_seed_and_split() -> None:
    order = sample_order(50, 0, "train")
    assert sorted(order) == list(range(50))
    assert order != sample_order(50, 1, "train")
    assert order != sample_order(50, 0, "valid")


def test_pinned_items_come_first_even_over_the_budget() -> None:
    dialogues = [bulky_dialogue(i) for i in range(100)]
    markup = static_explorer(dialogues, render=simple_render, budget=100, pinned={"test": [42, 7]})
    items = explorer_payload(markup)
    assert [item["index"] for item in items] == [7, 42]
    assert "the dialogues the chapter shows (test #7, test #42)" in sample_sentence(markup)
    with pytest.raises(ValueError, match="outside split 'test'"):
        static_explorer(dialogues, render=simple_render, pinned={"test": [100]})


def test_a_small_split_is_embedded_whole_beside_a_large_one() -> None:
    """Draws go to the split with the fewest bytes so far: the small split fits its share."""
    large = [bulky_dialogue(i, "train") for i in range(300)]
    small = [bulky_dialogue(1000 + i, "valid") for i in range(5)]
    markup = static_explorer({"train": large, "valid": small}, render=simple_render, budget=40_000)
    items = explorer_payload(markup)
    by_split = {name: [item["index"] for item in items if item["split"] == name] for name in ("train", "valid")}
    assert by_split["valid"] == [0, 1, 2, 3, 4]
    assert 5 < len(by_split["train"]) < 300
    assert [item["split"] for item in items] == ["train"] * len(by_split["train"]) + ["valid"] * 5
    assert f"train: {len(by_split['train'])} of 300; valid: 5 of 5" in sample_sentence(markup)


def test_max_items_is_respected() -> None:
    dialogues = [make_dialogue(i) for i in range(30)]
    assert len(explorer_payload(static_explorer(dialogues, render=simple_render, max_items=7))) == 7
    with pytest.raises(ValueError, match="at least 1"):
        static_explorer(dialogues, render=simple_render, max_items=0)


def test_demo_splits_give_way_to_real_data() -> None:
    real = FakeSplit([make_dialogue(i, split="dev") for i in range(3)], OFFICIAL)
    demo = FakeSplit([make_dialogue(i, split="valid") for i in range(2)], DEMO)
    markup = static_explorer({"valid": demo, "dev": real}, render=simple_render)
    assert {item["split"] for item in explorer_payload(markup)} == {"dev"}
    assert "Left out since real data is loaded: valid (demo or synthetic stand-ins" in sample_sentence(markup)
    # only demo data: the demo sample is shown (the chapter runs anywhere)
    only_demo = static_explorer({"valid": demo}, render=simple_render)
    assert len(explorer_payload(only_demo)) == 2
    kept = static_explorer({"valid": demo, "dev": real}, render=simple_render, prefer_real=False)
    assert {item["split"] for item in explorer_payload(kept)} == {"valid", "dev"}


def test_keys_name_dataset_split_and_the_record_s_own_id_and_must_be_unique() -> None:
    splits = {"a": [make_dialogue(i, split="valid_seen") for i in range(13)]}
    items = explorer_payload(static_explorer(splits, render=simple_render))
    assert items[12]["key"] == "wow/valid_seen/d12"  # the id the heading shows, not a position
    assert items[12]["label"] == "a #12: Topic 12"
    with pytest.raises(ValueError, match=r"permalink 'wow/valid_seen/d\d+'"):
        static_explorer({"a": splits["a"], "b": splits["a"]}, render=simple_render)


def test_a_split_whose_ids_repeat_is_linked_by_position() -> None:
    dialogues = [make_dialogue(i, split="valid_seen") for i in range(3)]
    dialogues.append(make_dialogue(0, split="valid_seen"))  # the file repeats an id
    items = explorer_payload(static_explorer(dialogues, render=simple_render))
    assert [item["key"] for item in items] == [f"wow/valid_seen/@{i}" for i in range(4)]


def test_an_id_is_quoted_in_its_key_but_its_slashes_stay_readable() -> None:
    turns = make_dialogue(1).turns
    ids = ["a/b c#1", "train/0", "@3", "100%/x"]
    dialogues = [Dialogue(id=i, dataset="wow", split="test", turns=turns, topic="t") for i in ids]
    items = explorer_payload(static_explorer(dialogues, render=simple_render))
    # "/" as written (the address bar reads wow/test/train/0, not train%2F0); "@" escaped, since
    # "@3" is the form of a link by position
    assert [item["key"] for item in items] == ["wow/test/a/b%20c%231", "wow/test/train/0", "wow/test/%403",
                                               "wow/test/100%25/x"]


def test_the_explorer_opens_at_the_first_item_the_chapter_shows() -> None:
    dialogues = [make_dialogue(i) for i in range(40)]
    markup = static_explorer(dialogues, render=simple_render, pinned={"test": [37]})
    assert explorer_meta(markup)["start"] == "wow/test/d37"
    view = markup.split('<div class="atlas-explorer-view" tabindex="-1">', 1)[1]
    assert view.startswith(str(simple_render(dialogues[37])))
    assert "Showing test #37" in markup


def test_faithdial_facets_say_what_they_count() -> None:
    audit = utils.load("faithdial_audit", "gold_wow")
    meta = explorer_meta(static_explorer({"gold_wow": audit}, render=simple_render, max_items=30))
    notes = meta["facet_notes"]
    assert "BEGIN labels" in meta["facets"] and "BEGIN class of the audit row" in meta["facets"]
    assert "counts once under each of its labels" in notes["BEGIN labels"]
    assert "a row counts once" in notes["BEGIN class of the audit row"]


def test_wise_search_words_hold_the_english_glosses_of_turns_and_passages() -> None:
    from utils.datasets.wise import render as wise_render
    from utils.glosses import english

    glosses = wise_render.demo_glosses()
    found = []
    for dialogue in utils.load("wise", "train"):
        words = " ".join(search_words(dialogue, glosses))
        texts = [t.text for t in dialogue.turns] + [e.text for t in dialogue.turns for e in t.evidence if e.text]
        expected = [english(text, glosses) for text in texts if english(text, glosses)]
        assert all(gloss in words for gloss in expected)
        found += expected
    assert found, "the demo sample has glosses"


def test_a_split_facet_appears_with_more_than_one_split() -> None:
    one = explorer_payload(static_explorer([make_dialogue(0)], render=simple_render))
    assert "split" not in one[0]["facets"]
    splits = {"x": [make_dialogue(0, split="x")], "y": [make_dialogue(0, split="y")]}
    two = static_explorer(splits, render=simple_render)
    assert [item["facets"]["split"] for item in explorer_payload(two)] == [["x"], ["y"]]
    assert explorer_meta(two)["facets"][0] == "split"


def test_the_split_facet_gives_way_to_a_facet_that_names_the_split() -> None:
    """JWHR's splits are its "answered" label: one facet is enough."""
    answered = list(utils.load("jwhr", "answered"))
    not_answered = list(utils.load("jwhr", "not_answered"))
    items = explorer_payload(static_explorer({"answered": answered, "not_answered": not_answered}))
    assert all("split" not in item["facets"] for item in items)
    assert {item["split"]: item["facets"]["answered"][0] for item in items} == {
        "answered": "answered",
        "not_answered": "not answered",
    }
    # WISE splits share intents and actions: the split facet stays
    wise = {name: utils.load("wise", name) for name in ("train", "valid")}
    assert all("split" in item["facets"] for item in explorer_payload(static_explorer(wise)))


def test_empty_input_renders_a_message() -> None:
    markup = static_explorer([], render=simple_render)
    assert "No dialogues to show" in markup
    assert "<script" not in markup


def test_first_item_is_server_rendered_and_controls_wait_for_the_script() -> None:
    dialogues = [make_dialogue(i) for i in range(3)]
    markup = static_explorer(dialogues, render=simple_render, title="Demo", note="demo sample")
    view = markup.split('<div class="atlas-explorer-view" tabindex="-1">', 1)[1]
    assert view.startswith(str(simple_render(dialogues[0])))
    assert '<div class="atlas-explorer-controls" hidden>' in markup
    assert "demo sample" in markup
    assert "<style>" in markup  # the atlas stylesheet travels with the output (Jupyter has no book CSS)


def test_items_carry_html_label_search_text_facets_and_columns() -> None:
    dialogue = make_dialogue(4, topic="Blue Whale", text="Krill is ALL it eats")
    [item] = explorer_payload(static_explorer([dialogue], render=simple_render))
    assert item["html"] == str(simple_render(dialogue))
    assert item["label"] == "test #0: Blue Whale"
    assert "blue whale" in item["search"]
    assert "krill is all it eats" in item["search"]
    assert "title 4" in item["search"]
    assert item["facets"] == {}  # no checked_source label: no WoW facets
    assert item["columns"] == {"turns": 2, "reply length (words)": 5.0, "knowledge shown (sentences per reply)": 1.0}


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
    from utils.glosses import gloss_key

    # keyed as utils.glosses keys the book's glosses (a hash of the text), not by the text itself
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
def test_hostile_strings_stay_inert(hostile: str) -> None:
    dialogues = [make_dialogue(0, topic=hostile, text=hostile), make_dialogue(1)]
    markup = static_explorer(dialogues, render=simple_render, title=hostile, note=hostile, noun=hostile)
    assert_inert(markup)
    assert markup.count("<script") == 1
    assert markup.count("</script>") == 1
    payload = explorer_payload(markup)
    # labels stay plain text (the script sets them with textContent), whitespace folded
    assert payload[0]["label"] == f"test #0: {explorer_label(dialogues[0])}"
    assert explorer_label(dialogues[0]).startswith(" ".join(hostile.split())[:60])
    for item in payload:
        assert_inert(item["html"])


def test_hostile_labels_and_glosses_stay_inert_with_the_real_renderers() -> None:
    from utils.datasets.wise import render as wise_render

    hostile = HOSTILE[0]
    turns = [
        Turn(0, SEEKER, "user", hostile, labels={"intent": [hostile]}),
        Turn(1, WIZARD, "system", hostile, labels={"action": [hostile]}),
    ]
    dialogue = Dialogue(id=hostile, dataset="wise", split="train", turns=turns, topic=hostile)
    markup = static_explorer([dialogue], render=wise_render.render, glosses={hostile: hostile})
    assert_inert(markup)
    [item] = explorer_payload(markup)
    assert_inert(item["html"])
    assert item["facets"] == {"user intent": [hostile], "system action": [hostile]}
    assert hostile.lower() in item["search"]


def test_hostile_strings_stay_inert_with_the_wow_renderer() -> None:
    from utils.datasets.wow import render as wow

    dialogue = make_dialogue(0, topic=HOSTILE[0], text=HOSTILE[1])
    markup = static_explorer([dialogue], render=wow.render)
    assert_inert(markup)
    for item in explorer_payload(markup):
        assert_inert(item["html"])


# -- the script itself ----------------------------------------------------------------------------


def _script_code() -> str:
    script = (REPO / "book" / "_static" / "explorer.js").read_text(encoding="utf-8")
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", script, flags=re.S)


def test_explorer_script_inserts_markup_only_from_the_renderers() -> None:
    code = _script_code()
    for forbidden in ("eval(", "new Function", "document.write", "insertAdjacentHTML", "outerHTML", "http:", "https:"):
        assert forbidden not in code
    # the renderings, shown, and read as text from an inert <template> for the search
    assert re.findall(r"\w*\.innerHTML\s*=\s*[^;]+", code) == ['template.innerHTML = item.html || ""',
                                                            "view.innerHTML = item.html"]


def test_explorer_script_uses_no_network() -> None:
    code = _script_code()
    for forbidden in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "sendBeacon", ".src ="):
        assert forbidden not in code


# -- live viewers degrade to a note where widget JavaScript cannot run -------------------------------


def _viewers() -> dict[str, object]:
    from utils.datasets.jwhr import widgets as jwhr
    from utils.datasets.wise import widgets as wise
    from utils.widgets import browse

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
    css = (REPO / "utils" / "render" / "atlas.css").read_text(encoding="utf-8")
    hidden = re.search(r"\.atlas-sr \{[^}]*clip: rect\(0, 0, 0, 0\)", css)
    assert hidden, "the screen-reader text must be hidden on screen"


def test_anchors_inside_items_do_not_collide_with_the_chapter_s_own_rendering() -> None:
    # JWHR's renderer gives each reference an id and each citation a link to it; the chapter shows
    # the same session above its explorer, so the explorer's copies carry ids of their own.
    def render(dialogue: Dialogue, **_: Any) -> SafeHTML:
        text = esc(dialogue.turns[0].text)
        return SafeHTML(
            f'<p id="s{dialogue.id}-ref-1">{text}</p><a href="#s{dialogue.id}-ref-1">[1]</a>'
            f'<a href="https://example.org/#top">out</a><a href="../book/bibliography.html#cite-x">bib</a>'
            '<a href="#overview">a section of the chapter</a>'
        )

    hostile = make_dialogue(0)
    hostile.turns[0].text = f'see id="s{hostile.id}-ref-1" and href="#s{hostile.id}-ref-1"'
    markup = static_explorer([hostile, make_dialogue(1)], render=render)
    (first, second) = explorer_payload(markup)
    assert f'id="explore-s{hostile.id}-ref-1"' in first["html"]
    assert f'href="#explore-s{hostile.id}-ref-1"' in first["html"]
    assert f'id="explore-s{make_dialogue(1).id}-ref-1"' in second["html"]
    # links to other pages keep their fragments; the dataset's own text is not touched
    assert 'href="https://example.org/#top"' in first["html"]
    assert 'href="../book/bibliography.html#cite-x"' in first["html"]
    assert 'href="#overview"' in first["html"]  # not an id of the item: a link out of it
    assert f"see id=&#34;s{hostile.id}-ref-1&#34; and href=&#34;#s{hostile.id}-ref-1&#34;" in first["html"]


def test_records_without_turns_are_neither_embedded_nor_counted_and_the_page_says_so() -> None:
    # the audit files' blank rows are records with no turn at all
    dialogues = [make_dialogue(i) for i in range(6)]
    blank = [Dialogue(dataset="wow", split="test", id=f"blank{i}", turns=[]) for i in range(3)]
    markup = static_explorer(dialogues[:3] + blank + dialogues[3:], render=simple_render)
    items = explorer_payload(markup)
    assert [item["index"] for item in items] == [0, 1, 2, 6, 7, 8]
    assert explorer_meta(markup)["total"] == 6
    assert sample_sentence(markup) == (
        "All 6 dialogues are embedded in this page (test: 6 of 6). "
        "Not counted or embedded: records without a single turn, with nothing to show (test: 3)."
    )
    # even when the chapter pins one
    pinned = static_explorer(dialogues[:3] + blank + dialogues[3:], render=simple_render, pinned={"test": [3, 0]})
    assert [item["index"] for item in explorer_payload(pinned)] == [0, 1, 2, 6, 7, 8]


def test_the_note_says_by_default_what_data_each_split_is() -> None:
    splits = {name: utils.load("jwhr", name) for name in ("answered", "not_answered")}
    markup = static_explorer(splits)
    kinds = {split.provenance.kind for split in splits.values()}
    (kind,) = kinds
    assert f'<div class="atlas-explorer-note">answered: {kind}; not answered: {kind}</div>' in markup
    assert "atlas-explorer-note" not in static_explorer(splits, note="")


def test_kilt_examples_are_not_charted_as_dialogues(tmp_path: Path) -> None:
    """A KILT example is one wizard turn cut from a dialogue with the turns before it: the explorer
    charts its context apart from whole dialogues' turns, and its reply is the answer alone."""
    from utils.render.explorer_fields import columns
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
