"""trec_eval's measures for every topic at once (pure): a topics × ranks matrix per quantity, each topic's
row padded past its own length, instead of a hundred NumPy calls per topic (``measures.topic_measures``).

Every value is bit-identical to ``topic_measures``'s: the same floating-point operations in the same
order. Running sums are row-wise ``cumsum`` over each topic's terms packed to the left (a family's
terms computed only where it has any: the relevant ranks, say), so the zeros after them change
nothing; the sums ``topic_measures`` takes with NumPy's pairwise ``sum`` (average precision, bpref)
are taken the same way, over the same number of terms, for the topics that share that number; scalar
arithmetic is done in Python on the integers, as there.
Families given ``level=gain`` pairs, ndcg_exp and ndcg_cut_exp are scored topic by topic as before.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from evaluation.metrics.trec.measures import (
    CALCULATORS,
    INFAP_EPSILON,
    NOT_IN_POOL,
    UNJUDGED_IN_POOL,
    Measure,
    RankedTopic,
    _discounts,
    _persistence,
    _relstring,
    _Topic,
)


class _Batch:
    """Every topic's shared quantities (``_Topic``'s) as matrices, one row per topic."""

    def __init__(self, topics: Sequence[RankedTopic], relevance_level: int, version: str) -> None:
        self.topics = topics
        self.relevance_level = relevance_level
        self.version = version
        self.count = count = len(topics)
        self.n = n = np.array([len(topic.rels) for topic in topics], dtype=np.int64)
        self.width = width = int(n.max()) if count else 0
        self.valid = valid = np.arange(width) < n[:, None]
        self.rels = rels = np.full((count, width), NOT_IN_POOL, dtype=np.int64)
        if width:
            rels[valid] = np.concatenate([topic.rels for topic in topics])
        self.num_ret = n.tolist()
        self.num_rel = [sum(c for level, c in t.levels.items() if level >= relevance_level) for t in topics]
        self.num_nonrel = [sum(c for level, c in t.levels.items() if level < relevance_level) for t in topics]
        self.relevant = relevant = (rels >= relevance_level) & valid
        self.cum_rel = cum_rel = np.cumsum(relevant, axis=1)
        self.num_rel_ret = (cum_rel[:, -1] if width else np.zeros(count, dtype=np.int64)).tolist()
        self.ranks = np.arange(1, width + 1)
        self.cache: dict = {}
        self._per_topic: list[_Topic] | None = None

    def rel_in_top(self, k: int | np.ndarray) -> list[int]:
        """``_Topic.rel_in_top`` for every topic (k one cut-off, or one per topic)."""
        if not self.width:
            return [0] * self.count
        cut = np.minimum(np.broadcast_to(np.asarray(k, dtype=np.int64), (self.count,)), self.n)
        values = self.cum_rel[np.arange(self.count), np.maximum(cut, 1) - 1]
        return np.where(cut > 0, values, 0).tolist()

    def precision_at_rel(self) -> tuple[np.ndarray, np.ndarray]:
        """Each topic's ``precision_at_rel`` left-aligned in a row (zeros after), and their counts."""
        if "precision" not in self.cache:
            counts = np.array(self.num_rel_ret, dtype=np.int64)
            rows, columns = np.nonzero(self.relevant)
            packed = np.zeros((self.count, int(counts.max()) if self.count else 0))
            packed[rows, self.cum_rel[rows, columns] - 1] = self.cum_rel[rows, columns] / self.ranks[columns]
            self.cache["precision"] = packed, counts
        return self.cache["precision"]

    def per_topic(self) -> list[_Topic]:
        if self._per_topic is None:
            self._per_topic = [_Topic(topic, self.relevance_level, self.version) for topic in self.topics]
        return self._per_topic

    def default_gains(self, rescale: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``_default_gains`` for every topic: gains (T × width), ideal gains left-aligned (T × most
        positive judgements, zeros after) and each topic's number of ideal gains."""
        key = ("gains", rescale)
        if key not in self.cache:
            tops = [max(topic.levels, default=0) for topic in self.topics]
            scales = np.array([float(top) if rescale and top > 1 else 1.0 for top in tops])
            gains = np.maximum(self.rels, 0) / scales[:, None]
            if "ideal" not in self.cache:
                levels: list[int] = []
                counts: list[int] = []
                lengths = []
                for topic in self.topics:
                    positive = sorted((level for level in topic.levels if level > 0), reverse=True)
                    levels += positive
                    counts += [topic.levels[level] for level in positive]
                    lengths.append(sum(topic.levels[level] for level in positive))
                sizes = np.array(lengths, dtype=np.int64)
                ideal = np.zeros((self.count, int(sizes.max()) if self.count else 0))
                ideal[np.arange(ideal.shape[1]) < sizes[:, None]] = np.repeat(
                    np.array(levels, dtype=float), counts
                )
                self.cache["ideal"] = ideal, sizes
            ideal, sizes = self.cache["ideal"]
            self.cache[key] = gains, ideal / scales[:, None], sizes
        return self.cache[key]

    def ndcg_curves(self) -> tuple[np.ndarray, np.ndarray]:
        """``_ndcg_curves_for`` with default gains: running DCG of each ranking and of its ideal one."""
        if "curves" not in self.cache:
            gains, ideal, _ = self.default_gains(False)
            self.cache["curves"] = (
                np.cumsum(gains / _discounts(self.width), axis=1),
                np.cumsum(ideal / _discounts(ideal.shape[1]), axis=1),
            )
        return self.cache["curves"]


def _pairwise_prefix_sums(rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``rows[i, :lengths[i]].sum()`` for every row: NumPy's pairwise sum, which groups its terms by
    their number, so each length's rows are summed together over exactly that many terms."""
    sums = np.zeros(len(rows))
    order = np.argsort(lengths, kind="stable")
    ordered = lengths[order]
    edges = [0, *(np.flatnonzero(ordered[1:] != ordered[:-1]) + 1).tolist(), len(rows)]
    for start, end in itertools.pairwise(edges):
        length = int(ordered[start])
        if length:
            chosen = order[start:end]
            sums[chosen] = rows[chosen, :length].sum(axis=1)
    return sums


def _last(running: np.ndarray, at: np.ndarray | None = None) -> np.ndarray:
    """A running sum's value at ``at`` (default: the row's end), 0.0 for an empty row."""
    if not running.shape[1]:
        return np.zeros(len(running))
    return running[:, -1] if at is None else running[np.arange(len(running)), at]


def _sequential_sums(mask: np.ndarray, values) -> list[float]:
    """Each row's left-to-right sum of ``values`` where ``mask`` holds (``_sequential_sum`` over the
    row's chosen terms, in rank order). ``values(rows, columns)`` gives the terms at those places only:
    they are a tenth of the matrix or less for most families."""
    rows, columns = np.nonzero(mask)
    counts = np.bincount(rows, minlength=len(mask))
    return _last(np.cumsum(_packed(rows, counts, values(rows, columns)), axis=1)).tolist()


def _packed(rows: np.ndarray, counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Values given row by row (``rows`` ascending, ``counts`` per row) left-aligned in a matrix, zeros
    after each row's own."""
    packed = np.zeros((len(counts), int(counts.max()) if len(counts) else 0))
    if len(rows):
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        packed[rows, np.arange(len(rows)) - starts[rows]] = values
    return packed


Columns = list[tuple[str, list]]


def _per_cutoff(measure: Measure, value_at) -> Columns:
    return [(name, value_at(k)) for name, k in zip(measure.names(), measure.params, strict=True)]


def _counts(b: _Batch, measure: Measure) -> Columns:
    if measure.family == "num_nonrel_judged_ret":
        return [(measure.family, ((b.rels >= 0) & (b.rels < b.relevance_level)).sum(axis=1).tolist())]
    return [
        (
            measure.family,
            {"num_ret": b.num_ret, "num_rel": b.num_rel, "num_rel_ret": b.num_rel_ret}[measure.family],
        )
    ]


def _average_precision(b: _Batch, cutoff: int | None) -> list[float]:
    packed, counts = b.precision_at_rel()
    terms = counts if cutoff is None else np.array(b.rel_in_top(cutoff), dtype=np.int64)
    sums = _pairwise_prefix_sums(packed, terms).tolist()
    return [
        float(total) / num_rel if num_rel else 0.0 for total, num_rel in zip(sums, b.num_rel, strict=True)
    ]


def _map(b: _Batch, measure: Measure) -> Columns:
    return [(measure.family, _average_precision(b, None))]


def _map_cut(b: _Batch, measure: Measure) -> Columns:
    return _per_cutoff(measure, lambda k: _average_precision(b, k))


def _rprec(b: _Batch, measure: Measure) -> Columns:
    top = b.rel_in_top(np.array(b.num_rel, dtype=np.int64))
    return [("Rprec", [r / num_rel if num_rel else 0.0 for r, num_rel in zip(top, b.num_rel, strict=True)])]


def _rprec_mult(b: _Batch, measure: Measure) -> Columns:
    def value(multiplier: float) -> list[float]:
        cutoffs = [int(multiplier * num_rel + 0.9) for num_rel in b.num_rel]
        top = b.rel_in_top(np.array(cutoffs, dtype=np.int64))
        return [
            r / cutoff if num_rel and cutoff else 0.0
            for r, cutoff, num_rel in zip(top, cutoffs, b.num_rel, strict=True)
        ]

    return _per_cutoff(measure, value)


def _bpref_values(b: _Batch) -> list[float]:
    if "bpref" not in b.cache:
        nonrel = (b.rels >= 0) & (b.rels < b.relevance_level)
        counted = b.rels >= max(b.relevance_level, 0)  # judged and not non-relevant, in rank order
        rows, columns = np.nonzero(counted)
        nonrel_above = np.cumsum(nonrel, axis=1)[rows, columns]
        num_rel = np.array(b.num_rel, dtype=np.int64)
        limits = np.array([max(min(nn, nr), 1) for nn, nr in zip(b.num_nonrel, b.num_rel, strict=True)])
        penalties = np.minimum(nonrel_above, num_rel[rows]) / limits[rows]
        counts = np.bincount(rows, minlength=b.count)
        packed = _packed(rows, counts, np.where(nonrel_above > 0, 1.0 - penalties, 1.0))
        sums = _pairwise_prefix_sums(packed, counts).tolist()
        b.cache["bpref"] = [float(s) / nr if nr else 0.0 for s, nr in zip(sums, b.num_rel, strict=True)]
    return b.cache["bpref"]


def _bpref_family(b: _Batch, measure: Measure) -> Columns:
    return [(measure.family, _bpref_values(b))]


def _recip_rank(b: _Batch, measure: Measure) -> Columns:
    first = np.argmax(b.relevant, axis=1).tolist() if b.width else [0] * b.count
    return [
        ("recip_rank", [1.0 / float(f + 1) if r else 0.0 for f, r in zip(first, b.num_rel_ret, strict=True)])
    ]


def _interpolated(b: _Batch, points: Sequence[float]) -> list[list[float]]:
    """``interpolated_precision`` for every topic: one list of the topics' values per point."""
    key = ("interpolated", tuple(points))
    if key not in b.cache:
        packed, counts = b.precision_at_rel()
        if not packed.shape[1]:
            b.cache[key] = [[0.0] * b.count for _ in points]
            return b.cache[key]
        # The best precision at or after each relevant document (zeros after a topic's last one).
        best = np.maximum.accumulate(packed[:, ::-1], axis=1)[:, ::-1]
        num_rel = np.array(b.num_rel, dtype=np.int64)
        scored = (num_rel > 0) & (counts > 0)
        columns = []
        for point in points:  # _relevant_count_at, the same operations on every topic's num_rel
            if b.version.startswith("9"):
                wanted = (point * num_rel + 0.9).astype(np.int64)
            else:
                wanted = np.floor(point * num_rel + 0.5).astype(np.int64)
            at = np.minimum(np.maximum(wanted, 1), packed.shape[1]) - 1
            value = best[np.arange(b.count), at]
            columns.append(np.where(scored & (wanted <= counts), value, 0.0).tolist())
        b.cache[key] = columns
    return b.cache[key]


def _iprec_at_recall(b: _Batch, measure: Measure) -> Columns:
    return list(zip(measure.names(), _interpolated(b, measure.params), strict=True))


def _11pt_avg(b: _Batch, measure: Measure) -> Columns:
    per_topic = zip(*_interpolated(b, measure.params), strict=True)
    return [(measure.names()[0], [sum(values) / len(values) for values in per_topic])]


def _precision(b: _Batch, measure: Measure) -> Columns:
    return _per_cutoff(measure, lambda k: [r / k for r in b.rel_in_top(k)])


def _recall(b: _Batch, measure: Measure) -> Columns:
    return _per_cutoff(
        measure, lambda k: [r / nr if nr else 0.0 for r, nr in zip(b.rel_in_top(k), b.num_rel, strict=True)]
    )


def _success(b: _Batch, measure: Measure) -> Columns:
    return _per_cutoff(measure, lambda k: [float(r > 0) for r in b.rel_in_top(k)])


def _relative_precision(b: _Batch, measure: Measure) -> Columns:
    return _per_cutoff(
        measure,
        lambda k: [r / min(k, nr) if nr else 0.0 for r, nr in zip(b.rel_in_top(k), b.num_rel, strict=True)],
    )


def _infap(b: _Batch, measure: Measure) -> Columns:
    relevant = (b.rels >= max(b.relevance_level, 0)) & b.valid
    nonrel = np.cumsum((b.rels >= 0) & ~relevant, axis=1)
    unjudged = np.cumsum(b.rels == UNJUDGED_IN_POOL, axis=1)
    above_all = np.cumsum(relevant, axis=1)

    def terms(rows: np.ndarray, index: np.ndarray) -> np.ndarray:
        above = above_all[rows, index] - 1  # relevant documents before this one
        nonrel_at, unjudged_at = nonrel[rows, index], unjudged[rows, index]
        later = np.maximum(index, 1)  # index 0 takes the first branch; this only avoids dividing by 0
        return np.where(
            index == 0,
            1.0,
            1.0 / (index + 1)
            + (index / (index + 1)) * ((above + nonrel_at + unjudged_at) / later)
            * ((above + INFAP_EPSILON) / (above + nonrel_at + 2 * INFAP_EPSILON)),
        )  # fmt: skip

    sums = _sequential_sums(relevant, terms)
    return [("infAP", [s / nr if nr else 0.0 for s, nr in zip(sums, b.num_rel, strict=True)])]


def _set_measures(b: _Batch, measure: Measure) -> Columns:
    values = []
    for num_ret, num_rel, num_rel_ret in zip(b.num_ret, b.num_rel, b.num_rel_ret, strict=True):
        set_p = num_rel_ret / num_ret if num_ret else 0.0
        set_r = num_rel_ret / num_rel if num_rel else 0.0
        if measure.family == "set_F":
            x = measure.params[0]
            values.append((x + 1.0) * set_p * set_r / (x * set_p + set_r) if num_rel_ret else 0.0)
        elif measure.family == "set_relative_P":
            values.append(num_rel_ret / min(num_ret, num_rel) if num_ret and num_rel else 0.0)
        else:
            values.append({"set_P": set_p, "set_recall": set_r, "set_map": set_p * set_r}[measure.family])
    name = measure.names()[0] if measure.family == "set_F" else measure.family
    return [(name, values)]


def _unjudged(b: _Batch, measure: Measure) -> Columns:
    unjudged = np.cumsum((b.rels < 0) & b.valid, axis=1)

    def value(k: int) -> list[float]:
        if not b.width:
            return [0.0] * b.count
        counts = unjudged[:, min(k, b.width) - 1].tolist()
        return [c / k if n else 0.0 for c, n in zip(counts, b.num_ret, strict=True)]

    return _per_cutoff(measure, value)


def _utility(b: _Batch, measure: Measure) -> Columns:
    p1, p2, p3, p4 = measure.params
    return [
        (
            measure.names()[0],
            [
                p1 * num_rel_ret + p2 * (num_ret - num_rel_ret) + p3 * (num_rel - num_rel_ret)
                + p4 * (0 + num_rel_ret - num_ret - num_rel)
                for num_ret, num_rel, num_rel_ret in zip(b.num_ret, b.num_rel, b.num_rel_ret, strict=True)
            ],
        )
    ]  # fmt: skip


class _Rels:
    """What ``_relstring`` reads of a topic."""

    def __init__(self, rels: np.ndarray) -> None:
        self.rels = rels
        self.num_ret = len(rels)


def _relstring_family(b: _Batch, measure: Measure) -> Columns:
    texts = [dict(_relstring(_Rels(topic.rels), measure)) for topic in b.topics]  # type: ignore[arg-type]
    name = measure.names()[0]
    return [(name, [text[name] for text in texts])]


def _bin_g(b: _Batch, measure: Measure) -> Columns:
    sums = _sequential_sums(b.relevant, lambda rows, index: 1.0 / np.log2(3 + index - b.cum_rel[rows, index]))
    return [("binG", [s / nr if r else 0.0 for s, nr, r in zip(sums, b.num_rel, b.num_rel_ret, strict=True)])]


def _g(b: _Batch, measure: Measure) -> Columns:
    gains, ideal, lengths = b.default_gains(False)
    rows, at = np.nonzero((gains != 0) & b.valid)
    counts = np.bincount(rows, minlength=b.count)
    place = np.arange(len(rows)) - np.concatenate(([0], np.cumsum(counts)[:-1]))[rows]
    chosen = gains[rows, at]
    # m_G.c's running gain at these ranks: the running sum of the gains alone (the zeros between add
    # nothing). Its running cost: max(ideal gain, 1) summed down to the rank while the ideal ranking
    # lasts, then 1 a rank. Default gains are whole numbers, so every such sum is exact, and the cost
    # at rank j past the head h is the sum at h plus j − h + 1, whatever the order of the additions.
    running_gains = np.cumsum(_packed(rows, counts, chosen), axis=1)[rows, place]
    head = np.minimum(lengths, b.n)[rows]
    ideal_costs = np.cumsum(np.maximum(ideal, 1.0), axis=1)
    widest = max(ideal.shape[1] - 1, 0)
    before_head = ideal_costs[rows, np.minimum(at, widest)] if ideal.shape[1] else np.zeros(len(rows))
    at_head = ideal_costs[rows, np.clip(head - 1, 0, widest)] if ideal.shape[1] else np.zeros(len(rows))
    running_costs = np.where(at < head, before_head, np.where(head > 0, at_head, 0.0) + (at - head + 1))
    terms = chosen / np.log2(2 + running_costs - running_gains)
    sums = _last(np.cumsum(_packed(rows, counts, terms), axis=1)).tolist()
    ideal_sums = _last(np.cumsum(ideal, axis=1)).tolist()
    return [
        (
            measure.names()[0],
            [
                s / i if length else 0.0
                for s, i, length in zip(sums, ideal_sums, lengths.tolist(), strict=True)
            ],
        )
    ]


def _ndcg_at(b: _Batch, cutoff: int | None) -> list[float]:
    dcg, ideal_dcg = b.ndcg_curves()
    _, _, lengths = b.default_gains(False)
    if cutoff == 0:
        return [0.0] * b.count
    values = []
    for curve, ends in ((dcg, b.n), (ideal_dcg, lengths)):
        if not curve.shape[1]:
            values.append(np.zeros(b.count))
            continue
        at = ends if cutoff is None else np.minimum(ends, cutoff)
        values.append(np.where(ends > 0, curve[np.arange(b.count), np.maximum(at, 1) - 1], 0.0))
    return [d / i if i > 0 else 0.0 for d, i in zip(values[0].tolist(), values[1].tolist(), strict=True)]


def _ndcg_family(b: _Batch, measure: Measure) -> Columns:
    return [(measure.names()[0], _ndcg_at(b, None))]


def _ndcg_cut(b: _Batch, measure: Measure) -> Columns:
    return _per_cutoff(measure, lambda k: _ndcg_at(b, int(k)))


def _ndcg_rel(b: _Batch, measure: Measure) -> Columns:
    gains, _, lengths = b.default_gains(False)
    dcg, ideal_dcg = b.ndcg_curves()
    if not ideal_dcg.shape[1] or not b.width:
        return [(measure.names()[0], [0.0] * b.count)]
    positive = (gains > 0) & b.valid
    column = np.minimum(np.arange(b.width), np.maximum(lengths, 1)[:, None] - 1)
    column = np.minimum(column, ideal_dcg.shape[1] - 1)
    sums = _sequential_sums(positive, lambda rows, at: dcg[rows, at] / ideal_dcg[rows, column[rows, at]])
    found = positive.sum(axis=1).tolist()
    finals = np.where(b.n > 0, dcg[np.arange(b.count), np.maximum(b.n, 1) - 1], 0.0).tolist()
    ideal_last = ideal_dcg[np.arange(b.count), np.maximum(lengths, 1) - 1].tolist()
    values = []
    for s, f, final, last, length in zip(sums, found, finals, ideal_last, lengths.tolist(), strict=True):
        if not length:
            values.append(0.0)
            continue
        total = s + (length - f) * final / float(last)
        values.append(total / length if total > 0 else 0.0)
    return [(measure.names()[0], values)]


def _rndcg(b: _Batch, measure: Measure) -> Columns:
    _, ideal, lengths = b.default_gains(False)
    dcg, ideal_dcg = b.ndcg_curves()
    values = []
    for i, (num_rel, n, levels) in enumerate(zip(b.num_rel, b.num_ret, lengths.tolist(), strict=True)):
        if not num_rel or not levels:
            values.append(0.0)
            continue
        row = ideal[i, :levels]
        boundaries = [*(np.flatnonzero(row[1:] != row[:-1]) + 1).tolist(), levels]
        ratios = [
            (float(dcg[i, min(c, n) - 1]) if n else 0.0) / float(ideal_dcg[i, c - 1]) for c in boundaries
        ]
        if levels + 1 < n:
            ratios.append(float(dcg[i, n - 1]) / float(ideal_dcg[i, levels - 1]))
        total = ratios[0]
        for ratio in ratios[1:]:
            total += ratio
        values.append(total / len(ratios))
    return [(measure.names()[0], values)]


def _powers(b: _Batch, p: float) -> tuple[np.ndarray, np.ndarray]:
    """``measures._powers`` for every topic: the weights 1, p, p², … (T × width; each a prefix of the
    same running product) and p^n per topic."""
    products = np.cumprod(np.full(b.width, p))
    weights = np.concatenate(([1.0], products[:-1])) if b.width else products
    last = np.where(b.n > 0, products[np.maximum(b.n, 1) - 1] if b.width else 1.0, 1.0)
    return weights, last


def _rbp(b: _Batch, measure: Measure) -> Columns:
    p = _persistence(measure.params)
    gains, _, _ = b.default_gains(True)
    weights, _ = _powers(b, p)
    sums = _sequential_sums((gains != 0) & b.valid, lambda rows, at: gains[rows, at] * weights[at])
    return [(measure.names()[0], [(1.0 - p) * s for s in sums])]


def _rbp_resid(b: _Batch, measure: Measure) -> Columns:
    p = _persistence(measure.params)
    unjudged = (b.rels < 0) & b.valid
    weights, last = _powers(b, p)
    sums = _last(np.cumsum(np.where(unjudged, weights, 0.0), axis=1)).tolist()
    anything: list = (unjudged.sum(axis=1) > 0).tolist()
    return [
        (
            measure.names()[0],
            [lp + (1 - p) * s if a else 0.0 for lp, s, a in zip(last.tolist(), sums, anything, strict=True)],
        )
    ]


BATCHED = {
    "num_ret": _counts,
    "num_rel": _counts,
    "num_rel_ret": _counts,
    "num_nonrel_judged_ret": _counts,
    "map": _map,
    "gm_map": _map,
    "map_cut": _map_cut,
    "Rprec": _rprec,
    "Rprec_mult": _rprec_mult,
    "bpref": _bpref_family,
    "gm_bpref": _bpref_family,
    "recip_rank": _recip_rank,
    "iprec_at_recall": _iprec_at_recall,
    "11pt_avg": _11pt_avg,
    "P": _precision,
    "recall": _recall,
    "success": _success,
    "relative_P": _relative_precision,
    "infAP": _infap,
    "set_P": _set_measures,
    "set_recall": _set_measures,
    "set_map": _set_measures,
    "set_F": _set_measures,
    "set_relative_P": _set_measures,
    "unj": _unjudged,
    "utility": _utility,
    "relstring": _relstring_family,
    "binG": _bin_g,
    "G": _g,
    "ndcg": _ndcg_family,
    "ndcg_cut": _ndcg_cut,
    "ndcg_rel": _ndcg_rel,
    "Rndcg": _rndcg,
    "rbp": _rbp,
    "rbp_resid": _rbp_resid,
}
# Families batched only with the default gains (no ``level=gain`` pairs).
_DEFAULT_GAINS_ONLY = frozenset({"G", "ndcg", "ndcg_rel", "Rndcg", "rbp", "rbp_resid"})


def evaluate_ranked(
    topics: Mapping[str, RankedTopic],
    measures: Sequence[Measure],
    *,
    relevance_level: int = 1,
    version: str = "10.0",
) -> dict[str, dict[str, float]]:
    """``evaluate``'s result from topics already ranked (``columnar.rank_files``), in their order: the
    same values as ``topic_measures`` gives each topic."""
    if not topics:
        return {}
    batch = _Batch(list(topics.values()), relevance_level, version)
    columns: Columns = []
    for measure in measures:
        batched = BATCHED.get(measure.family)
        gains_given = measure.family in _DEFAULT_GAINS_ONLY and any(name != "p" for name, _ in measure.params)
        if batched is None or gains_given:
            per_topic = [dict(CALCULATORS[measure.family](t, measure)) for t in batch.per_topic()]
            names = list(per_topic[0]) if per_topic else list(measure.names())
            columns.extend((name, [values[name] for values in per_topic]) for name in names)
        else:
            columns.extend(batched(batch, measure))
    # dict(zip(...)) as topic_measures' updates: a name given twice keeps its first place, the later value.
    names = [name for name, _ in columns]
    rows = zip(*[column for _, column in columns], strict=True) if columns else ([] for _ in topics)
    return {qid: dict(zip(names, row, strict=True)) for qid, row in zip(topics, rows, strict=True)}
