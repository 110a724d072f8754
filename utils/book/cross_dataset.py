"""The four datasets side by side, measured on the same footing through the common records.

Everything here works on :class:`~utils.loading.LoadedSplit` objects and their tables, so the same
code measures Wizard of Wikipedia, FaithDial, WISE and JWHR. Text is tokenised the way each language
needs (:func:`utils.text.tokenizer_for`): English into ParlAI-normalised words, Chinese and Japanese
into characters, so "overlap" means shared words in English and shared characters in Chinese and
Japanese. The datasets compared, the splits tried and the descriptions are each dataset's
:class:`~utils.sources.DatasetProfile` in the registry (:func:`utils.sources.registry`, the atlas's
wording); every number is computed from the loaded data at run time.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from utils.book.cjk_fonts import text_as_typed
from utils.book.figures import MAX_WIDTH_INCHES, data_caveat
from utils.book.render import SafeHTML, esc
from utils.book.tables import EMPTY, Table, decimal, integer, percent, table
from utils.errors import UnknownNameError
from utils.loading import DEMO, PARTIAL, DemoDataWarning, LoadedSplit, Provenance, load
from utils.metrics import ngram_prf, selected_evidence_f1
from utils.records import WIZARD
from utils.sources import DatasetProfile, get_source, registry
from utils.text import tokenizer_for

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: What the overlap is counted in, per language code.
TOKEN_UNITS = {"en": "words", "zh": "characters", "ja": "characters"}


def compared_datasets() -> tuple[str, ...]:
    """The datasets compared here, in the registry's order: those whose source entry has a
    :class:`~utils.sources.DatasetProfile` (read each time, so a newly declared dataset shows)."""
    return tuple(name for name, source in registry().items() if source.profile is not None)


def __getattr__(name: str) -> object:
    # DATASETS and PROFILES are derived from the registry on every access, never a stale copy.
    if name == "DATASETS":
        return compared_datasets()
    if name == "PROFILES":
        return {dataset: _profile(dataset) for dataset in compared_datasets()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _profile(dataset: str) -> DatasetProfile:
    profile = get_source(dataset).profile
    if profile is None:
        raise UnknownNameError("dataset of the comparison", dataset, list(compared_datasets()))
    return profile


def language_of(dataset: str) -> str:
    """The language code (``en``, ``zh``, ``ja``) of ``dataset``, from the data registry."""
    return get_source(dataset).language_code


# -- loading ----------------------------------------------------------------------------------------


def choose_split(dataset: str, candidates: Sequence[str] | None = None) -> LoadedSplit:
    """The best available of ``candidates``: complete official data, else a partial copy, else demo.

    The demo-data warning is not repeated here: the provenance banner of the returned split says it.
    """
    names = list(candidates or _profile(dataset).splits)
    fallback: LoadedSplit | None = None
    for split_name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DemoDataWarning)
            split = load(dataset, split_name)
        if split.provenance.is_full:
            return split
        if fallback is None or (fallback.provenance.kind == DEMO and split.provenance.kind == PARTIAL):
            fallback = split
    assert fallback is not None  # names is never empty: every profile lists a split
    return fallback


def load_common(datasets: Iterable[str] | None = None) -> dict[str, LoadedSplit]:
    """One split of each dataset (every compared one by default), chosen by :func:`choose_split`."""
    return {name: choose_split(name) for name in (compared_datasets() if datasets is None else datasets)}


def provenance_banners(splits: Mapping[str, LoadedSplit]) -> SafeHTML:
    """Each split's provenance banner (official, partial or demo), one under the other."""
    return SafeHTML("".join(split.provenance._repr_html_() for split in splits.values()))


def data_note(splits: Mapping[str, LoadedSplit]) -> SafeHTML:
    """A visible note saying which datasets are demo samples or partial copies (empty when none)."""
    demo = [name for name, split in splits.items() if split.provenance.is_demo]
    partial = [name for name, split in splits.items() if split.provenance.kind == PARTIAL]
    if not demo and not partial:
        return SafeHTML(
            '<div class="atlas-provenance atlas-provenance-official" role="note">Every dataset below is '
            "loaded from its complete official split.</div>"
        )
    parts = []
    if demo:
        parts.append(
            f"<strong>Demo data</strong> for {esc(_and([_title(n) for n in demo]))}: the numbers below "
            "describe the atlas's handful of sample records, not the datasets"
        )
    if partial:
        parts.append(
            f"<strong>Partial data</strong> for {esc(_and([_title(n) for n in partial]))}: a published sample, "
            "not the whole split"
        )
    css = "demo" if demo else "partial"
    return SafeHTML(
        f'<div class="atlas-provenance atlas-provenance-{css}" role="note">{"; ".join(parts)}. '
        "Point <code>ATLAS_DATA_DIR</code> at the official files (see the data page) for the real picture.</div>"
    )


def _title(dataset: str) -> str:
    return get_source(dataset).title


# -- the side-by-side tables -----------------------------------------------------------------------


def _wizard_evidence(split: LoadedSplit) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Wizard turns, and the evidence shown at them (one row per piece)."""
    turns = split.turns()
    wizard = turns[turns["role"] == WIZARD]
    evidence = split.evidence(["dialogue_index", "turn_index", "text", "selected"])
    keys = wizard[["dialogue_index", "turn_index"]]
    return wizard, evidence.merge(keys, on=["dialogue_index", "turn_index"], how="inner")


def data_label(split: LoadedSplit) -> str:
    """The split and what it is, for a table cell: ``answered, full official file``, ``valid, demo sample``."""
    kind = split.provenance.kind
    what = {DEMO: "demo sample", PARTIAL: "partial copy"}.get(
        kind, "full official file" if split.provenance.is_full else kind
    )
    return f"{split.split}, {what}"


def profile(dataset: str, split: LoadedSplit) -> dict[str, object]:
    """What the dataset is and what this split holds, as plain values (counts as ints, shares in 0-1).

    A share or mean that does not apply (no faithfulness labels, no evidence text) is ``NaN``.
    """
    described = _described(dataset)
    language = language_of(dataset)
    tokenize = tokenizer_for(language)
    turns = split.turns()
    wizard, evidence = _wizard_evidence(split)
    labels = turns["labels"]
    faithfulness = sum(1 for value in labels if value.get("BEGIN") or value.get("VRM"))
    with_selection = int(wizard["selected_count"].gt(0).sum())
    per_dialogue = turns.groupby("dialogue_index").size()
    # A passage is shown at many turns (WISE's at hundreds): each distinct text is tokenised once.
    shown = Counter(text for text in evidence["text"] if text)
    evidence_words = sum(len(tokenize(text)) * times for text, times in shown.items())
    evidence_pieces = sum(shown.values())
    return {
        "language": described["language"],
        "data loaded": data_label(split),
        "unit of data": described["unit of data"],
        "dialogues / sessions": len(split),
        "turns": len(turns),
        "turns per dialogue (mean)": float(per_dialogue.mean()) if len(per_dialogue) else math.nan,
        "wizard turns": len(wizard),
        "what the evidence is": described["what the evidence is"],
        "evidence pieces per wizard turn (mean)": len(evidence) / len(wizard) if len(wizard) else math.nan,
        "evidence length (mean)": evidence_words / evidence_pieces if evidence_pieces else math.nan,
        "evidence length counted in": TOKEN_UNITS[language],
        "how selection is recorded": described["how selection is recorded"],
        "wizard turns with selected / cited evidence": with_selection / len(wizard) if len(wizard) else math.nan,
        # a dataset without BEGIN/VRM labels has no share to show, not a share of 0
        "faithfulness labelled (turns with BEGIN/VRM)": faithfulness / len(wizard) if faithfulness else math.nan,
        "licence": described["licence"],
        "cite as": described["cite as"],
    }


def _described(dataset: str) -> dict[str, str]:
    """The rows of :func:`profile` that describe the dataset (from the registry), not the split."""
    source = get_source(dataset)
    return {
        "language": source.language,
        "unit of data": _profile(dataset).unit,
        "what the evidence is": _profile(dataset).evidence,
        "how selection is recorded": _profile(dataset).selection,
        "licence": source.license,
        "cite as": source.citation_key,
    }


def profiles(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """Every property of :func:`profile`: one column per dataset (its title), one row per property."""
    return pd.DataFrame({_title(name): profile(name, split) for name, split in splits.items()})


def _whole(value: object) -> str:
    return integer(value)


def _one_place(value: object) -> str:
    return decimal(value, 1)


def _whole_percent(value: object) -> str:
    # whole percentages: enough for these spreads, and 100 never reads as a count printed as a float
    return percent(value, 0)


#: The measured rows of :func:`side_by_side`: property, its label for readers, how a value is shown.
_MEASURED: tuple[tuple[str, str, Callable[[object], str]], ...] = (
    ("data loaded", "Data loaded", str),
    ("dialogues / sessions", "Dialogues or sessions", _whole),
    ("turns", "Turns", _whole),
    ("turns per dialogue (mean)", "Turns per dialogue (mean)", _one_place),
    ("wizard turns", "Wizard turns", _whole),
    ("evidence pieces per wizard turn (mean)", "Evidence pieces shown per wizard turn (mean)", _one_place),
    ("evidence length (mean)", "Evidence piece length (mean)", str),
    ("wizard turns with selected / cited evidence", "Wizard turns that select or cite evidence (%)", _whole_percent),
    ("faithfulness labelled (turns with BEGIN/VRM)", "Wizard turns with BEGIN or VRM labels (%)", _whole_percent),
)


def _by_dataset(
    values: pd.DataFrame, rows: Sequence[tuple[str, str, Callable[[object], str]]], *, caption: str, notes: list[str]
) -> Table:
    """A table with one column per dataset and one row per measure, each row shown in its own format.

    ``values`` has one column per dataset; a table this narrow fits a page and a phone, where one
    column per measure would scroll.
    """
    shown = pd.DataFrame(
        [[show(value) for value in values.loc[key]] for key, _, show in rows],
        index=[label for _, label, _ in rows],
        columns=values.columns,
    )
    result = table(shown, index="Measure", caption=caption, notes=notes)
    result.styler.set_properties(subset=list(values.columns), **{"text-align": "right"})
    return result


def side_by_side(splits: Mapping[str, LoadedSplit]) -> Table:
    """The measured comparison: one column per dataset, every number computed from the split loaded."""
    values = profiles(splits)
    lengths = values.loc["evidence length (mean)"]
    # the unit differs between columns (words, characters), so each cell carries its own
    values.loc["evidence length (mean)"] = [
        f"{decimal(length, 1)} {unit}" if pd.notna(length) else EMPTY
        for length, unit in zip(lengths, values.loc["evidence length counted in"], strict=True)
    ]
    empty = []
    if values.loc["faithfulness labelled (turns with BEGIN/VRM)"].isna().any():
        empty.append("no BEGIN or VRM labels in the dataset")
    if lengths.isna().any():
        empty.append("no evidence text in the split")
    caption = _caption(splits, "What each split loaded here holds, measured by the same code.")
    notes = ["Evidence piece length is counted in words for English, in characters for Chinese and Japanese."]
    if empty:
        notes.append(f"{EMPTY} {'; '.join(empty)}")
    return _by_dataset(values, _MEASURED, caption=caption, notes=notes)


#: The descriptive rows of :func:`descriptions`, as readers read them.
_DESCRIBED = {
    "language": "Language",
    "unit of data": "Unit of data",
    "what the evidence is": "What the evidence is",
    "how selection is recorded": "How selection is recorded",
    "licence": "Licence",
    "cite as": "Citation key (see the bibliography)",
}


def _provenances(splits: Mapping[str, LoadedSplit]) -> list[Provenance]:
    return [split.provenance for split in splits.values()]


def _caption(splits: Mapping[str, LoadedSplit], text: str) -> str:
    return f"{data_caveat(_provenances(splits))} {text}".strip()


def descriptions(splits: Mapping[str, LoadedSplit]) -> Table:
    """What each dataset is, in the atlas's words (its data registry): one column per dataset."""
    # the registry's words only: nothing measured on the splits
    described = pd.DataFrame({_title(name): _described(name) for name in splits}).loc[list(_DESCRIBED)]
    described.index = [_DESCRIBED[name] for name in described.index]
    return table(described, index="Property", caption="What each dataset is (from the atlas's data registry).")


# -- roles ------------------------------------------------------------------------------------------


def role_counts(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """How each dataset names its speakers, the atlas role each name maps to, and how many turns."""
    frames = []
    for name, split in splits.items():
        turns = split.turns()
        counts = turns.groupby(["role", "speaker"]).size().reset_index(name="turns")
        counts.insert(0, "dataset", _title(name))
        frames.append(counts)
    roles = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["dataset", "role", "speaker"])
    roles = roles.rename(columns={"role": "atlas role", "speaker": "name in the data"})
    return roles[["dataset", "name in the data", "atlas role", "turns"]]


def role_table(splits: Mapping[str, LoadedSplit]) -> Table:
    """:func:`role_counts` for readers."""
    return table(
        role_counts(splits),
        labels={
            "dataset": "Dataset",
            "name in the data": "Speaker as named in the files",
            "atlas role": "Atlas role",
            "turns": "Turns",
        },
        integers=["turns"],
        caption=_caption(splits, "Speakers as each dataset names them, and the role the atlas gives them."),
    )


# -- lexical overlap ----------------------------------------------------------------------------------


def overlap_frame(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """One row per wizard response that used evidence: how much of it the evidence covers.

    ``coverage`` is the share of the response's tokens that also occur in the selected (or cited)
    evidence, counted as multisets (the precision of :func:`utils.metrics.ngram_prf`, the measure of
    :func:`utils.metrics.grounding_overlap`, with the response as prediction); ``bigram_coverage``
    the same for pairs of adjacent tokens, and ``f1`` the unigram F1 between the two. Tokens are
    words for English and characters for Chinese and Japanese; single characters are shared far more
    easily than words (particles, common characters), so the bigram measure is the fairer one across
    languages. Responses without selected evidence (WoW's "no passage used", unanswered sessions)
    are left out.
    """
    rows = []
    for name, split in splits.items():
        language = language_of(name)
        tokenize = tokenizer_for(language)
        wizard, evidence = _wizard_evidence(split)
        selected = evidence[evidence["selected"]]
        used = selected.groupby(["dialogue_index", "turn_index"])["text"].agg(_join_texts)
        wizard_rows: Iterable[Any] = wizard.itertuples(index=False)  # _wizard_evidence's columns
        for row in wizard_rows:
            knowledge = used.get((row.dialogue_index, row.turn_index))
            if not knowledge or not row.text:
                continue
            response_tokens = tokenize(row.text)
            evidence_tokens = tokenize(knowledge)
            if not response_tokens or not evidence_tokens:
                continue
            prf = ngram_prf(response_tokens, evidence_tokens)
            bigrams = ngram_prf(response_tokens, evidence_tokens, 2)
            rows.append(
                {
                    "dataset": _title(name),
                    "language": language,
                    "unit": TOKEN_UNITS[language],
                    "dialogue_id": row.dialogue_id,
                    "turn_index": row.turn_index,
                    "response_tokens": len(response_tokens),
                    "evidence_tokens": len(evidence_tokens),
                    "coverage": prf.precision,
                    "bigram_coverage": bigrams.precision,
                    "f1": prf.f1,
                }
            )
    columns = [
        "dataset",
        "language",
        "unit",
        "dialogue_id",
        "turn_index",
        "response_tokens",
        "evidence_tokens",
        "coverage",
        "bigram_coverage",
        "f1",
    ]
    return pd.DataFrame(rows, columns=columns)


def _join_texts(texts: Iterable[str]) -> str:
    # Several cited pieces (JWHR, WISE) count together as the evidence the response used.
    return " ".join(text for text in texts if text)


def overlap_measures(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: responses measured, what was counted, coverage (median, mean, share >= 0.8), bigram
    coverage (median) and mean unigram F1. Shares are fractions between 0 and 1; the index is the dataset."""
    columns = [
        "responses",
        "counted in",
        "median coverage",
        "mean coverage",
        "coverage at least 0.8",
        "median bigram coverage",
        "mean F1",
    ]
    if frame.empty:
        return pd.DataFrame(columns=columns).rename_axis("dataset")
    grouped = frame.groupby("dataset", sort=False)
    measures = pd.DataFrame(
        {
            "responses": grouped.size(),
            "counted in": grouped["unit"].first(),
            "median coverage": grouped["coverage"].median(),
            "mean coverage": grouped["coverage"].mean(),
            "coverage at least 0.8": grouped["coverage"].apply(lambda values: float((values >= 0.8).mean())),
            "median bigram coverage": grouped["bigram_coverage"].median(),
            "mean F1": grouped["f1"].mean(),
        }
    )
    measures.index.name = "dataset"
    return measures[columns]


#: The rows of :func:`overlap_summary`: measure, its label for readers, how a value is shown.
_OVERLAP: tuple[tuple[str, str, Callable[[object], str]], ...] = (
    ("responses", "Responses measured", _whole),
    ("counted in", "Tokens", str),
    ("median coverage", "Coverage, median (%)", _whole_percent),
    ("mean coverage", "Coverage, mean (%)", _whole_percent),
    ("coverage at least 0.8", "Responses with coverage of 80 % or more (%)", _whole_percent),
    ("median bigram coverage", "Token-pair coverage, median (%)", _whole_percent),
    ("mean F1", "Unigram F1, mean (0–1)", lambda value: decimal(value, 2)),
)


def overlap_summary(frame: pd.DataFrame, splits: Mapping[str, LoadedSplit] | None = None) -> Table:
    """:func:`overlap_measures` for readers, one column per dataset; with ``splits``, the caption names
    demo and partial data."""
    return _by_dataset(
        overlap_measures(frame).T,
        _OVERLAP,
        caption=_caption(splits or {}, "How much of each response occurs in the evidence it used."),
        notes=[
            "Coverage: the share of the response's tokens (words in English, characters in Chinese and "
            "Japanese) that also occur in the evidence; token-pair coverage: the same for adjacent pairs."
        ],
    )


def overlap_alt(frame: pd.DataFrame) -> str:
    """What :func:`plot_overlap` shows, in words (its alt text): the medians of each dataset."""
    measures = overlap_measures(frame)
    if measures.empty:
        return "Box plots of coverage per dataset; no response with selected evidence was found."
    parts = [
        f"{name}: {int(row.responses):,} responses counted in {row['counted in']}, median coverage "
        f"{100 * row['median coverage']:.0f}% by single tokens and {100 * row['median bigram coverage']:.0f}% by "
        "token pairs"
        for name, row in measures.iterrows()
    ]
    return (
        "Two panels of horizontal box plots, one box per dataset with every response as a dot: the share of "
        "each response found in its evidence, by single tokens (top) and by pairs of adjacent tokens (bottom). "
        + "; ".join(parts)
        + "."
    )


def _records(split: LoadedSplit) -> str:
    unit = split.source.record_unit
    count = split.provenance.dialogues
    return f"{count:,} {unit.removesuffix('s') if count == 1 else unit}"


def reading(splits: Mapping[str, LoadedSplit], phrases: Mapping[str, str]) -> str:
    """Prose that interprets numbers only where the data is real, naming what each number rests on.

    ``phrases`` maps a dataset name to what its number says, written to follow "<where>, ": for
    example "the median answer takes 94% of its characters from its references". A full official
    split is stated as such, a partial copy with its size and a warning, and demo samples are named
    with no number at all, so a conclusion can never rest on invented records.
    """
    sentences = []
    demo = []
    for name, split in splits.items():
        phrase = phrases.get(name)
        if split.provenance.is_full and phrase:
            sentences.append(f"On the full official {split.split} split of {_title(name)}, {phrase}.")
        elif split.provenance.kind == PARTIAL and phrase:
            sentences.append(
                f"On a partial copy of {_title(name)} ({split.split}, {_records(split)}), {phrase}; that is "
                "too little to stand for the dataset."
            )
        else:
            demo.append(_title(name))
    if demo:
        verb = "is a demo sample" if len(demo) == 1 else "are demo samples"
        pronoun = "its" if len(demo) == 1 else "their"
        sentences.append(
            f"{_and(demo)} {verb} here: {pronoun} numbers only show that the code runs, and nothing is concluded "
            "from them."
        )
    return " ".join(sentences)


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def overlap_reading(frame: pd.DataFrame, splits: Mapping[str, LoadedSplit]) -> str:
    """:func:`reading` of :func:`overlap_measures`: the medians of each dataset whose data is real."""
    measures = overlap_measures(frame)
    phrases = {}
    for name in splits:
        title = _title(name)
        if title not in measures.index:
            continue
        row: Any = measures.loc[title]  # one row: the measures of one dataset
        unit = str(row["counted in"])
        phrases[name] = (
            f"the median response takes {100 * row['median coverage']:.0f}% of its {unit} and "
            f"{100 * row['median bigram coverage']:.0f}% of its {unit.removesuffix('s')} pairs from the evidence it "
            f"used ({int(row['responses']):,} responses)"
        )
    return reading(splits, phrases)


def grounding_f1(split: LoadedSplit) -> tuple[float, int] | None:
    """Mean unigram F1 between each wizard turn and its selected evidence joined, and how many turns.

    The measure of the chapter's research exercise, computed as its checker does
    (:func:`utils.metrics.selected_evidence_f1`): only wizard turns with a selection count; words for
    English, characters for Chinese and Japanese. ``None`` when no wizard turn selects anything.
    """
    tokenize = tokenizer_for(split.source.language_code)
    scores = [
        score
        for dialogue in split
        for turn in dialogue.turns_by(WIZARD)
        if (score := selected_evidence_f1(turn, tokenize)) is not None
    ]
    return (sum(scores) / len(scores), len(scores)) if scores else None


def grounding_f1_reading(splits: Mapping[str, LoadedSplit]) -> str:
    """:func:`reading` of :func:`grounding_f1` for every split that selects evidence."""
    phrases = {}
    for name, split in splits.items():
        result = grounding_f1(split)
        if result is not None:
            mean, turns = result
            unit = TOKEN_UNITS[language_of(name)]
            phrases[name] = f"the mean unigram F1 is {mean:.2f} over {turns:,} wizard turns, counted in {unit}"
    return reading(splits, phrases)


def _horizontal(axis: object) -> dict[str, object]:
    # matplotlib 3.10 renamed ``vert=False`` to ``orientation="horizontal"`` and warns on the old name.
    parameters = inspect.signature(axis.boxplot).parameters  # type: ignore[attr-defined]
    return {"orientation": "horizontal"} if "orientation" in parameters else {"vert": False}


#: Fewest responses a box plot summarises: fewer are drawn as dots only (a box of three says nothing).
MIN_BOX_RESPONSES = 20


def overlap_groups(
    frame: pd.DataFrame, splits: Mapping[str, LoadedSplit]
) -> list[tuple[str, pd.DataFrame, dict[str, LoadedSplit]]]:
    """:func:`overlap_frame` rows in two groups never drawn in one figure: the datasets loaded from
    their full official files, then those loaded as a demo sample or a partial copy. Each group is
    ``(what it is, its rows, its splits)``; a group with no dataset is left out."""
    full = {name: split for name, split in splits.items() if split.provenance.is_full}
    other = {name: split for name, split in splits.items() if name not in full}
    groups = []
    for what, group in (("full official files", full), ("demo sample or partial copy, not the datasets", other)):
        titles = {_title(name) for name in group}
        rows = frame[frame["dataset"].isin(titles)]
        if len(rows):
            groups.append((what, rows, group))
    return groups


@text_as_typed
def plot_overlap(frame: pd.DataFrame, splits: Mapping[str, LoadedSplit] | None = None) -> Figure:
    """Box plots of coverage per dataset (every response a dot): single tokens above, token pairs below.

    The figure is :data:`utils.book.figures.MAX_WIDTH_INCHES` wide with labels of 9 points or more, so it
    stays legible at the page's width. With ``splits``, each label says when the data is a demo
    sample or a partial copy. A dataset with fewer than :data:`MIN_BOX_RESPONSES` responses has its
    dots and no box. Draw demo and official data apart (:func:`overlap_groups`): one figure carries
    one mark of what it was drawn from.
    """
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(frame["dataset"]))
    kinds = {_title(name): split.provenance.kind for name, split in (splits or {}).items()}
    # A box needs responses to summarise: a handful (a demo sample) is drawn as its dots alone.
    boxed = [len(frame[frame["dataset"] == name]) >= MIN_BOX_RESPONSES for name in names]
    height = 0.7 + 0.55 * max(len(names), 1)
    figure, axes = plt.subplots(2, 1, figsize=(MAX_WIDTH_INCHES, 2 * height + 0.9), sharex=True)
    panels = (("coverage", "single tokens"), ("bigram_coverage", "pairs of adjacent tokens"))
    labels = []
    for name in names:
        rows = frame[frame["dataset"] == name]
        kind = kinds.get(name, "")
        note = f", {kind}" if kind in (DEMO, PARTIAL) else ""
        dots = "" if len(rows) >= MIN_BOX_RESPONSES else ", no box"
        labels.append(f"{name}\n{rows['unit'].iloc[0]}, n={len(rows):,}{note}{dots}")
    for axis, (column, what) in zip(axes, panels, strict=True):
        values = [frame.loc[frame["dataset"] == name, column].to_numpy() for name in names]
        if names:
            boxes = [data if box else [] for data, box in zip(values, boxed, strict=True)]
            if any(boxed):
                axis.boxplot(boxes, widths=0.5, showfliers=False, **_horizontal(axis))
            for position, data in enumerate(values, start=1):
                # a deterministic spread so that identical values stay visible
                offsets = [0.36 * ((i * 0.618) % 1 - 0.5) for i in range(len(data))]
                axis.scatter(data, [position + o for o in offsets], s=8, alpha=0.35, color="tab:blue")
            axis.set_yticks(range(1, len(names) + 1), labels)
            axis.invert_yaxis()
        axis.set_xlim(-0.02, 1.02)
        axis.set_title(f"Coverage by {what}", fontsize=10, loc="left")
        axis.grid(axis="x", alpha=0.3)
        axis.tick_params(labelsize=9)
        axis.tick_params(axis="x", labelbottom=True)
    axes[-1].set_xlabel("share of the response found in its evidence", fontsize=10)
    figure.suptitle("How much of each response comes from the evidence it used", fontsize=11)
    figure.tight_layout()
    return figure


__all__ = [
    "DatasetProfile",
    "choose_split",
    "compared_datasets",
    "data_label",
    "data_note",
    "descriptions",
    "grounding_f1",
    "grounding_f1_reading",
    "language_of",
    "load_common",
    "overlap_alt",
    "overlap_frame",
    "overlap_groups",
    "overlap_measures",
    "overlap_reading",
    "overlap_summary",
    "plot_overlap",
    "profile",
    "profiles",
    "provenance_banners",
    "reading",
    "role_counts",
    "role_table",
    "side_by_side",
]
