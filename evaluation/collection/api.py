"""The collection over the API, read as pages and filtered: topics, documents, the pool (items) and
judgements; and judgements made elsewhere imported into a project's items.

Every list is paginated (``?page=``, ``?page_size=`` up to 1,000; 100 by default) and filtered with
django-filter (``?topic=401&completed=true``); an unknown filter value is a 400 naming it.

Security behavior: researchers only (``IsResearcher``), and only for projects they own
(``owned_project``: anyone else's is a 404).
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import Count, Q
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import (
    Document,
    Judgement,
    Project,
    Task,
    Topic,
)
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from evaluation.collection.flow import ImportFailed, flatten_errors
from evaluation.collection.judgement_import import (
    JudgementImportSerializer,
    JudgementImportSummarySerializer,
    import_judgements,
)


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
