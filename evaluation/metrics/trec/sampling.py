"""Stratified sampled pools for the inferred measures (Yilmaz, Kanoulas & Aslam, SIGIR 2008, "A simple
and efficient sampling method for estimating AP and NDCG"): the pool is cut into strata by rank and a
different share of each stratum is judged, e.g. every document in ranks 1–10, 20 % of ranks 11–100,
5 % of ranks 101–1000 (``DEFAULT_STRATA``, the design of their TREC 2007 and 2008 tracks).

Design, per topic:

1. a document's stratum is the one holding its best rank over the runs (trec_eval's order: score
   descending, ties by docno descending); a document whose best rank is below the last stratum is
   outside the pool;
2. in a stratum of N documents, n = round(rate · N) of them (at least 1, halves rounded up) are
   drawn by simple random sampling without replacement, so each has inclusion probability n / N —
   the share ``sample_eval.pl`` itself infers from the sample qrels (sampled / all of the stratum);
3. the draw is seeded by (seed, topic, stratum), so it is deterministic and a topic's sample does not
   depend on the other topics.

The strata's labels are their positions ("1", "2", …): the stratum column of the sample qrels.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from evaluation.metrics.trec.files import Run
from evaluation.metrics.trec.pooling import depth_k_pool


class Stratum(NamedTuple):
    """Ranks ``first``..``last`` (1-based, inclusive), of which a share ``rate`` in (0, 1] is judged."""

    first: int
    last: int
    rate: float


DEFAULT_STRATA = (Stratum(1, 10, 1.0), Stratum(11, 100, 0.2), Stratum(101, 1000, 0.05))


class StrataError(ValueError):
    """A strata design that cannot be used; the message names the stratum and what is wrong."""


class PoolMember(NamedTuple):
    """One (topic, document) of a stratified pool: its best rank, its stratum's label, its inclusion
    probability (the stratum's n / N) and whether the draw picked it for judging."""

    topic: str
    docno: str
    best_rank: int
    stratum: str
    probability: float
    sampled: bool


def parse_strata(text: str) -> tuple[Stratum, ...]:
    """Strata written ``FIRST-LAST:RATE,…`` (e.g. ``1-10:1,11-100:0.2,101-1000:0.05``), checked by
    ``check_strata``. Raises ``StrataError`` naming the item that cannot be read."""
    strata = []
    for position, item in enumerate(text.split(","), start=1):
        ranks, colon, rate_text = item.strip().partition(":")
        first_text, dash, last_text = ranks.partition("-")
        try:
            if not colon or not dash:
                raise ValueError
            stratum = Stratum(int(first_text), int(last_text), float(rate_text))
        except ValueError:
            raise StrataError(
                f"stratum {position} ({item.strip()!r}): expected FIRST-LAST:RATE, e.g. 11-100:0.2"
            ) from None
        strata.append(stratum)
    return check_strata(strata)


def check_strata(strata: Sequence[Stratum]) -> tuple[Stratum, ...]:
    """The strata if they cover ranks 1..last without gap or overlap, each with a rate in (0, 1]."""
    if not strata:
        raise StrataError("no strata: give at least one, e.g. 1-100:1")
    expected_first = 1
    for position, stratum in enumerate(strata, start=1):
        name = f"stratum {position} ({stratum.first}-{stratum.last}:{stratum.rate:g})"
        if stratum.first != expected_first:
            raise StrataError(f"{name}: must start at rank {expected_first} (strata cover 1..last, in order)")
        if stratum.last < stratum.first:
            raise StrataError(f"{name}: its last rank is before its first")
        if not (0 < stratum.rate <= 1) or math.isnan(stratum.rate):
            raise StrataError(f"{name}: the sampling rate must be in (0, 1]")
        expected_first = stratum.last + 1
    return tuple(strata)


def sample_size(count: int, rate: float) -> int:
    """How many of a stratum's ``count`` documents are judged: round(rate · count), halves up, at least
    1 (a stratum with documents is never left without a sample, which would leave its relevant
    documents unestimated: ``sample_eval.pl`` skips a stratum with no judged document)."""
    if count == 0:
        return 0
    return min(count, max(1, math.floor(rate * count + 0.5)))


def stratified_sample(runs: Iterable[Run], strata: Sequence[Stratum], seed: int) -> list[PoolMember]:
    """The stratified pool of ``runs``: every pooled (topic, document) with its stratum and inclusion
    probability, the sampled ones marked. Sorted by topic, stratum position, docno."""
    strata = check_strata(strata)
    pool = depth_k_pool(runs, strata[-1].last)
    members: list[PoolMember] = []
    for topic in sorted(pool):
        best_ranks = pool[topic]
        for position, stratum in enumerate(strata, start=1):
            docnos = sorted(d for d, rank in best_ranks.items() if stratum.first <= rank <= stratum.last)
            size = sample_size(len(docnos), stratum.rate)
            chosen = set(random.Random(f"{seed}:{topic}:{position}").sample(docnos, size))
            members.extend(
                PoolMember(topic, d, best_ranks[d], str(position), size / len(docnos), d in chosen)
                for d in docnos
            )
    return members
