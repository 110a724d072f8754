"""The ``atlas`` command (also ``python -m utils``): the public API from the shell.

::

    atlas status                                  # what each split would be built on now
    atlas fetch DATASET [SPLIT ...]               # download and verify official files (or: --all)
    atlas show DATASET SPLIT 0                    # a dialogue with its evidence and labels
    atlas show DATASET SPLIT --search WORDS       # or: --random 3
    atlas stats DATASET SPLIT                     # utterances, tokens, unique tokens, labels
    atlas export DATASET SPLIT --to parquet       # the common records, one documented schema
    atlas croissant DATASET --out FILE            # the dataset's Croissant 1.1 card (JSON-LD)
    atlas score DATASET SPLIT PREDICTIONS         # your model's outputs scored (utils.scoring)

Every command has ``--help``. Exit status: 0 success; 1 a failure while running (a download that
failed, a file that is missing offline, an output path that cannot be written, a malformed data
or predictions file); 2 a wrong command line (an unknown dataset or split, whose message lists the
valid names, an index out of range, or a predictions file that does not cover the split).

The command is thin: it calls :func:`utils.load`, :func:`utils.data_status`, the download layer
(:mod:`utils._download`, verified and atomic, with progress bars) and the registry
(:mod:`utils.sources`), and prints with `rich <https://rich.readthedocs.io>`_, which measures
Chinese and Japanese characters as two columns so that text stays aligned. Dataset text is
untrusted: control characters are replaced before it reaches the terminal.

Export schema
-------------
``atlas export`` writes one record per dialogue (a WoW conversation, a FaithDial dialogue, an audit
row, a WISE conversation, a JWHR session), the common records of :mod:`utils.records`:

========================  =======================  ==============================================
field                     type                     meaning
========================  =======================  ==============================================
``dataset``               string                   dataset name (``atlas status`` lists them)
``split``                 string                   split name
``index``                 int64                    position of the dialogue in the split (0-based)
``id``                    string                   the dialogue's id in the original file
``topic``                 string or null           the dialogue's topic, where the dataset has one
``meta``                  object (JSON text)       the dialogue's other original fields
``turns``                 list of turn             the turns in order
turn ``index``            int32                    position of the turn in the dialogue
turn ``role``             string                   ``seeker`` or ``wizard`` (normalised role)
turn ``speaker``          string                   the speaker as the original file names it
turn ``text``             string                   the utterance
turn ``labels``           scheme -> [string]       the dataset's labels of the turn, by scheme
turn ``evidence``         list of evidence         knowledge shown to the speaker at this turn
evidence ``id``           string                   stable id within the dialogue
evidence ``title``        string or null           page or passage title
evidence ``origin``       string                   the channel it came through (``topic``, ...)
evidence ``text``         string                   the sentence, passage, quote or summary
evidence ``selected``     bool                     chosen or cited by the speaker
evidence ``meta``         object (JSON text)       the evidence's other original fields
``provenance``            struct                   where the split came from (same in every row)
provenance ``kind``       string                   ``official``, ``user copy``, ``partial``,
                                                   ``demo sample`` or ``synthetic``
provenance ``checksum``   string                   ``verified``, ``unverified`` or ``mismatch``
provenance ``source``     string                   the file that was parsed, as ``$ATLAS_DATA_DIR/<its path>``
provenance ``size_bytes`` int64                    its size
provenance ``dialogues``  int64                    records in the split
provenance ``turns``      int64                    turns in the split
========================  =======================  ==============================================

In JSON Lines (``--to jsonl``, UTF-8, one record per line) ``meta`` fields are JSON objects and
``labels`` an object of lists (``{"BEGIN": ["Hallucination"]}``). Parquet (``--to parquet``) has the
same fields with the Arrow types above (:data:`utils.records.RECORD_SCHEMA`, the schema
``LoadedSplit.to_hf_dataset("records")`` hands to ``datasets`` too); there ``meta`` fields are JSON text,
because their keys differ from record to record, and ``labels`` is a list of ``{name, values}``
(``[{"name": "BEGIN", "values": ["Hallucination"]}]``), which pandas, pyarrow and ``datasets`` all
read (``datasets`` has no map type). The output is written to a temporary file beside the target and moved into place
only when complete, so an interrupted export never leaves a partial file under the target's name.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import random
import re
import stat
import sys
import tempfile
import textwrap
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Only what every command needs: the loader (pandas, pyarrow) and the download layer are imported by the
# commands that use them, so that `atlas --help` and a wrong command line answer at once.
from utils import __version__, config
from utils.errors import AtlasError, DataUnavailableError, DownloadError, UnknownNameError
from utils.records import ROLES, Dialogue, Turn
from utils.sources import SourceFile, dataset_names, get_source, get_split_files, registry, source_of

if TYPE_CHECKING:
    from utils.loading import LoadedSplit
    from utils.sources import DatasetSource

PROG = "atlas"
#: Dialogues per Parquet row group (and per batch converted to Arrow) when exporting.
_EXPORT_BATCH = 512



def _banner(kind: str) -> str | None:
    """What a provenance line opens with for data that is not the whole official split."""
    from utils.loading import DEMO, PARTIAL, SYNTHETIC

    banners = {
        DEMO: "DEMO SAMPLE, not the dataset",
        PARTIAL: "PARTIAL data",
        SYNTHETIC: "SYNTHETIC benchmark data, not the dataset",
    }
    return banners.get(kind)


def load(dataset: str, split: str) -> LoadedSplit:
    """:func:`utils.load`, imported when a command first loads a split."""
    from utils.loading import load as load_split

    return load_split(dataset, split)


def export_records(split: LoadedSplit, *, parquet: bool = False) -> Iterator[dict[str, Any]]:
    """:func:`utils.loading.export_records`, imported when a command first exports."""
    from utils.loading import export_records as records_of

    return records_of(split, parquet=parquet)
# C0/C1 control characters (an escape sequence could rewrite the terminal) and the bidirectional
# overrides (they reorder what is shown); newlines and tabs stay.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class _ReaderGone(Exception):
    """Standard output was closed by its reader (``atlas show ... | head``)."""


class UsageError(AtlasError):
    """A command line that cannot be carried out as given: conflicting options, an index out of range
    (exit status 2, like argparse's own errors)."""


# -- output helpers -----------------------------------------------------------------------------------


def _console(*, stderr: bool = False) -> Any:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich exits with status 1 here; main() treats a reader that stopped reading as success
            self.quiet = True
            raise _ReaderGone

    # highlight=False: rich would otherwise colour numbers and quotes inside dataset text; emoji=False:
    # ":smile:" in a dialogue stays as typed.
    return _Console(highlight=False, emoji=False, stderr=stderr)


def clean(text: object) -> str:
    """``text`` with control characters and bidirectional overrides replaced, safe for a terminal."""
    return _UNSAFE.sub("\N{REPLACEMENT CHARACTER}", "" if text is None else str(text))


def _text(value: object, style: str = "") -> Any:
    from rich.text import Text

    return Text(clean(value), style=style)


def _load(dataset: str, split: str) -> LoadedSplit:
    """:func:`utils.load` with names checked first and the demo-data warning said in one line."""
    get_split_files(dataset, split)  # an UnknownNameError (exit 2) before anything is touched
    with _warnings_said():
        return load(dataset, split)


@contextlib.contextmanager
def _warnings_said() -> Iterator[None]:
    """Loading inside this block says its warnings on stderr, one line each."""
    from utils.loading import DemoDataWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    # The provenance line says what was loaded; why it is the demo sample goes to stderr, once.
    # Every other warning (a cache that could not be used or written, a copy that differs from the
    # official file) is said too, one line each: recorded but unsaid, it would be lost.
    for warning in caught:
        if issubclass(warning.category, DemoDataWarning):
            print(f"{PROG}: {clean(warning.message)} `{PROG} status` lists what is in place.", file=sys.stderr)
        else:
            print(f"{PROG}: warning: {clean(warning.message)}", file=sys.stderr)


def _provenance_line(split: LoadedSplit) -> Any:
    from rich.text import Text

    banner = _banner(split.provenance.kind)
    line = Text()
    if banner:
        line.append(f"{banner}: ", style="bold reverse")
    line.append(clean(split.provenance.summary()), style="dim" if not banner else "")
    return line


# -- status ---------------------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace) -> int:
    # The light rows, not utils.data_status's frame: pandas and pyarrow cost a second here (issue 50).
    from utils.split_files import NOT_DATA, not_data, status_rows

    if args.sizes:
        return _status_sizes()
    splits = status_rows()
    data_directory = config.data_dir()
    problem = config.data_dir_problem(data_directory)
    if args.json:
        report = {"data_dir": str(data_directory), "splits": splits}
        print(json.dumps({**report, "problem": problem} if problem else report, ensure_ascii=False))
        return 0
    console = _console()
    downloads = f"off (${config.OFFLINE_ENV} is set)" if config.offline() else "allowed"
    heading = [f"data directory: {data_directory}", f"downloads: {downloads}"]
    if len("   ".join(heading)) <= console.width:
        console.print(_text("   ".join(heading)))
    else:  # a line each, never "downloads:" at one line's end and its value at the next's start
        for line in heading:
            console.print(_text(line), soft_wrap=True)  # a path is never broken in two
    if problem:
        console.print(_text(f"{problem[0].upper()}{problem[1:]}.", "bold red"))
    rows = []
    for row in splits:
        path = Path(row["path"])
        with contextlib.suppress(ValueError):
            path = path.relative_to(data_directory)
        rows.append((clean(row["dataset"]), clean(row["split"]), clean(row["status"]), clean(path.as_posix())))
    _status_rows(console, rows)
    for row in splits:
        if row["status"] == NOT_DATA:
            console.print(
                _text(
                    f"{row['dataset']}/{row['split']}: {row['path']} holds {not_data(Path(row['path']))}. Delete it "
                    f"and run `{PROG} fetch {row['dataset']}`.",
                    "red",
                )
            )
    if config.offline():
        getting = (
            f"Downloads are off: unset ${config.OFFLINE_ENV} for `atlas fetch DATASET`, or put the files "
            "in place by hand (the book's page 'Getting the data' says where each comes from)."
        )
    else:
        getting = "`atlas fetch DATASET` downloads and verifies them."
    console.print(
        _text(
            "official file present: a file is in place (checked when a split is loaded); demo sample: "
            f"no file, a split would use the atlas's demo sample. {getting}"
        )
    )
    return 0


def _status_sizes() -> int:
    """The book's status panel in the terminal: one line per dataset, each split coloured by what it
    would be built on (official green, partial yellow, demo red), with its size against the reported one."""
    from utils.book.built_on import build_status_frame, chip_size

    console = _console()
    colours = {"official": "green", "partial": "yellow", "demo": "red", "synthetic": "red", "missing": "red"}
    frame = build_status_frame()
    for dataset, rows in frame.groupby("dataset", sort=False):
        line = _text(f"{clean(dataset)}: ", "bold")
        for position, row in enumerate(rows.to_dict("records")):
            line.append(" | " if position else "")
            line.append(clean(f"{row['split']} "))
            line.append(clean(row["chip"]), style=colours.get(row["chip"], ""))
            line.append(clean(f" {chip_size(row)}"))
            if row["other rows"]:
                line.append(clean(f" ({row['other rows']})"))
        console.print(line)
    return 0


def _status_rows(console: Any, rows: list[tuple[str, str, str, str]]) -> None:
    """One table row per split where the widest row fits the terminal; else each file name on a line
    of its own, so that no file name is ever broken in two."""
    from rich import box
    from rich.table import Table

    from utils.split_files import DEMO, NOT_DATA, PARTIAL

    styles = {"official file present": "green", PARTIAL: "yellow", DEMO: "red", "missing": "red", NOT_DATA: "red"}
    headers = ("dataset", "split", "status", "file in the data directory")
    widths = [max(len(header), *(len(row[column]) for row in rows)) for column, header in enumerate(headers)]
    if sum(widths) + 2 * (len(widths) - 1) <= console.width:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        for header in headers:
            table.add_column(header, no_wrap=True)
        for dataset, split, status, path in rows:
            table.add_row(_text(dataset), _text(split), _text(status, styles.get(status, "")), _text(path))
        console.print(table)
        return
    for dataset, split, status, path in rows:
        line = _text(f"{dataset}/{split}: ")
        line.append(status, style=styles.get(status, ""))
        console.print(line)
        console.print(_text(f"    {path}"), soft_wrap=True)


# -- fetch ----------------------------------------------------------------------------------------------


def _fetch_targets(args: argparse.Namespace) -> list[tuple[str, SourceFile]]:
    """``(label, file)`` for every complete official file the command line names, without repeats."""
    if args.all:
        if args.dataset:
            raise UsageError("give either --all or a DATASET, not both")
        wanted = [(name, list(get_source(name).splits), True) for name in dataset_names()]
    elif not args.dataset:
        raise UsageError(f"name a DATASET (one of: {', '.join(dataset_names())}) or give --all")
    else:
        source = get_source(args.dataset)
        splits = args.splits or list(source.splits)
        for split in splits:
            get_split_files(args.dataset, split)
        wanted = [(args.dataset, splits, not args.splits)]
    targets: dict[str, tuple[str, SourceFile]] = {}
    for dataset, splits, with_extras in wanted:
        for split in splits:
            for item in get_split_files(dataset, split):
                if not item.partial:  # published samples have no source to fetch
                    for part in item.all_parts():  # each file of a split spread over several
                        targets.setdefault(part.path, (f"{dataset}/{split}", part))
        if with_extras:
            for name, item in get_source(dataset).extra_files.items():
                targets.setdefault(item.path, (f"{dataset} ({name})", item))
    return list(targets.values())


def how_to_get(item: SourceFile, data_directory: Path) -> str:
    """How to place one official file by hand, from the registry (URL, archive member or Drive folder)."""
    from utils import _download

    target = data_directory / item.path
    if item.url:
        check = f" Its sha256 is {item.sha256}." if item.sha256 else ""
        return f"download {item.url} and save it as {target}.{check}"
    if item.archive:
        archive = item.archive
        check = f" (sha256 {archive.sha256})" if archive.sha256 else ""
        return (
            f"download {archive.url}{check}, unpack it, and place its file {Path(item.path).name} at {target} "
            f"(the other files of the archive go beside it)."
        )
    if item.gdrive_folder:
        return (
            f"open https://drive.google.com/drive/folders/{item.gdrive_folder} in a browser, download "
            f"{Path(item.path).name} and place it at {target}. {_download._BAIDU_NOTE}"
        )
    return f"place the file at {target} by hand."


def _by_hand(items: list[SourceFile], data_directory: Path) -> list[str]:
    """How to place the files of a failed ``atlas fetch`` by hand: one instruction per source (a
    Drive folder or an archive holds several files), in the order the files were listed."""
    from utils import _download

    groups: dict[str, list[SourceFile]] = {}
    for item in items:
        key = item.url or (item.archive.url if item.archive else None) or f"gdrive:{item.gdrive_folder}"
        groups.setdefault(key, []).append(item)
    lines = []
    for group in groups.values():
        first = group[0]
        if first.gdrive_folder and len(group) > 1:
            folder = (data_directory / first.path).parent
            names = ", ".join(Path(item.path).name for item in group)
            lines.append(
                f"open https://drive.google.com/drive/folders/{first.gdrive_folder} in a browser, download "
                f"{names} and place them in {folder}. {_download._BAIDU_NOTE}"
            )
        else:
            lines.append(how_to_get(first, data_directory))
    return lines


def cmd_fetch(args: argparse.Namespace) -> int:
    from utils import _download

    targets = _fetch_targets(args)
    data_directory = config.data_dir()
    console = _console()

    def say(line: str, style: str = "") -> None:
        console.print(_text(line, style), soft_wrap=True)  # never break a URL or a path in two

    say(f"data directory: {data_directory}")
    problem = config.data_dir_problem(data_directory)
    if problem:
        say(f"{problem[0].upper()}{problem[1:]}: create it first, or point ${config.DATA_DIR_ENV} at it.", "red")
        return 1
    failed: list[SourceFile] = []
    for label, item in targets:
        target = data_directory / item.path
        if target.is_file():
            status = _download.local_status(item, target, data_directory)
            note = " (it differs from the official file: delete it to download again)" if status == "mismatch" else ""
            say(f"present   {label}: {item.path} ({status}){note}", "red" if note else "green")
            continue
        if not config.offline():
            say(f"fetching  {label}: {item.path}")
        try:
            # Offline, the download layer refuses every host but this machine's (the tests' servers).
            path = _download.fetch(item, data_directory)
        except (DownloadError, DataUnavailableError) as exc:
            failed.append(item)
            if config.offline() and isinstance(exc, DataUnavailableError):
                say(f"missing   {label}: {item.path}; downloads are off (${config.OFFLINE_ENV} is set).", "red")
            else:
                say(f"failed    {label}: {_download.short_reason(exc)}", "red")
            continue
        say(f"fetched   {label}: {item.path} ({_download.local_status(item, path, data_directory)})", "green")
    if failed:
        say("By hand:")
        for line in _by_hand(failed, data_directory):
            say(f"  - {line}")
    done = len(targets) - len(failed)
    say(f"{done} of {len(targets)} files in place" + (f"; {len(failed)} missing" if failed else ""))
    return 1 if failed else 0


# -- show -----------------------------------------------------------------------------------------------


def _search_text_for(source: DatasetSource) -> Callable[[Dialogue], str]:
    """What ``--search`` matches: the same text as the dataset's viewer in Jupyter searches."""
    from utils.book.render.chapter_view import default_search_text

    return source.search_text or default_search_text


#: The most characters ``show`` prints of one field: a terminal (and rich's line wrapping) would
#: take minutes over a field of millions of characters, and nobody reads past a screenful or two.
SHOW_CHARACTERS = 10_000


def shown_text(value: object, limit: int = SHOW_CHARACTERS) -> str:
    """``value`` made safe for a terminal (:func:`clean`), cut to ``limit`` characters saying how many
    more there are and where to read them whole."""
    text = "" if value is None else str(value)
    if len(text) <= limit:
        return clean(text)
    return (
        f"{clean(text[:limit])}… [{len(text) - limit:,} more characters not shown, {len(text):,} in all; "
        f"`{PROG} export` writes the whole field]"
    )


def _turn_renderables(source: DatasetSource, turn: Turn, evidence_limit: int | None) -> list[Any]:
    from rich.padding import Padding
    from rich.text import Text

    from utils.cli.split_stats import _label_values

    header = Text()
    header.append(f"{turn.index:>3} ", style="dim")
    header.append(clean(turn.role), style="bold cyan" if turn.role == ROLES[0] else "bold magenta")
    header.append(f" · {shown_text(turn.speaker)}", style="dim")
    parts: list[Any] = [header, Padding(Text(shown_text(turn.text or "(empty)")), (0, 0, 0, 4), expand=False)]
    for key, values in turn.labels.items():
        shown = shown_text(", ".join(str(v) for v in _label_values(source, key, values)))
        parts.append(
            Padding(Text.assemble(("label ", "dim"), (clean(key), "bold"), f": {shown}"), (0, 0, 0, 4), expand=False)
        )
    if turn.evidence:
        selected = sum(item.selected for item in turn.evidence)
        parts.append(
            Padding(
                _text(f"evidence: {len(turn.evidence)} shown to the speaker, {selected} selected", "underline"),
                (0, 0, 0, 4),
                expand=False,
            )
        )
        unselected_left = evidence_limit
        hidden = 0
        for item in turn.evidence:
            if not item.selected:
                if unselected_left is not None and unselected_left <= 0:
                    hidden += 1
                    continue
                if unselected_left is not None:
                    unselected_left -= 1
            # Selection is said in a symbol and a word, never by colour alone.
            mark = Text("✔ SELECTED ", style="bold green") if item.selected else Text("· ", style="dim")
            where = " · ".join(shown_text(x) for x in (item.origin, item.title) if x)
            mark.append(f"[{shown_text(item.id)}] {where}", style="bold" if item.selected else "")
            parts.append(Padding(mark, (0, 0, 0, 6), expand=False))
            parts.append(Padding(Text(shown_text(item.text)), (0, 0, 0, 8), expand=False))
        if hidden:
            parts.append(
                Padding(
                    _text(f"… {hidden} more not selected (show them with --evidence all)", "dim"),
                    (0, 0, 0, 6),
                    expand=False,
                )
            )
    return parts


def dialogue_renderable(dialogue: Dialogue, index: int, total: int, *, evidence_limit: int | None = 3) -> Any:
    """A rich renderable of one dialogue: header, turns, labels and evidence, selected ones marked."""
    from rich.console import Group
    from rich.rule import Rule
    from rich.text import Text

    title = f"{dialogue.dataset}/{dialogue.split} · #{index} of {total:,} (counted from 0) · id {dialogue.id}"
    items: list[Any] = [Rule(Text(shown_text(title)), align="left")]
    if dialogue.topic:
        items.append(Text.assemble(("topic ", "dim"), (shown_text(dialogue.topic), "bold")))
    scalars = {k: v for k, v in dialogue.meta.items() if isinstance(v, str | int | float | bool) and v != ""}
    if scalars:
        # a flag reads as a word, not as Python's True/False
        words = {k: ("yes" if v else "no") if isinstance(v, bool) else clean(str(v)[:60]) for k, v in scalars.items()}
        shown = "; ".join(f"{clean(k)}: {word}" for k, word in words.items())
        items.append(_text(f"meta {shown}", "dim"))
    source = source_of(dialogue)  # once per dialogue, not once per label of every turn
    for turn in dialogue.turns:
        items.extend(_turn_renderables(source, turn, evidence_limit))
    return Group(*items)


def _evidence_limit(value: str) -> int | None:
    if value == "all":
        return None
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'all', not {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError("expected a number >= 0 or 'all'")
    return number


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, not {number}")
    return number


def _pick(split: LoadedSplit, args: argparse.Namespace) -> tuple[list[int], str]:
    """The indices to show and a line saying how they were chosen."""
    total = len(split)
    unit = split.source.record_unit
    if args.search is not None:
        query = args.search.strip().lower()
        search_text = _search_text_for(split.source)
        matches = [i for i, dialogue in enumerate(split) if query in search_text(dialogue).lower()]
        shown = matches[: args.limit]
        return shown, f"{len(matches)} of {total} {unit} match {args.search!r}; showing {len(shown)}"
    if args.random is not None:
        count = min(args.random, total)
        chosen = random.Random(args.seed).sample(range(total), count)
        return chosen, f"{count} random {unit} of {total}"
    index = args.index if args.index is not None else 0
    if not -total <= index < total:
        raise UsageError(
            f"index {index} is out of range: {split.dataset}/{split.split} has {total} {unit} (0-{total - 1})"
        )
    return [index % total], f"{total} {unit} in the split"


def cmd_show(args: argparse.Namespace) -> int:
    split = _load(args.dataset, args.split)
    indices, how = _pick(split, args)
    console = _console()
    console.print(_provenance_line(split))
    console.print(_text(how, "dim"))
    for index in indices:
        console.print(dialogue_renderable(split[index], index, len(split), evidence_limit=args.evidence))
    return 0


# -- stats ----------------------------------------------------------------------------------------------


def cmd_stats(args: argparse.Namespace) -> int:
    from utils.cli.split_stats import evidence_counts, label_counts, role_counts

    split = _load(args.dataset, args.split)
    source = split.source
    unit = "words" if source.language_code == "en" else "characters"
    roles, labels, evidence = role_counts(split), label_counts(split), evidence_counts(split)
    if args.json:
        result = {
            "dataset": split.dataset,
            "split": split.split,
            "provenance": {"kind": split.provenance.kind, "summary": split.provenance.summary()},
            "dialogues": len(split),
            "token_unit": unit,
            "roles": roles,
            "labels": labels,
            "evidence": evidence,
        }
        print(json.dumps(result, ensure_ascii=False))
        return 0
    from rich.table import Table

    console = _console()
    console.print(_provenance_line(split))
    console.print(_text(f"{len(split):,} {source.record_unit}; tokens are {unit} ({source.language})"))
    table = Table(title="Utterances per role", title_justify="left")
    for column in roles[0]:
        table.add_column(column, justify="left" if column == "role" else "right")
    for row in roles:
        table.add_row(
            *(f"{v:,.2f}" if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else v for v in row.values())
        )
    console.print(table)
    if labels:
        table = Table(title="The dataset's labels", title_justify="left")
        for column in ("scheme", "label", "count", "of"):
            table.add_column(column, justify="right" if column == "count" else "left")
        for row in labels:
            table.add_row(_text(row["scheme"]), _text(row["label"]), f"{row['count']:,}", row["unit"])
        console.print(table)
    if evidence:
        table = Table(title="Evidence per origin", title_justify="left")
        for column in ("origin", "shown", "selected"):
            table.add_column(column, justify="left" if column == "origin" else "right")
        for row in evidence:
            table.add_row(_text(row["origin"]), f"{row['shown']:,}", f"{row['selected']:,}")
        console.print(table)
    return 0


# -- export ---------------------------------------------------------------------------------------------


def _batches(records: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for record in records:
        batch.append(record)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


#: ``--out -``: the export goes to standard output, and what the command says goes to standard error.
STDOUT = "-"


def _written_in_place(out: Path) -> bool:
    """True when ``out`` is written directly, not replaced: standard output (``-``), or something that
    exists and is not a regular file (a device such as ``/dev/null``, a FIFO, a terminal)."""
    if str(out) == STDOUT:
        return True
    try:
        return not stat.S_ISREG(out.stat().st_mode)  # follows links: /dev/stdout is its target
    except OSError:
        return False


def _replaced_file(out: Path) -> Path:
    """The regular file an atomic write of ``out`` replaces: a link's target, so the link stays."""
    return Path(os.path.realpath(out)) if out.is_symlink() else out


def _is_link_loop(path: Path) -> bool:
    """True when ``path`` is a symbolic link that never reaches a file (it leads back to itself)."""
    try:
        path.stat()
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def check_output_path(out: Path) -> None:
    """Raise :class:`OSError` with a clear message when ``out`` cannot be written as a file."""
    if str(out) != STDOUT and _is_link_loop(out):
        # replacing the link by a file would lose it, and following it never ends
        raise OSError(f"cannot write {out}: it is a symbolic link loop (a link that leads back to itself)")
    if _written_in_place(out):
        if str(out) != STDOUT and out.is_dir():
            raise OSError(f"cannot write {out}: it is a directory (give a file name with --out)")
        return
    out = _replaced_file(out)
    if out.is_dir():
        raise OSError(f"cannot write {out}: it is a directory (give a file name with --out)")
    if out.parent.exists() and not out.parent.is_dir():
        raise OSError(f"cannot write {out}: {out.parent} is not a directory")
    if not out.parent.is_dir():
        raise OSError(f"cannot write {out}: the directory {out.parent} does not exist")
    read_only = False
    with contextlib.suppress(OSError, AttributeError):  # statvfs: not on every platform
        read_only = bool(os.statvfs(out.parent).f_flag & os.ST_RDONLY)
    if read_only:
        raise OSError(f"cannot write {out}: {out.parent} is on a read-only file system")
    if not os.access(out.parent, os.W_OK):
        raise OSError(f"cannot write {out}: no permission to write in {out.parent}")


def _write_records(split: LoadedSplit, handle: Any, fmt: str) -> int:
    """Write the split to an open binary ``handle``; return the number of records."""
    count = 0
    if fmt == "jsonl":
        for record in export_records(split):
            handle.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
            count += 1
        return count
    import pyarrow as pa
    import pyarrow.parquet as pq

    from utils.records import RECORD_SCHEMA

    with pq.ParquetWriter(pa.PythonFile(handle, mode="w"), RECORD_SCHEMA, compression="zstd") as writer:
        for batch in _batches(export_records(split, parquet=True), _EXPORT_BATCH):
            writer.write_table(pa.Table.from_pylist(batch, schema=RECORD_SCHEMA))
            count += len(batch)
        if not count:  # an empty split still gives a readable file with the schema
            writer.write_table(RECORD_SCHEMA.empty_table())
    return count


def write_export(split: LoadedSplit, out: Path, fmt: str) -> int:
    """Write the split to ``out`` as ``jsonl`` or ``parquet``; return the number of records.

    A regular file (or a new one) is written through a temporary file and replaced at once, so a
    failure leaves the old file whole; a link is followed and its target replaced. Standard output
    (``-``), devices and FIFOs are written to directly: replacing ``/dev/null`` would turn the device
    into a file.
    """
    from utils._cache import describe_os_error

    out = Path(out)
    check_output_path(out)
    if str(out) == STDOUT:
        sys.stdout.flush()
        return _write_records(split, sys.stdout.buffer, fmt)
    if _written_in_place(out):
        with open(out, "wb") as handle:
            return _write_records(split, handle, fmt)
    out = _replaced_file(out)
    try:
        descriptor, name = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".part")
    except OSError as exc:
        raise OSError(f"cannot write {out}: {describe_os_error(exc)}") from exc
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            count = _write_records(split, handle, fmt)
        # mkstemp makes the file private: a file that is replaced keeps its own permissions (a 0600
        # export stays private), a new one gets those a newly created file would have.
        try:
            mode = stat.S_IMODE(out.stat().st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        temporary.chmod(mode)
        os.replace(temporary, out)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return count


def cmd_export(args: argparse.Namespace) -> int:
    get_split_files(args.dataset, args.split)
    out = Path(args.out) if args.out else Path(f"{args.dataset}-{args.split}.{args.to}")
    check_output_path(out)  # before loading: a large split is not parsed for nothing
    split = _load(args.dataset, args.split)
    onto_stdout = _is_standard_output(out)
    count = write_export(split, out, args.to)
    console = _console(stderr=onto_stdout)  # the records alone on standard output
    console.print(_provenance_line(split))
    console.print(_text(f"wrote {count:,} records to {'standard output' if str(out) == STDOUT else out} ({args.to})"))
    return 0


def _is_standard_output(out: Path) -> bool:
    """True when ``out`` is standard output under any name: ``-``, ``/dev/stdout``, ``/dev/fd/1``, or
    the pipe, terminal or file standard output goes to."""
    if str(out) == STDOUT:
        return True
    try:
        return os.path.samestat(os.stat(out), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):  # no such file yet, or no real standard output
        return False


# -- the parser -----------------------------------------------------------------------------------------


# -- croissant ------------------------------------------------------------------------------------------


def cmd_croissant(args: argparse.Namespace) -> int:
    from utils.croissant import write_card

    get_source(args.dataset)  # an unknown name lists the valid ones (exit status 2)
    out = Path(args.out)
    check_output_path(out)
    card = write_card(args.dataset, out, Path(args.bib) if args.bib else None)
    records = [item for item in card["recordSet"] if item.get("dataType") != "sc:Enumeration"]
    print(
        f"{clean(out)}: Croissant card of {args.dataset}, {len(card['distribution'])} files, "
        f"{len(records)} record sets",
        file=sys.stderr,
    )
    return 0


def _add_croissant(commands: Any) -> None:
    name, _ = _example()
    croissant = commands.add_parser(
        "croissant",
        help="write a dataset's Croissant 1.1 card (JSON-LD)",
        description="Write the dataset's machine-readable card in Croissant 1.1 (MLCommons): its official "
        "files with their sha256 and URLs, the original formats' record sets and typed fields with the label "
        "vocabularies, licence, citation and the sizes the authors report.",
        epilog=f"example:\n  atlas croissant {name} --out {name}.croissant.json",
        formatter_class=_HelpFormatter,
    )
    croissant.add_argument("dataset", metavar="DATASET", help=f"one of: {', '.join(dataset_names())}")
    croissant.add_argument("--out", metavar="FILE", required=True, help="the JSON-LD file to write")
    croissant.add_argument(
        "--bib", metavar="FILE", help="the BibTeX file to cite from (default: the dataset folder's citation.bib)"
    )
    croissant.set_defaults(handler=cmd_croissant)


# -- score ----------------------------------------------------------------------------------------------


def cmd_score(args: argparse.Namespace) -> int:
    """``atlas score``: a predictions file scored with every metric variant (see :mod:`utils.scoring`)."""
    from utils.scoring import RESAMPLES, SEED, CoverageError, score, write_per_example

    get_split_files(args.dataset, args.split)  # an unknown name lists the valid ones (exit status 2)
    for out in (args.json, args.per_example):
        if out:
            check_output_path(Path(out))
    if args.with_weights:  # named before anything is fetched (the library warns too, but after the block)
        from utils.scoring import choose_task

        for extra in choose_task(args.dataset, args.task).weights:
            print(f"{PROG}: {extra.announcement()} (fetched now unless it is in the cache)", file=sys.stderr)
    try:
        with _warnings_said():
            scores = score(args.dataset, args.split, args.predictions, task=args.task, allow_missing=args.allow_missing,
                           compare=args.compare, resamples=args.resamples or RESAMPLES,
                           seed=SEED if args.seed is None else args.seed, with_weights=args.with_weights)
    except CoverageError as exc:
        raise UsageError(str(exc)) from None
    console = _console()
    if scores.gold.split is not None:
        console.print(_provenance_line(scores.gold.split))
    note = scores.coverage_note()
    if note:
        console.print(_text(note, "bold reverse"))
    console.print(_text(f"{args.dataset}/{args.split}, task {scores.task.name}: {len(scores.scored_ids):,} examples "
                        f"scored; {scores.level:.0%} percentile bootstrap intervals, {scores.resamples:,} resamples, "
                        f"seed {scores.seed}"))
    from rich.table import Table

    table = Table("metric", "value (interval)", box=None, show_edge=False)
    differences = {item.metric.name: item for item in scores.differences}
    if scores.compared is not None:
        table.add_column("minus OTHER (paired interval)")
    definitions: dict[str, list[str]] = {}
    for name, value, source in scores.table():
        definitions.setdefault(source, []).append(name)
        cells = [_text(name), _text(value)]
        if name in differences:
            item = differences[name]
            cells.append(_text(f"{item.value:+.4f} ({item.low:+.4f} to {item.high:+.4f})"))
        table.add_row(*cells)
    console.print(table)
    if scores.compared is not None:
        console.print(_text(f"OTHER: {scores.compared}"))
    console.print(_text("definitions:"))
    for source, names in definitions.items():
        console.print(_text(f"  {', '.join(names)}: {source}", "dim"))
    for line in scores.notes:
        console.print(_text(line, "dim"))
    if args.json:
        Path(args.json).write_text(json.dumps(scores.record(["atlas", *sys.argv[1:]]), indent=1) + "\n", "utf-8")
    if args.per_example:
        write_per_example(scores, Path(args.per_example))
    return 0


def _add_score(commands: Any) -> None:
    score = commands.add_parser(
        "score",
        help="score your model's predictions with each official scorer's definitions",
        description="Score a predictions file on a split with every metric variant the dataset declares, each "
        "named after whose definition it is (f1_kilt, f1_parlai, kilt_f1, ...) with the source file and commit it "
        "follows, and a percentile bootstrap interval (dialogues resampled where examples share one). A file that "
        "misses, repeats or does not know a gold id is refused (exit status 2, the ids named); a malformed line "
        "names the file, the line and the field (exit status 1). The book's page \"Score your own model\" gives "
        "each dataset's predictions format.",
        epilog="examples:\n  atlas score DATASET SPLIT predictions.jsonl --json score.json\n"
        "  atlas score DATASET SPLIT mine.jsonl --compare baseline.jsonl --per-example rows.jsonl",
        formatter_class=_HelpFormatter,
    )
    _add_names(score)
    score.add_argument("predictions", metavar="PREDICTIONS", help="your predictions file (JSON Lines)")
    score.add_argument("--task", help="the dataset's task to score (default: its first)")
    score.add_argument("--json", metavar="OUT", help="write the record: every metric with its variant and source, "
                       "the data file's sha256 and provenance, counts, version, seed and command line")
    score.add_argument("--per-example", metavar="OUT", help="write one JSON line per scored example")
    score.add_argument("--compare", metavar="OTHER", help="a second predictions file: the paired bootstrap interval "
                       "of the difference, PREDICTIONS minus OTHER")
    score.add_argument("--allow-missing", action="store_true", help="score the ids covered and say so in every "
                       "output, instead of refusing a file that misses (or does not know) gold ids")
    # no defaults here: utils.scoring's (numpy) is imported only when a command scores; the output says them
    score.add_argument("--resamples", type=_positive, help="bootstrap resamples (default: the atlas's, stated in "
                       "every output)")
    score.add_argument("--seed", type=int, help="bootstrap seed (default: the atlas's, stated in every output)")
    score.add_argument("--with-weights", action="store_true", help="add the metrics that need a model's weights "
                       "(BERTScore): an optional package and a download, both named before anything is fetched")
    score.set_defaults(handler=cmd_score)


def _add_names(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", metavar="DATASET", help=f"one of: {', '.join(dataset_names())}")
    parser.add_argument("split", metavar="SPLIT", help="a split of DATASET (`atlas status` lists them)")


class _HelpFormatter(argparse.HelpFormatter):
    """Descriptions and epilogs wrapped to the terminal, line by line; example lines (indented) are kept
    as typed, so that a command can be copied."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(
            indent + line if not line or line.startswith("  ") else textwrap.fill(
                line, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
            )
            for line in text.splitlines()
        )


def _example() -> tuple[str, str]:
    """A dataset and split for the help's examples: the first declared dataset and its chapter's first split."""
    name, source = next(iter(registry().items()))
    return name, (source.chapter_splits or tuple(source.splits))[0]


def build_parser() -> argparse.ArgumentParser:
    """The ``atlas`` argument parser (one sub-command per task, each with ``--help``)."""
    name, split = _example()
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Read, measure and export the Grounded Dialogue Atlas datasets from the shell.",
        epilog=(
            f"examples:\n  atlas status\n  atlas fetch {name}\n  atlas show {name} {split} 0\n"
            f"  atlas stats {name} {split}\n  atlas export {name} {split} --to parquet\n\n"
            f"environment: ${config.DATA_DIR_ENV} (data directory), ${config.CACHE_DIR_ENV} (parsed splits), "
            f"${config.OFFLINE_ENV}=1 (no downloads).\nexit status: 0 done, 1 failed while running, "
            "2 wrong command line."
        ),
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_status(commands)
    _add_fetch(commands, name, split)
    _add_show(commands, name, split)
    _add_stats(commands)
    _add_export(commands, name, split)
    _add_course(commands)
    _add_grade(commands, _HelpFormatter)
    _add_croissant(commands)
    _add_score(commands)
    return parser


def _add_status(commands: Any) -> None:
    """The ``status`` sub-command: what each split would be built on now."""
    status = commands.add_parser(
        "status",
        help="what each split would be built on now",
        description="What each split would be built on right now (official file, partial copy or demo "
        "sample), without downloading or hashing anything.",
    )
    status.add_argument("--json", action="store_true", help="print JSON instead of a table")
    status.add_argument(
        "--sizes",
        action="store_true",
        help="load each split and print one line per dataset: each split's data and its size against the "
        "size the authors report (as the book's status panel)",
    )
    status.set_defaults(handler=cmd_status)


def _add_fetch(commands: Any, name: str, split: str) -> None:
    """The ``fetch`` sub-command: download and verify official files."""
    fetch = commands.add_parser(
        "fetch",
        help="download and verify official files",
        description="Download the official files of a dataset (all its splits, or the SPLITs named) or "
        "of every dataset (--all) into the data directory. Each file is checked against its "
        "checksum and size where they are known and moved into place only when complete; files "
        "already present are kept, so running the command again fetches only what is missing. "
        f"Offline (${config.OFFLINE_ENV}=1) or when a download fails, it says where to get each "
        "file by hand and where to put it.",
        epilog=f"examples:\n  atlas fetch {name}\n  atlas fetch {name} {split}\n  atlas fetch --all",
        formatter_class=_HelpFormatter,
    )
    fetch.add_argument("dataset", metavar="DATASET", nargs="?", help=f"one of: {', '.join(dataset_names())}")
    fetch.add_argument("splits", metavar="SPLIT", nargs="*", help="splits of DATASET (default: all of them)")
    fetch.add_argument("--all", action="store_true", help="every file of every dataset")
    fetch.set_defaults(handler=cmd_fetch)


def _add_show(commands: Any, name: str, split: str) -> None:
    """The ``show`` sub-command: dialogues with their evidence and labels."""
    show = commands.add_parser(
        "show",
        help="dialogues with their evidence and labels",
        description="Print dialogues of a split with the evidence each speaker was shown and the "
        "dataset's labels; selected evidence is marked ✔ SELECTED. Without INDEX, --random or "
        "--search, the first dialogue.",
        epilog=f"examples:\n  atlas show {name} {split} 0\n  atlas show {name} {split} --random 2 --seed 1\n"
        f"  atlas show {name} {split} --search lighthouse --evidence all",
        formatter_class=_HelpFormatter,
    )
    _add_names(show)
    which = show.add_mutually_exclusive_group()
    which.add_argument(
        "index",
        metavar="INDEX",
        type=int,
        nargs="?",
        help="position in the split: 0 is the first, -1 the last (negative positions count from the end)",
    )
    which.add_argument("--random", metavar="N", type=_positive, help="N dialogues chosen at random")
    which.add_argument("--search", metavar="TEXT", help="dialogues whose text contains TEXT (case-insensitive)")
    show.add_argument(
        "--limit", metavar="N", type=_positive, default=5, help="most dialogues --search prints (default 5)"
    )
    show.add_argument("--seed", type=int, help="random seed for --random (the same seed, the same dialogues)")
    show.add_argument(
        "--evidence",
        metavar="N|all",
        type=_evidence_limit,
        default=3,
        help="unselected evidence pieces printed per turn (default 3; selected ones always are)",
    )
    show.set_defaults(handler=cmd_show)


def _add_stats(commands: Any) -> None:
    """The ``stats`` sub-command: counts in the manner of ``parlai data_stats``."""
    stats = commands.add_parser(
        "stats",
        help="utterances, tokens, unique tokens, lengths and labels",
        description="Counts in the manner of `parlai data_stats`: utterances, tokens, unique tokens, "
        "unique utterances and average length, per role (seeker, wizard) and for all turns; then "
        "the dataset's own label counts and the evidence shown and selected per origin. Tokens are "
        "words for English and characters for Chinese and Japanese.",
    )
    _add_names(stats)
    stats.add_argument("--json", action="store_true", help="print JSON instead of tables")
    stats.set_defaults(handler=cmd_stats)


def _add_export(commands: Any, name: str, split: str) -> None:
    """The ``export`` sub-command: a split's common records as JSON Lines or Parquet."""
    export = commands.add_parser(
        "export",
        help="write the common records as JSON Lines or Parquet",
        description="Write a split's dialogues (turns, evidence, labels, provenance) in the atlas's "
        "export schema (documented in the book's command-line page and in utils/cli/__init__.py). The file "
        "is written to a temporary name and moved into place when complete.",
        epilog=f"example:\n  atlas export {name} {split} --to parquet --out {name}-{split}.parquet",
        formatter_class=_HelpFormatter,
    )
    _add_names(export)
    export.add_argument("--to", choices=("jsonl", "parquet"), required=True, help="output format")
    export.add_argument(
        "--out",
        metavar="PATH",
        help="output file (default: DATASET-SPLIT.jsonl or .parquet); - for standard output",
    )
    export.set_defaults(handler=cmd_export)


def _add_course(commands: Any) -> None:
    """The ``course`` sub-command: an nbgrader course from the chapters."""
    course = commands.add_parser(
        "course",
        help="write an nbgrader course from the chapters",
        description="Write an nbgrader course folder: nbgrader_config.py and source/<chapter>/<chapter>.ipynb "
        "for every chapter with exercises (reference solutions, hidden autograded tests with their "
        "points, manually graded written answers). Then use nbgrader's own commands in that folder: "
        "generate_assignment, autograde, formgrader, generate_feedback, export.",
        epilog="example:\n  atlas course --out course\n  cd course && nbgrader generate_assignment CHAPTER",
        formatter_class=_HelpFormatter,
    )
    course.add_argument("--out", metavar="DIR", default="course", help="the course folder (default: course)")
    course.add_argument(
        "--due",
        metavar="CHAPTER=DATE",
        action="append",
        default=[],
        help="a due date in the gradebook, ISO 8601 (CHAPTER=2027-03-01T23:59+01:00; no zone: UTC); repeat per chapter",
    )
    course.add_argument(
        "--late-per-day",
        metavar="SHARE",
        type=float,
        default=0.1,
        help="share of the score taken per day (or part of one) late, 0 to 1 (default: 0.1)",
    )
    course.add_argument(
        "--lms",
        choices=("canvas", "moodle"),
        default="canvas",
        help="whose download file names `nbgrader zip_collect` reads (default: canvas)",
    )
    course.add_argument("chapters", metavar="CHAPTER", nargs="*", help="only these chapters (default: all)")
    course.set_defaults(handler=cmd_course)


def _add_grade(commands: Any, formatter: Any) -> None:
    grade = commands.add_parser(
        "grade",
        help="grade an assignment's submissions, each isolated (runs nbgrader autograde)",
        description="Run `nbgrader autograde ASSIGNMENT` in the course folder with the course's isolation "
        "(each submission in a bubblewrap sandbox without the course folder or the network, the hidden "
        "tests' verdicts computed outside the student's kernel), then list every submission with its "
        "tests passed and what went wrong. Needs Debian's or Ubuntu's `bubblewrap` package.",
        epilog="example:\n  cd course && atlas grade CHAPTER\n"
        "  atlas grade CHAPTER --course course --student alice --force",
        formatter_class=formatter,
    )
    grade.add_argument("assignment", metavar="ASSIGNMENT", help="the assignment (a chapter's name)")
    grade.add_argument("--course", metavar="DIR", default=".", help="the course folder (default: here)")
    grade.add_argument("--student", metavar="ID", action="append", default=[], help="only this student (repeatable)")
    grade.add_argument("--force", action="store_true", help="grade again submissions graded before")
    grade.set_defaults(handler=cmd_grade)


def cmd_grade(args: argparse.Namespace) -> int:
    """``atlas grade``: ``nbgrader autograde``, isolated, with a report (see :mod:`utils.teaching.grading`)."""
    from utils.teaching.grading import GradingSetupError, IsolationUnavailable, grade_assignment

    try:
        return grade_assignment(Path(args.course), args.assignment, students=args.student, force=args.force)
    except (GradingSetupError, IsolationUnavailable) as exc:
        raise UsageError(str(exc)) from None


def cmd_course(args: argparse.Namespace) -> int:
    """``atlas course``: the nbgrader course folder (see :mod:`utils.teaching.course`)."""
    from utils.teaching.course import CourseError, parse_due, write_course  # nbformat and the notebooks only when asked

    try:
        due = dict(parse_due(text) for text in args.due)
        reports = write_course(
            Path(args.out), names=args.chapters, due=due, late_per_day=args.late_per_day, lms=args.lms
        )
    except (FileNotFoundError, CourseError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    for report in reports:
        print(
            f"{report.path}: {len(report.exercises)} exercises, {report.code_points} points autograded, "
            f"{report.written_points} points for written answers"
        )
    print(f"next: cd {args.out} && nbgrader generate_assignment <chapter>", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``atlas`` command; return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    prefix = f"{PROG} {args.command}: error:"
    try:
        return int(args.handler(args))
    except _ReaderGone:
        # The reader stopped reading (`atlas show ... | head`): not an error. Python would complain
        # again when it flushes stdout at exit, so stdout goes to /dev/null first. A broken pipe
        # anywhere else (an export into a pipe) stays an error below.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (UnknownNameError, UsageError) as exc:
        print(f"{prefix} {exc}", file=sys.stderr)
        return 2
    except (AtlasError, OSError) as exc:
        print(f"{prefix} {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prefix} interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
