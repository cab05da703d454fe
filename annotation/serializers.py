from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from annotation.items.inputs import InputError, identifier
from annotation.judging.coverage import HOW_TO_BRING_IN, eligible_among, k_problem
from annotation.models import Project
from annotation.task_types import AnswerError, validate_config


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know (a misspelt ``titel`` or ``pool_dept`` is an error naming the
    key, not silently ignored) and a body that is not a JSON object."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError({"non_field_errors": ["expected a JSON object"]})
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            known = ", ".join(self.fields)
            raise serializers.ValidationError(
                {key: [f"unknown field; the known ones are {known}"] for key in unknown}
            )
        return super().to_internal_value(data)


class SurrogatesRefused(ProhibitSurrogateCharactersValidator):
    """DRF's refusal of surrogate characters, with its message and the same first offender, found by
    the UTF-8 encoder (which refuses exactly those) instead of a Python loop over every character
    (0.77 s per 21 MB of run text; 0.04 s by the encoder, nothing for ASCII)."""

    def __call__(self, value) -> None:
        text = str(value)
        if text.isascii():
            return
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            super().__call__(text[error.start])


class LongTextField(serializers.CharField):
    """A CharField for texts of any length (a document, a run file, qrels): ``SurrogatesRefused``
    in place of DRF's own check."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.validators = [
            SurrogatesRefused() if type(check) is ProhibitSurrogateCharactersValidator else check
            for check in self.validators
        ]


class IdentifierField(serializers.CharField):
    """An id of a topic, document or run: NFC-normalised, no whitespace or invisible characters
    (``annotation.items.inputs.identifier``)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if value == "":  # an optional id left blank (allow_blank); a required one never gets here
            return value
        try:
            return identifier(value, max_length=self.max_length or 200)
        except InputError as error:
            raise serializers.ValidationError(str(error)) from error


class UsernameField(serializers.SlugRelatedField):
    """An account by its username. A value no username can be (a NUL byte, which PostgreSQL refuses
    in text, or more than a username's 150 characters) is refused before the database sees it."""

    def to_internal_value(self, data):
        if isinstance(data, str) and ("\x00" in data or len(data) > 150):
            raise serializers.ValidationError("no account has this username")
        return super().to_internal_value(data)


class ProjectSerializer(StrictSerializer, serializers.ModelSerializer):
    annotators = UsernameField(
        slug_field="username", many=True, required=False, queryset=get_user_model().objects.all()
    )
    warnings = serializers.SerializerMethodField(
        help_text="What to think about in these settings (never a refusal): e.g. an even k under majority "
        "vote, and what becomes of its ties."
    )

    class Meta:
        model = Project
        fields = ["id", *Project.SETTINGS, "config", "annotators", "created_at", "warnings"]
        read_only_fields = ["id", "created_at"]
        extra_kwargs = {
            # k = 0 would break the database's check constraint (a 500) instead of answering 400.
            "assignments_per_task": {"min_value": 1},
            "tie_rule": {
                "help_text": "Majority vote: what happens to an item whose labels tie. Omitted (or empty) "
                "when the project is saved, it is chosen by k: extra_annotator when k is even, lower "
                "when odd."
            },
        }

    def get_warnings(self, project: Project) -> list[str]:
        return [project.even_k_warning] if project.even_k_warning else []

    def validate(self, attrs):
        task_type = attrs.get(
            "task_type", getattr(self.instance, "task_type", Project.TaskType.BINARY_RELEVANCE)
        )
        config = attrs.get("config", getattr(self.instance, "config", {}))
        try:
            validate_config(task_type, config)
        except AnswerError as error:
            raise serializers.ValidationError({"config": [str(error)]}) from error
        self.check_k_against_annotators(attrs)
        rule = attrs.get("adjudication_rule", getattr(self.instance, "adjudication_rule", "off"))
        refusal = Project.adjudication_refusal(task_type, rule)
        if refusal is not None:
            raise serializers.ValidationError({"adjudication_rule": [refusal]})
        return attrs

    def check_k_against_annotators(self, attrs: dict) -> None:
        """Refuse a k the named annotators cannot give every item, as the settings form does: only
        when this request sets k or the annotators, and not while the project has no eligible
        annotator at all (being set up; the project page says what to do next)."""
        if "assignments_per_task" not in attrs and "annotators" not in attrs:
            return
        project = self.instance
        k = attrs.get("assignments_per_task", getattr(project, "assignments_per_task", 3))
        users = (
            attrs["annotators"]
            if "annotators" in attrs
            else (list(project.annotators.all()) if project else [])
        )
        eligible = len(eligible_among(project, users))
        problem = k_problem(k, eligible) if eligible else None
        if problem:
            raise serializers.ValidationError({"assignments_per_task": [f"{problem} {HOW_TO_BRING_IN}"]})


class TopicInSerializer(StrictSerializer):
    id = IdentifierField(max_length=100)
    title = serializers.CharField()
    description = serializers.CharField(required=False, allow_blank=True, default="")


class DocumentInSerializer(StrictSerializer):
    id = IdentifierField(max_length=200)
    title = serializers.CharField(required=False, allow_blank=True, default="")
    text = LongTextField()


class ItemInSerializer(StrictSerializer):
    topic = IdentifierField(max_length=100, required=False, allow_null=True, allow_blank=True, default=None)
    document = IdentifierField(max_length=200)
    document_b = IdentifierField(
        max_length=200,
        required=False,
        allow_null=True,
        allow_blank=True,
        default=None,
        help_text="Pairwise tasks: the second output.",
    )
    system = IdentifierField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        help_text="Text outputs: the system that wrote it.",
    )
    system_b = IdentifierField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        help_text="Pairwise items: the system that wrote document_b (with system naming document's).",
    )
    input = IdentifierField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        help_text="Text outputs: the input it was made from (source document, dialogue, recording).",
    )


class GoldInSerializer(ItemInSerializer):
    answer = serializers.DictField(help_text='The expected answer, e.g. {"label": 1}.')
    explanation = serializers.CharField(required=False, allow_blank=True, default="")
