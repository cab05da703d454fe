"""The collection over the API, read as pages and filtered: topics, documents, the pool (items) and
judgements; and judgements made elsewhere imported into a project's items.

Every list is paginated (``?page=``, ``?page_size=`` up to 1,000; 100 by default) and filtered with
django-filter (``?topic=401&completed=true``); an unknown filter value is a 400 naming it.

Security behavior: researchers only (``IsResearcher``), and only for projects they own
(``owned_project``: anyone else's is a 404).
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import django_filters
from django import forms
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.adjudication.rules import close_or_refer
from annotation.models import (
    Assignment,
    Document,
    Judgement,
    JudgementRevision,
    Membership,
    Project,
    Task,
    Topic,
)
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.serializers import IdentifierField, StrictSerializer
from annotation.signals import announce_judgements_changed
from annotation.task_types import AnswerError
from evaluation.collection.flow import ImportFailed, flatten_errors


class Pages(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


class ProjectList(generics.ListAPIView):
    """A paginated, filtered list of one project's rows (the project owned by the requester)."""

    permission_classes = [IsResearcher]
    pagination_class = Pages
    model: Any = None

    def project(self) -> Project:
        return owned_project(self.request.user, self.kwargs["project_pk"])

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reading the types
            return self.model.objects.none()
        return self.rows(self.project())

    def rows(self, project: Project):
        raise NotImplementedError


class TopicFilter(django_filters.FilterSet):
    id = django_filters.CharFilter(field_name="external_id", help_text="the topic id, exactly")
    q = django_filters.CharFilter(field_name="title", lookup_expr="icontains", help_text="words in the title")

    class Meta:
        model = Topic
        fields: list[str] = []


class TopicSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="external_id")

    class Meta:
        model = Topic
        fields = ["id", "title", "description"]


class TopicList(ProjectList):
    """The project's topics in import order."""

    model = Topic
    serializer_class = TopicSerializer
    filterset_class = TopicFilter

    def rows(self, project: Project):
        return project.topics.order_by("id")


class DocumentFilter(django_filters.FilterSet):
    id = django_filters.CharFilter(field_name="external_id", help_text="the docno, exactly")
    q = django_filters.CharFilter(method="words", help_text="words in the title or text")

    class Meta:
        model = Document
        fields: list[str] = []

    def words(self, queryset, name, value):
        return queryset.filter(Q(title__icontains=value) | Q(text__icontains=value))


class DocumentSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="external_id")

    class Meta:
        model = Document
        fields = ["id", "title", "text"]


class DocumentList(ProjectList):
    """The project's documents in import order, with their texts as imported (sanitised on pages)."""

    model = Document
    serializer_class = DocumentSerializer
    filterset_class = DocumentFilter

    def rows(self, project: Project):
        return project.documents.order_by("id")


class PoolFilter(django_filters.FilterSet):
    topic = django_filters.CharFilter(field_name="topic__external_id")
    document = django_filters.CharFilter(field_name="document__external_id")
    system = django_filters.CharFilter(field_name="system_id")
    input = django_filters.CharFilter(field_name="input_id")
    completed = django_filters.TypedChoiceFilter(
        choices=[("true", "true"), ("false", "false")], coerce=lambda value: value == "true"
    )

    class Meta:
        model = Task
        fields: list[str] = []


class PoolItemSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.external_id", allow_null=True, default=None)
    document = serializers.CharField(source="document.external_id")
    document_b = serializers.CharField(source="document_b.external_id", allow_null=True, default=None)
    judgements = serializers.IntegerField(source="judgement_count", read_only=True)

    class Meta:
        model = Task
        fields = [
            "id",
            "topic",
            "document",
            "document_b",
            "pool_rank",
            "system_id",
            "system_b_id",
            "input_id",
            "required_judgements",
            "judgements",
            "completed",
        ]


class PoolList(ProjectList):
    """The items to judge (the pool, and explicit items) in judging order, with how many judgements
    each has. Quality-control items (gold, qualification, attention checks) are not listed."""

    model = Task
    serializer_class = PoolItemSerializer
    filterset_class = PoolFilter

    def rows(self, project: Project):
        return (
            project.tasks.filter(kind=Task.Kind.ITEM)
            .select_related("topic", "document", "document_b")
            .annotate(judgement_count=Count("judgements"))
            .order_by("pool_rank", "id")
        )


class IntegerFilter(django_filters.NumberFilter):
    """A whole number within the column's range: 1.9 or 2**70 is a 400 naming the parameter, not a
    database error."""

    field_class = forms.IntegerField


class JudgementFilter(django_filters.FilterSet):
    topic = django_filters.CharFilter(field_name="task__topic__external_id")
    document = django_filters.CharFilter(field_name="task__document__external_id")
    task = IntegerFilter(field_name="task_id", min_value=1, max_value=2**63 - 1)
    annotator = django_filters.CharFilter(field_name="annotator__username")
    label = IntegerFilter(min_value=-32768, max_value=32767)
    since = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")

    class Meta:
        model = Judgement
        fields: list[str] = []


class JudgementSerializer(serializers.ModelSerializer):
    kind = serializers.CharField(source="task.kind")
    topic = serializers.CharField(source="task.topic.external_id", allow_null=True, default=None)
    document = serializers.CharField(source="task.document.external_id")
    annotator = serializers.CharField(source="annotator.username")

    class Meta:
        model = Judgement
        fields = [
            "id",
            "task",
            "kind",
            "topic",
            "document",
            "annotator",
            "label",
            "answer",
            "revision",
            "seconds_spent",
            "created_at",
            "updated_at",
        ]


class JudgementList(ProjectList):
    """Every judgement (its current version) in submission order; the downloads
    (``/api/projects/{id}/judgements/?as=csv``) stream them all, with every version on request."""

    model = Judgement
    serializer_class = JudgementSerializer
    filterset_class = JudgementFilter

    def rows(self, project: Project):
        return (
            Judgement.objects.filter(project=project)
            .select_related("task", "task__topic", "task__document", "annotator")
            .order_by("id")
        )


class JudgementInSerializer(StrictSerializer):
    task = serializers.IntegerField(
        required=False, min_value=1, max_value=2**63 - 1, help_text="an item's id"
    )
    topic = IdentifierField(max_length=100, required=False, allow_null=True, default=None)
    document = IdentifierField(max_length=200, required=False)
    document_b = IdentifierField(max_length=200, required=False, allow_null=True, default=None)
    annotator = serializers.CharField(max_length=150)
    label = serializers.IntegerField(  # type: ignore[assignment]  # (the stubs' Field.label is its title)
        required=False, allow_null=True, min_value=-32768, max_value=32767
    )
    answer = serializers.JSONField(required=False)
    seconds_spent = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1e9)

    def validate(self, attrs):
        if "task" not in attrs and "document" not in attrs:
            raise serializers.ValidationError(
                {"document": ["give the item's document (and topic) or its task id"]}
            )
        if "label" not in attrs and "answer" not in attrs:
            raise serializers.ValidationError({"label": ["give a label or an answer"]})
        return attrs


class JudgementImportSerializer(StrictSerializer):
    judgements = JudgementInSerializer(many=True, allow_empty=False, max_length=1_000_000)  # type: ignore[call-arg]
    create_annotators = serializers.BooleanField(
        default=False,
        help_text="create an account (inactive, no usable password) for each unknown username",
    )


class JudgementImportSummarySerializer(serializers.Serializer):
    judgements_created = serializers.IntegerField()
    items = serializers.IntegerField(help_text="items that received judgements")
    annotators = serializers.IntegerField()


class JudgementImportView(APIView):
    """Import judgements made elsewhere (an earlier campaign, another tool) into the project's items.

    Each names its item by ``topic`` and ``document`` (or ``task``, an item's id), its annotator by
    username, and its ``label`` (or the task type's ``answer``), validated as a submission is.
    Unknown usernames are refused unless ``create_annotators``. All or nothing: any problem is a 400
    naming the line (``judgements[12].label``) and nothing is stored — also a second judgement of an
    item by one annotator, or more judgements on an item than its k. The imported annotators become
    project members; a new ground truth is then requested as after any submission.
    """

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(request=JudgementImportSerializer, responses={201: JudgementImportSummarySerializer})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        serializer = JudgementImportSerializer(data=request.data)
        if not serializer.is_valid():
            return Response(ImportFailed(list(flatten_errors(serializer.errors))).as_dict(), status=400)
        try:
            created = import_judgements(project, **serializer.validated_data)
        except ImportFailed as failure:
            return Response(failure.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        return Response(created, status=status.HTTP_201_CREATED)


def import_judgements(project: Project, judgements: list[dict], create_annotators: bool) -> dict:
    """Store the judgements (validated rows) all or nothing; raise ImportFailed naming the line."""
    items = ItemFinder(project)
    users = annotators_for(project, {row["annotator"] for row in judgements}, create_annotators)
    pending: list[tuple[Task, Any, dict, float | None]] = []
    seen: set[tuple[int, str]] = set()
    for index, row in enumerate(judgements):
        where = f"judgements[{index}]"
        task = items.find(where, row)
        user = users.get(row["annotator"])
        if user is None:
            raise ImportFailed(
                [
                    (
                        f"{where}.annotator",
                        f"no account named {row['annotator']!r}: create it "
                        "first, or send create_annotators: true",
                    )
                ]
            )
        if (task.pk, row["annotator"]) in seen or items.judged(task, user):
            raise ImportFailed([(where, f"{row['annotator']!r} already judged this item")])
        seen.add((task.pk, row["annotator"]))
        try:
            answer = project.type.validate_answer(
                project.config, row.get("answer", {"label": row.get("label")})
            )
        except AnswerError as error:
            raise ImportFailed(
                [(f"{where}.{'answer' if 'answer' in row else 'label'}", str(error))]
            ) from error
        pending.append((task, user, answer, row.get("seconds_spent")))
    per_task: Counter[int] = Counter()
    for index, (task, *_) in enumerate(pending):  # the first line that goes past k is named
        per_task[task.pk] += 1
        if task.slots_taken + per_task[task.pk] > task.required_judgements:
            raise ImportFailed(
                [
                    (
                        f"judgements[{index}]",
                        f"the item would have more than its {task.required_judgements} judgements (k)",
                    )
                ]
            )
    with transaction.atomic():
        store(project, pending, users, create_annotators)
        for task in {task.pk: task for task, *_ in pending}.values():
            Task.objects.filter(pk=task.pk).update(slots_taken=task.slots_taken + per_task[task.pk])
        # Complete the items that have their k judgements, or refer them by the adjudication rule.
        close_or_refer(project, list(per_task))
        announce_judgements_changed(project.pk)
    return {"judgements_created": len(pending), "items": len(per_task), "annotators": len(users)}


def store(project: Project, pending: list, users: dict, create_annotators: bool) -> None:
    if create_annotators:
        for user in users.values():
            if user.pk is None:
                user.set_unusable_password()
                user.save()
    members = set(project.memberships.values_list("annotator_id", flat=True))
    Membership.objects.bulk_create(
        [
            Membership(project=project, annotator=u)
            for u in {u.pk: u for _, u, _, _ in pending}.values()
            if u.pk not in members
        ]
    )
    expired = timezone.now() - timedelta(seconds=1)
    assignments = Assignment.objects.bulk_create(
        [
            Assignment(task=t, annotator=u, status=Assignment.Status.SUBMITTED, expires_at=expired)
            for t, u, _, _ in pending
        ]
    )
    judgements = Judgement.objects.bulk_create(
        [
            Judgement(
                project=project,
                task=t,
                annotator=u,
                assignment=a,
                label=answer.get("label"),
                answer=answer,
                seconds_spent=seconds,
                # Judged elsewhere: the time given is the time the annotator took.
                seconds_on_task=seconds,
            )
            for (t, u, answer, seconds), a in zip(pending, assignments, strict=True)
        ]
    )
    JudgementRevision.objects.bulk_create(
        [JudgementRevision(judgement=j, number=1, label=j.label, answer=j.answer) for j in judgements]
    )


def annotators_for(project: Project, usernames: set[str], create: bool) -> dict[str, Any]:
    model = get_user_model()
    users = {u.get_username(): u for u in model.objects.filter(username__in=usernames)}
    if create:
        for name in usernames - set(users):
            users[name] = model(username=name, is_active=False)  # saved with the judgements
    return users


class ItemFinder:
    """The project's items by id or by (topic, document, document_b), and who has judged each."""

    def __init__(self, project: Project) -> None:
        self.items = {
            t.pk: t
            for t in project.tasks.filter(kind=Task.Kind.ITEM).select_related(
                "topic", "document", "document_b"
            )
        }
        self.by_ids: dict[tuple, list[Task]] = {}
        for task in self.items.values():
            key = (
                task.topic.external_id if task.topic else None,
                task.document.external_id,
                task.document_b.external_id if task.document_b else None,
            )
            self.by_ids.setdefault(key, []).append(task)
        self.done = set(Judgement.objects.filter(project=project).values_list("task_id", "annotator_id"))

    def find(self, where: str, row: dict) -> Task:
        if "task" in row:
            task = self.items.get(row["task"])
            if task is None:
                raise ImportFailed([(f"{where}.task", f"no item {row['task']} in this project")])
            return task
        found = self.by_ids.get((row.get("topic"), row["document"], row.get("document_b")), [])
        if len(found) != 1:
            what = "several items" if found else "no item"
            raise ImportFailed(
                [
                    (
                        f"{where}.document",
                        f"{what} with topic {row.get('topic')!r} and document "
                        f"{row['document']!r}" + ("; give the task id" if found else ""),
                    )
                ]
            )
        return found[0]

    def judged(self, task: Task, user) -> bool:
        return user.pk is not None and (task.pk, user.pk) in self.done
