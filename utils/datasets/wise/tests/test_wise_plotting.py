"""utils.book.cjk_fonts: Chinese and Japanese text in figures without missing-glyph boxes."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from utils.book import cjk_fonts as plotting


@pytest.fixture(autouse=True)
def _restore_rc():
    with matplotlib.rc_context():
        yield


def test_chinese_and_japanese_draw_without_missing_glyphs(tmp_path: Path) -> None:
    if plotting.find_cjk_font() is None:
        message = f"no CJK font installed. {plotting.INSTALL_HINT}"
        if os.environ.get("CI"):
            pytest.fail(message)  # the project's set-up must install one
        pytest.skip(message)
    family = plotting.use_cjk_font()
    assert family in plotting.CJK_FONT_FAMILIES
    assert matplotlib.rcParams["font.family"][:2] == ["DejaVu Sans", family]
    fig, ax = plt.subplots()
    ax.set_title("意图分布 / 意図の分布 「カタカナ」")
    ax.bar(["现代舞蹈", "ひらがな", "日本語"], [1, 2, 3])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font")
        fig.savefig(tmp_path / "cjk.png")
    plt.close(fig)
    assert (tmp_path / "cjk.png").stat().st_size > 0


def test_warns_clearly_when_no_font(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plotting, "find_cjk_font", lambda: None)
    before = list(matplotlib.rcParams["font.family"])
    with pytest.warns(plotting.CJKFontWarning, match="fonts-noto-cjk"):
        assert plotting.use_cjk_font() is None
    assert matplotlib.rcParams["font.family"] == before


def test_a_latin_only_font_does_not_count() -> None:
    from matplotlib import font_manager

    dejavu = font_manager.findfont("DejaVu Sans")
    assert not plotting._covers(dejavu, plotting.PROBE_TEXT)
