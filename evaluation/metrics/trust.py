"""Checks that say how far a leaderboard can be trusted (pure; no Django).

- **Unjudged documents** (Buckley & Voorhees 2004; Sakai 2007): the share of a run's top k that the
  ground truth does not judge. A score resting on many unjudged documents counts them as
  non-relevant and may be far too low.
- **Pool bias, leave one run out** (Zobel 1998; Büttcher, Clarke, Yeung & Soboroff 2007): re-score
  each run (or each group of runs, e.g. one team's) against the qrels without the documents only it
  contributed to the pool. A run whose score or rank drops a lot was helped by its own contribution,
  and a new run that contributed nothing would be judged as harshly.
- **Ranking stability** (Kendall 1938; Yilmaz, Aslam & Robertson 2008): Kendall's τ between two
  orderings of the same systems, τ_AP (which weighs swaps near the top more), and the pairs whose
  order flips.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from annotation.crowd.minimums import ITEMS_FOR_KAPPA, Minimum
from evaluation.metrics.natural_order import natural_sorted
from evaluation.metrics.trec.files import Qrels, Run, trec_order
from evaluation.metrics.trec.measures import aggregate, evaluate_many
from evaluation.metrics.trec.names import trec_eval_specs

# --- unjudged documents --------------------------------------------------------------------------


def unjudged_share(run: Run, qrels: Qrels, cutoffs: Sequence[int] = (10, 100)) -> dict[str, dict[int, float]]:
    """Per topic of the run that the qrels cover, the share of its top k documents (trec_eval order)
    that the qrels do not judge, for each cut-off k: ``{topic: {k: share}}``.

    The share is over the documents the run has in its top k, min(k, retrieved): the check asks how
    much of what the run ranked there the ground truth has not judged, the part of its score that
    rests on documents counted as non-relevant unseen. Over k itself, a run of 30 documents none of
    them judged was 30 % unjudged at 100, below the flag, though its every document is unjudged
    (issue 25). For a run that returns k or more the two agree, and equal 1 − the judged rate of
    trec_eval's ``unj`` measure, which divides by k (``cranfield trec-eval -m unj`` keeps that).
    A topic with no document at all counts as wholly unjudged, as a topic the run lacks does in the
    evaluation job's check.
    """
    rankings = {topic: trec_order(scores) for topic, scores in run.items() if topic in qrels}
    return unjudged_share_of_rankings(rankings, qrels, cutoffs)


def unjudged_share_of_rankings(
    rankings: Mapping[str, Sequence[str]], qrels: Qrels, cutoffs: Sequence[int] = (10, 100)
) -> dict[str, dict[int, float]]:
    """``unjudged_share`` of a run given as each topic's documents in trec_eval's order already (a
    stored run's ranked lists), so that nothing is sorted again."""
    shares: dict[str, dict[int, float]] = {}
    for topic, ranked in rankings.items():
        if topic not in qrels:
            continue
        judged = qrels[topic]
        shares[topic] = {
            k: sum(1 for doc in ranked[:k] if doc not in judged) / min(k, len(ranked)) if ranked else 1.0
            for k in cutoffs
        }
    return shares


def mean_unjudged_share(shares: Mapping[str, Mapping[int, float]]) -> dict[int, float]:
    """The mean over topics of ``unjudged_share``: ``{k: share}`` ({} for no topics)."""
    if not shares:
        return {}
    cutoffs = next(iter(shares.values()))
    return {k: sum(topic[k] for topic in shares.values()) / len(shares) for k in cutoffs}


# --- pool bias -----------------------------------------------------------------------------------


def pool_contributions(runs: Mapping[str, Run], depth: int) -> dict[str, dict[str, set[str]]]:
    """Which documents each run put into the depth-k pool: ``{run: {topic: {document, …}}}``."""
    return {
        name: {topic: set(trec_order(scores)[:depth]) for topic, scores in run.items()}
        for name, run in runs.items()
    }


def qrels_without(qrels: Qrels, removed: Mapping[str, set[str]]) -> Qrels:
    """The qrels minus the judgements of ``{topic: documents}``."""
    return {
        topic: {doc: rel for doc, rel in judged.items() if doc not in removed.get(topic, set())}
        for topic, judged in qrels.items()
    }


def unique_contributions(
    contributions: Mapping[str, Mapping[str, set[str]]], group: Iterable[str]
) -> dict[str, set[str]]:
    """The documents that the runs of ``group`` put into the pool and no run outside it did."""
    members = set(group)
    unique: dict[str, set[str]] = {}
    for name in members:
        for topic, docs in contributions[name].items():
            unique.setdefault(topic, set()).update(docs)
    for name, topics in contributions.items():
        if name not in members:
            for topic, docs in topics.items():
                if topic in unique:
                    unique[topic] -= docs
    return unique


@dataclass(frozen=True)
class LeaveOutResult:
    """A run's score and rank (1 = best) with the full qrels and with its group's unique documents
    left out of them."""

    run: str
    group: str
    score: float
    rank: int
    score_left_out: float
    rank_left_out: int
    unique_documents: int
    unique_relevant: int


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    order = sorted(scores, key=lambda name: (-scores[name], name))
    return {name: position for position, name in enumerate(order, start=1)}


def leave_one_out(
    runs: Mapping[str, Run],
    qrels: Qrels,
    depth: int,
    measure: str = "map",
    groups: Mapping[str, str] | None = None,
    relevance_level: int = 1,
) -> list[LeaveOutResult]:
    """Leave-one-run-out (or, with ``groups`` mapping run → team, leave-one-group-out) re-scoring.

    For each group, the qrels lose the documents only that group's runs contributed to the depth-k
    pool; each of its runs is scored on those qrels (over every topic of the full qrels, as
    trec_eval's ``-c``) and ranked among the other runs' full-qrels scores, as a new run that had
    not been pooled would be. Results in the order of ``runs``.
    """
    groups = groups or {name: name for name in runs}
    # ``measure`` as trec_eval prints it (P_10), scored by its -m argument (P.10).
    spec = trec_eval_specs([measure])
    full = {
        name: aggregate(per_topic)[measure]
        for name, per_topic in evaluate_many(
            qrels, runs, spec, complete=True, relevance_level=relevance_level
        ).items()
    }
    ranks = _ranks(full)
    contributions = pool_contributions(runs, depth)
    results = []
    for group in dict.fromkeys(groups[name] for name in runs):
        members = [name for name in runs if groups[name] == group]
        unique = unique_contributions(contributions, members)
        reduced = qrels_without(qrels, unique)
        left_out = evaluate_many(
            reduced,
            {name: runs[name] for name in members},
            spec,
            complete=True,
            relevance_level=relevance_level,
        )
        for name in members:
            score = aggregate(left_out[name])[measure]
            others = {other: value for other, value in full.items() if other not in members}
            results.append(
                LeaveOutResult(
                    run=name,
                    group=group,
                    score=full[name],
                    rank=ranks[name],
                    score_left_out=score,
                    rank_left_out=_ranks({**others, name: score})[name],
                    unique_documents=sum(len(docs & set(qrels.get(t, {}))) for t, docs in unique.items()),
                    unique_relevant=sum(
                        1
                        for topic, docs in unique.items()
                        for doc in docs
                        if qrels.get(topic, {}).get(doc, 0) >= relevance_level
                    ),
                )
            )
    return results


# --- ranking stability ---------------------------------------------------------------------------


def ranking(scores: Mapping[str, float]) -> list[str]:
    """Systems best first (ties by name, so the order is a function of the scores alone)."""
    return sorted(scores, key=lambda name: (-scores[name], name))


def kendall_tau(first: Mapping[str, float], second: Mapping[str, float]) -> float:
    """Kendall's τ-b between two scorings of the same systems (scipy.stats.kendalltau)."""
    from scipy.stats import kendalltau

    names = sorted(first)
    if set(second) != set(names):
        raise ValueError("both scorings must cover the same systems")
    return float(kendalltau([first[n] for n in names], [second[n] for n in names]).statistic)


def tau_ap(reference: Sequence[str], other: Sequence[str]) -> float:
    """Yilmaz, Aslam & Robertson's (2008) AP rank correlation of ``other`` against ``reference``
    (both best first, same systems): τ_AP = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1, where C(i) counts
    the systems ranked above the i-th system of ``other`` in both rankings. Not symmetric; see
    ``symmetric_tau_ap``."""
    if set(reference) != set(other) or len(reference) != len(other):
        raise ValueError("both rankings must hold the same systems once each")
    n = len(other)
    if n < 2:
        raise ValueError("τ_AP needs at least two systems")
    position = {name: index for index, name in enumerate(reference)}
    total = 0.0
    for i in range(1, n):
        above = sum(1 for j in range(i) if position[other[j]] < position[other[i]])
        total += above / i
    return 2.0 * total / (n - 1) - 1.0


def symmetric_tau_ap(first: Sequence[str], second: Sequence[str]) -> float:
    """The mean of τ_AP both ways round (Yilmaz et al. 2008, §4)."""
    return (tau_ap(first, second) + tau_ap(second, first)) / 2.0


def flipped_pairs(first: Mapping[str, float], second: Mapping[str, float]) -> list[tuple[str, str]]:
    """Pairs (a, b) that ``first`` orders a above b and ``second`` orders b above a (ties flip nothing)."""
    names = ranking(first)
    return [
        (a, b)
        for index, a in enumerate(names)
        for b in names[index + 1 :]
        if first[a] > first[b] and second[a] < second[b]
    ]


# --- crowd against an external ground truth ------------------------------------------------------


@dataclass(frozen=True)
class TopicAgreement:
    """One topic's crowd labels against a reference's, as relevant / not relevant."""

    topic: str
    shared: int  # documents both judge
    kappa: float | None  # Cohen's kappa over the shared documents; None with ``reason``
    reference_relevant: int
    reference_relevant_judged: int  # of those, how many the crowd judged (the pool found)
    reason: str | None = None  # why there is no kappa: too few shared documents, or undefined


def cohen_kappa(first: Sequence[bool], second: Sequence[bool]) -> float | None:
    """Cohen's kappa of two binary labelings; None when it is undefined (chance agreement 1)."""
    n = len(first)
    if n < 2:
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    p1, p2 = sum(first) / n, sum(second) / n
    chance = p1 * p2 + (1 - p1) * (1 - p2)
    return None if chance == 1 else (observed - chance) / (1 - chance)


UNDEFINED_KAPPA = "kappa undefined: both give every shared document the same label"


def agreement_with_reference(
    crowd: Qrels, reference: Qrels, relevance_level: int = 1, minimum: Minimum = ITEMS_FOR_KAPPA
) -> list[TopicAgreement]:
    """Per topic of the reference: Cohen's kappa between crowd and reference on the documents both
    judge (none, with the reason, below ``minimum`` of them), and how many of the reference's
    relevant documents the crowd judged at all."""
    out = []
    for topic in natural_sorted(reference):
        ours, theirs = crowd.get(topic, {}), reference[topic]
        shared = sorted(set(ours) & set(theirs))
        relevant = [doc for doc, rel in theirs.items() if rel >= relevance_level]
        kappa, reason = None, minimum.reason(len(shared))
        if reason is None:
            kappa = cohen_kappa(
                [ours[d] >= relevance_level for d in shared],
                [theirs[d] >= relevance_level for d in shared],
            )
            reason = UNDEFINED_KAPPA if kappa is None else None
        out.append(
            TopicAgreement(
                topic=topic,
                shared=len(shared),
                kappa=kappa,
                reference_relevant=len(relevant),
                reference_relevant_judged=sum(doc in ours for doc in relevant),
                reason=reason,
            )
        )
    return out


def weighted_mean_kappa(rows: Sequence[TopicAgreement]) -> float | None:
    """The mean of the topics' kappas weighted by their shared documents (a topic of 40 documents
    tells more than one of 10); None when no topic has a kappa."""
    counted = [(row.kappa, row.shared) for row in rows if row.kappa is not None]
    total = sum(shared for _, shared in counted)
    return sum(kappa * shared for kappa, shared in counted) / total if total else None


def kappa_over_topics(
    crowd: Qrels, reference: Qrels, relevance_level: int = 1, minimum: Minimum = ITEMS_FOR_KAPPA
) -> tuple[float | None, int, str | None]:
    """Cohen's kappa of crowd and reference over every (topic, document) both judge, all topics
    together: ``(kappa, shared, reason)``. Where each topic shares a handful of documents (a
    collection's official qrels judge few per topic), the per-topic kappas are too few to show, and
    this one rests on all of them."""
    first, second = [], []
    for topic, theirs in reference.items():
        ours = crowd.get(topic, {})
        for document in sorted(set(ours) & set(theirs)):
            first.append(ours[document] >= relevance_level)
            second.append(theirs[document] >= relevance_level)
    reason = minimum.reason(len(first))
    if reason is not None:
        return None, len(first), reason
    kappa = cohen_kappa(first, second)
    return kappa, len(first), UNDEFINED_KAPPA if kappa is None else None
