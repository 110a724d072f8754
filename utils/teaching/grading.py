"""Grading a submission where the student's code cannot reach the verdict, the teacher's files or the network.

``nbgrader autograde`` runs a submission as the teacher, in the course folder, and its hidden tests in
the student's own kernel, after the student's code: a submission can rebind the function a test calls,
read the teacher's solutions, write the gradebook or leave a process behind. The course the atlas
writes (:mod:`utils.teaching.course`) replaces nbgrader's ``Execute`` step with :class:`IsolatedExecute`, so
that ``nbgrader autograde`` (and ``atlas grade``, which runs it and reports) grades like this:

1. **The student's code runs in a sandbox** (`bubblewrap <https://github.com/containers/bubblewrap>`_,
   Debian's ``bubblewrap`` package): a private copy of the submission folder is the only writable
   place besides a private ``/tmp``; the Python installation, the atlas and the class's data folder
   are read-only; the course folder (``source/``, the gradebook, other submissions) and the teacher's
   home are not there at all; there is no network; every process dies with the sandbox; the notebook
   has a time budget of its own and each cell one within it, and the sandbox a memory limit.
2. **The hidden tests do not run there.** Each autograded test cell is replaced, in the sandbox's copy,
   by one line that hands in the values the test reads (:func:`utils.teaching.answers.hand_in`): plain data.
3. **The verdict is computed here**, in the grader's process, by the test's own code (the teacher's,
   from the gradebook) with those values bound to its names and the data loaded here. A student's
   monkeypatch, a rebound builtin or a printed "Correct" lives and dies in the sandbox.
4. **Nothing is lost, nothing is silent.** A cell that hangs (even one that swallows Ctrl-C) or floods
   its output costs that cell and what depends on it: the kernel is restarted and the cells before it
   run again, and the notebook goes on. Every problem is written to ``grading/<assignment>/<student>.json``
   in the course folder, which ``atlas grade`` lists and the atlas's export columns flag.

What it does not guard is in the teachers' guide (``book/teaching.md``, "What grading guards").
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import asdict, dataclass, field
from io import StringIO
from pathlib import Path
from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Float, Unicode

from utils.teaching import answers

#: What a cell of the sandbox's copy runs in place of an autograded test.
HAND_IN = "__import__('utils.teaching.answers', fromlist=['hand_in']).hand_in({names!r}, globals())"
#: A text output longer than this is cut in the graded notebook (a flood costs nothing downstream).
MAX_OUTPUT_CHARS = 10_000
#: Where a submission's copy sits inside the sandbox.
SANDBOX_WORK = "/submission"
_HIDDEN = re.compile(r"^### BEGIN HIDDEN TESTS$(?P<code>.*?)^### END HIDDEN TESTS$", re.MULTILINE | re.DOTALL)
_BUILTINS = set(dir(builtins))


class IsolationUnavailable(RuntimeError):
    """The sandbox cannot be started here (no bubblewrap, or user namespaces are off)."""


class SubmissionRefused(RuntimeError):
    """A submission the grader does not run (it holds links out of its folder)."""


def _links_in(folder: Path) -> list[str]:
    """The symbolic links in a submitted folder (nbgrader's copies would follow them)."""
    if not folder.is_dir():
        return []
    found = []
    for root, directories, files in os.walk(folder, followlinks=False):
        for name in directories + files:
            if Path(root, name).is_symlink():
                found.append(str(Path(root, name).relative_to(folder)))
    return found


class GradingSetupError(RuntimeError):
    """The course folder is not one ``atlas grade`` can grade (no configuration, or not isolated)."""


# -- what a test reads ---------------------------------------------------------------------------------


def test_code(source: str) -> str:
    """The code of an autograded test cell: between nbgrader's hidden-test markers, or the whole cell."""
    match = _HIDDEN.search(source)
    return match.group("code") if match else source


def names_handed_in(source: str) -> list[str]:
    """The names a test reads that it does not bind itself: the student's answers, in first-use order."""
    import ast

    from IPython.core.inputtransformer2 import TransformerManager  # IPython magics as calls

    try:
        tree = ast.parse(TransformerManager().transform_cell(test_code(source)))
    except SyntaxError:
        return []
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    read: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            name = node.id
            if name not in bound and name not in _BUILTINS and name not in read:
                read.append(name)
    return sorted(read, key=lambda name: source.find(name))


# -- verdicts, in the grader's process -------------------------------------------------------------------


@dataclass
class Verdict:
    """What one autograded test found: ``passed``, or a message naming the exercise and the slip."""

    passed: bool
    message: str = ""


_MACHINE_PATHS: list[tuple[str, str]] = []


def scrub_paths(text: str) -> str:
    """``text`` with this machine's paths (Python, the atlas, the data, home, the sandbox) as placeholders."""
    if not _MACHINE_PATHS:
        from utils.config import data_dir

        places = [
            (str(Path(__file__).resolve().parents[1]), "<atlas>"),  # the package, utils/
            (sys.prefix, "<python>"),
            (sys.base_prefix, "<python>"),
            (str(Path.home()), "<home>"),
            (SANDBOX_WORK, "<submission>"),
            (tempfile.gettempdir(), "<tmp>"),
        ]
        with contextlib.suppress(Exception):  # a data folder that cannot be named has no path to hide
            places.append((str(data_dir()), "<data>"))
        _MACHINE_PATHS.extend(sorted({(p, n) for p, n in places if p and p != "/"}, key=lambda item: -len(item[0])))
    for place, name in _MACHINE_PATHS:
        text = text.replace(place, name)
    return text


def verdict_of(source: str, answer_values: Mapping[str, Any], *, exercise: str = "") -> Verdict:
    """Run an autograded test's code here, with the student's ``answer_values`` bound to its names.

    The code is the teacher's (nbgrader restores it from the gradebook); the values are data rebuilt
    by :func:`utils.teaching.answers.decode`. An answer that is missing or could not be handed in fails with a
    message saying so; the test's own message names the slip, never the expected value.
    """
    import warnings

    label = f"{exercise}: " if exercise else ""
    for name, value in answer_values.items():
        if isinstance(value, answers.Missing):
            return Verdict(
                False, f"{label}`{name}` is not defined when this test runs: define it in the answer cell above."
            )
        if isinstance(value, answers.Unreadable):
            return Verdict(False, f"{label}`{name}` could not be handed in for grading: {value.what}.")
    namespace: dict[str, Any] = {"__name__": "__atlas_test__", **answer_values}
    captured = StringIO()
    try:
        with warnings.catch_warnings(), redirect_stdout(captured), redirect_stderr(captured):
            warnings.simplefilter("ignore")
            exec(compile(test_code(source), "<autograded test>", "exec"), namespace)
    except AssertionError as failure:
        return Verdict(False, scrub_paths(str(failure)) or f"{label}the test failed.")
    except Exception as problem:
        return Verdict(
            False,
            f"{label}the test could not run on your answer "
            f"({type(problem).__name__}: {scrub_paths(str(problem))[:300]}).",
        )
    return Verdict(True)


# -- the sandbox -----------------------------------------------------------------------------------------


@dataclass
class Limits:
    """A submission's budget: wall-clock seconds for the whole notebook and for one cell, and memory."""

    notebook_seconds: float = 900.0
    cell_seconds: float = 120.0
    memory_bytes: int = 8 * 1024**3


def bubblewrap() -> str:
    """The ``bwrap`` program, or :class:`IsolationUnavailable` saying how to install it."""
    found = shutil.which("bwrap")
    if found is None:
        raise IsolationUnavailable(
            "grading isolates each submission with bubblewrap, which is not installed: install Debian's or "
            "Ubuntu's `bubblewrap` package (Fedora: bubblewrap; elsewhere see book/teaching.md, 'What grading guards')"
        )
    return found


def _system_binds() -> list[str]:
    """Read-only binds of the system's programs and libraries (merged-/usr or not)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    return args


def _python_binds() -> list[str]:
    """Read-only binds of this Python (its base installation and environment) and of the atlas."""
    import importlib.util

    places = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), Path(__file__).resolve().parents[1]}
    launcher = importlib.util.find_spec("grounded_dialogue_atlas")  # the chapters' first cell imports it
    if launcher is not None and launcher.origin:
        places.add(Path(launcher.origin).resolve())
    args: list[str] = []
    for place in sorted(places):
        if not str(place).startswith("/usr/"):
            args += ["--ro-bind", str(place), str(place)]
    return args


def _fake_etc(folder: Path) -> Path:
    """A minimal ``/etc`` of the sandbox's own (the machine's holds nothing a notebook needs)."""
    etc = folder / "etc"
    etc.mkdir()
    (etc / "passwd").write_text(f"student:x:{os.getuid()}:{os.getgid()}:student:{SANDBOX_WORK}:/bin/sh\n")
    (etc / "group").write_text(f"student:x:{os.getgid()}:\n")
    (etc / "hosts").write_text("127.0.0.1 localhost\n::1 localhost\n")
    for shared in ("fonts", "localtime"):  # matplotlib's fonts, the time zone: nothing of the teacher's
        if Path("/etc", shared).exists():
            target = etc / shared
            if Path("/etc", shared).is_dir():
                shutil.copytree(Path("/etc", shared), target, symlinks=True)
            else:
                shutil.copy(Path("/etc", shared), target)
    return etc


def sandbox_command(argv: Sequence[str], *, work: Path, etc: Path, data: Path | None, cache: Path | None) -> list[str]:
    """``argv`` run by bubblewrap with ``work`` as its only writable folder (at :data:`SANDBOX_WORK`)."""
    command = [bubblewrap(), "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    command += _system_binds() + _python_binds()
    # /dev read-only but for a small /dev/shm, and a bounded /tmp: both are memory the host shares
    command += ["--ro-bind", str(etc), "/etc", "--proc", "/proc", "--dev", "/dev"]
    command += ["--size", str(256 * 1024**2), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    command += ["--size", str(1024**3), "--tmpfs", "/tmp"]
    command += ["--bind", str(work), SANDBOX_WORK, "--chdir", SANDBOX_WORK]
    environment = {
        "HOME": SANDBOX_WORK,
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime",
        "IPYTHONDIR": "/tmp/ipython",
        "MPLCONFIGDIR": "/tmp/matplotlib",
        "MPLBACKEND": "agg",
        "ATLAS_OFFLINE": "1",
        "ATLAS_CACHE_DIR": "/tmp/atlas-cache",
        "NBGRADER_EXECUTION": "autograde",
    }
    # The data and the grader's parsed cache at their own paths (a cache entry names its file's
    # path), read-only: what one submission wrote there could otherwise change another's data or
    # the verdicts, which read the same cache. A split not cached yet is parsed in memory instead.
    if data is not None and data.is_dir():
        command += ["--ro-bind", str(data.resolve()), str(data.resolve())]
        environment["ATLAS_DATA_DIR"] = str(data.resolve())
    if cache is not None and cache.is_dir():
        command += ["--ro-bind", str(cache.resolve()), str(cache.resolve())]
        environment["ATLAS_CACHE_DIR"] = str(cache.resolve())
    command.append("--clearenv")
    for key, value in environment.items():
        command += ["--setenv", key, value]
    return [*command, "--", *argv]


def _limit(memory_bytes: int) -> None:
    """In the child, before bubblewrap starts: the memory ceiling, a file-size ceiling, no core dumps, a
    process ceiling."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (512 * 1024**2, 512 * 1024**2))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # processes: binding for a teacher's own account (the limit counts that user's processes); root is
    # exempt from it, and a grader run as root relies on the pid namespace and the notebook's budget
    resource.setrlimit(resource.RLIMIT_NPROC, (4096, 4096))


@dataclass
class SandboxRun:
    """What the sandbox gave back: the executed notebook (as far as it got) and what went wrong."""

    notebook: Any | None
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_isolated(
    notebook: Any, files: Path | None, limits: Limits, *, data: Path | None, cache: Path | None
) -> SandboxRun:
    """Execute ``notebook`` (an nbformat node) in the sandbox, with ``files`` copied beside it."""
    import nbformat

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="atlas-grade-") as scratch:
        root = Path(scratch)
        work = root / "submission"
        _copy_submission_files(files, work)
        (work / "in.ipynb").write_text(nbformat.writes(notebook), encoding="utf-8")
        argv = [
            sys.executable,
            "-m",
            "utils.teaching.grading",
            "run",
            f"{SANDBOX_WORK}/in.ipynb",
            f"{SANDBOX_WORK}/.graded.ipynb",
            "--cell-seconds",
            str(limits.cell_seconds),
        ]
        command = sandbox_command(argv, work=work, etc=_fake_etc(root), data=data, cache=cache)
        problems: list[str] = []
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: _limit(limits.memory_bytes),
            start_new_session=True,
        )
        _wait_for_sandbox(process, limits, problems)
        executed = _read_back(work, problems)
    return SandboxRun(executed, problems, time.monotonic() - started)


def _copy_submission_files(files: Path | None, work: Path) -> None:
    """Create ``work`` holding the submission's other files (its notebooks and links left out)."""
    if files is not None and files.is_dir():
        # symlinks=True: a link is copied as a link (never what it points to), then removed
        shutil.copytree(files, work, symlinks=True, ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
        for path in sorted(work.rglob("*"), reverse=True):
            if path.is_symlink():
                path.unlink()
    else:
        work.mkdir()


def _wait_for_sandbox(process: subprocess.Popen[bytes], limits: Limits, problems: list[str]) -> None:
    """Wait for the sandbox within the notebook's budget (killing it past that), noting how it ended."""
    try:
        _, error = process.communicate(timeout=limits.notebook_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, error = process.communicate()
        problems.append(
            f"the notebook ran out of its {limits.notebook_seconds:g} s budget; the cells after that point did not run"
        )
    else:
        if process.returncode not in (0, None):
            tail = scrub_paths(error.decode("utf-8", "replace").strip().splitlines()[-1:][0] if error.strip() else "")
            problems.append(f"the sandbox ended with status {process.returncode}{': ' + tail[:300] if tail else ''}")


def _read_back(work: Path, problems: list[str]) -> Any | None:
    """The executed notebook the sandbox left in ``work`` (None if none can be read), and the problems it noted."""
    import nbformat

    executed = None
    try:
        text = _read_regular(work, ".graded.ipynb", 200 * 1024**2)
    except FileNotFoundError:
        problems.append("the notebook's run left no record (its runner was stopped before the first cell ended)")
    except OSError as refused:
        problems.append(f"the executed notebook was not read: {refused.strerror or refused}")
    else:
        try:
            executed = nbformat.reads(text, as_version=4)
        except Exception as problem:  # the sandbox's file is the student's to spoil
            problems.append(f"the executed notebook could not be read back ({type(problem).__name__})")
    try:
        noted = json.loads(_read_regular(work, ".graded.problems.json", 1_000_000))
    except (OSError, ValueError):
        noted = []
    if isinstance(noted, list):
        problems += [printable(str(note))[:500] for note in noted if isinstance(note, str)][:50]
    return executed


def _read_regular(folder: Path, name: str, limit: int) -> str:
    """The text of ``folder/name`` if it is a regular file of at most ``limit`` bytes, read through a
    descriptor opened without following links: the sandbox's files are the student's to replace by a
    link to another student's notebook."""
    import stat

    directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
    finally:
        os.close(directory)
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise OSError(0, "it is not a regular file")
        if status.st_size > limit:
            raise OSError(0, f"it has {status.st_size:,} bytes, more than the {limit:,} read")
        return handle.read(limit + 1).decode("utf-8", errors="replace")


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` without control characters (a student's text in the teacher's terminal or files)."""
    return _CONTROL.sub("?", text)


# -- the runner, inside the sandbox ------------------------------------------------------------------------


def _trim_outputs(cell: Any) -> None:
    """Cut every text output of ``cell`` to :data:`MAX_OUTPUT_CHARS` (a hand-in is kept whole)."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            text = output.get("text", "")
            if len(text) > MAX_OUTPUT_CHARS:
                output["text"] = (
                    text[:MAX_OUTPUT_CHARS]
                    + f"\n[... {len(text) - MAX_OUTPUT_CHARS:,} more characters cut by the grader]\n"
                )
        for key, value in list(output.get("data", {}).items()):
            if key == answers.MIME_TYPE:
                continue
            if isinstance(value, str) and len(value) > MAX_OUTPUT_CHARS:
                output["data"][key] = value[:MAX_OUTPUT_CHARS] + " [... cut by the grader]"
            elif not isinstance(value, str) and len(json.dumps(value, default=str)) > MAX_OUTPUT_CHARS:
                output["data"][key] = "[a display of over 10,000 characters, cut by the grader]"
        if output.get("output_type") == "error":
            output["traceback"] = [line[:MAX_OUTPUT_CHARS] for line in output.get("traceback", [])[-30:]]


def run_notebook(source: Path, target: Path, cell_seconds: float) -> int:
    """Execute ``source`` cell by cell into ``target``, saved after every cell.

    A cell that runs past ``cell_seconds`` (or kills its kernel) gets an error output; the kernel is
    replaced and the code cells before it run again (their outputs kept from the first run), so that
    a later exercise still finds what the setup cells loaded.
    """
    import nbformat

    notebook = nbformat.read(source, as_version=4)
    problems: list[str] = []
    notes = target.with_name(target.stem + ".problems.json")

    def save() -> None:
        partial = target.with_name(target.name + ".partial")
        partial.write_text(nbformat.writes(notebook), encoding="utf-8")
        partial.replace(target)
        notes.write_text(json.dumps(problems), encoding="utf-8")

    client = _start_kernel(notebook, source, cell_seconds)
    ran: list[int] = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        failure = _execute(client, cell, index, cell_seconds)
        _trim_outputs(cell)
        if failure:
            label = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", f"cell {index + 1}")
            problems.append(f"{label}: {failure}; the kernel was restarted")
            cell.outputs.append(
                nbformat.v4.new_output(
                    "error",
                    ename="GradingTimeout",
                    evalue=f"This cell was stopped: {failure}.",
                    traceback=[f"This cell was stopped: {failure}."],
                )
            )
            _stop_kernel(client)
            client = _start_kernel(notebook, source, cell_seconds)
            for earlier in ran:  # the state later cells need, without the cell that hung
                kept = notebook.cells[earlier].outputs
                with contextlib.suppress(Exception):  # a replayed cell that fails now failed before too
                    client.execute_cell(notebook.cells[earlier], earlier)
                notebook.cells[earlier].outputs = kept
        else:
            ran.append(index)
        save()
    _stop_kernel(client)
    save()
    return 0


def _start_kernel(notebook: Any, source: Path, cell_seconds: float) -> Any:
    """A client of a new kernel to run ``notebook``'s cells in, one by one."""
    from nbclient import NotebookClient

    client = NotebookClient(
        notebook,
        timeout=cell_seconds,
        kernel_name="python3",
        allow_errors=True,
        interrupt_on_timeout=False,
        raise_on_iopub_timeout=False,
        iopub_timeout=10,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(source.parent)}},
    )
    client.km = client.create_kernel_manager()
    client.start_new_kernel()
    client.start_new_kernel_client()
    return client


def _stop_kernel(client: Any) -> None:
    # a kernel the student broke dies with the sandbox anyway
    with contextlib.suppress(Exception):
        client.km.shutdown_kernel(now=True)


def _execute(client: Any, cell: Any, index: int, cell_seconds: float) -> str:
    """Run one cell; what stopped it (``""`` when nothing did)."""
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    try:
        client.execute_cell(cell, index)
    except CellTimeoutError:
        return f"it ran longer than {cell_seconds:g} s and was stopped"
    except DeadKernelError:
        return "its kernel died (it crashed or ran out of memory)"
    except Exception as problem:
        return f"its kernel stopped answering ({type(problem).__name__})"
    return ""


# -- the nbgrader step -------------------------------------------------------------------------------------


def _is_test(cell: Any) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def handed_in(cell: Any) -> dict[str, Any] | None:
    """The answers an executed hand-in cell displayed (the last hand-in it shows), or None."""
    found = None
    for output in cell.get("outputs", []):
        text = output.get("data", {}).get(answers.MIME_TYPE)
        if isinstance(text, str):
            found = text
    if found is None:
        return None
    try:
        return answers.decode(found)
    except answers.AnswerFormatError as problem:
        return {"": answers.Unreadable(f"the hand-in could not be read ({problem})")}


def verdict_outputs(verdict: Verdict) -> list[Any]:
    """The outputs nbgrader scores: none for a pass, an error (0 points) with the message for a fail."""
    import nbformat

    if verdict.passed:
        return [nbformat.v4.new_output("stream", name="stdout", text="Passed.\n")]
    return [
        nbformat.v4.new_output(
            "error", ename="AssertionError", evalue=verdict.message, traceback=[f"AssertionError: {verdict.message}"]
        )
    ]


#: Seconds the grader spends on one test's verdict (reading the hand-in and running the test): a
#: hand-in built to be slow to read (keys that all collide in a dict) costs its own test, not the class.
VERDICT_SECONDS = 60


class VerdictTimeout(Exception):
    """A verdict that took longer than :data:`VERDICT_SECONDS`."""


@contextlib.contextmanager
def time_limit(seconds: float, error: Callable[[], BaseException] = VerdictTimeout) -> Iterator[None]:
    """Raise ``error()`` in this (main) thread once ``seconds`` have passed; in another thread no limit
    (a signal reaches the main thread only)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise error()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _data_folder(folder: Path | None) -> Iterator[None]:
    """``$ATLAS_DATA_DIR`` set to ``folder`` for a verdict (left as it is for None)."""
    if folder is None:
        yield
        return
    with _environment("ATLAS_DATA_DIR", str(folder)):
        yield


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """``$name`` set to ``value`` meanwhile, then put back as it was (unset if it was)."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def grade_notebook(
    notebook: Any,
    files: Path | None,
    limits: Limits,
    *,
    data: Path | None,
    cache: Path | None,
    labelled: Path | None = None,
) -> tuple[Any, list[str]]:
    """``notebook`` with its code cells' outputs from an isolated run and its tests' verdicts from here.

    The sandbox reads ``data``, the students' data folder, and so do the verdicts, so that a test
    scores an answer on the data it was computed on; the tests of projects whose labels the students'
    folder holds out (:mod:`utils.teaching.projects`) read ``labelled``, the teacher's, instead."""
    from utils.teaching.projects import held_out_exercises

    projects = {spec.exercise for spec in held_out_exercises()}
    sandboxed, names_of = _with_hand_ins(notebook)
    run = run_isolated(sandboxed, files, limits, data=data, cache=cache)
    problems = list(run.problems)
    executed = run.notebook
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        ran = executed.cells[index] if executed is not None and index < len(executed.cells) else None
        if _is_test(cell):
            verdict = _test_verdict(
                cell, ran, names_of[index], problems, projects=projects, data=data, labelled=labelled
            )
            cell.outputs = verdict_outputs(verdict)
            continue
        cell.outputs = _cleaned_outputs(ran)
        cell.execution_count = ran.get("execution_count") if ran is not None else None
    return notebook, problems


def _with_hand_ins(notebook: Any) -> tuple[Any, dict[int, list[str]]]:
    """A copy of ``notebook`` to run in the sandbox, each test replaced by the hand-in of the names it
    reads (by the test's index), its code cells' outputs cleared."""
    import nbformat

    sandboxed = nbformat.from_dict(json.loads(json.dumps(notebook)))
    names_of: dict[int, list[str]] = {}
    for index, cell in enumerate(sandboxed.cells):
        if _is_test(cell):
            names_of[index] = names_handed_in(cell.source)
            cell.source = HAND_IN.format(names=names_of[index])
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return sandboxed, names_of


def _test_verdict(
    cell: Any,
    ran: Any | None,
    names: list[str],
    problems: list[str],
    *,
    projects: set[str],
    data: Path | None,
    labelled: Path | None,
) -> Verdict:
    """The verdict of the test ``cell`` on what its hand-in, ``ran``, gave, within :data:`VERDICT_SECONDS`
    (a project's test reads the ``labelled`` data folder, any other ``data``)."""
    exercise = cell.metadata.get("nbgrader", {}).get("grade_id", "")
    try:
        with time_limit(VERDICT_SECONDS):
            values = handed_in(ran) if ran is not None else None
            if values is None:
                return Verdict(
                    False,
                    f"{exercise}: no answer reached the grader (the notebook stopped before this test: "
                    f"{'; '.join(problems) or 'see the cells above'}).",
                )
            # only the names the test reads: a hand-in cannot bind any other (__builtins__, ...)
            wanted = {name: values.get(name, answers.Missing(name)) for name in names}
            project = re.sub(r"-test(-\d+)?$", "", exercise) in projects
            with _data_folder(labelled if project and labelled is not None else data):
                return verdict_of(cell.source, wanted, exercise=exercise)
    except VerdictTimeout:
        problems.append(f"{exercise}: its hand-in took over {VERDICT_SECONDS} s to check and was failed")
        return Verdict(False, f"{exercise}: the answer took the grader over {VERDICT_SECONDS} s to read and check.")


def _cleaned_outputs(ran: Any | None) -> list[Any]:
    """The outputs of a code cell as the sandbox ran it, without hand-ins, the paths in errors scrubbed."""
    import nbformat

    outputs = ran.get("outputs", []) if ran is not None and ran.get("cell_type") == "code" else []
    cleaned = []
    for output in outputs:
        output = nbformat.from_dict(output)
        output.get("data", {}).pop(answers.MIME_TYPE, None)
        if output.get("output_type") == "error":
            output["evalue"] = scrub_paths(str(output.get("evalue", "")))
            output["traceback"] = [scrub_paths(str(line)) for line in output.get("traceback", [])]
        elif output.get("output_type") == "stream":
            output["text"] = scrub_paths(str(output.get("text", "")))
        cleaned.append(output)
    return cleaned


class IsolatedExecute(Preprocessor):
    """nbgrader's ``Execute`` step, isolated: runs the submission in the sandbox, verdicts computed here.

    Configured in the course's ``nbgrader_config.py`` (``atlas course`` writes it)::

        c.IsolatedExecute.notebook_timeout = 900   # seconds for a whole notebook
        c.IsolatedExecute.cell_timeout = 120       # seconds for one cell
        c.IsolatedExecute.memory_limit = 8         # GiB of address space for the sandbox
    """

    enabled = Bool(True)  # nbconvert runs a preprocessor registered by name only when it is enabled
    notebook_timeout = Float(900.0, help="Seconds a whole notebook may run.").tag(config=True)
    cell_timeout = Float(120.0, help="Seconds one cell may run.").tag(config=True)
    memory_limit = Float(8.0, help="GiB of address space the sandbox may use.").tag(config=True)
    data_dir = Unicode("", help="The data folder the submissions see (default: $ATLAS_DATA_DIR).").tag(config=True)
    cache_dir = Unicode(
        ".student-cache",
        help="The parsed cache of that folder the submissions read (never the teacher's, which holds the held-out "
        "splits): atlas grade fills it.",
    ).tag(config=True)
    report_dir = Unicode("grading", help="Where each submission's grading report is written.").tag(config=True)

    def preprocess(self, nb: Any, resources: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        from utils.config import data_dir

        limits = Limits(self.notebook_timeout, self.cell_timeout, int(self.memory_limit * 1024**3))
        data = Path(self.data_dir).expanduser().resolve() if self.data_dir else data_dir()
        cache = Path(self.cache_dir).expanduser().resolve() if self.cache_dir else None
        files = Path(resources.get("metadata", {}).get("path") or ".")
        meta = resources.get("nbgrader", {})
        started = time.monotonic()
        linked = _links_in(Path("submitted") / str(meta.get("student", "")) / str(meta.get("assignment", "")))
        try:
            if linked:
                raise SubmissionRefused(
                    f"the submission holds symbolic links ({', '.join(linked[:3])}): a submission is files, and a "
                    "link could point at the course's own"
                )
            nb, problems = grade_notebook(nb, files, limits, data=data, cache=cache, labelled=data_dir())
        except SubmissionRefused as refused:
            problems = [str(refused)]
            for cell in nb.cells:
                if _is_test(cell):
                    cell.outputs = verdict_outputs(Verdict(False, f"this notebook was not graded: {refused}."))
        except IsolationUnavailable:
            raise
        except Exception as problem:
            problems = [f"grading failed: {type(problem).__name__}: {scrub_paths(str(problem))[:300]}"]
            for cell in nb.cells:
                if _is_test(cell):
                    cell.outputs = verdict_outputs(
                        Verdict(False, "this notebook could not be graded; your teacher has been told why.")
                    )
        self._report(meta, problems, time.monotonic() - started, nb)
        return nb, resources

    def _report(self, meta: Mapping[str, Any], problems: list[str], seconds: float, nb: Any) -> None:
        assignment, student = str(meta.get("assignment", "unknown")), str(meta.get("student", "unknown"))
        tests = [cell for cell in nb.cells if _is_test(cell)]
        report = GradingReport(
            assignment=assignment,
            student=student,
            notebook=str(meta.get("notebook", "")),
            seconds=round(seconds, 1),
            problems=problems,
            tests=len(tests),
            graded_at=time.time(),
            passed=sum(1 for cell in tests if not any(o.get("output_type") == "error" for o in cell.outputs)),
        )
        folder = Path(self.report_dir) / safe_name(assignment)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{safe_name(student)}.json"
        partial = target.with_name(target.name + ".partial")
        partial.write_text(json.dumps(asdict(report), indent=1), encoding="utf-8")
        partial.replace(target)


def safe_name(name: str) -> str:
    """``name`` as a file name (an nbgrader id is a student's or a teacher's choice)."""
    return re.sub(r"[^\w.-]", "_", name)[:100] or "_"


@dataclass
class GradingReport:
    """One submission's grading, as ``grading/<assignment>/<student>.json`` holds it."""

    assignment: str
    student: str
    notebook: str
    seconds: float
    problems: list[str]
    tests: int
    passed: int
    graded_at: float = 0.0


def reports(course: Path, assignment: str) -> list[GradingReport]:
    """The grading reports of ``assignment`` in the course folder, by student."""
    found = []
    for path in sorted((course / "grading" / safe_name(assignment)).glob("*.json")):
        try:
            found.append(GradingReport(**json.loads(path.read_text(encoding="utf-8"))))
        except (ValueError, TypeError):
            continue
    return found


_LOAD = re.compile(r"""utils\.load\(\s*["'](?P<dataset>\w+)["']\s*,\s*(?:["'](?P<split>\w+)["'])?""")


def warm_cache(notebook_text: str) -> list[str]:
    """Load here, once, the splits an assignment loads, so that the sandboxes (which read the parsed
    cache but cannot write it) find them parsed. Returns ``dataset/split`` of each."""
    import warnings

    import utils

    wanted: dict[str, set[str] | None] = {}
    for match in _LOAD.finditer(notebook_text):
        dataset, split = match.group("dataset"), match.group("split")
        if split is None:
            wanted[dataset] = None  # a loop over the dataset's splits
        elif wanted.get(dataset, set()) is not None:
            wanted.setdefault(dataset, set()).add(split)  # type: ignore[union-attr]
    loaded = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dataset, splits in wanted.items():
            try:
                names = utils.split_names(dataset) if splits is None else sorted(splits)
            except Exception:
                continue
            for split in names:
                try:
                    utils.load(dataset, split)
                except Exception:
                    continue
                loaded.append(f"{dataset}/{split}")
    return loaded


#: Answer cells this alike (difflib's ratio of their code, comments and blank lines left out) are listed.
SIMILARITY_THRESHOLD = 0.9
#: Names of the practice checks' insides: an answer that reaches for them is reading expected values.
_CHECK_INSIDES = re.compile(
    r"_RAISING|__closure__|__wrapped__|_TurnFacts|cell_contents|\b_compare_\w+|\bgc\.get_referents"
)
_SOLUTION = re.compile(r"### BEGIN SOLUTION\n(?P<code>.*?)### END SOLUTION", re.DOTALL)


@dataclass
class Similar:
    """An answer cell to look at: like another student's or the reference solution, or one that
    reaches into the practice checks."""

    student: str
    cell: str
    like: str
    ratio: float


def _code(text: str) -> str:
    lines = (line.split("#", 1)[0].rstrip() for line in text.splitlines())
    return "\n".join(line for line in lines if line.strip() and "NotImplementedError" not in line)


def _answer_cells(path: Path) -> dict[str, str]:
    import nbformat

    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception:
        return {}
    cells = {}
    for cell in notebook.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            match = _SOLUTION.search(cell.source)
            cells[str(meta.get("grade_id"))] = _code(match.group("code") if match else cell.source)
    return cells


def _answering_helpers() -> dict[str, tuple[str, ...]]:
    """Per exercise, the chapter's public helpers that compute its answer in one call (a dataset folder's
    ``exercises.ANSWERED_BY``): an answer cell that calls one is listed for the teacher to read."""
    from utils.sources import get_source, registry

    found: dict[str, tuple[str, ...]] = {}
    for name in registry():
        found.update(get_source(name).hook("exercises", "ANSWERED_BY", {}) or {})
    return found


def similarity_report(course: Path, assignment: str, threshold: float = SIMILARITY_THRESHOLD) -> list[Similar]:
    """Answer cells of ``assignment``'s submissions that match the reference solution or another
    submission at ``threshold`` or above, and those that read the practice checks' insides; written
    to ``grading/<assignment>/similarity.csv``. A list to read, not a verdict: short answers to the
    same warm-up are alike by nature (cells of fewer than three lines are left out)."""
    import csv
    from difflib import SequenceMatcher

    reference = _answer_cells(course / "source" / assignment / f"{assignment}.ipynb")
    answering = _answering_helpers()
    submissions = {
        path.parent.parent.name: _answer_cells(path)
        for path in sorted((course / "submitted").glob(f"*/{assignment}/{assignment}.ipynb"))
    }
    found: list[Similar] = []
    students = sorted(submissions)
    for position, student in enumerate(students):
        for cell, code in submissions[student].items():
            if _CHECK_INSIDES.search(code):
                found.append(Similar(student, cell, "the practice checks' insides", 1.0))
            exercise = cell.removesuffix("-answer")
            for helper in answering.get(exercise, ()):
                if re.search(rf"\b{re.escape(helper)}\s*\(", code):
                    found.append(
                        Similar(student, cell, f"the chapter's helper {helper}(), which computes the answer", 1.0)
                    )
            if code.count("\n") < 2:
                continue
            candidates = [("the reference solution", reference.get(cell, ""))]
            candidates += [(other, submissions[other].get(cell, "")) for other in students[position + 1 :]]
            for like, other in candidates:
                if other.count("\n") < 2:
                    continue
                # the first 5,000 characters, and the cheap upper bounds first: a pair of huge cells
                # would otherwise cost minutes (difflib is quadratic in the worst case)
                matcher = SequenceMatcher(None, code[:5000], other[:5000], autojunk=False)
                if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
                    continue
                ratio = matcher.ratio()
                if ratio >= threshold:
                    found.append(Similar(student, cell, like, round(ratio, 3)))
    target = course / "grading" / safe_name(assignment) / "similarity.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "answer_cell", "like", "ratio"])
        writer.writerows([item.student, item.cell, item.like, item.ratio] for item in found)
    return found


def grade_assignment(course: Path, assignment: str, *, students: Sequence[str] = (), force: bool = False) -> int:
    """``atlas grade``: run ``nbgrader autograde`` in ``course`` and list what happened to each submission."""
    _check_course_config(course)
    bubblewrap()
    source = course / "source" / assignment / f"{assignment}.ipynb"
    if not source.is_file():
        raise GradingSetupError(f"no assignment {assignment!r} in {course / 'source'}")
    warmed = _warm_caches(course, source.read_text(encoding="utf-8"))
    if warmed:
        print(f"data loaded for grading: {', '.join(warmed)}")
    started = time.time()
    status = _autograde(course, assignment, students, force)
    submitted = sorted(path.parent.name for path in (course / "submitted").glob(f"*/{assignment}") if path.is_dir())
    if students:
        submitted = [student for student in submitted if student in students]
    fresh = {report.student: report for report in reports(course, assignment) if report.graded_at >= started}
    print(f"\n{assignment}: {len(fresh)} of {len(submitted)} submissions graded by this run")
    _print_submissions(submitted, fresh)
    similar = similarity_report(course, assignment)
    if similar:
        print(
            f"\n{len({(item.student, item.cell) for item in similar})} answer cell(s) of "
            f"{len({item.student for item in similar})} submission(s) to read for copying (alike at "
            f"{SIMILARITY_THRESHOLD:.0%} or more to the reference or another submission, or calling what computes the "
            f"answer): grading/{safe_name(assignment)}/similarity.csv"
        )
    troubled = [student for student in submitted if student not in fresh or fresh[student].problems]
    if troubled:
        print(
            f"\nto look at ({len(troubled)}): {', '.join(troubled)}; "
            "`nbgrader export` lists the problems in grading_problems"
        )
    return status


def _check_course_config(course: Path) -> None:
    """Refuse a course folder without an nbgrader configuration, or one that does not isolate submissions."""
    config = course / "nbgrader_config.py"
    if not config.is_file():
        raise GradingSetupError(
            f"{course.resolve()} has no nbgrader_config.py: run atlas grade in the course folder "
            "(`atlas course` writes it), or name the folder with --course"
        )
    text = config.read_text(encoding="utf-8")
    if "utils.grading.IsolatedExecute" in text:  # the module's name before utils/ was laid out by concern
        raise GradingSetupError(
            f"{config} was written by an earlier atlas: it names utils.grading, which is now "
            "utils.teaching.grading, and its hidden tests import utils.exercises, now utils.teaching.exercises. "
            "Write the course again with `atlas course` (grades already in gradebook.db are kept)"
        )
    if "utils.teaching.grading.IsolatedExecute" not in text:
        raise GradingSetupError(
            f"{config} does not isolate submissions (it has no utils.teaching.grading.IsolatedExecute step), "
            "so grading would run them in their own kernels, as you: write the course again with `atlas course`"
        )


def _warm_caches(course: Path, text: str) -> list[str]:
    """Parse the splits the assignment ``text`` loads for the teacher's verdicts and, when the course has
    a students' data folder, for the sandboxes too; what :func:`warm_cache` loaded for the teacher."""
    warmed = warm_cache(text)
    shared = course / "student-data"
    if shared.is_dir():  # what the sandboxes read, and the verdicts of every test but the projects'
        with _data_folder(shared.resolve()):
            warm_cache(text)
            # the sandboxes' own parsed cache: of the students' folder only, never the teacher's (which
            # holds the held-out splits, labels and all)
            with _environment("ATLAS_CACHE_DIR", str((course / ".student-cache").resolve())):
                warm_cache(text)
    return warmed


def _autograde(course: Path, assignment: str, students: Sequence[str], force: bool) -> int:
    """Run ``nbgrader autograde``, its log printed as it comes; its exit status."""
    command = [sys.executable, "-m", "nbgrader", "autograde", assignment]
    for student in students:
        command += ["--student", student]
    if force:
        command.append("--force")
    environment = dict(os.environ)
    # nbgrader runs alembic and jupyter from its own environment's bin folder
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    # nbgrader's log names cells by the ids a submission gives them: printed without control characters
    process = subprocess.Popen(
        command,
        cwd=course,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    assert process.stdout is not None
    for line in process.stdout:
        print(printable(line.rstrip("\n")))
    return process.wait()


def _print_submissions(submitted: list[str], fresh: Mapping[str, GradingReport]) -> None:
    """One line per submission: its tests passed and problems, or why this run did not grade it."""
    width = max([len(student) for student in submitted] + [7])
    for student in submitted:
        report = fresh.get(student)
        if report is None:
            print(
                f"  {student:<{width}}  not graded by this run: nbgrader skipped it (graded before: add --force) "
                "or failed on it (its log above)"
            )
            continue
        line = f"  {printable(student):<{width}}  {report.passed}/{report.tests} tests passed, {report.seconds:.0f} s"
        print(line + (f"; problems: {printable('; '.join(report.problems))}" if report.problems else ""))


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m utils.teaching.grading", description="The grader's sandbox runner (internal)."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="execute a notebook cell by cell (inside the sandbox)")
    run.add_argument("source", type=Path)
    run.add_argument("target", type=Path)
    run.add_argument("--cell-seconds", type=float, default=120.0)
    args = parser.parse_args(argv)
    return run_notebook(args.source, args.target, args.cell_seconds)


if __name__ == "__main__":
    sys.exit(_main())
