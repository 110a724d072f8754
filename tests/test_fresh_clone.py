"""A fresh clone on someone else's machine: the Makefile's environment and npm, another ``utils``, what
``make clean`` removes, the licence in the wheel (issue 36, items 2, 3, 5, 6, 7 and 8)."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is missing")
#: The console script make installs beside the interpreter running the tests.
ATLAS = Path(sys.executable).parent / "atlas"


def _old_python() -> str | None:
    """A Python older than the project's minimum, to be refused (pyenv keeps several)."""
    for name in ("python3.10", "python3.9"):
        found = shutil.which(name)
        if found and subprocess.run([found, "-c", ""], capture_output=True).returncode == 0:
            return found
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(
        glob.glob(str(pyenv / "3.1[0]*" / "bin" / "python3.10")) + glob.glob(str(pyenv / "3.9*/bin/python3.9"))
    )
    return found[0] if found else None


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "clone"
    project.mkdir()
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(REPO / name, project / name)
    return project


def _make(project: Path, *arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", *arguments],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


# -- item 3: the Python .venv is made with ------------------------------------------------------------


@needs_make
def test_a_too_old_python_is_refused_before_any_environment_is_made(tmp_path: Path) -> None:
    old = _old_python()
    if old is None:
        pytest.skip("no Python older than 3.11 here")
    project = _project(tmp_path)
    done = _make(project, "env", f"PYTHON={old}")
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "the atlas needs Python 3.11 or newer" in said and "PYTHON=" in said, said
    assert not (project / ".venv").exists(), "a .venv made with a too-old Python is what no later run repaired"


@needs_make
def test_an_environment_made_with_another_python_is_made_again(tmp_path: Path) -> None:
    old = _old_python()
    if old is None:
        pytest.skip("no Python older than 3.11 here")
    project = _project(tmp_path)
    # what a failed first run with a too-old Python left behind
    subprocess.run([old, "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    planned = _make(project, "-n", "env", f"PYTHON={sys.executable}")
    assert planned.returncode == 0, planned.stderr
    assert re.search(r"^rm -rf \.venv ", planned.stdout, re.M), planned.stdout
    # and one made with $(PYTHON) is kept
    shutil.rmtree(project / ".venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    kept = _make(project, "-n", "env", f"PYTHON={sys.executable}")
    assert kept.returncode == 0, kept.stderr
    assert "rm -rf" not in kept.stdout


def test_the_readme_documents_python_and_venv() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "PYTHON=python3" in readme
    assert "VENV=$CONDA_PREFIX" in readme


# -- item 8: an environment of the user's own (conda) ----------------------------------------------


@needs_make
def test_make_uses_an_existing_environment_without_creating_or_removing_it(tmp_path: Path) -> None:
    project = _project(tmp_path)
    yours = tmp_path / "conda-env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(yours)], check=True)
    planned = _make(project, "-n", "book", f"VENV={yours}", "NPM=npm-that-is-not-installed")
    assert planned.returncode == 0, planned.stderr
    commands = planned.stdout
    assert f"{yours}/bin/python -m pip install --quiet -e" in commands  # the project goes into it
    assert f"{yours}/bin/jupyter-book build" in commands  # and the book is built with it
    assert "-m venv" not in commands and "rm -rf" not in commands
    assert not (project / ".venv").exists()


@needs_make
def test_an_environment_of_your_own_that_is_missing_or_too_old_is_named(tmp_path: Path) -> None:
    project = _project(tmp_path)
    missing = _make(project, "env", f"VENV={tmp_path / 'no-such-env'}")
    assert missing.returncode != 0
    assert "has no" in missing.stderr and "conda env create -f environment.yml" in missing.stderr
    old = _old_python()
    if old is None:
        return
    yours = tmp_path / "old-env"
    subprocess.run([old, "-m", "venv", "--without-pip", str(yours)], check=True)
    refused = _make(project, "env", f"VENV={yours}")
    assert refused.returncode != 0 and "the atlas needs Python 3.11 or newer" in refused.stderr
    assert (yours / "bin" / "python").exists(), "make removed an environment that is not its own"


# -- item 2: npm ------------------------------------------------------------------------------------


@needs_make
def test_without_npm_make_vendor_says_the_book_has_no_sql_console(tmp_path: Path) -> None:
    project = _project(tmp_path)
    done = _make(project, "vendor", "NPM=npm-that-is-not-installed")
    assert done.returncode == 0, done.stderr
    assert "npm not found: the book is built without its SQL console" in done.stdout
    assert "make system-deps" in done.stdout


@needs_make
def test_system_deps_installs_npm_unless_a_node_with_npm_is_there(tmp_path: Path) -> None:
    planned = _make(_project(tmp_path), "-n", "system-deps")
    assert "chromium" in planned.stdout and "command -v npm" in planned.stdout and "nodejs npm" in planned.stdout


def test_the_readme_says_the_book_needs_npm() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    requirements = readme.split("## ", 2)[0] + readme.split("## ", 2)[1]  # the opening and its first section
    assert "npm" in requirements and "make system-deps" in requirements


@pytest.fixture
def atlas_book(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> object:
    monkeypatch.syspath_prepend(str(REPO / "book" / "_ext"))
    import atlas_book

    monkeypatch.setattr(atlas_book, "VENDOR", tmp_path / "no-node-modules")
    return atlas_book


def test_a_build_without_the_sql_console_files_goes_on_and_marks_its_pages(atlas_book: object, tmp_path: Path) -> None:
    outdir = tmp_path / "html"
    stale = outdir / "_static" / "vendor" / "duckdb" / "duckdb-eh.wasm"  # from an earlier build with npm
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"wasm")
    assert atlas_book._copy_vendor(outdir) is False  # no RuntimeError: the book is built without the console
    assert not stale.exists()
    context: dict[str, str] = {"metatags": ""}
    atlas_book._mark_missing_sql_console(None, "index", "page.html", context, None)
    assert context["metatags"].strip() == atlas_book.SQL_CONSOLE_MISSING_META


def _small_book(tmp_path: Path, *options: str, vendor: Path | None = None) -> tuple[int, str]:
    """Build a one-page Sphinx project with the book's extension into ``tmp_path/out``: the exit status
    and what the build printed. In its own process, as the book is built: Sphinx registers node classes
    process-wide, so a second in-process build in the same test worker (another test's small book) warns
    that ``toctree`` "is already registered", and ``-W`` turns that into a failure that is not the book's."""
    source = tmp_path / "src"
    source.mkdir()
    conf = "extensions = ['atlas_book']\n"
    if vendor is not None:  # where the build looks for the npm packages (the fixture's is empty)
        conf += f"import atlas_book\natlas_book.VENDOR = __import__('pathlib').Path({str(vendor)!r})\n"
    (source / "conf.py").write_text(conf)
    (source / "index.rst").write_text("Atlas\n=====\n\nA page.\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "book" / "_ext"), str(REPO)])}
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", *options, "-b", "html", str(source), str(tmp_path / "out")],
        capture_output=True, text=True, env=env, timeout=600,
    )
    return built.returncode, built.stdout + built.stderr


def test_sphinx_says_so_in_the_build_output(atlas_book: object, tmp_path: Path) -> None:
    """A small Sphinx project with the book's extension and no npm packages: built with -W, it says the
    SQL console is missing, and its page carries the mark the viewer reads."""
    status, log = _small_book(tmp_path, "-W", vendor=atlas_book.VENDOR)  # type: ignore[attr-defined]
    assert status == 0
    assert "built without its SQL console" in log
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert atlas_book.SQL_CONSOLE_MISSING_META in page


def test_the_build_log_says_which_data_it_uses(atlas_book: object, tmp_path: Path, data_dir: Path) -> None:
    """One line per dataset, each split with what it is built on, as ``atlas status`` lists them (issue 50)."""
    from utils.sources import registry

    (data_dir / "jwhr").mkdir()
    (data_dir / "jwhr" / "answered.jsonl").write_text('{"id": 1}\n', encoding="utf-8")
    status, log = _small_book(tmp_path)
    assert status == 0
    lines = [line for line in log.splitlines() if line.startswith("atlas: ")]
    assert f"atlas: data directory {data_dir}" in lines
    for dataset in registry():
        assert sum(line.startswith(f"atlas: {dataset}: ") for line in lines) == 1, dataset
    assert "atlas: jwhr: answered official file present, not_answered demo sample" in lines


def test_the_build_s_kernels_do_not_warn_of_plain_text_tcp(tmp_path: Path) -> None:
    """ipykernel warns, once per kernel, that it "is running over TCP without encryption": eleven times in
    a build's log. The build's kernels get CurveZMQ keys instead, where jupyter_client and the kernel can."""
    pytest.importorskip("nbclient")
    from jupyter_client.manager import KernelManager

    if "transport_encryption" not in KernelManager.class_traits():
        pytest.skip("this jupyter_client provisions no kernel encryption (older than 8.10)")
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(REPO / 'book' / '_ext')!r})\n"
        "import atlas_book, nbclient, nbformat\n"
        "if sys.argv[1] == 'build':\n    atlas_book._encrypt_kernels(None)\n"
        "for n in range(2):\n"
        "    nb = nbformat.v4.new_notebook()\n"
        "    nb.cells.append(nbformat.v4.new_code_cell('print(6 * 7)'))\n"
        "    nbclient.NotebookClient(nb, kernel_name='python3').execute()\n"
        "    print(nb.cells[0].outputs[0]['text'].strip())\n"
    )
    runs = {
        mode: _run([sys.executable, "-c", script, mode], tmp_path, PYTHONPATH=str(REPO)) for mode in ("plain", "build")
    }
    assert runs["build"].returncode == 0, runs["build"].stderr
    assert runs["build"].stdout.split() == ["42", "42"]
    assert "without encryption" not in runs["build"].stderr
    if "without encryption" not in runs["plain"].stderr:
        pytest.skip("this ipykernel does not warn of plain-text TCP: nothing to compare with")


# -- item 5: another utils ----------------------------------------------------------------------------


def _foreign_utils_package(root: Path, *, keep_ours: bool = False) -> Path:
    """What `pip install utils` leaves: a `utils` package of another distribution, its metadata beside it.
    With ``keep_ours`` the atlas's own files stay and only ``__init__.py`` is theirs (a non-editable
    install that `pip install utils` wrote over)."""
    package = root / "utils"
    if keep_ours:
        shutil.copytree(REPO / "utils", package, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""Some other utils."""\n')
    info = root / "utils-1.0.6.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: utils\nVersion: 1.0.6\n")
    (info / "RECORD").write_text("utils/__init__.py,,\n")
    (info / "top_level.txt").write_text("utils\n")
    return package


def _run(arguments: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        arguments,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200", "PWD": str(cwd), **env},
    )


@pytest.mark.skipif(not ATLAS.exists(), reason="the atlas console script is not installed")
def test_atlas_names_a_pip_installed_utils_and_the_fix(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    theirs = _foreign_utils_package(site)
    done = _run([str(ATLAS), "status"], tmp_path, PYTHONPATH=str(site))
    assert done.returncode == 1
    message = " ".join(done.stderr.split())
    assert str(theirs) in message and "installed by the package utils" in message
    assert "pip uninstall utils" in message and "reinstall the atlas" in message
    assert "Traceback" not in done.stderr


def test_python_m_utils_names_an_init_written_over_ours(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    theirs = _foreign_utils_package(site, keep_ours=True)
    done = _run([sys.executable, "-m", "utils", "status"], tmp_path, PYTHONPATH=os.pathsep.join([str(site), str(REPO)]))
    assert done.returncode == 1, done.stdout
    message = " ".join(done.stderr.split())
    assert str(theirs) in message and "pip uninstall utils" in message
    assert "Traceback" not in done.stderr


def test_after_pip_uninstall_utils_the_atlas_folder_is_kept(tmp_path: Path) -> None:
    """`pip install utils` over a non-editable install, then `pip uninstall utils`: the atlas's own files
    are left without an ``__init__.py`` (a namespace package). The message says to reinstall, never to
    remove the folder, which is the atlas (issue 50)."""
    import types

    from grounded_dialogue_atlas import shadowing_message

    site = tmp_path / "site-packages"
    ours = _foreign_utils_package(site, keep_ours=True)
    shutil.rmtree(site / "utils-1.0.6.dist-info")  # what pip uninstall removes: their metadata
    (ours / "__init__.py").unlink()  # and the __init__.py its RECORD lists
    left = types.ModuleType("utils")
    left.__path__ = [str(ours)]  # how Python imports a folder without __init__.py
    message = " ".join(shadowing_message(left).split())
    assert str(ours) in message and "the Grounded Dialogue Atlas's own `utils` folder" in message
    assert "Keep the folder" in message and "reinstall the atlas" in message
    assert "Remove or rename" not in message


@pytest.mark.skipif(not ATLAS.exists(), reason="the atlas console script is not installed")
def test_a_utils_py_in_the_folder_is_named_and_atlas_still_works_there(tmp_path: Path) -> None:
    (tmp_path / "utils.py").write_text('print("not the atlas")\n')
    probe = "from grounded_dialogue_atlas import require_atlas_utils\nrequire_atlas_utils()"
    shadowed = _run([sys.executable, "-c", probe], tmp_path, PYTHONPATH=str(REPO))
    assert shadowed.returncode == 1
    assert "ShadowedUtilsError" in shadowed.stderr
    message = " ".join(shadowed.stderr.split())
    assert f"found {tmp_path / 'utils.py'}, a file in the folder Python was started from" in message
    assert "Rename utils.py" in message
    # the `atlas` command does not look in the current folder: it runs the atlas there
    status = _run([str(ATLAS), "status"], tmp_path)
    assert status.returncode == 0, status.stderr
    assert "not the atlas" not in status.stdout and "data directory" in status.stdout


def test_a_chapter_says_what_shadows_utils_at_its_first_import(tmp_path: Path) -> None:
    """The first cell of a chapter that imports the atlas, run in a kernel whose folder holds a utils.py."""
    nbclient = pytest.importorskip("nbclient")
    import nbformat

    chapter = nbformat.read(REPO / "notebooks" / "wow.ipynb", as_version=4)
    first_import = next(
        cell
        for cell in chapter.cells
        if cell.cell_type == "code" and re.search(r"^(import|from) utils\b", cell.source, re.M)
    )
    assert first_import.source.index("require_atlas_utils()") < first_import.source.index("import utils")
    (tmp_path / "utils.py").write_text('"""A helper of the reader\'s own."""\n')
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell(first_import.source))
    client = nbclient.NotebookClient(notebook, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(nbclient.exceptions.CellExecutionError) as raised:
        client.execute()
    assert "ShadowedUtilsError" in str(raised.value)
    assert "Rename utils.py" in " ".join(str(raised.value).split())


def test_the_readme_troubleshooting_names_both_cases() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "pip install utils" in readme and "pip uninstall utils" in readme
    assert "utils.py" in readme


# -- item 6: what make clean removes, what git ignores ----------------------------------------------


@needs_make
def test_make_clean_removes_screenshots_test_caches_and_build_metadata(tmp_path: Path) -> None:
    project = _project(tmp_path)
    leftovers = [
        "build/lib/utils/__init__.py",  # setuptools' build folder
        "tests/artifacts/site-light.png",
        ".hypothesis/examples/x",
        "grounded_dialogue_atlas.egg-info/PKG-INFO",
    ]
    for leftover in leftovers:
        (project / leftover).parent.mkdir(parents=True, exist_ok=True)
        (project / leftover).write_text("x")
    done = _make(project, "clean")
    assert done.returncode == 0, done.stderr
    for folder in ("build", "tests/artifacts", ".hypothesis", "grounded_dialogue_atlas.egg-info"):
        assert not (project / folder).exists(), folder
    assert (project / "tests").is_dir()


@needs_make
def test_make_test_says_how_many_workers_it_uses(tmp_path: Path) -> None:
    """One pytest worker per CPU by default, said before the run; PYTEST_WORKERS overrides it, and the
    Makefile and README say so (issue 50: it was 2 on any machine, unsaid)."""
    project = _project(tmp_path)
    venv = f"VENV={Path(sys.prefix)}"  # an environment of one's own: make -n creates nothing
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    default = _make(project, "-n", "test", venv)
    assert default.returncode == 0, default.stderr
    assert f"make test: {cpus} pytest worker(s)" in default.stdout and f"pytest -n {cpus} " in default.stdout
    chosen = _make(project, "-n", "test", venv, "PYTEST_WORKERS=3")
    assert "make test: 3 pytest worker(s)" in chosen.stdout and "pytest -n 3 " in chosen.stdout
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "## PYTEST_WORKERS: how many processes run them" in makefile
    readme_test_line = (REPO / "README.md").read_text(encoding="utf-8").split("make test", 1)[1].split("```")[0]
    assert "PYTEST_WORKERS=N" in readme_test_line


@pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(), reason="not a git checkout")
def test_an_export_with_the_default_name_in_the_clone_is_ignored_by_git() -> None:
    from utils.sources import registry

    names = [
        f"{name}-{split}.{fmt}"
        for name, source in registry().items()
        for split in source.splits
        for fmt in ("jsonl", "parquet")
    ]
    checked = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=REPO,
        input="\n".join(names),
        capture_output=True,
        text=True,
    )
    assert sorted(checked.stdout.split()) == sorted(names)
    # only at the top of the clone: a .jsonl elsewhere (a test's fixture) is not ignored
    nested = subprocess.run(["git", "check-ignore", "--no-index", "-q", "tests/fixtures/wow-train.jsonl"], cwd=REPO)
    assert nested.returncode == 1


def test_the_readme_says_where_the_parsed_cache_is_and_how_to_remove_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from utils import config

    monkeypatch.delenv(config.CACHE_DIR_ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    default = str(config.cache_dir()).replace(str(Path.home()), "~", 1)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"rm -rf {default}" in readme, default


# -- item 7: the licence --------------------------------------------------------------------------


def test_the_wheel_ships_the_licence(tmp_path: Path) -> None:
    """Builds the wheel (pip, from a copy of the sources) and reads the licence and its metadata in it."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "grounded_dialogue_atlas.py"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "utils", source / "utils", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(tmp_path / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("grounded_dialogue_atlas-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        licence = next(name for name in names if name.endswith(".dist-info/licenses/LICENSE"))
        text = archive.read(licence).decode()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert text == (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Grounded Dialogue Atlas contributors" in text
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert "grounded_dialogue_atlas.py" in names and "atlas = grounded_dialogue_atlas:main" in entry_points


def test_the_book_reproduces_the_licence_file() -> None:
    """book/cite.md's "MIT licence" section is LICENSE's text (wrapped differently)."""
    page = (REPO / "book" / "cite.md").read_text(encoding="utf-8")
    shown = page.split("## MIT licence", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    licence = (REPO / "LICENSE").read_text(encoding="utf-8").removeprefix("MIT License")
    assert " ".join(shown.split()) == " ".join(licence.split())
