from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from .models import Project


class ProjectSerializer(serializers.ModelSerializer):
    annotators = serializers.SlugRelatedField(
        slug_field="username", many=True, required=False, queryset=get_user_model().objects.all()
    )

    class Meta:
        model = Project
        fields = [
            "id",
            "name",
            "task_type",
            "instructions",
            "assignments_per_task",
            "assignment_minutes",
            "ground_truth_method",
            "annotators",
            "active",
            "created_at",
        ]
        read_only_fields = ["id", "created_at"]


class TopicInSerializer(serializers.Serializer):
    id = serializers.CharField(max_length=100)
    title = serializers.CharField()
    description = serializers.CharField(required=False, allow_blank=True, default="")


class DocumentInSerializer(serializers.Serializer):
    id = serializers.CharField(max_length=200)
    title = serializers.CharField(required=False, allow_blank=True, default="")
    text = serializers.CharField()


class ImportSerializer(serializers.Serializer):
    topics = TopicInSerializer(many=True, required=False, default=list)
    documents = DocumentInSerializer(many=True, required=False, default=list)
    runs = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False),
        required=False,
        default=list,
        help_text="Each item is the text of one TREC run file: `qid Q0 docno rank score tag` per line.",
    )
    pool_depth = serializers.IntegerField(min_value=1, default=10)


class ImportSummarySerializer(serializers.Serializer):
    topics_created = serializers.IntegerField()
    documents_created = serializers.IntegerField()
    runs_created = serializers.IntegerField()
    tasks_created = serializers.IntegerField()
    tasks_total = serializers.IntegerField()
