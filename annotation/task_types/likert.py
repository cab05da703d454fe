"""Likert rating of an output on one or more dimensions. ``{"scores": {dimension: point}}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.task_types.base import (
    ANCHOR_MAX_CHARS,
    LIKERT_GOLD_TOLERANCE,
    AnswerError,
    Choice,
    Dimension,
    TaskType,
    _form_number,
    _integer,
    _scale_point,
    describe_anchors,
    digit_keys,
    parse_anchors,
)


class Likert(TaskType):
    name = "likert"
    legend = "Rate the output"
    template = "annotation/answers/likert.html"
    is_rating = True
    scores_outputs = True
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
