"""What a page computes from a done job's results, kept in the cache: a done evaluation's scores and a
snapshot's labels are never rewritten, yet a leaderboard of 100 runs or a meta-evaluation matrix of
20,000 outputs takes seconds to compute and a page shows one on every visit. A cache that is down
computes it each time."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache

REMEMBER_SECONDS = 24 * 3600

T = TypeVar("T")


def remembered(kind: str, depends_on: Any, compute: Callable[[], T]) -> T:
    """``compute()``, kept under ``kind`` and a hash of ``depends_on`` (JSON: everything the result
    depends on, the rows' creation times among it, since keys of ids alone outlive a database
    replaced under the same Redis: a restore, a recreated one)."""
    hashed = hashlib.sha256(json.dumps(depends_on, default=str).encode()).hexdigest()[:40]
    key = f"{kind}:{hashed}"  # hashed: a dimension's name may hold spaces, which cache keys may not
    found = cache.get(key)
    if found is None:
        found = compute()
        cache.set(key, found, REMEMBER_SECONDS)
    return found
