"""Assemble the agreement report and the per-annotator table from a snapshot and a few grouped queries.

A thin shell: the figures were computed by the ground-truth job (``build``) and
stored with the snapshot; this module only reads them, adds live counts, and arranges them for
the pages and the API. No metric is computed here.
"""

from __future__ import annotations

import statistics
from typing import TypedDict

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Aggregate, Count, FloatField

from annotation.crowd.agreement.prevalence import explain_low_kappa
from annotation.models import Judgement, JudgementRevision, Membership, Project, Task
from evaluation.metrics.colours import heat_colours
from evaluation.models import GroundTruthSnapshot

# Enough for a page; the API carries every annotator's matrix.
CONFUSION_MATRICES_ON_PAGE = 50


class AnnotatorRow(TypedDict):
    """One annotator of a project: volume, quality and status. See ``annotator_table``."""

    annotator_id: int
    username: str
    status: str  # "active", "blocked", or "not a member" (judged, then removed)
    blocked: bool
    labels_given: int
    median_seconds: float | None
    gold_answered: int
    gold_correct: int
    gold_accuracy: float | None
    in_snapshot: bool
    agreement_with_aggregate: float | None
    agreement_compared: int
    reliability: float | None
    gold_weight: float | None
    flagged: bool
    flag_reason: str


class Median(Aggregate):
    """PostgreSQL's ``percentile_cont(0.5)``: the median, interpolated between the middle two."""

    function = "PERCENTILE_CONT"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


class BadVersion(ValueError):
    """A snapshot version in a query string that is not a version number; says which parameter."""


def requested_version(params, name: str = "version") -> int | None:
    """The snapshot version ``?name=`` asks for, None if absent; BadVersion if it is not a number.

    The one rule for pages and API (the API answers 400, a page 400 with the same words).
    """
    value = params.get(name, "")
    if value in (None, ""):
        return None
    if not str(value).isdigit():
        raise BadVersion(f"{name}: must be a snapshot version number, not {value!r}")
    return int(value)


def annotator_report_of(snapshot: GroundTruthSnapshot) -> dict:
    """The snapshot's annotator report; snapshots written before the one vocabulary (computation
    version 3) said "assessors" where it says "annotators", and are read the same way."""
    report = dict(snapshot.annotator_report or {})
    if "assessors" in report:
        report["annotators"] = report.pop("assessors")
        report["pairwise"] = [
            {("annotators" if key == "assessors" else key): value for key, value in panel.items()}
            for panel in report.get("pairwise", [])
        ]
    return report


def latest_snapshot(project: Project, version: int | None = None) -> GroundTruthSnapshot | None:
    """The project's snapshot of that version, or its newest; None if there is none."""
    snapshots = GroundTruthSnapshot.objects.filter(project=project)
    if version is not None:
        return snapshots.filter(version=version).first()
    return snapshots.order_by("-version").first()


def judgement_volume(project: Project) -> dict[int, tuple[int, float | None]]:
    """``{annotator: (judgements of the project's items, median seconds per judgement)}``, live.

    One grouped query on PostgreSQL; elsewhere (SQLite, which has no percentile) the seconds are
    read and the median taken in Python.
    """
    judgements = Judgement.objects.of_items(project).order_by()
    if connection.vendor == "postgresql":
        grouped = judgements.values("annotator_id").annotate(n=Count("id"), median=Median("seconds_on_task"))
        return {row["annotator_id"]: (row["n"], row["median"]) for row in grouped}
    seconds: dict[int, list[float]] = {}
    counts: dict[int, int] = {}
    for annotator, spent in judgements.values_list("annotator_id", "seconds_on_task"):
        counts[annotator] = counts.get(annotator, 0) + 1
        if spent is not None:
            seconds.setdefault(annotator, []).append(spent)
    return {
        annotator: (n, statistics.median(seconds[annotator]) if annotator in seconds else None)
        for annotator, n in counts.items()
    }


def gold_scores(project: Project) -> dict[int, tuple[int, int]]:
    """``{annotator: (gold items answered, answered correctly)}`` on FIRST revisions, live.

    Scored by ``annotation.task_types.answers_agree`` (labels equal; Likert within one point), the
    rule gold feedback uses, so a correction made after seeing feedback cannot raise the score.
    """
    first_answers = JudgementRevision.objects.filter(
        number=1, judgement__task__project=project, judgement__task__kind=Task.Kind.GOLD
    ).values_list("judgement__annotator_id", "answer", "judgement__task__gold_answer")
    scores: dict[int, list[int]] = {}
    for annotator, answer, expected in first_answers:
        score = scores.setdefault(annotator, [0, 0])
        score[0] += 1
        score[1] += project.type.answers_agree(expected or {}, answer or {})
    return {annotator: (answered, correct) for annotator, (answered, correct) in scores.items()}


def annotator_table(project: Project, snapshot: GroundTruthSnapshot | None = None) -> list[AnnotatorRow]:
    """One row per annotator of the project (members, and anyone who judged), flagged first.

    Reads the snapshot's annotator report (the newest snapshot unless one is given) and runs three
    grouped queries: judgement volume and median time, first answers to gold items, memberships.
    Live figures: ``labels_given``, ``median_seconds``, ``gold_*``, ``status``. As of the snapshot:
    ``agreement_with_aggregate`` (share of the annotator's labels equal to the aggregate label;
    for Likert, ratings within one point of the item's median on every dimension), its
    ``agreement_compared`` count, and ``reliability`` (Dawid–Skene) or ``gold_weight``
    (gold-weighted vote) when the snapshot's method estimated them; ``in_snapshot`` is False for
    annotators the snapshot left out (blocked) or who judged after it.

    ``flagged``: gold accuracy below ``project.quality_threshold``; for an annotator with no gold
    answers, agreement with the aggregate below it (the rule of ``annotation.crowd.quality.annotators``).
    """
    if snapshot is None:
        snapshot = latest_snapshot(project)
    annotators = annotator_report_of(snapshot).get("annotators", {}) if snapshot else {}
    volume = judgement_volume(project)
    gold = gold_scores(project)
    members = {
        member.annotator_id: (member.status, member.annotator.username)
        for member in Membership.objects.filter(project=project).select_related("annotator")
    }
    ids = set(members) | set(volume) | set(gold) | {int(key) for key in annotators}
    strangers = dict(get_user_model().objects.filter(pk__in=ids - set(members)).values_list("pk", "username"))
    threshold = project.quality_threshold
    rows: list[AnnotatorRow] = []
    for annotator in ids:
        status, username = members.get(annotator, ("not a member", strangers.get(annotator, "?")))
        labels_given, median_seconds = volume.get(annotator, (0, None))
        answered, correct = gold.get(annotator, (0, 0))
        gold_accuracy = correct / answered if answered else None
        figures = annotators.get(str(annotator), {})
        agreement = figures.get("agreement_with_aggregate")
        flagged, reason = False, ""
        if gold_accuracy is not None:
            flagged = gold_accuracy < threshold
            reason = f"gold accuracy {gold_accuracy:.0%} is below {threshold:.0%}" if flagged else ""
        elif agreement is not None:
            flagged = agreement < threshold
            reason = (
                f"agreement with the aggregate {agreement:.0%} is below {threshold:.0%}" if flagged else ""
            )
        rows.append(
            AnnotatorRow(
                annotator_id=annotator,
                username=username,
                status=status,
                blocked=status == Membership.Status.BLOCKED,
                labels_given=labels_given,
                median_seconds=median_seconds,
                gold_answered=answered,
                gold_correct=correct,
                gold_accuracy=gold_accuracy,
                in_snapshot=bool(figures),
                agreement_with_aggregate=agreement,
                agreement_compared=figures.get("compared", 0),
                reliability=figures.get("reliability"),
                gold_weight=figures.get("gold_weight"),
                flagged=flagged,
                flag_reason=reason,
            )
        )
    return sorted(rows, key=lambda row: (not row["flagged"], row["username"]))


def _figure(
    name: str, value, n_items, n_annotators, rests_on: str = "", interval: dict | None = None
) -> dict:
    interval = interval or {}
    return {
        "name": name,
        "value": value,
        "low": interval.get("low"),
        "high": interval.get("high"),
        "interval_reason": interval.get("reason"),
        "n_items": n_items,
        "n_annotators": n_annotators,
        "note": rests_on,
    }


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 item``, ``2 items``: a count with its noun in the right number."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def pairs_note(pairs: int, min_shared: int = 2, weighting: str | None = None) -> str:
    if not pairs:
        return f"no two annotators share {min_shared} items yet"
    # Snapshots before computation version 6 took the plain mean of the pairs.
    how = "each weighted by the items it shares" if weighting == "shared items" else "unweighted"
    return f"mean over {plural(pairs, 'pair')} of annotators sharing at least {min_shared} items, {how}"


def pabak_note(pooled: dict) -> str:
    """What PABAK rests on: the observed agreement of every two ratings of an item, and the formula."""
    q = pooled["categories"]
    formula = "2·p_o − 1" if q == 2 else f"({q}·p_o − 1)/{q - 1}"
    return (
        f"the kappa were all labels equally common: {formula}, p_o = {pooled['observed_agreement']:.0%} "
        f"agreement over every two ratings of an item (Byrt, Bishop & Carlin 1993)"
    )


def fleiss_note(per_item: int | None, excluded: int | None) -> str:
    """What Fleiss' kappa rests on: the items rated the most common number of times (it needs the same
    number per item), and how many others it leaves out."""
    if excluded is None:
        return ""
    if per_item is None:
        return f"needs items rated at least twice; none is yet ({plural(excluded, 'item')} rated once)"
    left_out = f"; {plural(excluded, 'item')} rated another number of times left out" if excluded else ""
    return f"items rated {per_item} times, the most common number{left_out}"


def report_figures(
    agreement: dict, *, cohen: str = "Mean Cohen's kappa", alpha: str = "Krippendorff's alpha"
) -> list:
    """The three figures of one ``annotation.crowd.agreement.report.agreement_summary``, each with its
    base and
    its bootstrap interval (when the snapshot has one)."""

    def annotators(figure: str):  # snapshots written before the rename say n_workers
        return agreement.get(f"{figure}_n_annotators", agreement.get(f"{figure}_n_workers"))

    excluded = agreement.get("fleiss_kappa_items_excluded")
    per_item = agreement.get("fleiss_kappa_ratings_per_item")
    pooled = agreement.get("pooled_agreement")
    pabak = (
        [
            _figure(
                "PABAK (prevalence- and bias-adjusted kappa)",
                pooled["pabak"],
                pooled.get("n_items"),
                annotators("krippendorff_alpha"),
                pabak_note(pooled),
            )
        ]
        if pooled
        else []
    )
    return [
        _figure(
            "Fleiss' kappa",
            agreement.get("fleiss_kappa"),
            agreement.get("fleiss_kappa_n_items"),
            annotators("fleiss_kappa"),
            fleiss_note(per_item, excluded),
            agreement.get("fleiss_kappa_ci"),
        ),
        _figure(
            cohen,
            agreement.get("cohen_kappa_mean"),
            agreement.get("cohen_kappa_n_items"),
            annotators("cohen_kappa"),
            pairs_note(
                agreement.get("cohen_kappa_pairs") or 0,
                agreement.get("cohen_kappa_min_shared", 2),
                agreement.get("cohen_kappa_mean_weighting"),
            ),
            agreement.get("cohen_kappa_mean_ci"),
        ),
        *pabak,
        _figure(
            f"{alpha} ({agreement.get('krippendorff_level', 'nominal')})",
            agreement.get("krippendorff_alpha"),
            agreement.get("krippendorff_alpha_n_items"),
            annotators("krippendorff_alpha"),
            "items with at least two ratings",
            agreement.get("krippendorff_alpha_ci"),
        ),
    ]


def agreement_figures(project: Project, agreement: dict) -> list[dict]:
    """The label agreement figures of a snapshot, each with the items and annotators it rests on."""
    figures = report_figures(agreement)
    ordered = agreement.get("ordered")
    if ordered:  # graded labels: their order counts
        weighted = report_figures(ordered, cohen="Mean Cohen's kappa, linearly weighted")
        figures += [figure for figure in weighted[1:] if not figure["name"].startswith("PABAK")]
    return figures


def kappa_explanation(project: Project, agreement: dict) -> str | None:
    """Why kappa is low, in words, with the project's names for its labels
    (``annotation.crowd.agreement.prevalence.explain_low_kappa``); None when it is not low, or the snapshot
    predates the pooled figures."""
    return explain_low_kappa(agreement, project.type.label_names(project.config))


def per_label_rows(project: Project, agreement: dict) -> list[dict]:
    """Per-label agreement (Fleiss' per-category kappa, specific agreement) with each label's name."""
    names = project.type.label_names(project.config)
    return [
        row | {"name": names.get(row["label"], str(row["label"]))}
        for row in (agreement.get("per_label") or {}).get("labels", [])
    ]


def kappa_tests(agreement: dict) -> list[dict]:
    """The tests of kappa = 0 a label snapshot stores (``agreement_summary``): Fleiss' kappa's z test
    (standard error under H0 of Fleiss, Nee & Landis 1979), the two-annotator Cohen's kappa's (its
    standard errors and interval; only when one pair of annotators is counted), and Randolph's
    free-marginal kappa beside them; snapshots from before these were stored give none."""
    rows = []
    fleiss = agreement.get("fleiss_kappa_test")
    if fleiss and fleiss.get("kappa") is not None:
        rows.append({"name": "Fleiss' kappa", "items": fleiss.get("n_items"), **fleiss})
    cohen = agreement.get("cohen_kappa_statistics")
    if cohen and cohen.get("kappa") is not None:
        rows.append({"name": "Cohen's kappa (two annotators)", "items": cohen.get("n_items"), **cohen})
    if agreement.get("randolph_kappa") is not None:
        categories = agreement.get("randolph_kappa_categories")
        rows.append(
            {
                "name": f"Randolph's free-marginal kappa ({categories} categories)",
                "kappa": agreement["randolph_kappa"],
                "items": agreement.get("fleiss_kappa_n_items"),
            }
        )
    return rows


def dimension_figures(agreement: dict) -> list[dict]:
    """Per Likert dimension: interval alpha and quadratic-weighted kappa with what they rest on."""
    return [
        {
            "dimension": dimension,
            "figures": report_figures(figures, cohen="Mean Cohen's kappa, quadratically weighted"),
        }
        for dimension, figures in agreement.get("dimensions", {}).items()
    ]


def agreement_report(project: Project, snapshot: GroundTruthSnapshot | None) -> dict:
    """Everything the agreement page shows, as plain JSON-ready data (the API returns it as is).

    Keys: ``project``, ``task_type``, ``method``, ``quality_threshold``, ``snapshot`` (None before
    the first), ``figures`` (label projects) or ``dimensions`` (Likert: per dimension), ``annotators``
    (``annotator_table``), ``confusion`` (label projects: classes, their names, and per annotator the
    matrix of aggregate label × own label), ``pairwise`` (one heat-map panel per dimension:
    annotators shown, kappa and shared-items matrices, how many annotators there are in all),
    ``kappa_explanation`` (why mean Cohen's kappa is low, or None), ``min_shared`` (the items a
    pair must share to count in it and in the heat map) and ``kappa_tests`` (``kappa_tests``).
    """
    annotators = annotator_table(project, snapshot)
    usernames = {row["annotator_id"]: row["username"] for row in annotators}
    report: dict = {
        "project": project.pk,
        "task_type": project.task_type,
        "method": project.ground_truth_method,
        "quality_threshold": project.quality_threshold,
        "snapshot": None,
        "figures": [],
        "dimensions": [],
        "annotators": annotators,
        "confusion": None,
        "pairwise": [],
        "per_label": [],
        "kappa_tests": [],
        "intervals": {},
        "kappa_explanation": None,
        "min_shared": None,
    }
    if snapshot is None:
        return report
    report["snapshot"] = {
        "version": snapshot.version,
        "method": snapshot.method,
        "input_judgement_count": snapshot.input_judgement_count,
        "created_at": snapshot.created_at.isoformat(),
    }
    if project.is_rating:
        report["dimensions"] = dimension_figures(snapshot.agreement)
    else:
        report["figures"] = agreement_figures(project, snapshot.agreement)
        report["kappa_explanation"] = kappa_explanation(project, snapshot.agreement)
        if snapshot.agreement.get("cohen_kappa_mean_weighting"):  # computation version 6 on
            report["min_shared"] = snapshot.agreement.get("cohen_kappa_min_shared")
        report["per_label"] = per_label_rows(project, snapshot.agreement)
        report["kappa_tests"] = kappa_tests(snapshot.agreement)
        bootstrap = snapshot.agreement.get("bootstrap") or {}
        report["intervals"] = bootstrap
    annotator_report = annotator_report_of(snapshot)
    if annotator_report.get("kind") == "labels":
        classes = annotator_report["classes"]
        names = project.type.label_names(project.config)
        matrices = sorted(
            annotator_report["annotators"].items(), key=lambda item: (-item[1]["n_labels"], int(item[0]))
        )
        report["confusion"] = {
            "classes": classes,
            "class_names": [names.get(label, str(label)) for label in classes],
            "annotators": [
                {
                    "annotator_id": int(key),
                    "username": usernames.get(int(key), "?"),
                    "n_labels": figures["n_labels"],
                    "kappa_with_aggregate": figures.get("kappa_with_aggregate"),
                    "matrix": figures["confusion"],
                    "dawid_skene": figures.get("dawid_skene_confusion"),
                }
                for key, figures in matrices
            ],
        }
    for panel in annotator_report.get("pairwise", []):
        report["pairwise"].append(
            panel
            | {
                "annotators": [
                    {"annotator_id": a, "username": usernames.get(a, "?")} for a in panel["annotators"]
                ]
            }
        )
    return report


def heatmap_rows(panel: dict) -> list[dict]:
    """A pairwise panel as table rows of cells with their value, shared items and colours."""
    rows = []
    for i, annotator in enumerate(panel["annotators"]):
        cells = []
        for j, value in enumerate(panel["kappa"][i]):
            background, text = heat_colours(value)
            cells.append(
                {
                    "value": value,
                    "shared": panel["shared"][i][j],
                    "self": i == j,
                    "background": background,
                    "text": text,
                    "column": panel["annotators"][j]["username"],
                }
            )
        rows.append({"annotator": annotator, "cells": cells})
    return rows
