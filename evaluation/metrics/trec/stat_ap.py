"""statAP: average precision estimated from a sample with known inclusion probabilities (Aslam, Pavlu &
Yilmaz, SIGIR 2006, "A statistical method for system evaluation using incomplete judgments"; Aslam &
Pavlu 2008, "A practical sampling strategy for efficient retrieval evaluation"), as Virgil Pavlu's
``statAP_MQ_eval_v3.pl`` (TREC Million Query track 2007–2009) computes it. Pure Python.

With π(d) the inclusion probability of a sampled document d (Horvitz–Thompson weights 1/π):

1. estimated number relevant R̂ = Σ 1/π(d) over the sampled relevant documents;
2. walking the run by score, at the sampled relevant document at rank r:
   precision = (1 + Σ 1/π(d') over the sampled relevant d' above it) / r;
3. statAP = Σ precision(d) / π(d) over those documents, divided by R̂ (0 relevant: no value);
4. statP@30 = Σ 1/π(d) over the sampled relevant in the top 30, / 30; statR-prec the same at rank
   round(R̂) (over R̂ when the run is shorter);
5. statMAP: the mean over the topics with R̂ > 0 that the run retrieved for ("valid topics").

In a stratified sample (``sampling``), π(d) is its stratum's n/N: the sample qrels give it as the
stratum's sampled share, so statAP reads the same file as ``inferred`` (``inclusion_probabilities``),
or ``write_prels`` gives the script its five-column prels (``topic docno rel method iprob``, method 1).

Differences from the script: it ranks tied scores in Perl's hash order, which changes between runs
of the script; here ties are ranked as trec_eval ranks them (docno descending). Its nDCG (which does
not weight by 1/π) and its variance estimate are not computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from evaluation.metrics.trec.files import Run, trec_order
from evaluation.metrics.trec.sample_files import SampleQrels

PRECISION_CUTOFF = 30
NEU_METHOD = 1  # the script's "method" column: 1 keeps the probability as given (0 and 2 set it to 1)

# {topic: {docno: (rel, inclusion probability)}} for the sampled documents only.
Sample = dict[str, dict[str, tuple[int, float]]]


@dataclass
class StatTopic:
    """One topic's estimates, as the script names them (AP, R-prec, Prec_at_30, Relevant)."""

    stat_ap: float
    r_prec: float
    precision_at_30: float
    estimated_relevant: float


@dataclass
class StatEvaluation:
    """statAP and friends per valid topic (numeric order) and their means over the valid topics."""

    topics: dict[str, StatTopic]
    stat_map: float
    stat_mrp: float
    stat_mpc: float


def inclusion_probabilities(qrels: SampleQrels) -> Sample:
    """The sampled documents of sample qrels with their inclusion probability: the share of their
    stratum that was sampled (rel ≥ 0), which is n/N for ``sampling.stratified_sample``'s design."""
    sample: Sample = {}
    for topic, judgements in qrels.items():
        pooled: dict[str, int] = {}
        sampled: dict[str, int] = {}
        for judgement in judgements.values():
            pooled[judgement.stratum] = pooled.get(judgement.stratum, 0) + 1
            if judgement.rel >= 0:
                sampled[judgement.stratum] = sampled.get(judgement.stratum, 0) + 1
        sample[topic] = {
            docno: (j.rel, sampled[j.stratum] / pooled[j.stratum])
            for docno, j in judgements.items()
            if j.rel >= 0
        }
    return sample


def write_prels(sample: Sample, handle: IO[str]) -> None:
    """The script's prels: ``topic docno rel 1 iprob``, topics in numeric order and grouped (the
    script starts a topic's counts afresh whenever the topic id changes)."""
    for topic in sorted(sample, key=_numeric):
        for docno, (rel, probability) in sorted(sample[topic].items()):
            handle.write(f"{topic} {docno} {rel} {NEU_METHOD} {probability!r}\n")


def _numeric(topic: str) -> tuple[float, str]:
    try:
        return float(topic), topic
    except ValueError:
        return 0.0, topic


def _topic(judged: Mapping[str, tuple[int, float]], scores: Mapping[str, float]) -> StatTopic | None:
    estimated = 0.0
    for rel, probability in judged.values():
        if rel > 0:
            estimated += 1 / probability
    if not estimated > 0:
        return None
    rounded = int(estimated + 0.5)
    found = up = 0.0
    precision_at_30 = r_prec = -1.0
    ranking = trec_order(dict(scores))
    for rank, docno in enumerate(ranking, start=1):
        rel, probability = judged.get(docno, (0, 1.0))
        if rel > 0:
            up += (1 + found) / rank / probability
            found += 1 / probability
        if rank == PRECISION_CUTOFF:
            precision_at_30 = found / rank
        if rank == rounded:
            r_prec = found / rank
    if precision_at_30 < 0:
        precision_at_30 = found / PRECISION_CUTOFF
    if r_prec < 0:
        r_prec = found / estimated
    return StatTopic(up / estimated, r_prec, precision_at_30, estimated)


def stat_ap(sample: Sample, run: Run) -> StatEvaluation:
    """statAP, statR-prec and statP@30 of ``run`` on each topic it shares with ``sample`` that has a
    sampled relevant document, and their means. Raises ValueError when there is no such topic (the
    script divides by zero)."""
    topics: dict[str, StatTopic] = {}
    for topic in sorted(sample, key=_numeric):
        if topic in run:
            values = _topic(sample[topic], run[topic])
            if values is not None:
                topics[topic] = values
    if not topics:
        raise ValueError("no topic of the run has a sampled relevant document")
    count = len(topics)
    return StatEvaluation(
        topics,
        sum(v.stat_ap for v in topics.values()) / count,
        sum(v.r_prec for v in topics.values()) / count,
        sum(v.precision_at_30 for v in topics.values()) / count,
    )
