"""The researcher's item browser and item page, and adjudication by hand. Server-rendered; state
changes only on POST; imported texts and annotators' answers are escaped by the templates.

Security behavior, for every view here: the project's owner only (``owned_project``: anyone else,
researcher or not, gets 404 with no hint that the project exists). These pages show every
annotator's judgements and the gold answers, so no annotator ever reaches them; the annotators'
own pages show none of it (``annotation.judging.views``).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from annotation.adjudication.rules import AdjudicationError, settle, settle_refusal
from annotation.items.browser import (
    BROWSED_KINDS,
    ItemFilter,
    annotators_left,
    browsable_tasks,
    extra_assessor,
    facts,
    facts_of,
    judgements_with_history,
    page_rows,
)
from annotation.judging.views import task_view
from annotation.models import AdjudicatedBy, Judgement, Project, Task
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.items.browser import ground_truth_of, label_name, newest_snapshot, referral_of
from evaluation.metrics.natural_order import natural_key

ITEMS_PER_PAGE = 50


def project_item(project: Project, task_id: int) -> Task:
    """One of the project's items or gold items; 404 for anything else."""
    return get_object_or_404(
        Task.objects.select_related("topic", "document", "document_b"),
        pk=task_id,
        project=project,
        kind__in=BROWSED_KINDS,
    )


def filter_choices(project: Project) -> dict:
    """The topics and annotators the filter form offers."""
    # Per person, one probe of the (project, annotator) index, not the project's judgements read whole.
    judged = Judgement.objects.filter(project=project, annotator=OuterRef("pk"))
    annotators = (
        project.annotators.model.objects.filter(Exists(judged) | Q(memberships__project=project))
        .distinct()
        .order_by("username")
        .values_list("username", flat=True)
    )
    return {
        "topics": sorted(
            project.topics.values_list("external_id", "title"), key=lambda topic: natural_key(topic[0])
        ),
        "annotator_names": list(annotators),
    }


@login_required
@require_GET
def items_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Every item and gold item of the project, searched and filtered
    (``annotation.items.browser.ItemFilter``), 50 a page, each with its judgements' labels, whether
    they disagree, how it was adjudicated and its label in the newest snapshot."""
    project = owned_project(request.user, project_id)
    filters = ItemFilter(request.GET, queryset=browsable_tasks(project), project=project)
    rows = filters.qs if filters.is_valid() else browsable_tasks(project).none()
    page = Paginator(rows, ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    tasks = page_rows(project, list(page.object_list))
    snapshot = newest_snapshot(project)
    ground_truth = ground_truth_of(project, snapshot, [task.pk for task in tasks])
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "evaluation/items.html",
        {
            "project": project,
            "filters": filters,
            "page": page,
            "rows": [
                {"facts": found, "aggregate": ground_truth.get(found.task.pk)}
                for found in facts_of(project, tasks)
            ],
            "snapshot": snapshot,
            "query": query.urlencode(),
            **filter_choices(project),
        },
    )


def judgement_rows(project: Project, task: Task) -> list[dict]:
    """The item's judgements for the page: each answer in words, its rationale and every version."""
    judgements = judgements_with_history(task)
    extra = extra_assessor(task, judgements)
    describe = project.type.describe_answer
    return [
        {
            "judgement": judgement,
            "answer": describe(project.config, judgement.answer),
            "rationale": judgement.answer.get("rationale", ""),
            "extra_assessor": extra is not None and judgement.pk == extra.pk,
            "revisions": [
                {"revision": revision, "answer": describe(project.config, revision.answer)}
                for revision in judgement.revisions.all()
            ],
        }
        for judgement in judgements
    ]


@login_required
@require_GET
def item_page(request: AuthenticatedHttpRequest, project_id: int, task_id: int) -> HttpResponse:
    """One item: its topic and document(s), every judgement with its annotator and full history,
    how far they disagree, its gold answer if gold, its ground truth in the newest snapshot, where
    the adjudication rule sent it, and the form to settle it by hand (label projects)."""
    project = owned_project(request.user, project_id)
    task = project_item(project, task_id)
    rows = judgement_rows(project, task)
    decisions = list(task.adjudications.select_related("researcher").order_by("-created_at", "-id"))
    in_force = decisions[0] if decisions and decisions[0].label is not None else None
    found = facts(project, task, [row["judgement"].answer for row in rows], in_force)
    snapshot = newest_snapshot(project)
    aggregate = ground_truth_of(project, snapshot, [task.pk]).get(task.pk)
    names = project.type.label_names(project.config)
    waiting_for_extra = task.referred_to == AdjudicatedBy.EXTRA_ASSESSOR and not task.completed
    return render(
        request,
        "evaluation/item.html",
        {
            "project": project,
            **task_view(project, task, query=request.GET),
            "judgements": rows,
            "facts": found,
            "gold_answer": project.type.describe_answer(project.config, task.gold_answer or {})
            if task.kind == Task.Kind.GOLD
            else None,
            "snapshot": snapshot,
            "aggregate": aggregate,
            "referral": referral_of(task),
            "annotators_left": annotators_left(project, task) if waiting_for_extra else None,
            "decisions": [
                {"decision": d, "label": label_name(project, d.label) if d.label is not None else None}
                for d in decisions
            ],
            "in_force": in_force,
            "settle_refusal": settle_refusal(project, task),
            "choices": [{"value": value, "name": name} for value, name in names.items()],
            "back": request.GET.get("back", ""),
        },
    )


@login_required
@require_POST
def adjudicate(request: AuthenticatedHttpRequest, project_id: int, task_id: int) -> HttpResponse:
    """Settle an item by hand (``label``, optional ``note``), or withdraw the decision in force
    (``withdraw``). The next ground-truth snapshot uses it; it is computed by the debounced job,
    never in this request. POST only."""
    project = owned_project(request.user, project_id)
    task = project_item(project, task_id)
    back = request.POST.get("back", "")
    item_url = reverse("item-page", args=[project.pk, task.pk]) + (
        f"?{urlencode({'back': back})}" if back else ""
    )
    withdraw = "withdraw" in request.POST
    label: int | None = None
    if not withdraw:
        try:
            label = int(request.POST.get("label", "").strip())
        except ValueError:
            messages.error(request, "Choose the item's label.")
            return redirect(item_url)
    try:
        settle(task, request.user, label, request.POST.get("note", ""))
    except AdjudicationError as error:
        messages.error(request, str(error))
    else:
        done = "Decision withdrawn" if withdraw else f"Settled as “{label_name(project, label)}”"
        messages.success(request, f"{done}. The next ground-truth snapshot, due within seconds, uses it.")
    return redirect(item_url)
