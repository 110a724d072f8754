"""`atlas croissant` writes a Croissant 1.1 card per dataset that mlcroissant accepts and can read.

* Every dataset's card validates (``mlcroissant.Dataset(jsonld=...)`` raises nothing).
* Its ``distribution`` lists exactly the official files whose sha256 the declaration records (or the
  archive that holds them), with that sha256 and URL; no file is listed with a checksum the atlas
  does not have.
* ``realdata``: mlcroissant reads the records of every official file present in the data directory
  whose format it can read here (the audit's CSV files, BEGIN's TSV files, JWHR's and KILT's JSON
  Lines): as many records as the file holds, with the first row's values, and the file's own
  sha256 is the card's.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path

import pytest

from utils import cli
from utils.croissant import GIT, RAI_FIELDS, REPOSITORY_CHECKSUM, CardError, _bibtex_entry, _id
from utils.sources import registry

mlcroissant = pytest.importorskip("mlcroissant")

DATASETS = list(registry())


def write(dataset: str, tmp_path: Path) -> tuple[Path, dict]:
    out = tmp_path / f"{dataset}.croissant.json"
    assert cli.main(["croissant", dataset, "--out", str(out)]) == 0
    return out, json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("dataset", DATASETS)
def test_every_card_is_valid_croissant(dataset: str, tmp_path: Path) -> None:
    out, card = write(dataset, tmp_path)
    mlcroissant.Dataset(jsonld=str(out))  # raises ValidationError on any error
    assert card["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    source = registry()[dataset]
    assert card["license"] == source.license and card["url"] == source.homepage
    assert card["citeAs"].startswith("@") and source.citation_key in card["citeAs"] and card["citeAs"].endswith("}")


@pytest.mark.parametrize("dataset", DATASETS)
def test_the_distribution_is_the_declared_files_with_their_sha256(dataset: str, tmp_path: Path) -> None:
    _, card = write(dataset, tmp_path)
    source = registry()[dataset]
    files = [item for items in source.splits.values() for item in items if not item.partial]
    files += list(source.extra_files.values())
    expected = {}
    for item in files:
        if item.archive is not None and item.archive.sha256:
            expected[_id(item.archive.filename)] = (item.archive.url, item.archive.sha256)
        elif item.sha256 and item.url:
            expected[_id(item.path)] = (item.url, item.sha256)
    listed = {
        node["@id"]: (node["contentUrl"], node["sha256"])
        for node in card["distribution"]
        if "sha256" in node and node["encodingFormat"] != GIT
    }
    assert listed == expected
    for node in card["distribution"]:  # a repository node has the hosts' placeholder, never a made-up checksum
        if node["encodingFormat"] == GIT:
            assert node["sha256"] == REPOSITORY_CHECKSUM and "commit" in node["description"]
    for item in files:  # every file is in the card: listed, or named with why not
        assert _id(item.path) in {node["@id"] for node in card["distribution"]} or item.path in card["description"]


def test_label_vocabularies_are_enumerations_that_fields_reference(tmp_path: Path) -> None:
    _, card = write("begin", tmp_path)
    vocabularies = {rs["@id"]: rs for rs in card["recordSet"] if rs.get("dataType") == "sc:Enumeration"}
    labels = vocabularies["begin_tsv-begin_label-labels"]["data"]
    assert [row["begin_tsv-begin_label-labels/name"] for row in labels] == [
        "Fully attributable",
        "Not fully attributable",
        "Generic",
    ]
    dev = next(rs for rs in card["recordSet"] if rs["@id"] == "wow_dev")
    label_field = next(field for field in dev["field"] if field["name"] == "begin_label")
    assert label_field["references"] == {"field": {"@id": "begin_tsv-begin_label-labels/name"}}


def test_the_reported_sizes_are_in_the_card(tmp_path: Path) -> None:
    _, card = write("jwhr", tmp_path)
    answered = next(rs for rs in card["recordSet"] if rs["@id"] == "answered")
    assert "838 sessions" in answered["description"]
    _, card = write("faithdial", tmp_path)
    train = next(rs for rs in card["recordSet"] if rs["@id"] == "train")
    assert "36,809 turns" in train["description"] and "5,649 dialogues" in card["description"]


def test_a_bibtex_entry_is_taken_whole_with_its_nested_braces(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{a,\n  title = {The {BEGIN} one},\n  year = {2022}\n}\n\n@misc{b,\n  year = {1}\n}\n")
    assert _bibtex_entry(bib, "a") == "@misc{a,\n  title = {The {BEGIN} one},\n  year = {2022}\n}"
    with pytest.raises(CardError, match="no entry 'c'"):
        _bibtex_entry(bib, "c")
    with pytest.raises(CardError, match="no bibliography"):
        _bibtex_entry(tmp_path / "missing.bib", "a")


def test_a_card_cites_the_dataset_from_its_folder_s_citation_file() -> None:
    from utils.croissant import croissant_card
    from utils.sources import get_source

    source = get_source("jwhr")
    cited = croissant_card("jwhr")["citeAs"]
    assert cited.startswith(f"@misc{{{source.citation_key},") and cited in (source.folder / "citation.bib").read_text()


def test_an_unknown_dataset_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["croissant", "no-such-dataset", "--out", str(tmp_path / "x.json")]) == 2
    assert "wow" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def _rows(path: Path, encoding_format: str) -> list[dict]:
    """The file's records as the standard library reads them (the independent count)."""
    text = path.read_text(encoding="utf-8")
    if encoding_format == "application/jsonlines":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if encoding_format == "text/tab-separated-values":
        header, *lines = text.splitlines()
        names = header.split("\t")
        return [dict(zip(names, line.split("\t"), strict=True)) for line in lines if line]
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _text(value: object) -> object:
    return value.decode("utf-8") if isinstance(value, bytes) else value


@pytest.mark.realdata
@pytest.mark.parametrize("dataset", DATASETS)
def test_mlcroissant_reads_the_records_of_the_official_files_present(
    dataset: str, tmp_path: Path, real_data_dir: Path
) -> None:
    out, card = write(dataset, tmp_path)
    source = registry()[dataset]
    paths = {_id(item.path): real_data_dir / item.path for items in source.splits.values() for item in items}
    nodes = {node["@id"]: node for node in card["distribution"]}
    present = {node_id: path for node_id, path in paths.items() if node_id in nodes and path.is_file()}
    if not present:
        pytest.skip(f"no official file of {dataset} listed in its card is in {real_data_dir}")
    readable = ("text/csv", "text/tab-separated-values", "application/jsonlines")
    reader = mlcroissant.Dataset(jsonld=str(out), mapping={node_id: str(path) for node_id, path in present.items()})
    read = 0
    for record_set in card["recordSet"]:
        if record_set.get("dataType") == "sc:Enumeration":
            continue
        file_id = record_set["field"][0]["source"].get("fileObject", {}).get("@id")
        if file_id not in present:  # not here, or a member of a repository (read in its own test)
            continue
        path, node = present[file_id], nodes[file_id]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == node["sha256"], f"{path} is not the card's file"
        assert node["encodingFormat"] in readable
        records = list(reader.records(record_set["@id"]))
        rows = _rows(path, node["encodingFormat"])
        name = record_set["@id"]
        assert len(records) == len(rows), f"{name}: mlcroissant read {len(records)}, the file has {len(rows)}"
        for field in record_set["field"]:
            column = field["source"]["extract"]["column"]
            value = _text(records[0][field["@id"]])
            original = rows[0][column]
            assert value == original or (value is None and original == ""), (field["@id"], value, original)
        read += 1
    assert read == len(present)


SITE = Path(__file__).resolve().parents[1] / "_build" / "html"


@pytest.mark.skipif(not (SITE / "book" / "data.html").is_file(), reason="no built book: run `make book` first")
def test_the_data_page_links_every_card_the_build_wrote(tmp_path: Path) -> None:
    """The build writes the cards from the declarations it was built with, and the data page links each."""
    page = (SITE / "book" / "data.html").read_text(encoding="utf-8")
    for dataset in DATASETS:
        link = f'href="../_static/croissant/{dataset}.croissant.json"'
        assert link in page, f"the data page does not link {dataset}'s card"
        built = SITE / "_static" / "croissant" / f"{dataset}.croissant.json"
        mlcroissant.Dataset(jsonld=str(built))
        _, card = write(dataset, tmp_path)
        assert json.loads(built.read_text(encoding="utf-8")) == card, f"{built} differs from `atlas croissant`"


def test_every_card_carries_the_rai_fields_lineage_and_a_bcp47_language(tmp_path: Path) -> None:
    """NeurIPS's datasets track asks for Croissant core plus RAI: every card names all eight RAI fields,
    each value saying where it comes from, and the derived datasets name what they come from."""
    wow = "https://parl.ai/projects/wizard_of_wikipedia/"
    lineage = {
        "wow": set(),
        "wow_kilt": {wow},
        "faithdial": {wow},
        "faithdial_audit": {wow, "https://github.com/festvox/datasets-CMU_DoG", "https://github.com/alexa/Topical-Chat"},
        "begin": {wow, "https://github.com/festvox/datasets-CMU_DoG", "https://github.com/alexa/Topical-Chat"},
        "jwhr": set(),
        "wise": set(),
    }
    assert set(lineage) == set(DATASETS)
    tags = {"wow": "en", "wow_kilt": "en", "faithdial": "en", "faithdial_audit": "en", "begin": "en", "jwhr": "ja",
            "wise": "zh"}
    for dataset in DATASETS:
        _, card = write(dataset, tmp_path)
        assert [key.removeprefix("rai:") for key in card if key.startswith("rai:")] == list(RAI_FIELDS), dataset
        for field in RAI_FIELDS:
            value = card[f"rai:{field}"]
            assert value.strip(), (dataset, field)
            if field != "dataCollectionType":  # a category; every other value names its source
                assert "(" in value or "README" in value or "card" in value, (dataset, field, value)
        assert {node["@id"] for node in card.get("prov:wasDerivedFrom", [])} == lineage[dataset], dataset
        assert card["inLanguage"] == tags[dataset]


def test_cite_as_is_the_entry_to_copy_without_the_bibliography_s_year_letters(tmp_path: Path) -> None:
    for dataset in DATASETS:
        _, card = write(dataset, tmp_path)
        year = re.search(r"\byear\s*=\s*[{\"]([^}\"]*)", card["citeAs"])
        assert year is not None and re.fullmatch(r"\d{4}", year.group(1)), (dataset, year and year.group(1))


def test_every_content_url_is_pinned_to_a_commit_or_a_fixed_file(tmp_path: Path) -> None:
    """A branch (``/main/``) may change under the recorded checksums; the audit's files were on ``main``."""
    _, card = write("faithdial_audit", tmp_path)
    urls = [node["contentUrl"] for node in card["distribution"] if "contentUrl" in node]
    assert urls and all("/914a5ace43612af0ce4a7a89d52892c4e48c1f7b/data-audit/" in url for url in urls)
    for dataset in DATASETS:
        _, card = write(dataset, tmp_path)
        for node in card["distribution"]:
            assert "/main/" not in node.get("contentUrl", ""), (dataset, node["@id"])


@pytest.mark.parametrize(("dataset", "files"), [("faithdial", 7), ("wise", 5), ("begin", 6)])
def test_files_pinned_by_a_repository_commit_are_listed(dataset: str, files: int, tmp_path: Path) -> None:
    """FaithDial's and WISE's files have no sha256: they are members of the repository at its commit,
    with the git blob id where the publisher's tree pins one, so a tool can find and load them."""
    _, card = write(dataset, tmp_path)
    source = registry()[dataset]
    ids = {node["@id"] for node in card["distribution"]}
    declared = [item for items in source.splits.values() for item in items if not item.partial and item.url]
    assert len(declared) == files and all(_id(item.path) in ids for item in declared)
    for item in declared:
        if item.git_blob and not item.sha256:
            node = next(node for node in card["distribution"] if node["@id"] == _id(item.path))
            assert item.git_blob in node["description"] and node["containedIn"]["@id"] in ids


def _isolated_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # mlcroissant extracts an archive once per URL into its cache: a test's archive goes to its own folder
    from etils import epath
    from mlcroissant._src.operation_graph.operations import extract

    monkeypatch.setattr(extract, "EXTRACT_PATH", epath.Path(tmp_path / "extract"))


def test_mlcroissant_reads_the_wow_records_inside_a_synthetic_archive_of_parlai_s_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ParlAI's wizard_of_wikipedia.tgz holds the split files side by side; the card's record sets read
    them through the archive (without ``containedIn`` in the context mlcroissant read 0 records of it)."""
    import tarfile

    from utils.datasets.wow import ARCHIVE_MEMBERS

    _isolated_cache(monkeypatch, tmp_path)
    out, card = write("wow", tmp_path)
    members = tmp_path / "members"
    members.mkdir()
    expected = {}
    for number, member in enumerate(ARCHIVE_MEMBERS):
        dialogues = [
            {"chosen_topic": f"{member} topic {i}", "persona": "i like cats", "wizard_eval": 1 + i, "dialog": []}
            for i in range(number + 2)  # two or more: mlcroissant reads a one-element list as one record's columns
        ]
        (members / member).write_text(json.dumps(dialogues), encoding="utf-8")
        expected[member] = dialogues
    archive = tmp_path / "wizard_of_wikipedia.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        for member in ARCHIVE_MEMBERS:
            tar.add(members / member, arcname=member)
    (tmp_path / "elsewhere.json").write_text("[]")  # nothing outside the archive may be read
    # the card as written, but for the archive's checksum: mlcroissant checks it, and this archive is not ParlAI's
    archive_node = next(node for node in card["distribution"] if node["@id"] == "wizard_of_wikipedia.tgz")
    assert archive_node["sha256"] == registry()["wow"].splits["train"][0].archive.sha256
    archive_node["sha256"] = hashlib.sha256(archive.read_bytes()).hexdigest()
    out.write_text(json.dumps(card), encoding="utf-8")
    reader = mlcroissant.Dataset(jsonld=str(out), mapping={"wizard_of_wikipedia.tgz": str(archive)})
    source = registry()["wow"]
    record_sets = [rs for rs in card["recordSet"] if rs.get("dataType") != "sc:Enumeration"]
    assert {rs["@id"] for rs in record_sets} == set(source.card_formats[0].splits)
    for record_set in record_sets:
        split = record_set["@id"]
        member = next(item.path for item in source.splits[split] if not item.partial).rsplit("/", 1)[-1]
        records = list(reader.records(split))
        assert len(records) == len(expected[member]) > 0, split
        assert [_text(r[f"{split}/chosen_topic"]) for r in records] == [d["chosen_topic"] for d in expected[member]]
        assert [r[f"{split}/wizard_eval"] for r in records] == [d["wizard_eval"] for d in expected[member]]


def test_mlcroissant_reads_the_wise_records_from_a_synthetic_repository_of_the_authors_layout(
    tmp_path: Path,
) -> None:
    """WISE's conversations are files of PengjieRen/CaSE_WISE under data/WISE/: the card's repository
    node, mapped to a folder of that layout, yields each file's records."""
    out, card = write("wise", tmp_path)
    repository = next(node for node in card["distribution"] if node["encodingFormat"] == GIT)
    root = tmp_path / "CaSE_WISE"
    (root / "data" / "WISE").mkdir(parents=True)
    counts = {}
    for number, record_set in enumerate(rs for rs in card["recordSet"] if rs.get("dataType") != "sc:Enumeration"):
        file_id = record_set["field"][0]["source"]["fileSet"]["@id"]
        node = next(node for node in card["distribution"] if node["@id"] == file_id)
        lines = [
            {"conversation_id": 100 * number + i, "intent": f"意图 {i}", "conversations": []} for i in range(number + 2)
        ]
        (root / node["includes"]).write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n",
                                             encoding="utf-8")
        counts[record_set["@id"]] = lines
    reader = mlcroissant.Dataset(jsonld=str(out), mapping={repository["@id"]: str(root)})
    for name, lines in counts.items():
        records = list(reader.records(name))
        assert [r[f"{name}/conversation_id"] for r in records] == [line["conversation_id"] for line in lines], name
        assert [_text(r[f"{name}/intent"]) for r in records] == [line["intent"] for line in lines]


def test_mlcroissant_reads_faithdial_s_utterances_from_a_synthetic_hub_repository(tmp_path: Path) -> None:
    """FaithDial's split files are data/<split>.json of the hub repository at a pinned commit: mapped to
    a folder of that layout (the atlas's demo files, which are in the publisher's format), the card
    yields one record per utterance, in the file's order."""
    out, card = write("faithdial", tmp_path)
    repository = next(node for node in card["distribution"] if node["encodingFormat"] == GIT)
    assert repository["contentUrl"] == "https://huggingface.co/datasets/McGill-NLP/FaithDial"
    source = registry()["faithdial"]
    root = tmp_path / "FaithDial"
    (root / "data").mkdir(parents=True)
    record_sets = [rs for rs in card["recordSet"] if rs.get("dataType") != "sc:Enumeration"]
    assert {rs["@id"] for rs in record_sets} == set(source.splits)
    utterances = {}
    for record_set in record_sets:
        split = record_set["@id"]
        file_id = record_set["field"][0]["source"]["fileSet"]["@id"]
        node = next(node for node in card["distribution"] if node["@id"] == file_id)
        demo = source.folder / "demo" / "faithdial" / node["includes"].rsplit("/", 1)[-1]
        (root / node["includes"]).write_bytes(demo.read_bytes())
        dialogues = json.loads(demo.read_text(encoding="utf-8"))
        utterances[split] = [utterance for dialogue in dialogues for utterance in dialogue["utterances"]]
    reader = mlcroissant.Dataset(jsonld=str(out), mapping={repository["@id"]: str(root)})
    for split, expected in utterances.items():
        records = list(reader.records(split))
        assert len(records) == len(expected) > 0, split
        for field in ("knowledge", "original_response", "response"):
            assert [_text(r[f"{split}/{field}"]) for r in records] == [u[field] for u in expected], (split, field)


def test_one_archive_declared_as_every_split_s_file_is_listed_once() -> None:
    """A publisher's archive that holds three splits, declared as each split's file: one FileObject
    (ids are unique in a card), typed as the archive it is, and each split's record set points at it."""
    from utils.croissant import _distribution
    from utils.declaration import SourceFile
    from utils.sources import get_source

    archive = SourceFile(path="toy/conversations.zip", url="https://example.org/conversations.zip", sha256="0" * 64,
                         size=10)
    source = get_source("begin").replace(splits={name: (archive,) for name in ("train", "valid", "test")},
                                         card_formats=())
    nodes, listed, left_out = _distribution(source)
    ids = [node["@id"] for node in nodes]
    assert len(ids) == len(set(ids)) == 1 and not left_out
    assert nodes[0]["encodingFormat"] == "application/zip"
    assert set(listed) == {"train", "valid", "test"} and len({file_id for _, file_id in listed.values()}) == 1
