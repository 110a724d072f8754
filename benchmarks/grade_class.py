"""Grade a class with ``atlas grade`` and measure it: how long a teacher waits, and the CPU it costs.

Writes an nbgrader course for one assignment into a scratch folder, releases it, hands in
``--students`` submissions of the reference solutions of which ``--hangs`` hang in their second
answer cell (a loop that swallows Ctrl-C), grades them all with ``atlas grade``, and prints the wall
time, the CPU time of every process it ran (the sandboxes' included) and each submission's score.
Run on the data in ``$ATLAS_DATA_DIR`` (the demo samples without it)::

    python -m benchmarks.grade_class --assignment begin --students 40 --hangs 4
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

HANG = """
import time
while True:
    try:
        time.sleep(0.5)
    except KeyboardInterrupt:
        pass
"""


def answered(release: nbformat.NotebookNode, source: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The release with every answer cell holding the reference solution, as a careful student's would."""
    reference = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell for cell in source.cells}
    copy = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in copy.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and cell.cell_type == "code":
            cell.source = (
                reference[meta["grade_id"]].source.replace("### BEGIN SOLUTION\n", "").replace("### END SOLUTION", "")
            )
    return copy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assignment", default="begin")
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--hangs", type=int, default=4)
    args = parser.parse_args(argv)
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    with tempfile.TemporaryDirectory(prefix="atlas-class-") as scratch:
        course = Path(scratch) / "course"

        def run(*command: str) -> None:
            cwd = course if course.exists() else Path(scratch)
            subprocess.run(command, cwd=cwd, env=environment, check=True, capture_output=True, text=True)

        run(sys.executable, "-m", "utils", "course", "--out", str(course), args.assignment)
        run(sys.executable, "-m", "nbgrader", "generate_assignment", args.assignment)
        folder = course / "release" / args.assignment
        release = nbformat.read(folder / f"{args.assignment}.ipynb", as_version=4)
        source = nbformat.read(course / "source" / args.assignment / f"{args.assignment}.ipynb", as_version=4)
        reference = answered(release, source)
        for number in range(args.students):
            notebook = nbformat.from_dict(json.loads(json.dumps(reference)))
            if number < args.hangs:
                answers = [
                    c
                    for c in notebook.cells
                    if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
                ]
                answers[1].source += "\n" + HANG
            target = course / "submitted" / f"student{number:02d}" / args.assignment
            target.mkdir(parents=True)
            nbformat.write(notebook, target / f"{args.assignment}.ipynb")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        graded = subprocess.run(
            [sys.executable, "-m", "utils", "grade", args.assignment],
            cwd=course,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(graded.stdout[graded.stdout.find(f"\n{args.assignment}:") :])
        print(
            f"{args.students} submissions ({args.hangs} hanging) of {args.assignment}: "
            f"{wall:.0f} s wall, {cpu:.0f} s CPU (every process, sandboxes included); exit {graded.returncode}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
