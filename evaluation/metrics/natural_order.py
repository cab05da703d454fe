"""Topic ids in the order people count them: ``2`` before ``10``, ``q9`` before ``q10`` (pure).

Plain string order puts ``10`` before ``2``, which a table of 225 topics makes hard to read. Every
table, list and plot that shows topics to people sorts them with ``natural_key``; files in a field
format keep that format's own order (trec_eval's ``-q`` output sorts topic ids as strings, as
trec_eval does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """A sort key comparing runs of digits as numbers and the rest as text (case-folded, then as
    written, so that the order is total): ``["10", "2", "a1"]`` sorts to ``["2", "10", "a1"]``.

    Each part is tagged so that a number never meets a string in a comparison: ``"1a"`` and ``"a1"``
    compare without a TypeError (digits first, as in plain string order)."""
    parts = _DIGITS.split(text)
    key: list[tuple] = []
    for index, part in enumerate(parts):
        if index % 2:  # the captured runs of digits
            # Leading zeros break ties only: "007" and "7" are the same number.
            key.append((0, int(part), len(part)))
        elif part:
            key.append((1, part.casefold(), part))
    return (tuple(key), text)


def natural_sorted(ids: Iterable[str]) -> list[str]:
    """``ids`` sorted by ``natural_key``."""
    return sorted(ids, key=natural_key)
