"""``import utils`` loads none of the heavy libraries: each is imported where it is used (issue 37).

pandas, pyarrow and NumPy alone cost half a second of CPU at every ``atlas`` command and every
notebook's first cell; a chapter that loads a split pays for them then, and only then.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Libraries that ``import utils`` must not load (each costs a tenth of a second or more).
HEAVY = ("pandas", "pyarrow", "numpy", "sklearn", "scipy", "matplotlib", "ipywidgets", "IPython", "datasets")


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {list(HEAVY)!r} if m in sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_utils_loads_no_heavy_library() -> None:
    assert _loaded_after("import utils") == []


def test_the_registry_loads_no_heavy_library() -> None:
    """Listing the datasets imports each folder's declaration, not its parser, renderer or viewer hooks."""
    assert _loaded_after("import utils\nutils.sources.registry()") == []


def test_atlas_help_loads_no_heavy_library() -> None:
    """``atlas --help`` (and a sub-command's) builds the parser, which lists the datasets, and nothing more;
    a wrong dataset name is answered before anything is loaded."""
    for argv in (["--help"], ["show", "--help"], ["export", "--help"], ["show", "no_such_dataset", "train", "0"]):
        code = (
            "import contextlib, io\nfrom utils.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), "
            f"contextlib.suppress(SystemExit):\n    main({argv!r})"
        )
        assert _loaded_after(code) == [], argv


def test_reopening_a_cached_split_loads_no_pandas(tmp_path: Path) -> None:
    """A split whose cache is built is reopened without pandas: its provenance and size need none.
    Building the cache, a frame (``turns()``, ``evidence()``) and reading a dialogue import it (pyarrow
    does, to convert its arrays); so does a small split, which is parsed at every load rather than
    cached (:data:`utils._cache.storage.IN_MEMORY_BELOW`, set to 0 here to cache the demo sample)."""
    code = (
        "import os\nos.environ['ATLAS_OFFLINE'] = '1'\n"
        f"os.environ['ATLAS_CACHE_DIR'] = {str(tmp_path)!r}\n"
        f"os.environ['ATLAS_DATA_DIR'] = {str(tmp_path / 'none')!r}\n"
        "import warnings\nwarnings.simplefilter('ignore')\nimport utils\n"
        "from utils._cache import storage\nstorage.IN_MEMORY_BELOW = 0\n"
        "split = utils.load('wow', 'train')\nprint(len(split), split.provenance.summary())"
    )
    _loaded_after(code)  # builds the cache of the demo sample
    loaded = _loaded_after(code)
    assert "pandas" not in loaded and "pyarrow" in loaded


def test_atlas_status_loads_no_heavy_library(tmp_path: Path) -> None:
    """``atlas status`` lists the files in place without pandas or pyarrow (issue 50: they cost it
    1.3 s of CPU and 137 MB, 5.6 times ``--help``), on a data directory holding files and on none."""
    data = tmp_path / "data"
    (data / "jwhr").mkdir(parents=True)
    (data / "jwhr" / "answered.jsonl").write_text('{"id": 1}\n', encoding="utf-8")
    for argv, directory in ((["status"], data), (["status", "--json"], data), (["status"], tmp_path / "none")):
        code = (
            f"import os\nos.environ['ATLAS_DATA_DIR'] = {str(directory)!r}\nos.environ['ATLAS_OFFLINE'] = '1'\n"
            "import contextlib, io\nfrom utils.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            f"    assert main({argv!r}) == 0\nassert 'jwhr' in out.getvalue()"
        )
        assert _loaded_after(code) == [], argv


LAZY_NAMES = ["load", "LoadedSplit", "Provenance", "data_status", "CacheWarning", "DemoDataWarning"]


@pytest.mark.parametrize("name", LAZY_NAMES)
def test_lazy_names_resolve_to_the_loading_module(name: str) -> None:
    import utils
    from utils import loading

    assert getattr(utils, name) is getattr(loading, name)
    assert name in dir(utils)


def test_record_schema_is_made_on_first_use() -> None:
    import pyarrow as pa

    from utils import records

    assert isinstance(records.RECORD_SCHEMA, pa.Schema)
    assert records.RECORD_SCHEMA is records.RECORD_SCHEMA  # made once
    assert records.RECORD_SCHEMA.names[:3] == ["dataset", "split", "index"]
    with pytest.raises(AttributeError):
        records.NO_SUCH_NAME  # noqa: B018
