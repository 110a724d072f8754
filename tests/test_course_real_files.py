"""The classroom route on ``$ATLAS_DATA_DIR``: every assignment's reference solutions, autograded
by nbgrader on the real files, earn every autograded point, and ``export`` writes their row.

The route's other two submissions (the untouched release, an answer that raises) score as they do
whatever the data; tests/test_course.py grades them on the demo samples. The book and nbval already
run each hidden test on the reference solutions against the real files in the chapters; this runs
them as nbgrader does, in the assignment notebook with only the setup cells it keeps.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from nbgrader_route import check_route, route


@pytest.mark.realdata
@pytest.mark.slow
def test_reference_solutions_earn_every_point_on_the_real_files(tmp_path: Path, real_data_dir: Path) -> None:
    check_route(route(tmp_path, data_dir=real_data_dir, students=("reference",)))
