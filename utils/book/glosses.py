"""English glosses: the atlas's own translations of the Chinese and Japanese text its chapters show.

One JSON file per dataset, ``glosses_en.json`` in its folder (``utils/datasets/<folder>/``), maps
:func:`gloss_key` of a text (a hash, so that no dataset text is stored with the translations) to its
English. A gloss therefore shows only under the very text it translates, whichever file or split
that text comes from. The renderers and the statistics look glosses up with :func:`english`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import cache


def gloss_key(text: str) -> str:
    """The key of ``text`` in :func:`glosses`: a hash, so that no dataset text is stored with them,
    and a gloss shows only under the very text it translates."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@cache
def glosses(dataset: str) -> Mapping[str, str]:
    """The atlas's English translations for ``dataset``'s text, by :func:`gloss_key` (empty when it has none)."""
    # Asked of the registry when called: the renderers that import this module are part of the
    # folders the registry imports.
    from utils.sources import get_source

    path = get_source(dataset).glosses_path
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def english(text: str | None, glosses: Mapping[str, str]) -> str | None:
    """The gloss of ``text`` in ``glosses`` (a mapping from :func:`glosses`), or ``None``."""
    return glosses.get(gloss_key(text)) if text else None
