"""A second toy dataset, of another shape than ``toy``: question answering over retrieved passages,
no labels. tests/test_adding_a_second_dataset.py adds this one folder and nothing else.

Its file is JSON Lines, one session per line::

    {"qid": "q1", "question": "...", "answer": "...",
     "passages": [{"title": "...", "text": "..."}, ...], "cited": [0]}

``cited`` lists the positions of the passages the answer rests on.
"""

from __future__ import annotations

from pathlib import Path

from utils.declaration import DatasetSource, Loader, RecordIds, SourceFile, on_use

# The parser is imported when a split is first parsed; the renderer is found by convention: render.py.

TOY_QA = DatasetSource(
    name="toy_qa",
    title="Toy question answering",
    language="English",
    format="JSON Lines (one question-answering session per line)",
    homepage="https://example.org/toy-qa",
    license="CC0",
    citation_key="toyqa2024",
    folder=Path(__file__).parent,
    loader=Loader(
        parse=on_use(__name__, "parser:parse"),
        parser_version=on_use(__name__, "parser:PARSER_VERSION"),
        splits={"test": (SourceFile(path="toy_qa/test.jsonl", url="https://example.org/toy-qa/test.jsonl"),)},
        record_ids=RecordIds(field="qid", unique=True),
        record_unit="sessions",
    ),
)

DATASETS = (TOY_QA,)
