"""Figures with Chinese and Japanese text: find a CJK font and make matplotlib use it.

matplotlib's default font (DejaVu Sans) has no Chinese or Japanese glyphs, so labels in WISE or
JWHR figures come out as empty boxes. :func:`use_cjk_font` finds an installed font that covers
simplified Chinese *and* Japanese kana and adds it after DejaVu Sans, so Latin text keeps its
usual look and every CJK character falls back to the CJK font (matplotlib >= 3.6 falls back per
glyph).

The project installs the font on its machines with Debian's ``fonts-noto-cjk`` package (Noto Sans
CJK, one file for Chinese, Japanese and Korean). Elsewhere a system font is used when present:
Source Han Sans, PingFang or Hiragino on macOS, Microsoft YaHei on Windows, WenQuanYi on Linux.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import matplotlib
from matplotlib import font_manager

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

#: Preferred families, best first. Each is used only if it really covers :data:`PROBE_TEXT`.
CJK_FONT_FAMILIES = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans CJK TC",
    "Source Han Sans SC",
    "Source Han Sans",
    "Noto Sans SC",
    "Sarasa Gothic SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
    "PingFang SC",
    "Hiragino Sans GB",
    "Microsoft YaHei",
    "Noto Serif CJK SC",
    "Noto Serif CJK JP",
)

#: Characters a usable font must have: simplified-only Chinese, hiragana, katakana, a Japanese
#: kanji and full-width punctuation. A Japanese-only font (IPAex) lacks the simplified forms; a
#: Latin font lacks them all.
PROBE_TEXT = "们这说话简体中文あいうアイウ語込。、「」"

#: File-name fragments of CJK fonts, used to register fonts installed after matplotlib built its
#: font cache (for example by ``apt-get install fonts-noto-cjk`` in the same session).
_FILE_HINTS = ("notosanscjk", "notoserifcjk", "sourcehansans", "wqy", "droidsansfallback", "sarasa",
               "notosanssc", "pingfang", "hiragino", "msyh")

INSTALL_HINT = (
    "Install a CJK font, then restart the kernel: on Debian or Ubuntu `sudo apt-get install fonts-noto-cjk` "
    "(the project's CI does this); macOS and Windows ship one (PingFang / Microsoft YaHei)."
)


_P = ParamSpec("_P")
_R = TypeVar("_R")
#: Text drawn from data is text: ``$x$`` in a page title or a keyphrase is neither mathtext (which
#: stops the drawing on an unknown command such as ``$\\notacommand$``) nor LaTeX.
TEXT_AS_TYPED: dict[RcKeyType, Any] = {"text.parse_math": False, "text.usetex": False}


def text_as_typed(plot: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a ``plot_*`` function: its figure is built under :data:`TEXT_AS_TYPED`, so every text
    artist of it (titles, labels, the tick labels drawn later from data categories) shows its text
    as typed. Every ``plot_*`` function of the atlas carries it (a test checks)."""

    @functools.wraps(plot)
    def as_typed(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with matplotlib.rc_context(TEXT_AS_TYPED):
            return plot(*args, **kwargs)

    as_typed.text_as_typed = True  # type: ignore[attr-defined]
    return as_typed


class CJKFontWarning(UserWarning):
    """No installed font covers Chinese and Japanese: CJK text in figures would show as boxes."""


def _covers(path: str, text: str) -> bool:
    from fontTools.ttLib import TTFont

    try:
        with TTFont(path, fontNumber=0, lazy=True) as font:  # fontNumber is ignored for single-font files
            cmap = font.getBestCmap() or {}
    except Exception:  # an unreadable or exotic font file is simply not a candidate
        return False
    return all(ord(char) in cmap for char in text if not char.isspace())


def _installed_families() -> set[str]:
    return {entry.name for entry in font_manager.fontManager.ttflist}


def _regular_file(family: str) -> str:
    properties = font_manager.FontProperties(family=family, weight="normal", style="normal")
    return font_manager.findfont(properties, fallback_to_default=False)


def _register_new_system_fonts() -> None:
    known = {entry.fname for entry in font_manager.fontManager.ttflist}
    for path in font_manager.findSystemFonts():
        if path not in known and any(hint in Path(path).name.lower() for hint in _FILE_HINTS):
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue


@lru_cache(maxsize=1)
def find_cjk_font() -> str | None:
    """The family name of an installed font covering Chinese and Japanese, or ``None``."""
    for attempt in range(2):
        families = _installed_families()
        for family in CJK_FONT_FAMILIES:
            if family in families and _covers(_regular_file(family), PROBE_TEXT):
                return family
        if attempt == 0:
            _register_new_system_fonts()
    return None


def use_cjk_font() -> str | None:
    """Make matplotlib draw Chinese and Japanese text; return the CJK font's family name.

    DejaVu Sans stays first for Latin text and the CJK font follows as the per-glyph fallback
    (fallback works across an explicit ``font.family`` list, not within the generic
    ``sans-serif`` list, so the family list is set directly).
    When no suitable font is installed this warns with :class:`CJKFontWarning` (saying what to
    install) and returns ``None``; figures still draw, with boxes for CJK characters.
    """
    family = find_cjk_font()
    if family is None:
        warnings.warn(f"No installed font covers Chinese and Japanese. {INSTALL_HINT}", CJKFontWarning, stacklevel=2)
        return None
    matplotlib.rcParams["font.family"] = ["DejaVu Sans", family, "sans-serif"]
    return family
