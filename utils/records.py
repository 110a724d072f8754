"""Common records shared by every dataset, and the schema of one as ``atlas export`` writes it.

A :class:`Dialogue` (a conversation, a dialogue, a QA session: whatever one record of a dataset is)
holds ordered :class:`Turn` objects; each turn holds the :class:`Evidence` its speaker was shown and
says which pieces were selected or cited. Roles are normalised to two values, :data:`SEEKER` and
:data:`WIZARD`; the original speaker string is kept in :attr:`Turn.speaker`. Every original field
that the common fields do not cover stays reachable in ``raw``/``meta``.

The lowest layer: this module imports nothing of the atlas, and what builds records from a split
(:func:`utils.loading.export_records`) lives above it.
"""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields, make_dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

if TYPE_CHECKING:
    import pyarrow as pa

#: The person asking, learning or searching: WoW apprentice, FaithDial seeker, WISE user, JWHR
#: question.
SEEKER = "seeker"
#: The person who has the knowledge: WoW and FaithDial wizard, WISE system, JWHR answering worker.
WIZARD = "wizard"
ROLES = (SEEKER, WIZARD)


class Evidence(msgspec.Struct, gc=False):
    """One piece of knowledge shown to a speaker (a sentence, a passage, a quote or a summary).

    ``id`` is stable within its dialogue and says where the piece came from in the original file
    (for example ``"Science fiction#0"`` for WoW or ``"3251-8"`` for a WISE passage). ``origin``
    names the channel it arrived through (``"topic"``, ``"retrieved:seeker"``, ``"knowledge"``,
    ``"passage"``, ``"quote"``, ...). ``selected`` marks the piece the speaker chose or cited.

    A parser builds one as ``Evidence(id, text, title=None, origin="", selected=False, meta={})``;
    every piece gets a ``meta`` dict of its own.

    Used like :class:`Turn` and :class:`Dialogue` (equality, ``repr``, ``dataclasses.fields``,
    ``asdict`` and ``replace``), but a ``msgspec.Struct``, not a dataclass: a split has millions of
    these (5.4 million in WoW train), and a struct is made in C, is smaller, and is not tracked by the
    cyclic collector: walking every evidence row of WoW train took 3.0 s of CPU as dataclasses, 2.5 s
    as structs. Not tracked, an Evidence must not be part of a reference cycle (a ``meta`` that holds
    its own Evidence): such a cycle would never be freed.
    """

    id: str
    text: str
    title: str | None = None
    origin: str = ""
    selected: bool = False
    meta: dict[str, Any] = {}

    #: The fields as ``dataclasses`` describes them (see :func:`_as_dataclass_fields`).
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]


def _as_dataclass_fields(struct: type[msgspec.Struct]) -> dict[str, Field[Any]]:
    """The fields of ``struct`` as ``dataclasses`` declares them, taken from a dataclass of the same
    fields and defaults: ``dataclasses`` recognises a record by this attribute alone, so that
    ``asdict`` of a dialogue turns its evidence into dicts too, and ``replace`` copies it."""
    declared: list[tuple[str, Any] | tuple[str, Any, Field[Any]]] = []
    for info in msgspec.structs.fields(struct):
        if info.default_factory is not msgspec.NODEFAULT:
            declared.append((info.name, info.type, field(default_factory=info.default_factory)))
        elif info.default is not msgspec.NODEFAULT:
            declared.append((info.name, info.type, field(default=info.default)))
        else:
            declared.append((info.name, info.type))
    return {item.name: item for item in fields(make_dataclass(struct.__name__, declared))}


Evidence.__dataclass_fields__ = _as_dataclass_fields(Evidence)


@dataclass(slots=True)
class Turn:
    """One utterance, with the evidence shown to its speaker and its labels.

    A parser builds one as ``Turn(index, role, speaker, text, evidence=[], labels={}, raw={})``:
    ``role`` is :data:`SEEKER` or :data:`WIZARD`, ``speaker`` the original speaker string,
    ``labels`` maps a label scheme to its values, ``raw`` keeps the original fields not mapped.
    """

    index: int
    role: str
    speaker: str
    text: str
    evidence: list[Evidence] = field(default_factory=list)
    labels: dict[str, list[str]] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def selected_evidence(self) -> list[Evidence]:
        """The evidence the speaker selected or cited, in original order."""
        return [item for item in self.evidence if item.selected]


class _CarriesSource:
    """The slot behind :attr:`Dialogue.source`, kept out of the dataclass's fields: equality, ``repr``,
    ``dataclasses.asdict``/``replace`` and the constructor see the record's content only, as before
    (``asdict`` would otherwise copy the whole declaration, functions and all, into every dict)."""

    __slots__ = ("_source",)

    @property
    def source(self) -> object | None:
        """The declaration this dialogue was loaded from (a :class:`~utils.declaration.DatasetSource`,
        read through :func:`utils.sources.source_of`); ``None`` for one a parser or a test built.

        Not a field: two dialogues of the same content are equal however they were made. A pickle
        keeps it (a registered declaration as its name: :mod:`utils.sources`).
        """
        try:
            return self._source
        except AttributeError:  # never set
            return None

    @source.setter
    def source(self, value: object | None) -> None:
        self._source = value


@dataclass(slots=True)
class Dialogue(_CarriesSource):
    """A conversation or session: ordered turns plus dialogue-level metadata.

    A parser builds one as ``Dialogue(id, dataset, split, turns, topic=None, meta={})``. ``dataset``
    is the dataset's name, the record's serialised form (in the cache, an export). The loader also
    hands each dialogue the declaration it was loaded from (:attr:`source`), so that what reads a
    record asks it for the dataset's renderer, hooks and facts instead of looking the name up in the
    registry again (:func:`utils.sources.source_of`).
    """

    id: str
    dataset: str
    split: str
    turns: list[Turn]
    topic: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def turns_by(self, role: str) -> list[Turn]:
        """The turns spoken in one normalised role (:data:`SEEKER` or :data:`WIZARD`)."""
        return [turn for turn in self.turns if turn.role == role]


# -- the record as exported and handed to `datasets` -------------------------------------------------


@cache
def _record_schema() -> pa.Schema:
    """The Arrow schema of one exported record, made on first use: ``import utils`` loads no pyarrow."""
    import pyarrow as pa

    turn_record = pa.struct(
        [
            ("index", pa.int32()),
            ("role", pa.string()),
            ("speaker", pa.string()),
            ("text", pa.string()),
            ("labels", pa.list_(pa.struct([("name", pa.string()), ("values", pa.list_(pa.string()))]))),
            (
                "evidence",
                pa.list_(
                    pa.struct(
                        [
                            ("id", pa.string()),
                            ("title", pa.string()),
                            ("origin", pa.string()),
                            ("text", pa.string()),
                            ("selected", pa.bool_()),
                            ("meta", pa.string()),
                        ]
                    )
                ),
            ),
        ]
    )
    return pa.schema(
        [
            ("dataset", pa.string()),
            ("split", pa.string()),
            ("index", pa.int64()),
            ("id", pa.string()),
            ("topic", pa.string()),
            ("meta", pa.string()),
            ("turns", pa.list_(turn_record)),
            (
                "provenance",
                pa.struct(
                    [
                        ("kind", pa.string()),
                        ("checksum", pa.string()),
                        ("source", pa.string()),
                        ("size_bytes", pa.int64()),
                        ("dialogues", pa.int64()),
                        ("turns", pa.int64()),
                    ]
                ),
            ),
        ]
    )


def __getattr__(name: str) -> Any:
    # PEP 562: ``RECORD_SCHEMA`` is made (and pyarrow imported) when first asked for.
    if name == "RECORD_SCHEMA":
        return _record_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    #: The Arrow schema of one exported record: ``atlas export --to parquet`` and
    #: ``LoadedSplit.to_hf_dataset("records")`` (fields documented in :mod:`utils.cli`).
    RECORD_SCHEMA: pa.Schema
