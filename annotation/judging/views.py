"""Server-rendered pages for annotators. State changes only on POST.

Security behavior, for every view here: the user must be logged in and a member of the project
(anyone else gets 404, with no hint that the project exists); an annotator only ever sees their
own leases and judgements — never anyone else's answers, any aggregated label, or a gold answer
(except the feedback a project may enable right after a gold item is answered).
"""

from __future__ import annotations

import functools
from collections import Counter

import markdown
import nh3
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.items.counts import item_counts
from annotation.judging.assignment import (
    AssignmentError,
    ItemsBusy,
    claim_next_task,
    correct_judgement,
    items_left_for,
    last_judgement,
    live_assignment,
    mark_shown,
    membership,
    needs_qualification,
    seconds_since,
    skip_task,
    submit_judgement,
    work_refusal,
)
from annotation.judging.display.highlight import query_terms
from annotation.judging.display.reading import text_part
from annotation.judging.platforms import finished_session, session_check
from annotation.models import Assignment, Judgement, Membership, Project, Task
from annotation.permissions import AuthenticatedHttpRequest, is_researcher
from annotation.quality.qualification import (
    QualificationError,
    attempts_left,
    grade_qualification,
    qualification_tasks,
)
from annotation.task_types import AnswerError


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

    A long text is shown one part at a time (``annotation.judging.display.reading``): ``?part=N`` picks
    the part of
    the first text, ``?part_b=N`` of the second, and each text links to its neighbouring parts on
    the page that asked (``query``, its query string). Without ``query`` the first part is shown.
    """
    # Query terms are marked where relevance to the topic is what is judged.
    terms: set[str] = set()
    if task.topic and project.type.judged_for_topic:
        terms = query_terms(task.topic.title, task.topic.description)
    documents = [task.document] + ([task.document_b] if task.document_b else [])
    # A rating or a comparison judges a system's output: it comes first, named, and the source it
    # was made from (the topic: the input document, the dialogue) after it, for reference. On a
    # phone the source, often the longer text, used to push the output below the screen.
    outputs_first = project.is_rating or project.type.compares_two
    headings: tuple[str, ...] = ("Output A", "Output B")
    if not task.document_b_id:
        headings = ("The output to rate" if project.is_rating else "",)
    return {
        "task": task,
        "topic": task.topic if task.topic_id else None,
        "outputs_first": outputs_first,
        "documents": [
            {
                "heading": headings[index],
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


def project_progress(project: Project, annotator, judged: int | None = None) -> dict:
    """The numbers an annotator sees: items complete in the project, and their own count
    (``judged``, when the caller has just read it)."""
    total, complete = item_counts(project.pk)
    if judged is None:
        # Qualification answers are not judgements, so this counts every task the annotator judged.
        judged = Judgement.objects.filter(project=project, annotator=annotator).count()
    return {
        "items_total": total,
        "items_complete": complete,
        "percent": round(100 * complete / total) if total else 0,
        "judged_by_me": judged,
    }


@login_required
@require_GET
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The annotator's queue (projects with progress) and the researcher's projects."""
    memberships = (
        Membership.objects.filter(annotator=request.user, project__active=True)
        .exclude(status=Membership.Status.INACTIVE)  # an imported copy's members, until activated
        .select_related("project__owner")
        .order_by("project__name", "project__created_at")
    )
    rows = [
        {"project": m.project, "membership": m, **project_progress(m.project, request.user)}
        for m in memberships
    ]
    owned = list(Project.objects.filter(owner=request.user).order_by("name", "created_at"))
    return render(
        request,
        "annotation/home.html",
        {
            "annotating": rows,
            "owned": owned,
            "can_create": is_researcher(request.user),
            # Two projects of one name are told apart by their number (and owner, for annotators).
            "shared_names": names_shared([row["project"] for row in rows]) | names_shared(owned),
        },
    )


def names_shared(projects: list[Project]) -> set[str]:
    """The names more than one of these projects has."""
    counts = Counter(project.name for project in projects)
    return {name for name, n in counts.items() if n > 1}


# judge.js sends this header with the forms of the judging page: it wants the next task's page in
# the answer to its POST (one round trip per judgement). A browser without the script, or a client
# that does not send it, gets the redirect to the judging page instead.
INLINE_HEADER = "X-Judging"
INLINE_VALUE = "inline"
# Marks a response that is the judging page, so the script knows it may swap it in.
PAGE_HEADER = "X-Judging-Page"


def minutes_and_seconds(seconds: int | None) -> str:
    """``seconds`` as a clock shows them ("12:05"); empty for None."""
    return "" if seconds is None else f"{seconds // 60}:{seconds % 60:02d}"


def wants_page_inline(request: AuthenticatedHttpRequest) -> bool:
    return request.headers.get(INLINE_HEADER) == INLINE_VALUE


def judging_page(
    request: AuthenticatedHttpRequest,
    project: Project,
    *,
    member: Membership | None = None,
    assignment: Assignment | bool | None = True,
    previous: Judgement | bool | None = True,
) -> HttpResponse:
    """The judging page: the annotator's live lease (stamped as shown now), or why there is none.

    ``member``, ``assignment`` and ``previous`` may be passed when the caller has them already (a
    submission that just leased the next task, the judgement it just stored); ``True`` (or no
    ``member``) looks them up.
    """
    member = member or membership(project, request.user)
    if assignment is True:
        assignment = live_assignment(project, request.user)
    if isinstance(assignment, Assignment):
        mark_shown(assignment)
    else:
        assignment = None
        if member is not None and member.joined_via == Membership.JoinedVia.STUDY_LINK:
            # A crowd worker whose session is over goes to its code (judge.js follows the redirect).
            over = finished_session(member, lambda: items_left_for(project, request.user))
            if over is not None:
                return redirect("study-done", slug=over.link.slug)
    refusal = None if assignment else work_refusal(project, request.user, member)
    needs_test = (
        refusal is not None
        and member is not None
        and not member.blocked
        and member.qualified_at is None
        and needs_qualification(project)
    )
    if previous is True:
        previous = last_judgement(project, request.user)
    # A link worker's session, as their claim in this request read it (or read now): their count
    # of judgements, and the session's own progress and time left.
    session = None
    study_worker = member is not None and member.joined_via == Membership.JoinedVia.STUDY_LINK
    if member is not None and study_worker:
        session = member.study_session = member.study_session or session_check(member)
    context = {
        "project": project,
        "assignment": assignment,
        "refusal": refusal,
        # Without a task in hand: is there one to get, so that the button is worth offering?
        "left": items_left_for(project, request.user) if not (assignment or refusal) else None,
        "needs_qualification": needs_test,
        "study_worker": study_worker,
        "session": session,
        "session_time_left": minutes_and_seconds(getattr(session, "seconds_left", None)),
        "needs_consent": refusal is not None
        and member is not None
        and bool(project.consent_text)
        and member.consented_at is None,
        "needs_demographics": refusal is not None
        and member is not None
        and bool(project.demographics)
        and member.demographics_at is None,
        "previous": previous if project.active and previous else None,
        "one_key": project.one_key_answers and project.type.answered_by_keys,
        "instructions": render_markdown(project.instructions),
        "examples": render_markdown(project.examples),
        **project_progress(project, request.user, getattr(session, "judged_now", None)),
    }
    if assignment:
        # An answer just refused comes back as it was sent, to be mended rather than written again.
        refused = request.session.pop(refused_answer_key(assignment.pk), None)
        context.update(task_view(project, assignment.task, refused, query=request.GET))
        seconds = int(seconds_since(assignment.shown_at, timezone.now()) or 0)
        context.update(seconds_on_task=seconds, time_on_task=minutes_and_seconds(seconds))
    response = render(request, "annotation/judge.html", context)
    response[PAGE_HEADER] = "1"
    return response


@login_required
@require_GET
def judge(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Show the annotator's current task, or a button to get the next one.

    The one write a GET makes: the first time the page shows a task, it stamps when (time on task
    runs from there); nothing else changes, and a reload leaves the stamp as it was.
    Security behavior: project annotators only; shows only the annotator's own lease.
    """
    project = annotator_project(request, project_id)
    return judging_page(request, project)


def locked_membership_of(request: AuthenticatedHttpRequest, project_id: int) -> Membership:
    """The user's membership of the project, with the project, its row locked for the request's
    transaction; 404 when the user is not one of its annotators (no hint the project exists).

    The pages that lease and answer tasks take it first: one annotator's claims then run one at a
    time (as ``claim_next_task`` needs), nobody else waits on the row, and the lock order
    membership → lease → task is the one blocking an annotator follows too.
    """
    member = (
        Membership.objects.select_for_update(of=("self",))
        .select_related("project")
        .filter(project_id=project_id, annotator=request.user)
        .order_by("pk")
        .first()
    )
    if member is None:
        raise Http404("No such project")
    return member


def lease_next_task(
    request: AuthenticatedHttpRequest, member: Membership, *, lease_just_ended: bool = False
) -> Assignment | None:
    """Lease the next task (stamped as shown when this response will render it); the outcome for
    the annotator goes to ``messages``. ``member`` is locked (``locked_membership_of``)."""
    try:
        assignment = claim_next_task(
            member.project,
            request.user,
            shown=wants_page_inline(request),
            member=member,
            lease_just_ended=lease_just_ended,
        )
    except ItemsBusy as busy:
        messages.info(request, str(busy))
    except AssignmentError as error:
        messages.error(request, str(error))
    else:
        return assignment  # None: nothing left, which the judging page says itself, without a button
    return None


def refused_answer_key(assignment_id: int) -> str:
    return f"refused-answer-{assignment_id}"


def keep_refused_answer(request: AuthenticatedHttpRequest, project: Project, assignment_id: int) -> None:
    """Keep what a refused submission said (as far as the form can be read) for the page that shows
    the task again: a writer's content units or text are not lost to one missing tick."""
    try:
        answer = project.type.answer_from_form(project.config, request.POST)
    except AnswerError:
        return
    request.session[refused_answer_key(assignment_id)] = answer


def next_page(
    request: AuthenticatedHttpRequest,
    member: Membership,
    assignment: Assignment | bool | None = True,
    previous: Judgement | bool | None = True,
) -> HttpResponse:
    """After a POST: the judging page itself when the script asked for it, else a redirect to it."""
    if wants_page_inline(request):
        # A lease the claim found already held comes without its task and texts; the page loads them.
        if isinstance(assignment, Assignment) and not Assignment.task.is_cached(assignment):
            assignment = True
        return judging_page(request, member.project, member=member, assignment=assignment, previous=previous)
    return redirect("judge", project_id=member.project_id)


@login_required
@require_POST
def claim(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Lease the next task to the annotator (POST only: a lease is a state change).

    Security behavior: project annotators only; the engine refuses a blocked or unqualified one.
    """
    member = locked_membership_of(request, project_id)
    # None when the claim found nothing or was refused: then no lease is held either.
    return next_page(request, member, lease_next_task(request, member))


@login_required
@require_POST
def submit(request: AuthenticatedHttpRequest, project_id: int, assignment_id: int) -> HttpResponse:
    """Store the judgement (committed before the response), lease the next task and answer with
    it: the judging page itself for judge.js, a redirect to it for a browser without the script.

    Security behavior: project annotators only; accepted only against the annotator's own live
    lease in this project, checked at submit time under a lock on it; a second submission of the
    same lease is refused (one judgement per annotator and task is also a database constraint);
    CSRF-checked as every POST. Gold items answer exactly as other items do, but for the feedback
    a project enables.
    """
    member = locked_membership_of(request, project_id)
    project = member.project
    try:
        answer = project.type.parse_form(project.config, request.POST)
        submission = submit_judgement(assignment_id, request.user, answer, member=member)
    except (AnswerError, AssignmentError) as error:
        messages.error(request, str(error))
        keep_refused_answer(request, project, assignment_id)
        return next_page(request, member)
    if submission.gold_feedback:
        messages.info(request, submission.gold_feedback)
    else:
        messages.success(request, "Saved.")
    assignment = lease_next_task(request, member, lease_just_ended=True)
    return next_page(request, member, assignment, submission.judgement)


@login_required
@require_POST
def skip(request: AuthenticatedHttpRequest, project_id: int, assignment_id: int) -> HttpResponse:
    """Give the task back (it goes to someone else, never again to this annotator) and lease the next.

    Security behavior: project annotators only, and only their own live lease in this project.
    """
    member = locked_membership_of(request, project_id)
    try:
        skip_task(assignment_id, request.user, member=member)
    except AssignmentError as error:
        messages.error(request, str(error))
        return next_page(request, member)
    messages.info(request, "Skipped.")
    assignment = lease_next_task(request, member, lease_just_ended=True)
    return next_page(request, member, assignment)


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
    if member is not None and project.consent_text and member.consented_at is None:
        return redirect("consent", project_id=project.pk)  # nothing is asked before consent
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
            if member is not None and member.joined_via == Membership.JoinedVia.STUDY_LINK:
                return redirect("judge", project_id=project.pk)  # which sends a screened-out worker on
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
