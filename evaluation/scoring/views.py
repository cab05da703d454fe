"""Researcher pages of the evaluation side: system runs (list, add, inspect, download), evaluations
(request, watch), the leaderboard with its checks and downloads, a run's per-topic drill-down, and
external qrels compared with the crowd.

Security behavior, for every view here: the project's owner only (``owned_project``: anyone else
gets 404 with no hint that the project exists); state changes only on POST; every value from
imports is escaped by the templates.
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import F
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.items.importing import ImportProblem
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.collection.external_qrels import import_external_qrels
from evaluation.collection.flow import ImportFailed, describe_import, import_from_body
from evaluation.collection.runs import run_file, with_line_totals
from evaluation.jobs.views import cancel_from_page
from evaluation.metrics.natural_order import natural_key
from evaluation.metrics.trec.measures import MeasureError, parse_measures
from evaluation.models import Evaluation, Precedence, Run, RunScore
from evaluation.prior.settings import precedence_of
from evaluation.scoring.board import (
    CORRECTIONS,
    TESTS,
    BoardError,
    BoardOptions,
    available_measures,
    leaderboard,
    leaderboard_csv,
    leaderboard_json,
    paper_table_text,
    per_topic_table,
    trec_eval_text,
)
from evaluation.scoring.external import comparisons
from evaluation.scoring.jobs import EVALUATIONS, not_superseded, request_evaluation
from evaluation.scoring.trust import shown_checks

DOWNLOADS = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "txt": "text/plain; charset=utf-8",
    "tex": "application/x-tex; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
}
# The downloads that are a paper's table (``board.paper_table_text``), by their format's name.
PAPER_TABLES = {"tex": "latex", "md": "markdown"}


def attachment(body: str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def runs(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The project's runs, and a form to add more (uploaded TREC run files); a preview counts the new
    items the pool would get before anything is stored."""
    project = owned_project(request.user, project_id)
    errors: list[str] = []
    preview = None
    if request.method == "POST":
        body = {
            "runs": [f.read().decode("utf-8", errors="replace") for f in request.FILES.getlist("files")],
            "pool_depth": request.POST.get("pool_depth") or 10,
            "pool_method": request.POST.get("pool_method") or "depth",
            "run_group": request.POST.get("run_group", ""),
            "dry_run": "preview" in request.POST,
            "judge_prior": "judge_prior" in request.POST,
        }
        if request.POST.get("pool_budget"):
            body["pool_budget"] = request.POST["pool_budget"]
        if body["pool_method"] == "stratified":
            body["pool_strata"] = request.POST.get("pool_strata") or "1-10:1,11-100:0.2,101-1000:0.05"
            body["pool_seed"] = request.POST.get("pool_seed") or 0
        try:
            summary = import_from_body(project, body)
        except ImportFailed as failure:
            errors = failure.as_lines()
        else:
            if summary.dry_run:  # shown here, with the judging order; the files must be chosen again
                preview = {
                    "text": describe_import(summary),
                    "order": list(summary.judging_order.items())[:20],
                }
            else:
                messages.success(request, f"Runs: {describe_import(summary)}.")
                return redirect("runs-page", project_id=project.pk)
    rows = with_line_totals(project.runs.all()).order_by("tag")
    return render(
        request,
        "evaluation/runs.html",
        {"project": project, "runs": rows, "errors": errors, "preview": preview},
    )


@login_required
@require_GET
def run_detail(request: AuthenticatedHttpRequest, project_id: int, run_id: int) -> HttpResponse:
    project = owned_project(request.user, project_id)
    run = get_object_or_404(Run, pk=run_id, project=project)
    topics = sorted(
        run.ranked_lists.values("topic_id", n=F("length")),
        key=lambda row: natural_key(row["topic_id"]),
    )
    current = not_superseded(project.evaluations.filter(status=Evaluation.Status.DONE))
    scores = (
        RunScore.objects.filter(run=run, evaluation__in=current)
        .select_related("evaluation__snapshot", "evaluation__external_qrels")
        .order_by("-evaluation__created_at")[:10]
    )
    return render(
        request,
        "evaluation/run_detail.html",
        {"project": project, "run": run, "topics": topics, "scores": scores},
    )


@login_required
@require_GET
def run_download(request: AuthenticatedHttpRequest, project_id: int, run_id: int) -> HttpResponse:
    """The run as a TREC run file, in trec_eval's order."""
    project = owned_project(request.user, project_id)
    run = get_object_or_404(Run, pk=run_id, project=project)
    return attachment(run_file(run), "text/plain; charset=utf-8", f"project{project.pk}-{run.pk}.run")


@login_required
@require_http_methods(["GET", "POST"])
def evaluations(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Evaluation jobs with their progress; a form to score every run against a chosen ground truth."""
    project = owned_project(request.user, project_id)
    if request.method == "POST":
        try:
            evaluation = requested(project, request.POST)
        except BoardError as error:
            return HttpResponseBadRequest(f"{error.field}: {error.message}", content_type="text/plain")
        messages.success(request, f"Evaluation {evaluation.pk} ({evaluation.status}): {evaluation.signature}")
        return redirect("evaluations-page", project_id=project.pk)
    every = project.evaluations.select_related("snapshot", "external_qrels").defer("variant_qrels")
    jobs = not_superseded(every)[:20]
    return render(
        request,
        "evaluation/evaluations.html",
        {
            "project": project,
            "jobs": jobs,
            "superseded": every.count() - not_superseded(every).count(),
            "snapshots": project.snapshots.order_by("-version").only("version", "method")[:20],
            "external": project.external_qrels.all(),
            "priors": project.prior_qrels.order_by("pk"),
            "precedence": precedence_of(project),
            "precedences": Precedence.choices,
            "active": any(
                job.status in {Evaluation.Status.QUEUED, Evaluation.Status.RUNNING} for job in jobs
            ),
        },
    )


def requested(project, data) -> Evaluation:
    """The evaluation a form or API body asks for: ``ground_truth`` ``snapshot:V`` or ``external:ID``
    (default: the newest snapshot), ``relevance_level`` ≥ 1, ``judged_only``."""
    choice = str(data.get("ground_truth") or "")
    snapshot = external = None
    kind, _, key = choice.partition(":")
    if not choice:
        snapshot = project.snapshots.order_by("-version").first()
        if snapshot is None:
            raise BoardError(
                "ground_truth", "no snapshot yet: judge some items or import external qrels first"
            )
    elif kind == "snapshot" and key.isdigit():
        snapshot = project.snapshots.filter(version=int(key)).first()
    elif kind == "external" and key.isdigit():
        external = project.external_qrels.filter(pk=int(key)).first()
    if snapshot is None and external is None:
        raise BoardError("ground_truth", f"no ground truth {choice!r}: give snapshot:VERSION or external:ID")
    try:
        level = int(data.get("relevance_level") or 1)
    except (TypeError, ValueError):
        raise BoardError("relevance_level", "must be a whole number, at least 1") from None
    if not 1 <= level <= 100:
        raise BoardError("relevance_level", "must be a whole number from 1 to 100")
    judged_only = str(data.get("judged_only", "")).lower() in {"1", "true", "on", "yes"}
    return request_evaluation(
        project,
        snapshot=snapshot,
        external_qrels=external,
        relevance_level=level,
        judged_only=judged_only,
        **extra_measure_settings(project, data),
    )


# trec_eval's nDCG gains: relevance levels (whole numbers) each with its gain.
GAINS = re.compile(r"-?\d+=-?\d+(\.\d+)?(,-?\d+=-?\d+(\.\d+)?)*")


def extra_measure_settings(project, data) -> dict:
    """The measures beyond all_trec a form or API body asks for: ``f_beta`` (> 0, default 1),
    ``ndcg_gains`` (trec_eval's ``level=gain`` pairs, e.g. ``0=0,1=1,2=3``) and ``set_measures``
    (accuracy, specificity and fallout, in a collection of the project's documents); BoardError names
    a bad one."""
    given = data.get("f_beta")
    try:
        beta = 1.0 if given in (None, "") else float(given)
    except (TypeError, ValueError):
        raise BoardError("f_beta", "must be a number above 0, e.g. 0.5 or 2") from None
    if not 0 < beta <= 100:
        raise BoardError("f_beta", "must be a number above 0 and at most 100, e.g. 0.5 or 2")
    gains = str(data.get("ndcg_gains") or "").strip()
    if gains:
        if len(gains) > 100:
            raise BoardError("ndcg_gains", "at most 100 characters")
        if not GAINS.fullmatch(gains):
            raise BoardError("ndcg_gains", "give level=gain pairs of numbers, e.g. 0=0,1=1,2=3")
        try:
            parse_measures([f"ndcg.{gains}"])
        except MeasureError as error:
            raise BoardError("ndcg_gains", f"give level=gain pairs, e.g. 0=0,1=1,2=3 ({error})") from None
    wanted = str(data.get("set_measures", "")).lower() in {"1", "true", "on", "yes"}
    size = project.documents.count() if wanted else None
    if wanted and not size:
        raise BoardError("set_measures", "the project has no documents to count as the collection")
    return {"f_beta": beta, "ndcg_gains": gains, "collection_size": size}


def chosen_evaluation(project, evaluation_id: int | None) -> Evaluation | None:
    """The evaluation asked for, or the newest finished one against the newest snapshot (else any)."""
    # Not the alternative ground truths the job scored against (a qrels per variant: at 100,000
    # judged items, 0.3 s of JSON to read on every visit); no page shows them.
    evaluations = project.evaluations.defer("variant_qrels")
    done = evaluations.filter(status=Evaluation.Status.DONE).select_related("snapshot", "external_qrels")
    if evaluation_id is not None:
        return get_object_or_404(evaluations, pk=evaluation_id)
    return done.filter(snapshot__isnull=False).order_by("-snapshot__version", "-pk").first() or done.first()


@login_required
@require_GET
def leaderboard_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Runs × measures with confidence intervals, all-pairs significance, the checks and plots."""
    project = owned_project(request.user, project_id)
    evaluation_id = request.GET.get("evaluation")
    if evaluation_id is not None and not evaluation_id.isdigit():
        return HttpResponseBadRequest("evaluation: must be an evaluation's number", content_type="text/plain")
    evaluation = chosen_evaluation(project, int(evaluation_id) if evaluation_id else None)
    context: dict = {"project": project, "evaluation": evaluation, "board": None}
    if evaluation is not None:
        context |= rescoring_after_withdrawal(evaluation)
    if evaluation is not None and evaluation.status == Evaluation.Status.DONE and not evaluation.run_count:
        context["no_runs"] = True  # every run withdrawn or deleted: nothing to rank
    elif evaluation is not None and evaluation.status == Evaluation.Status.DONE:
        try:
            options = BoardOptions.from_query(request.GET, available_measures(evaluation))
        except BoardError as error:
            return HttpResponseBadRequest(f"{error.field}: {error.message}", content_type="text/plain")
        data = leaderboard(evaluation, options)
        context |= {
            "board": data,
            "options": options,
            "significant_pairs": [p for p in data["pairs"] if p["significant"]],
            "query": request.GET.urlencode(),
            "finished": not_superseded(
                project.evaluations.filter(status=Evaluation.Status.DONE)
                .defer("variant_qrels", "checks")
                .select_related("snapshot", "external_qrels")
            )[:20],
            "checks": shown_checks(evaluation.checks),
            "comparisons": comparisons(evaluation),
            "qq_pair": data["rows"][:2] if len(data["rows"]) >= 2 else None,
            "tests": TESTS,
            "corrections": CORRECTIONS,
        }
    return render(request, "evaluation/leaderboard.html", context)


def rescoring_after_withdrawal(evaluation: Evaluation) -> dict:
    """Runs this evaluation scored that were withdrawn since, and the evaluation that scores the runs
    without them (queued or running), for the leaderboard's notice."""
    withdrawn = list(
        evaluation.scores.filter(run__withdrawn_at__isnull=False)
        .order_by("run__tag")
        .values_list("run__tag", flat=True)
    )
    if not withdrawn:
        return {}
    pending = evaluation.project.evaluations.filter(
        status__in=[Evaluation.Status.QUEUED, Evaluation.Status.RUNNING], created_at__gt=evaluation.created_at
    ).first()
    return {"withdrawn_runs": withdrawn, "rescoring": pending}


@login_required
@require_GET
def leaderboard_download(
    request: AuthenticatedHttpRequest, project_id: int, evaluation_id: int, fmt: str
) -> HttpResponse:
    """The leaderboard as CSV or JSON (with the query's measures and test), or every run's measures
    in trec_eval's text layout (``txt``; ``?q=1`` adds each topic, as ``trec_eval -q``)."""
    project = owned_project(request.user, project_id)
    evaluation = get_object_or_404(
        project.evaluations, pk=evaluation_id, status=Evaluation.Status.DONE, run_count__gt=0
    )
    if fmt not in DOWNLOADS:
        raise Http404("the leaderboard downloads as .csv, .json, .txt, .tex or .md")
    name = f"project{project.pk}-evaluation{evaluation.pk}"
    if fmt == "txt":
        return attachment(
            trec_eval_text(evaluation, per_query=request.GET.get("q") == "1"), DOWNLOADS[fmt], f"{name}.txt"
        )
    try:
        options = BoardOptions.from_query(request.GET, available_measures(evaluation))
    except BoardError as error:
        return HttpResponseBadRequest(f"{error.field}: {error.message}", content_type="text/plain")
    if fmt in PAPER_TABLES:
        return attachment(
            paper_table_text(evaluation, options, PAPER_TABLES[fmt]), DOWNLOADS[fmt], f"{name}.{fmt}"
        )
    data = leaderboard(evaluation, options)
    body = leaderboard_csv(data) if fmt == "csv" else leaderboard_json(data)
    return attachment(body, DOWNLOADS[fmt], f"{name}.{fmt}")


@login_required
@require_GET
def run_topics(
    request: AuthenticatedHttpRequest, project_id: int, evaluation_id: int, run_id: int
) -> HttpResponse:
    """One run's per-topic values in one evaluation (the leaderboard's drill-down)."""
    project = owned_project(request.user, project_id)
    evaluation = get_object_or_404(project.evaluations, pk=evaluation_id, status=Evaluation.Status.DONE)
    score = get_object_or_404(RunScore.objects.select_related("run"), evaluation=evaluation, run_id=run_id)
    try:
        options = BoardOptions.from_query(request.GET, set(score.overall))
    except BoardError as error:
        return HttpResponseBadRequest(f"{error.field}: {error.message}", content_type="text/plain")
    rows = per_topic_table(evaluation, score, options.measures)
    return render(
        request,
        "evaluation/run_topics.html",
        {
            "project": project,
            "evaluation": evaluation,
            "score": score,
            "measures": options.measures,
            "rows": rows,
        },
    )


@login_required
@require_POST
def external_qrels(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Import qrels from a file as a reference; the runs are scored against them too."""
    project = owned_project(request.user, project_id)
    upload = request.FILES.get("file")
    text = upload.read().decode("utf-8", errors="replace") if upload else request.POST.get("qrels", "")
    try:
        external = import_external_qrels(project, request.POST.get("name", ""), text)
    except ImportProblem as problem:
        messages.error(request, f"{problem.field}: {problem.message}")
        return redirect("evaluations-page", project_id=project.pk)
    if project.runs.exists():
        request_evaluation(project, external_qrels=external)
    messages.success(
        request,
        f"External qrels {external.name}: {external.judged_count} judgements, "
        f"{external.relevant_count} relevant.",
    )
    return redirect("evaluations-page", project_id=project.pk)


@login_required
@require_POST
def evaluation_cancel(request: AuthenticatedHttpRequest, project_id: int, evaluation_id: int) -> HttpResponse:
    """Cancel a queued or running evaluation (``jobs.views.cancel_from_page``)."""
    project = owned_project(request.user, project_id)
    evaluation = get_object_or_404(project.evaluations, pk=evaluation_id)
    return cancel_from_page(request, EVALUATIONS, evaluation, reverse("evaluations-page", args=[project.pk]))
