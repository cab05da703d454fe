"""Pages and API of the changes that undo mistakes on the collecting side (``annotation.projects.removal``):
topics and documents deleted while unjudged, the project archived and unarchived, a lease released by
hand; and the project's history (``annotation.projects.history``).

Each change has a confirmation page — GET shows exactly what will go (names and counts) or why it
cannot be done, POST does it — and an API endpoint whose ``"dry_run": true`` answers the same plan
and stores nothing. A refused change is a 409 (a judged topic, a lease already ended) or a 400 (a
malformed request), naming the field, and changes nothing.

Security behavior, for every view here: the project's owner only (``owned_project``: anyone else,
researcher or not, gets 404 with no hint that the project exists; the API also refuses anyone who is
not a researcher, 403); state changes only on POST, after the ownership check.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Assignment, ProjectEvent
from annotation.permissions import AuthenticatedHttpRequest, IsResearcher, owned_project
from annotation.projects.history import Change, Refused, events_of
from annotation.projects.removal import (
    delete_documents,
    delete_topics,
    live_leases,
    plan_archive,
    plan_document_deletion,
    plan_lease_release,
    plan_topic_deletion,
    plan_unarchive,
    release_by_hand,
    requested_ids,
    set_archived,
)
from annotation.serializers import StrictSerializer

# Rows of the topics and documents pages (the API pages its lists too).
ROWS_PER_PAGE = 100


def confirmation(
    request, project, change: Change, *, title: str, button: str, back: str, hidden=None, choices=None
):
    """The confirmation page of a change: what will go, or why it cannot (no button then; the page
    answers 200 either way, as it says what to do, while a refused POST changes nothing and says why)."""
    return render(
        request,
        "annotation/confirm.html",
        {
            "project": project,
            "change": change,
            "title": title,
            "button": button,
            "back": back,
            "hidden": hidden or [],
            "choices": choices,
        },
    )


def done_or_refused(request, work, success_url: str, failure_url: str) -> HttpResponse:
    """Do a confirmed change: its summary as a message on ``success_url``, or why not on ``failure_url``."""
    try:
        change, _event = work()
    except Refused as refused:
        messages.error(request, f"Nothing was changed: {refused.message}")
        return redirect(failure_url)
    messages.success(request, f"Done. {change.summary}")
    return redirect(success_url)


# -- topics and documents: pages -------------------------------------------------------------------


def _collection_rows(queryset, kind: str):
    """Topics or documents with how many tasks name them and how many judgements those have."""
    if kind == "topic":
        return queryset.annotate(
            items=Count("tasks", distinct=True), judgements=Count("tasks__judgements", distinct=True)
        )
    return queryset.annotate(
        items=Count("tasks", distinct=True) + Count("tasks_as_second", distinct=True),
        judgements=Count("tasks__judgements", distinct=True)
        + Count("tasks_as_second__judgements", distinct=True),
    )


def _collection_page(request, project_id: int, kind: str) -> HttpResponse:
    project = owned_project(request.user, project_id)
    rows = project.topics.all() if kind == "topic" else project.documents.all()
    query = request.GET.get("q", "").strip()
    if query:
        words = Q(external_id=query) | Q(title__icontains=query)
        rows = rows.filter(words if kind == "topic" else words | Q(text__icontains=query))
    page = Paginator(_collection_rows(rows.order_by("id"), kind), ROWS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "annotation/collection.html",
        {"project": project, "kind": kind, "page": page, "query": query, "rows_per_page": ROWS_PER_PAGE},
    )


@login_required
@require_GET
def topics_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The project's topics with their items and judgements; the unjudged can be chosen for deletion."""
    return _collection_page(request, project_id, "topic")


@login_required
@require_GET
def documents_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The project's documents (searched, 100 a page); the unjudged can be chosen for deletion."""
    return _collection_page(request, project_id, "document")


def _deletion_page(request, project_id: int, kind: str) -> HttpResponse:
    project = owned_project(request.user, project_id)
    source = request.POST if request.method == "POST" else request.GET
    back = reverse("topics-page" if kind == "topic" else "documents-page", args=[project.pk])
    plan, delete = (
        (plan_topic_deletion, delete_topics)
        if kind == "topic"
        else (plan_document_deletion, delete_documents)
    )
    try:
        ids = requested_ids(source.getlist("ids"), kind)
    except Refused:
        action = (
            ProjectEvent.Action.TOPICS_DELETED if kind == "topic" else ProjectEvent.Action.DOCUMENTS_DELETED
        )
        nothing = f"no {kind} was chosen: tick the {kind}s to delete on the {kind}s page first."
        if request.method == "POST":
            messages.error(request, f"Nothing was changed: {nothing}")
            return redirect(back)
        change = Change(action, nothing, refusal=nothing)
        return confirmation(request, project, change, title=f"Delete {kind}s", button="", back=back)
    if request.method == "POST":
        return done_or_refused(request, lambda: delete(project, request.user, ids), back, back)
    return confirmation(
        request,
        project,
        plan(project, ids),
        title=f"Delete {kind}s",
        button=f"Delete {'it' if len(ids) == 1 else 'them'}",
        back=back,
        hidden=[("ids", i) for i in ids],
    )


@login_required
@require_http_methods(["GET", "POST"])
def topics_delete(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Confirm (GET ``?ids=…``) and delete (POST) unjudged topics with what is to be judged for them."""
    return _deletion_page(request, project_id, "topic")


@login_required
@require_http_methods(["GET", "POST"])
def documents_delete(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Confirm (GET ``?ids=…``) and delete (POST) unjudged documents with the items that show them."""
    return _deletion_page(request, project_id, "document")


# -- archiving and leases: pages -------------------------------------------------------------------


def _archive_page(request, project_id: int, archived: bool) -> HttpResponse:
    project = owned_project(request.user, project_id)
    back = reverse("project-page", args=[project.pk])
    if request.method == "POST":
        return done_or_refused(request, lambda: set_archived(project, request.user, archived), back, back)
    change = plan_archive(project) if archived else plan_unarchive(project)
    verb = "Archive" if archived else "Unarchive"
    return confirmation(request, project, change, title=f"{verb} the project", button=verb, back=back)


@login_required
@require_http_methods(["GET", "POST"])
def project_archive(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Confirm (GET) and archive (POST): the project stops serving tasks; nothing is deleted."""
    return _archive_page(request, project_id, archived=True)


@login_required
@require_http_methods(["GET", "POST"])
def project_unarchive(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Confirm (GET) and unarchive (POST): the project serves tasks again."""
    return _archive_page(request, project_id, archived=False)


@login_required
@require_http_methods(["GET", "POST"])
def lease_release(request: AuthenticatedHttpRequest, project_id: int, assignment_id: int) -> HttpResponse:
    """Confirm (GET) and release (POST) an annotator's lease by hand: the item goes back to the pool."""
    project = owned_project(request.user, project_id)
    lease = get_object_or_404(
        Assignment.objects.select_related("annotator", "task__topic", "task__document", "task__document_b"),
        pk=assignment_id,
        task__project=project,
    )
    back = reverse("project-page", args=[project.pk]) + "#leases-heading"
    if request.method == "POST":
        return done_or_refused(request, lambda: release_by_hand(project, request.user, lease), back, back)
    change = plan_lease_release(project, lease)
    return confirmation(request, project, change, title="Release a lease", button="Release it", back=back)


@login_required
@require_GET
def events_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The project's history: who withdrew, deleted, archived or released what, and when."""
    project = owned_project(request.user, project_id)
    page = Paginator(events_of(project), ROWS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "annotation/events.html", {"project": project, "page": page})


# -- API -------------------------------------------------------------------------------------------


class DryRunSerializer(StrictSerializer):
    dry_run = serializers.BooleanField(
        default=False, help_text="true: answer what would change, and change nothing"
    )


class DeletionSerializer(DryRunSerializer):
    ids = serializers.ListField(
        child=serializers.CharField(max_length=200),
        min_length=1,
        max_length=100_000,
        help_text="the topics' (or documents') ids, as imported",
    )


class ChangeSerializer(serializers.Serializer):
    """What a change did, or would do (``done`` false: a dry run)."""

    action = serializers.ChoiceField(choices=ProjectEvent.Action.choices)
    done = serializers.BooleanField()
    summary = serializers.CharField()
    lines = serializers.ListField(child=serializers.CharField())
    details = serializers.DictField(help_text="the names and counts of what changes")
    event = serializers.IntegerField(allow_null=True, help_text="the entry in the project's history")


CHANGE_RESPONSES = {
    200: ChangeSerializer,
    409: OpenApiResponse(description="the project's state forbids it (e.g. a judged topic): nothing changed"),
}


def change_response(work, plan_only: bool, plan) -> Response:
    """Answer a change: its plan for a dry run, else do it; a refusal is 409 or 400 naming its field."""
    try:
        if plan_only:
            change = plan()
            change.refuse_if_refused()
            return Response(change.as_answer(done=False))
        change, event = work()
    except Refused as refused:
        return Response({refused.field: [refused.message]}, status=refused.status)
    return Response(change.as_answer(done=True, event=event))


class CollectionDeletionView(APIView):
    permission_classes = [IsResearcher]
    kind = "topic"

    @extend_schema(request=DeletionSerializer, responses=CHANGE_RESPONSES)
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = DeletionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        ids = list(dict.fromkeys(body.validated_data["ids"]))
        plan, delete = (
            (plan_topic_deletion, delete_topics)
            if self.kind == "topic"
            else (plan_document_deletion, delete_documents)
        )
        return change_response(
            lambda: delete(project, request.user, ids),
            body.validated_data["dry_run"],
            lambda: plan(project, ids),
        )


class TopicDeletionView(CollectionDeletionView):
    """Delete topics nobody has judged, with everything to judge for them (items, gold and qualification
    questions); the runs' lines for them stay. A judged topic is refused (409, naming each and its
    judgements) and nothing is deleted. ``dry_run``: what would go."""

    kind = "topic"


class DocumentDeletionView(CollectionDeletionView):
    """Delete documents nobody has judged, with the items that show them; the runs' lines naming them
    stay (counted as unjudged). A judged document is refused (409) and nothing is deleted."""

    kind = "document"


class ArchiveView(APIView):
    """Archive the project: it stops serving tasks, leaves its annotators' home pages, and its live
    leases end; nothing is deleted (``DELETE /api/projects/{id}/`` does the same). ``dry_run``: what
    would change."""

    permission_classes = [IsResearcher]
    archived = True

    @extend_schema(request=DryRunSerializer, responses=CHANGE_RESPONSES)
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = DryRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        plan = plan_archive if self.archived else plan_unarchive
        return change_response(
            lambda: set_archived(project, request.user, self.archived),
            body.validated_data["dry_run"],
            lambda: plan(project),
        )


class UnarchiveView(ArchiveView):
    """Unarchive the project: it serves tasks again to its annotators. ``dry_run``: what would change."""

    archived = False


class LeaseSerializer(serializers.ModelSerializer):
    annotator = serializers.CharField(source="annotator.username")
    item = serializers.IntegerField(source="task_id")
    title = serializers.CharField(source="task.title")

    class Meta:
        model = Assignment
        fields = ["id", "annotator", "item", "title", "created_at", "expires_at", "shown_at"]


class LeaseList(generics.ListAPIView):
    """The leases held now in the project (unexpired, unsubmitted), oldest first: who holds which item."""

    serializer_class = LeaseSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Assignment.objects.none()
        return live_leases(owned_project(self.request.user, self.kwargs["project_pk"]))


class LeaseReleaseView(APIView):
    """Release a lease by hand (an annotator who left mid-task): the item goes back to the pool for
    someone else, and its holder will not get it again. A lease that ended already is a 409."""

    permission_classes = [IsResearcher]

    @extend_schema(request=DryRunSerializer, responses=CHANGE_RESPONSES)
    def post(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        lease = get_object_or_404(
            Assignment.objects.select_related(
                "annotator", "task__topic", "task__document", "task__document_b"
            ),
            pk=pk,
            task__project=project,
        )
        body = DryRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return change_response(
            lambda: release_by_hand(project, request.user, lease),
            body.validated_data["dry_run"],
            lambda: plan_lease_release(project, lease),
        )


class EventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.username", allow_null=True, default=None)

    class Meta:
        model = ProjectEvent
        fields = ["id", "action", "actor", "summary", "details", "created_at"]


class EventList(generics.ListAPIView):
    """The project's history, newest first: who withdrew or deleted a run, deleted topics or documents,
    archived or unarchived the project, released a lease, and when, in the words of the confirmation."""

    serializer_class = EventSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ProjectEvent.objects.none()
        return events_of(owned_project(self.request.user, self.kwargs["project_pk"]))
