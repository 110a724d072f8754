"""BEGIN (Dziri, Rashkin, Linzen and Reitter): human attribution labels on generated dialogue responses.

Six TSV files in the authors' GitHub repository google/BEGIN-dataset, fetched from one commit (not
from a branch) and verified by their git blob ids as the repository's tree at that commit lists them.
The four files at hand (the dev splits and WoW test) are also pinned by sha256 and size, taken from
copies whose blob ids equal the tree's; the CMU-DoG and TopicalChat test files were not at hand, so
their blob id is their only check.
"""

from __future__ import annotations

from pathlib import Path

from ...declaration import ChapterFacts, DatasetProfile, DatasetSource, Loader, SourceFile, on_use
from . import card  # the parser, render.py and viewer.py: imported on first use
from .reported import QUANTITY_LABELS, REPORTED

#: Where this dataset stands in the book's lists (the chapters' order): after the other datasets,
#: since its chapter builds on FaithDial's critic.
ORDER = 50

#: The commit of google/BEGIN-dataset the atlas downloads from: 6e65f0d, "Add NOTICE files to data
#: directories", the repository's last commit when the atlas was checked.
REVISION = "6e65f0d5a1ed1b9574643a7640ff1678d4e979b5"
_RAW = f"https://raw.githubusercontent.com/google/BEGIN-dataset/{REVISION}"

#: split -> (path in the repository, git blob id, sha256, size in bytes); ``None`` where the file was
#: not at hand to hash.
_FILES: dict[str, tuple[str, str, str | None, int | None]] = {
    "wow_dev": (
        "wow/begin_dev_wow.tsv",
        "67fd5c53a3bdce5135471f3b2f456676341ba463",
        "2ebfc95a1ff267e12dcce3250da4d158e1811c62e9e1a0d56f110efc9ace0178",
        147417,
    ),
    "wow_test": (
        "wow/begin_test_wow.tsv",
        "a2cd2de90fc8c27b70ddec203e75aad94ae4a5bf",
        "d5c106a42042c3abd481563f1157e07c95c107dbcdf67f23564d874e8a4d6e7e",
        1241097,
    ),
    "cmu_dev": (
        "cmu-dog/begin_dev_cmu.tsv",
        "0c474c16ff31536136c888c5e129f0ca78a63ed0",
        "9482294df23cf08a976773ca73203b84f7178534ecab1a206eaade365e97071c",
        531393,
    ),
    "cmu_test": ("cmu-dog/begin_test_cmu.tsv", "296585c83d514ad01f2ea77e09fd7aa438744854", None, None),
    "tc_dev": (
        "topicalchat/begin_dev_tc.tsv",
        "55fe659d77f211a010bc4b0b5c023400bc704d49",
        "d799a8cb3635de41b7f284dcfc872544ddeadcbae0c2ffd684270cce671f7711",
        656931,
    ),
    "tc_test": ("topicalchat/begin_test_tc.tsv", "e1ee758e23d2ef10be799bdc1df621beea92ea29", None, None),
}

BEGIN = DatasetSource(
    name="begin",
    title="BEGIN (Benchmark for Evaluation of Grounded INteraction)",
    language="English",
    format="TSV (one labelled model response per row; unquoted tab-separated fields)",
    homepage="https://github.com/google/BEGIN-dataset",
    license="CC BY 4.0 (WoW, CMU-DoG files); Community Data License Agreement - Sharing 1.0 (TopicalChat files)",
    license_statement="google/BEGIN-dataset's LICENSE, which defers to the LICENSE and NOTICE of each data folder: "
    "wow/ and cmu-dog/ hold the CC BY 4.0 text, topicalchat/ the Community Data License Agreement - Sharing 1.0",
    redistributable=True,
    redistribution="CC BY 4.0 and CDLA-Sharing 1.0 allow copies with attribution (CDLA-Sharing: under its own terms)",
    citation_key="dziri2022begin",
    folder=Path(__file__).parent,
    loader=Loader(
        card_formats=card.FORMATS,
        label_keys=("BEGIN",),
        record_unit="labelled responses",
        parse=on_use(__name__, "parser:parse"),
        parse_columns=on_use(__name__, "columns:parse_columns"),
        parser_version=on_use(__name__, "parser:PARSER_VERSION"),
        splits={
            split: (SourceFile(path=f"begin/{path}", url=f"{_RAW}/{path}", git_blob=blob, sha256=sha256, size=size),)
            for split, (path, blob, sha256, size) in _FILES.items()
        },
        original_split_names={split: path.rsplit("/", 1)[1].removesuffix(".tsv") for split, (path, *_) in _FILES.items()},
    ),
    chapter=ChapterFacts(
        reported=REPORTED,
        quantity_labels=QUANTITY_LABELS,
        # Empty, although the chapter computes on every split: the benchmark (benchmarks/bench.py) times
        # the chapter_splits of a dataset against bare JSON readers (json.load, pandas.read_json, the
        # datasets JSON loader), which cannot read a TSV file. BEGIN joins it once its naive steps know TSV.
        chapter_splits=(),
        profile=DatasetProfile(
            ("wow_dev", "wow_test"),
            "labelled response (a model's reply to one message)",
            "one knowledge snippet per response (a Wikipedia sentence, a film's plot, facts about a topic)",
            "the snippet is given; people judged whether the response is attributable to it",
        ),
        notes=f"Downloaded from commit {REVISION[:7]} of google/BEGIN-dataset and verified by git blob id.",
    ),
)

DATASETS = (BEGIN,)
