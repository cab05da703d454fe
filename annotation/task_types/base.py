"""What every task type shares (pure; no Django): the answer error, the widget's shape, the base
classes, and the project form's text formats for a configuration."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

# Likert gold answers match when every dimension is within this many scale points.
LIKERT_GOLD_TOLERANCE = 1
# A label is stored in a 16-bit integer column (Judgement.label, SnapshotLabel.label).
LABEL_RANGE = (-(2**15), 2**15 - 1)
# A Likert anchor is a word or two ("very poor"), shown beside the scale on the judging page.
ANCHOR_MAX_CHARS = 60


class AnswerError(ValueError):
    """An answer or configuration that does not fit its task type; the message names the field."""


def _integer(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AnswerError(f"field '{field}': expected an integer, got {value!r}")
    return value


def _form_number(form: Mapping[str, str], field: str) -> int:
    raw = (form.get(field) or "").strip()
    if not raw:
        raise AnswerError(f"field '{field}': choose an answer")
    try:
        return int(raw)
    except ValueError as error:
        raise AnswerError(f"field '{field}': expected a whole number, got {raw!r}") from error


def _scale_point(key: Any) -> int | None:
    """A Likert anchor's key as the point of the scale it names: 3 or "3" (JSON's keys are strings)."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and key.strip().lstrip("-").isdigit() and key.strip().isascii():
        return int(key)
    return None


def describe_anchors(anchors: dict[int, str]) -> str:
    """ "1 = very poor … 5 = excellent": neighbouring points joined by " · ", gaps shown by " … "."""
    text = ""
    previous: int | None = None
    for point, label in anchors.items():
        if previous is not None:
            text += " · " if point == previous + 1 else " … "
        text += f"{point} = {label}"
        previous = point
    return text


def digit_keys(values: list[int]) -> list[str]:
    """One digit key per value; "" for a value without one (reached with the arrow keys).

    A value that is itself a digit is its own key (press 0-3 on a 0-3 scale). A 1-10 scale keys 10
    as 0. Any other scale is keyed by position, 1-9 then 0 for the tenth; the rest get no key.
    """
    if all(0 <= value <= 9 for value in values):
        return [str(value) for value in values]
    if values == list(range(1, 11)):
        return [str(value % 10) for value in values]
    return [str((position + 1) % 10) if position < 10 else "" for position in range(len(values))]


@dataclass(frozen=True)
class Choice:
    value: int
    text: str
    key: str
    checked: bool = False
    anchor: str = ""  # what this point of a Likert scale means ("very poor"), if the project says


@dataclass(frozen=True)
class Dimension:
    name: str
    choices: list[Choice]


@dataclass(frozen=True)
class AnswerWidget:
    """Everything a type's answer template needs: label choices, Likert dimensions or a text box."""

    template: str
    legend: str
    choices: list[Choice] = field(default_factory=list)
    dimensions: list[Dimension] = field(default_factory=list)
    text: str = ""
    max_words: int | None = None
    scale_anchors: str = ""  # "1 = very poor … 5 = excellent"
    rationale_required: bool = False
    rationale: str = ""
    rows: list = field(default_factory=list)  # content-unit writing: one row per unit to write


class TaskType:
    """What every task type answers; subclasses fill in what differs."""

    name: ClassVar[str]
    legend: ClassVar[str]  # the question above the answer controls
    template: ClassVar[str]  # the answer form's fragment
    # Relevance is judged for a topic, and only relevance items come from pooled system runs.
    judged_for_topic: ClassVar[bool] = False
    # What an item's topic is to the annotator, as the judging page heads it.
    topic_heading: ClassVar[str] = "Input"
    # Answers carry an integer ``label``: voted on, written as qrels, compared by kappa.
    has_labels: ClassVar[bool] = False
    # Answers carry ``scores`` per dimension: summarised by mean and median, attention-checked.
    is_rating: ClassVar[bool] = False
    # The ground truth gives each output (a system's text for an input) human scores: rating projects
    # (a mean per dimension) and Pyramid projects (its Pyramid scores), which systems tables and the
    # meta-evaluation of automatic metrics read.
    scores_outputs: ClassVar[bool] = False
    # Items show two outputs side by side.
    compares_two: ClassVar[bool] = False
    # Answers are texts: nothing to aggregate, and no single right answer for gold items.
    is_free_text: ClassVar[bool] = False
    # Every answer is given with keys (a label's, a digit per dimension), so one-key answering applies.
    answered_by_keys: ClassVar[bool] = True
    # Labels are ordered: weighted kappa and ordinal alpha apply on the whole scale.
    ordered: ClassVar[bool] = False
    # The project form's field that holds this type's configuration (where its errors go), and the
    # fields that hold some of its keys, where that differs (an error naming the key goes there).
    config_field: ClassVar[str] = "task_type"
    config_form_fields: ClassVar[dict[str, str]] = {}

    def check_config(self, config: dict[str, Any]) -> None:
        """Raise AnswerError naming the field if ``config`` does not fit this type."""

    def clean_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """The type-specific part of an answer, checked and normalised."""
        raise NotImplementedError

    def answer_from_form(self, config: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
        """The type-specific fields of a submitted form, for ``validate_answer``."""
        raise NotImplementedError

    def answers_agree(self, expected: dict[str, Any], given: dict[str, Any]) -> bool:
        """Does an answer match a gold answer?"""
        return False

    def describe_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> str:
        """A short human description of an answer, e.g. "relevant" or "quality 4, coherence 3"."""
        raise NotImplementedError

    def label_names(self, config: dict[str, Any]) -> dict[int, str]:
        """What each label value is called on pages and in feedback ({} for types without labels)."""
        return {}

    def classes(self, config: dict[str, Any]) -> list[int]:
        """Every label the project can give, whether or not anyone gave it (agreement's categories)."""
        return sorted(self.label_names(config))

    def widget_fields(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """The answer widget's type-specific fields, pre-filled with ``answer``."""
        raise NotImplementedError

    def config_from_form(self, cleaned: Mapping[str, Any]) -> dict[str, Any]:
        """The configuration from the project form's cleaned fields (``config_field`` and friends)."""
        return {}

    def form_initial(self, config: dict[str, Any]) -> dict[str, Any]:
        """The project form's fields for an existing configuration (the inverse of ``config_from_form``)."""
        return {}

    # -- shared by every type ---------------------------------------------------------------------

    def form_field_for(self, error: str) -> str:
        """The project form's field where a configuration error ("field 'anchors': …") belongs."""
        named = re.match(r"field '(\w+)", error)
        return self.config_form_fields.get(named.group(1) if named else "", self.config_field)

    def validate_config(self, config: Any) -> dict[str, Any]:
        """Check a project's configuration; return it unchanged or raise AnswerError naming the field."""
        if not isinstance(config, dict):
            raise AnswerError("field 'config': an object such as {} or {\"max_words\": 50}")
        self.check_config(config)
        return config

    def validate_answer(
        self,
        config: dict[str, Any],
        answer: Any,
        *,
        require_rationale: bool = True,
        config_checked: bool = False,
    ) -> dict[str, Any]:
        """Check an annotator's answer against this type and its config; return it normalised.

        Raises AnswerError whose message names the offending field and says what is allowed.
        ``require_rationale=False`` checks an expected (gold) answer, which needs no rationale.
        ``config_checked``: the caller has validated ``config`` already (once for many answers).
        """
        if not config_checked:
            self.validate_config(config)
        if not isinstance(answer, dict):
            raise AnswerError("field 'answer': an object such as {\"label\": 1}")
        cleaned = self.clean_answer(config, answer)
        rationale = answer.get("rationale", "")
        if not isinstance(rationale, str):
            raise AnswerError("field 'rationale': text")
        if require_rationale and config.get("rationale_required") and not rationale.strip():
            raise AnswerError("field 'rationale': a rationale is required for this project")
        if rationale.strip():
            cleaned["rationale"] = rationale.strip()
        return cleaned

    def parse_form(self, config: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
        """Turn submitted form fields into an answer for ``validate_answer``.

        Fields: ``label``; ``scores.<dimension>`` for Likert; ``text``; ``rationale`` for every type.
        Unparseable numbers raise AnswerError naming the field.
        """
        answer = self.answer_from_form(config, form)
        if form.get("rationale"):
            answer["rationale"] = form.get("rationale", "")
        return answer

    def widget(self, config: dict[str, Any], answer: dict[str, Any] | None = None) -> AnswerWidget:
        """The answer widget for this config, pre-filled with ``answer`` when correcting one."""
        answer = answer or {}
        return AnswerWidget(
            template=self.template,
            legend=self.legend,
            rationale_required=bool(config.get("rationale_required")),
            rationale=answer.get("rationale", ""),
            **self.widget_fields(config, answer),
        )


class LabelTaskType(TaskType):
    """Types whose answer is one integer label chosen from a few."""

    template = "annotation/answers/choices.html"
    has_labels = True

    def label_values(self, config: dict[str, Any]) -> list[int]:
        """The labels in the order the page lists them."""
        return list(self.label_names(config))

    def label_keys(self, values: list[int]) -> list[str]:
        return digit_keys(values)

    def choice_text(self, name: str) -> str:
        return name.capitalize()

    def clean_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        label = _integer(answer.get("label"), "label")
        allowed = list(self.label_names(config))
        if label not in allowed:
            if sorted(allowed) == [0, 1]:
                raise AnswerError(f"field 'label': 0 or 1, not {label}")
            raise AnswerError(f"field 'label': one of {allowed}, not {label}")
        return {"label": label}

    def answer_from_form(self, config: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
        return {"label": _form_number(form, "label")}

    def answers_agree(self, expected: dict[str, Any], given: dict[str, Any]) -> bool:
        return expected.get("label") == given.get("label")

    def describe_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> str:
        label = answer.get("label")
        return f"“{self.label_names(config).get(label, label)}”"  # type: ignore[arg-type]

    def widget_fields(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        names = self.label_names(config)
        values = self.label_values(config)
        keys = self.label_keys(values)
        choices = [
            Choice(value, self.choice_text(names[value]), key, answer.get("label") == value)
            for value, key in zip(values, keys, strict=True)
        ]
        return {"choices": choices}


class FormTextError(AnswerError):
    """A line of a configuration typed on the project form that cannot be read; ``field`` is the form's
    field it belongs to (None: the task type's own)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def parse_levels(text: str) -> list[dict]:
    """``value: label`` per line (the project form's text) → graded-relevance levels; errors name the line."""
    levels = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        value, _, label = line.partition(":")
        try:
            levels.append({"value": int(value.strip()), "label": label.strip() or value.strip()})
        except ValueError as error:
            raise FormTextError(f"line {number}: write “value: label”, e.g. “2: Relevant”") from error
    return levels


def parse_anchors(text: str) -> dict[str, str]:
    """``point: label`` per line (the project form's text) → Likert anchors (``{"1": "very poor"}``);
    errors name the line and belong to the form's ``likert_anchors`` field."""
    anchors: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        point, _, label = line.partition(":")
        try:
            value = int(point.strip())
        except ValueError as error:
            message = f"line {number}: write “point: label”, e.g. “1: very poor”"
            raise FormTextError(message, "likert_anchors") from error
        if not label.strip():
            message = f"line {number}: what does {value} mean? e.g. “{value}: very poor”"
            raise FormTextError(message, "likert_anchors")
        anchors[str(value)] = label.strip()
    return anchors
