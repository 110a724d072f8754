"""The students' environment runs everything: a fresh ``pip install ".[lab]"`` executes every learner
copy with the reference answers filled in.

The test takes the students' route, not the developers': ``python -m venv`` in a temporary directory,
then ``pip install "<project>[lab]"`` (not editable, no ``dev`` or ``book`` extra; pip's cache is
used, the packages come from the package index). The project is installed from a copy of the files
its build reads, so that the build writes nothing into the checkout. With that environment's Python,
``python -m utils.teaching.learner`` writes the learner copies; each ``exercise-placeholder`` cell is then
filled with the code of that exercise's ``solution`` cells in the chapter (:func:`fill_placeholders`),
and the copy is executed with nbclient by that environment's Python, in its own ``python3`` kernel,
offline (``ATLAS_OFFLINE=1``) with an empty data directory, so on the demo samples.

Every copy must run without a cell error, every practice check must print ``Correct``, and nothing
may say ``No module named`` (a book-only package such as myst-nb imported unguarded).

The numbers a teacher plans hardware with (install time, the environment's size on disk, each
chapter's run time and its kernel's peak memory) are printed and written to
``tests/artifacts/students-environment.json``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from lab_server import jupyter_env

from conftest import REPO
from utils.teaching.learner import CHECK_TAG, PLACEHOLDER_TAG, SOLUTION_TAG

pytestmark = pytest.mark.slow

CHAPTERS = sorted(path.stem for path in (REPO / "notebooks").glob("*.ipynb"))
ARTIFACTS = REPO / "tests" / "artifacts"
def _build_inputs() -> tuple[str, ...]:
    """What the build of the wheel reads from the checkout, as pyproject.toml declares it: its readme,
    licence files, top-level modules and the package (a file added there is copied too)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = project.get("tool", {}).get("setuptools", {})
    return (
        "pyproject.toml",
        project["project"]["readme"],
        *project["project"].get("license-files", []),
        *(f"{module}.py" for module in setuptools.get("py-modules", [])),
        "utils",
    )


BUILD_INPUTS = _build_inputs()
#: pip's messages when the package index cannot be reached (the test is skipped, not failed, then).
NETWORK_FAILURES = (
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ConnectTimeoutError",
    "ProxyError",
)
INSTALL_TIMEOUT_S = 1800
#: nbclient's limit for one cell; a chapter on the demo samples takes well under a minute.
CELL_TIMEOUT_S = 900

_EXERCISE_LABEL = re.compile(r"^\s*(```+|:::+)\{exercise\}.*?^\s*:label:\s*(?P<label>\S+)", re.MULTILINE | re.DOTALL)
_SOLUTION_START = re.compile(r"^\s*(```+|:::+)\{solution-start\}\s*(?P<label>\S+)", re.MULTILINE)
_SOLUTION_END = re.compile(r"^\s*(```+|:::+)\{solution-end\}", re.MULTILINE)
_PLACEHOLDER_LABEL = re.compile(r"Write your solution to exercise (?P<label>\S+) here")

#: Appended to each copy: where the kernel runs from (the students' environment, not the checkout)
#: and its peak resident memory (kB on Linux).
PROBE = """\
import json as _json, resource as _resource, sys as _sys
import utils as _utils
_peak = max(_resource.getrusage(who).ru_maxrss for who in (_resource.RUSAGE_SELF, _resource.RUSAGE_CHILDREN))
print("ATLAS-KERNEL " + _json.dumps({"prefix": _sys.prefix, "utils": _utils.__file__, "peak_rss_kb": _peak}))
"""

#: Run by the students' Python: execute one notebook with nbclient in that environment's python3 kernel.
RUNNER = f"""\
import sys, time
import nbformat
from nbclient import NotebookClient

source, target, cwd = sys.argv[1:4]
notebook = nbformat.read(source, as_version=4)
notebook.cells.append(nbformat.v4.new_code_cell({PROBE!r}))
started = time.perf_counter()
NotebookClient(notebook, timeout={CELL_TIMEOUT_S}, kernel_name="python3", allow_errors=True,
               resources={{"metadata": {{"path": cwd}}}}).execute()
notebook.metadata["atlas_run_seconds"] = time.perf_counter() - started
nbformat.write(notebook, target)
"""


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


# -- filling the learner copies with the reference answers ------------------------------------------


def reference_solutions(chapter: nbformat.NotebookNode) -> dict[str, list[list[str]]]:
    """Exercise label -> its runs of solution code, in the chapter's order.

    A run is the code cells of one ``{solution-start}`` ... ``{solution-end}`` block, or consecutive
    code cells tagged ``solution`` outside such a block (they belong to the exercise above them).
    """
    runs: dict[str, list[list[str]]] = {}
    block: str | None = None
    exercise: str | None = None
    loose: list[str] | None = None
    for cell in chapter.cells:
        markdown = cell.cell_type == "markdown"
        if block is not None:
            if markdown and _SOLUTION_END.search(cell.source):
                block = None
            elif cell.cell_type == "code":
                runs[block][-1].append(cell.source)
            continue
        if markdown and (start := _SOLUTION_START.search(cell.source)):
            block, loose = start.group("label"), None
            runs.setdefault(block, []).append([])
            continue
        if cell.cell_type == "code" and SOLUTION_TAG in _tags(cell):
            assert exercise is not None, f"a solution cell before any exercise: {cell.source[:80]!r}"
            if loose is None:
                loose = []
                runs.setdefault(exercise, []).append(loose)
            loose.append(cell.source)
            continue
        if SOLUTION_TAG in _tags(cell):  # a markdown model answer outside a block: nothing to run
            continue
        loose = None
        if markdown:
            for match in _EXERCISE_LABEL.finditer(cell.source):
                exercise = match.group("label")
    return runs


def fill_placeholders(copy: nbformat.NotebookNode, chapter: nbformat.NotebookNode) -> list[str]:
    """Replace each placeholder of the learner ``copy`` with the reference solution of its exercise
    (named in the placeholder's text); returns the labels filled. Every solution run of the chapter
    must fill exactly one placeholder."""
    runs = reference_solutions(chapter)
    filled: list[str] = []
    for cell in copy.cells:
        if PLACEHOLDER_TAG not in _tags(cell):
            continue
        named = _PLACEHOLDER_LABEL.search(cell.source)
        assert named, f"a placeholder that names no exercise: {cell.source!r}"
        label = named.group("label")
        assert runs.get(label), f"placeholder of {label}: the chapter has no (more) solution code for it"
        cell.source = "\n\n".join(runs[label].pop(0))
        filled.append(label)
    left = {label: len(rest) for label, rest in runs.items() if rest}
    assert not left, f"solutions with no placeholder in the learner copy: {left}"
    return filled


def test_fill_placeholders_puts_each_solution_in_its_exercise() -> None:
    """The helper itself, on a two-exercise notebook: a block solution and a loose tagged one."""
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    loose = new_code("b = 2")
    loose.metadata["tags"] = [SOLUTION_TAG]
    chapter = nbformat.v4.new_notebook(
        cells=[
            new_md("```{exercise} One\n:label: t-ex-1\n\nSet a.\n```"),
            new_md("```{solution-start} t-ex-1\n:class: dropdown\n```"),
            new_code("a = 1"),
            new_code("a += 1"),
            new_md("```{solution-end}\n```"),
            new_md("```{exercise} Two\n:label: t-ex-2\n\nSet b.\n```"),
            loose,
        ]
    )
    from utils.teaching.learner import learner_notebook

    copy, _ = learner_notebook(chapter, name="t.ipynb")
    assert fill_placeholders(copy, chapter) == ["t-ex-1", "t-ex-2"]
    sources = [cell.source for cell in copy.cells if PLACEHOLDER_TAG in _tags(cell)]
    assert sources == ["a = 1\n\na += 1", "b = 2"]


# -- the students' environment ------------------------------------------------------------------------


@dataclass
class StudentsEnvironment:
    root: Path
    python: Path
    env: dict[str, str]
    learner_dir: Path
    numbers: dict[str, object] = field(default_factory=dict)


def _bin(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def _disk_mb(path: Path) -> float:
    if shutil.which("du"):
        kilobytes = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout
        return int(kilobytes.split()[0]) / 1024
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


def _copy_build_inputs(target: Path) -> Path:
    target.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in BUILD_INPUTS:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
    return target


def _children_cpu_seconds() -> float:
    """CPU time of this process's finished children (and theirs): a measure the machine's load does not inflate."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _write_artifact(numbers: dict[str, object]) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "students-environment.json").write_text(json.dumps(numbers, indent=2), encoding="utf-8")


@pytest.fixture(scope="module")
def students(tmp_path_factory: pytest.TempPathFactory) -> StudentsEnvironment:
    root = tmp_path_factory.mktemp("students")
    venv = root / "venv"
    (root / "data").mkdir()
    env = jupyter_env(
        root / "jupyter",
        ATLAS_OFFLINE="1",
        ATLAS_DATA_DIR=str(root / "data"),
        ATLAS_CACHE_DIR=str(root / "cache"),
        PATH=str(_bin(venv)) + os.pathsep + os.environ.get("PATH", ""),  # as an activated venv
        VIRTUAL_ENV=str(venv),
    )
    # Nothing of the developers' environment may leak in: not the checkout on the path, not a kernel.
    for name in ("PYTHONPATH", "PYTHONHOME", "JUPYTER_PATH", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(name, None)

    started, cpu_before = time.perf_counter(), _children_cpu_seconds()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=300)
    python = _bin(venv) / "python"
    project = _copy_build_inputs(root / "project")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", f"{project}[lab]"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    install_seconds, install_cpu = time.perf_counter() - started, _children_cpu_seconds() - cpu_before
    if install.returncode != 0:
        output = install.stdout + install.stderr
        if any(marker in output for marker in NETWORK_FAILURES):
            pytest.skip(f"the package index cannot be reached: {output.strip().splitlines()[-1]}")
        pytest.fail(f'pip install ".[lab]" failed ({install.returncode}):\n{output[-4000:]}')

    learner_dir = root / "learner"
    started = time.perf_counter()
    subprocess.run(
        [str(python), "-m", "utils.teaching.learner", "--out", str(learner_dir),
         "--notebooks", str(REPO / "notebooks")],
        cwd=root,  # not the checkout: `import utils` must find the installed package
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    numbers: dict[str, object] = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_average_at_install": round(os.getloadavg()[0], 1),
        "install_seconds": round(install_seconds, 1),
        "install_cpu_seconds": round(install_cpu, 1),
        "learner_copies_seconds": round(time.perf_counter() - started, 1),
        "venv_disk_mb": round(_disk_mb(venv), 1),
        "chapters": {},
    }
    print(
        f"\nstudents' environment: venv + pip install '.[lab]' {install_seconds:.0f} s ({install_cpu:.0f} s of CPU), "
        f"{numbers['venv_disk_mb']:.0f} MB on disk"
    )
    _write_artifact(numbers)
    return StudentsEnvironment(root, python, env, learner_dir, numbers)


def test_the_students_environment_has_no_book_or_developer_packages(students: StudentsEnvironment) -> None:
    """The route under test is the students' one: the lab extra, not the book's myst-nb or dev tools."""
    listed = subprocess.run(
        [str(students.python), "-m", "pip", "list", "--format=json"],
        env=students.env,
        capture_output=True,
        text=True,
        check=True,
    )
    installed = {re.sub(r"[-_.]+", "-", item["name"]).lower() for item in json.loads(listed.stdout)}
    assert {"grounded-dialogue-atlas", "jupyterlab", "jupyterlab-myst", "ipykernel", "nbclient"} <= installed
    assert not installed & {"myst-nb", "jupyter-book", "nbval", "pytest", "nbgrader"}


def _output_text(output: nbformat.NotebookNode) -> str:
    if output.output_type == "stream":
        return output.text
    if output.output_type == "error":
        return f"{output.ename}: {output.evalue}\n" + "\n".join(output.traceback)
    return "\n".join(str(value) for key, value in output.get("data", {}).items() if key.startswith("text/"))


def _check_calls(source: str) -> int:
    """How many practice checks a check cell calls (each prints one verdict)."""
    return sum(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("check_")
        for node in ast.walk(ast.parse(source))
    )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_learner_copy_runs_with_the_reference_answers(chapter: str, students: StudentsEnvironment) -> None:
    copy = nbformat.read(students.learner_dir / f"{chapter}.ipynb", as_version=4)
    original = nbformat.read(REPO / "notebooks" / f"{chapter}.ipynb", as_version=4)
    filled = fill_placeholders(copy, original)
    run_dir = students.root / "run" / chapter
    run_dir.mkdir(parents=True)
    source, executed_path = run_dir / f"{chapter}.ipynb", run_dir / f"{chapter}.executed.ipynb"
    nbformat.write(copy, source)
    runner = students.root / "run_notebook.py"
    runner.write_text(RUNNER, encoding="utf-8")

    cpu_before = _children_cpu_seconds()
    done = subprocess.run(
        [str(students.python), str(runner), str(source), str(executed_path), str(run_dir)],
        cwd=run_dir,
        env=students.env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert done.returncode == 0, f"nbclient could not run {chapter}:\n{done.stderr[-4000:]}"
    executed = nbformat.read(executed_path, as_version=4)

    errors, missing_modules, verdicts = [], [], []
    for index, cell in enumerate(executed.cells):
        if cell.cell_type != "code":
            continue
        text = "\n".join(_output_text(output) for output in cell.outputs)
        where = f"cell {index} ({cell.source.strip().splitlines()[0][:70] if cell.source.strip() else ''!r})"
        errors += [f"{where}: {o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
        if "No module named" in text:
            missing_modules += [f"{where}: {line.strip()}" for line in text.splitlines() if "No module named" in line][
                :1
            ]
        if CHECK_TAG in _tags(cell):
            lines = [line for line in text.splitlines() if line.startswith(("Correct", "Not yet"))]
            correct = sum(line.startswith("Correct") for line in lines)
            if correct < _check_calls(cell.source) or any(line.startswith("Not yet") for line in lines):
                verdicts.append(f"{where}: {lines or text[:300]}")
    assert not missing_modules, f"{chapter}: a package the lab extra does not bring: {missing_modules}"
    assert "No module named" not in done.stderr, done.stderr[-2000:]
    assert not errors, f"{chapter}: cells failed in the students' environment: {errors}"
    assert not verdicts, f"{chapter}: practice checks not Correct with the reference answers: {verdicts}"
    exercises = {
        m.group("label")
        for c in original.cells
        if c.cell_type == "markdown"
        for m in _EXERCISE_LABEL.finditer(c.source)
    }
    assert set(filled) == exercises, f"{chapter}: exercises {sorted(exercises)}, filled {filled}"

    probe = next(line for line in _output_text(executed.cells[-1].outputs[0]).splitlines() if "ATLAS-KERNEL" in line)
    kernel = json.loads(probe.split("ATLAS-KERNEL ", 1)[1])
    venv = students.python.parent.parent
    assert Path(kernel["prefix"]).resolve() == venv.resolve(), f"the kernel ran in {kernel['prefix']}, not the venv"
    assert Path(kernel["utils"]).resolve().is_relative_to(venv.resolve()), f"utils imported from {kernel['utils']}"

    seconds = float(executed.metadata["atlas_run_seconds"])
    peak_mb = kernel["peak_rss_kb"] / 1024
    chapters = students.numbers["chapters"]
    assert isinstance(chapters, dict)
    cpu = _children_cpu_seconds() - cpu_before  # nbclient's process and the kernel it waited for
    chapters[chapter] = {
        "run_seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "kernel_peak_rss_mb": round(peak_mb, 1),
    }
    _write_artifact(students.numbers)
    print(
        f"\n{chapter}: {len(filled)} exercises filled, ran in {seconds:.0f} s ({cpu:.0f} s of CPU), "
        f"kernel peak RSS {peak_mb:.0f} MB"
    )
