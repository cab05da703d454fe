"""Phase 2 of a snapshot: compute agreement, the aggregate per item and the annotator report from the
inputs read, with the pure functions of ``annotation.crowd`` (labels encoded once), reporting progress.
No database access: everything comes in ``read.Inputs`` and goes out as ``Computed``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from annotation.crowd.aggregation.base import AggregationResult
from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.aggregation.methods import aggregate_by_name
from annotation.crowd.agreement.cohen import cohen_kappa_matrix
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.crowd.agreement.report import agreement_summary
from annotation.crowd.io.encoding import Encoded, Labels, as_encoded, encode, label_order, on_scale
from annotation.crowd.minimums import COMPARISONS_FOR_INTERVAL, ITEMS_FOR_KAPPA
from annotation.crowd.pairwise.bradley_terry import BradleyTerryError, bradley_terry
from annotation.crowd.quality.annotators import (
    agreement_with_aggregate,
    busiest,
    confusion_against_aggregate,
    dawid_skene_annotators,
    rating_agreement_with_aggregate,
)
from annotation.crowd.ratings.normalisation import zscore_per_annotator
from annotation.crowd.ratings.summaries import summarise_likert
from annotation.models import AdjudicatedBy, Project
from annotation.task_types import LIKERT_GOLD_TOLERANCE
from evaluation.ground_truth.read import Inputs
from evaluation.ground_truth.ties import rule_parameters, tie_states
from evaluation.prior.agreement import crowd_against_prior
from evaluation.prior.merge import merge_labels

# Bootstrap resamples of the comparisons for the interval of each system's Bradley-Terry strength.
RANKING_RESAMPLES = 200


# The pairwise-kappa heat map keeps the annotators with the most labels: beyond a few dozen rows
# it is unreadable, and the snapshot row stays small.
HEATMAP_ANNOTATORS = 30


# Bootstrap intervals over items for every agreement figure (percentile, seeded).
INTERVAL_RESAMPLES = 1000


INTERVAL_SEED = 0


# Mean Cohen's kappa's interval revisits every (pair, shared item) per resample: beyond this many
# judgements it would dominate the job (~2 min per 1,000 resamples at 1M), so it is left out there.
COHEN_INTERVAL_MAX_JUDGEMENTS = 100_000


# Called with a stage description and the share of the work done (0 to 1).
Progress = Callable[[str, float], None]


def no_progress(stage: str, share: float) -> None:
    """The default progress callback: report nothing."""


# The methods that need neither gold nor a tie rule, by the crowd package's registry.
_CROWD_METHODS = {
    Project.GroundTruthMethod.ONE_COIN_DAWID_SKENE,
    Project.GroundTruthMethod.GLAD,
    Project.GroundTruthMethod.MACE,
    Project.GroundTruthMethod.MMSR,
    Project.GroundTruthMethod.WAWA,
    Project.GroundTruthMethod.ZERO_BASED_SKILL,
}


def aggregate(data: Labels, method: str, tie_rule: str, with_gold: Labels, gold: dict) -> AggregationResult:
    """The aggregate label of every task by the named method.

    ``with_gold`` is ``data`` followed by the first answers given to gold items, whose expected
    labels are ``gold``; only the gold-weighted vote and majority vote's ``gold_weighted`` tie-break
    use them, and only to weigh each annotator (gold items get no label, and are not listed as
    ties). ``tie_rule`` (``annotation.crowd.aggregation.TIE_RULES``) applies to both votes.
    """
    if method == Project.GroundTruthMethod.DAWID_SKENE:
        return dawid_skene(data)
    if method in _CROWD_METHODS:
        return aggregate_by_name(data, method)
    if method == Project.GroundTruthMethod.GOLD_WEIGHTED:
        return without_gold_items(gold_weighted_vote(with_gold, gold, tie_rule=tie_rule), gold)
    if tie_rule == Project.TieRule.GOLD_WEIGHTED:
        return without_gold_items(majority_vote(with_gold, tie_rule=tie_rule, gold=gold), gold)
    return majority_vote(data, tie_rule=tie_rule)


def without_gold_items(result: AggregationResult, gold: dict) -> AggregationResult:
    """``result`` without the gold items it labelled (they weigh annotators; they are not judged)."""
    for item in gold:
        result.labels.pop(item, None)
        result.confidence.pop(item, None)
        result.tie_breaks.pop(item, None)
    return replace(result, ties=[item for item in result.ties if item not in gold])


def agreement_figures(data: Labels, *, weights: str = "none", level: str = "nominal") -> dict:
    """``annotation.crowd.agreement.report.agreement_summary`` with bootstrap intervals over items:
    Fleiss' kappa,
    mean pairwise Cohen's kappa, Krippendorff's alpha and per-label agreement, each with its base."""
    data = as_encoded(data)  # once, for the size check and the summary alike
    statistics: tuple[str, ...] = ("fleiss_kappa", "cohen_kappa_mean", "krippendorff_alpha")
    if len(data) > COHEN_INTERVAL_MAX_JUDGEMENTS:
        statistics = ("fleiss_kappa", "krippendorff_alpha")
    return agreement_summary(
        data,
        weights=weights,
        level=level,
        intervals=True,
        resamples=INTERVAL_RESAMPLES,
        seed=INTERVAL_SEED,
        interval_statistics=statistics,
    )


def label_agreement(data: Labels, progress: Progress = no_progress, *, scale: list | None = None) -> dict:
    """Agreement of a label project; an ordered ``scale`` (graded labels: every level, in order)
    adds, under ``ordered``, the report with linearly weighted Cohen's kappa and ordinal alpha on
    that scale, so that a level no one used still counts in the distance between two others."""
    progress("agreement: Fleiss' kappa, Cohen's kappa of every pair, Krippendorff's alpha", 0.15)
    figures = agreement_figures(data)
    if scale is not None:
        progress("agreement: weighted kappa and ordinal alpha", 0.4)
        figures["ordered"] = agreement_figures(on_scale(data, scale), weights="linear", level="ordinal")
    return figures


def scores_by_dimension(rows: list, dimensions: list[str]) -> dict[str, list]:
    """(task, annotator, answer) rows → {dimension: [(task, annotator, score), …]}."""
    return {
        dimension: [(task, annotator, answer["scores"][dimension]) for task, annotator, answer in rows]
        for dimension in dimensions
    }


# -- phase 2: compute ----------------------------------------------------------------------------


@dataclass
class Computed:
    """A snapshot's contents before they are stored."""

    labels: list  # (task, label or None, confidence, judgement count, details)
    parameters: dict
    agreement: dict
    annotator_report: dict = field(default_factory=dict)
    # task -> (adjudicated by, the aggregate a researcher's label replaced, who/when/why)
    adjudications: dict = field(default_factory=dict)
    # task -> how its tied vote was settled, or that it waits (evaluation.ground_truth.ties)
    ties: dict = field(default_factory=dict)
    # Projects with prior sets: task -> (source, prior label, crowd label) of the items both judged,
    # and (topic, document, label) of the pairs only a prior set judged (evaluation.prior.merge).
    sources: dict = field(default_factory=dict)
    prior_only: list = field(default_factory=list)


def label_classes(project: Project, triples: list) -> list:
    """Every label the project can give (its type's classes), plus any seen, in label order."""
    configured = set(project.type.classes(project.config))
    return sorted(configured | {label for _, _, label in triples}, key=label_order)


def compute_labels(inputs: Inputs, progress: Progress = no_progress) -> Computed:
    """Agreement, the aggregate label per item and the annotator report of a label project."""
    triples = inputs.rows
    # Encoded once for the whole snapshot (gold answers after the items' judgements, for the
    # gold-weighted vote): every figure below works on these integer codes.
    with_gold = encode(triples + inputs.gold_triples)
    data = with_gold.select(slice(0, len(triples))) if inputs.gold_triples else with_gold
    ordered = inputs.project.type.ordered
    figures = label_agreement(
        data, progress, scale=label_classes(inputs.project, triples) if ordered else None
    )
    progress(f"aggregation: {inputs.method}", 0.5)
    vote = aggregate(data, inputs.method, inputs.tie_rule, with_gold, inputs.gold)
    progress("annotator report", 0.75)
    parameters = {
        key: value
        for key, value in vote.parameters.items()
        if key not in {"annotator_reliability", "annotator_weights"}
    }
    if inputs.refers_ties:
        parameters |= rule_parameters(inputs.project)
    counts = Counter(task_id for task_id, _, _ in triples)
    labels: list = [
        (task_id, int(label), float(vote.confidence[task_id]), counts[task_id], {})  # type: ignore[call-overload]
        for task_id, label in vote.labels.items()
    ]
    report = label_annotator_report(data, vote, label_classes(inputs.project, triples))
    figures["ties"] = sorted(vote.ties, key=label_order)
    if inputs.systems:
        progress("system ranking: Bradley-Terry", 0.85)
        figures["systems"] = system_ranking(triples, inputs.systems)
    labels, adjudications = adjudicated_labels(labels, inputs.decisions, inputs.extra_assessors)
    ties = tie_states(vote.ties, vote.tie_breaks, inputs.referrals, inputs.decisions, inputs.extra_assessors)
    if inputs.prior is None:
        return Computed(labels, parameters, figures, report, adjudications, ties)
    progress("merging the prior judgements", 0.88)
    merged = merge_labels(labels, inputs.prior.pairs, inputs.prior.labels, inputs.prior.precedence)
    parameters |= {"prior": inputs.prior.precedence, "prior_sets": "+".join(inputs.prior.sets)}
    figures["prior"] = crowd_against_prior(merged.sources, inputs.prior.pairs, inputs.prior.topics) | {
        "precedence": inputs.prior.precedence,
        "sets": inputs.prior.sets,
        "prior_only": len(merged.prior_only),
    }
    return Computed(
        merged.labels, parameters, figures, report, adjudications, ties, merged.sources, merged.prior_only
    )


def system_ranking(triples: list, systems: dict[int, tuple[str, str]]) -> dict:
    """Bradley-Terry strengths of the systems from every annotator's comparison (label 0: the first
    output won, 1: the second), as crowd-kit and choix fit them, with bootstrap intervals over the
    comparisons; or why there is no ranking (a system that never loses has no finite strength)."""
    comparisons = []
    for task, _, label in triples:
        if task in systems:
            first, second = systems[task]
            comparisons.append((first, second, first if label == 0 else second))
    described: dict = {"method": "bradley-terry", "comparisons": len(comparisons)}
    described["resamples"] = RANKING_RESAMPLES
    if not comparisons:
        return described | {"ranking": [], "error": "no comparison of two named systems yet"}
    wins: Counter = Counter(winner for _, _, winner in comparisons)
    played: Counter = Counter(system for first, second, _ in comparisons for system in (first, second))
    try:
        strengths = bradley_terry(comparisons, resamples=RANKING_RESAMPLES, seed=INTERVAL_SEED)
    except BradleyTerryError as error:
        return described | {"ranking": [], "error": str(error)}
    ranking = []
    for s in strengths:
        # A system in fewer comparisons than an interval needs gets none, and the reason.
        reason = COMPARISONS_FOR_INTERVAL.reason(played[s.item])
        shown = reason is None and not np.isnan(s.low)
        ranking.append(
            {
                "system": s.item,
                "strength": s.strength,
                "low": s.low if shown else None,
                "high": s.high if shown else None,
                "wins": wins[s.item],
                "comparisons": played[s.item],
                "reason": reason,
            }
        )
    return described | {
        "ranking": ranking,
        "error": None,
        "minimum_comparisons": COMPARISONS_FOR_INTERVAL.count,
    }


def adjudicated_labels(labels: list, decisions: dict, extra_assessors: dict) -> tuple[list, dict]:
    """The aggregate labels with the researchers' decisions in force, and how each item was adjudicated.

    A researcher's label replaces the aggregate, with confidence 1 (a decision, not an estimate);
    the aggregate and its confidence are kept beside it. An item whose extra assessor has judged
    keeps its aggregate, which counts that judgement. An item settled by a researcher after an
    extra assessor says both. A decided item none of whose judgements the ground truth uses (its
    annotators were blocked) still gets the decided label, with no judgements.

    The agreement figures and the annotator report are the crowd's: they compare annotators with
    each other and with the aggregate, never with a researcher's decision.
    """
    out = []
    how: dict = {}
    for task, label, confidence, count, details in labels:
        decision = decisions.get(task)
        if decision is not None:
            info = researcher_adjudication(decision, extra_assessors.get(task))
            how[task] = (AdjudicatedBy.RESEARCHER, label, info | {"aggregate_confidence": confidence})
            out.append((task, decision["label"], 1.0, count, details))
            continue
        if task in extra_assessors:
            how[task] = (AdjudicatedBy.EXTRA_ASSESSOR, None, extra_assessors[task])
        out.append((task, label, confidence, count, details))
    for task in sorted(set(decisions) - {row[0] for row in labels}):
        how[task] = (AdjudicatedBy.RESEARCHER, None, researcher_adjudication(decisions[task], None))
        out.append((task, decisions[task]["label"], 1.0, 0, {}))
    return out, how


def researcher_adjudication(decision: dict, extra: dict | None) -> dict:
    """Who settled an item, when and why (and its extra assessor, if it had one first)."""
    info = {key: decision[key] for key in ("researcher", "at", "note", "decision")}
    return info | ({"extra_assessor": extra} if extra else {})


def label_annotator_report(data: Encoded, vote: AggregationResult, classes: list) -> dict:
    """Per annotator: labels, agreement and Cohen's kappa with the aggregate, the confusion matrix
    of their labels against it, and Dawid–Skene's estimated confusion matrix and reliability (or
    the gold weight) when the method estimated them; plus the pairwise-kappa matrix of the
    ``HEATMAP_ANNOTATORS`` busiest annotators. Keys are annotator ids as text (JSON)."""
    observed = confusion_against_aggregate(data, vote.labels, classes)
    estimated = {}
    if vote.method == "dawid-skene":
        model = dawid_skene_annotators(vote)
        positions = [model["classes"].index(c) if c in model["classes"] else None for c in classes]
        for row in model["annotators"]:
            # Laid out on the report's classes (a class no one used has no row or column there).
            matrix = [
                [row["confusion"][k][j] if None not in (k, j) else None for j in positions] for k in positions
            ]
            estimated[row["annotator"]] = (row["reliability"], matrix)
    weights = vote.parameters.get("annotator_weights", {})
    annotators = {}
    for row in agreement_with_aggregate(data, vote):
        annotator = row["annotator"]
        reliability, ds_matrix = estimated.get(annotator, (None, None))
        annotators[str(annotator)] = {
            "n_labels": row["n_labels"],
            "agreed": row["agreed"],
            "compared": row["n_labels"],
            "agreement_with_aggregate": row["agreement"],
            "kappa_with_aggregate": row["kappa"],
            "reliability": reliability,
            "gold_weight": weights.get(annotator),
            "confusion": observed.get(annotator),
            "dawid_skene_confusion": ds_matrix,
        }
    per_annotator = np.bincount(data.annotator_index, minlength=len(data.annotators)).tolist()
    counts = Counter(dict(zip(data.annotators, per_annotator, strict=True)))
    return {
        "kind": "labels",
        "classes": classes,
        "annotators": annotators,
        "pairwise": [pairwise_report(data, counts)],
    }


def pairwise_report(
    data: Labels, counts: Counter, dimension: str | None = None, weights: str = "none"
) -> dict:
    """The kappa and shared-items matrices of the busiest annotators, as the heat map shows them."""
    shown = busiest(counts, HEATMAP_ANNOTATORS)
    matrix = cohen_kappa_matrix(data, weights=weights, annotators=shown, min_shared=ITEMS_FOR_KAPPA.count)
    return {
        "dimension": dimension,
        "weights": weights,
        "annotators": shown,
        "kappa": matrix["kappa"],
        "shared": matrix["shared_items"],
        "min_shared": matrix["min_shared"],
        "annotators_total": len(counts),
    }


def normalised_means(rows: list, dimensions: list[str]) -> dict:
    """Per item and dimension the mean of the annotators' z-scores
    (``annotation.crowd.ratings.normalisation``)."""
    means: dict = {}
    for dimension, triples in scores_by_dimension(rows, dimensions).items():
        z = zscore_per_annotator((annotator, task, score) for task, annotator, score in triples)
        per_item: dict = {}
        for (_, task), value in z.items():
            per_item.setdefault(task, []).append(value)
        for task, values in per_item.items():
            means.setdefault(task, {})[dimension] = sum(values) / len(values)
    return means


def rating_scale(scale: tuple, triples: list) -> list:
    """Every score of a rating scale (lowest to highest), plus any score given outside it."""
    return sorted(set(range(scale[0], scale[1] + 1)) | {score for _, _, score in triples}, key=label_order)


def ordinal_alpha(data: Labels) -> dict:
    """Krippendorff's alpha treating the scale as ordered ranks only (the distances follow from how
    often each score was given), beside the interval alpha: the field reports both for Likert
    ratings (DialSummEval, for one), and the two differ most where raters use the scale unevenly."""
    alpha = krippendorff_alpha(data, level="ordinal")
    return {"krippendorff_alpha_ordinal": alpha.value}


def compute_ratings(inputs: Inputs, progress: Progress = no_progress) -> Computed:
    """Per item and dimension mean, median, std, IQR, MAD and n (plus the mean z-score when the
    project normalises per annotator); interval agreement per dimension; annotator report."""
    project, rows = inputs.project, inputs.rows
    dimensions = list(project.config["dimensions"])
    scale = tuple(project.config["scale"])
    # Weighted kappa on the whole scale, so that a score no one gave still counts in distances.
    by_dimension = {
        dimension: on_scale(triples, rating_scale(scale, triples))
        for dimension, triples in scores_by_dimension(rows, dimensions).items()
    }
    progress("agreement per dimension: Krippendorff's alpha and weighted Cohen's kappa", 0.2)
    figures = {
        "dimensions": {
            dimension: agreement_figures(data, weights="quadratic", level="interval") | ordinal_alpha(data)
            for dimension, data in by_dimension.items()
        }
    }
    progress("aggregation: mean and median per dimension", 0.5)
    labels = rating_labels(rows, dimensions, scale, normalise=project.rating_normalisation == "zscore")
    progress("annotator report", 0.75)
    report = rating_annotator_report(rows, labels, dimensions, by_dimension)
    parameters = {"dimensions": ",".join(dimensions), "scale": f"{scale[0]}-{scale[1]}"}
    if project.rating_normalisation == "zscore":
        parameters["normalisation"] = "zscore"
    return Computed(labels, parameters, figures, report)


def rating_labels(rows: list, dimensions: list[str], scale: tuple, *, normalise: bool) -> list:
    """Each rated item's summary per dimension (with the mean z-score when ``normalise``)."""
    summaries = summarise_likert(
        ((task, annotator, answer["scores"]) for task, annotator, answer in rows), scale
    )
    zscores = normalised_means(rows, dimensions) if normalise else {}
    labels = []
    for task_id, summary in summaries.items():
        # A summary's fields are plain numbers: its __dict__ copied is asdict's result, without
        # asdict's recursive deep copy of every field.
        details = {dimension: dict(vars(summary.dimensions[dimension])) for dimension in dimensions}
        for dimension, value in zscores.get(task_id, {}).items():
            details[dimension]["z_mean"] = value
        labels.append((task_id, None, summary.confidence, summary.n, details))
    return labels


def rating_annotator_report(rows: list, labels: list, dimensions: list[str], by_dimension: dict) -> dict:
    """Each annotator against the items' medians (within ``LIKERT_GOLD_TOLERANCE``), and the pairwise
    weighted kappas per dimension."""
    medians = {
        task_id: {dimension: details[dimension]["median"] for dimension in dimensions}
        for task_id, _, _, _, details in labels
    }
    agreement = rating_agreement_with_aggregate(
        ((task, annotator, answer["scores"]) for task, annotator, answer in rows),
        medians,
        LIKERT_GOLD_TOLERANCE,
    )
    counts = Counter(annotator for _, annotator, _ in rows)
    return {
        "kind": "ratings",
        "dimensions": dimensions,
        "tolerance": LIKERT_GOLD_TOLERANCE,
        "annotators": {
            str(annotator): {
                "n_labels": counts[annotator],
                "agreed": row["agreed"],
                "compared": row["compared"],
                "agreement_with_aggregate": row["agreed"] / row["compared"] if row["compared"] else None,
                "reliability": None,
                "gold_weight": None,
                "mean_abs_deviation": row["mean_abs_deviation"],
            }
            for annotator, row in agreement.items()
        },
        "pairwise": [
            pairwise_report(by_dimension[dimension], counts, dimension, weights="quadratic")
            for dimension in dimensions
        ],
    }
