"""The shared pieces: registry, reported numbers, text normalisation, metrics, errors, HTML helpers."""

from __future__ import annotations

import pytest

import utils
from utils import metrics, text
from utils.book.render._html import esc, highlight_words
from utils.errors import DataError, UnknownNameError
from utils.folder_files import CITATION, bibliography_files
from utils.reported import all_reported, reported, reported_value
from utils.sources import registry, registry_table


def test_every_dataset_has_splits_licence_and_citation() -> None:
    for source in registry().values():
        assert source.splits and source.license and source.homepage.startswith("http")
        own = (source.folder / CITATION).read_text(encoding="utf-8")  # the folder holds its citation
        assert f"{{{source.citation_key}," in own, f"{source.citation_key} missing from {source.folder.name}/{CITATION}"
        for files in source.splits.values():
            assert any(not item.partial for item in files), "every split needs a complete official file"


def test_every_reported_number_cites_a_bibliography_entry() -> None:
    bib = "".join(path.read_text(encoding="utf-8") for path in bibliography_files())
    for item in all_reported():
        assert f"{{{item.citation_key}," in bib, item
        assert item.source


def test_reported_lookup() -> None:
    assert reported_value("jwhr", "sessions", "answered").value == 838
    assert set(reported("wow", split="train")["name"]) >= {"dialogues", "utterances", "topics"}
    with pytest.raises(UnknownNameError, match="sessions@answered"):
        reported_value("jwhr", "sessions", "nope")


def test_unknown_names_list_the_valid_ones() -> None:
    with pytest.raises(UnknownNameError, match="wow, wow_kilt"):
        utils.load("wizard", "train")
    with pytest.raises(UnknownNameError, match="answered, not_answered"):
        utils.load("jwhr", "dev")


def test_registry_table_lists_every_file() -> None:
    table = registry_table()
    assert set(table["dataset"]) == set(registry())  # every declared dataset, a fifth one too
    assert {"wow", "wow_kilt", "faithdial", "faithdial_audit", "wise", "jwhr"} <= set(table["dataset"])
    assert (table["path in data directory"] == "jwhr/answered.jsonl").any()


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("The Cat's hat!", "cat s hat"),
        ("an apple, a pear & THE plum", "apple pear plum"),
        ("  multiple   spaces\tand\nlines ", "multiple spaces and lines"),
        ("theatre another", "theatre another"),  # articles only as whole words
        ("co-operate_now", "co operate now"),
        ("", ""),
    ],
)
def test_parlai_normalisation(raw: str, normalised: str) -> None:
    assert text.normalize_parlai(raw) == normalised


def test_unigram_f1_matches_hand_computation() -> None:
    # predicted: [cat, sat, on, mat]; gold: [cat, is, on, mat, today]; overlap 3
    precision, recall = 3 / 4, 3 / 5
    expected = 2 * precision * recall / (precision + recall)
    assert metrics.unigram_f1("The cat sat on the mat.", "A cat is on the mat today") == pytest.approx(expected)
    assert metrics.unigram_f1("", "anything") == 0.0
    # repeated tokens count as a multiset, as in ParlAI
    assert metrics.token_prf(["a", "a", "b"], ["a", "b", "b"]).f1 == pytest.approx(2 / 3)


def test_set_prf_edge_cases() -> None:
    assert metrics.set_prf([], []).f1 == 1.0
    assert metrics.set_prf(["x"], []).f1 == 0.0
    result = metrics.set_prf(["a", "b", "c"], ["b", "c", "d", "e"])
    assert (result.precision, result.recall) == (pytest.approx(2 / 3), pytest.approx(0.5))


def test_recall_at_1_counts_ties_as_misses() -> None:
    assert metrics.recall_at_1([0.1, 0.9, 0.3], 1) == 1.0
    assert metrics.recall_at_1([0.9, 0.9, 0.3], 1) == 0.0


def test_character_rouge_l_and_bleu1() -> None:
    # LCS of 我爱北京天安门 and 我爱上海 is 我爱: P = 2/4, R = 2/7
    score = metrics.rouge_l("我爱上海", "我爱北京天安门", tokenize=text.char_tokens)
    assert (score.precision, score.recall) == (pytest.approx(0.5), pytest.approx(2 / 7))
    assert metrics.corpus_bleu(["我爱北京"], ["我爱北京"], tokenize="zh", max_order=1) == pytest.approx(100.0)


def test_char_tokens_drop_spaces_and_punctuation() -> None:
    assert text.char_tokens("你好， 世界。") == ["你", "好", "世", "界"]
    assert text.char_tokens("你好， 世界。", drop_punctuation=False) == ["你", "好", "，", "世", "界", "。"]
    assert text.char_ngrams("ab c", 2) == ["ab", "bc"]
    # the translation table answers as the rule does, character by character, over the whole of Unicode
    everything = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code < 0xE000)
    for drop in (True, False):
        rule = [char for char in everything if not text._dropped(char, drop)]
        assert text.char_tokens(everything, drop_punctuation=drop) == rule
    assert not any(text._dropped(char, True) for char in "a中の1")
    assert all(text._dropped(char, True) for char in " \t\u3000,。!？_'")
    assert [char for char in " ,。" if text._dropped(char, False)] == [" "]


def test_data_error_names_file_record_and_field() -> None:
    error = DataError("expected a string", path="x.json", record=3, field="text")
    assert str(error) == "file x.json, record 3, field 'text': expected a string"


def test_html_helpers_escape_dataset_text() -> None:
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    assert "<script" not in esc(hostile) and "<img" not in esc(hostile)
    marked = highlight_words("the <b>cat</b> sat", {"cat"})
    assert '<mark class="atlas-shared">cat</mark>' in marked and "<b>" not in marked


def test_word_overlap_highlighting_skips_stopwords() -> None:
    marked = highlight_words("A cat went to the top of the Tower", {"a", "cat", "to", "of", "the", "tower"})
    assert marked.count("<mark") == 2  # cat and Tower; never a, to, of, the
    assert '<mark class="atlas-shared">Tower</mark>' in marked
    assert highlight_words("to be", {"to"}, skip=frozenset()).count("<mark") == 1  # another list, or none


def test_grounding_overlap_is_one_measure_with_parameters() -> None:
    # words as multisets: 3 of the response's 4 normalised words are in the evidence ("a" and "the" drop out)
    prf = metrics.grounding_overlap("The cat sat on a mat.", "A cat sat on the rug.")
    assert (prf.precision, prf.recall) == (0.75, 0.75)
    # pairs of adjacent tokens: (cat, sat) and (sat, on) of the response's 3 pairs
    assert metrics.grounding_overlap("cat sat on mat", "cat sat on rug", n=2).precision == pytest.approx(2 / 3)
    # characters counted as multisets, then as distinct characters (containment)
    chars = list
    assert metrics.grounding_overlap("aaaa", "a", tokenize=chars).precision == 0.25  # multiset: one "a" matches
    assert metrics.grounding_overlap("aaaa", "a", tokenize=chars, distinct=True).precision == 1.0
    assert metrics.grounding_overlap("", "abc", tokenize=chars, distinct=True) == metrics.PRF(0.0, 0.0, 0.0)
    assert metrics.ngrams(["a", "b", "c"], 2) == [("a", "b"), ("b", "c")] and metrics.ngrams(["a"], 2) == []
