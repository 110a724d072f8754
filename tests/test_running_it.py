"""What a user does at home: ``make clean``, a relative or mistyped data directory, the README's commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import REPO
from utils import config

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is missing")


def _copy_of_the_makefile(tmp_path: Path, *, with_venv: bool) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "Makefile", project / "Makefile")
    for folder in ("_build/html", "learner", "bench-results"):
        (project / folder).mkdir(parents=True)
    if with_venv:
        # a stand-in interpreter that records what `make clean` asked of it
        python = project / ".venv" / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$(dirname "$0")/../../python-ran.txt"\n')
        python.chmod(0o755)
    return project


@needs_make
@pytest.mark.parametrize("with_venv", [True, False], ids=["with .venv", "without .venv"])
def test_make_clean_works_with_and_without_the_environment(tmp_path: Path, with_venv: bool) -> None:
    project = _copy_of_the_makefile(tmp_path, with_venv=with_venv)
    done = subprocess.run(["make", "--no-print-directory", "clean"], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not any((project / folder).exists() for folder in ("_build", "learner", "bench-results"))
    ran = project / "python-ran.txt"
    if with_venv:
        assert "import shutil, benchmarks.bench as b" in ran.read_text()
    else:
        assert not ran.exists()


@needs_make
@pytest.mark.parametrize("variable", ["ATLAS_DATA_DIR", "ATLAS_CACHE_DIR"])
def test_make_passes_a_relative_directory_on_as_an_absolute_one(tmp_path: Path, variable: str) -> None:
    project = _copy_of_the_makefile(tmp_path, with_venv=False)
    env = {**os.environ, variable: "../shared/data"}
    done = subprocess.run(
        ["make", "--no-print-directory", "--eval", f"show-it: ; @echo \"$${variable}\"", "show-it"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "shared" / "data")


def test_a_relative_data_directory_is_resolved_once_where_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PWD", raising=False)  # no shell said where the command was typed: the working directory
    monkeypatch.setenv(config.DATA_DIR_ENV, "shared/data")
    assert config.data_dir() == tmp_path / "shared" / "data"
    monkeypatch.chdir(tmp_path / "notebooks")  # a chapter, or a kernel started there, sees the same folder
    assert config.data_dir() == tmp_path / "shared" / "data"
    assert os.environ[config.DATA_DIR_ENV] == str(tmp_path / "shared" / "data")


@pytest.mark.parametrize("variable", [config.DATA_DIR_ENV, config.CACHE_DIR_ENV])
def test_a_relative_directory_means_the_folder_the_command_was_typed_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    # `jupyter lab` typed in the clone: the kernel runs in notebooks/ but inherits the shell's $PWD
    (tmp_path / "notebooks").mkdir()
    monkeypatch.setenv("PWD", str(tmp_path))
    monkeypatch.chdir(tmp_path / "notebooks")
    monkeypatch.setenv(variable, "../shared/data")
    resolved = config.data_dir() if variable == config.DATA_DIR_ENV else config.cache_dir()
    assert resolved == tmp_path.parent / "shared" / "data"
    assert os.environ[variable] == str(tmp_path.parent / "shared" / "data")


def test_a_relative_directory_without_a_usable_pwd_is_taken_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", "relative/not/a/shell/value")
    monkeypatch.setenv(config.DATA_DIR_ENV, "data")
    assert config.data_dir() == tmp_path / "data"


def test_a_chapter_run_by_hand_reads_the_relative_data_directory_of_the_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real kernel started in ``notebooks/`` (as ``jupyter lab`` or ``jupyter nbconvert`` start it)
    resolves a relative ``ATLAS_DATA_DIR`` against the folder the command was typed in."""
    nbclient = pytest.importorskip("nbclient")
    import nbformat

    notebooks = tmp_path / "clone" / "notebooks"
    notebooks.mkdir(parents=True)
    monkeypatch.setenv("PWD", str(tmp_path / "clone"))
    monkeypatch.setenv(config.DATA_DIR_ENV, "../shared/data")
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell("from utils import config\nprint(config.data_dir())"))
    nbclient.NotebookClient(notebook, kernel_name="python3", resources={"metadata": {"path": str(notebooks)}}).execute()
    printed = notebook.cells[0].outputs[0]["text"].strip()
    assert printed == str(tmp_path / "shared" / "data")


def test_a_relative_data_directory_is_named_without_dot_dots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # what `atlas status` and the banners print: the folder itself, not "<here>/../shared/data"
    (tmp_path / "atlas").mkdir()
    monkeypatch.chdir(tmp_path / "atlas")
    monkeypatch.setenv("PWD", str(tmp_path / "atlas"))  # as the shell sets it
    monkeypatch.setenv(config.DATA_DIR_ENV, "../shared/data")
    assert str(config.data_dir()) == str(tmp_path / "shared" / "data")
    assert str(config.data_dir("../elsewhere")) == str(tmp_path / "elsewhere")


def test_a_relative_data_directory_is_read_by_the_chapters_folder_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, real_data_dir: Path
) -> None:
    from utils import load

    monkeypatch.chdir(real_data_dir.parent)
    monkeypatch.setenv("PWD", str(real_data_dir.parent))
    monkeypatch.setenv(config.DATA_DIR_ENV, real_data_dir.name)
    assert config.data_dir().resolve() == real_data_dir.resolve()  # first use, from where the user gave it
    monkeypatch.chdir(tmp_path)
    assert load("jwhr", "not_answered").provenance.kind == "official"


@pytest.mark.parametrize("kind", ["typo", "a file"])
def test_a_data_directory_that_does_not_exist_is_said_to_be_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    from utils import load
    from utils.loading import DemoDataWarning

    missing = tmp_path / "shraed"
    if kind == "a file":
        missing.write_text("not a folder")
    monkeypatch.setenv(config.DATA_DIR_ENV, str(missing))
    monkeypatch.delenv(config.OFFLINE_ENV)  # nothing may be downloaded into a folder that is not there
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split = load("jwhr", "answered")
    said = f"the data directory {missing} does not exist"
    assert any(issubclass(w.category, DemoDataWarning) and said in str(w.message) for w in caught)
    assert split.provenance.is_demo
    assert said in split.provenance._repr_html_().lower()  # the chapter's banner
    assert missing.is_file() if kind == "a file" else not missing.exists()


def test_atlas_status_says_the_data_directory_does_not_exist(tmp_path: Path) -> None:
    env = {**os.environ, "ATLAS_DATA_DIR": "nowhere", "COLUMNS": "80", "PYTHONPATH": str(REPO), "PWD": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "utils", "status"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert f"The data directory {tmp_path / 'nowhere'} does not exist" in " ".join(done.stdout.split())
    assert "no data directory" in done.stdout
    as_json = subprocess.run(
        [sys.executable, "-m", "utils", "status", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert "does not exist" in json.loads(as_json.stdout)["problem"]


def test_the_readme_says_how_to_run_atlas_after_make_book() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert ".venv/bin/atlas" in readme and "source .venv/bin/activate" in readme
    console_script = REPO / ".venv" / "bin" / "atlas"
    if console_script.exists():  # the command the README gives is the one make installs
        assert subprocess.run([str(console_script), "--help"], capture_output=True).returncode == 0


@pytest.mark.parametrize("columns", [80, 60])
def test_atlas_status_never_breaks_a_file_name(real_data_dir: Path, columns: int) -> None:
    from utils.sources import registry

    env = {**os.environ, "COLUMNS": str(columns), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "utils", "status"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    words = set(done.stdout.split())
    for source in registry().values():
        for files in source.splits.values():
            assert any(item.path in words for item in files), files[0].path
    assert max(len(line) for line in done.stdout.splitlines()) <= columns


# -- wording (item 7) ------------------------------------------------------------------------------


def test_a_json_line_cut_at_its_end_names_the_column_where_it_stops(tmp_path: Path) -> None:
    from utils.errors import DataError
    from utils.formats._io import iter_json_lines

    line = '{"id": "x", "turns": [' + "1, " * 350 + "2"
    path = tmp_path / "cut.jsonl"
    path.write_text('{"id": "a"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"line 2.*at column {len(line) + 1}\\b"):
        list(iter_json_lines(path))


def test_an_unterminated_string_is_reported_without_at_at(tmp_path: Path) -> None:
    from utils.errors import DataError
    from utils.formats._io import iter_json_lines

    path = tmp_path / "cut.jsonl"
    path.write_text('{"id": "abc\n', encoding="utf-8")
    with pytest.raises(DataError) as caught:
        list(iter_json_lines(path))
    assert "Unterminated string starting at column 8" in str(caught.value)
    assert " at at " not in str(caught.value)


def test_an_unknown_split_is_named_before_its_dataset() -> None:
    from utils import load
    from utils.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match=r"unknown split 'answerd' of jwhr; choose one of: answered"):
        load("jwhr", "answerd")


def test_a_csv_cell_over_the_field_limit_names_its_own_line(tmp_path: Path) -> None:
    import csv

    from utils.errors import DataError
    from utils.formats._io import iter_csv_rows

    path = tmp_path / "big.csv"
    path.write_text("a,b\n1," + "x" * (csv.field_size_limit() + 10) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"record line 2\b.*field larger than field limit"):
        list(iter_csv_rows(path))


def test_a_read_only_file_system_is_called_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from utils import cli

    real = os.statvfs

    class ReadOnly:
        def __init__(self, path: str) -> None:
            self.f_flag = real(path).f_flag | os.ST_RDONLY

    monkeypatch.setattr(os, "statvfs", ReadOnly)
    with pytest.raises(OSError, match="read-only file system") as caught:
        cli.check_output_path(tmp_path / "out.jsonl")
    assert "permission" not in str(caught.value)


@pytest.mark.parametrize("command", ["status", "fetch", "show", "stats", "export"])
def test_every_subcommand_help_is_wrapped_to_the_terminal(command: str) -> None:
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "utils", command, "--help"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


def test_the_command_line_says_a_cache_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from utils import CacheWarning, cli

    real = cli.load

    def load_with_a_cache_problem(dataset: str, split: str) -> object:
        warnings.warn("the cache of jwhr/answered could not be written (disk full)", CacheWarning, stacklevel=2)
        return real(dataset, split)

    monkeypatch.setattr(cli, "load", load_with_a_cache_problem)
    assert cli.main(["stats", "jwhr", "answered"]) == 0
    assert "warning: the cache of jwhr/answered could not be written (disk full)" in capsys.readouterr().err


@needs_make
def test_make_lab_opens_the_learner_copies_when_asked() -> None:
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", "-o", ".venv/.installed-stamp", "lab", "LAB_DIR=learner"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "jupyter lab learner/" in done.stdout
