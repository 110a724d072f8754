"""WoW statistics on the demo sample (hand-counted) and on the real files where present."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest

import utils
from conftest import require_real_file, resident_cache_kb
from utils.datasets.wow import stats
from utils.errors import UnknownNameError
from utils.reported import COMPARISON_COLUMNS, FAILED, HELD, assert_held, failures


def test_summary_of_demo_train_hand_counted() -> None:
    train = utils.load("wow", "train")
    values = stats.summary(train)
    # Lighthouse (6 turns, wizard first), Sourdough (6, apprentice first), Beekeeping (4, apprentice first)
    assert values["dialogues"] == 3
    assert values["utterances"] == 16
    assert values["topics"] == 3
    assert values["turns_per_dialogue"] == pytest.approx(16 / 3)
    assert values["wizard_turns"] == 8 and values["apprentice_turns"] == 8
    assert values["wizard_first_dialogues"] == 1
    # ParlAI's teachers: Lighthouse opened by "0_Wizard" gives (6-1)//2 = 2 wizard examples and
    # 6//2 = 3 apprentice ones; Sourdough (6, apprentice first) 3 and (6-1)//2 = 2; Beekeeping 2 and 1.
    assert values["wizard_examples"] == 2 + 3 + 2
    assert values["apprentice_examples"] == 3 + 2 + 1
    assert values["basicdialog_examples"] == 3 + 3 + 2
    assert values["no_passage_share"] == pytest.approx(1 / 8)
    assert values["checked_not_in_knowledge"] == 0
    # Lighthouse, read off the file: 7 topic sentences + "no passage used" at turn 0. Turn 2 adds the
    # passages retrieved for the apprentice's turn 1 (its "Lighthouse" is the topic, kept once):
    # keeper 4, Reef 3, Shipwreck 4, Buoy 3, Coastguard 6, Navigation 3; then those of the wizard's
    # turn 0 not yet shown: Fresnel lens 3, Sea fog 3, Tide 3, Breakwater 3, Semaphore 4
    # (Lighthouse and Shipwreck again, kept once): 8 + 23 + 16. Turn 4: turn 3's keeper 4,
    # Shipwreck 4, Foghorn 4, Harbour 6, Reef 3, Buoy 3, Coastguard 6; turn 2's Fresnel lens 3,
    # Tide 3, Cliff 5, Beacon 5, Sea fog 3, Breakwater 3, Semaphore 4: 8 + 30 + 26.
    wizard = stats.wizard_turns(train)
    lighthouse = wizard[wizard["topic"] == "Lighthouse"]
    assert lighthouse["candidates"].tolist() == [8, 47, 64]
    # as in the real files, a wizard turn after the first two is shown about sixty candidates
    assert values["candidates_median"] >= 45


def test_kilt_summary_of_demo_dev() -> None:
    values = stats.kilt_summary(utils.load("wow_kilt", "dev"))
    assert values["examples"] == 3 and values["dialogues"] == 2
    assert values["answers"] == 3 and values["answers_without_provenance"] == 1
    assert values["utterances"] == 3 + 2 + 4


def test_topic_overlap_demo() -> None:
    train = utils.load("wow", "train")
    table = stats.topic_overlap(train, {"valid_seen": utils.load("wow", "valid_seen")})
    # seen topics (Beekeeping, Sourdough) are topics of train, as in the real files
    assert table.loc["valid_seen", ["topics", "shared_with_train", "new"]].tolist() == [2, 2, 0]
    unseen = stats.topic_overlap(train, {"valid_unseen": utils.load("wow", "valid_unseen")})
    assert unseen.loc["valid_unseen", ["topics", "shared_with_train", "new"]].tolist() == [2, 0, 2]


def test_summary_table_has_every_split() -> None:
    splits = {"train": utils.load("wow", "train"), "kilt_dev": utils.load("wow_kilt", "dev")}
    table = stats.summary_frame(splits)
    assert list(table.columns) == ["train", "kilt_dev"]
    assert table.loc["data", "train"] == "demo sample"
    assert table.loc["dialogues", "train"] == 3


def test_reported_table_never_asserts_demo() -> None:
    splits = {name: utils.load("wow", name) for name in stats.RAW_SPLITS}
    splits["kilt_dev"] = utils.load("wow_kilt", "dev")
    table = stats.reported_vs_reproduced(splits)
    assert list(table.columns) == list(COMPARISON_COLUMNS)
    # 10 statistics of the card, 2 ParlAI episode counts, 4 teachers x 3 splits, 1 KILT count
    assert len(table) == 25
    assert set(table["citation_key"]) == {"gem2021wowcard", "parlai2021wowfixtures", "kilt2020repo"}
    teachers = table.set_index(["name", "split"])["teacher"]
    assert teachers[("apprentice_examples", "valid_seen")] == "basic_apprentice_dialog"
    assert teachers[("utterances", "train")] == ""
    assert not (table["status"] == HELD).any()
    assert failures(table).empty and assert_held(table) == 0
    assert (table["status"] == "not checked: demo sample").all()
    # utterances over the whole dataset = the sum over the five splits
    total = table[(table["name"] == "utterances") & (table["split"] == "all")]["reproduced"].item()
    assert total == sum(len(s.turns()) for name, s in splits.items() if name != "kilt_dev")


def test_reported_table_without_a_split() -> None:
    table = stats.reported_vs_reproduced({"train": utils.load("wow", "train")})
    missing = table[table["name"] == "examples"]
    assert missing["status"].item() == "not checked: split not loaded"
    assert missing["reproduced"].isna().all()


def test_a_wrong_count_on_full_data_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # the same demo file passed off as the full split: its 3 dialogues are not the card's 18,430
    train = utils.load("wow", "train")
    monkeypatch.setattr(train, "provenance", dataclasses.replace(train.provenance, kind="official"))
    table = stats.reported_vs_reproduced({"train": train})
    row = table[(table["name"] == "dialogues") & (table["split"] == "train")].iloc[0]
    assert row["status"] == FAILED and row["reproduced"] == 3
    with pytest.raises(AssertionError, match="dialogues"):
        assert_held(table)


@pytest.mark.realdata
def test_real_kilt_dev_is_asserted(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/kilt/wow-dev-kilt.jsonl")
    table = stats.reported_vs_reproduced({"kilt_dev": utils.load("wow_kilt", "dev")})
    row = table[table["name"] == "examples"].iloc[0]
    assert row["status"] == HELD and row["reproduced"] == 3054
    assert assert_held(table) == 1


@pytest.mark.realdata
def test_real_train_sample_is_partial(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    train = utils.load("wow", "train")
    if train.provenance.is_full:
        pytest.skip("the full train.json is present")
    values = stats.summary(train)
    assert values["dialogues"] == 5 and values["utterances"] == 48
    table = stats.reported_vs_reproduced({"train": train})
    assert not (table["status"] == HELD).any()
    assert (table[table["split"] == "train"]["status"] == "not checked: partial").all()


def test_alt_texts_say_what_the_figures_show() -> None:
    train = utils.load("wow", "train")
    seen = {"valid_seen": utils.load("wow", "valid_seen")}
    # demo train candidates, read off the file: 8, 47, 64 (Lighthouse), 39, 62, 59 (Sourdough),
    # 33, 61 (Beekeeping): sorted, the middle two are 47 and 59
    assert stats.candidates_alt({"train": train}).endswith("median train 53.")
    # 16 utterances in 3 dialogues
    assert "utterances per dialogue, mean train 5.3." in stats.lengths_alt({"train": train})
    topics = stats.topics_alt(train, seen)
    assert "the 3 most frequent topics of train" in topics and topics.endswith("valid seen 2 of 2.")


def test_word_counts_match_whitespace_split() -> None:
    split = utils.load("wow", "valid_unseen")
    expected = [len(text.split()) for text in split.turns()["text"]]
    assert stats.word_counts(split).tolist() == expected


# -- ParlAI's teachers ----------------------------------------------------------------------------


def _turn(speaker: str, text: str, passages: list | None = None) -> dict:
    turn: dict = {"speaker": speaker, "text": text, "retrieved_passages": passages or []}
    if "izard" in speaker:
        turn["checked_sentence"] = {"no_passages_used": "no_passages_used"}
        turn["checked_passage"] = {"no_passages_used": "no_passages_used"}
    return turn


def _dialogue(topic: str, speakers: list[str], passage: list[str] | None = None) -> dict:
    return {
        "chosen_topic": topic,
        "persona": "",
        "wizard_eval": 4,
        "chosen_topic_passage": passage or [f"{topic} is a thing."],
        "dialog": [_turn(speaker, f"{topic} turn {i}") for i, speaker in enumerate(speakers)],
    }


def _load(tmp_path: Path, dialogues: list[dict]) -> utils.LoadedSplit:
    path = tmp_path / "wow" / "raw" / "train.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(dialogues), encoding="utf-8")
    return utils.load("wow", "train", data_dir=tmp_path)


W, A = ("0_Wizard", "1_Apprentice"), ("0_Apprentice", "1_Wizard")


def test_each_teacher_counts_with_its_own_rule(tmp_path: Path) -> None:
    split = _load(
        tmp_path,
        [
            _dialogue("Odd wizard", [W[0], W[1]] * 2 + [W[0]]),  # 5 turns, wizard first
            _dialogue("Even apprentice", [A[0], A[1]] * 3),  # 6 turns, apprentice first
            _dialogue("Odd apprentice", [A[0], A[1]] * 3 + [A[0]]),  # 7 turns, apprentice first
            # lower-case speakers: the generator's test is case-sensitive ('Wizard' in speaker),
            # the basic dialogue teachers lower-case the speaker first
            _dialogue("Lower case", ["wizard", "apprentice"] * 2),  # 4 turns, wizard first
        ],
    )
    episodes = stats.parlai_episodes(split)
    assert episodes["turns"].tolist() == [5, 6, 7, 4]
    assert episodes["wizard_of_wikipedia"].tolist() == [5, 6, 7, 4]
    assert episodes["generator"].tolist() == [2, 3, 3, 2]  # (5-1)//2; 6//2; 7//2; 4//2 (no 'Wizard')
    assert episodes["wizard_dialog_knowledge"].tolist() == [2, 3, 3, 2]
    assert episodes["basic_wizard_dialog"].tolist() == [2, 3, 3, 1]  # the last: (4-1)//2
    assert episodes["basic_apprentice_dialog"].tolist() == [2, 2, 3, 2]  # (6-1)//2, (7-1)//2
    assert episodes["basicdialog"].tolist() == [2, 3, 3, 2]
    assert stats.parlai_examples(split) == {
        "wizard_of_wikipedia": 22,
        "generator": 10,
        "wizard_dialog_knowledge": 10,
        "basic_wizard_dialog": 9,
        "basic_apprentice_dialog": 9,
        "basicdialog": 10,
    }


def test_example_turns_follow_parlai_positions(tmp_path: Path) -> None:
    split = _load(tmp_path, [_dialogue("Odd wizard", [W[0], W[1]] * 2 + [W[0]]), _dialogue("Even", [A[0], A[1]] * 2)])

    def labels(teacher: str) -> list[tuple[int, int, bool]]:
        frame = stats.parlai_example_turns(split, teacher)
        return list(zip(frame["dialogue_index"], frame["label_turn"], frame["episode_done"], strict=True))

    # the generator labels wizard turns 0 and 2 of the first dialogue (not its last wizard turn, 4)
    assert labels("generator") == [(0, 0, False), (0, 2, True), (1, 1, False), (1, 3, True)]
    # basic_wizard_dialog answers apprentice turns: labels 2 and 4 of the first dialogue
    assert labels("basic_wizard_dialog") == [(0, 2, False), (0, 4, True), (1, 1, False), (1, 3, True)]
    assert labels("basic_apprentice_dialog") == [(0, 1, False), (0, 3, True), (1, 2, True)]
    assert labels("basicdialog") == [(0, 1, False), (0, 3, True), (1, 1, False), (1, 3, True)]
    wizard = stats.wizard_turns(split)
    assert wizard[wizard["parlai_example"]]["turn_index"].tolist() == [0, 2, 1, 3]
    with pytest.raises(UnknownNameError, match="basicdialog"):
        stats.parlai_example_turns(split, "basic_dialog")


def test_knowledge_lines_count_the_pieces_of_a_sentence_with_a_line_break(tmp_path: Path) -> None:
    # ParlAI joins "<title> __knowledge__ <sentence>" lines with newlines, splits them again and
    # drops empty lines: "A.\nB." is two lines, "C.\n " one.
    dialogue = _dialogue("Tea", [A[0], A[1]], passage=["A.\nB.", "C.\n ", "D."])
    wizard = stats.wizard_turns(_load(tmp_path, [dialogue]))
    assert wizard["candidates"].tolist() == [4]  # three sentences and "no passage used"
    assert wizard["knowledge_lines"].tolist() == [5]


@pytest.mark.realdata
def test_real_train_sample_matches_parlai_fixtures(real_data_dir: Path) -> None:
    """ParlAI's own fixtures record the first examples of each teacher on train.json; the published
    5-dialogue sample is the start of that file, so the rules must give the same examples."""
    yaml = pytest.importorskip("yaml")
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    train = utils.load("wow", "train")
    texts = train.turns().set_index(["dialogue_index", "turn_index"])["text"]
    fixtures = 0
    for teacher in stats.PARLAI_TEACHER_RULES:
        path = real_data_dir / "wow" / "parlai" / f"wizard_of_wikipedia_{teacher}_train.yml"
        if not path.is_file():
            continue
        fixtures += 1
        acts = [act[0] for act in yaml.safe_load(path.read_text(encoding="utf-8"))["acts"]]
        examples = stats.parlai_example_turns(train, teacher).head(len(acts))
        rows = examples[["dialogue_index", "label_turn", "episode_done"]].itertuples(index=False)
        ours = [(texts[(dialogue, turn)], done) for dialogue, turn, done in rows]
        # the default teacher passes each turn's text through; the others put it in the label
        theirs = [(act["labels"][0] if "labels" in act else act["text"], act["episode_done"]) for act in acts]
        assert ours == theirs, teacher
    assert fixtures == len(stats.PARLAI_TEACHER_RULES)
    # hand-read from the fixtures: the sample's first dialogue ("0_Wizard", 10 turns) gives the
    # generator 4 examples and basic_apprentice_dialog 5; the others open with the apprentice
    assert stats.parlai_examples(train) == {
        "wizard_of_wikipedia": 48,
        "generator": 4 + 4 + 5 + 5 + 5,
        "wizard_dialog_knowledge": 23,
        "basic_wizard_dialog": 23,
        "basic_apprentice_dialog": 5 + 3 + 4 + 4 + 4,
        "basicdialog": 24,
    }


@pytest.mark.realdata
def test_real_knowledge_lines_match_the_generator_fixture(real_data_dir: Path) -> None:
    yaml = pytest.importorskip("yaml")
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    path = require_real_file(real_data_dir, "wow/parlai/wizard_of_wikipedia_generator_train.yml")
    acts = [act[0] for act in yaml.safe_load(path.read_text(encoding="utf-8"))["acts"]]
    # ParlAI's EndToEndAgent._parse_knowledge: strip each line, drop empty ones
    theirs = [sum(1 for line in act["knowledge"].split("\n") if line.strip()) for act in acts]
    assert theirs == [8, 49, 57, 55, 31]  # read off the fixture
    wizard = stats.wizard_turns(utils.load("wow", "train"))
    ours = wizard[wizard["parlai_example"]]["knowledge_lines"].head(len(acts)).tolist()
    assert ours == theirs


def test_wizard_turns_are_worked_out_once_per_split_and_each_caller_gets_its_own_copy() -> None:
    split = utils.load("wow", "train")
    first = stats.wizard_turns(split)
    first["candidates"] = -1  # a caller's change stays in its copy
    again = stats.wizard_turns(split)
    assert (again["candidates"] > 0).all()
    assert again.equals(stats._wizard_turns(split))


def test_wizard_turns_read_their_labels_into_columns_and_keep_no_dicts() -> None:
    split = utils.load("wow", "train")
    wizard = stats.wizard_turns(split)
    assert "labels" not in wizard.columns
    labels = split.turns(["labels"])["labels"].loc[wizard.index]
    for name in ("checked_source", "knowledge", "checked_sentence"):
        assert wizard[name].dtype == object
        assert wizard[name].equals(labels.str.get(name).str.get(0).fillna("")), name
    assert (wizard["checked_sentence"] != "").any()


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads Linux's /proc/self/smaps")
def test_scans_of_the_cache_leave_none_of_its_pages_resident(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """wizard_turns reads every passage text of the memory-mapped cache and word_counts every turn's
    text: the pages they read are handed back, so that they do not count as the chapter's memory (on
    the full-size synthetic files, about 45 MB of its peak)."""
    cache = data_dir.parent / "scans-cache"
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(cache))
    split = utils.load("wow", "train")  # the demo sample, through the cache
    assert split._tables.mappings, "the demo split is served from the memory-mapped cache"
    wizard = stats.wizard_turns(split)
    assert resident_cache_kb(cache) == 0
    words = stats.word_counts(split)
    assert resident_cache_kb(cache) == 0
    assert len(wizard) and words.sum() > 0  # still readable: the pages come back from the page cache


def test_chapter_tables_show_the_demo_sample_as_such() -> None:
    train = utils.load("wow", "train")
    held_out = {"valid_seen": utils.load("wow", "valid_seen")}
    sources = stats.checked_source_table(train)
    # 8 wizard turns, one of them "no passage used" (see the hand count above), in the order of CHECKED_SOURCES
    assert list(sources.data["Checked sentence from"])[:4] == list(stats.CHECKED_SOURCES.values())
    assert sources.data["turns"].sum() == 8
    assert sources.data.set_index("Checked sentence from").loc["no passage used", "turns"] == 1
    assert "demo sample" in sources.caption and "8 wizard turns of train" in sources.caption
    overlap = stats.topic_overlap_table(train, held_out)
    assert list(overlap.data["Split"]) == ["valid seen"] and "data" not in overlap.data
    origins = stats.selected_origins_table({"valid_seen": pd.Series({"topic": 0.25, "retrieved:seeker": 0.75})})
    html = origins.to_html()
    assert ">Valid seen (%)<" in html and ">75.0<" in html and "chosen topic" in html
