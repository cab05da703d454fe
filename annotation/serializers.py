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
