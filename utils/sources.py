"""Where the official files of every dataset live, and what they are.

This is the project's data registry, in the spirit of a pooch registry: for each dataset, the
official location of every file, its place in the data directory, its checksum and size where they
are known, its licence and its citation. Hashes of single files were taken from unmodified copies of
the official files; where a publisher offers no stable file (a hub repository that may change on its
``main`` branch, a Google Drive folder) the hash is ``None`` and the file is checked by parsing.

The data directory layout (relative paths below) is documented in ``book/data.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .errors import UnknownNameError
from .text import LANGUAGE_CODES

_HF = "https://huggingface.co/datasets"
_FAITHDIAL_GITHUB = "https://raw.githubusercontent.com/McGill-NLP/FaithDial/main/data-audit"
_KILT = "https://dl.fbaipublicfiles.com/KILT"


@dataclass(frozen=True)
class Archive:
    """A compressed archive that holds several official files."""

    url: str
    filename: str
    sha256: str | None
    size: int | None = None


@dataclass(frozen=True)
class SourceFile:
    """One official file.

    ``path`` is where the file sits inside the data directory. Exactly one of ``url`` (a direct
    download), ``archive`` (a member of an :class:`Archive`, extracted to ``path``) or
    ``gdrive_folder`` (a file in a public Google Drive folder) says how to fetch it.
    """

    path: str
    url: str | None = None
    archive: Archive | None = None
    gdrive_folder: str | None = None
    sha256: str | None = None
    size: int | None = None
    #: A known partial copy (for example a published sample) rather than the whole split.
    partial: bool = False
    description: str = ""


@dataclass(frozen=True)
class DatasetProfile:
    """How the cross-dataset chapter treats a dataset: the splits to try and what its units and evidence are."""

    #: splits tried in order; the first complete official one wins, else a partial copy, else demo
    splits: tuple[str, ...]
    #: what one record of the dataset is
    unit: str
    #: what the evidence is, in a few words
    evidence: str
    #: how the choice of evidence is recorded
    selection: str


@dataclass(frozen=True)
class RecordIds:
    """Where a dataset's records carry their id, and what a repeated id means."""

    #: The key of the id in each record (the files concerned hold one JSON record per line).
    field: str
    #: True: the publisher defines the id as unique, so a repeat means a damaged or doctored file
    #: (a :class:`~utils.errors.DataError`). False: repeats are known in the original data, so they
    #: are kept, with a warning naming them.
    unique: bool


@dataclass(frozen=True)
class DatasetSource:
    """A dataset, declared once: its official files per split, how they are parsed and rendered,
    its language, licence, citation and documentation.

    Everything else that depends on which datasets exist (the loader, the parsers, the renderers,
    the cross-dataset chapter, the benchmark) reads it from here; see "Adding a dataset" in
    ``book/contributing.md``.
    """

    name: str
    title: str
    language: str
    format: str
    homepage: str
    license: str
    citation_key: str
    #: split name -> official files, tried in order; a ``partial`` file is used only when no
    #: complete file is present.
    splits: dict[str, tuple[SourceFile, ...]]
    #: the parser module (dotted name): ``PARSER_VERSION`` and ``parse(path, *, split)``, see
    #: :mod:`utils.formats`
    parser: str
    #: the renderer module (dotted name): ``render(dialogue, **options) -> SafeHTML``, see
    #: :mod:`utils.render`
    renderer: str
    #: split name -> the name the publisher uses, when it differs from ours.
    original_split_names: dict[str, str] = field(default_factory=dict)
    #: extra files that are not splits (for example WISE's document collection).
    extra_files: dict[str, SourceFile] = field(default_factory=dict)
    notes: str = ""
    #: whether the published book may carry the dataset's rows (the data viewer's files), and why:
    #: decided from the licence; a local build always has them
    redistributable: bool = False
    redistribution: str = "no licence granting redistribution is recorded"
    #: what one record of a split is called (a :class:`~utils.records.Dialogue` in the atlas).
    record_unit: str = "dialogues"
    #: the splits the dataset's own chapter computes on, the largest first (the benchmark times
    #: that one and loads the others before timing the chapter's work); empty for companions
    chapter_splits: tuple[str, ...] = ()
    #: the dataset's column in the cross-dataset chapter (``None``: not compared there)
    profile: DatasetProfile | None = None
    #: the benchmark's writer of full-size synthetic files in this format, ``"module:function"``
    #: (outside this package, imported only by the benchmark); ``None``: it measures real files
    synthetic: str | None = None
    #: which field of a record is its id and whether the publisher makes it unique (``None``: the
    #: files give records no id of their own; the atlas numbers them by position)
    record_ids: RecordIds | None = None
    #: turn labels that are categories (counted by ``atlas stats``); free-text labels such as WoW's
    #: checked sentence or JWHR's citation lists are left out: each value would be its own row
    label_keys: tuple[str, ...] = ()
    #: labels stored as a list of the parts of one name (WISE's ``["Answer", "open-text"]`` is the
    #: action ``Answer-open-text``); every other label list holds separate labels
    joined_labels: tuple[str, ...] = ()

    @property
    def language_code(self) -> str:
        """The code of :attr:`language` that :func:`utils.text.tokenizer_for` expects (``en``, ``zh``, ``ja``)."""
        if self.language not in LANGUAGE_CODES:
            raise ValueError(f"{self.name}: no tokeniser for language {self.language!r}")
        return LANGUAGE_CODES[self.language]


WOW_ARCHIVE = Archive(
    url="http://parl.ai/downloads/wizard_of_wikipedia/wizard_of_wikipedia.tgz",
    filename="wizard_of_wikipedia.tgz",
    sha256="2a549627a83fea745efa2076a41d1c0078ad002ab2b54eae6a4e3d3d66ae24b7",
)

#: The members of the ParlAI archive, all extracted next to each other under ``wow/raw/``.
WOW_ARCHIVE_MEMBERS = (
    "train.json",
    "valid_random_split.json",
    "valid_topic_split.json",
    "test_random_split.json",
    "test_topic_split.json",
    "data.json",
    "topic_splits.json",
)


def _wow_raw(member: str) -> SourceFile:
    return SourceFile(path=f"wow/raw/{member}", archive=WOW_ARCHIVE)


def _hf(
    repo: str,
    repo_path: str,
    local: str,
    sha256: str | None = None,
    size: int | None = None,
    *,
    revision: str,
) -> SourceFile:
    # Always a commit: a branch such as ``main`` may change under the atlas's checksums and numbers.
    return SourceFile(
        path=local, url=f"{_HF}/{repo}/resolve/{revision}/{repo_path}", sha256=sha256, size=size
    )


#: The FaithDial hub repository's commit the atlas downloads from: 7a414e8, "Fix task tags (#2)", the
#: last commit to the repository's README (as its page on the hub shows). The full hash is the one
#: another project pins to fetch ``data/<split>.json`` from this repository, so the data files are at
#: this commit; whether ``main`` has moved on since was not checked. No checksums are recorded for
#: these files (none were at hand from an unmodified download): they are checked by parsing.
FAITHDIAL_REVISION = "7a414e80725eac766f2602676dc8b39f80b061e4"

#: The JWHR hub repository's commit the atlas downloads from: the head of ``main`` in the commit
#: history of baobab-trees/wikipedia-human-retrieval-ja (its last commit, 2024-03-19, edits the
#: README). ``data/answered.jsonl`` was last replaced on 2024-03-18 (commit
#: ea01ae9e2c74856c9369670a99190ea837ed504e, "Upload answered.jsonl"); ``data/not_answered.jsonl``
#: is the file of the first upload (2024-01-15). ``main`` may move on, a commit does not. The
#: checksums below are those of the copies the atlas was checked on (the hub's own LFS hashes were
#: not at hand to compare): a download that differs from them fails loudly instead of being parsed.
JWHR_REVISION = "02e85c83a64f345aee62fba3a35af99c075a331f"


_AUDIT_FILES = {
    "gold_wow": ("gold/wow.csv", "0237ccc1472e9426e3e6631bb3cb8dbbbc7c7083190f633a7db81672992127aa", 70445),
    "gold_cmu": ("gold/cmu.csv", "91aff154c342c1a9c4c74c24c6ef067efca17719e64aa0969419fdbb8d57c9cb", 275728),
    "gold_topical": ("gold/topical.csv", "4bd585d91e2c2e591220d3167fe6e1806c335d8870414833f32a0fd564f9fdec", 362859),
    "gpt2_wow": ("GPT2/gpt2_processed_wow.csv", "a74dcc1b8427fb91ce1b173b2ce98a6ed06560299dd9db544e8976d3b6237987", 69189),
    "gpt2_cmu": ("GPT2/gpt2_processed_cmu.csv", "a74c0a9ebfa1603a293b7ffae27b6498fd8f112079c5830b0ac7d48a59c3e5b6", 246479),
    "gpt2_topical": ("GPT2/gpt2_processed_topical.csv", "7d13fa3258783f76f63963e9aab0a2dc5668003d74b246a8fbda6da6f7be7255", 305611),
    "doha_wow": ("DoHA/doha_processed_wow.csv", "45fd23f61e77735169cf693dd7f4eabc0c07c0a855433584f88cd0f85e801929", 63144),
    "doha_cmu": ("DoHA/doha_processed_cmu.csv", "20f4e75021bd18f03fb3acc073acf90cde47250b6177ae2cdb1bef17604f2e77", 250546),
    "doha_topical": ("DoHA/doha_processed_topical.csv", "ac2f9a6edb1514b18ce034f1b3ea0f4e68f765cbde4d87f0b6c7ebdd6b5c44b6", 296984),
    "ctrl_wow": ("CTRL/ctrl_processed_wow.csv", "a547b236b5ab7bd64a93fe6aeb6e2886bd2239e370538563abdd3667c92b5700", 71046),
    "ctrl_cmu": ("CTRL/ctrl_processed_cmu.csv", "fdf6b4fd326cc9c0b7222f4a2c3a6a7b8943ec4feda195adc727b86e11a86664", 251638),
    "ctrl_topical": ("CTRL/ctrl_processed_topicalchat.csv", "b6c6ed1c3bfeb2578dab05ab694482047119b16ff0e3350b88f6a2f86605b201", 304084),
}

WISE_GDRIVE_FOLDER = "1KFo3OGvFjqC-cDL6_hULyZc5CANz2Rky"


def _wise(filename: str) -> SourceFile:
    return SourceFile(path=f"wise/{filename}", gdrive_folder=WISE_GDRIVE_FOLDER)


SOURCES: dict[str, DatasetSource] = {
    "wow": DatasetSource(
        name="wow",
        label_keys=("checked_source", "knowledge"),
        title="Wizard of Wikipedia",
        language="English",
        format="ParlAI raw JSON (one list of dialogues per file)",
        homepage="https://parl.ai/projects/wizard_of_wikipedia/",
        license="MIT (ParlAI repository); the project page names no separate data licence",
        redistributable=True,
        redistribution="the ParlAI repository that publishes the files is MIT-licensed: copies may be redistributed with the notice",
        citation_key="dinan2019wizard",
        parser="utils.formats.wow_raw",
        renderer="utils.render.wow",
        synthetic="benchmarks.synthetic:write_wow",
        chapter_splits=("train", "valid_seen", "valid_unseen", "test_seen", "test_unseen"),
        profile=DatasetProfile(
            ("valid_seen", "train"),
            "dialogue (wizard and apprentice chat about a topic)",
            "Wikipedia sentences: the topic's lead passage and passages retrieved for each turn",
            "the wizard checks one sentence per turn (or 'no passage used')",
        ),
        splits={
            "train": (
                _wow_raw("train.json"),
                SourceFile(
                    path="wow/raw/train_sample.json",
                    partial=True,
                    description="5 dialogues of train.json in the raw format, published with "
                    "the DialogStudio collection",
                ),
            ),
            "valid_seen": (_wow_raw("valid_random_split.json"),),
            "valid_unseen": (_wow_raw("valid_topic_split.json"),),
            "test_seen": (_wow_raw("test_random_split.json"),),
            "test_unseen": (_wow_raw("test_topic_split.json"),),
        },
        original_split_names={
            "valid_seen": "valid_random_split",
            "valid_unseen": "valid_topic_split",
            "test_seen": "test_random_split",
            "test_unseen": "test_topic_split",
        },
        extra_files={
            "data": _wow_raw("data.json"),
            "topic_splits": _wow_raw("topic_splits.json"),
        },
    ),
    "wow_kilt": DatasetSource(
        name="wow_kilt",
        label_keys=("target",),
        # KILT's format means ids to be unique, but its WoW files are known to repeat examples
        # (facebookresearch/KILT issue #41 counts 94,577 train examples for 83,160 wizard turns of the
        # original, and 3,058 dev examples). The dev file here has 3,054 examples with distinct ids; no
        # train copy was at hand to check, so a repeat is kept with a warning rather than making an
        # official file unloadable.
        record_ids=RecordIds(field="id", unique=False),
        record_unit="examples",
        title="Wizard of Wikipedia (KILT version)",
        language="English",
        format="KILT JSON Lines (one example per line: input, output answers with provenance)",
        homepage="https://github.com/facebookresearch/KILT",
        license="MIT",
        redistributable=True,
        redistribution="MIT: copies may be redistributed with the licence notice",
        citation_key="petroni2021kilt",
        parser="utils.formats.wow_kilt",
        renderer="utils.render.wow",
        splits={
            "train": (SourceFile(path="wow/kilt/wow-train-kilt.jsonl", url=f"{_KILT}/wow-train-kilt.jsonl"),),
            "dev": (
                SourceFile(
                    path="wow/kilt/wow-dev-kilt.jsonl",
                    url=f"{_KILT}/wow-dev-kilt.jsonl",
                    sha256="bbf98ea3841f3454e189e69829d6c03149c2e7482b3feda0ea73acf547654c7b",
                    size=2418285,
                ),
            ),
            "test": (
                SourceFile(
                    path="wow/kilt/wow-test_without_answers-kilt.jsonl",
                    url=f"{_KILT}/wow-test_without_answers-kilt.jsonl",
                ),
            ),
        },
        original_split_names={"test": "test_without_answers"},
    ),
    "faithdial": DatasetSource(
        name="faithdial",
        label_keys=("BEGIN", "VRM"),
        title="FaithDial",
        language="English",
        format="JSON (a list of dialogues, each a list of wizard utterances with history)",
        homepage="https://mcgill-nlp.github.io/FaithDial/",
        license="MIT",
        redistributable=True,
        redistribution="MIT: copies may be redistributed with the licence notice",
        citation_key="dziri2022faithdial",
        parser="utils.formats.faithdial",
        renderer="utils.render.faithdial",
        synthetic="benchmarks.synthetic:write_faithdial",
        chapter_splits=("train", "valid", "test"),
        profile=DatasetProfile(
            ("valid", "train"),
            "dialogue (WoW conversations with edited wizard responses)",
            "one Wikipedia sentence per wizard turn (the knowledge the response must follow)",
            "the one knowledge sentence is given; BEGIN and VRM labels describe the original response",
        ),
        splits={
            split: (
                _hf(
                    "McGill-NLP/FaithDial",
                    f"data/{split_file}.json",
                    f"faithdial/{split_file}.json",
                    revision=FAITHDIAL_REVISION,
                ),
            )
            for split, split_file in {
                "train": "train",
                "valid": "valid",
                "valid_seen": "valid_random_split",
                "valid_unseen": "valid_topic_split",
                "test": "test",
                "test_seen": "test_random_split",
                "test_unseen": "test_topic_split",
            }.items()
        },
        original_split_names={
            "valid_seen": "valid_random_split",
            "valid_unseen": "valid_topic_split",
            "test_seen": "test_random_split",
            "test_unseen": "test_topic_split",
        },
        notes="The hub repository's loading script does not run on current `datasets`; "
        f"the atlas downloads the JSON files from commit {FAITHDIAL_REVISION[:7]} (not from `main`) "
        "and parses them itself.",
    ),
    "faithdial_audit": DatasetSource(
        name="faithdial_audit",
        label_keys=("BEGIN", "VRM"),
        record_unit="labelled responses",
        title="FaithDial hallucination audit (BEGIN/VRM labels on WoW, CMU-DoG, TopicalChat)",
        language="English",
        format="CSV (one labelled response per row; column names differ between files)",
        homepage="https://github.com/McGill-NLP/FaithDial/tree/main/data-audit",
        license="MIT",
        redistributable=True,
        redistribution="MIT: copies may be redistributed with the licence notice",
        citation_key="dziri2022origin",
        parser="utils.formats.faithdial_audit",
        renderer="utils.render.faithdial",
        splits={
            name: (
                SourceFile(
                    path=f"faithdial-audit/{rel}", url=f"{_FAITHDIAL_GITHUB}/{rel}", sha256=sha, size=size
                ),
            )
            for name, (rel, sha, size) in _AUDIT_FILES.items()
        },
    ),
    "wise": DatasetSource(
        name="wise",
        label_keys=("intent", "action"),
        joined_labels=("intent", "action"),
        # The authors' README: "conversation_id is the unique id of a conversation". (The test file is
        # test_seen plus test_unseen, so ids repeat across those files, never within one.)
        record_ids=RecordIds(field="conversation_id", unique=True),
        record_unit="conversations",
        title="WISE (Wizard of Search Engine)",
        language="Chinese",
        format="JSON Lines (one conversation per line) plus a JSON Lines document collection",
        homepage="https://github.com/PengjieRen/CaSE_WISE",
        license="see the authors' repository (research use)",
        redistributable=False,
        redistribution="research-use terms in the authors' repository; no licence grants redistribution",
        citation_key="ren2021wizard",
        parser="utils.formats.wise",
        renderer="utils.render.wise",
        synthetic="benchmarks.synthetic:write_wise",
        chapter_splits=("train", "valid", "test", "test_seen", "test_unseen"),
        profile=DatasetProfile(
            ("valid", "test"),
            "conversation (user and system in a conversational search session)",
            "passages of retrieved web documents (candidates per system turn)",
            "the system selects passages (and queries and documents) per turn",
        ),
        splits={
            "train": (_wise("conversation_train_line.json"),),
            "valid": (_wise("conversation_valid_line.json"),),
            "test": (_wise("conversation_test_line.json"),),
            "test_seen": (_wise("conversation_testseen_line.json"),),
            "test_unseen": (_wise("conversation_testunseen_line.json"),),
        },
        original_split_names={"test_seen": "testseen", "test_unseen": "testunseen"},
        extra_files={"documents": _wise("document_line.json")},
        notes="Published in a Google Drive folder (and on Baidu Pan); place the files in the "
        "data directory by hand if the download is refused.",
    ),
    "jwhr": DatasetSource(
        name="jwhr",
        # The dataset card calls ``id`` the "Entry ID" of a session; in the real files the 838 answered
        # and 433 not-answered ids are all distinct, and the two files share none.
        record_ids=RecordIds(field="id", unique=True),
        record_unit="sessions",
        title="Japanese Wikipedia Human Retrieval",
        language="Japanese",
        format="JSON Lines (one QA session per line)",
        homepage="https://huggingface.co/datasets/baobab-trees/wikipedia-human-retrieval-ja",
        license="Apache-2.0",
        redistributable=True,
        redistribution="Apache-2.0: copies may be redistributed with the licence and notices",
        citation_key="oda2023jwhr",
        parser="utils.formats.jwhr",
        renderer="utils.render.jwhr",
        chapter_splits=("answered", "not_answered"),
        profile=DatasetProfile(
            ("answered",),
            "QA session (a question and the answer a worker wrote after searching)",
            "quotes or summaries of the Wikipedia pages on the worker's search trail",
            "each answer sentence cites references of the trail",
        ),
        splits={
            "answered": (
                _hf(
                    "baobab-trees/wikipedia-human-retrieval-ja",
                    "data/answered.jsonl",
                    "jwhr/answered.jsonl",
                    "3934eb171ebb26be7f2d798655f79172b416fb3b3c5ec2882c3f452ea18c15ca",
                    2397505,
                    revision=JWHR_REVISION,
                ),
            ),
            "not_answered": (
                _hf(
                    "baobab-trees/wikipedia-human-retrieval-ja",
                    "data/not_answered.jsonl",
                    "jwhr/not_answered.jsonl",
                    "3c42639197a192f57deee70ca229bae2f6cbcdf69c393fe2f93aacda4e671e7e",
                    336992,
                    revision=JWHR_REVISION,
                ),
            ),
        },
        notes=f"Downloaded from commit {JWHR_REVISION[:7]} of the hub repository, not from `main`: "
        "the authors replaced answered.jsonl in March 2024, and `main` may change again.",
    ),
}


def dataset_names() -> list[str]:
    """The names :func:`utils.load` accepts."""
    return list(SOURCES)


def get_source(dataset: str) -> DatasetSource:
    """The registry entry of ``dataset``; an unknown name lists the valid ones."""
    try:
        return SOURCES[dataset]
    except KeyError:
        raise UnknownNameError("dataset", dataset, dataset_names()) from None


def split_names(dataset: str) -> list[str]:
    """The splits of ``dataset``."""
    return list(get_source(dataset).splits)


def get_split_files(dataset: str, split: str) -> tuple[SourceFile, ...]:
    """The official files of one split, complete ones first; unknown names list the valid ones."""
    source = get_source(dataset)
    try:
        return source.splits[split]
    except KeyError:
        raise UnknownNameError(f"split of {dataset!r}", split, list(source.splits)) from None


def origin(item: SourceFile) -> str:
    """Where ``item`` comes from, for readers: its URL, its archive's URL and member, or its folder."""
    if item.url:
        return item.url
    if item.archive:
        return f"{item.archive.url} (member {item.path.rsplit('/', 1)[-1]})"
    if item.gdrive_folder:
        return f"the Google Drive folder https://drive.google.com/drive/folders/{item.gdrive_folder}"
    return "a published sample (placed by hand)"


def _url(item: SourceFile) -> str:
    """The address a reader can open for ``item`` (the archive for a member), or ``""``."""
    if item.url:
        return item.url
    if item.archive:
        return item.archive.url
    if item.gdrive_folder:
        return f"https://drive.google.com/drive/folders/{item.gdrive_folder}"
    return ""


def registry_table(dataset: str | None = None) -> pd.DataFrame:
    """Every known official file: where it goes in the data directory, where it comes from (``url``: the
    address to open), its checks."""
    rows = []
    for source in [get_source(dataset)] if dataset else SOURCES.values():
        entries = [(split, item) for split, items in source.splits.items() for item in items]
        entries += [(f"({name})", item) for name, item in source.extra_files.items()]
        for split, item in entries:
            rows.append(
                {
                    "dataset": source.name,
                    "split": split,
                    "path in data directory": item.path,
                    "official location": origin(item),
                    "url": _url(item),
                    "sha256": (item.sha256 or (item.archive.sha256 if item.archive else None) or "")[:16],
                    "size (bytes)": item.size,
                    "kind": "partial sample" if item.partial else "official",
                }
            )
    frame = pd.DataFrame(rows)
    frame["size (bytes)"] = frame["size (bytes)"].astype("Int64")
    return frame


def datasets_table() -> pd.DataFrame:
    """One row per dataset: title, language, format, licence, homepage and citation key."""
    return pd.DataFrame(
        [
            {
                "name": s.name,
                "title": s.title,
                "language": s.language,
                "format": s.format,
                "licence": s.license,
                "rows published": ("yes: " if s.redistributable else "no: ") + s.redistribution,
                "homepage": s.homepage,
                "cite as": s.citation_key,
            }
            for s in SOURCES.values()
        ]
    )
