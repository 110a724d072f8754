"""A columnar cache of parsed splits: four Arrow files (dialogues, turns, evidence, passages) per split,
and the turns' ``raw`` texts compressed beside them.

In two parts: :mod:`utils._cache.encoding` lays records out as Arrow columns and rebuilds them
(the tables' schemas, the writers a parser's batches go through, the reading of chunks back into
dialogues); :mod:`utils._cache.storage` keeps those tables on disk (the entry's key, its manifest of
sizes and checksums, the stamps that spare a re-read, the atomic write under a file lock, the memory
maps, and the fall-back to memory with a :class:`CacheWarning` when nothing can be written). The
encoding knows nothing of files; the storage hands it the sinks to write into.

The names below are what the rest of the package uses; the modules' private names (batch sizes, the
seams the tests patch) are reached through the module that owns them.
"""

from .encoding import (
    CACHE_FORMAT_VERSION,
    COMPRESSED_BELOW,
    DIALOGUE_SCHEMA,
    EVIDENCE_COLUMNS,
    EVIDENCE_PASSAGE_COLUMNS,
    EVIDENCE_REPEATED_COLUMNS,
    EVIDENCE_SCHEMA,
    PASSAGE_SCHEMA,
    RAW_SCHEMA,
    TURN_SCHEMA,
    CachedTables,
    EvidenceBatch,
    FastPathDeclined,
    PassageMemo,
    PassageTable,
    RawTexts,
    TurnColumns,
    build_in_memory,
    evidence_codes,
    evidence_column,
    evidence_objects,
    evidence_table,
    json_values,
    objects_and_missing,
    passage_column,
    rebuild_dialogues,
    shared_values,
    take_sorted,
    turns_table,
    walk_chunks,
)
from .storage import (
    CacheWarning,
    cache_key,
    describe_os_error,
    file_identity,
    load_or_build,
    parsed_in_memory,
    release_pages,
)

__all__ = [
    "CACHE_FORMAT_VERSION",
    "COMPRESSED_BELOW",
    "DIALOGUE_SCHEMA",
    "EVIDENCE_COLUMNS",
    "EVIDENCE_PASSAGE_COLUMNS",
    "EVIDENCE_REPEATED_COLUMNS",
    "EVIDENCE_SCHEMA",
    "PASSAGE_SCHEMA",
    "RAW_SCHEMA",
    "TURN_SCHEMA",
    "CacheWarning",
    "CachedTables",
    "EvidenceBatch",
    "FastPathDeclined",
    "PassageMemo",
    "PassageTable",
    "RawTexts",
    "TurnColumns",
    "build_in_memory",
    "cache_key",
    "describe_os_error",
    "evidence_codes",
    "evidence_column",
    "evidence_objects",
    "evidence_table",
    "file_identity",
    "json_values",
    "load_or_build",
    "objects_and_missing",
    "parsed_in_memory",
    "passage_column",
    "rebuild_dialogues",
    "release_pages",
    "shared_values",
    "take_sorted",
    "turns_table",
    "walk_chunks",
]
