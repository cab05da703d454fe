"""How far a sampled pool's inferred MAP and ranking are from full judgement: the simulation Yilmaz,
Kanoulas & Aslam (2008) used to justify their design, on any runs and any qrels taken as the truth.

The truth is the pool judged in full: each run's MAP (trec_eval's AP, ``measures.evaluate`` with
``-c``) against the truth's labels of the pooled documents, a pooled document the truth does not list
counting as non-relevant (as trec_eval counts it). That is what the inferred measures estimate; a
relevant document no run pooled is beyond any sample's reach, so it is left out of the truth.

For each share judged, the pool is cut in two strata by best rank (``design_for_share``): the top
``top_depth`` ranks, judged at the rate that spends at most two thirds of the share's budget on them,
and the rest at the rate that brings the total to the share. Each of ``samples`` draws (seeds
``seed``, ``seed + 1``, …; ``sampling.stratified_sample``) takes the truth's labels for the documents
it drew, and every run is scored twice: xinfAP as ``sample_eval.pl`` (``inferred.sample_eval``) and
statAP as ``statAP_MQ_eval_v3.pl`` (``stat_ap``), averaged over every topic of the sample (a topic
without a sampled relevant document counting 0, as the truth averages). Per sample: the mean signed
error (bias) of the runs' inferred MAP, the mean absolute and root-mean-square error, and Kendall's
τ between the runs' ranking by inferred MAP and by the truth (``trust.kendall_tau``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from evaluation.metrics.trec.files import Qrels, Run, trec_order
from evaluation.metrics.trec.inferred import sample_eval
from evaluation.metrics.trec.measures import evaluate
from evaluation.metrics.trec.pooling import depth_k_pool
from evaluation.metrics.trec.sample_files import SampleJudgement, SampleQrels
from evaluation.metrics.trec.sampling import Stratum, stratified_sample
from evaluation.metrics.trec.stat_ap import inclusion_probabilities, stat_ap
from evaluation.metrics.trust import kendall_tau

DEFAULT_SHARES = (0.1, 0.2, 0.3)
TOP_SHARE_OF_BUDGET = 2 / 3  # at most this much of a share's judgements go to the top ranks
FIGURES = ("judged", "bias", "mae", "rmse", "tau", "stat_bias", "stat_mae", "stat_tau")


class SimulationError(ValueError):
    """Runs and truth that cannot be simulated; the message says why."""


@dataclass(frozen=True)
class ShareOutcome:
    """One share's design and its samples' figures, each a tuple over the samples in seed order:
    ``judged`` (the share of the pool drawn), ``bias``, ``mae``, ``rmse``, ``tau`` (xinfAP's MAP) and
    ``stat_bias``, ``stat_mae``, ``stat_tau`` (statAP's)."""

    share: float
    strata: tuple[Stratum, ...]
    figures: dict[str, tuple[float, ...]]

    def summary(self) -> dict[str, float]:
        """The mean of each figure over the samples, and the worst (lowest) τ of each estimator."""
        means = {name: statistics.fmean(values) for name, values in self.figures.items()}
        return means | {
            "tau_worst": min(self.figures["tau"]),
            "stat_tau_worst": min(self.figures["stat_tau"]),
        }

    def design(self) -> str:
        """The strata as ``parse_strata`` reads them, rates to three decimals."""
        return ",".join(f"{s.first}-{s.last}:{s.rate:.3f}" for s in self.strata)


@dataclass(frozen=True)
class Simulation:
    """The truth's MAP of each run (the pool judged in full) and each share's outcome."""

    depth: int
    pool_size: int
    top_size: int
    truth: dict[str, float]
    shares: tuple[ShareOutcome, ...]


def truncated(run: Run, depth: int) -> Run:
    """The run's first ``depth`` documents of each topic, in trec_eval's order."""
    return {topic: {d: docs[d] for d in trec_order(docs)[:depth]} for topic, docs in run.items()}


def pool_truth(runs: Mapping[str, Run], qrels: Qrels, depth: int) -> tuple[dict, dict[str, float]]:
    """The depth-``depth`` pool (``{topic: {document: best rank}}``, topics the truth judges) and each
    run's MAP against the truth's labels of the pooled documents."""
    pool = {t: docs for t, docs in depth_k_pool(runs.values(), depth).items() if t in qrels}
    if not pool:
        raise SimulationError("the runs and the truth have no topic in common")
    judged: Qrels = {t: {d: qrels[t].get(d, 0) for d in docs} for t, docs in pool.items()}
    truth = {
        name: statistics.fmean(v["map"] for v in evaluate(judged, run, ["map"], complete=True).values())
        for name, run in runs.items()
    }
    return pool, truth


def design_for_share(share: float, top: int, rest: int, top_depth: int, depth: int) -> tuple[Stratum, ...]:
    """Two strata judging ``share`` of a pool of ``top`` documents in ranks 1..``top_depth`` and ``rest``
    below: the top at the rate that spends at most ``TOP_SHARE_OF_BUDGET`` of the budget on it (all of
    it when that suffices), the rest at the rate that brings the total to the share."""
    if not 0 < share <= 1:
        raise SimulationError(f"a share judged must be in (0, 1], not {share}")
    budget = share * (top + rest)
    if rest == 0 or top_depth >= depth:
        return (Stratum(1, depth, share),)
    top_rate = min(1.0, TOP_SHARE_OF_BUDGET * budget / top) if top else 1.0
    rest_rate = min(1.0, max((budget - top_rate * top) / rest, 1 / rest))
    return (Stratum(1, top_depth, top_rate), Stratum(top_depth + 1, depth, rest_rate))


def simulate(
    runs: Mapping[str, Run],
    qrels: Qrels,
    *,
    shares: Sequence[float] = DEFAULT_SHARES,
    samples: int = 100,
    depth: int = 100,
    top_depth: int = 10,
    seed: int = 0,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> Simulation:
    """Draw ``samples`` stratified samples for each share and score every run on each (the module's
    docstring says how); ``progress(done, total)`` after each sample."""
    if len(runs) < 2:
        raise SimulationError("a ranking needs at least two runs")
    if samples < 1:
        raise SimulationError("at least one sample per share")
    runs = {name: truncated(run, depth) for name, run in runs.items()}
    pool, truth = pool_truth(runs, qrels, depth)
    in_pool = {name: {t: docs for t, docs in run.items() if t in pool} for name, run in runs.items()}
    top = sum(rank <= top_depth for docs in pool.values() for rank in docs.values())
    size = sum(len(docs) for docs in pool.values())
    names = sorted(runs)
    outcomes = []
    done, total = 0, samples * len(shares)
    for share in shares:
        strata = design_for_share(share, top, size - top, top_depth, depth)
        figures: dict[str, list[float]] = {name: [] for name in FIGURES}
        for number in range(samples):
            members = stratified_sample(in_pool.values(), strata, seed + number)
            sample: SampleQrels = {}
            for m in members:
                label = qrels[m.topic].get(m.docno, 0) if m.sampled else -1
                sample.setdefault(m.topic, {})[m.docno] = SampleJudgement(m.stratum, label)
            inferred = {name: sample_eval(sample, in_pool[name]).infAP for name in names}
            statistical = {name: stat_map(sample, in_pool[name]) for name in names}
            figures["judged"].append(sum(m.sampled for m in members) / len(members))
            for prefix, estimate in (("", inferred), ("stat_", statistical)):
                errors = [estimate[n] - truth[n] for n in names]
                figures[prefix + "bias"].append(statistics.fmean(errors))
                figures[prefix + "mae"].append(statistics.fmean(map(abs, errors)))
                figures[prefix + "tau"].append(kendall_tau(truth, estimate))
                if not prefix:
                    figures["rmse"].append(math.sqrt(statistics.fmean(e * e for e in errors)))
            done += 1
            progress(done, total)
        outcomes.append(ShareOutcome(share, strata, {k: tuple(v) for k, v in figures.items()}))
    return Simulation(depth, size, top, truth, tuple(outcomes))


def stat_map(sample: SampleQrels, run: Run) -> float:
    """statAP averaged over every topic of the sample, one without a sampled relevant document
    counting 0 (statAP_MQ_eval_v3.pl's own statMAP leaves those out)."""
    try:
        topics = stat_ap(inclusion_probabilities(sample), run).topics
    except ValueError:  # no topic with a sampled relevant document: every topic counts 0
        return 0.0
    return sum(value.stat_ap for value in topics.values()) / len(sample)
