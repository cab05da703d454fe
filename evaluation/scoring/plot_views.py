"""Plot downloads: an evaluation's figures (P-R, per-topic, Q-Q, ROC, DET) and a project's kappa over
its snapshots, as PNG or SVG, drawn by the metric module (no script, no CDN: an <img> shows them).

Security behavior, for every view here: the project's owner only (``owned_project``: anyone else,
researcher or not, gets 404 with no hint that the project exists); GET only; nothing changes.
A bad query parameter is a 400 naming it; an evaluation that is not done yet is a 409 saying so.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from annotation.permissions import AuthenticatedHttpRequest, owned_project
from annotation.rest.renderers import image_response
from evaluation.ground_truth.views import BadRequest, answers_bad_request
from evaluation.metrics.plotting import render
from evaluation.models import Evaluation
from evaluation.scoring import plots


def conflict(message: str) -> HttpResponse:
    return HttpResponse(message, status=409, content_type="text/plain; charset=utf-8")


@login_required
@require_GET
@answers_bad_request
def evaluation_plot(
    request: AuthenticatedHttpRequest, project_id: int, evaluation_id: int, kind: str, fmt: str
) -> HttpResponse:
    """One figure of a finished evaluation; ``kind`` and ``fmt`` are fixed by the URL's pattern.
    Query: ``measure`` (per-topic, qq), ``a`` and ``b`` (qq), ``run`` (roc, det)."""
    project = owned_project(request.user, project_id)
    evaluation = get_object_or_404(
        Evaluation.objects.defer("variant_qrels", "checks"), project=project, pk=evaluation_id
    )
    if evaluation.status != Evaluation.Status.DONE:
        return conflict(f"Evaluation {evaluation.pk} is {evaluation.status}: its plots come when it is done.")
    try:
        figure = plots.evaluation_figure(evaluation, kind, request.GET)
    except plots.BadParameter as error:
        raise BadRequest(str(error)) from error
    except plots.NothingToPlot as error:
        return conflict(str(error))
    return image_response(render(figure, fmt), fmt, f"evaluation-{evaluation.pk}-{kind}")


@login_required
@require_GET
def kappa_plot(request: AuthenticatedHttpRequest, project_id: int, fmt: str) -> HttpResponse:
    """Fleiss' and mean Cohen's kappa over the project's snapshots, with bootstrap intervals."""
    project = owned_project(request.user, project_id)
    try:
        figure = plots.kappa_figure(project)
    except plots.NothingToPlot as error:
        return conflict(str(error))
    return image_response(render(figure, fmt), fmt, f"project-{project.pk}-kappa")
