"""The researcher's project form: the model's settings plus the task type's config, without JSON."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.core.validators import MinValueValidator

from annotation.judging.coverage import HOW_TO_BRING_IN, eligible_among, k_problem
from annotation.models import Project, even_k_warning
from annotation.task_types import AnswerError, FormTextError, task_type

DEFAULT_LEVELS = "0: Not relevant\n1: Partly relevant\n2: Relevant\n3: Highly relevant"
DEFAULT_DIMENSIONS = "quality, coherence, diversity, importance"
DEFAULT_ANCHORS = "1: very poor\n5: excellent"
TIE_RULE_BY_K = "Chosen by k: one more annotator when k is even, the lower label when odd"


class ProjectForm(forms.ModelForm):
    # The task type and the fields of its configuration: fixed once items are judged, as the API
    # fixes ``task_type`` and ``config`` (they change what the judgements mean).
    FIXED_ONCE_JUDGED = (
        "task_type",
        "graded_levels",
        "likert_dimensions",
        "likert_low",
        "likert_high",
        "likert_anchors",
        "max_words",
    )
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
    likert_anchors = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        initial=DEFAULT_ANCHORS,
        label="Likert anchors",
        help_text="What points of the scale mean, one per line, “point: label”; shown to annotators "
        "beside the scale. Leave empty for bare numbers.",
    )
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
            "consent_text": forms.Textarea(attrs={"rows": 5}),
        }

    # Added after the form's first clients: one that does not send them keeps what the project has.
    OPTIONAL = (
        "adjudication_rule",
        "adjudication_threshold",
        "adjudicated_by",
        "tie_rule",
        "consent_text",
        "demographics",
    )
    # The page shows the fields in these groups, in this order; the last is folded away unless one of
    # its fields has an error. A field left out of every group would not be shown: a test holds the
    # groups to the form's fields.
    FIELDSETS = (
        (
            "Basics",
            ("name", "instructions", "examples", "annotator_usernames", "assignments_per_task", "active"),
        ),
        (
            "Task type",
            (*FIXED_ONCE_JUDGED, "rationale_required", "one_key_answers"),
        ),
        (
            "Quality control",
            (
                "gold_rate",
                "gold_feedback",
                "attention_rate",
                "qualification_pass_rate",
                "qualification_attempts_allowed",
                "quality_threshold",
                "adjudication_rule",
                "adjudication_threshold",
                "adjudicated_by",
                "tie_rule",
            ),
        ),
        ("Consent and questions for crowd workers", ("consent_text", "demographics")),
        (
            "Advanced",
            (
                "assignment_minutes",
                "serve_order",
                "ground_truth_method",
                "rating_normalisation",
                "exclude_blocked_from_ground_truth",
            ),
        ),
    )
    # The configuration fields of each task type: the page shows only the chosen type's.
    TYPE_FIELDS = {
        "graded_levels": "graded_relevance",
        "likert_dimensions": "likert",
        "likert_low": "likert",
        "likert_high": "likert",
        "likert_anchors": "likert",
        "max_words": "free_text",
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.OPTIONAL:
            self.fields[name].required = False
        for name, type_name in self.TYPE_FIELDS.items():
            self.fields[name].widget.attrs["data-for-type"] = type_name
        # Left empty, the project's save chooses the rule by k (``default_tie_rule``), and says so.
        tie_rule = self.fields["tie_rule"]
        assert isinstance(tie_rule, forms.ChoiceField)  # the model field's choices make it one
        tie_rule.choices = [("", TIE_RULE_BY_K), *Project.TieRule.choices]
        self.fields["tie_rule"].label = "Tie rule (majority vote)"
        # The model's constraint says it too, but only as an error of the whole form.
        k = self.fields["assignments_per_task"]
        k.validators.append(MinValueValidator(1))
        k.widget.attrs["min"] = 1
        project = self.instance
        if project.pk:
            config = project.config or {}
            self.initial.update(project.type.form_initial(config))
            self.initial["rationale_required"] = bool(config.get("rationale_required"))
            self.initial["annotator_usernames"] = ", ".join(
                project.annotators.order_by("username").values_list("username", flat=True)
            )

    @property
    def warnings(self) -> list[str]:
        """What to think about before saving (shown above the form, never refusing it): an even k
        under majority vote, from the values being submitted or, unbound, from the project's."""
        if self.is_bound:
            k = self.data.get("assignments_per_task")
            method = self.data.get("ground_truth_method") or Project.GroundTruthMethod.MAJORITY
            rule = self.data.get("tie_rule") or ""
        else:
            project = self.instance
            k, method, rule = project.assignments_per_task, project.ground_truth_method, project.tie_rule
        try:
            warning = even_k_warning(int(k or 0), method, rule)
        except (TypeError, ValueError):  # a k that is no number has its own error
            return []
        return [warning] if warning and int(k or 0) > 0 else []

    def fieldsets(self) -> list[dict]:
        """The groups of the page: legend, bound fields, whether folded, whether any field erred."""
        groups = []
        for index, (legend, names) in enumerate(self.FIELDSETS):
            fields = [self[name] for name in names]
            groups.append(
                {
                    "legend": legend,
                    "fields": fields,
                    "folded": index == len(self.FIELDSETS) - 1,
                    "has_errors": any(field.errors for field in fields),
                }
            )
        return groups

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

    def clean_demographics(self) -> list:
        return self.cleaned_data.get("demographics") or []  # an empty box: no questions

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        self.check_k_against_annotators(cleaned)
        name = cleaned.get("task_type")
        if not name:
            return cleaned
        kind = task_type(name)
        # The configuration's errors go beside the form's fields for it, not to Project.clean()'s
        # "config" (which this form has no field for).
        self.instance.config_errors_shown = True
        try:
            config = kind.config_from_form(cleaned)
        except FormTextError as error:  # one naming its field goes there, others to the type's
            self.add_error(error.field or kind.config_field, str(error))
            return cleaned
        if cleaned.get("rationale_required"):
            config["rationale_required"] = True
        try:
            kind.validate_config(config)
        except AnswerError as error:
            self.add_error(kind.form_field_for(str(error)), str(error))
        self.instance.config = config
        return cleaned

    def check_k_against_annotators(self, cleaned: dict) -> None:
        """Refuse a k that the named annotators cannot give every item (``annotation.judging.coverage``).

        Only when this form sets k or the annotators: a save that changes neither (new instructions,
        say) goes through, and the project page keeps warning. A project with no eligible annotator
        yet is being set up: accepted, and the view says what to do next.
        """
        k, users = cleaned.get("assignments_per_task"), cleaned.get("annotator_usernames")
        if k is None or users is None:
            return
        changed = {"assignments_per_task", "annotator_usernames"} & set(self.changed_data)
        if self.instance.pk and not changed:
            return
        eligible = len(eligible_among(self.instance, users))
        if eligible:
            problem = k_problem(k, eligible)
            if problem:
                self.add_error("assignments_per_task", f"{problem} {HOW_TO_BRING_IN}")

    def save(self, commit: bool = True) -> Project:
        project = super().save(commit=commit)
        if commit:
            project.annotators.set(self.cleaned_data["annotator_usernames"])
        return project
