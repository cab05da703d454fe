"""Scoring listens to what collection and ground truth announce (``evaluation.signals``): the runs
are scored again against every ground truth they should be on the leaderboard under."""

from __future__ import annotations

from annotation.models import Project
from evaluation.models import ExternalQrels, GroundTruthSnapshot
from evaluation.scoring.jobs import request_evaluation, request_evaluations_of_latest


def on_collection_imported(sender, project_id: int, runs_added: int, external_qrels_id: int | None, **kwargs):
    """New runs join the leaderboard under the newest ground truth and every external qrels; new
    reference qrels alone score the runs there are against them."""
    project = Project.objects.get(pk=project_id)
    if runs_added:
        request_evaluations_of_latest(project)
    elif external_qrels_id is not None and project.runs.exists():
        request_evaluation(project, external_qrels=ExternalQrels.objects.get(pk=external_qrels_id))


def on_runs_changed(sender, project_id: int, **kwargs) -> None:
    """A run withdrawn, reinstated or deleted: the leaderboard follows once the runs are scored again."""
    request_evaluations_of_latest(Project.objects.get(pk=project_id))


def on_snapshot_written(sender, snapshot_id: int, **kwargs) -> None:
    """A new ground truth: score the runs against it (relevance projects with runs only)."""
    snapshot = GroundTruthSnapshot.objects.select_related("project").get(pk=snapshot_id)
    project = snapshot.project
    if project.type.judged_for_topic and project.runs.exists():
        request_evaluation(project, snapshot=snapshot)
