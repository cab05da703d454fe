"""trec_eval's ranked-retrieval measures, per topic and over all topics, with trec_eval's semantics.

Semantics follow trec_eval (Buckley; NIST, version 10.0; ``form_res_rels.c`` and the ``m_*.c`` files):

* A run's documents are ordered by score descending, ties broken by docno descending; the rank
  column of the run file is ignored.
* A retrieved document is *relevant* if its qrels value is ``>= relevance_level`` (``-l``, default 1),
  *judged non-relevant* if ``0 <= value < relevance_level``, *unjudged in the pool* if its qrels
  value is negative, and *not in the pool* if the qrels do not list it. Measures other than bpref,
  infAP and num_nonrel_judged_ret treat the last two as non-relevant.
* ``judged_only`` (``-J``) drops retrieved documents that are not judged before ranking.
* By default only topics in both qrels and run are scored; ``complete`` (``-c``) scores every qrels
  topic, a topic the run lacks scoring 0 on every measure.
* nDCG's gain is the qrels value (trec_eval's default gains), independent of ``relevance_level``;
  the discount is ``log2(rank + 1)``.

Per-topic values are plain floats; ``aggregate`` gives trec_eval's ``all`` row: the arithmetic mean,
except sums for the counts and the geometric mean (floored at 1e-5) for gm_map and gm_bpref; relstring, a
string, is per topic only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from typing import Any

import numpy as np

from evaluation.metrics.trec.files import Qrels, Run, RunColumns, TopicScores, trec_order_indices

NOT_IN_POOL = -1
UNJUDGED_IN_POOL = -2
GEOMETRIC_MEAN_FLOOR = 0.00001
INFAP_EPSILON = 0.00001

DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
RECALL_POINTS = tuple(i / 10 for i in range(11))
RPREC_MULTIPLIERS = tuple(round(0.2 * i, 1) for i in range(1, 11))

UNJ_CUTOFFS = (5, 10, 20)

# The measure families we implement, in trec_eval's print order (measures.c), with their default
# parameters. ndcg_exp and ndcg_cut_exp are ours (nDCG with Burges et al.'s 2^rel − 1 gain, as
# ir_measures' ``nDCG(dcg="exp-log2")``); trec_eval has no exponential gain.
FAMILIES: dict[str, tuple] = {
    "num_ret": (),
    "num_rel": (),
    "num_rel_ret": (),
    "map": (),
    "gm_map": (),
    "Rprec": (),
    "bpref": (),
    "recip_rank": (),
    "iprec_at_recall": RECALL_POINTS,
    "P": DEFAULT_CUTOFFS,
    "relstring": (10.0,),
    "recall": DEFAULT_CUTOFFS,
    "infAP": (),
    "gm_bpref": (),
    "Rprec_mult": RPREC_MULTIPLIERS,
    "utility": (1.0, -1.0, 0.0, 0.0),
    "11pt_avg": RECALL_POINTS,
    "binG": (),
    "G": (),
    "ndcg": (),
    "ndcg_exp": (),
    "ndcg_rel": (),
    "Rndcg": (),
    "ndcg_cut": DEFAULT_CUTOFFS,
    "ndcg_cut_exp": DEFAULT_CUTOFFS,
    "map_cut": DEFAULT_CUTOFFS,
    "relative_P": DEFAULT_CUTOFFS,
    "success": SUCCESS_CUTOFFS,
    "set_P": (),
    "set_relative_P": (),
    "set_recall": (),
    "set_map": (),
    "set_F": (1.0,),
    "num_nonrel_judged_ret": (),
    "rbp": (),
    "rbp_resid": (),
    "unj": UNJ_CUTOFFS,
}
# How each family reads its parameters (meas_init.c): whole-number cut-offs (atol, sorted), fractional
# cut-offs (sorted), an ordered list of numbers, or ``level=gain`` pairs; the rest take none.
CUTOFF_FAMILIES = frozenset(
    {"P", "recall", "ndcg_cut", "ndcg_cut_exp", "map_cut", "success", "relative_P", "unj"}
)
POINT_FAMILIES = frozenset({"iprec_at_recall", "Rprec_mult"})
NUMBER_FAMILIES = {"relstring": 1, "utility": 4, "11pt_avg": None, "set_F": 1}  # how many (None: any)
PAIR_FAMILIES = frozenset({"G", "ndcg", "ndcg_rel", "Rndcg", "rbp", "rbp_resid"})
OFFICIAL = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P")  # fmt: skip
ALL_TREC = tuple(family for family in FAMILIES if family not in {"ndcg_exp", "ndcg_cut_exp"})
SET = ("num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P", "set_map",
       "set_F")  # fmt: skip
COUNTS = frozenset({"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})
GEOMETRIC = frozenset({"gm_map", "gm_bpref"})
# trec_eval prints these only in the ``all`` rows.
SUMMARY_ONLY = GEOMETRIC
# ...and this one (a string) only per topic: it has no ``all`` value to average or compare.
PER_TOPIC_ONLY = frozenset({"relstring"})


class MeasureError(ValueError):
    """An unknown measure name or a malformed parameter list."""


@dataclass(frozen=True)
class Measure:
    """One measure family with its parameters, e.g. ``Measure("P", (5, 10))``.

    ``label`` is the parameter text as given on the command line, for the families whose printed name
    carries it whole (``utility_2,-1,0,0``, ``ndcg_1=3,2=9``, ``set_F_0.5``); None with the defaults.
    """

    family: str
    params: tuple = ()
    label: str | None = None

    def names(self) -> tuple[str, ...]:
        """The names trec_eval prints, e.g. ``P_5``, ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``
        (the cached tuple: asked for every topic)."""
        return _names(self.family, self.params, self.label)


@lru_cache(maxsize=256)  # asked for every topic of every run
def _names(family: str, params: tuple, label: str | None = None) -> tuple[str, ...]:
    if family in POINT_FAMILIES:
        return tuple(f"{family}_{p:.2f}" for p in params)
    if family in CUTOFF_FAMILIES:
        return tuple(f"{family}_{_format_cutoff(p)}" for p in params)
    return (family,) if label is None else (f"{family}_{label}",)


def _format_cutoff(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": OFFICIAL,
    "set": SET,
    "all_trec": ALL_TREC,
    "all": ALL_TREC,
}


def parse_measures(specs: Iterable[str] | None) -> list[Measure]:
    """Parse trec_eval ``-m`` arguments: ``official`` (default), ``all_trec``, ``set``, ``map``, ``P.5,10``,
    ``ndcg_cut.10,20``, ``iprec_at_recall.0.25,0.5``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``,
    ``set_F.0.5``. Families keep trec_eval's print order."""
    requested: dict[str, Measure | None] = {}
    for spec in specs or ["official"]:
        if spec in {"runid", "num_q"}:  # printed by the CLI, not computed per topic
            continue
        if spec in NICKNAMES:
            for family in NICKNAMES[spec]:
                requested.setdefault(family, None)
            continue
        family, _, params_text = spec.partition(".")
        if family not in FAMILIES:
            known = ", ".join([*NICKNAMES, *FAMILIES])
            raise MeasureError(f"unknown measure {family!r}; known: {known}")
        if params_text:
            requested[family] = _parse_params(family, params_text)
        else:
            requested.setdefault(family, None)
    return [
        requested[family] or Measure(family, FAMILIES[family]) for family in FAMILIES if family in requested
    ]


def _parse_params(family: str, params_text: str) -> Measure:
    """A family's parameter list as trec_eval's meas_init.c reads it for that family's kind."""
    if family in PAIR_FAMILIES:
        return Measure(family, _parse_pairs(family, params_text), params_text)
    if family not in CUTOFF_FAMILIES | POINT_FAMILIES and family not in NUMBER_FAMILIES:
        raise MeasureError(f"measure {family!r} takes no parameters, got {params_text!r}")
    try:
        params = tuple(float(p) for p in params_text.split(","))
    except ValueError:
        raise MeasureError(f"measure {family!r}: parameters must be numbers, got {params_text!r}") from None
    if family in NUMBER_FAMILIES:  # get_double_params: in the order given, the text kept for the name
        wanted = NUMBER_FAMILIES[family]
        if wanted is not None and len(params) != wanted:
            raise MeasureError(f"measure {family!r} takes {wanted} number(s), got {params_text!r}")
        return Measure(family, params, params_text)
    if family in CUTOFF_FAMILIES:
        if any(p < 1 for p in params):
            raise MeasureError(f"measure {family!r}: cut-offs must be at least 1, got {params_text!r}")
        params = tuple(int(p) for p in params)  # trec_eval reads them with atol: 23.4 → 23
    return Measure(family, tuple(sorted(set(params))))


def _parse_pairs(family: str, params_text: str) -> tuple[tuple[str, float], ...]:
    """get_param_pairs (meas_init.c): comma-separated ``name=value``, e.g. ``1=3,2=9`` or ``p=0.95``."""
    pairs = []
    for item in params_text.split(","):
        name, equals, value = item.partition("=")
        try:
            if not name or not equals or "=" in value:
                raise ValueError
            pairs.append((name, float(value)))
        except ValueError:
            raise MeasureError(
                f"measure {family!r}: parameters must be name=number pairs, got {params_text!r}"
            ) from None
    return tuple(pairs)


@dataclass(frozen=True)
class RankedTopic:
    """One topic of one run, as trec_eval sees it after ``form_res_rels``.

    ``rels`` holds the qrels value of each retrieved document in rank order, ``NOT_IN_POOL`` (-1)
    or ``UNJUDGED_IN_POOL`` (-2); ``levels`` maps each judged qrels value (>= 0) to its count.
    """

    rels: np.ndarray
    levels: Mapping[int, int]


@dataclass(frozen=True)
class TopicJudgements:
    """One topic's qrels prepared once for many runs: negative values mapped to UNJUDGED_IN_POOL."""

    values: Mapping[str, int]
    levels: Mapping[int, int]


def prepare_topic(judgements: Mapping[str, int]) -> TopicJudgements:
    counts = Counter(judgements.values())
    levels = {rel: count for rel, count in counts.items() if rel >= 0}
    if len(levels) == len(counts):  # nothing to map (the usual case): no copy
        return TopicJudgements(judgements, levels)
    values = {docno: (UNJUDGED_IN_POOL if rel < 0 else rel) for docno, rel in judgements.items()}
    return TopicJudgements(values, levels)


def rank_topic(
    judgements: Mapping[str, int] | TopicJudgements,
    scores: Mapping[str, float] | TopicScores,
    *,
    judged_only: bool = False,
    max_docs: int | None = None,
) -> RankedTopic:
    """Order a topic's retrieved documents as trec_eval does and attach their qrels values.
    ``scores``: {docno: score}, or the same as columns (``trec_io.read_run_columns``)."""
    prepared = judgements if isinstance(judgements, TopicJudgements) else prepare_topic(judgements)
    lookup = prepared.values.get
    docnos = scores.docnos if isinstance(scores, TopicScores) else scores
    count = len(docnos)
    rels = np.fromiter(map(lookup, docnos, repeat(NOT_IN_POOL)), dtype=np.int64, count=count)
    if count:
        values = (
            scores.scores
            if isinstance(scores, TopicScores)
            else np.fromiter(scores.values(), dtype=np.float64, count=count)
        )
        rels = rels[trec_order_indices(docnos, values)]
    if max_docs is not None:
        rels = rels[:max_docs]
    if judged_only:
        rels = rels[rels >= 0]
    return RankedTopic(rels, prepared.levels)


class _Topic:
    """One ranked topic's shared quantities, computed once and read by every measure family."""

    def __init__(self, topic: RankedTopic, relevance_level: int, version: str) -> None:
        self.rels = rels = topic.rels
        self.levels = topic.levels
        self.relevance_level = relevance_level
        self.version = version
        self.num_ret = len(rels)
        self.num_rel = sum(count for level, count in topic.levels.items() if level >= relevance_level)
        self.num_nonrel = sum(count for level, count in topic.levels.items() if level < relevance_level)
        self.relevant = relevant = rels >= relevance_level
        self.cum_rel = np.cumsum(relevant)
        self.rel_counts = self.cum_rel.tolist()  # read a few dozen times per topic: list indexing is cheaper
        self.num_rel_ret = self.rel_counts[-1] if self.num_ret else 0
        self.ranks = ranks = np.arange(1, self.num_ret + 1)
        self.precision_at_rel = self.cum_rel[relevant] / ranks[relevant]
        self.cache: dict = {}  # per-topic intermediates shared by families (nDCG curves, gain tables)

    def rel_in_top(self, k: int) -> int:
        return self.rel_counts[min(k, self.num_ret) - 1] if self.num_ret and k > 0 else 0

    def average_precision(self, cutoff: int | None = None) -> float:
        if not self.num_rel:
            return 0.0
        if cutoff is None:
            return float(self.precision_at_rel.sum()) / self.num_rel
        # The relevant documents at or above the cut-off are a prefix (the same values summed alike).
        return float(self.precision_at_rel[: self.rel_in_top(cutoff)].sum()) / self.num_rel


Values = Iterable[tuple[str, Any]]  # numbers, and relstring's one text value


def _per_cutoff(measure: Measure, value_at) -> Values:
    return [(name, value_at(k)) for name, k in zip(measure.names(), measure.params, strict=True)]


def _counts(t: _Topic, measure: Measure) -> Values:
    """m_num_ret.c, m_num_rel.c, m_num_rel_ret.c, m_num_nonrel_judged_ret.c."""
    if measure.family == "num_nonrel_judged_ret":
        return [(measure.family, int(((t.rels >= 0) & (t.rels < t.relevance_level)).sum()))]
    return [
        (
            measure.family,
            {"num_ret": t.num_ret, "num_rel": t.num_rel, "num_rel_ret": t.num_rel_ret}[measure.family],
        )
    ]


def _map(t: _Topic, measure: Measure) -> Values:
    """m_map.c, m_gm_map.c: mean of the precision at each relevant document, over num_rel."""
    return [(measure.family, t.average_precision())]


def _map_cut(t: _Topic, measure: Measure) -> Values:
    """m_map_cut.c: average precision counting relevant documents at or above each cut-off."""
    return _per_cutoff(measure, t.average_precision)


def _rprec(t: _Topic, measure: Measure) -> Values:
    """m_Rprec.c: precision after num_rel documents."""
    return [("Rprec", t.rel_in_top(t.num_rel) / t.num_rel if t.num_rel else 0.0)]


def _rprec_mult(t: _Topic, measure: Measure) -> Values:
    """m_Rprec_mult.c: precision after multiplier·num_rel documents (cut-off int(x + 0.9), 9.x and 10.0)."""

    def value(multiplier: float) -> float:
        cutoff = int(multiplier * t.num_rel + 0.9)
        return t.rel_in_top(cutoff) / cutoff if t.num_rel and cutoff else 0.0

    return _per_cutoff(measure, value)


def _bpref_family(t: _Topic, measure: Measure) -> Values:
    """m_bpref.c, m_gm_bpref.c (the same value, averaged two ways): computed once per topic."""
    if "bpref" not in t.cache:
        t.cache["bpref"] = _bpref(t.rels, t.relevance_level, t.num_rel, t.num_nonrel)
    return [(measure.family, t.cache["bpref"])]


def _recip_rank(t: _Topic, measure: Measure) -> Values:
    """m_recip_rank.c: 1 / rank of the first relevant document."""
    return [("recip_rank", 1.0 / float(t.ranks[t.relevant][0]) if t.num_rel_ret else 0.0)]


def _iprec_at_recall(t: _Topic, measure: Measure) -> Values:
    """m_iprec_at_recall.c."""
    interpolated = interpolated_precision(t.precision_at_rel, t.num_rel, measure.params, t.version)
    return zip(measure.names(), interpolated, strict=True)


def _11pt_avg(t: _Topic, measure: Measure) -> Values:
    """m_11pt_avg.c: the mean interpolated precision over the recall points."""
    interpolated = interpolated_precision(t.precision_at_rel, t.num_rel, measure.params, t.version)
    return [(measure.names()[0], sum(interpolated) / len(interpolated))]


def _precision(t: _Topic, measure: Measure) -> Values:
    """m_P.c: relevant retrieved in the top k, over k."""
    return _per_cutoff(measure, lambda k: t.rel_in_top(k) / k)


def _recall(t: _Topic, measure: Measure) -> Values:
    """m_recall.c: relevant retrieved in the top k, over num_rel."""
    return _per_cutoff(measure, lambda k: t.rel_in_top(k) / t.num_rel if t.num_rel else 0.0)


def _success(t: _Topic, measure: Measure) -> Values:
    """m_success.c: 1 if a relevant document is in the top k."""
    return _per_cutoff(measure, lambda k: float(t.rel_in_top(k) > 0))


def _infap(t: _Topic, measure: Measure) -> Values:
    """m_infap.c."""
    return [("infAP", _inferred_ap(t.rels, t.relevance_level, t.num_rel))]


def _sequential_sum(values: np.ndarray) -> float:
    """Left-to-right sum, as trec_eval's loops add (NumPy's sum is pairwise: the last bit may differ)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _gains(t: _Topic, pairs: tuple, *, rescale: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(gain of each retrieved document, the ideal ranking's positive gains), once per topic and gains."""
    key = ("gains", pairs, rescale)
    if key not in t.cache and not pairs:
        t.cache[key] = _default_gains(t, rescale)
    if key not in t.cache:
        table = gain_table(t.levels, pairs)
        if rescale:
            rescaled = _rescaled(table)
            if rescaled is table:  # gains already in [0, 1] (binary qrels): nothing new to compute
                t.cache[key] = _gains(t, pairs)
                return t.cache[key]
            table = rescaled
        top = max(t.levels, default=0)
        by_level: dict[int, float] = {}
        for level, gain, _ in table:
            by_level.setdefault(level, gain)  # get_gain takes the first match
        lookup = np.array([by_level.get(level, 0.0) for level in range(top + 1)])
        result = np.where(t.rels >= 0, lookup[np.clip(t.rels, 0, top)], 0.0)
        t.cache[key] = result, ideal_gains(table)
    return t.cache[key]


def _default_gains(t: _Topic, rescale: bool) -> tuple[np.ndarray, np.ndarray]:
    """What ``_gains`` gives without ``level=gain`` pairs, with no table to build and sort: the table
    is then levels 0..highest with gain = level (already in gain order), so a document's gain is its
    qrels value (0 outside the pool or unjudged) and the ideal gains are the positive levels, highest
    first; rbp's rescaling divides by the highest level when it is above 1 (``_rescaled``, low = 0)."""
    top = max(t.levels, default=0)
    scale = float(top) if rescale and top > 1 else 1.0
    positive = sorted((level for level in t.levels if level > 0), reverse=True)
    ideal = np.repeat(np.array(positive, dtype=float), [t.levels[level] for level in positive])
    return np.maximum(t.rels, 0) / scale, ideal / scale


def gain_table(levels: Mapping[int, int], pairs: tuple) -> list[tuple[int, float, int]]:
    """setup_gains (gain_init.c): (level, gain, documents at that level) for each ``level=gain`` pair
    whose name is an integer, then each level 0..highest judged not given one (gain = the level),
    ordered by gain as trec_eval's qsort orders them: glibc's merge sort, comparing gains by their
    difference truncated to an integer (so gains less than 1 apart keep their order)."""
    table = [[int(name), gain, 0] for name, gain in pairs if _is_integer(name)]
    first: dict[int, list] = {}
    for row in table:
        first.setdefault(row[0], row)
    for level in range(max(levels, default=-1) + 1):
        if level in first:
            first[level][2] = levels.get(level, 0)
        else:
            table.append([level, float(level), levels.get(level, 0)])
    return _glibc_merge_sort([tuple(row) for row in table])


def _is_integer(text: str) -> bool:
    """gain_init.c's valid_int: an optional sign, then digits only."""
    digits = text[1:] if text[:1] in {"+", "-"} else text
    return digits.isascii() and digits.isdigit()


def _glibc_merge_sort(rows: list) -> list:
    """glibc's msort with gain_init.c's comparator, (int)(gain₁ − gain₂)."""
    if len(rows) <= 1:
        return list(rows)
    half = len(rows) // 2
    left, right = _glibc_merge_sort(rows[:half]), _glibc_merge_sort(rows[half:])
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if int(left[i][1] - right[j][1]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def _rescaled(table: list) -> list:
    """m_rbp.c: gains outside [0, 1] rescaled by (gain − min)/(max − min) over the table."""
    low, high = min((row[1] for row in table), default=0.0), max((row[1] for row in table), default=0.0)
    if low >= 0 and high <= 1:
        return table
    return [(level, (gain - low) / (high - low), count) for level, gain, count in table]


def ideal_gains(table: list[tuple[int, float, int]]) -> np.ndarray:
    """The ideal ranking's gains as m_ndcg.c walks the table: from the highest gain down, each level
    repeated once per judged document, stopping at the first gain that is not positive."""
    ideal: list[float] = []
    if not table or table[-1][1] <= 0:
        return np.zeros(0)
    for _, gain, count in reversed(table):
        if not count:
            continue
        if gain <= 0:
            break
        ideal.extend([gain] * count)
    return np.array(ideal, dtype=float)


def _exponential_pairs(levels: Mapping[int, int]) -> tuple[tuple[str, float], ...]:
    """Burges et al. (2005)'s gain 2^rel − 1 for every judged level, as ``level=gain`` pairs."""
    return tuple((str(level), 2.0**level - 1) for level in sorted(levels))


def _ndcg_curves_for(t: _Topic, pairs: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Running DCG of the ranking and of the ideal ranking for these gains, once per topic (nDCG at
    every cut-off, ndcg_rel and Rndcg read the same curves)."""
    key = ("ndcg curves", pairs)
    if key not in t.cache:
        gains, ideal = _gains(t, pairs)
        t.cache[key] = np.cumsum(gains / _discounts(t.num_ret)), np.cumsum(ideal / _discounts(len(ideal)))
    return t.cache[key]


def _ndcg_family(t: _Topic, measure: Measure) -> Values:
    """m_ndcg.c (whole ranking), gains = qrels values unless given as ``level=gain`` pairs; ndcg_exp
    with 2^rel − 1 (ours)."""
    pairs = _exponential_pairs(t.levels) if measure.family == "ndcg_exp" else measure.params
    return [(measure.names()[0], _ndcg(_ndcg_curves_for(t, pairs), None))]


def _ndcg_cut(t: _Topic, measure: Measure) -> Values:
    """m_ndcg_cut.c: nDCG of the top k, gains = qrels values."""
    pairs = _exponential_pairs(t.levels) if measure.family == "ndcg_cut_exp" else ()
    curves = _ndcg_curves_for(t, pairs)
    return _per_cutoff(measure, lambda k: _ndcg(curves, int(k)))


def _set_measures(t: _Topic, measure: Measure) -> Values:
    """m_set_P.c, m_set_recall.c, m_set_map.c, m_set_F.c, m_set_rel_P.c: the retrieved set as a whole.

    set_F is van Rijsbergen's F with trec_eval's parameter x (β²): (x + 1)·P·R / (x·P + R).
    """
    set_p = t.num_rel_ret / t.num_ret if t.num_ret else 0.0
    set_r = t.num_rel_ret / t.num_rel if t.num_rel else 0.0
    if measure.family == "set_F":
        x = measure.params[0]
        return [
            (measure.names()[0], (x + 1.0) * set_p * set_r / (x * set_p + set_r) if t.num_rel_ret else 0.0)
        ]
    if measure.family == "set_relative_P":
        value = t.num_rel_ret / min(t.num_ret, t.num_rel) if t.num_ret and t.num_rel else 0.0
        return [("set_relative_P", value)]
    return [(measure.family, {"set_P": set_p, "set_recall": set_r, "set_map": set_p * set_r}[measure.family])]


def _relative_precision(t: _Topic, measure: Measure) -> Values:
    """m_rel_P.c: relevant in the top k over the most there could be, min(k, num_rel)."""
    return _per_cutoff(measure, lambda k: t.rel_in_top(k) / min(k, t.num_rel) if t.num_rel else 0.0)


def _unjudged(t: _Topic, measure: Measure) -> Values:
    """m_unjudged.c: the fraction of the top k that the qrels do not judge (outside the pool or
    unjudged in it); past the end of the ranking, missing documents count as judged."""
    unjudged = np.cumsum(t.rels < 0)
    return _per_cutoff(measure, lambda k: int(unjudged[min(k, t.num_ret) - 1]) / k if t.num_ret else 0.0)


def _utility(t: _Topic, measure: Measure) -> Values:
    """m_utility.c: p1·a + p2·b + p3·c + p4·d over the retrieved/relevant contingency table; trec_eval's
    collection size (-N) defaults to 0, which is what d assumes here."""
    p1, p2, p3, p4 = measure.params
    value = (
        p1 * t.num_rel_ret
        + p2 * (t.num_ret - t.num_rel_ret)
        + p3 * (t.num_rel - t.num_rel_ret)
        + p4 * (0 + t.num_rel_ret - t.num_ret - t.num_rel)
    )
    return [(measure.names()[0], value)]


RELSTRING_CHARACTERS = {NOT_IN_POOL: "-", UNJUDGED_IN_POOL: "."}


def _relstring(t: _Topic, measure: Measure) -> Values:
    """m_relstring.c: the first N qrels values as characters (0–9, '>' above 9, '-' outside the pool,
    '.' unjudged in it, '<' other negatives). A string, printed only per topic."""
    length = max(min(int(measure.params[0]), t.num_ret), 0)
    text = "".join(
        (">" if rel > 9 else str(rel)) if rel >= 0 else RELSTRING_CHARACTERS.get(rel, "<")
        for rel in t.rels[:length].tolist()
    )
    return [(measure.names()[0], text)]


def _bin_g(t: _Topic, measure: Measure) -> Values:
    """m_binG.c: Σ over relevant retrieved documents of 1/log2(2 + non-relevant above it), over num_rel."""
    if not t.num_rel_ret:
        return [("binG", 0.0)]
    index = np.flatnonzero(t.relevant)
    terms = 1.0 / np.log2(3 + index - t.cum_rel[index])
    return [("binG", _sequential_sum(terms) / t.num_rel)]


def _g(t: _Topic, measure: Measure) -> Values:
    """m_G.c (Buckley's experimental normalised gain): the document at rank i contributes
    gain / log2(2 + cost_i − gain_i), cost_i summing max(ideal gain, 1) and gain_i the run's gains
    down to rank i; the sum over the ideal gains' total."""
    gains, ideal = _gains(t, measure.params)
    if not len(ideal):
        return [(measure.names()[0], 0.0)]
    costs = np.ones(t.num_ret)
    head = min(len(ideal), t.num_ret)
    costs[:head] = np.maximum(ideal[:head], 1.0)
    terms = gains / np.log2(2 + np.cumsum(costs) - np.cumsum(gains))
    return [(measure.names()[0], _sequential_sum(terms[gains != 0]) / _sequential_sum(ideal))]


def _ndcg_rel(t: _Topic, measure: Measure) -> Values:
    """m_ndcg_rel.c: nDCG averaged over the relevant (positive-gain) documents: at each one retrieved,
    the nDCG at its rank; for each one not retrieved, the nDCG at the end of the ranking."""
    gains, ideal = _gains(t, measure.params)
    if not len(ideal):
        return [(measure.names()[0], 0.0)]
    dcg, ideal_dcg = _ndcg_curves_for(t, measure.params)
    index = np.flatnonzero(gains > 0)
    at_relevant = dcg[index] / ideal_dcg[np.minimum(index, len(ideal) - 1)]
    final = float(dcg[-1]) if t.num_ret else 0.0
    total = _sequential_sum(at_relevant) + (len(ideal) - len(index)) * final / float(ideal_dcg[-1])
    return [(measure.names()[0], total / len(ideal) if total > 0 else 0.0)]


def _rndcg(t: _Topic, measure: Measure) -> Values:
    """m_Rndcg.c: nDCG averaged over the ranks where the ideal gain changes (the R-levels of each gain),
    plus the end of the ranking when it runs on past the last relevant rank."""
    _, ideal = _gains(t, measure.params)
    if not t.num_rel or not len(ideal):
        return [(measure.names()[0], 0.0)]
    n, levels = t.num_ret, len(ideal)
    dcg, ideal_dcg = _ndcg_curves_for(t, measure.params)
    boundaries = [*np.flatnonzero(ideal[1:] != ideal[:-1]) + 1, levels]
    ratios = [(float(dcg[min(b, n) - 1]) if n else 0.0) / float(ideal_dcg[b - 1]) for b in boundaries]
    if levels + 1 < n:
        ratios.append(float(dcg[-1]) / float(ideal_dcg[-1]))
    return [(measure.names()[0], _sequential_sum(np.array(ratios)) / len(ratios))]


def _rbp(t: _Topic, measure: Measure) -> Values:
    """m_rbp.c: rank-biased precision (Moffat & Zobel 2008), (1 − p)·Σ gain_i·p^(i−1), p = 0.9 unless
    given (``rbp.p=0.95``); gains as nDCG's (``rbp.1=1,2=3``), rescaled to [0, 1] when outside it."""
    p = _persistence(measure.params)
    gains, _ = _gains(t, measure.params, rescale=True)
    weights, _ = _powers(p, t.num_ret)
    return [(measure.names()[0], (1.0 - p) * _sequential_sum((gains * weights)[gains != 0]))]


def _rbp_resid(t: _Topic, measure: Measure) -> Values:
    """m_rbp_resid.c: how much rbp could still rise if every unjudged retrieved document were relevant:
    p^n + (1 − p)·Σ over unjudged ranks of p^(i−1); 0 when every retrieved document is judged."""
    p = _persistence(measure.params)
    unjudged = t.rels < 0
    if not unjudged.any():
        return [(measure.names()[0], 0.0)]
    weights, last = _powers(p, t.num_ret)
    return [(measure.names()[0], last + (1 - p) * _sequential_sum(weights[unjudged]))]


@lru_cache(maxsize=64)  # the same p and ranking length for most topics
def _powers(p: float, n: int) -> tuple[np.ndarray, float]:
    """(1, p, p², …, p^(n−1)) and p^n, each a running product as m_rbp.c forms them."""
    products = np.cumprod(np.full(n, p))
    return np.concatenate(([1.0], products[:-1])) if n else products, float(products[-1]) if n else 1.0


def _persistence(pairs: tuple) -> float:
    return next((value for name, value in reversed(pairs) if name == "p"), 0.9)


# Family → the function that computes its values for one topic.
CALCULATORS = {
    "num_ret": _counts,
    "num_rel": _counts,
    "num_rel_ret": _counts,
    "map": _map,
    "gm_map": _map,
    "Rprec": _rprec,
    "bpref": _bpref_family,
    "recip_rank": _recip_rank,
    "iprec_at_recall": _iprec_at_recall,
    "P": _precision,
    "recall": _recall,
    "infAP": _infap,
    "gm_bpref": _bpref_family,
    "Rprec_mult": _rprec_mult,
    "11pt_avg": _11pt_avg,
    "ndcg": _ndcg_family,
    "ndcg_exp": _ndcg_family,
    "ndcg_cut": _ndcg_cut,
    "ndcg_cut_exp": _ndcg_cut,
    "relstring": _relstring,
    "utility": _utility,
    "binG": _bin_g,
    "G": _g,
    "ndcg_rel": _ndcg_rel,
    "Rndcg": _rndcg,
    "relative_P": _relative_precision,
    "set_relative_P": _set_measures,
    "rbp": _rbp,
    "rbp_resid": _rbp_resid,
    "unj": _unjudged,
    "map_cut": _map_cut,
    "success": _success,
    "set_P": _set_measures,
    "set_recall": _set_measures,
    "set_map": _set_measures,
    "set_F": _set_measures,
    "num_nonrel_judged_ret": _counts,
}


def topic_measures(
    topic: RankedTopic, measures: Sequence[Measure], relevance_level: int = 1, version: str = "10.0"
) -> dict[str, float]:
    """Every requested measure for one ranked topic (trec_eval formulas; see the module docstring).

    ``version`` "9" reproduces trec_eval 9.x's cut-off rounding in iprec_at_recall and 11pt_avg
    (what pytrec_eval embeds); the default follows 10.0.
    """
    shared = _Topic(topic, relevance_level, version)
    values: dict[str, float] = {}
    for measure in measures:
        values.update(CALCULATORS[measure.family](shared, measure))
    return values


def _bpref(rels: np.ndarray, relevance_level: int, num_rel: int, num_nonrel: int) -> float:
    """Buckley & Voorhees (2004), as trec_eval's m_bpref.c: unjudged documents are skipped."""
    if not num_rel:
        return 0.0
    judged = rels[rels >= 0]
    nonrel = judged < relevance_level
    nonrel_above: np.ndarray = (np.cumsum(nonrel) - nonrel)[~nonrel]
    penalties = np.minimum(nonrel_above, num_rel) / max(min(num_nonrel, num_rel), 1)
    return float(np.where(nonrel_above > 0, 1.0 - penalties, 1.0).sum()) / num_rel


def _inferred_ap(rels: np.ndarray, relevance_level: int, num_rel: int) -> float:
    """Yilmaz & Aslam (2006) inferred AP, as trec_eval's m_infap.c (pooled-unjudged docs are -2).

    At the i-th retrieved document (from 0), if relevant, trec_eval adds 1 when i = 0, else
    1/(i+1) + i/(i+1) · (above + nonrel + unjudged)/i · (above + ε)/(above + nonrel + 2ε), where
    above, nonrel and unjudged count the relevant, judged non-relevant and pooled-unjudged
    documents before it (documents outside the pool count for nothing). Summed in rank order.
    """
    if not num_rel:
        return 0.0
    relevant = rels >= max(relevance_level, 0)  # outside the pool (-1) and unjudged (-2) never are
    index = np.flatnonzero(relevant)
    if not len(index):
        return 0.0
    nonrel = np.cumsum((rels >= 0) & ~relevant)[index]
    unjudged = np.cumsum(rels == UNJUDGED_IN_POOL)[index]
    above = np.arange(len(index))
    later = np.maximum(index, 1)  # index 0 takes the first branch; this only avoids dividing by 0
    terms = np.where(
        index == 0,
        1.0,
        1.0 / (index + 1)
        + (index / (index + 1)) * ((above + nonrel + unjudged) / later)
        * ((above + INFAP_EPSILON) / (above + nonrel + 2 * INFAP_EPSILON)),
    )  # fmt: skip
    return _sequential_sum(terms) / num_rel


def interpolated_precision(
    precision_at_rel: np.ndarray, num_rel: int, points: Sequence[float], version: str
) -> list[float]:
    """Interpolated precision at recall points, as trec_eval's m_iprec_at_recall.c.

    A recall point p becomes a number of relevant documents c — ``round(p·R)`` in trec_eval 10.0,
    ``int(p·R + 0.9)`` in 9.x — and the value is the best precision at or after the c-th relevant
    document (0 if fewer than c were retrieved).
    """
    if not num_rel or not len(precision_at_rel):
        return [0.0] * len(points)
    # The best precision at or after each relevant document, for every point at once.
    best = np.maximum.accumulate(precision_at_rel[::-1])[::-1].tolist()
    values = []
    for point in points:
        wanted = _relevant_count_at(point, num_rel, version)
        values.append(0.0 if wanted > len(best) else best[max(wanted, 1) - 1])
    return values


def _relevant_count_at(fraction: float, num_rel: int, version: str) -> int:
    if version.startswith("9"):
        return int(fraction * num_rel + 0.9)
    return math.floor(fraction * num_rel + 0.5)  # C's lround for non-negative values


def _ndcg(curves: tuple[np.ndarray, np.ndarray], cutoff: int | None) -> float:
    """Järvelin & Kekäläinen (2002) nDCG with trec_eval's default gains (gain = qrels value): the DCG
    of the top ``cutoff`` (all if None) over the ideal ranking's, both summed in rank order as
    trec_eval sums them."""
    dcg, ideal = (
        float(curve[(len(curve) if cutoff is None else min(cutoff, len(curve))) - 1])
        if len(curve) and cutoff != 0 else 0.0
        for curve in curves
    )  # fmt: skip
    return dcg / ideal if ideal > 0 else 0.0


_DISCOUNTS = np.log2(np.arange(2, 1002))


def _discounts(length: int) -> np.ndarray:
    """log2(rank + 1) for ranks 1..length."""
    global _DISCOUNTS
    if length > len(_DISCOUNTS):
        _DISCOUNTS = np.log2(np.arange(2, length + 2))
    return _DISCOUNTS[:length]


def evaluate(
    qrels: Qrels,
    run: Run | RunColumns,
    measures: Iterable[str] | Sequence[Measure] | None = None,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
    max_docs: int | None = None,
    version: str = "10.0",
) -> dict[str, dict[str, float]]:
    """Per-topic values ``{qid: {measure name: value}}`` for one run (topics in trec_eval's order)."""
    parsed = _as_measures(measures)
    topics = sorted(qrels) if complete else sorted(set(qrels) & set(run))
    return {
        qid: topic_measures(
            rank_topic(prepared(qrels, qid), run.get(qid, {}), judged_only=judged_only, max_docs=max_docs),
            parsed,
            relevance_level,
            version,
        )
        for qid in topics
    }


def aggregate(per_topic: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """trec_eval's ``all`` row: sums for counts, geometric means for gm_*, arithmetic means otherwise."""
    if not per_topic:
        return {}
    names = [name for name, value in next(iter(per_topic.values())).items() if not isinstance(value, str)]
    summary: dict[str, float] = {"num_q": len(per_topic)}
    for name in names:
        column = [values[name] for values in per_topic.values()]
        if name in COUNTS:
            summary[name] = int(sum(column))
        elif name in GEOMETRIC:
            summary[name] = math.exp(
                sum(math.log(max(v, GEOMETRIC_MEAN_FLOOR)) for v in column) / len(column)
            )
        else:
            summary[name] = sum(column) / len(column)
    return summary


def evaluate_many(
    qrels: Qrels,
    runs: Mapping[str, Run],
    measures: Iterable[str] | Sequence[Measure] | None = None,
    **options,
) -> dict[str, dict[str, dict[str, float]]]:
    """``evaluate`` for several runs against the same qrels: ``{run name: {qid: {measure: value}}}``."""
    parsed = _as_measures(measures)
    prepared_qrels = PreparedQrels(qrels)
    return {name: evaluate(prepared_qrels, run, parsed, **options) for name, run in runs.items()}


class PreparedQrels(dict):
    """Qrels whose topics are prepared once (``prepare_topic``) and reused by every run."""

    def __init__(self, qrels: Qrels) -> None:
        super().__init__(qrels)
        self.prepared: dict[str, TopicJudgements] = {}


def prepared(qrels: Qrels, qid: str) -> TopicJudgements:
    if isinstance(qrels, PreparedQrels):
        if qid not in qrels.prepared:
            qrels.prepared[qid] = prepare_topic(qrels[qid])
        return qrels.prepared[qid]
    return prepare_topic(qrels[qid])


def _as_measures(measures: Iterable[str] | Sequence[Measure] | None) -> list[Measure]:
    if measures is None:
        return parse_measures(None)
    given = list(measures)
    if all(isinstance(m, Measure) for m in given):
        return [m for m in given if isinstance(m, Measure)]
    return parse_measures([str(m) for m in given])
