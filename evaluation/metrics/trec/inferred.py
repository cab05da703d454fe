"""Inferred measures from a stratified sample, as NIST's ``sample_eval.pl`` computes them (the version of
10 Oct 2011; Yilmaz, Kanoulas & Aslam, SIGIR 2008, "A simple and efficient sampling method for
estimating AP and NDCG"): xinfAP (printed ``infAP``), infNDCG, the inferred precision at 10, 50 and
1000 (``iP10`` …), the inferred number of relevant documents retrieved and in all (``inum_rel_ret``,
``inum_rel``), ``num_ret``, and the inferred interpolated precision at 11 recall points (``iprec@rec``,
over all topics only). Pure Python; step for step the script's arithmetic, in its order, so the
values agree to the last bit in practice and to its printed four decimals always.

Per topic, with the sample qrels' strata c (``sample_files``): ``docs[c]`` pooled documents,
``sampled[c]`` of them judged (rel ≥ 0), ``rel[c]`` judged relevant (rel > 0).

1. Inferred number relevant: R = Σ_c rel[c] · docs[c] / sampled[c] over strata with a judged document.
2. Walking the run (score descending, ties by docno descending, at most 1000 documents), with
   d(c), s(c), r(c) the pooled, sampled and relevant documents of stratum c above the current rank k,
   and D = Σ d(c): at a sampled relevant document of stratum c, its precision is estimated as
   1/k + (D/k) · Σ_c (d(c)/D) · (r(c) + ε)/(s(c) + 3ε), ε = 0.00001, and added to stratum c's sum.
   Documents outside the pool count in k only; pooled but unsampled ones (rel -1) in d(c) and D.
3. xinfAP = Σ_c (rel[c] · docs[c] / sampled[c] / R) · (sum of c / rel[c]): each stratum's mean
   precision over its sampled relevant documents, weighted by its estimated share of the relevant.
4. Estimated relevant retrieved at rank k: Σ_c d(c) · (r(c) + ε)/(s(c) + 3ε) (a stratum met but with
   nothing sampled yet counts a third of its documents); iP@k is that at rank k over k (the last
   rank's value when the run is shorter).
5. infNDCG: DCG = D · Σ_c (d(c)/D) · (Σ gain/log2(rank+1) of c's sampled relevant retrieved) / s(c);
   the ideal DCG fills ranks with round(estimated number per grade) documents, grades in the
   script's order, over ideal ranks up to 1000.

Quirks kept so the numbers stay the script's: a run's topic ids lose their leading zeros (the sample
qrels' do not); only topics in both the run and the sample qrels are averaged, but ``inum_rel`` over
all is summed over every topic of the sample qrels; the grades of the ideal DCG are ordered as
strings, descending (10 before 9 would not hold: "9" > "10"), and once the ideal ranks pass 1000
each further grade still adds one term; ``num_ret`` per topic counts the run's documents for it,
over all only those within the first 1000.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evaluation.metrics.trec.files import Run, trec_order
from evaluation.metrics.trec.sample_files import SampleJudgement, SampleQrels

MAX_RESULT_SIZE = 1000
PRECISION_RANKS = (10, 50, MAX_RESULT_SIZE)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
EPSILON = 0.00001
EPSILON_SAMPLED = 0.00003  # the script's literal: 3 * 0.00001 differs from it in the last bit


class InferredError(ValueError):
    """The run and the sample qrels cannot be evaluated together; the message says why."""


@dataclass
class _Strata:
    """One topic's sample qrels, counted by stratum (the script's %docs_per_category and friends)."""

    docs: dict[str, int] = field(default_factory=dict)
    sampled: dict[str, int] = field(default_factory=dict)
    relevant: dict[str, int] = field(default_factory=dict)
    relevant_per_grade: dict[str, dict[str, int]] = field(default_factory=dict)
    num_rel: float = 0.0
    optimal_dcg: float = 0.0

    @property
    def order(self) -> list[str]:
        """The strata in the script's order (Perl's ``sort keys``: as strings)."""
        return sorted(self.docs)


@dataclass
class TopicValues:
    """One topic's inferred measures, named as ``sample_eval.pl`` prints them."""

    infAP: float
    infNDCG: float
    precision: dict[int, float]
    inum_rel_ret: float
    inum_rel: float
    num_ret: int
    relevant_at_rank: list[float]


@dataclass
class SampleEvaluation:
    """Per topic (in the script's order) and over all topics, as ``sample_eval.pl`` prints them."""

    topics: dict[str, TopicValues]
    infAP: float
    infNDCG: float
    interpolated_precision: list[float]
    precision: dict[int, float]
    inum_rel_ret: float
    inum_rel: float
    num_ret: int


def _log2(value: float) -> float:
    """log(x)/log(2), the script's expression (not math.log2, which may differ in the last bit)."""
    return math.log(value) / math.log(2)


def _count_strata(judgements: Mapping[str, SampleJudgement]) -> _Strata:
    strata = _Strata()
    for judgement in judgements.values():
        c = judgement.stratum
        strata.docs[c] = strata.docs.get(c, 0) + 1
        if judgement.rel >= 0:
            strata.sampled[c] = strata.sampled.get(c, 0) + 1
        if judgement.rel > 0:
            strata.relevant[c] = strata.relevant.get(c, 0) + 1
            grades = strata.relevant_per_grade.setdefault(c, {})
            grades[str(judgement.rel)] = grades.get(str(judgement.rel), 0) + 1
    for c in strata.order:
        if strata.sampled.get(c, 0) != 0:
            strata.num_rel += strata.relevant.get(c, 0) * strata.docs[c] / strata.sampled[c]
    per_grade: dict[str, float] = {}
    for c in strata.order:
        for grade, count in sorted(strata.relevant_per_grade.get(c, {}).items()):
            per_grade[grade] = per_grade.get(grade, 0) + count * strata.docs[c] / strata.sampled[c]
    start = 0
    for grade in sorted(per_grade, reverse=True):
        count = math.floor(per_grade[grade] + 0.5)
        for r in range(start + 1, start + count + 1):
            strata.optimal_dcg += int(grade) / _log2(r + 1)
            if r >= MAX_RESULT_SIZE:
                break
        start += count
    return strata


@dataclass
class _Walk:
    """What the walk down one run counts, by stratum, up to its last rank (the script's %num_docs,
    %num_sampled, %num_relevant, %gain_category, %SAP_category and $num_depth100)."""

    pooled: dict[str, int]
    sampled: dict[str, int]
    relevant: dict[str, int]
    gain: dict[str, float]
    precision_sum: dict[str, float]
    depth: int = 0
    relevant_at_rank: list[float] = field(default_factory=list)


def _walk(judgements: Mapping[str, SampleJudgement], order: list[str], scores: Mapping[str, float]) -> _Walk:
    """Steps 2 and 4 of the module's docstring, rank by rank."""
    zeros = dict.fromkeys(order, 0)
    walk = _Walk(dict(zeros), dict(zeros), dict(zeros), dict.fromkeys(order, 0.0), dict.fromkeys(order, 0.0))
    pooled, sampled, relevant = walk.pooled, walk.sampled, walk.relevant
    for rank, docno in enumerate(trec_order(dict(scores))[:MAX_RESULT_SIZE], start=1):
        judgement = judgements.get(docno)
        if judgement and judgement.rel > 0:
            above = 0.0
            for c in order:
                if walk.depth != 0:
                    share = pooled[c] / walk.depth
                    if share != 0:
                        above += share * (relevant[c] + EPSILON) / (sampled[c] + EPSILON_SAMPLED)
            walk.precision_sum[judgement.stratum] += 1 / rank + (walk.depth / rank) * above
            relevant[judgement.stratum] += 1
            walk.gain[judgement.stratum] += judgement.rel / _log2(rank + 1)
        if judgement:
            walk.depth += 1
            pooled[judgement.stratum] += 1
            if judgement.rel >= 0:
                sampled[judgement.stratum] += 1
        estimate = 0.0
        for c in order:
            estimate += pooled[c] * (relevant[c] + EPSILON) / (sampled[c] + EPSILON_SAMPLED)
        walk.relevant_at_rank.append(estimate)
    return walk


def _evaluate_topic(
    judgements: Mapping[str, SampleJudgement], strata: _Strata, scores: Mapping[str, float]
) -> TopicValues:
    walk = _walk(judgements, strata.order, scores)
    retrieved = len(walk.relevant_at_rank)
    last = walk.relevant_at_rank[-1] if retrieved else 0.0
    precision = {k: (walk.relevant_at_rank[k - 1] if retrieved >= k else last) / k for k in PRECISION_RANKS}
    average_precision = 0.0
    for c in strata.order:
        if strata.sampled.get(c, 0) != 0 and strata.num_rel != 0:
            estimated = strata.relevant.get(c, 0) * strata.docs[c] / strata.sampled[c]
            mean = walk.precision_sum[c] / strata.relevant[c] if strata.relevant.get(c, 0) != 0 else 0.0
            average_precision += estimated / strata.num_rel * mean
    dcg = 0.0
    for c in strata.order:
        if walk.depth != 0 and walk.sampled[c] != 0:
            dcg += walk.pooled[c] / walk.depth * walk.gain[c] / walk.sampled[c]
    ndcg = walk.depth * dcg / strata.optimal_dcg if strata.optimal_dcg != 0 else 0.0
    return TopicValues(
        average_precision, ndcg, precision, last, strata.num_rel, len(scores), walk.relevant_at_rank
    )


def _interpolated_precision(values: TopicValues) -> list[float]:
    """The script's inferred interpolated precision at the 11 recall points of one topic: walking the
    ranks upwards, the best estimated precision so far is given to the highest recall point whose
    number of relevant documents is above the estimate at that rank — one point per rank at most."""
    cutoffs = [point * values.inum_rel for point in RECALL_POINTS]
    points = [0.0] * len(RECALL_POINTS)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > values.inum_rel_ret:
        current -= 1
    best = 0.0
    for rank in range(len(values.relevant_at_rank), 0, -1):
        estimate = values.relevant_at_rank[rank - 1]
        best = max(best, estimate / rank)
        if current >= 0 and cutoffs[current] > estimate:
            points[current] += best
            current -= 1
    while current >= 0:
        points[current] += best
        current -= 1
    return points


def run_topic(topic: str) -> str:
    """A run's topic id as the script keys it: leading zeros removed (``s/^0*//``)."""
    return topic.lstrip("0")


def _numeric_order(topic: str) -> tuple[float, str]:
    """Perl's ``<=>`` on topic ids (a non-numeric id is 0; ties by the id, where Perl's are random)."""
    try:
        value = float(topic)
    except ValueError:
        value = 0.0
    return (value if not math.isnan(value) else 0.0, topic)


def sample_eval(qrels: SampleQrels, run: Run) -> SampleEvaluation:
    """Evaluate ``run`` against the sample qrels as ``sample_eval.pl QRELS RUN`` does.

    Raises ``InferredError`` when no topic of the run is in the sample qrels (the script divides by
    zero) or when two of the run's topic ids become one without their leading zeros.
    """
    strata = {topic: _count_strata(judgements) for topic, judgements in sorted(qrels.items())}
    scores: dict[str, dict[str, float]] = {}
    for topic, topic_scores in run.items():
        key = run_topic(topic)
        if key in scores:
            raise InferredError(
                f"the run's topics {topic!r} and another become {key!r} without leading zeros"
            )
        scores[key] = topic_scores
    topics = {
        topic: _evaluate_topic(qrels[topic], strata[topic], scores[topic])
        for topic in sorted(scores, key=_numeric_order)
        if topic in qrels
    }
    if not topics:
        raise InferredError("no topic of the run is in the sample qrels")
    count = len(topics)
    interpolated = [0.0] * len(RECALL_POINTS)
    for topic in sorted(topics):
        for index, value in enumerate(_interpolated_precision(topics[topic])):
            interpolated[index] += value
    return SampleEvaluation(
        topics=topics,
        infAP=_sum(v.infAP for v in topics.values()) / count,
        infNDCG=_sum(v.infNDCG for v in topics.values()) / count,
        interpolated_precision=[value / count for value in interpolated],
        precision={k: _sum(v.precision[k] for v in topics.values()) / count for k in PRECISION_RANKS},
        inum_rel_ret=_sum(v.inum_rel_ret for v in topics.values()),
        inum_rel=_sum(s.num_rel for s in strata.values()),
        num_ret=sum(min(v.num_ret, MAX_RESULT_SIZE) for v in topics.values()),
    )


def _sum(values) -> float:
    """Left to right, as the script's running sums (not math.fsum)."""
    total = 0.0
    for value in values:
        total += value
    return total


def format_sample_eval(result: SampleEvaluation, *, per_topic: bool) -> list[str]:
    """The lines ``sample_eval.pl`` prints (with ``-q``: each topic's first), without line ends."""
    lines: list[str] = []
    if per_topic:
        for topic, v in result.topics.items():
            lines.append(f"infAP\t\t{topic}\t\t{v.infAP:6.4f}")
            lines.append(f"infNDCG\t\t{topic}\t\t{v.infNDCG:6.4f}")
            lines.extend(f"iP{k}\t\t{topic}\t\t{v.precision[k]:6.4f}" for k in PRECISION_RANKS)
            lines.append(f"inum_rel_ret\t{topic}\t{v.inum_rel_ret:14.4f}")
            lines.append(f"inum_rel\t{topic}\t{v.inum_rel:14.4f}")
            lines.append(f"num_ret\t\t{topic}\t{v.num_ret:9d}")
    lines.append(f"infAP\t\tall\t\t{result.infAP:6.4f}")
    lines.append(f"infNDCG\t\tall\t\t{result.infNDCG:6.4f}")
    lines.extend(
        f"iprec@rec{index / 10:4.2f}\tall\t\t{value:6.4f}"
        for index, value in enumerate(result.interpolated_precision)
    )
    lines.extend(f"iP{k}\t\tall\t\t{result.precision[k]:6.4f}" for k in PRECISION_RANKS)
    lines.append(f"inum_rel_ret\tall\t{result.inum_rel_ret:14.4f}")
    lines.append(f"inum_rel\tall\t{result.inum_rel:14.4f}")
    lines.append(f"num_ret\t\tall\t{result.num_ret:9d}")
    return lines


def measures(values: TopicValues) -> dict[str, float]:
    """One topic's values by the names the script prints."""
    named = {"infAP": values.infAP, "infNDCG": values.infNDCG}
    named.update({f"iP{k}": p for k, p in values.precision.items()})
    named.update(inum_rel_ret=values.inum_rel_ret, inum_rel=values.inum_rel, num_ret=float(values.num_ret))
    return named


__all__: Sequence[str] = (
    "InferredError",
    "SampleEvaluation",
    "TopicValues",
    "format_sample_eval",
    "measures",
    "run_topic",
    "sample_eval",
)
