"""The four datasets side by side, measured on the same footing through the common records.

Everything here works on :class:`~utils.loading.LoadedSplit` objects and their tables, so the same
code measures Wizard of Wikipedia, FaithDial, WISE and JWHR. Text is tokenised the way each language
needs (:func:`utils.text.tokenizer_for`): English into ParlAI-normalised words, Chinese and Japanese
into characters, so "overlap" means shared words in English and shared characters in Chinese and
Japanese. The datasets compared, the splits tried and the descriptions are each dataset's
:class:`~utils.sources.DatasetProfile` in the registry (:data:`utils.sources.SOURCES`, the atlas's
wording); every number is computed from the loaded data at run time.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from ..errors import UnknownNameError
from ..loading import DEMO, PARTIAL, DemoDataWarning, LoadedSplit, load
from ..metrics import ngram_prf
from ..records import WIZARD
from ..render import SafeHTML, esc
from ..sources import SOURCES, DatasetProfile, get_source
from ..text import tokenizer_for

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: What the overlap is counted in, per language code.
TOKEN_UNITS = {"en": "words", "zh": "characters", "ja": "characters"}


def compared_datasets() -> tuple[str, ...]:
    """The datasets compared here, in the registry's order: those whose source entry has a
    :class:`~utils.sources.DatasetProfile` (read each time, so a newly declared dataset shows)."""
    return tuple(name for name, source in SOURCES.items() if source.profile is not None)


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
            f"<strong>Demo data</strong> for {esc(', '.join(_title(n) for n in demo))}: the numbers below "
            "describe the atlas's handful of sample records, not the datasets"
        )
    if partial:
        parts.append(
            f"<strong>Partial data</strong> for {esc(', '.join(_title(n) for n in partial))}: a published sample, "
            "not the whole split"
        )
    css = "demo" if demo else "partial"
    return SafeHTML(
        f'<div class="atlas-provenance atlas-provenance-{css}" role="note">{"; ".join(parts)}. '
        "Point <code>ATLAS_DATA_DIR</code> at the official files (see the data page) for the real picture.</div>"
    )


def _title(dataset: str) -> str:
    return get_source(dataset).title


# -- the side-by-side table -------------------------------------------------------------------------


def _wizard_evidence(split: LoadedSplit) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Wizard turns, and the evidence shown at them (one row per piece)."""
    turns = split.turns()
    wizard = turns[turns["role"] == WIZARD]
    evidence = split.evidence(["dialogue_index", "turn_index", "text", "selected"])
    keys = wizard[["dialogue_index", "turn_index"]]
    return wizard, evidence.merge(keys, on=["dialogue_index", "turn_index"], how="inner")


def profile(dataset: str, split: LoadedSplit) -> dict[str, object]:
    """One column of the side-by-side table: what the dataset is and what this split holds."""
    source = get_source(dataset)
    language = language_of(dataset)
    tokenize = tokenizer_for(language)
    turns = split.turns()
    wizard, evidence = _wizard_evidence(split)
    labels = turns["labels"]
    faithfulness = sum(1 for value in labels if value.get("BEGIN") or value.get("VRM"))
    with_selection = int(wizard["selected_count"].gt(0).sum())
    per_dialogue = turns.groupby("dialogue_index").size()
    evidence_lengths = [len(tokenize(text)) for text in evidence["text"] if text]
    return {
        "language": source.language,
        "data loaded": f"{split.split} ({split.provenance.kind})",
        "unit of data": _profile(dataset).unit,
        "dialogues / sessions": len(split),
        "turns": len(turns),
        "turns per dialogue (mean)": round(float(per_dialogue.mean()), 2) if len(per_dialogue) else 0.0,
        "what the evidence is": _profile(dataset).evidence,
        "evidence pieces per wizard turn (mean)": round(len(evidence) / len(wizard), 2) if len(wizard) else 0.0,
        "evidence length (mean)": (
            f"{sum(evidence_lengths) / len(evidence_lengths):.1f} {TOKEN_UNITS[language]}" if evidence_lengths else "-"
        ),
        "how selection is recorded": _profile(dataset).selection,
        "wizard turns with selected / cited evidence": _share(with_selection, len(wizard)),
        "faithfulness labelled (turns with BEGIN/VRM)": _share(faithfulness, len(wizard)) if faithfulness else "no",
        "licence": source.license,
        "cite as": source.citation_key,
    }


def _share(count: int, total: int) -> str:
    return f"{count:,} of {total:,} ({count / total:.0%})" if total else "0"


def side_by_side(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """The comparison table: one column per dataset, one row per property."""
    columns = {_title(name): profile(name, split) for name, split in splits.items()}
    return pd.DataFrame(columns)


# -- roles ------------------------------------------------------------------------------------------


def role_table(splits: Mapping[str, LoadedSplit]) -> pd.DataFrame:
    """How each dataset names its speakers and which atlas role each name maps to, with turn counts."""
    frames = []
    for name, split in splits.items():
        turns = split.turns()
        counts = turns.groupby(["role", "speaker"]).size().reset_index(name="turns")
        counts.insert(0, "dataset", _title(name))
        frames.append(counts)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["dataset", "role", "speaker"])
    table = table.rename(columns={"role": "atlas role", "speaker": "name in the data"})
    return table[["dataset", "name in the data", "atlas role", "turns"]]


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
        for row in wizard.itertuples(index=False):
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
    columns = ["dataset", "language", "unit", "dialogue_id", "turn_index", "response_tokens", "evidence_tokens",
               "coverage", "bigram_coverage", "f1"]
    return pd.DataFrame(rows, columns=columns)


def _join_texts(texts: Iterable[str]) -> str:
    # Several cited pieces (JWHR, WISE) count together as the evidence the response used.
    return " ".join(text for text in texts if text)


def overlap_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: responses measured, coverage (median, mean, share ≥ 0.8), bigram coverage, F1."""
    if frame.empty:
        return pd.DataFrame(columns=["responses", "counted in", "median coverage", "mean coverage",
                                     "coverage ≥ 0.8", "median bigram coverage", "mean F1"])
    grouped = frame.groupby("dataset", sort=False)
    summary = pd.DataFrame(
        {
            "responses": grouped.size(),
            "counted in": grouped["unit"].first(),
            "median coverage": grouped["coverage"].median().round(3),
            "mean coverage": grouped["coverage"].mean().round(3),
            "coverage ≥ 0.8": grouped["coverage"].apply(lambda values: f"{(values >= 0.8).mean():.0%}"),
            "median bigram coverage": grouped["bigram_coverage"].median().round(3),
            "mean F1": grouped["f1"].mean().round(3),
        }
    )
    summary.index.name = "dataset"
    return summary


def _horizontal(axis: object) -> dict[str, object]:
    # matplotlib 3.10 renamed ``vert=False`` to ``orientation="horizontal"`` and warns on the old name.
    parameters = inspect.signature(axis.boxplot).parameters  # type: ignore[attr-defined]
    return {"orientation": "horizontal"} if "orientation" in parameters else {"vert": False}


def plot_overlap(frame: pd.DataFrame, splits: Mapping[str, LoadedSplit] | None = None) -> Figure:
    """Box plots of coverage per dataset (every response a dot): single tokens and token pairs.

    With ``splits``, each label says when the data is a demo sample or a partial copy.
    """
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(frame["dataset"]))
    kinds = {_title(name): split.provenance.kind for name, split in (splits or {}).items()}
    figure, axes = plt.subplots(1, 2, figsize=(11, 0.9 + 1.0 * max(len(names), 1)), sharey=True)
    panels = (("coverage", "single tokens"), ("bigram_coverage", "pairs of adjacent tokens"))
    for axis, (column, what) in zip(axes, panels, strict=True):
        values = [frame.loc[frame["dataset"] == name, column].to_numpy() for name in names]
        if names:
            axis.boxplot(values, widths=0.5, showfliers=False, **_horizontal(axis))
            for position, data in enumerate(values, start=1):
                # a deterministic spread so that identical values stay visible
                offsets = [0.36 * ((i * 0.618) % 1 - 0.5) for i in range(len(data))]
                axis.scatter(data, [position + o for o in offsets], s=8, alpha=0.35, color="tab:blue")
        axis.set_xlim(-0.02, 1.02)
        axis.set_xlabel("share of the response found in its evidence")
        axis.set_title(f"Coverage by {what}")
        axis.grid(axis="x", alpha=0.3)
    labels = []
    for name in names:
        rows = frame[frame["dataset"] == name]
        kind = kinds.get(name, "")
        note = f", {kind}" if kind in (DEMO, PARTIAL) else ""
        labels.append(f"{name}\n{rows['unit'].iloc[0]}, n={len(rows)}{note}")
    axes[0].set_yticks(range(1, len(names) + 1), labels)
    axes[0].invert_yaxis()
    figure.suptitle("How much of each response comes from the evidence it used")
    figure.tight_layout()
    return figure


__all__ = [
    "DatasetProfile",
    "choose_split",
    "compared_datasets",
    "data_note",
    "language_of",
    "load_common",
    "overlap_frame",
    "overlap_summary",
    "plot_overlap",
    "profile",
    "provenance_banners",
    "role_table",
    "side_by_side",
]
