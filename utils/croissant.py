"""Machine-readable cards: a dataset's declaration as a Croissant 1.1 JSON-LD file.

`Croissant <https://docs.mlcommons.org/croissant/docs/croissant-spec-1.1.html>`_ (MLCommons) describes
a dataset for machines: its files (``distribution``), the records they hold (``recordSet``, with typed
fields and where each is read from), its licence and how to cite it. :func:`croissant_card` writes one
from what a dataset's folder declares and nothing else:

* ``distribution``: the official files of every split with the sha256 the declaration records (a
  member of an archive is a FileObject ``containedIn`` the archive, whose sha256 is recorded). Croissant requires a
  checksum of every file it lists; a file the atlas knows only by its git blob id, or by no checksum
  at all, is named in the card's description instead, never listed with a made-up checksum.
* ``recordSet``: the original formats' records, one record set per split file listed, with the fields
  the declaration's ``card_formats`` type (:class:`CardFormat`, :class:`CardField`) and, for a label
  field, its vocabulary as an enumeration record set of its own (referenced where a cell holds one
  label, described where it holds a list).
  A file a publisher pins only by a repository's commit (and git blob id) is a member of a
  ``git+https`` repository node; a repository has no sha256 of its own, so that node carries the
  placeholder Croissant's hosts use for one (:data:`REPOSITORY_CHECKSUM`), and the commit and the
  blob ids are in its description.
* ``license`` (with, in the description, the publisher's statement it is read from), ``citeAs`` (the
  BibTeX entry of the dataset's citation key, the year as published) and, in the descriptions, the
  sizes the authors report (:mod:`utils.reported`), each with its source.
* ``inLanguage`` as a BCP 47 tag, the Croissant RAI fields the folder's ``card.py`` declares
  (``RAI``: :data:`RAI_FIELDS`, each value saying where it comes from) and its lineage as PROV-O
  ``prov:wasDerivedFrom`` (``DERIVED_FROM``: the datasets it was made from). A folder that declares
  two datasets prefixes the second one's (``KILT_RAI``, ``AUDIT_DERIVED_FROM``), as for every hook.

``atlas croissant DATASET --out FILE`` writes the card. ``mlcroissant`` validates every card in the
tests and reads the records of the official files present (``tests/test_croissant.py``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# The card types are part of the declaration (utils.declaration); named here too, where they were first.
from .declaration import BOOLEAN as BOOLEAN
from .declaration import CSV as CSV
from .declaration import FLOAT as FLOAT
from .declaration import INTEGER as INTEGER
from .declaration import JSON as JSON
from .declaration import JSON_LINES as JSON_LINES
from .declaration import TAR as TAR
from .declaration import TEXT as TEXT
from .declaration import TSV as TSV
from .declaration import Archive, DatasetSource, Reported, SourceFile
from .declaration import CardField as CardField
from .declaration import CardFormat as CardFormat
from .errors import AtlasError
from .folder_files import CITATION, as_published, entry_text
from .reported import quantity_label
from .sources import get_source

#: The Croissant version the cards conform to.
CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
#: Croissant's JSON-LD context (as ``mlcroissant`` writes it for version 1.1).
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "containedIn": "cr:containedIn",
    "prov": "http://www.w3.org/ns/prov#",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}

#: The Croissant RAI properties every card carries (NeurIPS's datasets track asks for them), each
#: declared by the dataset's folder (``card.py``: ``RAI``) from what its chapter, paper and
#: repository say.
RAI_FIELDS = (
    "dataCollection",
    "dataCollectionType",
    "dataAnnotationProtocol",
    "dataUseCases",
    "dataLimitations",
    "dataBiases",
    "personalSensitiveInformation",
    "dataReleaseMaintenancePlan",
)
#: BCP 47 tags of the languages a declaration names (``inLanguage`` wants a tag, not a name).
LANGUAGE_TAGS = {"English": "en", "Chinese": "zh", "Japanese": "ja"}
#: What Croissant's hosts write as the sha256 of a git repository, which has none
#: (mlcommons/croissant issue 80): mlcroissant requires the property and checks no directory against it.
REPOSITORY_CHECKSUM = "https://github.com/mlcommons/croissant/issues/80"
GIT = "git+https"
# A file at a commit of a GitHub or Hugging Face repository: (clone URL, commit, path in the repository).
_PINNED = (
    re.compile(r"^https://raw\.githubusercontent\.com/(?P<repo>[^/]+/[^/]+)/(?P<commit>[0-9a-f]{40})/(?P<path>.+)$"),
    re.compile(r"^https://huggingface\.co/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<commit>[0-9a-f]{40})/(?P<path>.+)$"),
)
_CLONE = {0: "https://github.com/{}", 1: "https://huggingface.co/datasets/{}"}


class CardError(AtlasError):
    """A dataset's declaration cannot be written as a card (a format names an unknown split)."""


def _bibtex_entry(bibliography: Path, key: str) -> str:
    """The BibTeX entry of ``key`` in ``bibliography``, as written there."""
    if not bibliography.is_file():
        raise CardError(f"{bibliography}: no bibliography to cite {key!r} from")
    try:
        entry = entry_text(bibliography.read_text(encoding="utf-8"), key)
    except ValueError as error:
        raise CardError(f"{bibliography}: {error}") from None
    if entry is None:
        raise CardError(f"{bibliography}: no entry {key!r}")
    return as_published(entry)


def _id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def _reported_sentence(items: list[Reported]) -> str:
    parts = []
    for item in items:
        approx = "about " if item.unit == "approx." else ""
        unit = "" if item.unit in ("", "approx.") else f" {item.unit}"
        value = f"{int(item.value):,}" if float(item.value).is_integer() else f"{item.value:g}"
        parts.append(f"{approx}{value}{unit} {quantity_label(item.name)} ({item.source})")
    return "; ".join(parts)


def _sizes(source: DatasetSource, split: str) -> list[Reported]:
    size_names = {"dialogues", "sessions", "examples", "turns", "utterances", "responses", "conversations"}
    return [item for item in source.reported if item.split == split and item.name in size_names]


def _file_object(item: SourceFile, encoding: str) -> dict[str, Any]:
    node: dict[str, Any] = {
        "@type": "cr:FileObject",
        "@id": _id(item.path),
        "name": _id(item.path),
        "contentUrl": item.url,
        "encodingFormat": encoding,
        "sha256": item.sha256,
    }
    if item.size is not None:
        node["contentSize"] = f"{item.size} B"
    if item.description:
        node["description"] = item.description
    return node


def _member(item: SourceFile, encoding: str, archive_id: str) -> dict[str, Any]:
    """A file extracted from an archive: a FileObject ``containedIn`` the archive, at its path there.

    A FileObject, not a FileSet: mlcroissant reads the records of an archive's FileObject member, and of
    a FileSet member only the file names (a FileSet read 0 records of WoW's archive). The member's path
    is its file name: the atlas's archives hold their files side by side, as ParlAI's does."""
    member = item.path.rsplit("/", 1)[-1]
    return {
        "@type": "cr:FileObject",
        "@id": _id(item.path),
        "name": _id(item.path),
        "description": f"{member}, a member of the archive {archive_id}",
        "containedIn": {"@id": archive_id},
        "contentUrl": member,
        "encodingFormat": encoding,
    }


def _pinned(url: str | None) -> tuple[str, str, str] | None:
    """(clone URL, commit, path) of a file at a commit of a GitHub or Hugging Face repository."""
    for number, pattern in enumerate(_PINNED):
        match = pattern.match(url or "")
        if match:
            return _CLONE[number].format(match["repo"]), match["commit"], match["path"]
    return None


def _encoding(path: str, formats: Mapping[str, CardFormat], split: str) -> str:
    if split in formats:
        return formats[split].encoding
    if path.lower().endswith(".tar.gz"):
        return TAR
    suffix = path.rsplit(".", 1)[-1].lower()
    known = {"csv": CSV, "tsv": TSV, "jsonl": JSON_LINES, "json": JSON, "zip": "application/zip", "tar": TAR,
             "tgz": TAR, "gz": "application/gzip"}
    return known.get(suffix, "application/octet-stream")


@dataclasses.dataclass
class _Files:
    """The distribution of a card as its files are added: each file node once, each archive and each
    pinned repository listed once before the first file read from it."""

    nodes: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    archives: dict[str, str] = dataclasses.field(default_factory=dict)
    repositories: dict[tuple[str, str], dict[str, Any]] = dataclasses.field(default_factory=dict)

    def add(self, item: SourceFile, encoding: str) -> str | None:
        """List ``item``; return the kind of node a record set reads it from, or ``None`` when it cannot be
        listed (no checksum and no pinned commit)."""
        if (archive := item.archive) is not None and archive.sha256:
            self._add_member(item, archive, encoding)
            return "fileObject"
        if item.sha256 and item.url:
            # one file may hold several splits (a publisher's archive declared as each split's file):
            # listed once, each split's record set pointing at it
            if not any(node.get("@id") == _id(item.path) for node in self.nodes):
                self.nodes.append(_file_object(item, encoding))
            return "fileObject"
        if (pinned := _pinned(item.url)) is not None:
            self._add_pinned(item, encoding, *pinned)
            return "fileSet"
        return None

    def _add_member(self, item: SourceFile, archive: Archive, encoding: str) -> None:
        if archive.url not in self.archives:
            self.archives[archive.url] = _id(archive.filename)
            whole = SourceFile(path=archive.filename, url=archive.url, sha256=archive.sha256, size=archive.size)
            self.nodes.append(_file_object(whole, TAR))
        self.nodes.append(_member(item, encoding, self.archives[archive.url]))

    def _add_pinned(self, item: SourceFile, encoding: str, clone: str, commit: str, in_repository: str) -> None:
        repository = self.repositories.get((clone, commit))
        if repository is None:
            repository = _repository(clone, commit)
            self.repositories[(clone, commit)] = repository
            self.nodes.append(repository)
        pin = f"git blob {item.git_blob}" if item.git_blob else "no checksum published"
        self.nodes.append({
            "@type": "cr:FileSet",
            "@id": _id(item.path),
            "name": _id(item.path),
            "description": f"{in_repository} at commit {commit} of {clone} ({pin})",
            "containedIn": {"@id": repository["@id"]},
            "encodingFormat": encoding,
            "includes": in_repository,
        })


def _repository(clone: str, commit: str) -> dict[str, Any]:
    """The node of a repository at a commit, which the files read from it are contained in."""
    return {
        "@type": "cr:FileObject",
        "@id": _id(f"{clone.split('/', 3)[-1]}@{commit[:7]}"),
        "name": _id(f"{clone.split('/', 3)[-1]}@{commit[:7]}"),
        "description": f"The repository {clone} at commit {commit}, the one the files below are "
        "read from (a repository has no sha256: the commit pins it).",
        "contentUrl": clone,
        "encodingFormat": GIT,
        "sha256": REPOSITORY_CHECKSUM,
    }


def _distribution(source: DatasetSource) -> tuple[list[dict[str, Any]], dict[str, tuple[str, str]], list[str]]:
    """The files listed, ``split -> (fileObject or fileSet, id)`` of each split listed, and the files
    left out with why."""
    formats = {split: card for card in source.card_formats for split in card.splits}
    files = _Files()
    listed: dict[str, tuple[str, str]] = {}
    left_out: list[str] = []
    # (split, file, whether the split's record set reads it): every part of a split spread over several
    # files is listed, and its record set reads the first (the others continue it, in the same format)
    entries = [
        (split, part, position == 0)
        for split, items in source.splits.items()
        for item in items
        if not item.partial
        for position, part in enumerate(item.all_parts())
    ]
    entries += [(f"({name})", item, False) for name, item in source.extra_files.items()]
    for split, item, read in entries:
        kind = files.add(item, _encoding(item.path, formats, split))
        if kind is None:
            check = f"git blob {item.git_blob}" if item.git_blob else "no checksum"
            where = item.url or (f"Google Drive folder {item.gdrive_folder}" if item.gdrive_folder else "")
            left_out.append(f"{item.path} ({check}; {where})")
            continue
        if read:
            listed[split] = (kind, _id(item.path))
    return files.nodes, listed, left_out


def _vocabulary(format_name: str, field: CardField) -> dict[str, Any]:
    record_id = _id(f"{format_name}-{field.name}-labels")
    return {
        "@type": "cr:RecordSet",
        "@id": record_id,
        "name": record_id,
        "description": f"The label vocabulary of the field {field.name!r} of the {format_name} format.",
        "dataType": "sc:Enumeration",
        "key": {"@id": f"{record_id}/name"},
        "field": [{"@type": "cr:Field", "@id": f"{record_id}/name", "name": "name", "dataType": TEXT}],
        "data": [{f"{record_id}/name": label} for label in field.labels],
    }


def _record_set(source: DatasetSource, card: CardFormat, split: str, file: tuple[str, str]) -> dict[str, Any]:
    record_id = _id(split)
    fields = []
    for field in card.fields:
        extract = {"column": field.column} if field.column else {"jsonPath": field.json_path}
        node: dict[str, Any] = {
            "@type": "cr:Field",
            "@id": f"{record_id}/{field.name}",
            "name": field.name,
            "description": field.description,
            "dataType": field.data_type,
            "source": {file[0]: {"@id": file[1]}, "extract": extract},
        }
        if field.labels and field.one_label:
            node["references"] = {"field": {"@id": f"{_id(f'{card.name}-{field.name}-labels')}/name"}}
        fields.append(node)
    original = source.original_split_names.get(split, split)
    description = f"{card.description} Split {split!r} (the publisher's name: {original!r})."
    further = [part.path for item in source.splits[split] if not item.partial for part in item.parts]
    if further:
        description += f" Its records continue, in the same format, in {', '.join(map(_id, further))}."
    sizes = _sizes(source, split)
    if sizes:
        description += f" The authors report {_reported_sentence(sizes)}."
    return {"@type": "cr:RecordSet", "@id": record_id, "name": record_id, "description": description, "field": fields}


def _rai(source: DatasetSource) -> dict[str, str]:
    declared = source.hook("card", "RAI", {})
    unknown = sorted(set(declared) - set(RAI_FIELDS))
    if unknown:
        raise CardError(f"{source.name}: card.py declares unknown RAI fields {unknown}; known: {list(RAI_FIELDS)}")
    return {f"rai:{name}": declared[name] for name in RAI_FIELDS if declared.get(name)}


def _language_tag(source: DatasetSource) -> str:
    if source.language not in LANGUAGE_TAGS:
        raise CardError(f"{source.name}: no BCP 47 tag known for the language {source.language!r}; "
                        f"known: {sorted(LANGUAGE_TAGS)}")
    return LANGUAGE_TAGS[source.language]


def _check_card_formats(dataset: str, source: DatasetSource) -> None:
    """Refuse a card format that names a split the dataset does not have."""
    for card in source.card_formats:
        unknown = [split for split in card.splits if split not in source.splits]
        if unknown:
            raise CardError(f"{dataset}: the card format {card.name!r} names unknown splits {unknown}")


def _record_sets(source: DatasetSource, listed: Mapping[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """Each card format's label vocabularies, and a record set per split of it whose file is listed."""
    record_sets: list[dict[str, Any]] = []
    for card in source.card_formats:
        for field in card.fields:
            if field.labels:
                record_sets.append(_vocabulary(card.name, field))
        for split in card.splits:
            if split in listed and card.fields:
                record_sets.append(_record_set(source, card, split, listed[split]))
    return record_sets


def _description(
    source: DatasetSource, listed: Mapping[str, tuple[str, str]], left_out: list[str], described: set[str]
) -> str:
    """The card's description: what the dataset is, the sizes its authors report where no record set
    says them (``described``: the record sets' ids), the formats and files the card cannot list."""
    description = (
        f"{source.title}. Format: {source.format}. Language: {source.language}. "
        f"Licence: {source.license}"
        + (f" (stated in {source.license_statement})" if source.license_statement else "")
        + f". Redistribution: {source.redistribution}."
    )
    whole = _sizes(source, "")
    if whole:
        description += f" The authors report {_reported_sentence(whole)}."
    for split in source.splits:
        sizes = _sizes(source, split)
        if sizes and _id(split) not in described:
            description += f" For the split {split!r} the authors report {_reported_sentence(sizes)}."
    for card in source.card_formats:
        if not any(split in listed and card.fields for split in card.splits):
            description += f" Its {card.name} format ({card.encoding}, no record set here): {card.description}"
    if left_out:
        description += (
            " Official files not listed as distribution, since Croissant requires a sha256 or md5 of each file "
            f"and the atlas records none for them: {'; '.join(left_out)}."
        )
    if source.notes:
        description += f" {source.notes}"
    return description


def croissant_card(dataset: str, bibliography: Path | None = None) -> dict[str, Any]:
    """The Croissant 1.1 JSON-LD card of ``dataset`` (a dict, ready for :func:`json.dumps`).

    The card cites the dataset with its entry in ``bibliography``, by default its folder's
    ``citation.bib``.
    """
    source = get_source(dataset)
    _check_card_formats(dataset, source)
    nodes, listed, left_out = _distribution(source)
    record_sets = _record_sets(source, listed)
    description = _description(source, listed, left_out, {item["@id"] for item in record_sets})
    lineage = [{"@id": url, "name": name} for name, url in source.hook("card", "DERIVED_FROM", ())]
    written: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": source.name,
        "alternateName": source.title,
        "description": description,
        "url": source.homepage,
        "license": source.license,
        "inLanguage": _language_tag(source),
        "citeAs": _bibtex_entry(bibliography or source.folder / CITATION, source.citation_key),
        **_rai(source),
    }
    if lineage:
        written["prov:wasDerivedFrom"] = lineage
    written["distribution"] = nodes
    written["recordSet"] = record_sets
    return written


def write_card(dataset: str, out: Path, bibliography: Path | None = None) -> dict[str, Any]:
    """Write :func:`croissant_card` of ``dataset`` to ``out`` (UTF-8, indented; written to a temporary
    name beside it and moved into place when complete); return the card."""
    card = croissant_card(dataset, bibliography)
    temporary = out.with_name(f".{out.name}.partial")
    temporary.write_text(json.dumps(card, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, out)
    return card
