"""What the Wizard of Wikipedia's authors, ParlAI and KILT report: statistics, recorded counts, baselines.

Each number is one the authors (or a page that quotes them) state, with where it stands; the chapters
set them beside what they compute from the loaded data. Nothing here is ever shown as reproduced.
"""

from __future__ import annotations

from ...declaration import Reported, number

_GEM = ("GEM data card for Wizard of Wikipedia, 'Data Statistics' (train split)", "gem2021wowcard")
_GEM_COLLECTION = (
    "GEM data card for Wizard of Wikipedia, 'Initial Data Collection and Normalization' "
    "(the paper's totals, quoted by the card)",
    "gem2021wowcard",
)
_PARLAI_FIXTURES = (
    "ParlAI test fixtures parlai/tasks/wizard_of_wikipedia/test/wizard_of_wikipedia_<teacher>_<split>.yml "
    "(num_episodes / num_examples; valid and test are the random_split files)",
    "parlai2021wowfixtures",
)
# ParlAI's eval_model defaults to --datatype valid, so these are valid-split numbers.
_PARLAI_E2E_SEEN = (
    "ParlAI Wizard of Wikipedia project page, 'End-to-End generative': eval_model on "
    "generator:random_split (datatype valid)",
    "parlai2019wowproject",
)
_PARLAI_E2E_UNSEEN = (
    "ParlAI Wizard of Wikipedia project page, 'End-to-End generative': eval_model on "
    "generator:topic_split (datatype valid)",
    "parlai2019wowproject",
)
_LEADERBOARD = (
    "ParlAI Wizard of Wikipedia project page, leaderboard 'Retrieval Models' (from Dinan et al. 2019a)",
    "parlai2019wowproject",
)
_LEADERBOARD_GENERATIVE = (
    "ParlAI Wizard of Wikipedia project page, leaderboard 'Generative Models' (from Dinan et al. 2019a)",
    "parlai2019wowproject",
)
_LEADERBOARD_HUMAN = (
    "ParlAI Wizard of Wikipedia project page, leaderboard 'Human Evaluations' (from Dinan et al. 2019a)",
    "parlai2019wowproject",
)
#: What the human ratings are: the page gives the ratings and the seen / unseen columns only.
_RATING = (
    "mean human rating of the model's conversations, as the project page's 'Seen Rating' / 'Unseen Rating' "
    "columns give it (the page states neither the scale nor the test split)"
)
_KILT_README = ("KILT repository README, 'KILT data catalogue': wow-dev-kilt.jsonl", "kilt2020repo")

#: ParlAI's teachers of the wizard's turns: three teachers, one recorded count.
_WIZARD_TEACHERS = "generator, wizard_dialog_knowledge, basic_wizard_dialog"
#: ``know_chance`` as ParlAI's end-to-end generator computes it (``projects/wizard_of_wikipedia/generator``).
_KNOW_CHANCE = (
    "mean over the generator teacher's wizard examples of 1 / (knowledge lines), the lines being the "
    "'no_passages_used' option plus every sentence shown"
)

REPORTED: tuple[Reported, ...] = (
    # statistics
    number("wow", "dialogues", 18430, _GEM, "train"),
    number("wow", "utterances", 166787, _GEM, "train"),
    number("wow", "topics", 1247, _GEM, "train"),
    number("wow", "turns_per_dialogue", 9.0, _GEM, "train"),
    number("wow", "dialogues", 22311, _GEM_COLLECTION),
    number("wow", "utterances", 201999, _GEM_COLLECTION),
    number("wow", "utterances", 17715, _GEM_COLLECTION, "valid"),
    number("wow", "utterances", 17497, _GEM_COLLECTION, "test"),
    number("wow", "topics_shared_with_train", 533, _GEM_COLLECTION, "test_seen"),
    number("wow", "new_topics", 58, _GEM_COLLECTION, "test_unseen"),
    # ParlAI's recorded counts: num_episodes, then num_examples teacher by teacher
    number("wow", "dialogues", 981, _PARLAI_FIXTURES, "valid_seen", teacher="wizard_of_wikipedia"),
    number("wow", "dialogues", 965, _PARLAI_FIXTURES, "test_seen", teacher="wizard_of_wikipedia"),
    number("wow", "all_turn_examples", 166787, _PARLAI_FIXTURES, "train", teacher="wizard_of_wikipedia"),
    number("wow", "all_turn_examples", 8909, _PARLAI_FIXTURES, "valid_seen", teacher="wizard_of_wikipedia"),
    number("wow", "all_turn_examples", 8715, _PARLAI_FIXTURES, "test_seen", teacher="wizard_of_wikipedia"),
    number("wow", "wizard_examples", 74092, _PARLAI_FIXTURES, "train", teacher=_WIZARD_TEACHERS),
    number("wow", "wizard_examples", 3939, _PARLAI_FIXTURES, "valid_seen", teacher=_WIZARD_TEACHERS),
    number("wow", "wizard_examples", 3865, _PARLAI_FIXTURES, "test_seen", teacher=_WIZARD_TEACHERS),
    number("wow", "apprentice_examples", 74265, _PARLAI_FIXTURES, "train", teacher="basic_apprentice_dialog"),
    number("wow", "apprentice_examples", 3989, _PARLAI_FIXTURES, "valid_seen", teacher="basic_apprentice_dialog"),
    number("wow", "apprentice_examples", 3885, _PARLAI_FIXTURES, "test_seen", teacher="basic_apprentice_dialog"),
    number("wow", "basicdialog_examples", 82965, _PARLAI_FIXTURES, "train", teacher="basicdialog"),
    number("wow", "basicdialog_examples", 4434, _PARLAI_FIXTURES, "valid_seen", teacher="basicdialog"),
    number("wow", "basicdialog_examples", 4336, _PARLAI_FIXTURES, "test_seen", teacher="basicdialog"),
    number("wow_kilt", "examples", 3054, _KILT_README, "dev"),
    # baselines
    number("wow", "knowledge_chance", 0.02625, _PARLAI_E2E_SEEN, "valid_seen", teacher="generator", note=_KNOW_CHANCE),
    number("wow", "knowledge_chance", 0.02496, _PARLAI_E2E_UNSEEN, "valid_unseen", teacher="generator", note=_KNOW_CHANCE),
    number("wow", "end2end_knowledge_accuracy", 0.2201, _PARLAI_E2E_SEEN, "valid_seen", teacher="generator"),
    number("wow", "end2end_knowledge_accuracy", 0.1123, _PARLAI_E2E_UNSEEN, "valid_unseen", teacher="generator"),
    number("wow", "end2end_f1", 0.1717, _PARLAI_E2E_SEEN, "valid_seen", teacher="generator"),
    number("wow", "end2end_f1", 0.1498, _PARLAI_E2E_UNSEEN, "valid_unseen", teacher="generator"),
    number("wow", "end2end_ppl", 61.21, _PARLAI_E2E_SEEN, "valid_seen", teacher="generator"),
    number("wow", "end2end_ppl", 103.1, _PARLAI_E2E_UNSEEN, "valid_unseen", teacher="generator"),
    number("wow", "random_r@1", 1.0, _LEADERBOARD, "test_seen", "%"),
    number("wow", "random_r@1", 1.0, _LEADERBOARD, "test_unseen", "%"),
    number("wow", "ir_baseline_r@1", 17.8, _LEADERBOARD, "test_seen", "%"),
    number("wow", "ir_baseline_r@1", 14.2, _LEADERBOARD, "test_unseen", "%"),
    number("wow", "bow_memnet_r@1", 71.3, _LEADERBOARD, "test_seen", "%"),
    number("wow", "bow_memnet_r@1", 33.1, _LEADERBOARD, "test_unseen", "%"),
    number("wow", "transformer_memnet_r@1", 87.4, _LEADERBOARD, "test_seen", "%"),
    number("wow", "transformer_memnet_r@1", 69.8, _LEADERBOARD, "test_unseen", "%"),
    # trained generative models: test perplexity, quoted (the atlas trains no model)
    number("wow", "end2end_transformer_memnet_ppl", 63.5, _LEADERBOARD_GENERATIVE, "test_seen"),
    number("wow", "end2end_transformer_memnet_ppl", 97.3, _LEADERBOARD_GENERATIVE, "test_unseen"),
    number("wow", "two_stage_transformer_memnet_ppl", 46.5, _LEADERBOARD_GENERATIVE, "test_seen"),
    number("wow", "two_stage_transformer_memnet_ppl", 84.8, _LEADERBOARD_GENERATIVE, "test_unseen"),
    number("wow", "vanilla_transformer_ppl", 41.8, _LEADERBOARD_GENERATIVE, "test_seen"),
    number("wow", "vanilla_transformer_ppl", 87.0, _LEADERBOARD_GENERATIVE, "test_unseen"),
    # human evaluation of trained models and of the human wizards, quoted
    number("wow", "retrieval_transformer_memnet_rating", 3.43, _LEADERBOARD_HUMAN, "seen", note=_RATING),
    number("wow", "retrieval_transformer_memnet_rating", 3.14, _LEADERBOARD_HUMAN, "unseen", note=_RATING),
    number("wow", "two_stage_generative_transformer_memnet_rating", 2.92, _LEADERBOARD_HUMAN, "seen", note=_RATING),
    number("wow", "two_stage_generative_transformer_memnet_rating", 2.93, _LEADERBOARD_HUMAN, "unseen", note=_RATING),
    number("wow", "human_rating", 4.13, _LEADERBOARD_HUMAN, "seen", note=_RATING),
    number("wow", "human_rating", 4.34, _LEADERBOARD_HUMAN, "unseen", note=_RATING),
)

#: The trained models' results the chapter quotes from the project page beside its baselines
#: (reported.py's rows of these names): test perplexities and human ratings.
AUTHORS_RESULT_NAMES = (
    "end2end_transformer_memnet_ppl",
    "two_stage_transformer_memnet_ppl",
    "vanilla_transformer_ppl",
    "retrieval_transformer_memnet_rating",
    "two_stage_generative_transformer_memnet_rating",
    "human_rating",
)

#: How the tables name these quantities.
QUANTITY_LABELS = {
    "topics_shared_with_train": "topics shared with train",
    "new_topics": "topics not seen in train or valid",
    "knowledge_chance": "knowledge selection by chance (know_chance)",
    "end2end_knowledge_accuracy": "end-to-end generator: knowledge accuracy",
    "end2end_f1": "end-to-end generator: unigram F1",
    "end2end_ppl": "end-to-end generator: perplexity",
    "random_r@1": "random candidate: R@1",
    "ir_baseline_r@1": "IR baseline: R@1",
    "bow_memnet_r@1": "BoW MemNet: R@1",
    "transformer_memnet_r@1": "Transformer MemNet (w/ pretraining): R@1",
    "end2end_transformer_memnet_ppl": "End-to-end Transformer MemNet: test perplexity",
    "two_stage_transformer_memnet_ppl": "Two-Stage Transformer MemNet: test perplexity",
    "vanilla_transformer_ppl": "Vanilla Transformer (no knowledge): test perplexity",
    "retrieval_transformer_memnet_rating": "Retrieval Transformer MemNet: human rating",
    "two_stage_generative_transformer_memnet_rating": "Two-stage Generative Transformer MemNet: human rating",
    "human_rating": "Human wizards: human rating",
}
