"""BEGIN's original format for its Croissant card (:mod:`utils.croissant`): one TSV format, six columns."""

from __future__ import annotations

from ...declaration import TEXT, TSV, CardField, CardFormat
from .parser import LABELS

#: The models and sources the authors' README names for ``model_name`` and ``data_source``.
MODELS = ("gpt2", "t5", "ctrl", "doha")
SOURCES = ("wow", "cmu", "tc")

FORMATS = (
    CardFormat(
        name="begin_tsv",
        description="One labelled model response per row (tab-separated, unquoted, with a header line).",
        encoding=TSV,
        splits=("wow_dev", "wow_test", "cmu_dev", "cmu_test", "tc_dev", "tc_test"),
        fields=(
            CardField("model_name", TEXT, "the model that generated the response", column="model_name",
                      labels=MODELS, one_label=True),
            CardField("data_source", TEXT, "the benchmark the model was trained on", column="data_source",
                      labels=SOURCES, one_label=True),
            CardField("knowledge", TEXT, "the knowledge snippet the response should rest on", column="knowledge"),
            CardField("message", TEXT, "the previous turn", column="message"),
            CardField("response", TEXT, "the response the model generated", column="response"),
            CardField("begin_label", TEXT, "the people's judgement of the response against the knowledge",
                      column="begin_label", labels=LABELS, one_label=True),
        ),
    ),
)
