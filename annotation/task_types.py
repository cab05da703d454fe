"""Task types: what annotators are asked, one class per type in one registry (pure; no Django).

A project's ``task_type`` names one of ``TASK_TYPES``; its ``config`` (a dict, stored as JSON) says
what exactly is asked. Everything that differs between types lives on the type — the
configuration check, the answer check, the keys, the answer form's template, what is aggregated
and what counts as agreement — so the rest of the code asks ``project.type`` instead of comparing
strings, and adding a type means one class here and one template under
``templates/annotation/answers/``.

Types and their config / answer:
- ``binary_relevance``: no config; answer ``{"label": 0|1}``.
- ``graded_relevance``: ``{"levels": [{"value": 0, "label": "Not relevant"}, ...]}``; answer
  ``{"label": <one of the values>}``.
- ``likert``: ``{"dimensions": ["quality", ...], "scale": [1, 5]}``, optionally with
  ``"anchors": {"1": "very poor", "5": "excellent"}`` (labels of points of the scale, shown on the
  judging page); answer ``{"scores": {dimension: int in scale}}`` with every dimension present.
- ``free_text``: ``{"max_words": N}``; answer ``{"text": non-empty, at most N words}``.
- ``pairwise``: no config; answer ``{"label": 0|1}`` (0: the first output is better, 1: the second).
Any type may set ``"rationale_required": true``; the answer then needs a non-empty ``"rationale"``.
"""

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


class TaskType:
    """What every task type answers; subclasses fill in what differs."""

    name: ClassVar[str]
    legend: ClassVar[str]  # the question above the answer controls
    template: ClassVar[str]  # the answer form's fragment
    # Relevance is judged for a topic, and only relevance items come from pooled system runs.
    judged_for_topic: ClassVar[bool] = False
    # Answers carry an integer ``label``: voted on, written as qrels, compared by kappa.
    has_labels: ClassVar[bool] = False
    # Answers carry ``scores`` per dimension: summarised by mean and median, attention-checked.
    is_rating: ClassVar[bool] = False
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
        self, config: dict[str, Any], answer: Any, *, require_rationale: bool = True
    ) -> dict[str, Any]:
        """Check an annotator's answer against this type and its config; return it normalised.

        Raises AnswerError whose message names the offending field and says what is allowed.
        ``require_rationale=False`` checks an expected (gold) answer, which needs no rationale.
        """
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


class BinaryRelevance(LabelTaskType):
    name = "binary_relevance"
    legend = "Is this document relevant to the topic?"
    judged_for_topic = True

    def label_names(self, config: dict[str, Any]) -> dict[int, str]:
        return {1: "relevant", 0: "not relevant"}

    def label_keys(self, values: list[int]) -> list[str]:
        return ["r" if value == 1 else "n" for value in values]


class GradedRelevance(LabelTaskType):
    name = "graded_relevance"
    legend = "How relevant is this document to the topic?"
    judged_for_topic = True
    config_field = "graded_levels"
    ordered = True

    def check_config(self, config: dict[str, Any]) -> None:
        levels = config.get("levels")
        if not isinstance(levels, list) or len(levels) < 2:
            raise AnswerError("field 'levels': at least two levels, each {'value': int, 'label': str}")
        if not all(isinstance(level, dict) for level in levels):
            raise AnswerError("field 'levels': each level is {'value': int, 'label': str}")
        values = [_integer(level.get("value"), f"levels[{i}].value") for i, level in enumerate(levels)]
        if len(set(values)) != len(values):
            raise AnswerError("field 'levels': level values must differ")
        low, high = LABEL_RANGE
        outside = next((value for value in values if not low <= value <= high), None)
        if outside is not None:
            raise AnswerError(f"field 'levels': a level value is between {low} and {high}, not {outside}")

    def label_names(self, config: dict[str, Any]) -> dict[int, str]:
        return {level["value"]: str(level.get("label", level["value"])) for level in config["levels"]}

    def choice_text(self, name: str) -> str:
        return name

    def config_from_form(self, cleaned: Mapping[str, Any]) -> dict[str, Any]:
        from annotation.forms import parse_levels  # the form's own text format; forms imports this module

        return {"levels": parse_levels(cleaned.get("graded_levels") or "")}

    def form_initial(self, config: dict[str, Any]) -> dict[str, Any]:
        return {"graded_levels": "\n".join(f"{lv['value']}: {lv['label']}" for lv in config["levels"])}


class Pairwise(LabelTaskType):
    name = "pairwise"
    legend = "Which output is better?"
    compares_two = True

    def label_names(self, config: dict[str, Any]) -> dict[int, str]:
        return {0: "the first output is better", 1: "the second output is better"}

    def label_keys(self, values: list[int]) -> list[str]:
        return ["a" if value == 0 else "b" for value in values]


class Likert(TaskType):
    name = "likert"
    legend = "Rate the output"
    template = "annotation/answers/likert.html"
    is_rating = True
    config_field = "likert_dimensions"
    config_form_fields = {"scale": "likert_low", "anchors": "likert_anchors"}

    def check_config(self, config: dict[str, Any]) -> None:
        dimensions = config.get("dimensions")
        if (
            not isinstance(dimensions, list)
            or not dimensions
            or not all(isinstance(d, str) and d for d in dimensions)
        ):
            raise AnswerError("field 'dimensions': a non-empty list of dimension names")
        if len(set(dimensions)) != len(dimensions):
            raise AnswerError("field 'dimensions': names must differ")
        scale = config.get("scale")
        if not isinstance(scale, list) or len(scale) != 2:
            raise AnswerError("field 'scale': [lowest, highest]")
        low, high = _integer(scale[0], "scale[0]"), _integer(scale[1], "scale[1]")
        if low >= high:
            raise AnswerError("field 'scale': lowest must be below highest")
        self.check_anchors(config.get("anchors", {}), low, high)

    @staticmethod
    def check_anchors(anchors: Any, low: int, high: int) -> None:
        """Anchors name points of the scale: ``{"1": "very poor", "5": "excellent"}`` (JSON's keys
        are strings; integers are taken too), each point once, each label short and not empty."""
        example = '{"1": "very poor", "5": "excellent"}'
        if not isinstance(anchors, dict):
            raise AnswerError(f"field 'anchors': an object of labels by point of the scale, e.g. {example}")
        points: set[int] = set()
        for key, label in anchors.items():
            point = _scale_point(key)
            if point is None or not low <= point <= high:
                raise AnswerError(
                    f"field 'anchors': {key!r} is not a point of the scale, a whole number from {low} "
                    f"to {high}"
                )
            if point in points:
                raise AnswerError(f"field 'anchors': {point} is labelled twice")
            points.add(point)
            if not isinstance(label, str) or not label.strip():
                raise AnswerError(f"field 'anchors.{key}': a label such as \"very poor\"")
            if len(label.strip()) > ANCHOR_MAX_CHARS:
                raise AnswerError(f"field 'anchors.{key}': at most {ANCHOR_MAX_CHARS} characters")

    @staticmethod
    def anchors(config: dict[str, Any]) -> dict[int, str]:
        """The configured anchors by point of the scale (a checked config), in scale order."""
        found = {_scale_point(key): label.strip() for key, label in (config.get("anchors") or {}).items()}
        return {point: found[point] for point in sorted(p for p in found if p is not None)}

    def clean_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        scores = answer.get("scores")
        if not isinstance(scores, dict):
            raise AnswerError("field 'scores': a score for every dimension")
        low, high = config["scale"]
        unknown = set(scores) - set(config["dimensions"])
        if unknown:
            raise AnswerError(f"field 'scores': unknown dimension(s) {sorted(unknown)}")
        cleaned = {}
        for dimension in config["dimensions"]:
            if dimension not in scores:
                raise AnswerError(f"field 'scores.{dimension}': missing")
            score = _integer(scores[dimension], f"scores.{dimension}")
            if not low <= score <= high:
                raise AnswerError(f"field 'scores.{dimension}': between {low} and {high}, not {score}")
            cleaned[dimension] = score
        return {"scores": cleaned}

    def answer_from_form(self, config: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
        return {"scores": {d: _form_number(form, f"scores.{d}") for d in config.get("dimensions", [])}}

    def answers_agree(self, expected: dict[str, Any], given: dict[str, Any]) -> bool:
        wanted, got = expected.get("scores", {}), given.get("scores", {})
        return all(
            dimension in got and abs(got[dimension] - score) <= LIKERT_GOLD_TOLERANCE
            for dimension, score in wanted.items()
        )

    def describe_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> str:
        return ", ".join(f"{dimension} {score}" for dimension, score in answer.get("scores", {}).items())

    def widget_fields(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        low, high = config["scale"]
        scores = answer.get("scores", {})
        values = list(range(low, high + 1))
        keys = digit_keys(values)
        anchors = self.anchors(config)
        dimensions = [
            Dimension(
                name,
                [
                    Choice(v, str(v), key, scores.get(name) == v, anchors.get(v, ""))
                    for v, key in zip(values, keys, strict=True)
                ],
            )
            for name in config["dimensions"]
        ]
        return {"dimensions": dimensions, "scale_anchors": describe_anchors(anchors)}

    def config_from_form(self, cleaned: Mapping[str, Any]) -> dict[str, Any]:
        from annotation.forms import parse_anchors  # the form's own text format; forms imports this module

        names = [d.strip() for d in (cleaned.get("likert_dimensions") or "").split(",") if d.strip()]
        config: dict[str, Any] = {
            "dimensions": names,
            "scale": [cleaned.get("likert_low"), cleaned.get("likert_high")],
        }
        anchors = parse_anchors(cleaned.get("likert_anchors") or "")
        if anchors:
            config["anchors"] = anchors
        return config

    def form_initial(self, config: dict[str, Any]) -> dict[str, Any]:
        low, high = config["scale"]
        anchors = "\n".join(f"{point}: {label}" for point, label in self.anchors(config).items())
        return {
            "likert_dimensions": ", ".join(config["dimensions"]),
            "likert_low": low,
            "likert_high": high,
            "likert_anchors": anchors,
        }


class FreeText(TaskType):
    name = "free_text"
    legend = "Write your text"
    template = "annotation/answers/text.html"
    is_free_text = True
    answered_by_keys = False
    config_field = "max_words"

    def check_config(self, config: dict[str, Any]) -> None:
        if _integer(config.get("max_words"), "max_words") < 1:
            raise AnswerError("field 'max_words': at least 1")

    def clean_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        text = answer.get("text")
        if not isinstance(text, str) or not text.strip():
            raise AnswerError("field 'text': write the text")
        words = len(text.split())
        if words > config["max_words"]:
            raise AnswerError(f"field 'text': at most {config['max_words']} words, got {words}")
        return {"text": text.strip()}

    def answer_from_form(self, config: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
        return {"text": form.get("text", "")}

    def describe_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> str:
        return f"“{answer.get('text', '')}”"

    def widget_fields(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        return {"text": answer.get("text", ""), "max_words": config.get("max_words")}

    def config_from_form(self, cleaned: Mapping[str, Any]) -> dict[str, Any]:
        return {"max_words": cleaned.get("max_words")}

    def form_initial(self, config: dict[str, Any]) -> dict[str, Any]:
        return {"max_words": config["max_words"]}


TASK_TYPES: dict[str, TaskType] = {
    task_type.name: task_type
    for task_type in (BinaryRelevance(), GradedRelevance(), Likert(), FreeText(), Pairwise())
}


def task_type(name: str) -> TaskType:
    """The task type called ``name``; AnswerError naming the field if there is none."""
    try:
        return TASK_TYPES[name]
    except KeyError:
        known = ", ".join(TASK_TYPES)
        raise AnswerError(f"field 'task_type': unknown task type {name!r}; one of {known}") from None


def validate_config(name: str, config: Any) -> dict[str, Any]:
    """``task_type(name).validate_config(config)``: for callers that have only the type's name."""
    return task_type(name).validate_config(config)
