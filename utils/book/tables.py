"""Tables as a reader reads them: the one presentation layer every chapter uses.

Chapters compute with plain DataFrames and show them through :func:`table`, which formats with
pandas' :class:`~pandas.io.formats.style.Styler`: counts as integers with thousands separators,
shares as percentages with a stated precision, the unit in the column header, human labels for
rows and columns, an empty cell as a dash explained in a note below the table, and never a Python
repr. :func:`comparison` shows the one reported-versus-reproduced table
(:func:`utils.reported.compare`) with each source linked to the book's bibliography, and
:func:`checks_line` says in one sentence what the chapter's checks established.
"""

from __future__ import annotations

import functools
import html
import math
import numbers
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pandas as pd
from pandas.io.formats.style import Styler

from utils.declaration import LOWER_BOUND
from utils.reported import FAILED, HELD, NOT_CHECKED, QUOTED_ONLY, failures

#: Where the bibliography page lies relative to a chapter page (``notebooks/*.html``).
BIBLIOGRAPHY_URL = "../book/bibliography.html"
EMPTY = "–"
_DEFAULT_EMPTY_NOTE = "– no value (not applicable or not computed)"


@dataclass
class Table:
    """A formatted table: the Styler, plus the notes printed under it.

    Shows as HTML in Jupyter and in the book; :attr:`data` keeps the numbers for code.
    """

    styler: Styler
    notes: list[str] = field(default_factory=list)
    caption: str = ""

    @property
    def data(self) -> pd.DataFrame:
        return self.styler.data  # type: ignore[attr-defined]  # set by Styler, absent from its stubs

    def to_html(self) -> str:
        # the caption and notes stay in place while a wide table scrolls sideways on a phone
        caption = f'<p class="atlas-table-caption">{html.escape(self.caption)}</p>' if self.caption else ""
        notes = "".join(f"<li>{note}</li>" for note in self.notes)
        notes_html = f'<ul class="atlas-table-notes">{notes}</ul>' if notes else ""
        # a table wider than the column scrolls: focusable, so that a keyboard can scroll it, and named
        label = html.escape(self.caption or "Table", quote=True)
        table = (
            f'<div class="atlas-table-scroll" tabindex="0" role="region" aria-label="{label}">'
            f"{self.styler.to_html()}</div>"
        )
        return f'<div class="atlas-table">{caption}{table}{notes_html}</div>'

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.data.to_string()


def integer(value: object) -> str:
    """``18430`` or ``18430.0`` as ``18,430``; an empty value as a dash."""
    if _empty(value):
        return EMPTY
    return f"{round(float(value)):,}"  # type: ignore[arg-type]


def decimal(value: object, places: int = 2) -> str:
    """A number with ``places`` decimals and thousands separators (``61.21``, ``1,234.5``)."""
    if _empty(value):
        return EMPTY
    return _whole_if_round(f"{float(value):,.{places}f}")  # type: ignore[arg-type]


def median_count(value: object) -> str:
    """A median of counts: ``2`` when it is a count, ``2.5`` when it falls between two (never ``2.0``,
    which reads as a count printed as a float); an empty value as a dash."""
    if _empty(value):
        return EMPTY
    number = float(value)  # type: ignore[arg-type]
    return f"{number:,.0f}" if number.is_integer() else f"{number:,.1f}"


def percent(value: object, places: int = 1) -> str:
    """A share between 0 and 1 as a percentage without the sign (the header carries ``%``)."""
    if _empty(value):
        return EMPTY
    return _whole_if_round(f"{100 * float(value):,.{places}f}")  # type: ignore[arg-type]


def _whole_if_round(text: str) -> str:
    """``100.0`` as ``100``: three or more digits before a point and only zeros after it read as a
    count printed as a float (a BLEU of 100.0, an accuracy of 100.0%); ``61.0`` and ``0.50`` stay."""
    whole, _, fraction = text.partition(".")
    if fraction and not fraction.strip("0") and len(whole.lstrip("-").replace(",", "")) >= 3:
        return whole
    return text


def _empty(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isnan(float(value))


def _text(value: object) -> str:
    """Any other cell: text escaped, booleans as yes/no, numbers without a repr."""
    if _empty(value):
        return EMPTY
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return f"{float(value):,.3g}" if abs(float(value)) < 1000 else f"{float(value):,.0f}"
    if isinstance(value, (list, tuple, set, frozenset)):
        return breakable(html.escape(", ".join(str(item) for item in value)))
    return breakable(html.escape(str(value)))


#: A run of this many characters or more without a space (a path, a hash, a host name, an identifier
#: such as ``wizard_dialog_knowledge``) may break inside a table cell; a shorter word never does.
LONG_WORD = 16
_LONG_WORD = re.compile(rf"[^\s<>]{{{LONG_WORD},}}")
_BREAK_AFTER = re.compile(r"([/_])(?=[^\s])")


def breakable(escaped: str) -> str:
    """Escaped cell text whose long words may break, so that one path or hash does not widen a table
    past the page's column: ``<wbr>`` after each ``/`` and ``_`` of a long word (the places a reader
    expects a path or an identifier to break), and the word in a ``span.atlas-long-word``, which the
    book's CSS lets break anywhere when even those pieces are too wide. Short words stay as they are."""

    def mark(match: re.Match[str]) -> str:
        word = match.group(0)
        if len(html.unescape(word)) < LONG_WORD:  # an entity counts as the one character it shows
            return word
        pieces = _BREAK_AFTER.sub(r"\1<wbr>", word)
        return f'<span class="atlas-long-word">{pieces}</span>'

    return _LONG_WORD.sub(mark, escaped)


def _percent_cell(value: object, places: int) -> str:
    return percent(value, places)


def _decimal_cell(value: object, places: int) -> str:
    return decimal(value, places)


#: From this many columns on, a table is set in a smaller type (CSS class ``atlas-wide-table``).
MANY_COLUMNS = 9
#: The page's text column (688 px in a 1,280 px window) in ems of a table's type (0.9 of the body's 16 px).
COLUMN_EMS = 47.0
#: The widest a character of a header (bold) or of a cell is taken to be, and a cell's padding left and
#: right, in ems; measured on the book's tables, on the wide side so that a table that would not fit is
#: never taken for one that does.
_EMS_PER_HEADER_CHARACTER = 0.6
_EMS_PER_CHARACTER = 0.55
_EMS_OF_PADDING = 1.4
#: Where a line of a cell may break: spaces, hyphens and soft hyphens, the ``<wbr>`` of
#: :func:`breakable`, and any CJK character (Chinese and Japanese break between characters).
_CJK_RANGES = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_CJK = re.compile(f"[{_CJK_RANGES}]")
_UNBREAKABLE = re.compile(f"[^\\s\\-\u00ad{_CJK_RANGES}]+")
_TAG = re.compile(r"<[^>]*>")


def _narrowest_ems(text: str, *, unbroken: bool = False, per_character: float = _EMS_PER_CHARACTER) -> float:
    """How narrow a cell of ``text`` (HTML) can get, in ems: its longest run that cannot break."""
    shown = html.unescape(_TAG.sub(" ", text.replace("<wbr>", " ")))
    if unbroken:  # a CJK character is a full em wide
        return sum(1.0 if _CJK.match(character) else per_character for character in shown.strip())
    # a long word breaks anywhere (its span's CSS), so it counts as at most LONG_WORD characters
    longest = max((min(len(run), LONG_WORD) for run in _UNBREAKABLE.findall(shown)), default=0)
    return longest * per_character


def table_classes(columns: Sequence[tuple[str, Sequence[str], bool]]) -> str:
    """The classes of a publication table whose columns are ``columns``, each ``(header, its cells'
    HTML, whether its cells are kept on one line)``: the smaller type (``atlas-wide-table``) when even
    its narrowest layout, each column as wide as its longest unbreakable word plus padding, would run
    past the page's column, or when it has :data:`MANY_COLUMNS`. One rule for every table,
    :func:`table` and :func:`comparison` alike: the columns a reader cannot see without scrolling are
    often the ones that matter (Status, Source)."""
    narrowest = sum(
        _EMS_OF_PADDING
        + max(
            [
                _narrowest_ems(html.escape(header), per_character=_EMS_PER_HEADER_CHARACTER),
                *(_narrowest_ems(cell, unbroken=unbroken) for cell in cells),
            ]
        )
        for header, cells, unbroken in columns
    )
    wide = len(columns) >= MANY_COLUMNS or narrowest > COLUMN_EMS
    return "atlas-pub-table atlas-wide-table" if wide else "atlas-pub-table"


@dataclass(frozen=True)
class _Units:
    """How :func:`table` shows each column: the columns it was told are links, counts, shares or decimals."""

    links: frozenset[Hashable]
    integers: frozenset[Hashable]
    percents: dict[Any, int]
    decimals: dict[Any, int]

    def formatter(self, column: Hashable) -> Callable[[object], str]:
        """The cell formatter of ``column`` (a link first: a link column holds (text, URL) pairs)."""
        if column in self.links:
            return _link_cell
        if column in self.integers:
            return integer
        if column in self.percents:
            return functools.partial(_percent_cell, places=self.percents[column])
        if column in self.decimals:
            return functools.partial(_decimal_cell, places=self.decimals[column])
        return _text

    def numeric(self, column: Hashable) -> bool:
        return column in self.integers or column in self.percents or column in self.decimals


def _table_data(
    frame: pd.DataFrame | pd.Series,
    labels: Mapping[str, str] | None,
    row_labels: Mapping[Any, str] | None,
    index: bool | str,
    links: Mapping[str, str],
) -> pd.DataFrame:
    """The cells :func:`table` shows: the index as a first column when asked, link columns as (text, URL)
    pairs, and only the columns ``labels`` names (when given)."""
    data = frame.to_frame() if isinstance(frame, pd.Series) else frame.copy()
    if index:
        name = index if isinstance(index, str) else (data.index.name or "")
        data.index = [row_labels.get(item, item) if row_labels else item for item in data.index]
        data = data.reset_index(names=name or " ")
    elif row_labels:
        data.index = [row_labels.get(item, item) for item in data.index]
    for column, url_column in links.items():
        data[column] = [(text, url) for text, url in zip(data[column], data[url_column], strict=True)]
    if labels:
        keep = [column for column in data.columns if column in labels or (index and column == data.columns[0])]
        data = data[keep]
    return data


def _headers(columns: Iterable[Hashable], labels: Mapping[Any, str], percents: Mapping[Any, int]) -> dict[Any, str]:
    """Each column's header: its label (or its name with spaces), ``(%)`` added to a share's."""
    headers: dict[Any, str] = {}
    for column in columns:
        header = labels.get(column, str(column).replace("_", " "))
        if column in percents and "%" not in header:
            header = f"{header} (%)"
        headers[column] = header
    return headers


def _table_styler(
    data: pd.DataFrame,
    formatters: dict[Any, Callable[[object], str] | str | None],
    headers: Mapping[Any, str],
    unbroken_columns: list[Hashable],
    numeric: list[Hashable],
) -> Styler:
    """:func:`table`'s cells formatted, its headers escaped, its class chosen by its width, ``unbroken_columns``
    kept on one line and ``numeric`` ones aligned right."""
    styler = data.style.format(formatters).hide(axis="index")
    styler = styler.format_index(lambda name: html.escape(headers.get(name, str(name))), axis="columns")
    # a table too wide for the page's column is set smaller, so that it fits instead of scrolling
    shown = [
        (headers[column], [_shown(formatters[column], value) for value in data[column]], column in unbroken_columns)
        for column in data.columns
    ]
    styler = styler.set_table_attributes(f'class="{table_classes(shown)}"')
    if unbroken_columns:
        styler = styler.set_properties(subset=list[Hashable](unbroken_columns), **{"white-space": "nowrap"})
    if numeric:
        styler = styler.set_properties(subset=list[Hashable](numeric), **{"text-align": "right"})
    return styler


def table(
    frame: pd.DataFrame | pd.Series,
    *,
    labels: Mapping[str, str] | None = None,
    integers: Iterable[Hashable] = (),
    percents: Mapping[Any, int] | Iterable[Hashable] = (),
    decimals: Mapping[Any, int] | None = None,
    row_labels: Mapping[Any, str] | None = None,
    index: bool | str = False,
    caption: str = "",
    notes: Sequence[str] = (),
    empty_note: str = _DEFAULT_EMPTY_NOTE,
    links: Mapping[str, str] | None = None,
    unbroken: Iterable[Hashable] = (),
) -> Table:
    """Format ``frame`` for readers.

    ``labels`` renames (and orders: columns not named are dropped when given) the columns;
    ``integers`` are shown as whole numbers, ``percents`` (column -> decimals, default 1) as
    percentages with ``(%)`` added to the header, ``decimals`` (column -> places) as fixed-point
    numbers. ``row_labels`` renames index values. ``index`` keeps the index as the first column
    (``True``, or a string naming it). A note explaining the dash is added when a cell is empty.
    ``links`` maps a column to the column holding its URL: the cell becomes a link (only
    ``http(s)`` URLs; the URL column is shown only if ``labels`` names it). Text cells are
    HTML-escaped; ``notes`` and ``caption`` are trusted text written by the chapter (escaped too).
    ``unbroken`` columns keep each cell on one line (short labels, titles). A table too wide for the
    page's column is set in a smaller type (:func:`table_classes`).
    """
    url_columns = dict(links or {})
    data = _table_data(frame, labels, row_labels, index, url_columns)
    units = _Units(
        links=frozenset(url_columns),
        integers=frozenset(integers),
        percents=dict(percents) if isinstance(percents, Mapping) else dict.fromkeys(percents, 1),
        decimals=dict(decimals or {}),
    )
    formatters: dict[Any, Callable[[object], str] | str | None] = {
        column: units.formatter(column) for column in data.columns
    }
    headers = _headers(data.columns, labels or {}, units.percents)
    has_empty = bool(data.map(_empty).to_numpy().any()) if len(data.columns) else False
    styler = _table_styler(data, formatters, headers, [column for column in data.columns if column in set(unbroken)],
                           [column for column in data.columns if units.numeric(column)])
    all_notes = [html.escape(note) for note in notes]
    if has_empty and empty_note:
        all_notes.append(html.escape(empty_note))
    return Table(styler, all_notes, caption)


#: Units of a :class:`Column`: how its values are shown.
COUNT, PERCENT, DECIMAL, TEXT = "count", "percent", "decimal", "text"


@dataclass(frozen=True)
class Column:
    """How a table shows one column: its header and its unit.

    A dataset declares its columns once (a module-level ``COLUMNS`` mapping from a frame's column
    name to a :class:`Column`) and every table of the dataset takes headers and units from there
    (:func:`declared_table`). ``unit`` is :data:`COUNT` (whole numbers), :data:`PERCENT` (a share
    shown as a percentage with ``places`` decimals, ``(%)`` added to the header), :data:`DECIMAL`
    (``places`` decimals) or :data:`TEXT`.
    """

    label: str
    unit: str = TEXT
    places: int = 1


def declared_table(
    frame: pd.DataFrame | pd.Series,
    columns: Mapping[str, Column],
    names: Iterable[str] | None = None,
    **options: object,
) -> Table:
    """:func:`table` of ``frame`` with the headers and units declared in ``columns``.

    ``names`` are the columns shown (in the frame's order; by default every column of ``frame`` that
    ``columns`` declares); ``options`` are the other arguments of :func:`table` (``index``,
    ``caption``, ``notes``, ...).
    """
    present = [str(name) for name in (frame.columns if isinstance(frame, pd.DataFrame) else [frame.name])]
    chosen = [name for name in present if name in columns] if names is None else list(names)
    shown = {name: columns[name] for name in chosen}
    return table(
        frame,
        labels={name: column.label for name, column in shown.items()},
        integers=[name for name, column in shown.items() if column.unit == COUNT],
        percents={name: column.places for name, column in shown.items() if column.unit == PERCENT},
        decimals={name: column.places for name, column in shown.items() if column.unit == DECIMAL},
        **options,  # type: ignore[arg-type]
    )


def _shown(formatter: Callable[[object], str] | str | None, value: object) -> str:
    """A cell as :func:`table` shows it (HTML)."""
    return formatter(value) if callable(formatter) else _text(value)


def _link_cell(pair: object) -> str:
    from utils.book.render._html import esc, linked

    text, url = cast("tuple[object, str]", pair)
    return linked(breakable(esc(text)), url)


_STATUS_MARKS = {HELD: "✓ held", FAILED: "✗ failed", QUOTED_ONLY: "quoted only"}


def _status_text(status: str) -> str:
    return html.escape(_STATUS_MARKS.get(status, status))


def _source_link(source: str, key: str) -> str:
    return f'<a href="{BIBLIOGRAPHY_URL}#cite-{html.escape(key)}">{html.escape(source)}</a>'


def _tolerance(tolerance: float, show: Callable[[float], str]) -> str:
    if _empty(tolerance):
        return EMPTY
    return "exact" if tolerance == 0 else f"± {show(tolerance)}"


#: The column that holds values computed on a demo sample or a partial copy: never "Reproduced",
#: which holds only values computed on the complete official files. Its header names what the
#: values rest on (:func:`_not_the_dataset_header`).
NOT_THE_DATASET = "not the dataset"


def _not_the_dataset_header(kinds: set[str]) -> str:
    if kinds <= {"demo sample"}:
        return "On the demo sample (not the dataset)"
    if kinds <= {"partial"}:
        return "On the partial copy (not the whole dataset)"
    return "On the demo sample or partial copy (not the dataset)"
_NOT_REPRODUCED = {"demo sample": "not reproduced: demo sample", "partial": "not reproduced: partial copy"}


_COMPARISON_COLUMNS = ["Dataset", "Split", "Quantity", "ParlAI teacher", "Reported", "Reproduced", NOT_THE_DATASET,
                       "Tolerance", "Status", "Source"]


def _comparison_row(
    row: Any, rests_on: str, number: int, split_label: Callable[[str, str], str] | None
) -> dict[str, Any]:
    """One row of :func:`comparison`: a row of :func:`utils.reported.compare` as readers read it."""
    places = int(row.decimals)
    unit = f" {row.unit}" if row.unit and row.unit != "approx." else ""
    approx = "≈ " if row.unit == "approx." else ""

    def show(value: float) -> str:
        return EMPTY if _empty(value) else f"{value:,.{places}f}{unit}"

    lower_bound = getattr(row, "bound", "") == LOWER_BOUND
    if rests_on:  # a demo sample or a partial copy: words in "Reproduced", the value beside it
        kinds = rests_on.split(", ")
        reproduced = "; ".join(_NOT_REPRODUCED.get(kind, f"not reproduced: {kind}") for kind in kinds)
        elsewhere = show(row.reproduced)
    else:
        reproduced, elsewhere = show(row.reproduced), ""
    return {
        "Dataset": row.dataset,
        "Split": split_label(row.dataset, row.split) if split_label else row.split,
        "Quantity": row.quantity,
        "ParlAI teacher": row.teacher,
        "Reported": ("> " if lower_bound else approx) + show(row.reported),
        "Reproduced": reproduced,
        NOT_THE_DATASET: elsewhere,
        "Tolerance": "lower bound" if lower_bound else _tolerance(row.tolerance, show),
        "Status": row.status,
        "Source": (number, row.citation_key),
    }


def _comparison_styler(data: pd.DataFrame, compared: pd.DataFrame) -> Styler:
    """:func:`comparison`'s cells formatted: escaped text, linked sources, marked statuses, and each
    Reproduced cell classed with its row's dataset and split."""
    formatters: dict[Any, Callable[[object], str]] = {
        column: (lambda value: breakable(html.escape(str(value)))) for column in data.columns
    }
    formatters["Source"] = lambda pair: _source_link(f"[{pair[0]}]", pair[1])  # type: ignore[index]
    formatters["Status"] = lambda status: _status_text(str(status))
    styler = data.style.format(dict[Any, Callable[[object], str] | str | None](formatters)).hide(axis="index")
    shown = [(str(column), [formatters[column](value) for value in data[column]], False) for column in data.columns]
    styler = styler.set_table_attributes(f'class="{table_classes(shown)} atlas-comparison"')
    cell_classes = pd.DataFrame("", index=data.index, columns=data.columns)
    cell_classes["Reproduced"] = [
        f"atlas-data--{dataset}--{split}" for dataset, split in zip(compared["dataset"], compared["split"], strict=True)
    ]
    styler = styler.set_td_classes(cell_classes)
    numeric = [column for column in data.columns if column in ("Reported", "Reproduced", "Tolerance")
               or column.startswith("On the ")]
    return styler.set_properties(subset=list[Hashable](numeric), **{"text-align": "right"})


def _comparison_notes(compared: pd.DataFrame, computed_on: pd.Series, kinds_elsewhere: set[str]) -> list[str]:
    """The notes under :func:`comparison`'s table (plain text, escaped by the caller)."""
    # on a narrow screen the Status column may scroll out of view: the count stays under the table
    counts = compared["status"].str.split(":").str[0].value_counts()
    notes = ["Rows by status: " + ", ".join(f"{count} {status}" for status, count in counts.items())]
    if computed_on.astype(bool).any():
        notes.append(
            f"Reproduced holds only values computed on the complete official files; "
            f"“{_not_the_dataset_header(kinds_elsewhere)}” holds what the same code gives on the data loaded "
            "here: it shows that the code runs, not what the dataset is like"
        )
    if (compared["status"] == QUOTED_ONLY).any():
        notes.append("quoted only: a trained model's or the source's number, shown for reference, not reproduced")
    if compared["status"].str.startswith(NOT_CHECKED).any():
        notes.append("not checked: compared only on the full official files")
    for quantity, note in dict(zip(compared["quantity"], compared["note"], strict=True)).items():
        if note:
            notes.append(f"{quantity}: {note}")
    if (compared["unit"] == "approx.").any():
        notes.append("≈: the source gives a rounded figure")
    if "bound" in compared and (compared["bound"] == LOWER_BOUND).any():
        notes.append("lower bound: the source says “more than”; the check holds when the reproduced value is above it")
    return notes


def comparison(
    compared: pd.DataFrame,
    *,
    caption: str = "",
    show_dataset: bool = False,
    split_label: Callable[[str, str], str] | None = None,
) -> Table:
    """The reported-versus-reproduced table of :func:`utils.reported.compare`, for readers.

    Values are printed with the precision their source used (counts as integers), the unit in the
    value; the status reads ``✓ held``, ``✗ failed``, ``not checked: <why>`` or ``quoted only``.
    The ``Reproduced`` column holds only values computed on the complete official files: where a
    value rests on a demo sample or a partial copy, the cell says so in words and the value moves
    to a separate column headed :data:`NOT_THE_DATASET`, so a reader skimming the numbers never
    takes it for a reproduction.
    Sources are numbered: the cell holds ``[n]``, linked to the bibliography entry, and the note
    under the table gives each source in full once (a long source repeated in every row pushed the
    values off the page). A ``ParlAI teacher`` column appears when any row is a ParlAI count, and
    each row's ``note`` (what the number measures) is listed under the table. ``split_label`` names
    a ``(dataset, split)`` for readers (default: the split as it is). Each Reproduced cell carries
    the class ``atlas-data--<dataset>--<split>`` of its row, so a test of the built site can check
    it against what each split was built on.
    """
    numbers: dict[tuple[str, str], int] = {}
    for pair in zip(compared["source"], compared["citation_key"], strict=True):
        numbers.setdefault(pair, len(numbers) + 1)
    computed_on = compared["computed_on"] if "computed_on" in compared else pd.Series("", index=compared.index)
    # the cells are those compare() wrote, typed there; pandas' stubs know a row only as a union
    compared_rows: Iterable[Any] = compared.itertuples(index=False)
    rows = [
        _comparison_row(row, rests_on, numbers[(row.source, row.citation_key)], split_label)
        for row, rests_on in zip(compared_rows, computed_on, strict=True)
    ]
    data = pd.DataFrame(rows, columns=_COMPARISON_COLUMNS)
    if not show_dataset:
        data = data.drop(columns="Dataset")
    if not compared["teacher"].astype(bool).any():
        data = data.drop(columns="ParlAI teacher")
    kinds_elsewhere = {kind for value in computed_on if value for kind in value.split(", ")}
    if kinds_elsewhere:
        data = data.rename(columns={NOT_THE_DATASET: _not_the_dataset_header(kinds_elsewhere)})
    else:
        data = data.drop(columns=NOT_THE_DATASET)
    notes = _comparison_notes(compared, computed_on, kinds_elsewhere)
    sources = [f"{_source_link(f'[{number}]', key)} {html.escape(text)}" for (text, key), number in numbers.items()]
    return Table(_comparison_styler(data, compared), [*sources, *(html.escape(note) for note in notes)], caption)


def checks_line(*tables: pd.DataFrame) -> str:
    """One sentence on what the chapter's checks established, from its :func:`compare` tables.

    For example "12 checks held on the full official files." or "Checks not run: demo sample (7
    rows)." A check that fails (a reader's copy that differs from the official file: a smaller one, a
    later version) is named in the sentence rather than stopping the chapter; on the official files
    themselves each dataset's real-data tests hold every check.
    """
    held = sum(int((frame["status"] == HELD).sum()) for frame in tables)
    failed = pd.concat([failures(frame) for frame in tables]) if tables else pd.DataFrame()
    statuses = pd.concat([frame["status"] for frame in tables]) if tables else pd.Series(dtype=str)
    unchecked = statuses[statuses.str.startswith(NOT_CHECKED)]
    # "demo sample, partial" and "demo sample" name the same two reasons once each
    reasons = sorted({reason for status in unchecked for reason in status.split(": ", 1)[1].split(", ")})
    parts = []
    if held:
        parts.append(f"{held} check{'s' if held != 1 else ''} held on the full official files")
    if len(failed):
        listed = "; ".join(f"{row.dataset}/{row.split} {row.quantity}: reported {row.reported:,g}, here "
                           f"{row.reproduced:,g}" for row in failed.itertuples())
        parts.append(f"{len(failed)} check{'s' if len(failed) != 1 else ''} did not hold: these files differ "
                     f"from the official ones ({listed})")
    if len(unchecked):
        parts.append(
            f"{len(unchecked)} number{'s' if len(unchecked) != 1 else ''} not checked ({'; '.join(reasons)})"
        )
    if not parts:
        return "No reported number is reproducible from the files loaded here."
    sentence = "; ".join(parts)
    return sentence[0].upper() + sentence[1:] + "."


@dataclass(frozen=True)
class ChecksNote:
    """:func:`checks_line` as a visible one-line note (HTML in the book, text in a terminal)."""

    text: str

    def _repr_html_(self) -> str:
        return f'<p class="atlas-checks" role="note">{html.escape(self.text)}</p>'

    def __repr__(self) -> str:
        return self.text


def checks_note(*tables: pd.DataFrame) -> ChecksNote:
    """Every check of the chapter's :func:`~utils.reported.compare` tables, and what held, in one note."""
    return ChecksNote(checks_line(*tables))


def scored_table(scored: Mapping[str, Any], *, caption: str = "") -> Table:
    """Predictions scored by :func:`utils.scoring.score` (``name -> Scores``, all of one task and
    split) for readers: one row per metric variant, one column per set of predictions with its value
    and bootstrap interval, and the definition each variant follows. The notes give the bootstrap,
    anything the scores must be read with, and the command that scores a reader's own file."""
    from utils.book.figures import data_caveat

    runs = list(scored.values())
    if not runs:
        raise ValueError("no scores to show")
    first = runs[0]
    if any((run.dataset, run.split, run.task.name) != (first.dataset, first.split, first.task.name) for run in runs):
        raise ValueError("the scores shown side by side must be of one dataset, split and task")
    names = [item.metric.name for item in first.metrics]
    if any([item.metric.name for item in run.metrics] != names for run in runs):
        raise ValueError("the scores shown side by side must have the same metrics (all with weights, or none)")
    frame = pd.DataFrame({"metric": [item.metric.name for item in first.metrics]})
    for name, run in scored.items():
        frame[name] = [_interval_cell(item.value, item.low, item.high) for item in run.metrics]
    frame["definition"] = [item.metric.source for item in first.metrics]
    unit = "dialogues" if first.unit == "dialogue" else "examples"
    notes = [
        f"In brackets: {first.level:.0%} percentile bootstrap intervals, {first.resamples:,} resamples of "
        f"{unit}, seed {first.seed}.",
        *[f"{name}: {run.coverage_note()}" for name, run in scored.items() if run.partial],
        *first.notes,
        f"Your model: write its predictions in this format ({first.task.format}) and run "
        f"atlas score {first.dataset} {first.split} predictions.jsonl --task {first.task.name}",
    ]
    provenances = [run.gold.split.provenance for run in runs if run.gold.split is not None]
    return table(frame, unbroken=["metric"], caption=f"{data_caveat(provenances)} {caption}".strip(), notes=notes)


def _interval_cell(value: float, low: float, high: float) -> str:
    if math.isnan(value):
        return ""
    if math.isnan(low):
        return f"{value:.3f}"
    return f"{value:.3f} ({low:.3f}–{high:.3f})"
