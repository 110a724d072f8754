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
from pathlib import Path

import pytest

from utils import cli
from utils.croissant import CardError, _bibtex_entry, _id
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
    listed = {node["@id"]: (node["contentUrl"], node["sha256"]) for node in card["distribution"] if "sha256" in node}
    assert listed == expected
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
    assert "36,809 turns" in card["description"] and "5,649 dialogues" in card["description"]


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
        file_id = record_set["field"][0]["source"]["fileObject"]["@id"]
        if file_id not in present:
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
