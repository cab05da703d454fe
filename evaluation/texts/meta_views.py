"""The meta-evaluation page of a text project: score the outputs (a text evaluation job), then the
heat map of every metric's correlation with every human dimension and the scatter of any metric
against any dimension. The numbers are ``meta_report``'s, the same as the API's.

Security behavior: the project's owner only (``owned_project``; anyone else gets 404); the job is
requested by POST with the CSRF token.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.permissions import AuthenticatedHttpRequest, owned_project
from annotation.rest.renderers import IMAGE_TYPES, image_response
from evaluation.jobs.views import cancel_from_page
from evaluation.metrics.colours import heat_colours
from evaluation.metrics.meta_evaluation import LEVELS, METHODS
from evaluation.metrics.plotting import render as render_figure
from evaluation.metrics.plotting import scatter_figure
from evaluation.metrics.text.scores import METRICS
from evaluation.models import TextEvaluation
from evaluation.texts.imported_scores import (
    ScoreImportError,
    decoded,
    import_metric_scores,
    read_score_rows,
)
from evaluation.texts.jobs import TEXT_EVALUATIONS, output_tasks, request_text_evaluation
from evaluation.texts.meta_report import ReportProblem, correlation_matrix, scatter


def latest_done(project) -> TextEvaluation | None:
    return project.text_evaluations.filter(status=TextEvaluation.Status.DONE).order_by("-pk").first()


def choice(request, name: str, allowed, default: str) -> str:
    value = request.GET.get(name, default)
    return value if value in allowed else default


@login_required
@require_http_methods(["GET", "POST"])
def meta_evaluation_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    project = owned_project(request.user, project_id)
    if request.method == "POST":
        multi = request.POST.get("rouge_multi_ref", "max")
        if multi not in TextEvaluation.MultiReference.values:
            multi = "max"
        chosen = [name for name in METRICS if name in request.POST.getlist("metrics")]
        if not chosen:
            messages.error(request, "Choose at least one metric to compute.")
            return redirect("meta-evaluation", project_id=project.pk)
        requested = request_text_evaluation(project, rouge_multi_ref=multi, metrics=chosen)
        messages.success(request, f"Text evaluation {requested.pk} requested: every output is being scored.")
        return redirect("meta-evaluation", project_id=project.pk)
    level = choice(request, "level", LEVELS, "system")
    method = choice(request, "method", METHODS, "kendall")
    evaluation = latest_done(project)
    context = {
        "project": project,
        "evaluation": evaluation,
        "jobs": project.text_evaluations.order_by("-pk")[:5],
        "outputs": output_tasks(project).count(),
        "references": project.references.count(),
        "level": level,
        "method": method,
        "levels": LEVELS,
        "methods": METHODS,
        "multi_ref_choices": TextEvaluation.MultiReference.choices,
        "all_metrics": METRICS,
    }
    if evaluation is not None:
        try:
            matrix = correlation_matrix(evaluation, level, method)
        except ReportProblem as problem:
            context["problem"] = str(problem)
        else:
            metric = choice(request, "metric", matrix["metrics"], matrix["metrics"][0])
            dimension = choice(request, "dimension", matrix["dimensions"], matrix["dimensions"][0])
            context.update(matrix=matrix, rows=heat_rows(matrix), metric=metric, dimension=dimension)
            context["pair"] = scatter(evaluation, metric, dimension, level)
    return render(request, "evaluation/meta_evaluation.html", context)


def heat_rows(matrix: dict) -> list[dict]:
    """The heat map's rows: each metric's cells with their colours (an error rate's values are
    already those of its negation, so brighter means closer to the raters on every row)."""
    rows = []
    for metric in matrix["metrics"]:
        cells = []
        for dimension in matrix["dimensions"]:
            cell = matrix["cells"][metric][dimension]
            background, text = heat_colours(cell["value"])
            cells.append({**cell, "dimension": dimension, "background": background, "text": text})
        rows.append({"metric": metric, "negated": metric in matrix["negated"], "cells": cells})
    return rows


@login_required
@require_GET
def scatter_image(request: AuthenticatedHttpRequest, project_id: int, fmt: str) -> HttpResponse:
    """The scatter of ``?metric=`` against ``?dimension=`` at ``?level=`` as SVG or PNG."""
    project = owned_project(request.user, project_id)
    evaluation = latest_done(project)
    metric = request.GET.get("metric", "")
    if evaluation is None or metric not in evaluation.metrics or fmt not in IMAGE_TYPES:
        raise Http404("no such scatter")
    level = choice(request, "level", LEVELS, "system")
    try:
        pair = scatter(evaluation, metric, request.GET.get("dimension", ""), level, resamples=0)
    except ReportProblem as problem:
        if problem.field:
            raise Http404(str(problem)) from problem
        return HttpResponse(
            str(problem), status=409, content_type="text/plain; charset=utf-8"
        )  # no ratings yet
    points = [(p["label"], p["x"], p["y"]) for p in pair["points"]]
    y_label = f"{pair['dimension']} (mean rating)"
    # An error rate's axis runs from high to low, so that "better" is to the right for every
    # metric and the slope has the sign of the (negated metric's) correlation beside it.
    x_label = f"{metric} (lower is better: axis reversed)" if pair["negated"] else metric
    figure = scatter_figure(points, x_label, y_label, labelled=level == "system", reverse_x=pair["negated"])
    return image_response(render_figure(figure, fmt), fmt)


@login_required
@require_POST
def text_evaluation_cancel(
    request: AuthenticatedHttpRequest, project_id: int, evaluation_id: int
) -> HttpResponse:
    """Cancel a queued or running text evaluation (``jobs.views.cancel_from_page``)."""
    project = owned_project(request.user, project_id)
    evaluation = get_object_or_404(project.text_evaluations, pk=evaluation_id)
    return cancel_from_page(
        request, TEXT_EVALUATIONS, evaluation, reverse("meta-evaluation", args=[project.pk])
    )


@login_required
@require_POST
def import_scores(request: AuthenticatedHttpRequest, project_id: int, evaluation_id: int) -> HttpResponse:
    """The Metrics vs humans page's form: a model-based metric's scores join a done text evaluation
    (``evaluation.texts.imported_scores``); the outcome, or what is wrong and where, as a message."""
    project = owned_project(request.user, project_id)
    evaluation = get_object_or_404(project.text_evaluations, pk=evaluation_id)
    upload = request.FILES.get("file")
    name = request.POST.get("metric", "").strip()
    try:
        if upload is None:
            raise ScoreImportError("choose the file of scores")
        stored = import_metric_scores(
            evaluation,
            name=name,
            rows=read_score_rows(decoded(upload.read())),
            higher_is_better=request.POST.get("direction", "higher") != "lower",
            signature=request.POST.get("signature", "").strip(),
            replace=request.POST.get("replace") == "on",
        )
    except ScoreImportError as problem:
        messages.error(request, f"The scores were not imported ({problem.field}): {problem}")
    else:
        messages.success(
            request,
            f"{stored['metric']}: {stored['outputs']} outputs of {stored['systems']} systems scored, "
            f"{'higher' if stored['higher_is_better'] else 'lower'} is better.",
        )
    return redirect("meta-evaluation", project_id=project.pk)
