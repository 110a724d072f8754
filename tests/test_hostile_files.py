"""Hostile or damaged input a user may meet at home: export targets that are not files, a CSV cut in a
quoted cell, huge ids, mathtext in data, bidirectional controls, one id in two splits."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from utils import check_ids, load
from utils.cli import main as atlas
from utils.errors import DataError

# -- atlas export --out (item 9) ---------------------------------------------------------------------------


def test_export_into_a_fifo_writes_to_it_and_keeps_the_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    try:
        assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", str(fifo)]) == 0
    finally:
        if reader.is_alive():  # never leave the test hanging on an unopened FIFO
            with open(fifo, "wb"):
                pass
        reader.join(timeout=30)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert received and received[0].count(b"\n") >= 1


def test_export_into_a_device_writes_to_it_and_keeps_the_device(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the null device, in a folder of the test's own
        with open(device, "wb") as probe:
            probe.write(b"x")
    except OSError as exc:
        pytest.skip(f"cannot make a device node here ({exc})")
    assert atlas(["export", "jwhr", "answered", "--to", "parquet", "--out", str(device)]) == 0
    assert stat.S_ISCHR(device.lstat().st_mode)


def test_export_through_a_link_replaces_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", str(link)]) == 0
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_text().startswith('{"dataset": "jwhr"')


def test_export_to_standard_output(capfd: pytest.CaptureFixture[str]) -> None:
    assert atlas(["export", "jwhr", "answered", "--to", "jsonl", "--out", "-"]) == 0
    captured = capfd.readouterr()
    lines = captured.out.splitlines()
    assert lines and all(line.startswith('{"dataset": "jwhr"') for line in lines)
    assert "wrote" in captured.err and not Path("-").exists()


# -- a CSV cut inside a quoted cell (item 14) ----------------------------------------------------------------


def test_a_csv_cut_inside_a_quoted_cell_is_a_data_error(tmp_path: Path) -> None:
    from utils.formats._io import iter_csv_rows

    path = tmp_path / "wow.csv"
    path.write_text('a,b\n1,"whole"\n2,"The ancient Greeks als', encoding="utf-8")
    with pytest.raises(DataError, match=r"wow\.csv, record line 3: a quoted cell .* still open at the end"):
        list(iter_csv_rows(path))


def test_the_audit_loader_refuses_a_gold_file_cut_short(real_data_dir: Path, data_dir: Path) -> None:
    original = (real_data_dir / "faithdial-audit" / "gold" / "wow.csv").read_bytes()
    cut = data_dir / "faithdial-audit" / "gold" / "wow.csv"
    cut.parent.mkdir(parents=True)
    cut.write_bytes(original[:40_003])
    with pytest.raises(DataError, match=r"wow\.csv, record line \d+: 3 values for the header's 5 columns"):
        load("faithdial_audit", "gold_wow")


def test_a_csv_cut_between_two_cells_is_a_data_error(tmp_path: Path) -> None:
    from utils.formats._io import iter_csv_rows

    path = tmp_path / "wow.csv"
    path.write_text("a,b,c\n1,2,3\n4,5", encoding="utf-8")
    with pytest.raises(DataError, match=r"record line 3: 2 values for the header's 3 columns"):
        list(iter_csv_rows(path))


# -- bidirectional controls in HTML (item 15) --------------------------------------------------------------

_OPENERS = {"\u202a": "e", "\u202b": "e", "\u202d": "e", "\u202e": "e", "\u2066": "i", "\u2067": "i", "\u2068": "i"}


def _open_bidi_at_tags(html: str) -> list[int]:
    """Positions of the tags at which a bidirectional embedding, override or isolate is still open."""
    stack: list[str] = []
    open_at = []
    for position, char in enumerate(html):
        if char in _OPENERS:
            stack.append(_OPENERS[char])
        elif char == "\u202c" and stack and stack[-1] == "e":
            stack.pop()
        elif char == "\u2069" and "i" in stack:
            while stack.pop() != "i":
                pass
        elif char == "<" and stack:
            open_at.append(position)
    return open_at


@pytest.mark.parametrize("dataset", ["wow", "faithdial", "wise", "jwhr"])
def test_an_override_in_data_reorders_only_its_own_string(dataset: str) -> None:
    # every string of a demo dialogue (turn text, answer sentences, titles, labels) ends with an RLO
    from test_html_safety import _demo_dialogues, _renderer, hostile

    for dialogue in _demo_dialogues(dataset)[:2]:
        html = str(_renderer(dataset)(hostile(dialogue, "\u202e", "append")))
        assert "\u202e" in html
        assert _open_bidi_at_tags(html) == [], dataset


def test_isolated_bidi_closes_what_the_text_leaves_open() -> None:
    from utils.book.render._html import esc

    assert esc("plain <text>") == "plain &lt;text&gt;"  # text without controls is unchanged
    assert esc("abc\u202e") == "\u2068abc\u202e\u202c\u2069"
    assert esc("\u2067a\u202bb") == "\u2068\u2067a\u202bb\u202c\u2069\u2069"
    assert esc("a\u202eb\u202cc") == "\u2068a\u202eb\u202cc\u2069"


# -- one id in two splits (item 17) ---------------------------------------------------------------------------


def _jwhr_copies(data_dir: Path, demo_dir: Any, monkeypatch: pytest.MonkeyPatch, *, shared_id: bool) -> None:
    """Copies of the demo's two JWHR files in the data directory (taken for the official files, whose
    recorded sizes are set aside), with one id of ``answered`` put into ``not_answered`` or not."""
    import json

    from utils import loading
    from utils.sources import SourceFile

    monkeypatch.setattr(loading, "_split_files", lambda source, split: (SourceFile(path=f"jwhr/{split}.jsonl"),))

    folder = data_dir / "jwhr"
    folder.mkdir()
    answered = (demo_dir / "jwhr/answered.jsonl").read_text(encoding="utf-8")
    lines = (demo_dir / "jwhr/not_answered.jsonl").read_text(encoding="utf-8").splitlines()
    if shared_id:
        first = json.loads(lines[0])
        first["id"] = json.loads(answered.splitlines()[0])["id"]
        lines[0] = json.dumps(first, ensure_ascii=False)
    (folder / "answered.jsonl").write_text(answered, encoding="utf-8")
    (folder / "not_answered.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("split", ["answered", "not_answered"])
def test_one_jwhr_id_in_both_splits_is_a_data_error_naming_both_files(
    data_dir: Path, demo_dir: Any, monkeypatch: pytest.MonkeyPatch, split: str
) -> None:
    _jwhr_copies(data_dir, demo_dir, monkeypatch, shared_id=True)
    assert len(load("jwhr", split))  # a split loads alone: the check across files is its own call
    with pytest.raises(DataError) as caught:
        check_ids("jwhr")
    message = str(caught.value)
    assert "answered.jsonl" in message and "not_answered.jsonl" in message
    assert "1 id value" in message and "field 'id'" in message


def test_jwhr_splits_with_distinct_ids_load(data_dir: Path, demo_dir: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _jwhr_copies(data_dir, demo_dir, monkeypatch, shared_id=False)
    assert len(load("jwhr", "answered")) and len(load("jwhr", "not_answered"))
    check_ids("jwhr")


def test_the_real_jwhr_splits_share_no_id(real_data_dir: Path) -> None:
    assert load("jwhr", "answered").provenance.kind == "official"


# -- mathtext in data (item 11) ------------------------------------------------------------------------------


def _all_plot_functions() -> list[tuple[str, object]]:
    import importlib
    import pkgutil

    import utils

    found = []
    for module_info in pkgutil.walk_packages(utils.__path__, "utils."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if name.startswith("plot_") and callable(value) and getattr(value, "__module__", "") == module.__name__:
                found.append((f"{module.__name__}.{name}", value))
    return found


def test_every_plot_function_draws_data_text_as_typed() -> None:
    plots = _all_plot_functions()
    assert len(plots) >= 10
    assert [name for name, plot in plots if not getattr(plot, "text_as_typed", False)] == []


@pytest.mark.filterwarnings("ignore:Glyph")
def test_a_dollar_in_a_page_title_is_drawn_as_typed(data_dir: Path) -> None:
    import io

    import matplotlib.text
    from test_html_safety import hostile

    from utils.datasets.jwhr.stats import plot_top_pages

    dialogues = [hostile(d, r" $\notacommand$ and $x$", "append") for d in load("jwhr", "answered")]
    fig = plot_top_pages(dialogues)
    texts = [t for t in fig.findobj(matplotlib.text.Text) if "$" in t.get_text()]
    fig.savefig(io.BytesIO(), format="png")  # mathtext would raise ParseFatalException here
    texts += [t for t in fig.findobj(matplotlib.text.Text) if "$" in t.get_text()]
    assert texts and not any(t.get_parse_math() for t in texts)
