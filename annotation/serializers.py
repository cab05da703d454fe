from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from .models import Project
from .task_types import AnswerError, validate_config


class ProjectSerializer(serializers.ModelSerializer):
    annotators = serializers.SlugRelatedField(
        slug_field="username", many=True, required=False, queryset=get_user_model().objects.all()
    )

    class Meta:
        model = Project
        fields = ["id", *Project.SETTINGS, "config", "annotators", "created_at"]
        read_only_fields = ["id", "created_at"]

    def validate(self, attrs):
        task_type = attrs.get(
            "task_type", getattr(self.instance, "task_type", Project.TaskType.BINARY_RELEVANCE)
        )
        config = attrs.get("config", getattr(self.instance, "config", {}))
        try:
            validate_config(task_type, config)
        except AnswerError as error:
            raise serializers.ValidationError({"config": [str(error)]}) from error
        return attrs


class TopicInSerializer(serializers.Serializer):
    id = serializers.CharField(max_length=100)
    title = serializers.CharField()
    description = serializers.CharField(required=False, allow_blank=True, default="")


class DocumentInSerializer(serializers.Serializer):
    id = serializers.CharField(max_length=200)
    title = serializers.CharField(required=False, allow_blank=True, default="")
    text = serializers.CharField()


class ItemInSerializer(serializers.Serializer):
    topic = serializers.CharField(
        max_length=100, required=False, allow_null=True, allow_blank=True, default=None
    )
    document = serializers.CharField(max_length=200)
    document_b = serializers.CharField(
        max_length=200,
        required=False,
        allow_null=True,
        allow_blank=True,
        default=None,
        help_text="Pairwise tasks: the second output.",
    )


class GoldInSerializer(ItemInSerializer):
    answer = serializers.DictField(help_text='The expected answer, e.g. {"label": 1}.')
    explanation = serializers.CharField(required=False, allow_blank=True, default="")


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
    items = ItemInSerializer(
        many=True,
        required=False,
        default=list,
        help_text="Tasks to add directly (rating, free text, pairwise).",
    )
    gold = GoldInSerializer(
        many=True, required=False, default=list, help_text="Known-answer items mixed in at the gold rate."
    )
    qualification = GoldInSerializer(
        many=True, required=False, default=list, help_text="Questions of the qualification test."
    )


class ImportSummarySerializer(serializers.Serializer):
    topics_created = serializers.IntegerField()
    documents_created = serializers.IntegerField()
    runs_created = serializers.IntegerField()
    tasks_created = serializers.IntegerField()
    tasks_total = serializers.IntegerField()
    gold_created = serializers.IntegerField()
    qualification_created = serializers.IntegerField()
    attention_checks_created = serializers.IntegerField()
