"""Build a versioned ground-truth snapshot from a project's judgements.

A thin shell in three phases, so that the heavy computation never runs inside a transaction and
its progress can be committed (and seen by other connections) as it goes:

1. **read** the inputs (no locks) and fingerprint exactly what was read;
2. **compute** agreement, aggregation and the annotator report with the pure functions of
   ``annotation.crowd`` (on labels encoded once), reporting progress;
3. **write** the snapshot in one short transaction that locks the project row and checks again
   that no other run has written these inputs, or newer ones, meanwhile.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta

import numpy as np
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation.adjudication.rules import decisions_in_force
from annotation.crowd.aggregation.base import AggregationResult
from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.aggregation.methods import aggregate_by_name
from annotation.crowd.aggregation.ties import tie_rule_named
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
from annotation.models import AdjudicatedBy, Judgement, JudgementRevision, Membership, Project, Task
from annotation.task_types import LIKERT_GOLD_TOLERANCE
from evaluation.ground_truth.ties import rule_parameters, tie_states
from evaluation.models import GroundTruthSnapshot, SnapshotLabel

# The tie-break of the votes that are not the project's own majority vote (the gold-weighted
# method's equal scores, the leaderboard's alternative ground truths): the lower label.
DEFAULT_TIE_RULE = "lower"
# Part of every input fingerprint: raise it when a change to the computation changes what a
# snapshot holds for the same judgements, so the next run writes a corrected version instead of
# "unchanged". 2: weighted kappa over the whole configured scale, gold-weighted ties listed.
# 3: one vocabulary (the report's keys say annotator, not assessor or worker).
# 4: Dawid-Skene order-free with smoothing 0; agreement reports name their duplicates rule.
# 5: ordinal alpha per rating dimension; pairwise projects rank their systems (Bradley-Terry).
# 6: majority vote's ties follow the project's tie rule, named lower/higher (once smallest/largest),
#    and every tied item records how it was settled or that it waits (evaluation.ground_truth.ties).
# 7: mean Cohen's kappa weighted by shared items over pairs sharing at least 10, PABAK and the
#    pooled agreement beside it, no interval below 30 items, nor for a system's Bradley-Terry
#    strength below 10 comparisons (annotation.crowd.minimums).
COMPUTATION_VERSION = 7
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


def ground_truth_judgements(project: Project, blocked: list[int] | None = None):
    """The judgements a project's ground truth is built from: its items', minus blocked annotators'.

    ``blocked`` is the list of annotators to leave out, read once by the caller so that the same
    list is fingerprinted and applied; by default the project's blocked members if it excludes them.
    """
    if blocked is None:
        blocked = blocked_annotators(project)
    judgements = Judgement.objects.filter(task__project=project, task__kind=Task.Kind.ITEM)
    return judgements.exclude(annotator_id__in=blocked) if blocked else judgements


def blocked_annotators(project: Project) -> list[int]:
    """Ids of the blocked annotators whose judgements the ground truth leaves out (sorted)."""
    if not project.exclude_blocked_from_ground_truth:
        return []
    return sorted(
        Membership.objects.filter(project=project, status=Membership.Status.BLOCKED).values_list(
            "annotator_id", flat=True
        )
    )


def gold_inputs(project: Project) -> tuple[list, dict]:
    """(task, annotator, first label) of every gold answer, and each gold task's expected label."""
    gold = {
        task_id: (answer or {}).get("label")
        for task_id, answer in project.tasks.filter(kind=Task.Kind.GOLD).values_list("pk", "gold_answer")
    }
    first_answers = JudgementRevision.objects.filter(judgement__task_id__in=list(gold), number=1).values_list(
        "judgement__task_id", "judgement__annotator_id", "label"
    )
    return sorted(first_answers), gold


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


# -- phase 1: read -------------------------------------------------------------------------------


@dataclass
class Inputs:
    """Everything a snapshot is computed from, read without locks, and its fingerprint."""

    project: Project
    method: str
    tie_rule: str
    rows: list  # (task, annotator, label) for label projects; (task, annotator, answer) for ratings
    gold_triples: list
    gold: dict
    count: int
    last_id: int
    fingerprint: str
    read_at: datetime
    latest_version: int
    # Pairwise items that name both outputs' systems: task -> (system of the first, of the second).
    systems: dict[int, tuple[str, str]] = field(default_factory=dict)
    # Label projects: how disputed items were adjudicated (see ``adjudication_inputs``).
    decisions: dict = field(default_factory=dict)
    extra_assessors: dict = field(default_factory=dict)
    # Items referred by a rule: task -> (where, why, complete), for the state of tied items.
    referrals: dict = field(default_factory=dict)
    # The project's majority vote refers its ties (to one more annotator, or to the researcher).
    refers_ties: bool = False


def database_now() -> datetime:
    """The database server's clock (PostgreSQL), so that every worker's reads are ordered by one clock."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT clock_timestamp()")
            return cursor.fetchone()[0]
    return timezone.now()


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


# Stands for a missing label or score in the fingerprinted table.
_MISSING = -(2**62)


def input_table(read: list, dimensions: list[str] | None) -> np.ndarray:
    """Judgements ``(id, revision, updated_at, task, annotator, label or answer)`` as an integer table.

    Columns: id, task, annotator, revision, µs since 1970 of the last change, then the label
    (label projects, ``dimensions`` None) or one score per dimension (ratings).
    """
    table = []
    for pk, revision, updated, task, annotator, value in read:
        row = [pk, task, annotator, revision, (updated - _EPOCH) // MICROSECOND]
        if dimensions is None:
            row.append(_MISSING if value is None else int(value))
        else:
            scores = (value or {}).get("scores", {})
            row.extend(int(scores.get(dimension, _MISSING)) for dimension in dimensions)
        table.append(row)
    return np.array(table, dtype=np.int64)


def fingerprint_inputs(
    project: Project,
    method: str,
    tie_rule: str,
    blocked: list[int],
    meta: np.ndarray,
    gold: tuple,
    adjudication: tuple = ((), ()),
) -> str:
    """SHA-256 of everything that decides the result.

    ``meta`` is ``input_table``: one row per judgement read with its id, task, annotator, revision,
    time of the last change and the answer itself, so any added, removed or changed judgement
    changes it; ``gold`` is whatever gold input the method uses; ``adjudication`` is the
    researchers' decisions in force and the items' extra assessors (hashed only when there are
    any, so the fingerprints of projects that never adjudicated stay what they were). Equal
    fingerprints mean equal inputs.
    """
    digest = hashlib.sha256()
    described = [
        COMPUTATION_VERSION,
        method,
        tie_rule,
        project.task_type,
        json.dumps(project.config, sort_keys=True),
        project.exclude_blocked_from_ground_truth,
        blocked,
        project.rating_normalisation,
    ]
    digest.update(json.dumps(described, default=str).encode())
    digest.update(np.ascontiguousarray(meta, dtype=np.int64).tobytes())
    digest.update(json.dumps(gold, sort_keys=True, default=str).encode())
    if any(adjudication):
        digest.update(json.dumps(adjudication, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def adjudication_inputs(project: Project, judgements) -> tuple[dict, dict]:
    """How the project's disputed items were adjudicated, as the snapshot records it.

    Returns ``(decisions, extra_assessors)``: per item, the researcher's decision in force
    (``{"label", "researcher", "at", "note", "decision"}``), and, for items referred to one more
    assessor whose extra judgement is among ``judgements`` (those the ground truth uses), who gave
    it and when (``{"assessor", "at", "referred_at"}``: the first judgement after the referral).
    """
    if not project.has_labels:
        return {}, {}
    decisions = {
        task: {
            "label": decision.label,
            "researcher": decision.researcher.get_username(),
            "at": decision.created_at.isoformat(),
            "note": decision.note,
            "decision": decision.pk,
        }
        for task, decision in decisions_in_force(project).items()
    }
    extra: dict = {}
    rows = (
        judgements.filter(
            task__referred_to=AdjudicatedBy.EXTRA_ASSESSOR, created_at__gte=F("task__referred_at")
        )
        .order_by("created_at", "id")
        .values_list("task_id", "annotator__username", "created_at", "task__referred_at")
    )
    for task, username, created_at, referred_at in rows:
        extra.setdefault(
            task, {"assessor": username, "at": created_at.isoformat(), "referred_at": referred_at.isoformat()}
        )
    return decisions, extra


def vote_tie_rule(project: Project, method: str, tie_rule: str | None) -> str:
    """The tie-break the vote uses: ``tie_rule`` if given, else the project's own for its majority
    vote (``Project.vote_tie_rule``), else the lower label."""
    if tie_rule is not None:
        return tie_rule_named(tie_rule)
    if method == Project.GroundTruthMethod.MAJORITY:
        return project.vote_tie_rule
    return DEFAULT_TIE_RULE


def referral_inputs(project: Project) -> dict[int, tuple[str, str, bool]]:
    """Every referred item of a label project: (where it was referred, why, whether complete)."""
    if not project.has_labels:
        return {}
    rows = (
        Task.objects.filter(project=project, kind=Task.Kind.ITEM)
        .exclude(referred_to="")
        .values_list("pk", "referred_to", "referral_reason", "completed")
    )
    return {pk: (route, reason, complete) for pk, route, reason, complete in rows}


def read_inputs(project_id: int, method: str | None, tie_rule: str | None = None) -> Inputs | str:
    """Read a project's inputs; or return why there is nothing to compute.

    The database clock is read *before* anything else, so every row read is at least as new as
    ``read_at``; the write phase relies on that to order concurrent runs.
    """
    read_at = database_now()
    project = Project.objects.get(pk=project_id)
    if project.type.is_free_text:
        return "nothing to aggregate: free-text references are downloaded as written"
    method = "rating-summary" if project.is_rating else (method or project.ground_truth_method)
    tie_rule = vote_tie_rule(project, method, tie_rule)
    latest = project.snapshots.order_by("-version").values("version", "input_fingerprint").first()
    blocked = blocked_annotators(project)
    value = "answer" if project.is_rating else "label"
    read = list(
        ground_truth_judgements(project, blocked)
        .order_by("id")
        .values_list("id", "revision", "updated_at", "task_id", "annotator_id", value)
    )
    if not read:
        return "nothing to aggregate: no judgements yet"
    meta = input_table(read, project.config.get("dimensions", []) if project.is_rating else None)
    rows = [(task, annotator, value) for _, _, _, task, annotator, value in read]
    gold_triples: list = []
    gold: dict = {}
    if method == Project.GroundTruthMethod.GOLD_WEIGHTED or tie_rule == Project.TieRule.GOLD_WEIGHTED:
        gold_triples, gold = gold_inputs(project)
    decisions, extra_assessors = adjudication_inputs(project, ground_truth_judgements(project, blocked))
    referrals = referral_inputs(project)
    # A referring tie rule is an input under its own name: its ties wait (labelled lower meanwhile).
    refers_ties = method == Project.GroundTruthMethod.MAJORITY and project.tie_route is not None
    fingerprint = fingerprint_inputs(
        project,
        method,
        project.tie_rule if refers_ties else tie_rule,
        blocked,
        meta,
        (gold_triples, sorted(gold.items())),
        (sorted(decisions.items()), sorted(extra_assessors.items()), sorted(referrals.items())),
    )
    if latest is not None and latest["input_fingerprint"] == fingerprint:
        return f"unchanged: version {latest['version']} was built from the same inputs"
    return Inputs(
        project=project,
        method=method,
        tie_rule=tie_rule,
        rows=rows,
        gold_triples=gold_triples,
        gold=gold,
        count=len(rows),
        last_id=int(meta[:, 0].max()),
        fingerprint=fingerprint,
        read_at=read_at,
        latest_version=latest["version"] if latest else 0,
        systems=compared_systems(project),
        decisions=decisions,
        extra_assessors=extra_assessors,
        referrals=referrals,
        refers_ties=refers_ties,
    )


def compared_systems(project: Project) -> dict[int, tuple[str, str]]:
    """Each pairwise item's two systems, for the items that name them (import checks both or neither)."""
    if not project.type.compares_two:
        return {}
    rows = (
        project.tasks.filter(kind=Task.Kind.ITEM)
        .exclude(system_id="")
        .values_list("pk", "system_id", "system_b_id")
    )
    return {pk: (first, second) for pk, first, second in rows}


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
    return Computed(labels, parameters, figures, report, adjudications, ties)


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
    summaries = summarise_likert(
        ((task, annotator, answer["scores"]) for task, annotator, answer in rows), scale
    )
    zscores = normalised_means(rows, dimensions) if project.rating_normalisation == "zscore" else {}
    labels = []
    for task_id, summary in summaries.items():
        details = {dimension: asdict(summary.dimensions[dimension]) for dimension in dimensions}
        for dimension, value in zscores.get(task_id, {}).items():
            details[dimension]["z_mean"] = value
        labels.append((task_id, None, summary.confidence, summary.n, details))
    progress("annotator report", 0.75)
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
    report = {
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
    parameters = {"dimensions": ",".join(dimensions), "scale": f"{scale[0]}-{scale[1]}"}
    if project.rating_normalisation == "zscore":
        parameters["normalisation"] = "zscore"
    return Computed(labels, parameters, figures, report)


# -- phase 3: write ------------------------------------------------------------------------------


# Namespace of the PostgreSQL advisory locks that serialise snapshot writes, one lock per project.
SNAPSHOT_WRITE_LOCK = 7001


def lock_snapshot_writes(project_id: int) -> None:
    """Make this transaction the only one writing the project's snapshots until it ends.

    An advisory lock rather than a row lock on the project: every submission updates the project
    row (the debounce flag), and would wait behind a large snapshot's write (0.7 s at 100,000
    judgements). SQLite serialises all writes anyway.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [SNAPSHOT_WRITE_LOCK, project_id])


def write_snapshot(inputs: Inputs, computed: Computed) -> GroundTruthSnapshot | str:
    """Store the snapshot and its labels in one short transaction; or say why not.

    Under the project's snapshot-write lock (so concurrent runs write one at a time), the newest snapshot is
    read again: if it has the same fingerprint another run already wrote these inputs; if its inputs
    were read after ours it is newer than ours and ours would go back in time. Either way nothing
    is written. Otherwise the next version is written.
    """
    with transaction.atomic():
        lock_snapshot_writes(inputs.project.pk)
        latest = (
            GroundTruthSnapshot.objects.filter(project_id=inputs.project.pk)
            .order_by("-version")
            .only("version", "input_fingerprint", "inputs_read_at")
            .first()
        )
        if latest is not None and latest.input_fingerprint == inputs.fingerprint:
            return f"unchanged: version {latest.version} was written from the same inputs meanwhile"
        if (
            latest is not None
            and latest.inputs_read_at is not None
            and latest.inputs_read_at > inputs.read_at
        ):
            return f"superseded: version {latest.version} was built from newer inputs meanwhile"
        version = (latest.version + 1) if latest else 1
        parameters = computed.parameters
        adjudicated = Counter(how for how, _, _ in computed.adjudications.values())
        snapshot = GroundTruthSnapshot.objects.create(
            project_id=inputs.project.pk,
            version=version,
            method=inputs.method,
            parameters=parameters,
            input_judgement_count=inputs.count,
            input_last_judgement_id=inputs.last_id,
            input_fingerprint=inputs.fingerprint,
            inputs_read_at=inputs.read_at,
            agreement=computed.agreement,
            annotator_report=computed.annotator_report,
            signature=(
                f"cranfield-gt|method:{inputs.method}|"
                + "|".join(f"{k}:{v}" for k, v in sorted(parameters.items()))
                + f"|judgements:{inputs.count}|last:{inputs.last_id}"
                + "".join(f"|adjudicated:{how}={n}" for how, n in sorted(adjudicated.items()))
                + f"|inputs:{inputs.fingerprint[:12]}|v:{version}"
            )[:300],
        )
        SnapshotLabel.objects.bulk_create(
            (
                SnapshotLabel(
                    snapshot=snapshot,
                    task_id=task_id,
                    label=label,
                    confidence=confidence,
                    judgement_count=n,
                    details=details,
                    tie=computed.ties.get(task_id, ""),
                    **adjudication_fields(computed.adjudications.get(task_id)),
                )
                for task_id, label, confidence, n, details in computed.labels
            ),
            batch_size=5000,
        )
        return snapshot


def adjudication_fields(adjudication: tuple | None) -> dict:
    """A snapshot label's adjudication columns from ``Computed.adjudications``' entry (or none)."""
    if adjudication is None:
        return {}
    how, aggregate_label, info = adjudication
    return {"adjudicated_by": how, "aggregate_label": aggregate_label, "adjudication": info}


def build_snapshot(
    project_id: int,
    *,
    method: str | None = None,
    tie_rule: str | None = None,
    progress: Progress = no_progress,
) -> GroundTruthSnapshot | None:
    """Write a new snapshot for the project, or return ``None`` if there is nothing new to write.

    1. Read the judgements of the project's items (minus blocked annotators' when the project
       excludes them) and, for the gold-weighted vote, the first answers to gold items. Stop if
       there are none, or if the newest snapshot's fingerprint equals these inputs'.
    2. Label tasks (binary, graded, pairwise): agreement figures, the aggregate label per item
       (``method``, default the project's own: majority vote, Dawid–Skene or gold-weighted vote;
       majority vote's ties by ``tie_rule``, default the project's, see ``vote_tie_rule``) and the
       annotator report; a researcher's decision in force replaces an item's aggregate, every
       adjudicated item says how (``adjudicated_labels``) and every tied item how its tie was
       settled or that it waits (``ties.tie_states``). Rating tasks: per dimension
       mean, median and dispersion, interval agreement. Free-text tasks have nothing to aggregate
       and get no snapshot.
    3. Store the snapshot and one row per judged item, unless another run wrote the same or newer
       inputs meanwhile (see ``write_snapshot``). Safe to run twice at once: one snapshot results.

    ``progress(stage, share)`` is called as the work advances, outside any transaction, and last
    with the reason when nothing is written.
    """
    progress("loading judgements", 0.05)
    inputs = read_inputs(project_id, method, tie_rule)
    if isinstance(inputs, str):
        progress(inputs, 1.0)
        return None
    computed = (
        compute_ratings(inputs, progress) if inputs.project.is_rating else compute_labels(inputs, progress)
    )
    progress(f"writing version {inputs.latest_version + 1} ({len(computed.labels)} items)", 0.9)
    written = write_snapshot(inputs, computed)
    if isinstance(written, str):
        progress(written, 1.0)
        return None
    progress(f"wrote version {written.version}", 1.0)
    return written
