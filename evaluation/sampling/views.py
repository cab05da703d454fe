"""The sampling-simulation page (its form, its jobs with their progress, the newest result as a plot
and a table) and the plot itself, PNG or SVG.

Security behavior: the project's owner only (``owned_project``: anyone else's is a 404, an annotator
a 403 from the login check of researcher pages); the page takes GET and POST, the plot GET only.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from annotation.permissions import AuthenticatedHttpRequest, owned_project
from annotation.rest.renderers import image_response
from evaluation.metrics.plotting import render as render_figure
from evaluation.metrics.plotting import sampling_simulation_figure
from evaluation.models import SamplingSimulation
from evaluation.sampling.jobs import SettingsProblem, parse_shares, request_simulation, truth_choices


def whole_number(text: str, field: str, default: int) -> int:
    try:
        return int(text) if text.strip() else default
    except ValueError as error:
        raise SettingsProblem(field, f"{text!r} is not a whole number") from error


@login_required
@require_http_methods(["GET", "POST"])
def simulations(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Ask for a simulation (POST) or see them (GET): the newest finished one is drawn."""
    project = owned_project(request.user, project_id)
    if request.method == "POST":
        try:
            job = request_simulation(
                project,
                request.user,
                truth=request.POST.get("truth", ""),
                shares=parse_shares(request.POST.get("shares", "") or "10,20,30"),
                samples=whole_number(request.POST.get("samples", ""), "samples", 100),
                depth=whole_number(request.POST.get("depth", ""), "depth", 100),
                top_depth=whole_number(request.POST.get("top_depth", ""), "top_depth", 10),
                seed=whole_number(request.POST.get("seed", ""), "seed", 0),
            )
        except SettingsProblem as problem:
            messages.error(request, f"{problem.field}: {problem.message}")
        else:
            messages.success(request, f"Sampling simulation {job.pk} asked for: reload to follow it.")
        return redirect("sampling-simulations", project_id=project.pk)
    jobs = list(project.sampling_simulations.defer("result")[:20])
    shown = project.sampling_simulations.filter(status=SamplingSimulation.Status.DONE).first()
    return render(
        request,
        "evaluation/sampling_simulations.html",
        {
            "project": project,
            "jobs": jobs,
            "shown": shown,
            "rows": table_rows(shown) if shown else [],
            "truths": truth_choices(project),
            "active_runs": project.runs.filter(withdrawn_at__isnull=True).count(),
        },
    )


def share_label(share: float) -> str:
    return f"{share * 100:g} %"


def table_rows(job: SamplingSimulation) -> list[dict]:
    return [
        {"label": share_label(s["share"]), "design": s["design"], **s["summary"]}
        for s in job.result["shares"]
    ]


@login_required
@require_GET
def simulation_plot(
    request: AuthenticatedHttpRequest, project_id: int, simulation_id: int, fmt: str
) -> HttpResponse:
    """A finished simulation's figure; 409 while it is not done."""
    project = owned_project(request.user, project_id)
    job = get_object_or_404(SamplingSimulation, project=project, pk=simulation_id)
    if job.status != SamplingSimulation.Status.DONE:
        return HttpResponse(
            f"Sampling simulation {job.pk} is {job.status}: its plot comes when it is done.",
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    figure = sampling_simulation_figure(
        [(share_label(s["share"]), s["figures"]) for s in job.result["shares"]]
    )
    return image_response(render_figure(figure, fmt), fmt, f"sampling-simulation-{job.pk}")
