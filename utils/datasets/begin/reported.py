"""What the BEGIN authors, and the FaithDial authors about BEGIN, state in text at hand, with sources.

Only statements of these sources are recorded: the README of google/BEGIN-dataset (at the pinned
commit), the abstract of the BEGIN paper and the abstract of the FaithDial paper. The papers' result
tables (the authors' label distributions per model and source, the scores of the eight metrics they
analyse, FaithCritic's scores) have not been transcribed, so none of their numbers is recorded, and
the chapter says so rather than filling them in from memory.
"""

from __future__ import annotations

from ...declaration import Reported, number

_README = (
    "BEGIN repository README (google/BEGIN-dataset, commit 6e65f0d): 'comprised of 12k dialogue turns'; "
    "'We split BEGIN into 90% test set and 10% development set'",
    "begin2022repo",
)

REPORTED: tuple[Reported, ...] = (
    number("begin", "responses", 12000, _README, unit="approx.",
           note="all six files together ('12k dialogue turns', each a labelled model response)"),
    number("begin", "dev_share", 10.0, _README, unit="%",
           note="share of the responses in the dev files, all three sources together"),
)

#: How the comparison table names the quantities above.
QUANTITY_LABELS = {"responses": "labelled responses", "dev_share": "share in the dev files"}

#: The FaithDial abstract's statement about its critic on BEGIN, quoted exactly (the abstract on
#: arXiv 2204.10757, as the paper's Hugging Face page reproduces it). The abstract does not name the
#: critic FaithCritic, nor say which release of BEGIN it was measured on; the authors' code does: its
#: ``BEGINProcessor`` (McGill-NLP/FaithDial, ``models/critic_data.py``) reads the columns ``evidence``,
#: ``response`` and ``gold label`` of BEGIN's *first* full release (June 2021: ``dev_05_24_21.tsv``,
#: ``test_05_24_21.tsv``; five labels, WoW responses of GPT-2 and T5), not the second release (June
#: 2022, ``begin_label``, three labels, four models, three benchmarks) that the atlas loads. So this
#: number was measured on other data than the chapter's. The sentence goes on after the semicolon
#: ("ii) high-quality dialogue generation"): the cut is marked.
FAITHDIAL_CRITIC_QUOTE = (
    "We show that FaithDial can serve as training signal for: i) a hallucination critic, which "
    "discriminates whether an utterance is faithful or not, and boosts the performance by 12.8 F1 "
    "score on the BEGIN benchmark compared to existing datasets for dialogue coherence; […]"
)
FAITHDIAL_CRITIC_SOURCE = (
    "FaithDial abstract, arXiv 2204.10757 (measured on BEGIN's first release, June 2021)",
    "dziri2022faithdial",
    "https://arxiv.org/abs/2204.10757",
)
