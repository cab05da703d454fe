"""The researcher's project form: the model's settings plus the task type's config, without JSON."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from .models import Project
from .task_types import AnswerError, validate_config

DEFAULT_LEVELS = "0: Not relevant\n1: Partly relevant\n2: Relevant\n3: Highly relevant"
DEFAULT_DIMENSIONS = "quality, coherence, diversity, importance"


def parse_levels(text: str) -> list[dict]:
    """``value: label`` per line → graded-relevance levels; errors name the line."""
    levels = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        value, _, label = line.partition(":")
        try:
            levels.append({"value": int(value.strip()), "label": label.strip() or value.strip()})
        except ValueError as error:
            raise forms.ValidationError(f"line {number}: write “value: label”, e.g. “2: Relevant”") from error
    return levels


class ProjectForm(forms.ModelForm):
    graded_levels = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        initial=DEFAULT_LEVELS,
        help_text="Graded relevance: one level per line, “value: label”.",
    )
    likert_dimensions = forms.CharField(
        required=False,
        initial=DEFAULT_DIMENSIONS,
        help_text="Likert rating: dimension names, comma-separated.",
    )
    likert_low = forms.IntegerField(required=False, initial=1, label="Likert scale from")
    likert_high = forms.IntegerField(required=False, initial=5, label="Likert scale to")
    max_words = forms.IntegerField(
        required=False, initial=100, min_value=1, help_text="Free text: the most words an answer may have."
    )
    rationale_required = forms.BooleanField(required=False, help_text="Annotators must say why.")
    annotator_usernames = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        label="Annotators",
        help_text="Usernames, separated by commas or new lines. Removing a name here does not delete "
        "their judgements.",
    )

    class Meta:
        model = Project
        fields = list(Project.SETTINGS)
        widgets = {
            "instructions": forms.Textarea(attrs={"rows": 5}),
            "examples": forms.Textarea(attrs={"rows": 4}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        project = self.instance
        if project.pk:
            config = project.config or {}
            if project.task_type == Project.TaskType.GRADED_RELEVANCE:
                self.initial["graded_levels"] = "\n".join(
                    f"{lv['value']}: {lv['label']}" for lv in config["levels"]
                )
            if project.task_type == Project.TaskType.LIKERT:
                self.initial["likert_dimensions"] = ", ".join(config["dimensions"])
                self.initial["likert_low"], self.initial["likert_high"] = config["scale"]
            if project.task_type == Project.TaskType.FREE_TEXT:
                self.initial["max_words"] = config["max_words"]
            self.initial["rationale_required"] = bool(config.get("rationale_required"))
            self.initial["annotator_usernames"] = ", ".join(
                project.annotators.order_by("username").values_list("username", flat=True)
            )

    def clean_annotator_usernames(self) -> list:
        names = [
            name.strip() for name in self.cleaned_data["annotator_usernames"].replace(",", "\n").splitlines()
        ]
        names = [name for name in names if name]
        users = {user.username: user for user in get_user_model().objects.filter(username__in=names)}
        unknown = [name for name in names if name not in users]
        if unknown:
            raise forms.ValidationError(f"no such user: {', '.join(unknown)}")
        return [users[name] for name in dict.fromkeys(names)]

    def clean(self):
        cleaned = super().clean()
        task_type = cleaned.get("task_type")
        config: dict = {}
        try:
            if task_type == Project.TaskType.GRADED_RELEVANCE:
                config["levels"] = parse_levels(cleaned.get("graded_levels") or "")
            elif task_type == Project.TaskType.LIKERT:
                names = [d.strip() for d in (cleaned.get("likert_dimensions") or "").split(",") if d.strip()]
                config["dimensions"] = names
                config["scale"] = [cleaned.get("likert_low"), cleaned.get("likert_high")]
            elif task_type == Project.TaskType.FREE_TEXT:
                config["max_words"] = cleaned.get("max_words")
        except forms.ValidationError as error:
            self.add_error("graded_levels", error)
            return cleaned
        if cleaned.get("rationale_required"):
            config["rationale_required"] = True
        if task_type:
            try:
                validate_config(task_type, config)
            except AnswerError as error:
                field = {
                    Project.TaskType.GRADED_RELEVANCE: "graded_levels",
                    Project.TaskType.LIKERT: "likert_dimensions",
                    Project.TaskType.FREE_TEXT: "max_words",
                }.get(task_type, "task_type")
                self.add_error(field, str(error))
        self.instance.config = config
        return cleaned

    def save(self, commit: bool = True) -> Project:
        project = super().save(commit=commit)
        if commit:
            project.annotators.set(self.cleaned_data["annotator_usernames"])
        return project
