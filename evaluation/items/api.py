"""The item browser over the API: a project's items filtered as on the page, one item with every
judgement and its history, and adjudication by hand.

- ``GET /api/projects/{id}/items/``: items and gold items in judging order, paginated, with the
  page's filters (``q``, ``topic``, ``status``, ``disagreement``, ``gold``, ``annotator``,
  ``adjudicated``) and each item's ground truth in the newest snapshot;
- ``GET …/items/{item}/``: the item, its judgements (each with every revision), its disagreement,
  its gold answer if gold, where the adjudication rule sent it, the decisions by hand, its ground
  truth;
- ``GET …/items/{item}/adjudication/``: the decisions on the item, newest first (the newest is in
  force); ``POST`` with ``{"label": 1, "note": "…"}`` settles it (``"label": null`` withdraws the
  decision in force): 201, and a new snapshot follows through the debounced job.

The adjudication *rule* is a project setting: ``PATCH /api/projects/{id}/`` with
``adjudication_rule``, ``adjudication_threshold`` and ``adjudicated_by``.

Security behavior: researchers only (``IsResearcher``), and only for projects they own
(``owned_project``: anyone else's is a 404 with no hint that it exists). Annotators reach none of it.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.adjudication.rules import AdjudicationError, settle
from annotation.items.browser import (
    BROWSED_KINDS,
    ItemFilter,
    browsable_items,
    browsable_tasks,
    extra_assessor,
    facts,
    judgements_with_history,
    page_rows,
)
from annotation.models import Adjudication, Project, Task
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.serializers import StrictSerializer
from annotation.task_types import LABEL_RANGE
from evaluation.collection.api import ProjectList
from evaluation.items.browser import ground_truth_of, newest_snapshot


class GroundTruthSerializer(serializers.Serializer):
    """An item's ground truth in the newest snapshot."""

    version = serializers.IntegerField()
    label = serializers.IntegerField(allow_null=True)  # type: ignore[assignment]
    label_name = serializers.CharField(allow_null=True)
    confidence = serializers.FloatField()
    judgement_count = serializers.IntegerField()
    adjudicated_by = serializers.ChoiceField(
        choices=["extra_assessor", "researcher"], allow_null=True, help_text="how the item was adjudicated"
    )
    aggregate_label = serializers.IntegerField(
        allow_null=True, help_text="the annotators' aggregate, when a researcher's label replaced it"
    )
    aggregate_label_name = serializers.CharField(allow_null=True)
    adjudication = serializers.DictField(
        allow_null=True, help_text="who, when and why: researcher, at, note; or assessor, at, referred_at"
    )
    details = serializers.DictField(allow_null=True, help_text="ratings: per dimension mean, median …")
    summary = serializers.CharField()
    tie = serializers.CharField(
        allow_null=True,
        help_text="its vote tied: how the tie was settled (lower, higher, gold_weighted, extra_annotator, "
        "researcher) or that it waits (waiting_extra_annotator, waiting_researcher: the lower label "
        "meanwhile)",
    )
    tie_in_words = serializers.CharField(allow_null=True)


class DecisionSerializer(serializers.ModelSerializer):
    researcher = serializers.CharField(source="researcher.username")

    class Meta:
        model = Adjudication
        fields = ["id", "label", "note", "researcher", "created_at"]


class ItemSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.external_id", allow_null=True, default=None)
    document = serializers.CharField(source="document.external_id")
    document_b = serializers.CharField(source="document_b.external_id", allow_null=True, default=None)
    judgements = serializers.IntegerField(source="judged", read_only=True)
    disagreement = serializers.BooleanField(
        source="disagreeing", read_only=True, help_text="the annotators disagree"
    )
    referred_to = serializers.CharField(
        read_only=True,
        help_text="where the adjudication or tie rule sent it: extra_assessor, researcher or ''",
    )
    referral_reason = serializers.CharField(
        read_only=True, help_text="why it was referred: disputed (the adjudication rule), tie, or ''"
    )
    decided_label = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="the label of the researcher's decision in force"
    )
    ground_truth = serializers.SerializerMethodField()

    class Meta:
        model = Task
        fields = [
            "id",
            "kind",
            "topic",
            "document",
            "document_b",
            "pool_rank",
            "system_id",
            "input_id",
            "required_judgements",
            "judgements",
            "completed",
            "disagreement",
            "referred_to",
            "referral_reason",
            "referred_at",
            "decided_label",
            "ground_truth",
        ]

    @extend_schema_field(GroundTruthSerializer(allow_null=True))
    def get_ground_truth(self, task: Task) -> dict[str, Any] | None:
        return self.context.get("ground_truth", {}).get(task.pk)


class ItemFilterBackend(DjangoFilterBackend):
    """The item filters with the project they filter (the disagreement filter reads its settings)."""

    def get_filterset_kwargs(self, request: Request, queryset: Any, view: Any) -> dict[str, Any]:
        return {
            **super().get_filterset_kwargs(request, queryset, view),
            "project": getattr(view, "owned", None),
        }


class ItemList(ProjectList):
    """The project's items and gold items in judging order, filtered as on the item browser page,
    each with its ground truth in the newest snapshot (null before the first snapshot)."""

    model = Task
    serializer_class = ItemSerializer
    filterset_class = ItemFilter

    filter_backends = [ItemFilterBackend]

    def rows(self, project: Project):
        self.owned = project
        return browsable_tasks(project)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        queryset = self.filter_queryset(self.get_queryset())
        page = page_rows(self.owned, list(self.paginate_queryset(queryset) or []))
        context = {
            **self.get_serializer_context(),
            "ground_truth": ground_truth_of(
                self.owned, newest_snapshot(self.owned), [task.pk for task in page]
            ),
        }
        return self.get_paginated_response(ItemSerializer(page, many=True, context=context).data)


class JudgementRevisionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    label = serializers.IntegerField(allow_null=True)  # type: ignore[assignment]
    answer = serializers.DictField()
    created_at = serializers.DateTimeField()


class ItemJudgementSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    annotator = serializers.CharField(source="annotator.username")
    label = serializers.IntegerField(allow_null=True)  # type: ignore[assignment]
    answer = serializers.DictField()
    revision = serializers.IntegerField()
    seconds_spent = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    extra_assessor = serializers.SerializerMethodField(
        help_text="given after the item was referred to one more assessor"
    )
    revisions = JudgementRevisionSerializer(
        many=True, source="revisions.all", help_text="every version, oldest first"
    )

    def get_extra_assessor(self, judgement) -> bool:
        return judgement.pk == self.context.get("extra_assessor")


class TallySerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]
    count = serializers.IntegerField()


class ItemDetailSerializer(serializers.Serializer):
    item = ItemSerializer(help_text="as in the list: ids, status, disagreement, ground truth")
    gold_answer = serializers.DictField(allow_null=True, help_text="gold items: the expected answer")
    gold_explanation = serializers.CharField(allow_blank=True)
    tally = TallySerializer(many=True, help_text="label projects: each label given, with how many gave it")
    majority_share = serializers.FloatField(
        allow_null=True, help_text="label projects: the top label's share"
    )
    disputed = serializers.BooleanField(help_text="disputed under the project's adjudication rule")
    spread = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="ratings: per dimension, the highest score minus the lowest",
    )
    judgements = ItemJudgementSerializer(many=True, help_text="every judgement, oldest first")
    decisions = DecisionSerializer(many=True, help_text="decisions by hand, newest first")


def project_item(project: Project, pk: int) -> Task:
    return get_object_or_404(browsable_items(project), pk=pk)


class ItemDetailView(GenericAPIView):
    """One item: every judgement with its annotator and revisions, its disagreement, its gold answer
    if gold, where the adjudication rule sent it, the decisions by hand and its ground truth."""

    permission_classes = [IsResearcher]
    serializer_class = ItemDetailSerializer
    queryset = Task.objects.none()

    def get(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        task = project_item(project, pk)
        judgements = judgements_with_history(task)
        extra = extra_assessor(task, judgements)
        found = facts(project, task, [j.answer for j in judgements], None)
        detail = {
            "item": task,
            "gold_answer": task.gold_answer if task.kind == Task.Kind.GOLD else None,
            "gold_explanation": task.gold_explanation,
            "tally": [{"label": name, "count": n} for name, n in found.tally],
            "majority_share": found.majority_share,
            "disputed": found.disputed,
            "spread": found.spread,
            "judgements": judgements,
            "decisions": task.adjudications.select_related("researcher").order_by("-created_at", "-id"),
        }
        context = {
            **self.get_serializer_context(),
            "ground_truth": ground_truth_of(project, newest_snapshot(project), [task.pk]),
            "extra_assessor": extra.pk if extra else None,
        }
        return Response(ItemDetailSerializer(detail, context=context).data)


class DecisionInSerializer(StrictSerializer):
    label = serializers.IntegerField(  # type: ignore[assignment]  # (the stubs' Field.label is its title)
        allow_null=True,
        min_value=LABEL_RANGE[0],
        max_value=LABEL_RANGE[1],
        help_text="the item's label in the ground truth; null withdraws the decision in force",
    )
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)


class AdjudicationView(GenericAPIView):
    """Decisions by hand on one item: list them (GET, newest first; the newest is in force), or
    settle the item (POST ``{"label": 1, "note": "…"}``; ``"label": null`` withdraws): 201, and the
    next ground-truth snapshot, computed by the debounced job, takes the decided label. Label
    projects' items only (400 naming the reason otherwise: a gold item, a rating project, an item
    no one has judged, a label the project does not have)."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]
    serializer_class = DecisionSerializer
    pagination_class = None  # an item has a handful of decisions
    queryset = Task.objects.none()

    @extend_schema(responses={200: DecisionSerializer(many=True)})
    def get(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        task = get_object_or_404(Task, pk=pk, project=project, kind__in=BROWSED_KINDS)
        decisions = task.adjudications.select_related("researcher").order_by("-created_at", "-id")
        return Response(DecisionSerializer(decisions, many=True).data)

    @extend_schema(request=DecisionInSerializer, responses={201: DecisionSerializer})
    def post(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        task = get_object_or_404(Task, pk=pk, project=project, kind__in=BROWSED_KINDS)
        body = DecisionInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            decision = settle(task, request.user, body.validated_data["label"], body.validated_data["note"])
        except AdjudicationError as error:
            return Response({"label": [str(error)]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(DecisionSerializer(decision).data, status=status.HTTP_201_CREATED)
