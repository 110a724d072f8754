"""Every text and trail routine costs about twice as much on an input twice as long (issue 50, item 1).

Each test builds an adversarial input of size n and 2n for one routine (the shape that made a routine
quadratic, or the worst shape found for one that was not) and bounds the ratio of their CPU times:
a linear routine gives about 2, a quadratic one 4. The sizes are chosen so that the smaller run
takes tens of milliseconds (above the timer's noise) and each test a few seconds.

Routines assessed (what the report of issue 50 lists): JWHR's trail statistics (``session_frame``,
``reference_frame``, ``trail_features``: were quadratic in a chain of links) and its copied
characters; WISE's selected passages on the loader's fast path (were quadratic in a turn selecting
many passages), its authors' ROUGE-L LCS and :func:`utils.metrics.rouge_l` (their tables were
quadratic in a long response: the LCS is now exact a machine word at a time); :func:`utils.text.word_diff`
(FaithDial's edits: was quadratic in repeated words); BEGIN's critic features (their longest copied
run was quadratic in a repeated word); WISE's keyphrase oracle (difflib's longest match, quadratic in
a repeated character); the tokenisers and overlap metrics of :mod:`utils.text` and :mod:`utils.metrics`;
WoW's per-passage parsing loops, compiled and in Python.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import load_written

#: A linear routine's ratio is about 2; a quadratic one's about 4 at these sizes.
MAX_RATIO = 3.0


def _cpu(runs: list[Callable[[], Any]], repeats: int = 3) -> list[float]:
    """The least CPU time of each of ``runs`` over ``repeats`` rounds, the runs alternated within a
    round so that another process's burst or a cache taken by it falls on both sizes alike (the least
    is the run least disturbed), with the garbage collector paused, as ``timeit`` pauses it: a routine
    that allocates many small objects (a suffix automaton's dicts) otherwise pays collections whose
    cost grows with everything alive, and the ratio measures the collector, not the routine (6.5x for
    a fourfold input under load)."""
    best = [float("inf")] * len(runs)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            for i, run in enumerate(runs):
                started = time.process_time()
                run()
                best[i] = min(best[i], time.process_time() - started)
    finally:
        if collecting:
            gc.enable()
    return best


def _assert_doubling(
    name: str, make: Callable[[int], Callable[[], Any]], n: int, repeats: int = 3, factor: int = 2,
    bound: float | None = None,
) -> None:
    """``factor`` times the input costs less than ``factor * MAX_RATIO / 2`` times the time: linear (or
    n log n) passes, quadratic (``factor ** 2``) fails. A routine built on hash tables whose cost per
    item grows with memory (cache misses) is measured over a factor of 4, where quadratic is 16x and
    the bound 6x leaves linear a margin that a doubling's 3x does not."""
    small, large = make(n), make(factor * n)
    small()  # first-call costs (imports, caches) are not the routine's
    bound = bound or factor * MAX_RATIO / 2

    def measured() -> float:
        small_cost, large_cost = _cpu([small, large], repeats)
        return large_cost / max(small_cost, 1e-3)

    ratio = measured()
    if ratio >= bound:
        # measured once more: another process's burst (CI's two cores run four test workers) rarely
        # lands on the same run twice, while a quadratic routine exceeds the bound every time
        ratio = min(ratio, measured())
    assert ratio < bound, f"{name}: {factor * n} items cost {ratio:.1f}x what {n} cost (linear is about {factor}x)"


@pytest.mark.parametrize("factor", [2, 4])
def test_the_measure_fails_a_quadratic_routine(factor: int) -> None:
    """The bound each test below relies on: a routine whose cost is the square of its input fails it."""

    def make(n: int) -> Callable[[], Any]:
        def pairs() -> int:
            return sum(1 for i in range(n) for j in range(n) if i <= j)

        return pairs

    with pytest.raises(AssertionError, match="quadratic pairs"):
        _assert_doubling("quadratic pairs", make, 300, factor=factor)


# -- JWHR -------------------------------------------------------------------------------------------


def _jwhr_chain(tmp_path: Path, links: int) -> list[Any]:
    """One session whose every link was clicked on the page of the step before (valid for the parser)."""
    from utils.loading import parse_file

    def page(title: str) -> dict[str, str]:
        return {"title": title, "url": f"https://ja.wikipedia.org/wiki/{title}"}

    references: list[dict[str, Any]] = [{"search": {"keywords": ["山"]}, "page": page("山")}]
    references += [{"link": {"referrer": i}, "page": page(f"頁{i}")} for i in range(links)]
    session = {
        "id": 1,
        "question": "山とは？",
        "answer": {"text": "山です。", "sentences": [{"text": "山です。", "citations": [0]}]},
        "references": references,
    }
    path = tmp_path / f"chain{links}.jsonl"
    path.write_text(json.dumps(session, ensure_ascii=False) + "\n", encoding="utf-8")
    return list(parse_file("jwhr", path, "answered"))


@pytest.mark.parametrize("routine", ["session_frame", "reference_frame", "trail_features"])
def test_jwhr_trail_statistics_are_linear_in_a_chain_of_links(tmp_path: Path, routine: str) -> None:
    from utils.datasets.jwhr import baselines, stats

    function = getattr(baselines if routine == "trail_features" else stats, routine)
    sessions = {n: _jwhr_chain(tmp_path, n) for n in (8_000, 16_000)}
    _assert_doubling(routine, lambda n: lambda: function(sessions[n]), 8_000)


def test_jwhr_link_depths_match_link_depth(tmp_path: Path) -> None:
    from utils.datasets.jwhr import stats

    steps = stats.trail(_jwhr_chain(tmp_path, 50)[0])
    assert stats.link_depths(steps) == [stats.link_depth(steps, i) for i in range(len(steps))] == list(range(51))


@pytest.mark.parametrize("shape", ["one repeated character", "copied in many short runs"])
def test_jwhr_copied_characters_is_near_linear(shape: str) -> None:
    from utils.datasets.jwhr.baselines import copied_characters

    def make(n: int) -> Callable[[], Any]:
        if shape == "one repeated character":
            target, source = "の" * n, "の" * n
        else:  # each five characters of the answer copied, then a character of its own
            target = "".join(chr(0x4E00 + i % 5000) for i in range(n))
            source = "".join(target[i : i + 5] + "・" for i in range(0, n, 5))
        return lambda: copied_characters(target, source)

    _assert_doubling(f"copied_characters ({shape})", make, 20_000)


# -- WISE -------------------------------------------------------------------------------------------


def test_wise_selected_passages_are_linear_in_a_turn(data_dir: Path) -> None:
    """A system turn that shows n passages and selects all of them, loaded on the fast path."""

    def conversation(n: int) -> str:
        passages = [f"{1000000 + i // 50}-{i % 50 + 1}" for i in range(n)]
        system = {
            "msg_id": 2, "turn_id": 1, "role": "system", "state": [], "query_candidate": [], "action": ["Answer"],
            "selected_query": [], "response": "好的", "document_candidate": [], "selected_document": [],
            "passage_candidate": passages, "selected_passage": passages[::-1],
        }
        user = {"msg_id": 1, "turn_id": 1, "role": "user", "intent": ["Reveal"], "response": "你好"}
        return json.dumps({"conversation_id": 1, "conversations": [user, system]}, ensure_ascii=False) + "\n"

    texts = {n: conversation(n) for n in (20_000, 40_000)}

    def make(n: int) -> Callable[[], Any]:
        return lambda: len(load_written("wise", "train", texts[n], data_dir).evidence(["selected"]))

    _assert_doubling("WISE selected passages", make, 20_000, repeats=1)
    assert len(load_written("wise", "train", texts[20_000], data_dir).evidence(["selected"])) == 20_000


def test_wise_lcs_is_exact_and_word_parallel() -> None:
    """The authors' ROUGE-L needs the exact LCS, whose table is quadratic: it is computed a machine
    word at a time, so a 20,000-token turn costs a fraction of a second (the table cell by cell: minutes)."""
    import random

    from utils.datasets.wise.baselines import lcs_length

    def table(first: list[str], second: list[str]) -> int:
        previous = [0] * (len(second) + 1)
        for token in first:
            current = [0]
            for j, other in enumerate(second, start=1):
                current.append(previous[j - 1] + 1 if token == other else max(previous[j], current[j - 1]))
            previous = current
        return previous[-1]

    generator = random.Random(50)
    for _ in range(300):
        first = generator.choices("abcd", k=generator.randint(0, 25))
        second = generator.choices("abcd", k=generator.randint(0, 25))
        assert lcs_length(first, second) == table(first, second), (first, second)
    first, second = generator.choices("ab", k=20_000), generator.choices("ab", k=20_000)
    assert _cpu([lambda: lcs_length(first, second)], repeats=1)[0] < 1.0


# -- text and metrics -------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["one repeated word", "a few words reordered", "every third word replaced"])
def test_word_diff_is_near_linear(shape: str) -> None:
    from utils.text import word_diff

    def texts(n: int) -> tuple[str, str]:
        if shape == "one repeated word":
            return " ".join(["w"] * n), " ".join(["w"] * (n // 2) + ["x"] + ["w"] * (n // 2))
        if shape == "a few words reordered":
            return " ".join(f"w{i % 300}" for i in range(n)), " ".join(f"w{i * 7 % 300}" for i in range(n))
        return " ".join(f"u{i}" for i in range(n)), " ".join(f"u{i}" if i % 3 else f"v{i}" for i in range(n))

    def make(n: int) -> Callable[[], Any]:
        before, after = texts(n)
        return lambda: word_diff(before, after)

    _assert_doubling(f"word_diff ({shape})", make, 20_000)
    before, after = texts(2_000)
    pieces = word_diff(before, after)
    assert " ".join(t for op, t in pieces if op != "insert").split() == before.split()
    assert " ".join(t for op, t in pieces if op != "delete").split() == after.split()


@pytest.mark.parametrize(
    "routine", ["normalize_parlai", "word_tokens", "char_tokens", "char_ngrams", "token_prf", "ngram_prf", "unigram_f1"]
)
def test_tokenisers_and_metrics_are_linear(routine: str) -> None:
    from utils import metrics, text

    def make(n: int) -> Callable[[], Any]:
        words = " ".join(["the", "a", "an", "word!", "文字。"] * (n // 5))
        tokens = words.split()
        runs: dict[str, Callable[[], Any]] = {
            "normalize_parlai": lambda: text.normalize_parlai(words),
            "word_tokens": lambda: text.word_tokens(words),
            "char_tokens": lambda: text.char_tokens(words),
            "char_ngrams": lambda: text.char_ngrams(words, 3),
            "token_prf": lambda: metrics.token_prf(tokens, tokens[::-1]),
            "ngram_prf": lambda: metrics.ngram_prf(tokens, tokens[::-1], 2),
            "unigram_f1": lambda: metrics.unigram_f1(words, words),
        }
        return runs[routine]

    _assert_doubling(routine, make, 100_000)


# -- longest common runs: BEGIN's critic features, WISE's keyphrase oracle ---------------------------


def test_longest_common_run_matches_the_direct_search_and_is_linear() -> None:
    import random
    from difflib import SequenceMatcher

    from utils.metrics import SubstringIndex, longest_common_run

    generator = random.Random(50)
    for _ in range(500):
        text = "".join(generator.choices("abc", k=generator.randint(0, 20)))
        other = "".join(generator.choices("abc", k=generator.randint(0, 20)))
        found = SequenceMatcher(None, text, other, autojunk=False).find_longest_match(0, len(text), 0, len(other))
        assert SubstringIndex(text).longest_match(other) == ((found.a, found.size) if found.size else (0, 0))
        assert longest_common_run(list(other), list(text)) == found.size
    # A suffix automaton of dicts: measured over a factor of 4 (quadratic 16x, the bound 6x). A doubling's
    # bound of 3x failed twice beside the browser tests (3.03x, 3.3x) and never alone.
    _assert_doubling(
        "longest_common_run", lambda n: lambda: longest_common_run(["cat"] * n, ["cat"] * n), 40_000, factor=4
    )


def test_begin_critic_features_are_linear_in_a_repeated_word() -> None:
    from utils.datasets.begin.baselines import _feature_values

    # the computation itself: features() remembers the values of texts it has seen (issue 50, item 9)
    compute = _feature_values.__wrapped__  # type: ignore[attr-defined]

    def make(n: int) -> Callable[[], Any]:
        response, knowledge = " ".join(["cat"] * n), " ".join(["cat"] * n)
        return lambda: compute(response, knowledge, "a message")

    # 10,000 words took 13 ms, short enough for a burst of load to move the ratio past 3 (3.3 in CI);
    # over a factor of 4 from 40,000 words the smaller run takes about 50 ms and quadratic is 16x
    _assert_doubling("begin features", make, 40_000, factor=4, bound=9.0)


def test_wise_keyphrase_oracle_is_linear_in_a_repeated_character() -> None:
    from types import SimpleNamespace

    from utils.datasets.wise.baselines import extract_keyphrases

    def make(n: int) -> Callable[[], Any]:
        example = SimpleNamespace(user_text="的" * n, query_candidates=["的" * (n // 2), "的" * n])
        return lambda: extract_keyphrases(example)  # type: ignore[arg-type]

    # a suffix automaton: a dict per state, so its cost per character grows with memory (a fourfold
    # input measured 4.9x quiet and 6.5x under load); quadratic, as difflib was, would be 16x
    _assert_doubling("WISE extract_keyphrases", make, 25_000, factor=4, bound=9.0)
    example = SimpleNamespace(user_text="我想了解现代舞的起源", query_candidates=["爵士舞", "现代舞的起源", "舞的"])
    assert extract_keyphrases(example) == ["现代舞的起源"]  # type: ignore[arg-type]


def test_rouge_l_is_rouge_scores_and_word_parallel() -> None:
    import random

    from rouge_score import rouge_scorer

    from utils.metrics import rouge_l

    scorer = rouge_scorer.RougeScorer(["rougeL"])
    generator = random.Random(50)
    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "Mat", "CAT,", "running", "runs", "3"]
    for _ in range(300):
        predicted, gold = (" ".join(generator.choices(words, k=generator.randint(0, 15))) for _ in range(2))
        theirs = scorer.score(gold, predicted)["rougeL"]
        ours = rouge_l(predicted, gold)
        assert (ours.precision, ours.recall, ours.f1) == (theirs.precision, theirs.recall, theirs.fmeasure)
    long = " ".join(generator.choices(["cat", "dog"], k=20_000))
    assert _cpu([lambda: rouge_l(long, long[::-1])], repeats=1)[0] < 1.0  # rouge-score's own table: about 35 s


# -- WoW --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("loops", ["compiled", "python"])
def test_wow_per_passage_loops_are_linear_in_a_turns_passages(loops: str) -> None:
    """WoW's typed path: the passages one wizard turn shows, and their rows among those met before.
    The turn before retrieved n passages: half under distinct titles, half under one title with other
    sentences each time (kept once in a turn, the rest noted as not shown; each a new row)."""
    from utils.datasets.wow import _native
    from utils.datasets.wow import parser as wow

    module = wow._built_speedups() if loops == "compiled" else _native
    if module is None:
        pytest.skip("the compiled loops are not built in this install")

    def make(n: int) -> Callable[[], Any]:
        retrieved = [[{f"title {i}" if i % 2 else "one title": [f"sentence {i}", "again"]} for i in range(n)], None]
        roles = [wow.SEEKER, wow.WIZARD]

        def run() -> None:
            for _ in range(40):  # a millisecond or so each: forty, to be well above the timer's noise
                titles, sentence_lists, *_ = module.shown_passages(
                    retrieved, roles, wow.WIZARD, wow.SEEKER, "topic", ["a"], "topic#", (0, 1, 2)
                )
                module.passage_rows(titles * 2, sentence_lists * 2, {}, {}, 0, 0, 1 << 40, wow._decode_sentences)

        return run

    # Built on hash tables: measured over a factor of 4 (quadratic 16x, the bound 6x), at sizes whose
    # tables stay within the processor's caches, shared with CI's other test workers: from 5,000 to
    # 20,000 passages cost 4.6-5.8x beside three memory-bound processes and 6.05x once in CI, from
    # 2,000 to 8,000 4.2-4.5x beside the same
    _assert_doubling(f"wow {loops} loops", make, 2_000, factor=4)
