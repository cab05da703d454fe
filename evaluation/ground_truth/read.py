"""Phase 1 of a snapshot: read the inputs without locks (the judgements of the project's items, minus
blocked annotators' where the project excludes them; gold answers; adjudications and referrals), and
fingerprint exactly what was read, so that a second run of the same inputs writes nothing."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
from django.db import connection
from django.db.models import F
from django.utils import timezone

from annotation.crowd.aggregation.ties import tie_rule_named
from annotation.models import (
    AdjudicatedBy,
    Adjudication,
    Judgement,
    JudgementRevision,
    Membership,
    Project,
    Task,
)
from evaluation.prior.reading import PriorInputs, prior_inputs

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


def ground_truth_judgements(project: Project, blocked: list[int] | None = None):
    """The judgements a project's ground truth is built from: its items', minus blocked annotators'.

    ``blocked`` is the list of annotators to leave out, read once by the caller so that the same
    list is fingerprinted and applied; by default the project's blocked members if it excludes them.
    """
    if blocked is None:
        blocked = blocked_annotators(project)
    judgements = Judgement.objects.of_items(project)
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
    # Label projects with prior sets: the prior judgements the snapshot merges (``evaluation.prior``).
    prior: PriorInputs | None = None


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
    prior: tuple = (),
) -> str:
    """SHA-256 of everything that decides the result.

    ``meta`` is ``input_table``: one row per judgement read with its id, task, annotator, revision,
    time of the last change and the answer itself, so any added, removed or changed judgement
    changes it; ``gold`` is whatever gold input the method uses; ``adjudication`` is the
    researchers' decisions in force and the items' extra assessors (hashed only when there are
    any, so the fingerprints of projects that never adjudicated stay what they were); ``prior`` is
    the precedence and every prior judgement merged (``prior.reading``; hashed only when the project
    has prior sets, for the same reason). Equal fingerprints mean equal inputs.
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
    if prior:
        digest.update(json.dumps(prior, default=str).encode())
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
        for task, decision in Adjudication.objects.in_force(project).items()
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
    prior = prior_inputs(project) if project.has_labels else None
    fingerprint = fingerprint_inputs(
        project,
        method,
        project.tie_rule if refers_ties else tie_rule,
        blocked,
        meta,
        (gold_triples, sorted(gold.items())),
        (sorted(decisions.items()), sorted(extra_assessors.items()), sorted(referrals.items())),
        prior.fingerprinted if prior else (),
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
        prior=prior,
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
