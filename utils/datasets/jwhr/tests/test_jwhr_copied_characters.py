"""``copied_characters`` finds difflib's blocks in near-linear time, with difflib's results."""

from __future__ import annotations

import random
import time
from difflib import SequenceMatcher
from pathlib import Path

import pytest

import utils
from conftest import require_real_file
from utils.datasets.jwhr import baselines
from utils.datasets.jwhr.parser import QUOTE, answered, sentences, trail

KANA = "".join(chr(code) for code in range(0x3041, 0x3097))


def difflib_copied_characters(target: str, source: str, min_block: int = 4) -> tuple[int, int]:
    """The definition: difflib's matching blocks (autojunk off), as the chapter first computed them."""
    if not target or not source:
        return 0, 0
    matcher = SequenceMatcher(None, source, target, autojunk=False)
    covered = sum(block.size for block in matcher.get_matching_blocks() if block.size >= min_block)
    return covered, matcher.find_longest_match(0, len(source), 0, len(target)).size


def _edited_copy(rng: random.Random, text: str, alphabet: str) -> str:
    """``text`` with characters replaced and pieces moved, as an answer paraphrasing a quote."""
    characters = list(text)
    for _ in range(rng.randint(0, 40)):
        if characters:
            characters[rng.randrange(len(characters))] = rng.choice(alphabet)
    pieces = ["".join(characters[i : i + rng.randint(5, 40)]) for i in range(0, len(characters), 20)]
    if rng.random() < 0.3:
        rng.shuffle(pieces)
    return "".join(pieces)


@pytest.mark.parametrize("repairs", [0, 1, 16])
def test_same_blocks_as_difflib_on_random_texts(repairs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # repairs=0 scans every region that needs it; 1 and 16 exercise the repair path too
    monkeypatch.setattr(baselines, "_REPAIRS_BEFORE_SCAN", repairs)
    rng = random.Random(36 + repairs)
    for _ in range(120):
        alphabet = KANA[: rng.randint(1, 10)]  # small alphabets: many ties and repeats
        source = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        target = _edited_copy(rng, source, alphabet)
        for min_block in (1, 3, 4, 6):
            expected = difflib_copied_characters(target, source, min_block)
            assert baselines.copied_characters(target, source, min_block) == expected, (source, target, min_block)


def test_crossing_blocks_keep_only_the_longest_as_in_difflib() -> None:
    # two blocks cross: difflib keeps the longer one and loses the other, which lies on no side of it
    assert baselines.copied_characters("いろはにABCDほへとち", "ABCDほへとちいろはに", 4) == (
        difflib_copied_characters("いろはにABCDほへとち", "ABCDほへとちいろはに", 4)
    )
    assert baselines.copied_characters("いろはにABCDほへとち", "ABCDほへとちいろはに", 4) == (8, 8)


def _copied_in_runs_of_five(quote: str) -> str:
    """The quote with every sixth character replaced: an answer copying it in five-character runs."""
    return "".join(character if i % 6 else "。" for i, character in enumerate(quote))


def test_an_8000_character_answer_finishes_quickly() -> None:
    # difflib took 11 minutes here on a busy machine, with the same result: frequent characters
    # make each search quadratic, and each run was found by searching again all that follows.
    rng = random.Random(36)
    quote = "".join(rng.choice(KANA[:20]) for _ in range(8000))
    started = time.perf_counter()
    covered, longest = baselines.copied_characters(_copied_in_runs_of_five(quote), quote)
    elapsed = time.perf_counter() - started
    assert elapsed < 5, f"{elapsed:.1f} s"
    # no run is longer than five; most runs are found where they were copied from, a few earlier
    # in the quote (20 letters repeat), which hides some of the runs next to them
    assert longest == 5
    assert 0.85 * 6665 < covered <= 6665


def test_an_8000_character_answer_of_distinct_characters() -> None:
    quote = "".join(chr(0x4E00 + i) for i in range(8000))  # every run can only be where it was copied from
    # 1,333 runs of five (the last character, alone after the last replaced one, is too short)
    assert baselines.copied_characters(_copied_in_runs_of_five(quote), quote) == (1333 * 5, 5)


@pytest.mark.realdata
def test_same_results_as_difflib_on_every_real_answer(real_data_dir: Path) -> None:
    require_real_file(real_data_dir, "jwhr/answered.jsonl")
    compared = 0
    for dialogue in utils.load("jwhr", "answered"):
        if not answered(dialogue):
            continue
        steps = trail(dialogue)
        for sentence in sentences(dialogue):
            quotes = [steps[c].text for c in sentence.citations if steps[c].content == QUOTE]
            if not quotes:
                continue
            source = "\n".join(quotes)
            for min_block in (1, 4):
                expected = difflib_copied_characters(sentence.text, source, min_block)
                assert baselines.copied_characters(sentence.text, source, min_block) == expected, (
                    dialogue.id,
                    sentence.text,
                )
            compared += 1
    assert compared > 1000


def test_ties_go_to_the_block_first_in_the_quote_then_in_the_answer() -> None:
    # "ABCD" and "WXYZ" cross and tie: difflib keeps the one starting first in the quote (WXYZ)
    assert baselines.copied_characters("ABCD-WXYZ", "WXYZ-ABCD", 4) == difflib_copied_characters(
        "ABCD-WXYZ", "WXYZ-ABCD", 4
    )
    assert baselines.copied_characters("ABCD-ABCD", "ABCD", 4) == (4, 4)
