"""Server-rendered pages for researchers: create and configure projects, import, watch progress,
manage annotators and download what was judged. State changes only on POST.

Security behavior, for every view here: researchers only (group ``researchers`` or superusers;
others get 403 on creation pages), and a project's pages answer only its owner — anyone else,
researcher or not, gets 404 with no hint that the project exists.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, Q, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evaluation.downloads import qrels_response
from evaluation.models import GroundTruthSnapshot
from evaluation.reports import annotator_table

from .assignment import block_annotator, unblock_annotator
from .forms import ProjectForm
from .importing import ImportProblem, import_collection
from .models import Judgement, JudgementRevision, Membership, Project, Task
from .permissions import is_researcher
from .progress import summarise_progress
from .quality_control import attention_results
from .serializers import ImportSerializer


def researcher_only(request: HttpRequest) -> None:
    if not is_researcher(request.user):
        raise PermissionDenied("Only researchers may manage projects.")


def owned_project(request: HttpRequest, project_id: int) -> Project:
    return get_object_or_404(Project, pk=project_id, owner=request.user)


@login_required
@require_http_methods(["GET", "POST"])
def project_new(request: HttpRequest) -> HttpResponse:
    """Create a project; the creator owns it."""
    researcher_only(request)
    form = ProjectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        form.instance.owner = request.user
        project = form.save()
        messages.success(request, f"Project “{project.name}” created. Now import what is to be judged.")
        return redirect("project-import", project_id=project.pk)
    return render(request, "annotation/project_form.html", {"form": form, "project": None})


@login_required
@require_http_methods(["GET", "POST"])
def project_settings(request: HttpRequest, project_id: int) -> HttpResponse:
    """Change a project's settings (task type and config only before anything is judged)."""
    project = owned_project(request, project_id)
    judged = Judgement.objects.filter(task__project=project).exists()
    form = ProjectForm(request.POST or None, instance=project)
    if judged:
        for name in (
            "task_type",
            "graded_levels",
            "likert_dimensions",
            "likert_low",
            "likert_high",
            "max_words",
        ):
            form.fields[name].disabled = True
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Settings saved.")
        return redirect("project-page", project_id=project.pk)
    return render(
        request, "annotation/project_form.html", {"form": form, "project": project, "judged": judged}
    )


def _import_errors(errors, prefix: str = "") -> Iterator[str]:
    """DRF's nested error structure flattened to “field[index].name: message” lines."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            name = f"{prefix}[{key}]" if str(key).isdigit() else (f"{prefix}.{key}" if prefix else str(key))
            yield from _import_errors(value, name)
    elif isinstance(errors, list):
        if errors and all(isinstance(e, str) for e in errors):
            yield f"{prefix}: {' '.join(errors)}"
        else:
            for index, value in enumerate(errors):
                if value:
                    yield from _import_errors(value, f"{prefix}[{index}]")
    else:
        yield f"{prefix}: {errors}"


@login_required
@require_http_methods(["GET", "POST"])
def project_import(request: HttpRequest, project_id: int) -> HttpResponse:
    """Import topics, documents, runs, items, gold and qualification questions from a JSON file.

    The file has the same shape as the import API's body. All or nothing: on any error the page
    lists each problem with its field and line, and nothing is stored.
    """
    project = owned_project(request, project_id)
    errors: list[str] = []
    if request.method == "POST":
        upload = request.FILES.get("file")
        text = upload.read().decode("utf-8", errors="replace") if upload else request.POST.get("body", "")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            errors = [f"line {error.lineno}, column {error.colno}: not valid JSON ({error.msg})"]
        else:
            serializer = ImportSerializer(data=data)
            if not isinstance(data, dict):
                errors = ["the file must hold one JSON object with topics, documents, runs, items …"]
            elif not serializer.is_valid():
                errors = list(_import_errors(serializer.errors))
            else:
                try:
                    with transaction.atomic():
                        summary = import_collection(project, **serializer.validated_data)
                except ImportProblem as problem:
                    errors = [f"{problem.field}: {problem.message}"]
                else:
                    messages.success(request, f"Imported {describe_import(summary)}.")
                    return redirect("project-page", project_id=project.pk)
    return render(request, "annotation/project_import.html", {"project": project, "errors": errors})


def describe_import(summary) -> str:
    """“1 topic, 5 documents, 5 new items (5 items in the project)”: only what the import created."""
    counts = [
        (summary.topics_created, "topic"),
        (summary.documents_created, "document"),
        (summary.runs_created, "run"),
        (summary.tasks_created, "new item"),
        (summary.gold_created, "gold item"),
        (summary.qualification_created, "qualification question"),
        (summary.attention_checks_created, "attention check"),
    ]
    parts = [f"{n} {name}{'' if n == 1 else 's'}" for n, name in counts if n]
    return (", ".join(parts) or "nothing new") + f" ({summary.tasks_total} items in the project)"


def project_progress_figures(project: Project) -> dict:
    """The dashboard's live numbers (see annotation.progress)."""
    items = project.tasks.filter(kind=Task.Kind.ITEM).aggregate(
        total=Count("id"), complete=Count("id", filter=Q(completed=True)), needed=Sum("required_judgements")
    )
    judgements = Judgement.objects.filter(task__project=project, task__kind=Task.Kind.ITEM)
    times, seconds = [], []
    for created_at, spent in judgements.values_list("created_at", "seconds_spent").iterator():
        times.append(created_at)
        if spent is not None:
            seconds.append(spent)
    progress = summarise_progress(
        items_total=items["total"],
        items_complete=items["complete"],
        judgements_needed=items["needed"] or 0,
        judgement_times=times,
        seconds_spent=seconds,
        now=timezone.now(),
    )
    return progress.as_dict()


def annotator_rows(project: Project) -> list[dict]:
    """The dashboard's annotator table: ``evaluation.reports.annotator_table`` (volume, gold accuracy,
    agreement with the ground truth, flags) plus membership (for qualification and blocking) and,
    for rating projects, attention-check results."""
    members = {member.annotator_id: member for member in Membership.objects.filter(project=project)}
    attention = attention_results(project) if project.is_rating else {}
    return [
        row
        | {"membership": members.get(row["annotator_id"]), "attention": attention.get(row["annotator_id"])}
        for row in annotator_table(project)
    ]


@login_required
@require_GET
def project_detail(request: HttpRequest, project_id: int) -> HttpResponse:
    """The researcher's dashboard: live progress, annotators, snapshots and downloads."""
    project = owned_project(request, project_id)
    snapshots = (
        GroundTruthSnapshot.objects.filter(project=project).defer("assessor_report").order_by("-version")[:1]
    )
    kinds = dict(project.tasks.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    return render(
        request,
        "annotation/project_detail.html",
        {
            "project": project,
            "progress": project_progress_figures(project),
            "annotators": annotator_rows(project),
            "snapshots": snapshots,
            "kinds": kinds,
        },
    )


@login_required
@require_GET
def project_progress(request: HttpRequest, project_id: int) -> JsonResponse:
    """The dashboard's numbers as JSON, polled by the page to update itself."""
    project = owned_project(request, project_id)
    return JsonResponse(project_progress_figures(project))


@login_required
@require_POST
def member_block(request: HttpRequest, project_id: int, user_id: int) -> HttpResponse:
    """Block an annotator: they get no more tasks; their live leases return to the pool."""
    project = owned_project(request, project_id)
    member = get_object_or_404(Membership, project=project, annotator_id=user_id)
    released = block_annotator(project, member.annotator, request.POST.get("reason", ""))
    messages.success(request, f"{member.annotator.username} is blocked ({released} lease(s) returned).")
    return redirect("project-page", project_id=project.pk)


@login_required
@require_POST
def member_unblock(request: HttpRequest, project_id: int, user_id: int) -> HttpResponse:
    project = owned_project(request, project_id)
    member = get_object_or_404(Membership, project=project, annotator_id=user_id)
    unblock_annotator(project, member.annotator)
    messages.success(request, f"{member.annotator.username} may take tasks again.")
    return redirect("project-page", project_id=project.pk)


@login_required
@require_POST
def member_add(request: HttpRequest, project_id: int) -> HttpResponse:
    project = owned_project(request, project_id)
    username = request.POST.get("username", "").strip()
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        messages.error(request, f"No user named “{username}”.")
    else:
        Membership.objects.get_or_create(project=project, annotator=user)
        messages.success(request, f"{username} now annotates this project.")
    return redirect("project-page", project_id=project.pk)


JUDGEMENT_COLUMNS = [
    "judgement_id",
    "task_id",
    "kind",
    "topic",
    "document",
    "document_b",
    "annotator",
    "label",
    "answer",
    "revision",
    "seconds_spent",
    "created_at",
    "updated_at",
]


def judgement_records(project: Project, *, every_version: bool = False) -> Iterator[dict]:
    """Every judgement of the project with who judged what and when, in submission order.

    With ``every_version`` each correction is a row of its own (the first answer is revision 1):
    ``label``, ``answer`` and ``revision`` are that version's, and ``updated_at`` is when it was written.
    """
    judgement = "judgement__" if every_version else ""
    fields = [
        f"{judgement}id",
        f"{judgement}task_id",
        f"{judgement}task__kind",
        f"{judgement}task__topic__external_id",
        f"{judgement}task__document__external_id",
        f"{judgement}task__document_b__external_id",
        f"{judgement}annotator__username",
        "label",
        "answer",
        "number" if every_version else "revision",
        f"{judgement}seconds_spent",
        f"{judgement}created_at",
        "created_at" if every_version else "updated_at",
    ]
    if every_version:
        rows = JudgementRevision.objects.filter(judgement__project=project).order_by("judgement_id", "number")
    else:
        rows = Judgement.objects.filter(project=project).order_by("id")
    for row in rows.values_list(*fields).iterator(chunk_size=2000):
        record = dict(zip(JUDGEMENT_COLUMNS, row, strict=True))
        record["created_at"] = record["created_at"].isoformat()
        record["updated_at"] = record["updated_at"].isoformat()
        yield record


class _Echo:
    def write(self, value: str) -> str:
        return value


@login_required
@require_GET
def judgements_download(request: HttpRequest, project_id: int, fmt: str) -> StreamingHttpResponse:
    """All judgements as CSV (answer as JSON text) or JSONL, streamed; ``?versions=all`` adds every
    correction as a row of its own."""
    project = owned_project(request, project_id)
    records = judgement_records(project, every_version=request.GET.get("versions") == "all")
    if fmt == "csv":
        writer = csv.writer(_Echo())

        def lines() -> Iterator[str]:
            yield writer.writerow(JUDGEMENT_COLUMNS)
            for record in records:
                record["answer"] = json.dumps(record["answer"], ensure_ascii=False)
                yield writer.writerow([record[column] for column in JUDGEMENT_COLUMNS])

        response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    else:
        response = StreamingHttpResponse(
            (json.dumps(record, ensure_ascii=False) + "\n" for record in records),
            content_type="application/x-ndjson; charset=utf-8",
        )
    response["Content-Disposition"] = f'attachment; filename="project{project.pk}-judgements.{fmt}"'
    return response


@login_required
@require_GET
def snapshot_qrels(request: HttpRequest, project_id: int, version: int) -> HttpResponse:
    """Download a snapshot as TREC qrels. Security behavior: the project's owner only."""
    project = owned_project(request, project_id)
    return qrels_response(get_object_or_404(GroundTruthSnapshot, project=project, version=version))
