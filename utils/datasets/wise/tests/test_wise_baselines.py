"""WISE baselines and the authors' evaluation definitions, on hand-checked examples."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import utils
from utils.datasets.wise import baselines as bl
from utils.records import SEEKER, WIZARD, Dialogue, Evidence, Turn
from utils.text import char_ngrams, char_tokens

approx = pytest.approx

# gold = A A B C, predicted = A B B D (worked by hand below)
GOLD = ["A", "A", "B", "C"]
PRED = ["A", "B", "B", "D"]


def test_original_macro_t1_skips_unpredicted_classes_in_precision() -> None:
    # evaluate_T1 (the authors' intent score): classes are the gold ones, A B C.
    # precision: A 1/1, B 1/2 (C never predicted: skipped) -> 1.5 / 2
    # recall: A 1/2, B 1/1, C 0 -> 1.5 / 3; F1: A 2/3, B 2/3, C 0 -> (4/3) / 3
    score = bl.original_macro_prf(GOLD, PRED, plus_one=False)
    assert score.precision == approx(0.75)
    assert score.recall == approx(0.5)
    assert score.f1 == approx(4 / 9, abs=1e-6)


def test_original_macro_t3_divides_by_classes_plus_one() -> None:
    # evaluate_T3: the same sums as above, each divided by one more than its number of classes:
    # precision 1.5 / (2 + 1), recall 1.5 / (3 + 1), F1 (4/3) / (3 + 1)
    score = bl.original_macro_prf(GOLD, PRED, plus_one=True)
    assert score.precision == approx(1.5 / 3)
    assert score.recall == approx(1.5 / 4)
    assert score.f1 == approx((4 / 3) / 4, abs=1e-6)


def test_standard_macro_counts_every_class_seen() -> None:
    # classes A B C D; precision A 1, B .5, C 0 (never predicted), D 0 -> 1.5/4
    # recall A .5, B 1, C 0, D 0 (never gold) -> 1.5/4; F1 2/3, 2/3, 0, 0 -> (4/3)/4
    score = bl.standard_macro_prf(GOLD, PRED)
    assert (score.precision, score.recall, score.f1) == (approx(0.375), approx(0.375), approx(1 / 3))


def test_macro_averages_agree_on_a_perfect_prediction_only_without_plus_one() -> None:
    gold = ["A", "B", "B"]
    assert bl.original_macro_prf(gold, gold, plus_one=False).f1 == approx(1.0, abs=1e-6)
    assert bl.standard_macro_prf(gold, gold).f1 == approx(1.0)
    # two classes: the +1 caps a perfect system at 2/3
    assert bl.original_macro_prf(gold, gold, plus_one=True).f1 == approx(2 / 3, abs=1e-6)
    assert bl.original_macro_prf([], [], plus_one=True).f1 == 0.0


SELECTION_GOLD = [["a", "b"], ["c"], ["e"], [], ["f"]]
SELECTION_PRED = [["a"], ["d"], ["e"], ["x"], ["f"]]
SELECTION_ACTIONS = ["Answer-fact-text", "Answer-fact-text", "Clarify-Choice", "Answer-fact-text", "Chitchat"]


def test_original_selection_prf_by_hand() -> None:
    # scored: 1 (p 1, r .5, f 2/3), 2 (0, 0, 0) -> Answer-fact-text means .5 .25 1/3; 3 -> Clarify 1 1 1
    # 4 has no gold and 5 is not Clarify/Answer: skipped. Sums divided by 2 actions + 1.
    score = bl.original_selection_prf(SELECTION_GOLD, SELECTION_PRED, SELECTION_ACTIONS)
    assert score.precision == approx(1.5 / 3)
    assert score.recall == approx(1.25 / 3)
    assert score.f1 == approx((1 / 3 + 1) / 3, abs=1e-6)


def test_standard_selection_prf_by_hand() -> None:
    score = bl.standard_selection_prf(SELECTION_GOLD, SELECTION_PRED, SELECTION_ACTIONS)
    assert score.precision == approx(2 / 3)
    assert score.recall == approx(0.5)
    assert score.f1 == approx((2 / 3 + 1) / 3)


def test_original_selection_precision_skips_empty_predictions() -> None:
    score = bl.original_selection_prf([["a"], ["b"]], [[], ["b"]], ["Answer-fact-text"] * 2)
    # precision only from the second example (1.0); recall (0 + 1)/2; both / (1 + 1)
    assert score.precision == approx(0.5)
    assert score.recall == approx(0.25)


# -- BLEU-1 and ROUGE-L as CaSE_WISE computes them (NLTK 3.5 BLEU, Rouge.py with beta 1.2) ---------

B2 = 1.2**2  # beta squared in Rouge.py's F = (1 + b2) P R / (R + b2 P)


def test_authors_char_tokens() -> None:
    # common/Utils.py char_tokenizer: lower-case, whitespace dropped, punctuation kept, a link one token
    assert bl.authors_char_tokens("iPhone 价格。") == ["i", "p", "h", "o", "n", "e", "价", "格", "。"]
    assert bl.authors_char_tokens("看##<link##3##link>##吧\u3000") == ["看", "[Link]", "吧"]
    # a span the link pattern ([1-9] first) does not split but that holds both markers becomes one
    # [Link] as a whole, neighbours included: the tokenizer tests the markers, not the pattern
    assert bl.authors_char_tokens("看##<link##0##link>##吧") == ["[Link]"]


def test_char_bleu1_by_hand() -> None:
    # 我想学跳舞 in 我想学习跳舞: m = 5 matches, c = 5, r = 6 -> BP exp(1 - 6/5); (5+1)/(5+1) = 1
    assert bl.char_bleu1("我想学跳舞", "我想学习跳舞") == approx(math.exp(-0.2))
    # 猫咪疫苗 / 猫咪价格: m = 2, c = r = 4 -> BP 1; NLTK 3.5's method2 smooths unigrams: (2+1)/(4+1)
    assert bl.char_bleu1("猫咪疫苗", "猫咪价格") == approx(3 / 5)
    # abx / abc: (2+1)/(3+1) = 3/4, not the unsmoothed 2/3
    assert bl.char_bleu1("abx", "abc") == approx(3 / 4)
    # no matching character: 0, whatever the smoothing
    assert bl.char_bleu1("猫", "狗") == 0.0 and bl.char_bleu1("", "猫") == 0.0
    # punctuation and case count as the authors' tokens: iphone价格。 (9) vs iphone价格 (8):
    # m = 8, c = 9 > r = 8 -> BP 1; (8+1)/(9+1)
    assert bl.char_bleu1("iPhone 价格。", "iphone价格") == approx(9 / 10)


def test_char_rouge_l_beta_1_2_by_hand() -> None:
    # LCS 5: P = 5/5, R = 5/6; F = 2.44 * 1 * 5/6 / (5/6 + 1.44 * 1) = (61/30) / (341/150) = 305/341
    assert bl.char_rouge_l("我想学跳舞", "我想学习跳舞") == approx(305 / 341)
    # (beta 1, the plain F1, would give 2PR / (P + R) = 10/11)
    assert bl.char_rouge_l("我想学跳舞", "我想学习跳舞") != approx(10 / 11)
    # P = R = 1/2 -> F = 1/2 for any beta
    assert bl.char_rouge_l("猫咪疫苗", "猫咪价格") == approx(0.5)
    # iphone价格。 vs iphone价格: LCS 8, P = 8/9, R = 1; F = 2.44 * 8/9 / (1 + 1.44 * 8/9) = 19.52 / 20.52
    assert bl.char_rouge_l("iPhone 价格。", "iphone价格") == approx(488 / 513)
    assert bl.char_rouge_l("猫", "狗") == 0.0
    assert bl.char_rouge_l("", "猫") == 0.0 and bl.char_rouge_l("猫", " ") == 0.0  # Rouge.py would crash


def test_multi_reference_scores_by_hand() -> None:
    # evaluate_T2 scores a predicted phrase against all gold phrases at once.
    refs = [list("现代舞"), list("爵士舞")]
    # 爵士舞蹈: clipped matches 爵 1 + 士 1 + 舞 1 + 蹈 0 = 3, c = 4, closest r = 3 < c -> BP 1; 4/5
    assert bl.authors_bleu1(refs, list("爵士舞蹈")) == approx(4 / 5)
    # LCS 1 and 3: P = max(1/4, 3/4), R = max(1/3, 3/3) = 1; F = 2.44 * .75 / (1 + 1.44 * .75) = 183/208
    assert bl.authors_rouge_l(refs, list("爵士舞蹈")) == approx(183 / 208)
    # P and R are maximised separately: ab gives R = 1 (P 1/2), abcdxyzw gives P = 1 (R 1/2): F = 1
    assert bl.authors_rouge_l([list("ab"), list("abcdxyzw")], list("abcd")) == approx(1.0)
    # BLEU: every hypothesis token is in abcdxyzw (m = 4, c = 4); closest length 2 < 4 -> BP 1; 5/5
    assert bl.authors_bleu1([list("ab"), list("abcdxyzw")], list("abcd")) == approx(1.0)
    assert bl.authors_rouge_l([list("ab")], list("ab"), beta=1.0) == approx(1.0)


def test_authors_bleu1_equals_nltk_with_the_method2_of_nltk_3_5() -> None:
    nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")

    def method2_as_in_nltk_3_5(p_n: list, *args: object, **kwargs: object) -> list[float]:
        return [(p.numerator + 1) / (p.denominator + 1) for p in p_n]  # unigrams smoothed too

    rng = random.Random(2)
    alphabet = "猫狗疫苗三针ab。"
    for _ in range(300):
        references = [[rng.choice(alphabet) for _ in range(rng.randint(1, 8))] for _ in range(rng.randint(1, 3))]
        hypothesis = [rng.choice(alphabet) for _ in range(rng.randint(1, 8))]
        expected = nltk_bleu.sentence_bleu(references, hypothesis, weights=(1.0,),
                                           smoothing_function=method2_as_in_nltk_3_5)
        assert bl.authors_bleu1(references, hypothesis) == approx(expected, abs=1e-12)


def test_generation_scores_average_per_action_plus_one() -> None:
    scores = bl.generation_scores(
        ["我想学跳舞", "猫", "猫咪疫苗", "你好"], ["我想学习跳舞", "狗", "猫咪价格", "再见"],
        ["Answer-fact-text", "Answer-fact-text", "Clarify-Open", "Chitchat"],
    )
    assert scores["examples"] == 3  # the Chitchat turn is not scored
    # ROUGE-L per turn: 305/341, 0 (Answer-fact-text, mean 305/682) and 1/2 (Clarify-Open)
    assert scores["authors_rouge_l"] == approx((305 / 682 + 0.5) / (2 + 1))
    assert scores["plain_rouge_l"] == approx((305 / 341 + 0 + 0.5) / 3)
    # BLEU-1 per turn: exp(-0.2), 0, 3/5
    assert scores["authors_bleu1"] == approx((math.exp(-0.2) / 2 + 3 / 5) / 3)
    assert scores["plain_bleu1"] == approx((math.exp(-0.2) + 3 / 5) / 3)
    assert bl.generation_scores([], [], [])["examples"] == 0


def test_keyphrase_scores_skip_turns_without_a_prediction() -> None:
    scores = bl.keyphrase_scores(
        [["爵士舞蹈"], [], ["猫"], ["猫", "狗"]],
        [["现代舞", "爵士舞"], ["猫"], ["狗"], []],
        ["Answer-open-text", "Answer-open-text", "Chitchat", "Answer-open-text"],
    )
    # scored: the first turn only (the second predicted nothing, the third is Chitchat, the fourth
    # has no gold state). One action: BLEU 4/5 and ROUGE 183/208, divided by 1 + 1 the authors' way.
    assert scores["examples"] == 1
    assert scores["authors_bleu1"] == approx(4 / 5 / 2) and scores["plain_bleu1"] == approx(4 / 5)
    assert scores["authors_rouge_l"] == approx(183 / 208 / 2)
    # two predicted phrases are averaged: 猫 against 猫 is (1+1)/(1+1) = 1, 狗 is 0 -> 1/2
    two = bl.keyphrase_scores([["猫", "狗"]], [["猫"]], ["Clarify-Choice"])
    assert two["plain_bleu1"] == approx(0.5) and two["authors_bleu1"] == approx(0.25)


# -- examples and baselines ---------------------------------------------------------------------------


def _dialogue() -> Dialogue:
    passages = [
        Evidence("1-1", "猫三联疫苗一共三针。每针间隔三到四周。", origin="passage", selected=True),
        Evidence("1-2", "狂犬疫苗每年加强一次。", origin="passage"),
        Evidence("2-1", "", origin="passage"),
    ]
    return Dialogue(
        "9", "wise", "test", [
            Turn(0, SEEKER, "user", "小猫要打几针猫三联疫苗？", labels={"intent": ["Reveal"]}),
            Turn(1, WIZARD, "system", "猫三联疫苗一共三针。", evidence=passages, labels={
                "action": ["Answer", "fact-text"], "state": ["疫苗"],
                "query_candidate": ["狂犬疫苗", "猫三联疫苗几针"], "selected_query": ["猫三联疫苗几针"],
                "selected_passage": ["1-1"]}),
            Turn(2, SEEKER, "user", "好的", labels={"intent": ["Feedback", "Good"]}),
            Turn(3, WIZARD, "system", "不客气", labels={"action": ["Chitchat"]}),
        ],
    )


def test_examples_take_the_latest_user_intent() -> None:
    first, second = bl.system_turn_examples([_dialogue()])
    assert (first.intent, first.action, first.action_group) == ("Reveal", "Answer-fact-text", "Answer")
    assert first.context == ("小猫要打几针猫三联疫苗？",) and first.scored_by_authors
    assert first.passage_texts.keys() == {"1-1", "1-2"}
    assert (second.intent, second.user_text, second.scored_by_authors) == ("Feedback-Good", "好的", False)


def test_lexical_rankers_pick_the_matching_candidates() -> None:
    example = bl.system_turn_examples([_dialogue()])[0]
    assert bl.select_queries(example, 1) == ["猫三联疫苗几针"]
    assert bl.select_passages(example, 1) == ["1-1"]
    assert bl.rank_candidates("任何", []) == []
    assert bl.selection_size([["a", "b"], [], ["c"], ["d", "e", "f"]]) == 2
    assert bl.selection_size([]) == 1


def test_extractive_baselines() -> None:
    example = bl.system_turn_examples([_dialogue()])[0]
    assert bl.extract_keyphrases(example) == ["猫三联疫苗"]
    assert bl.extractive_response(example) == "猫三联疫苗一共三针。"
    assert bl.split_sentences("第一句。第二句！第三") == ["第一句。", "第二句！", "第三"]


def test_majority_and_classifier() -> None:
    assert bl.majority_label(["b", "a", "b", "a"]) == "a"
    texts = ["我想了解爵士舞", "我想了解现代舞", "谢谢，很好", "很好，谢谢你"]
    labels = ["Reveal", "Reveal", "Feedback-Good", "Feedback-Good"]
    model = bl.CharTfidfClassifier().fit(texts, labels)
    assert model.predict(["我想了解街舞", "很好"]) == ["Reveal", "Feedback-Good"]
    assert bl.CharTfidfClassifier().fit(texts[:2], labels[:2]).predict(["x"]) == ["Reveal"]


def test_tables_on_the_demo_sample() -> None:
    splits = {name: utils.load("wise", name) for name in ("train", "test_seen", "test_unseen")}
    examples = bl.examples_by_split(splits)
    train = examples.pop("train")
    classification = bl.classification_scores(train, examples)
    assert set(classification.index.get_level_values("task")) == {"intent", "action"}
    assert len(classification) == 2 * 2 * 2  # tasks x models x test splits
    assert list(classification.columns.get_level_values("averaging").unique()) == [bl.AUTHORS, bl.PLAIN_MACRO]
    assert bl.AUTHORS == "as the authors score it (CaSE_WISE Evaluation.py)"
    selection = bl.selection_scores(train, examples)
    generation = bl.generation_frame(examples)
    for table, plain in ((selection, bl.PLAIN_MEAN), (generation, bl.PLAIN_MEAN)):
        assert list(table.columns.get_level_values("averaging").unique()) == [bl.AUTHORS, plain]
    for table in (classification, selection):
        assert list(table[bl.AUTHORS].columns) == ["precision", "recall", "f1"]
    assert list(generation[bl.AUTHORS].columns) == ["bleu1", "rouge_l"]
    for table in (classification, selection, generation):
        assert table.stack(list(range(table.columns.nlevels)), future_stack=True).between(0, 1).all()
    # the authors' T3 divides by classes + 1: never above the plain mean's ceiling of 1, and for
    # selection and generation below the plain mean here
    assert (selection[bl.AUTHORS]["f1"] <= selection[bl.PLAIN_MEAN]["f1"]).all()
    # and for the majority class's intents, the authors' precision is never below the plain macro one
    majority = classification.xs(("intent", "majority class"), level=("task", "model"))
    assert (majority[bl.AUTHORS]["precision"] >= majority[bl.PLAIN_MACRO]["precision"]).all()


def test_score_tables_for_readers() -> None:
    import html
    import re

    splits = {name: utils.load("wise", name) for name in ("train", "test_seen", "test_unseen")}
    examples = bl.examples_by_split(splits)
    train = examples.pop("train")
    data = [split.provenance for split in splits.values()]
    classification = bl.classification_scores(train, examples)
    table = bl.scores_table(classification, caption="T1 and T3.", data=data)
    page = table.to_html()
    headers = [html.unescape(h) for h in re.findall(r'class="col_heading[^"]*"[^>]*>([^<]*)<', page)]
    # two header rows: the averagings spanning their metrics, then one word per column
    assert headers == ["", "as the authors score it", "plain macro average",
                       "Task", "Model", "Test split", "Turns", "P", "R", "F1", "P", "R", "F1"]
    assert 'colspan="3">as the authors score it<' in page
    cells = [html.unescape(c) for c in re.findall(r'class="data row0 [^"]*"\s*>([^<]*)<', page)]
    first = classification.iloc[0]
    assert cells[:4] == ["intent", "majority class", "test seen", "4"]  # split names without "_"
    assert cells[4] == f"{first[(bl.AUTHORS, 'precision')]:.3f}" and len(cells) == 10
    assert table.caption == "Computed on the atlas's demo sample (wise/test_seen, wise/test_unseen, wise/train), " \
        "not the dataset. T1 and T3."
    assert any("CaSE_WISE Evaluation.py" in note for note in table.notes)
    assert any("scikit-learn" in note for note in table.notes)
    generation = bl.scores_table(bl.generation_frame(examples))
    assert "BLEU-1" in generation.to_html() and "ROUGE-L" in generation.to_html()
    assert not any("P precision" in note for note in generation.notes)  # no P or R column there
    counts = bl.example_counts({"train": train, **examples}, data=data)
    cells = [html.unescape(c) for c in re.findall(r'class="data row\d+ [^"]*"\s*>([^<]*)<', counts.to_html())]
    # 16 system utterances in train, 11 of them Clarify or Answer (9 Answer + 2 Clarify)
    assert cells[:3] == ["train", "16", "11"]


# -- the fast paths give the library's and the plain path's results exactly ---------------------------


def test_bigrams_match_char_tokens_and_char_ngrams() -> None:
    rng = random.Random(0)
    alphabet = "猫狗疫苗三针。，！？ a-b_\t\u3000\u00a0哈哈"
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        compact = "".join(char_tokens(text))
        assert bl._bigrams(text) == (char_ngrams(compact, 2) or list(compact)), text


def test_bm25plus_ranking_worked_by_hand() -> None:
    # Query bigram 甲乙; candidates of 4, 1 and 1 bigrams, so avgdl = 2; 甲乙 is in 2 of N = 3,
    # idf = ln((3 + 1) / 2) = ln 2 (BM25Okapi's would be ln(1.5 / 2.5) < 0, floored, and the order lost).
    # score = idf * (delta + tf * (k1 + 1) / (k1 * (1 - b + b * len / avgdl) + tf)), k1 1.5, b 0.75, delta 1:
    #   "甲乙丙丁戊": ln2 * (1 + 2.5 / (1.5 * 1.75 + 1))   = ln2 * 1.690 = 1.171
    #   "甲乙":       ln2 * (1 + 2.5 / (1.5 * 0.625 + 1))  = ln2 * 2.290 = 1.588
    #   "丙丁":       ln2 * (1 + 0)                         = 0.693 (delta: a missing word still counts)
    assert bl.rank_candidates("甲乙", ["甲乙丙丁戊", "甲乙", "丙丁"]) == [1, 0, 2]


def test_bm25_ties_keep_the_original_order() -> None:
    assert bl.rank_candidates("猫狗", ["鱼鸟", "虫蛇", "猫狗", "鸟鱼"]) == [2, 0, 1, 3]
    assert bl.rank_candidates("猫狗", ["猫狗", "猫狗"]) == [0, 1]
    # a candidate with no bigram (punctuation only) is still ranked, not dropped
    assert bl.rank_candidates("猫狗", ["。", "猫狗"]) == [1, 0]


def test_scores_equal_rank_bm25_s_on_the_whole_index_bit_for_bit() -> None:
    # _bm25_scores indexes every word the context lacks as one placeholder and leaves out query
    # words no candidate has; the library's own scores on every word of every candidate and the
    # whole query must be the same floats, not merely in the same order.
    import numpy as np
    from rank_bm25 import BM25Plus

    rng = random.Random(1)
    alphabet = "猫狗疫苗三针每年加强一次哈。，"

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))

    for _ in range(300):
        candidates = [text() for _ in range(rng.randint(1, 8))]
        context = text() + "鱼鸟虫"  # words no candidate has
        scores = BM25Plus([bl._bigrams(c) or [""] for c in candidates]).get_scores(bl._bigrams(context))
        assert np.array_equal(bl._bm25_scores(context, candidates), scores), (context, candidates)
        expected = sorted(range(len(candidates)), key=lambda index: (-scores[index], index))
        assert bl.rank_candidates(context, candidates) == expected


def test_examples_from_the_cached_tables_equal_those_from_dialogues() -> None:
    for name in ("train", "test_seen"):
        split = utils.load("wise", name)
        assert bl.system_turn_examples(split) == bl.system_turn_examples(list(split))


def test_the_classifier_is_logistic_regression_at_its_optimum() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    train = bl.system_turn_examples(utils.load("wise", "train"))
    tests = [e.user_text for e in bl.system_turn_examples(utils.load("wise", "test"))]
    texts = [e.user_text for e in train]
    vectorizer = TfidfVectorizer(analyzer="char", ngram_range=(1, 3), sublinear_tf=True)
    features = vectorizer.fit_transform(texts)
    merge = bl._merge_identical_columns(features)
    assert merge.shape[1] < features.shape[1]  # short texts share many one-off n-grams
    assert np.allclose((merge.T @ merge).toarray(), np.eye(merge.shape[1]))  # orthonormal columns
    on_tests = vectorizer.transform(tests)
    shared = bl.CharTfidfFeatures(texts)
    for target in ("intent", "action"):
        labels = [getattr(e, target) for e in train]
        # without the classifier's shortcuts (merged float32 columns, Newton-CG): float64 columns as
        # the vectorizer gives them, L-BFGS run far past scikit-learn's default tolerance
        plain = LogisticRegression(tol=1e-10, max_iter=10_000).fit(features, labels)
        model = bl.CharTfidfClassifier().fit(texts, labels, features=shared)
        assert model.features is shared
        assert model.predict(tests) == list(plain.predict(on_tests))
        probabilities = model._model.predict_proba(shared.transform(tests))
        assert np.allclose(probabilities, plain.predict_proba(on_tests), rtol=0, atol=1e-5)
    with pytest.raises(ValueError, match="2 feature rows for 3 labels"):
        bl.CharTfidfClassifier().fit(["a", "b", "c"], ["x", "y", "x"], features=bl.CharTfidfFeatures(["a", "b"]))
