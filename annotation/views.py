"""Server-rendered pages for annotators. State changes only on POST.

Security behavior, for every view here: the user must be logged in and a member of the project
(anyone else gets 404, with no hint that the project exists); an annotator only ever sees their
own leases and judgements — never anyone else's answers, any aggregated label, or a gold answer
(except the feedback a project may enable right after a gold item is answered).
"""

from __future__ import annotations

import functools

import markdown
import nh3
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .assignment import (
    AssignmentError,
    ItemsBusy,
    claim_next_task,
    correct_judgement,
    items_left_for,
    last_judgement,
    live_assignment,
    membership,
    needs_qualification,
    skip_task,
    submit_judgement,
    work_refusal,
)
from .counts import item_counts
from .highlight import query_terms
from .models import Judgement, Membership, Project, Task
from .permissions import AuthenticatedHttpRequest, is_researcher
from .qualification import QualificationError, attempts_left, grade_qualification, qualification_tasks
from .reading import text_part
from .task_types import AnswerError


@functools.lru_cache(maxsize=256)
def render_markdown(text: str) -> str:
    """Markdown from a researcher, rendered and sanitised: imported text never reaches a page raw.

    Cached by text: every judging page shows the project's instructions and examples, and the
    result depends on the text alone (0.8 ms each, saved on every page after the first).
    """
    return mark_safe(nh3.clean(markdown.markdown(text)))


def annotator_project(request: AuthenticatedHttpRequest, project_id: int) -> Project:
    """The project if the user is one of its annotators; 404 otherwise (no hint it exists)."""
    project = Project.objects.filter(pk=project_id, memberships__annotator=request.user).first()
    if project is None:
        raise Http404("No such project")
    return project


def task_view(
    project: Project, task: Task, answer: dict | None = None, query: QueryDict | None = None
) -> dict:
    """What a page needs to show a task: its texts with query terms marked, and the answer widget.

    A long text is shown one part at a time (``annotation.reading``): ``?part=N`` picks the part of
    the first text, ``?part_b=N`` of the second, and each text links to its neighbouring parts on
    the page that asked (``query``, its query string). Without ``query`` the first part is shown.
    """
    # Query terms are marked where relevance to the topic is what is judged.
    terms: set[str] = set()
    if task.topic and project.type.judged_for_topic:
        terms = query_terms(task.topic.title, task.topic.description)
    documents = [task.document] + ([task.document_b] if task.document_b else [])
    return {
        "task": task,
        "topic": task.topic if task.topic_id else None,
        "documents": [
            {
                "heading": ("Output A", "Output B")[index] if task.document_b_id else "",
                "title": document.title,
                **shown_part(document.text, terms, query, ("part", "part_b")[index]),
            }
            for index, document in enumerate(documents)
        ],
        "widget": project.type.widget(project.config, answer),
    }


def shown_part(text: str, terms: set[str], query: QueryDict | None, parameter: str) -> dict:
    """The part of ``text`` that ``query[parameter]`` asks for, with links to its neighbours."""
    try:
        number = int(query.get(parameter) or 1) if query is not None else 1
    except ValueError:
        number = 1
    part = text_part(text, number, terms)

    def link(to: int) -> str:
        if query is None or not 1 <= to <= part.count:
            return ""
        asked = query.copy()
        asked[parameter] = str(to)
        return "?" + asked.urlencode()

    return {
        "paragraphs": part.paragraphs,
        "part": part,
        "part_span": f"characters {part.start + 1:,}–{part.end:,} of {part.total:,}",
        "previous_part_url": link(part.number - 1),
        "next_part_url": link(part.number + 1),
    }


def answer_in_words(project: Project, answer: dict) -> str:
    """An answer as its annotator chose it: the label's name ("not relevant", "Highly relevant"),
    the scores ("quality 4, coherence 3") or the text — never a bare label code."""
    names = project.type.label_names(project.config)
    if answer.get("label") in names:
        return names[answer["label"]]
    return project.type.describe_answer(project.config, answer).strip("“”")


def project_progress(project: Project, annotator) -> dict:
    """The numbers an annotator sees: items complete in the project, and their own count."""
    total, complete = item_counts(project.pk)
    # Qualification answers are not judgements, so this counts every task the annotator judged.
    mine = Judgement.objects.filter(project=project, annotator=annotator)
    return {
        "items_total": total,
        "items_complete": complete,
        "percent": round(100 * complete / total) if total else 0,
        "judged_by_me": mine.count(),
    }


@login_required
@require_GET
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The annotator's queue (projects with progress) and the researcher's projects."""
    memberships = (
        Membership.objects.filter(annotator=request.user, project__active=True)
        .select_related("project")
        .order_by("project__name")
    )
    rows = [
        {"project": m.project, "membership": m, **project_progress(m.project, request.user)}
        for m in memberships
    ]
    owned = Project.objects.filter(owner=request.user).order_by("name")
    return render(
        request,
        "annotation/home.html",
        {"annotating": rows, "owned": owned, "can_create": is_researcher(request.user)},
    )


@login_required
@require_GET
def judge(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Show the annotator's current task, or a button to get the next one.

    Security behavior: project annotators only; shows only the annotator's own lease.
    """
    project = annotator_project(request, project_id)
    member = membership(project, request.user)
    assignment = live_assignment(project, request.user)
    refusal = None if assignment else work_refusal(project, request.user, member)
    needs_test = (
        refusal is not None
        and member is not None
        and not member.blocked
        and member.qualified_at is None
        and needs_qualification(project)
    )
    previous = last_judgement(project, request.user)
    context = {
        "project": project,
        "assignment": assignment,
        "refusal": refusal,
        # Without a task in hand: is there one to get, so that the button is worth offering?
        "left": items_left_for(project, request.user) if not (assignment or refusal) else None,
        "needs_qualification": needs_test,
        "previous": previous if project.active else None,
        "instructions": render_markdown(project.instructions),
        "examples": render_markdown(project.examples),
        **project_progress(project, request.user),
    }
    if assignment:
        context.update(task_view(project, assignment.task, query=request.GET))
    return render(request, "annotation/judge.html", context)


def lease_next_task(request: AuthenticatedHttpRequest, project: Project) -> None:
    try:
        # When nothing is left the judging page says so itself, in place of the button.
        claim_next_task(project, request.user)
    except ItemsBusy as busy:
        messages.info(request, str(busy))
    except AssignmentError as error:
        messages.error(request, str(error))


@login_required
@require_POST
def claim(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Lease the next task to the annotator (POST only: a lease is a state change)."""
    project = annotator_project(request, project_id)
    lease_next_task(request, project)
    return redirect("judge", project_id=project.pk)


@login_required
@require_POST
def submit(request: AuthenticatedHttpRequest, project_id: int, assignment_id: int) -> HttpResponse:
    """Store the judgement (committed before the response), then lease the next task.

    Security behavior: accepted only against the annotator's own live lease, checked at submit time.
    """
    project = annotator_project(request, project_id)
    try:
        answer = project.type.parse_form(project.config, request.POST)
        submission = submit_judgement(assignment_id, request.user, answer)
    except (AnswerError, AssignmentError) as error:
        messages.error(request, str(error))
        return redirect("judge", project_id=project.pk)
    if submission.gold_feedback:
        messages.info(request, submission.gold_feedback)
    else:
        messages.success(request, "Saved.")
    lease_next_task(request, project)
    return redirect("judge", project_id=project.pk)


@login_required
@require_POST
def skip(request: AuthenticatedHttpRequest, project_id: int, assignment_id: int) -> HttpResponse:
    """Give the task back (it goes to someone else, never again to this annotator) and lease the next."""
    project = annotator_project(request, project_id)
    try:
        skip_task(assignment_id, request.user)
    except AssignmentError as error:
        messages.error(request, str(error))
        return redirect("judge", project_id=project.pk)
    messages.info(request, "Skipped.")
    lease_next_task(request, project)
    return redirect("judge", project_id=project.pk)


def _safe_next(request: AuthenticatedHttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=False):
        return target
    return default


@login_required
@require_http_methods(["GET", "POST"])
def edit_judgement(request: AuthenticatedHttpRequest, project_id: int, judgement_id: int) -> HttpResponse:
    """Review and correct one of the annotator's own judgements while the project is open.

    "Undo" on the judging page opens the last judgement here. Every version is kept.
    Security behavior: only the annotator's own judgements (others' are 404).
    """
    project = annotator_project(request, project_id)
    judgement = get_object_or_404(
        Judgement.objects.select_related("task__topic", "task__document", "task__document_b"),
        pk=judgement_id,
        annotator=request.user,
        task__project=project,
    )
    back = _safe_next(request, f"/projects/{project.pk}/judge/")
    if request.method == "POST":
        try:
            answer = project.type.parse_form(project.config, request.POST)
            changed_from = judgement.revision
            judgement = correct_judgement(judgement.pk, request.user, answer)
        except (AnswerError, AssignmentError) as error:
            messages.error(request, str(error))
        else:
            if judgement.revision != changed_from:
                messages.success(
                    request, "Your correction is saved; the earlier answer is kept in the history."
                )
            else:
                messages.info(request, "Nothing changed.")
            return redirect(back)
    return render(
        request,
        "annotation/edit_judgement.html",
        {
            "project": project,
            "judgement": judgement,
            "next": back,
            "editable": project.active,
            "versions": [
                {"revision": revision, "answer": answer_in_words(project, revision.answer)}
                for revision in judgement.revisions.all()
            ],
            **task_view(project, judgement.task, judgement.answer, query=request.GET),
        },
    )


@login_required
@require_GET
def history(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The annotator's own judgements in the project, newest first, each with its versions."""
    project = annotator_project(request, project_id)
    judgements = (
        Judgement.objects.filter(project=project, annotator=request.user)
        .select_related("task__topic", "task__document", "task__document_b")
        .prefetch_related("revisions")
        .order_by("-created_at", "-id")
    )
    page = Paginator(judgements, 50).get_page(request.GET.get("page"))
    rows = [{"judgement": j, "answer": answer_in_words(project, j.answer)} for j in page.object_list]
    return render(request, "annotation/history.html", {"project": project, "page": page, "rows": rows})


@login_required
@require_http_methods(["GET", "POST"])
def qualification(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The qualification test: every qualification question on one page, graded on submit."""
    project = annotator_project(request, project_id)
    member = membership(project, request.user)
    tasks = qualification_tasks(project)
    if request.method == "POST":
        try:
            attempt = grade_qualification(project, request.user, request.POST)
        except QualificationError as error:
            messages.error(request, str(error))
        else:
            if attempt.passed:
                messages.success(
                    request,
                    f"You passed ({attempt.correct} of {attempt.total} right). Welcome to the project!",
                )
                return redirect("judge", project_id=project.pk)
            messages.error(
                request,
                f"{attempt.correct} of {attempt.total} right; "
                f"{project.qualification_pass_rate:.0%} is needed to pass.",
            )
        return redirect("qualification", project_id=project.pk)
    return render(
        request,
        "annotation/qualification.html",
        {
            "project": project,
            "member": member,
            "attempts_left": attempts_left(project, request.user),
            "questions": [{"prefix": f"q{task.pk}-", **task_view(project, task)} for task in tasks],
            "instructions": render_markdown(project.instructions),
            "examples": render_markdown(project.examples),
        },
    )
