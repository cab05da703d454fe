"""The trust checks shown beside a leaderboard, gathered from the evaluation's run scores (each sub-task
stored what its run contributes; ``compute.score_run``) with the pure functions of
``evaluation.metrics.trust``, of which this module is the shell:

- **unjudged documents**: the mean share of each run's top k that the ground truth does not judge;
  a run above ``UNJUDGED_FLAG`` at the first cut-off is flagged (its score counts those as
  non-relevant and may be far too low);
- **pool bias**: each run's score and rank with and without the documents only it (or its group)
  put into the pool, among the other runs' full scores (leave one run / group out);
- **ranking stability**: Kendall's τ and τ_AP between the ranking under this ground truth and under
  each alternative one, and the pairs of runs whose order flips. The job stores every figure;
  ``shown_checks`` is what pages and API show: below ``POINTS_FOR_CORRELATION`` runs no τ and no
  τ_AP, but the reason (the flipped pairs are facts, and stay).
"""

from __future__ import annotations

import math

from annotation.crowd.minimums import POINTS_FOR_CORRELATION
from evaluation.metrics.trust import flipped_pairs, kendall_tau, ranking, symmetric_tau_ap
from evaluation.models import Evaluation
from evaluation.scoring.compute import CHECK_MEASURE, UNJUDGED_CUTOFFS

# A run whose top 10 is on average more than this share unjudged is flagged.
UNJUDGED_FLAG = 0.2


def evaluation_checks(evaluation: Evaluation) -> dict:
    rows = list(evaluation.scores.select_related("run").order_by("run__tag"))
    scores = {row.run.tag: float(row.overall.get(CHECK_MEASURE, 0.0)) for row in rows}
    return {
        "measure": CHECK_MEASURE,
        "unjudged": {
            "cutoffs": list(UNJUDGED_CUTOFFS),
            "flag_above": UNJUDGED_FLAG,
            "runs": [unjudged_row(row.run.tag, row.checks["unjudged"]) for row in rows],
        },
        "pool_bias": [pool_bias_row(row, scores) for row in rows],
        "stability": stability(scores, {row.run.tag: row.checks["variants"] for row in rows}),
    }


def unjudged_row(tag: str, shares: dict[str, float]) -> dict:
    first = str(UNJUDGED_CUTOFFS[0])
    return {"run": tag, "shares": shares, "flagged": shares.get(first, 0.0) > UNJUDGED_FLAG}


def pool_bias_row(row, scores: dict[str, float]) -> dict:
    """The run's rank with its full score, and with its left-out score among the others' full ones."""
    tag = row.run.tag
    left_out = row.checks["left_out"]
    others = {other: score for other, score in scores.items() if other != tag}
    return {
        "run": tag,
        "group": row.run.group or tag,
        "score": scores[tag],
        "rank": ranking(scores).index(tag) + 1,
        "score_left_out": left_out["score"],
        "rank_left_out": ranking({**others, tag: left_out["score"]}).index(tag) + 1,
        "unique_documents": left_out["unique_documents"],
        "unique_relevant": left_out["unique_relevant"],
    }


def stability(scores: dict[str, float], variant_scores: dict[str, dict[str, float]]) -> list[dict]:
    """For each alternative ground truth: τ, τ_AP and the flipped pairs against this ranking."""
    if len(scores) < 2:
        return []
    names = sorted({name for per_run in variant_scores.values() for name in per_run})
    out = []
    for name in names:
        other = {tag: variant_scores[tag][name] for tag in scores}
        tau = kendall_tau(scores, other)
        out.append(
            {
                "ground_truth": name,
                "kendall_tau": None if math.isnan(tau) else tau,
                "tau_ap": symmetric_tau_ap(ranking(scores), ranking(other)),
                "flipped": [list(pair) for pair in flipped_pairs(scores, other)],
            }
        )
    return out


def shown_checks(checks: dict) -> dict:
    """The stored checks as pages and API show them: each stability row with the number of runs it
    rests on (``systems``) and, below the minimum for a correlation, no τ or τ_AP but the
    ``reason``. Read-time, so evaluations stored before the minimum existed are shown by it too."""
    if not checks:
        return checks
    systems = len(checks.get("pool_bias", []))
    reason = POINTS_FOR_CORRELATION.reason(systems, "runs")
    hidden = {"kendall_tau": None, "tau_ap": None} if reason else {}
    stability = [row | {"systems": systems, "reason": reason} | hidden for row in checks.get("stability", [])]
    return checks | {"stability": stability}
