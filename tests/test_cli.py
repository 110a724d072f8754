"""The ``atlas`` command (``python -m utils``): every command on the demo samples and on the real data,
wrong names, unwritable outputs, downloads from a local server, and the server ``make lab`` starts.

Expected numbers are counted by hand from ``utils/datasets/jwhr/demo/jwhr/answered.jsonl`` (three sessions)
and, for the real data, from the raw file itself.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from rich.cells import cell_len

import utils
from conftest import REPO
from utils import cli, sources
from utils.records import RECORD_SCHEMA

DEMO_JWHR = REPO / "utils" / "datasets" / "jwhr" / "demo" / "jwhr" / "answered.jsonl"
FUJI = "富士山の高さはどのくらいですか？"


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output is measured at the width of a plain terminal (rich reads $COLUMNS when not on a tty)."""
    monkeypatch.setenv("COLUMNS", "80")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _subprocess_env(tmp_path: Path) -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "80", "ATLAS_CACHE_DIR": str(tmp_path / "cache")}


# -- help and entry points --------------------------------------------------------------------------


def test_python_m_utils_prints_help_and_lists_every_command(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "utils", "--help"],
        capture_output=True,
        text=True,
        env=_subprocess_env(tmp_path),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: atlas")
    for command in ("status", "fetch", "show", "stats", "export"):
        assert f"    {command} " in result.stdout


@pytest.mark.parametrize("command", ["status", "fetch", "show", "stats", "export"])
def test_every_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main([command, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: atlas {command}")
    assert len(out.splitlines()) > 3


def test_no_command_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys)
    assert status == 2
    assert "usage: atlas" in err


def test_console_script_is_declared_and_runs(tmp_path: Path) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"] == {"atlas": "grounded_dialogue_atlas:main"}  # then utils.cli
    script = Path(sys.executable).parent / "atlas"
    if not script.exists():
        pytest.skip("the atlas script is not installed in this environment (pip install -e . installs it)")
    result = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, env=_subprocess_env(tmp_path), timeout=120
    )
    assert result.returncode == 0 and result.stdout.startswith("usage: atlas")


# -- status ----------------------------------------------------------------------------------------------


def test_status_on_an_empty_data_directory_says_demo_sample(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    status, out, _ = run(capsys, "status", "--json")
    assert status == 0
    result = json.loads(out)
    assert result["data_dir"] == str(data_dir)
    rows = {(row["dataset"], row["split"]): row["status"] for row in result["splits"]}
    assert rows[("jwhr", "answered")] == "demo sample"
    assert len(rows) == sum(len(source.splits) for source in sources.registry().values())

    status, out, _ = run(capsys, "status")
    assert status == 0
    assert str(data_dir) in out and "demo sample" in out and "jwhr/answered.jsonl" in out
    # within the terminal's 80 columns, but for a path too long for them: whole, on its own line
    # (soft-wrapped by the terminal, copied in one piece), and "downloads:" beside its value
    lines = out.splitlines()
    wide = [line for line in lines if cell_len(line) > 80]
    assert wide in ([], [f"data directory: {data_dir}"]), wide
    assert "downloads: " in lines[0] or lines[1].startswith("downloads: ")


@pytest.mark.parametrize(("depth", "columns"), [(0, 200), (0, 60), (12, 60)])
def test_status_never_breaks_the_data_directory_or_the_downloads_setting(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, depth: int, columns: int
) -> None:
    """Whatever the path's length, the heading's two settings are whole: the book's capture of
    `atlas status` once showed "downloads:" at a line's end and "allowed" on the next."""
    data = tmp_path.joinpath(*[f"folder{i}" for i in range(depth)])
    data.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("ATLAS_DATA_DIR", str(data))
    monkeypatch.delenv("ATLAS_OFFLINE", raising=False)
    monkeypatch.setenv("COLUMNS", str(columns))
    _, out, _ = run(capsys, "status")
    lines = out.splitlines()
    together = f"data directory: {data}   downloads: allowed"
    apart = [f"data directory: {data}", "downloads: allowed"]
    assert lines[0] == together if len(together) <= columns else lines[:2] == apart


@pytest.mark.realdata
def test_status_on_the_real_data(capsys: pytest.CaptureFixture[str], real_data_dir: Path) -> None:
    status, out, _ = run(capsys, "status", "--json")
    assert status == 0
    rows = {(row["dataset"], row["split"]): row["status"] for row in json.loads(out)["splits"]}
    if (real_data_dir / "jwhr" / "answered.jsonl").is_file():
        assert rows[("jwhr", "answered")] == "official file present"
    if (real_data_dir / "wow" / "raw" / "train_sample.json").is_file():
        assert rows[("wow", "train")] == "partial"


# -- show ------------------------------------------------------------------------------------------------


def test_show_a_jwhr_session_of_the_demo_sample(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "show", "jwhr", "answered", "0")
    assert status == 0
    assert "DEMO SAMPLE, not the dataset" in out
    # why the demo sample, and where to go from here, said once on stderr
    assert err.count("the official file is not in") == 1 and "book/data.md" in err and "atlas status" in err
    assert "could not be downloaded" not in err and "downloads are off" in err  # nothing was tried
    assert FUJI in out
    # references 0 and 1 are cited by the answer, reference 2 (a search result page) is not
    lines = out.splitlines()
    assert any(line.strip().startswith("✔ SELECTED [0] search · 富士山") for line in lines)
    assert any(line.strip().startswith("✔ SELECTED [1] link · 宝永大噴火") for line in lines)
    assert any(line.strip().startswith("· [2] search · 日本の山一覧") for line in lines)
    assert "evidence: 3 shown to the speaker, 2 selected" in out
    assert "answered: yes" in out and "True" not in out  # a flag reads as a word
    # Japanese is two columns a character: nothing may run past column 80
    assert max(cell_len(line) for line in lines) <= 80


@pytest.mark.realdata
def test_show_jwhr_answered_0_on_the_real_data(capsys: pytest.CaptureFixture[str], real_data_dir: Path) -> None:
    raw = real_data_dir / "jwhr" / "answered.jsonl"
    if not raw.is_file():
        pytest.skip("jwhr/answered.jsonl is not in the real data")
    first = json.loads(raw.open(encoding="utf-8").readline())
    status, out, _ = run(capsys, "show", "jwhr", "answered", "0")
    assert status == 0
    assert "DEMO SAMPLE" not in out and "jwhr/answered: official" in out
    assert first["question"] in out.replace("\n", "")
    assert max(cell_len(line) for line in out.splitlines()) <= 80


def test_show_search_and_random(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "wow", "valid_seen", "--search", "SOURDOUGH")
    assert status == 0
    assert "1 of 2 dialogues match 'SOURDOUGH'" in out
    assert "topic Sourdough" in out and "topic Beekeeping" not in out

    status, out, _ = run(capsys, "show", "faithdial", "train", "--random", "2", "--seed", "3")
    assert status == 0
    assert out.count("faithdial/train · ") == 2
    status, again, _ = run(capsys, "show", "faithdial", "train", "--random", "2", "--seed", "3")
    assert again == out


def test_show_evidence_limit(capsys: pytest.CaptureFixture[str]) -> None:
    # the first wizard turn of the WoW demo's first dialogue shows the 7 sentences of its topic's
    # passage, 1 of them checked
    _, limited, _ = run(capsys, "show", "wow", "valid_seen", "0", "--evidence", "0")
    _, everything, _ = run(capsys, "show", "wow", "valid_seen", "0", "--evidence", "all")
    assert "… 6 more not selected" in limited
    assert "more not selected" not in everything
    assert everything.count("✔ SELECTED") == limited.count("✔ SELECTED") > 0


def test_show_counts_a_negative_index_from_the_end_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    _, last, _ = run(capsys, "show", "jwhr", "answered", "-1")
    _, third, _ = run(capsys, "show", "jwhr", "answered", "2")
    assert last == third and "1000000004" in last
    with pytest.raises(SystemExit):
        cli.main(["show", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "-1 the last (negative positions count from the end)" in text


def test_show_an_index_out_of_range_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "show", "jwhr", "answered", "3")
    assert status == 2
    assert "index 3 is out of range" in err and "3 sessions (0-2)" in err
    with pytest.raises(SystemExit) as stop:
        cli.main(["show", "jwhr", "answered", "--random", "0"])
    assert stop.value.code == 2


def test_show_never_sends_control_characters_to_the_terminal(
    capsys: pytest.CaptureFixture[str], data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from utils import loading
    from utils.sources import SourceFile

    # one hostile session is far smaller than the official file: take it as a user's copy of unknown size
    monkeypatch.setattr(loading, "_split_files", lambda source, split: (SourceFile(path="jwhr/answered.jsonl"),))
    record = json.loads(DEMO_JWHR.read_text(encoding="utf-8").splitlines()[0])
    record["question"] = "\x1b[2J\x1b]0;pwned\x07消えた？\u202eevil [bold]not markup[/bold]"
    (data_dir / "jwhr").mkdir()
    (data_dir / "jwhr" / "answered.jsonl").write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "show", "jwhr", "answered", "0")
    assert status == 0
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "消えた？" in out
    assert "[bold]not markup[/bold]" in out  # dataset text is never read as rich markup


# -- stats -----------------------------------------------------------------------------------------------


def test_stats_of_the_demo_jwhr_sessions_counted_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "stats", "jwhr", "answered", "--json")
    assert status == 0
    result = json.loads(out)
    assert result["dialogues"] == 3 and result["token_unit"] == "characters"
    roles = {row["role"]: row for row in result["roles"]}
    # questions: 富士山の高さはどのくらいですか (15), トマトは野菜ですかそれとも果物ですか (18),
    # ペンギンは空を飛べるの (11); punctuation is not a token
    assert roles["seeker"]["utterances"] == 3
    assert roles["seeker"]["tokens"] == 15 + 18 + 11
    assert roles["seeker"]["unique tokens"] == 14 + 10 + 8
    assert roles["seeker"]["average length"] == pytest.approx(44 / 3, abs=0.01)
    assert roles["wizard"]["utterances"] == 3
    assert roles["all"]["utterances"] == 6
    assert roles["all"]["tokens"] == roles["seeker"]["tokens"] + roles["wizard"]["tokens"]
    # nine references: four quotes, two summaries, two pages with nothing noted, one search without a page
    content = {row["label"]: row["count"] for row in result["labels"] if row["scheme"] == "reference content"}
    assert content == {"quote": 4, "summary": 2, "nothing": 2, "not found": 1}
    evidence = {row["origin"]: row["shown"] for row in result["evidence"]}
    assert evidence == {"search": 6, "link": 3}


def test_stats_counts_words_for_english_and_the_dataset_labels(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "stats", "faithdial", "train", "--json")
    assert status == 0
    result = json.loads(out)
    assert result["token_unit"] == "words"
    begin = {row["label"] for row in result["labels"] if row["scheme"] == "BEGIN"}
    assert "Hallucination" in begin

    status, out, _ = run(capsys, "stats", "wise", "train", "--json")
    actions = {row["label"] for row in json.loads(out)["labels"] if row["scheme"] == "action"}
    assert "Answer-open-list" in actions  # WISE's label parts joined as published, not split


def test_stats_table_fits_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "stats", "jwhr", "answered")
    assert status == 0
    assert "Utterances per role" in out and "tokens are characters (Japanese)" in out
    assert max(cell_len(line) for line in out.splitlines()) <= 80


@pytest.mark.realdata
def test_stats_jwhr_answered_on_the_real_data(capsys: pytest.CaptureFixture[str], real_data_dir: Path) -> None:
    raw = real_data_dir / "jwhr" / "answered.jsonl"
    if not raw.is_file():
        pytest.skip("jwhr/answered.jsonl is not in the real data")
    records = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines() if line.strip()]
    status, out, _ = run(capsys, "stats", "jwhr", "answered", "--json")
    assert status == 0
    result = json.loads(out)
    roles = {row["role"]: row for row in result["roles"]}
    assert result["dialogues"] == len(records)
    assert roles["seeker"]["utterances"] == roles["wizard"]["utterances"] == len(records)
    assert roles["seeker"]["unique utterances"] == len({r["question"] for r in records})
    references = sum(len(r["references"]) for r in records)
    assert sum(row["shown"] for row in result["evidence"]) == references
    quotes = sum(1 for r in records for ref in r["references"] if "quote" in (ref.get("page") or {}))
    content = {row["label"]: row["count"] for row in result["labels"] if row["scheme"] == "reference content"}
    assert content["quote"] == quotes


# -- export ----------------------------------------------------------------------------------------------


def test_export_parquet_of_the_demo_sample(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_path = tmp_path / "jwhr.parquet"
    status, out, _ = run(capsys, "export", "jwhr", "answered", "--to", "parquet", "--out", str(out_path))
    assert status == 0 and "wrote 3 records" in out
    table = pq.read_table(out_path)
    assert table.schema.equals(RECORD_SCHEMA)
    rows = table.to_pylist()
    assert [row["id"] for row in rows] == ["1000000001", "1000000002", "1000000004"]
    first = rows[0]
    assert first["turns"][0]["role"] == "seeker" and first["turns"][0]["text"] == FUJI
    evidence = first["turns"][1]["evidence"]
    assert [item["title"] for item in evidence] == ["富士山", "宝永大噴火", "日本の山一覧 (高さ順)"]
    assert [item["selected"] for item in evidence] == [True, True, False]
    # the answer's four sentences cite [0], [0], [0, 1] and nothing
    assert first["turns"][1]["labels"] == [{"name": "citations", "values": ["0", "0", "0,1", ""]}]
    assert json.loads(first["meta"])["answered"] is True
    assert first["provenance"]["kind"] == "demo sample" and first["provenance"]["dialogues"] == 3
    assert [p.name for p in tmp_path.iterdir()] == ["jwhr.parquet"]  # no temporary file left
    import datasets  # the schema uses only types that `datasets` has

    assert datasets.Dataset.from_parquet(str(out_path), cache_dir=str(tmp_path / "hf")).num_rows == 3


def test_export_jsonl_keeps_objects_and_labels(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_path = tmp_path / "faithdial.jsonl"
    status, _, _ = run(capsys, "export", "faithdial", "train", "--to", "jsonl", "--out", str(out_path))
    assert status == 0
    records = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3
    assert isinstance(records[0]["meta"], dict)
    wizard = records[0]["turns"][1]
    assert wizard["role"] == "wizard" and "BEGIN" in wizard["labels"]
    assert all(isinstance(item["meta"], dict) for item in wizard["evidence"])


def test_export_names_the_data_directory_not_the_exporters_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_dir: Path
) -> None:
    """An exported file is shared: its provenance says ``$ATLAS_DATA_DIR/...`` as the terminal does,
    never the exporter's own folder (issue 50)."""
    from conftest import demo_file

    placed = data_dir / "faithdial" / "train.json"
    placed.parent.mkdir(parents=True)
    placed.write_bytes(demo_file("faithdial/train.json").read_bytes())
    out_path = tmp_path / "out.jsonl"
    status, _, err = run(capsys, "export", "faithdial", "train", "--to", "jsonl", "--out", str(out_path))
    assert status == 0, err
    sources = {json.loads(line)["provenance"]["source"] for line in out_path.read_text(encoding="utf-8").splitlines()}
    assert sources == {"$ATLAS_DATA_DIR/faithdial/train.json"}
    assert str(data_dir) not in out_path.read_text(encoding="utf-8")


def test_export_default_name_in_the_working_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, _ = run(capsys, "export", "jwhr", "not_answered", "--to", "jsonl")
    assert status == 0
    assert len((tmp_path / "jwhr-not_answered.jsonl").read_text(encoding="utf-8").splitlines()) == 3


@pytest.mark.realdata
def test_export_jwhr_answered_parquet_on_the_real_data(
    capsys: pytest.CaptureFixture[str], real_data_dir: Path, tmp_path: Path
) -> None:
    raw = real_data_dir / "jwhr" / "answered.jsonl"
    if not raw.is_file():
        pytest.skip("jwhr/answered.jsonl is not in the real data")
    records = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines() if line.strip()]
    out_path = tmp_path / "answered.parquet"
    status, _, _ = run(capsys, "export", "jwhr", "answered", "--to", "parquet", "--out", str(out_path))
    assert status == 0
    table = pq.read_table(out_path)
    assert table.num_rows == len(records)
    assert table.column("id").to_pylist()[:3] == [str(r["id"]) for r in records[:3]]
    first = table.slice(0, 1).to_pylist()[0]
    assert first["turns"][0]["text"] == records[0]["question"]
    assert first["provenance"]["kind"] == "official"


def test_export_to_an_unwritable_path_fails_clearly(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    status, _, err = run(capsys, "export", "jwhr", "answered", "--to", "parquet", "--out", str(blocker / "x.parquet"))
    assert status == 1
    assert "atlas export: error: cannot write" in err and "is not a directory" in err
    status, _, err = run(
        capsys, "export", "jwhr", "answered", "--to", "jsonl", "--out", str(tmp_path / "no" / "x.jsonl")
    )
    assert status == 1 and "does not exist" in err
    status, _, err = run(capsys, "export", "jwhr", "answered", "--to", "jsonl", "--out", str(tmp_path))
    assert status == 1 and "is a directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_an_interrupted_export_leaves_the_old_file_and_no_partial_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("previous export\n", encoding="utf-8")
    real_records = cli.export_records

    def failing(split, **kwargs):  # type: ignore[no-untyped-def]
        records = real_records(split, **kwargs)
        yield next(records)
        raise OSError("disk full")

    monkeypatch.setattr(cli, "export_records", failing)
    status, _, err = run(capsys, "export", "jwhr", "answered", "--to", "jsonl", "--out", str(target))
    assert status == 1 and "disk full" in err
    assert target.read_text(encoding="utf-8") == "previous export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


# -- wrong names -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "wizard", "train"],
        ["stats", "wizard", "train"],
        ["export", "wizard", "train", "--to", "jsonl"],
        ["fetch", "wizard"],
    ],
)
def test_an_unknown_dataset_exits_2_listing_the_datasets(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert "unknown dataset 'wizard'" in err
    assert "wow, wow_kilt, faithdial, faithdial_audit, wise, jwhr" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "jwhr", "answerd"],
        ["stats", "jwhr", "answerd"],
        ["export", "jwhr", "answerd", "--to", "parquet"],
        ["fetch", "jwhr", "answerd"],
    ],
)
def test_an_unknown_split_exits_2_listing_the_splits(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert "'answerd'" in err and "answered, not_answered" in err
    assert list(tmp_path.iterdir()) == []


# -- fetch -------------------------------------------------------------------------------------------------


def test_fetch_offline_says_how_to_get_each_file_by_hand(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    status, out, _ = run(capsys, "fetch", "jwhr", "answered")
    assert status == 1
    from utils.sources import get_split_files

    url = get_split_files("jwhr", "answered")[0].url
    assert url in out  # on one line: never broken for the width of the terminal
    assert str(data_dir / "jwhr" / "answered.jsonl") in out
    assert "3934eb171ebb26be7f2d798655f79172b416fb3b3c5ec2882c3f452ea18c15ca" in out
    assert list(data_dir.iterdir()) == []


def test_fetch_all_offline_explains_the_archive_once(capsys: pytest.CaptureFixture[str], data_dir: Path) -> None:
    status, out, _ = run(capsys, "fetch", "--all")
    assert status == 1
    assert out.count("wizard_of_wikipedia.tgz (sha256") == 1
    assert "drive.google.com/drive/folders/" in out
    total = sum(
        len(
            {item.path for files in s.splits.values() for item in files if not item.partial}
            | {item.path for item in s.extra_files.values()}
        )
        for s in sources.registry().values()
    )
    assert f"0 of {total} files in place" in out


@pytest.fixture
def file_server() -> Iterator[tuple[str, dict[str, bytes]]]:
    """A local HTTP server (loopback downloads are allowed even with $ATLAS_OFFLINE set)."""
    files: dict[str, bytes] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", files
    finally:
        server.shutdown()
        server.server_close()


def _point_jwhr_at(monkeypatch: pytest.MonkeyPatch, url: str, sha256: str, size: int) -> None:
    source = sources.get_source("jwhr")
    official = source.splits["answered"][0]
    moved = replace(official, url=url, sha256=sha256, size=size)
    monkeypatch.setitem(sources.registry(), "jwhr", source.replace(splits={**source.splits, "answered": (moved,)}))


def test_fetch_downloads_verifies_and_skips_what_is_present(
    capsys: pytest.CaptureFixture[str],
    data_dir: Path,
    file_server: tuple[str, dict[str, bytes]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, files = file_server
    body = DEMO_JWHR.read_bytes()
    files["/answered.jsonl"] = body
    _point_jwhr_at(monkeypatch, f"{base}/answered.jsonl", hashlib.sha256(body).hexdigest(), len(body))
    status, out, _ = run(capsys, "fetch", "jwhr", "answered")
    assert status == 0, out
    assert "fetched   jwhr/answered: jwhr/answered.jsonl (verified)" in out
    assert (data_dir / "jwhr" / "answered.jsonl").read_bytes() == body
    status, out, _ = run(capsys, "fetch", "jwhr", "answered")
    assert status == 0 and "present   jwhr/answered: jwhr/answered.jsonl (verified)" in out


def test_fetch_of_a_corrupt_file_keeps_nothing_and_explains(
    capsys: pytest.CaptureFixture[str],
    data_dir: Path,
    file_server: tuple[str, dict[str, bytes]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, files = file_server
    body = DEMO_JWHR.read_bytes()
    files["/answered.jsonl"] = body
    _point_jwhr_at(monkeypatch, f"{base}/answered.jsonl", "0" * 64, len(body))
    status, out, _ = run(capsys, "fetch", "jwhr", "answered")
    assert status == 1
    assert "failed    jwhr/answered: could not verify" in out and "By hand:\n  - download" in out
    leftovers = [p for p in data_dir.rglob("*") if p.is_file() and "_archives" not in p.parts]
    assert leftovers == []


# -- make lab ----------------------------------------------------------------------------------------------


def test_make_lab_starts_a_server_that_lists_the_chapters(tmp_path: Path) -> None:
    """``make lab`` as the README gives it, with LAB_ARGS for a headless server on a free port."""
    from lab_server import QUIET_OPTIONS, free_port, jupyter_env, new_token, start

    venv = Path(sys.executable).parent.parent
    if shutil.which("make") is None or not (venv / "bin" / "jupyter").exists():
        pytest.skip("make or jupyter is missing")
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed (pip install -e '.[lab]')")
    port, token = free_port(), new_token()
    lab_args = " ".join([*QUIET_OPTIONS, "--ip", "127.0.0.1", "--port", str(port), f"--IdentityProvider.token={token}"])
    # -o: use the environment as it is (the test must not reinstall it)
    command = [
        "make",
        "--no-print-directory",
        "-o",
        f"{venv}/.installed-stamp",
        "lab",
        f"VENV={venv}",
        f"LAB_ARGS={lab_args}",
    ]
    server = start(command, port=port, token=token, cwd=REPO, env=jupyter_env(tmp_path), log=tmp_path / "lab.log")
    try:
        listing = server.get("/api/contents")
        names = {item["name"] for item in listing["content"]}
        chapters = {path.name for path in (REPO / "notebooks").glob("*.ipynb")}
        assert chapters and chapters <= names
        assert "python3" in server.get("/api/kernelspecs")["kernelspecs"]
    finally:
        server.stop()
    assert server.process.returncode is not None


def test_a_reader_who_stops_reading_is_not_an_error(tmp_path: Path) -> None:
    # `atlas show wow train | head -1`: the pipe closes after one line; no traceback, status 0
    env = {"PATH": "/usr/bin:/bin", "ATLAS_OFFLINE": "1", "ATLAS_DATA_DIR": str(tmp_path / "none"),
           "ATLAS_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    atlas = subprocess.Popen([sys.executable, "-m", "utils", "show", "wow", "train"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert atlas.stdout is not None and atlas.stdout.readline()
    atlas.stdout.close()
    _, errors = atlas.communicate(timeout=120)
    assert atlas.returncode == 0, errors.decode()
    assert b"Traceback" not in errors and b"BrokenPipe" not in errors


def test_status_offline_says_how_to_get_the_files(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ATLAS_OFFLINE", "1")
    status, out, _ = run(capsys, "status")
    text = " ".join(out.split())
    assert status == 0 and "Downloads are off: unset $ATLAS_OFFLINE" in text and "by hand" in text
    monkeypatch.delenv("ATLAS_OFFLINE")
    status, out, _ = run(capsys, "status")
    text = " ".join(out.split())
    assert "Downloads are off" not in text and "`atlas fetch DATASET` downloads" in text


def test_export_and_datasets_share_the_one_record_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import datasets

    out_path = tmp_path / "jwhr.parquet"
    status, _, _ = run(capsys, "export", "jwhr", "answered", "--to", "parquet", "--out", str(out_path))
    exported = pq.read_table(out_path)
    handed = utils.load("jwhr", "answered").to_hf_dataset("records")
    assert status == 0 and exported.schema.equals(RECORD_SCHEMA)
    assert handed.features == datasets.Features.from_arrow_schema(RECORD_SCHEMA)
    assert handed.data.table.to_pylist() == exported.to_pylist()


def _point_wise_valid_at(monkeypatch: pytest.MonkeyPatch, url: str, git_blob: str) -> None:
    source = sources.get_source("wise")
    official = source.splits["valid"][0]
    assert official.git_blob and official.url and official.sha256 is None  # verified by blob id, not sha256
    moved = replace(official, url=url, git_blob=git_blob)
    monkeypatch.setitem(sources.registry(), "wise", source.replace(splits={**source.splits, "valid": (moved,)}))


@pytest.mark.parametrize("blob_matches", [True, False])
def test_fetch_wise_verifies_the_conversations_by_git_blob_id(
    capsys: pytest.CaptureFixture[str],
    data_dir: Path,
    file_server: tuple[str, dict[str, bytes]],
    monkeypatch: pytest.MonkeyPatch,
    blob_matches: bool,
) -> None:
    base, files = file_server
    body = '{"conversation_id": 1000000001, "conversations": [], "intent": "intent:演示"}\n'.encode()
    blob = hashlib.sha1(b"blob %d\x00" % len(body) + body).hexdigest()  # computed here, as git does
    files["/conversation_valid_line.json"] = body
    _point_wise_valid_at(monkeypatch, f"{base}/conversation_valid_line.json", blob if blob_matches else "0" * 40)
    status, out, _ = run(capsys, "fetch", "wise", "valid")
    if blob_matches:
        assert status == 0, out
        assert "fetched   wise/valid: wise/conversation_valid_line.json (verified)" in out
        assert (data_dir / "wise" / "conversation_valid_line.json").read_bytes() == body
    else:
        assert status == 1 and "git blob id" in out
        assert not (data_dir / "wise" / "conversation_valid_line.json").exists()
