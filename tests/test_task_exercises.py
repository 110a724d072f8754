"""The exercises on each chapter's central task: WoW knowledge selection (wow-ex-4) and JWHR
answerability (jwhr-ex-4).

Each check must pass the chapter's reference solution, name the slip of a typical wrong answer without
printing a value it compared, recompute the baseline itself, and the chapter's hidden test must pass
the reference and fail a wrong answer.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path
from typing import Any

import nbformat
import pytest

import utils
from conftest import require_real_file
from utils.datasets.jwhr import baselines as jwhr_baselines
from utils.datasets.jwhr.exercises import (
    MIN_HELD_OUT,
    balanced_accuracy,
    check_answerability,
    split_sessions,
    steps_threshold_accuracy,
)
from utils.datasets.wow import baselines as wow_baselines
from utils.datasets.wow import stats as wow_stats
from utils.datasets.wow.exercises import NO_PASSAGE_CHOICE, check_knowledge_selection, selection_turns, tfidf_choices
from utils.teaching.exercises import graded

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


# -- helpers -----------------------------------------------------------------------------------------


def _verdict(call: Any) -> str:
    """What a practice check prints: one line, and it never raises."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert call() is None
    message = printed.getvalue()
    assert message.count("\n") == 1, message
    return message


def _passes(call: Any, *fragments: str) -> str:
    message = _verdict(call)
    assert message.startswith("Correct"), message
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    return message


def _fails(call: Any, *fragments: str, forbidden: tuple[float, ...] = ()) -> str:
    """A check that must fail: one "Not yet" line holding ``fragments``, no value it compared, no direction."""
    message = _verdict(call)
    assert message.startswith("Not yet"), message
    assert "too high" not in message and "too low" not in message, message
    for fragment in fragments:
        assert fragment.lower() in message.lower(), message
    for value in forbidden:
        for shown in {f"{value}", f"{value:g}", f"{value:.2f}", f"{value:.3f}", f"{100 * value:.1f}"}:
            assert not re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d])", message), (shown, message)
    return message


def _exercise_cells(chapter: str, label: str) -> tuple[list[str], str]:
    """The reference solution's code cells and the hidden test's code of exercise ``label``."""
    notebook = nbformat.read(NOTEBOOKS / f"{chapter}.ipynb", as_version=4)
    solution: list[str] = []
    inside = False
    grade = None
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and cell.source.startswith(f"```{{solution-start}} {label}"):
            inside = True
        elif inside and cell.cell_type == "markdown" and cell.source.startswith("```{solution-end}"):
            inside = False
        elif inside and cell.cell_type == "code":
            solution.append(cell.source)
        if cell.metadata.get("atlas", {}).get("exercise") == label and "grade" in cell.metadata.get("tags", []):
            grade = cell.source
    assert solution and grade is not None, label
    return solution, grade


def _run(sources: list[str], namespace: dict[str, Any]) -> dict[str, Any]:
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        for source in sources:
            exec(compile(source, "<exercise>", "exec"), namespace)
    return namespace


# -- Wizard of Wikipedia: knowledge selection ----------------------------------------------------------


@pytest.fixture
def wow_unseen() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        return utils.load("wow", "valid_unseen")


def _wow_reference() -> dict[str, Any]:
    solution, _ = _exercise_cells("wow", "wow-ex-4")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        namespace = {
            "utils": utils,
            "baselines": wow_baselines,
            "stats": wow_stats,
            "wow_seen": utils.load("wow", "valid_seen"),
            "wow_unseen": utils.load("wow", "valid_unseen"),
        }
    return _run(solution, namespace)


def _tfidf_answer(split: Any) -> tuple[dict[tuple[str, int], str], float]:
    """The chapter's TF-IDF ranker as a student would hand it in, with its accuracy from the chapter."""
    choices = {key: text or NO_PASSAGE_CHOICE for key, text in tfidf_choices(split).items()}
    return choices, wow_baselines.knowledge_selection(split)[0]["tfidf_accuracy"]


def test_the_check_scores_the_tfidf_ranker_as_the_chapter_does() -> None:
    # The check's rule (the chosen text is a checked sentence) gives the chapter's own accuracy.
    for name in ("valid_seen", "valid_unseen", "test_seen", "test_unseen", "train"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", utils.DemoDataWarning)
            split = utils.load("wow", name)
        choices, accuracy = _tfidf_answer(split)
        turns = selection_turns(split)
        assert list(turns) == list(choices), name
        scored = sum((choices[key] if choices[key] != NO_PASSAGE_CHOICE else "") in turn.checked
                     for key, turn in turns.items()) / len(turns)
        assert scored == pytest.approx(accuracy), name


def test_the_reference_selector_passes_and_its_hidden_test_too(wow_unseen: Any) -> None:
    namespace = _wow_reference()
    _passes(lambda: check_knowledge_selection(namespace["chosen_knowledge"], namespace["selection_accuracy"],
                                              wow_unseen), "TF-IDF")
    _, grade = _exercise_cells("wow", "wow-ex-4")
    _run([grade], namespace)  # the hidden test loads its own split and passes
    # rebinding the chapter's split in the answer cell changes nothing: the test loads its own
    namespace["wow_unseen"] = []
    _run([grade], namespace)


def test_the_hidden_test_fails_a_wrong_answer_naming_the_exercise(wow_unseen: Any) -> None:
    namespace = _wow_reference()
    _, grade = _exercise_cells("wow", "wow-ex-4")
    namespace["chosen_knowledge"] = {key: NO_PASSAGE_CHOICE for key in namespace["chosen_knowledge"]}
    namespace["selection_accuracy"] = 0.0  # honest about its choices, but below the ranker on the demo split
    with pytest.raises(AssertionError, match="wow-ex-4") as failure:
        _run([grade], namespace)
    assert "TF-IDF" in str(failure.value)
    namespace["selection_accuracy"] = 1.0  # a score the choices do not give
    with pytest.raises(AssertionError, match="wow-ex-4: Not yet"):
        _run([grade], namespace)


def test_the_ranker_itself_ties_and_passes_and_the_parlai_spelling_is_accepted(wow_unseen: Any) -> None:
    choices, accuracy = _tfidf_answer(wow_unseen)
    _passes(lambda: check_knowledge_selection(choices, accuracy, wow_unseen))
    _passes(lambda: check_knowledge_selection(choices, round(accuracy, 3), wow_unseen))
    # ParlAI's candidate strings ("<title> <sentence>", "no_passages_used no_passages_used") name the same choices
    evidence = wow_unseen.evidence(["dialogue_id", "turn_index", "text", "title"])
    titles = {(d, int(t), text): title for d, t, text, title in
              zip(evidence["dialogue_id"], evidence["turn_index"], evidence["text"], evidence["title"], strict=True)}
    parlai = {key: wow_baselines.NO_PASSAGE_CANDIDATE if text == NO_PASSAGE_CHOICE else f"{titles[(*key, text)]} {text}"
              for key, text in choices.items()}
    _passes(lambda: check_knowledge_selection(parlai, accuracy, wow_unseen))


def test_typical_wrong_answers_get_the_right_message(wow_unseen: Any) -> None:
    namespace = _wow_reference()
    choices, accuracy = namespace["chosen_knowledge"], namespace["selection_accuracy"]
    baseline = wow_baselines.knowledge_selection(wow_unseen)[0]["tfidf_accuracy"]
    hidden = (accuracy, baseline)
    right = round(accuracy * len(choices))
    _fails(lambda: check_knowledge_selection(choices, 100 * accuracy, wow_unseen), "percentage", forbidden=hidden)
    _fails(lambda: check_knowledge_selection(choices, float(right), wow_unseen), "number of right choices",
           forbidden=hidden)
    _fails(lambda: check_knowledge_selection(choices, accuracy + 0.2, wow_unseen), "Re-read", forbidden=hidden)
    first, *rest = choices
    _fails(lambda: check_knowledge_selection({key: choices[key] for key in rest}, accuracy, wow_unseen),
           "no choice", repr(first))
    wizard = wow_stats.wizard_turns(wow_unseen)
    left_out = wizard[~wizard["parlai_example"]].iloc[0]
    extra_key = (left_out["dialogue_id"], int(left_out["turn_index"]))
    _fails(lambda: check_knowledge_selection({**choices, extra_key: NO_PASSAGE_CHOICE}, accuracy, wow_unseen),
           "no example of", "last wizard turn")
    turns = wow_unseen.turns()
    replies = {(d, int(t)): text for d, t, text in zip(turns["dialogue_id"], turns["turn_index"], turns["text"],
                                                        strict=True)}
    _fails(lambda: check_knowledge_selection({key: replies[key] for key in choices}, accuracy, wow_unseen),
           "not among the candidates", "reply")
    _fails(lambda: check_knowledge_selection({key: 1 for key in choices}, accuracy, wow_unseen), "text")
    _fails(lambda: check_knowledge_selection({f"{d}:{t}": v for (d, t), v in choices.items()}, accuracy, wow_unseen),
           "(dialogue id, turn index)")
    _fails(lambda: check_knowledge_selection(list(choices.values()), accuracy, wow_unseen), "dict")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", utils.DemoDataWarning)
        seen = utils.load("wow", "valid_seen")
    _fails(lambda: check_knowledge_selection(choices, accuracy, seen), "another split")
    _fails(lambda: check_knowledge_selection(choices, accuracy, list(wow_unseen)), "loaded split")
    # below the ranker: every turn "no passage used" (no wizard of the demo's valid_unseen used none)
    nothing = {key: NO_PASSAGE_CHOICE for key in choices}
    _fails(lambda: check_knowledge_selection(nothing, 0.0, wow_unseen), "TF-IDF", forbidden=(baseline,))


@pytest.mark.realdata
def test_a_selector_that_reads_the_checked_sentence_is_refused(real_data_dir: Path) -> None:
    # The five real training dialogues (23 wizard examples): reading the selected flag is caught.
    require_real_file(real_data_dir, "wow/raw/train_sample.json")
    split = utils.load("wow", "train")
    evidence = split.evidence(["dialogue_id", "turn_index", "text", "selected"])
    chosen = evidence[evidence["selected"]]
    oracle = {(d, int(t)): text for d, t, text in zip(chosen["dialogue_id"], chosen["turn_index"], chosen["text"],
                                                       strict=True)}
    turns = selection_turns(split)
    oracle = {key: oracle.get(key, NO_PASSAGE_CHOICE) for key in turns}
    assert len(oracle) >= 20
    _fails(lambda: check_knowledge_selection(oracle, 1.0, split), "selected")
    # the ranker on the same real dialogues passes
    choices, accuracy = _tfidf_answer(split)
    _passes(lambda: check_knowledge_selection(choices, accuracy, split))


# -- JWHR: answerability -----------------------------------------------------------------------------


def _jwhr_reference() -> dict[str, Any]:
    solution, _ = _exercise_cells("jwhr", "jwhr-ex-4")
    namespace = {
        "utils": utils,
        "baselines": jwhr_baselines,
        "answered": utils.load("jwhr", "answered"),
        "not_answered": utils.load("jwhr", "not_answered"),
    }
    return _run(solution, namespace)


def test_the_split_keeps_both_chunks_on_both_sides() -> None:
    answered, not_answered = list(utils.load("jwhr", "answered")), list(utils.load("jwhr", "not_answered"))
    fit, held_out = split_sessions(answered, not_answered)
    assert [s.id for s in fit] == [s.id for s in answered[0::2] + not_answered[0::2]]
    assert [s.id for s in held_out] == [s.id for s in answered[1::2] + not_answered[1::2]]
    assert balanced_accuracy([True, True, False], [True, False, False]) == pytest.approx(0.75)


def test_on_the_demo_sample_the_reference_passes_and_the_comparison_is_said_to_be_skipped() -> None:
    namespace = _jwhr_reference()
    answered, not_answered = namespace["answered"], namespace["not_answered"]
    predictions, score = namespace["answerability_predictions"], namespace["answerability_balanced_accuracy"]
    _passes(lambda: check_answerability(predictions, score, answered, not_answered), "skipped")
    _, grade = _exercise_cells("jwhr", "jwhr-ex-4")
    namespace["answered"] = []  # rebinding the chapter's names does not fool the hidden test
    _run([grade], namespace)
    # the hidden test scores the predictions alone (in a course the reported score is an estimate on the
    # fitting sessions, which only the practice check reads): a wrong report costs nothing there
    namespace["answerability_balanced_accuracy"] = 1 - score
    _run([grade], namespace)
    _fails(lambda: check_answerability(predictions, 1 - score, answered, not_answered), "other way round")


def test_typical_wrong_answers_get_the_right_message_on_the_demo_sample() -> None:
    namespace = _jwhr_reference()
    answered, not_answered = namespace["answered"], namespace["not_answered"]
    predictions, score = namespace["answerability_predictions"], namespace["answerability_balanced_accuracy"]
    fit, held_out = split_sessions(answered, not_answered)

    def check(answer: Any, reported: Any = score) -> Any:
        return lambda: check_answerability(answer, reported, answered, not_answered)

    _passes(check({int(key): value for key, value in predictions.items()}))  # ids as numbers are fine
    _passes(check({key: int(value) for key, value in predictions.items()}))  # 1 and 0 are fine
    _fails(check({key: 0.9 if value else 0.1 for key, value in predictions.items()}), "probability")
    _fails(check({key: "answered" for key in predictions}), "True for answered")
    _fails(check({s.id: True for s in fit}), "ones you fit on")
    _fails(check({s.id: True for s in fit + held_out}), "fit on included")
    _fails(check({key: value for key, value in list(predictions.items())[1:]}), "no prediction")
    _fails(check({"session-1": True, **predictions}), "not session ids")
    _fails(check(predictions, 1 - score), "other way round")
    _fails(check(predictions, ...), "empty")
    _fails(lambda: check_answerability(predictions, score, answered, answered), "one kind")


@pytest.fixture
def real_jwhr(real_data_dir: Path) -> dict[str, Any]:
    require_real_file(real_data_dir, "jwhr/answered.jsonl")
    require_real_file(real_data_dir, "jwhr/not_answered.jsonl")
    return _jwhr_reference()


@pytest.mark.realdata
def test_on_the_real_files_the_reference_beats_both_baselines_as_its_model_answer_says(real_jwhr) -> None:
    answered, not_answered = real_jwhr["answered"], real_jwhr["not_answered"]
    predictions, score = real_jwhr["answerability_predictions"], real_jwhr["answerability_balanced_accuracy"]
    fit, held_out = split_sessions(answered, not_answered)
    assert len(held_out) == 635 and min(sum(map(jwhr_baselines.answered, held_out)), 216) >= MIN_HELD_OUT
    baseline = steps_threshold_accuracy(fit, held_out)
    # the numbers the model answer quotes
    assert round(score, 3) == 0.825 and round(baseline, 3) == 0.798
    assert round(real_jwhr["threshold_alone"]("distinct_pages"), 3) == 0.781
    assert round(real_jwhr["threshold_alone"]("steps"), 3) == round(baseline, 3)
    _passes(lambda: check_answerability(predictions, score, answered, not_answered), "steps threshold")
    _, grade = _exercise_cells("jwhr", "jwhr-ex-4")
    _run([grade], real_jwhr)


@pytest.mark.realdata
def test_on_the_real_files_typical_wrong_answers_fail_with_the_right_message(real_jwhr) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    answered, not_answered = real_jwhr["answered"], real_jwhr["not_answered"]
    predictions, score = real_jwhr["answerability_predictions"], real_jwhr["answerability_balanced_accuracy"]
    held_out = real_jwhr["held_out"]
    # the reference reads the held-out sessions without labels (project_inputs): score them labelled here
    fit_rows, held_out_rows = real_jwhr["fit_rows"], jwhr_baselines.trail_features(held_out)
    truth = held_out_rows["answered"].tolist()
    forbidden = (score, steps_threshold_accuracy(*split_sessions(answered, not_answered)))

    def fitted(columns: list[str], **options: Any) -> tuple[dict[str, bool], float]:
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000, **options))
        predicted = model.fit(fit_rows[columns], fit_rows["answered"]).predict(held_out_rows[columns]).tolist()
        return {s.id: bool(p) for s, p in zip(held_out, predicted, strict=True)}, balanced_accuracy(truth, predicted)

    # fitted for plain accuracy: below the steps threshold
    unweighted, unweighted_score = fitted(list(jwhr_baselines.NAVIGATION_FEATURES))
    _fails(lambda: check_answerability(unweighted, unweighted_score, answered, not_answered), "steps",
           "rarer", forbidden=forbidden)
    # what the steps yielded is the outcome: near-perfect, refused
    leaking, leaking_score = fitted(list(jwhr_baselines.TRAIL_FEATURES), class_weight="balanced")
    _fails(lambda: check_answerability(leaking, leaking_score, answered, not_answered), "outcome")
    # the plain accuracy reported for the balanced one (the reference's two agree to three decimals,
    # the unweighted model's do not)
    plain = sum(unweighted[s.id] == t for s, t in zip(held_out, truth, strict=True)) / len(truth)
    assert abs(plain - unweighted_score) > 0.01
    _fails(lambda: check_answerability(unweighted, plain, answered, not_answered), "plain accuracy",
           forbidden=(*forbidden, unweighted_score))
    # labels the wrong way round, reported honestly: worse than the majority class
    inverted = {key: not value for key, value in predictions.items()}
    _fails(lambda: check_answerability(inverted, 1 - score, answered, not_answered), "majority class")
    # the hidden test fails the weaker model
    _, grade = _exercise_cells("jwhr", "jwhr-ex-4")
    namespace = {"answerability_predictions": unweighted, "answerability_balanced_accuracy": unweighted_score}
    with pytest.raises(AssertionError, match="jwhr-ex-4: Not yet"):
        _run([grade], namespace)
    namespace["answerability_predictions"] = predictions  # the reference's, with a wrong report: passes
    _run([grade], namespace)
    with pytest.raises(AssertionError):
        graded(check_answerability, unweighted, unweighted_score, answered, not_answered)
