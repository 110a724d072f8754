"""The Japanese Wikipedia Human Retrieval dataset (Oda 2023): QA sessions with the worker's search
trail and an answer whose sentences cite the trail's references.

The chapter is ``notebooks/jwhr.ipynb``.
"""

from __future__ import annotations

from pathlib import Path

from ...declaration import ChapterFacts, DatasetProfile, DatasetSource, Loader, RecordIds, hub_file, on_use
from . import card  # the parser, render.py and viewer.py: imported on first use
from .reported import REPORTED

#: Where this dataset stands in the book's lists (the chapters' order).
ORDER = 40

#: The JWHR hub repository's commit the atlas downloads from: the head of ``main`` in the commit
#: history of baobab-trees/wikipedia-human-retrieval-ja (its last commit, 2024-03-19, edits the
#: README). ``data/answered.jsonl`` was last replaced on 2024-03-18 (commit
#: ea01ae9e2c74856c9369670a99190ea837ed504e, "Upload answered.jsonl"); ``data/not_answered.jsonl``
#: is the file of the first upload (2024-01-15). ``main`` may move on, a commit does not. The
#: checksums below are those of the copies the atlas was checked on (the hub's own LFS hashes were
#: not at hand to compare): a download that differs from them fails loudly instead of being parsed.
REVISION = "02e85c83a64f345aee62fba3a35af99c075a331f"
_REPOSITORY = "baobab-trees/wikipedia-human-retrieval-ja"

JWHR = DatasetSource(
    name="jwhr",
    title="Japanese Wikipedia Human Retrieval",
    language="Japanese",
    format="JSON Lines (one QA session per line)",
    homepage="https://huggingface.co/datasets/baobab-trees/wikipedia-human-retrieval-ja",
    license="Apache-2.0",
    license_statement="the Hugging Face dataset card of baobab-trees/wikipedia-human-retrieval-ja (license: apache-2.0)",
    redistributable=True,
    redistribution="Apache-2.0: copies may be redistributed with the licence and notices",
    citation_key="oda2023jwhr",
    folder=Path(__file__).parent,
    loader=Loader(
        card_formats=card.FORMATS,
        # The dataset card calls ``id`` the "Entry ID" of a session; in the real files the 838 answered
        # and 433 not-answered ids are all distinct, and the two files share none.
        record_ids=RecordIds(field="id", unique=True, unique_across_splits=True),
        record_unit="sessions",
        parse=on_use(__name__, "parser:parse"),
        parse_columns=on_use(__name__, "parser:parse_columns"),
        parser_version=on_use(__name__, "parser:PARSER_VERSION"),
        extra_label_counts=on_use(__name__, "parser:reference_label_counts"),
        splits={
            "answered": (
                hub_file(
                    _REPOSITORY,
                    "data/answered.jsonl",
                    "jwhr/answered.jsonl",
                    "3934eb171ebb26be7f2d798655f79172b416fb3b3c5ec2882c3f452ea18c15ca",
                    2397505,
                    revision=REVISION,
                ),
            ),
            "not_answered": (
                hub_file(
                    _REPOSITORY,
                    "data/not_answered.jsonl",
                    "jwhr/not_answered.jsonl",
                    "3c42639197a192f57deee70ca229bae2f6cbcdf69c393fe2f93aacda4e671e7e",
                    336992,
                    revision=REVISION,
                ),
            ),
        },
    ),
    chapter=ChapterFacts(
        reported=REPORTED,
        chapter_splits=("answered", "not_answered"),
        profile=DatasetProfile(
            ("answered",),
            "QA session (a question and the answer a worker wrote after searching)",
            "quotes or summaries of the Wikipedia pages on the worker's search trail",
            "each answer sentence cites references of the trail",
        ),
        notes=f"Downloaded from commit {REVISION[:7]} of the hub repository, not from `main`: "
        "the authors replaced answered.jsonl in March 2024, and `main` may change again.",
    ),
)

DATASETS = (JWHR,)
