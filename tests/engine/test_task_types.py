"""The one answer validator per task type: accepted answers, and errors naming the field."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.task_types import AnswerError, task_type, validate_config

GRADED = {"levels": [{"value": v, "label": f"level {v}"} for v in range(4)]}
LIKERT = {"dimensions": ["quality", "coherence", "diversity", "importance"], "scale": [1, 5]}


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=-10, max_value=10))
def test_graded_accepts_exactly_the_configured_levels(label):
    if 0 <= label <= 3:
        assert task_type("graded_relevance").validate_answer(GRADED, {"label": label}) == {"label": label}
    else:
        with pytest.raises(AnswerError, match="field 'label'"):
            task_type("graded_relevance").validate_answer(GRADED, {"label": label})


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=6), min_size=4, max_size=4))
def test_likert_needs_every_dimension_within_scale(values):
    scores = dict(zip(LIKERT["dimensions"], values, strict=True))
    if all(1 <= v <= 5 for v in values):
        assert task_type("likert").validate_answer(LIKERT, {"scores": scores}) == {"scores": scores}
    else:
        with pytest.raises(AnswerError, match=r"field 'scores\.\w+': between 1 and 5"):
            task_type("likert").validate_answer(LIKERT, {"scores": scores})


def test_likert_missing_or_unknown_dimension():
    with pytest.raises(AnswerError, match=r"field 'scores\.importance': missing"):
        task_type("likert").validate_answer(
            LIKERT, {"scores": {"quality": 3, "coherence": 3, "diversity": 3}}
        )
    with pytest.raises(AnswerError, match="unknown dimension"):
        task_type("likert").validate_answer(LIKERT, {"scores": {"fluency": 3}})


def test_binary_and_pairwise_reject_bools_and_other_integers():
    for name in ("binary_relevance", "pairwise"):
        assert task_type(name).validate_answer({}, {"label": 1}) == {"label": 1}
        with pytest.raises(AnswerError, match="field 'label'"):
            task_type(name).validate_answer({}, {"label": 2})
        with pytest.raises(AnswerError, match="field 'label'"):
            task_type(name).validate_answer({}, {"label": True})


def test_free_text_word_limit():
    config = {"max_words": 3}
    assert task_type("free_text").validate_answer(config, {"text": " one two three "}) == {
        "text": "one two three"
    }
    with pytest.raises(AnswerError, match="at most 3 words, got 4"):
        task_type("free_text").validate_answer(config, {"text": "one two three four"})
    with pytest.raises(AnswerError, match="field 'text'"):
        task_type("free_text").validate_answer(config, {"text": "   "})


def test_required_rationale():
    config = {"rationale_required": True}
    with pytest.raises(AnswerError, match="field 'rationale'"):
        task_type("binary_relevance").validate_answer(config, {"label": 0, "rationale": "  "})
    assert task_type("binary_relevance").validate_answer(config, {"label": 0, "rationale": "off topic"}) == {
        "label": 0,
        "rationale": "off topic",
    }


@pytest.mark.parametrize(
    ("task_type", "config", "field"),
    [
        ("ranking", {}, "task_type"),
        ("graded_relevance", {"levels": [{"value": 0}]}, "levels"),
        ("graded_relevance", {"levels": [{"value": 1}, {"value": 1}]}, "levels"),
        ("likert", {"dimensions": [], "scale": [1, 5]}, "dimensions"),
        ("likert", {"dimensions": ["q"], "scale": [5, 1]}, "scale"),
        ("free_text", {"max_words": 0}, "max_words"),
    ],
)
def test_bad_config_names_field(task_type, config, field):
    with pytest.raises(AnswerError, match=f"field '{field}'"):
        validate_config(task_type, config)


def test_likert_anchors_name_points_of_the_scale():
    config = {**LIKERT, "anchors": {"1": "very poor", "5": "excellent", "3": " fair "}}
    assert validate_config("likert", config) is config
    widget = task_type("likert").widget(config)
    assert widget.scale_anchors == "1 = very poor … 3 = fair … 5 = excellent"
    assert [choice.anchor for choice in widget.dimensions[0].choices] == [
        "very poor",
        "",
        "fair",
        "",
        "excellent",
    ]
    full = {
        **LIKERT,
        "anchors": {str(v): name for v, name in enumerate(["bad", "poor", "fair", "good", "great"], 1)},
    }
    assert (
        task_type("likert").widget(full).scale_anchors
        == "1 = bad · 2 = poor · 3 = fair · 4 = good · 5 = great"
    )
    assert task_type("likert").widget(LIKERT).scale_anchors == ""  # none configured: bare numbers


@pytest.mark.parametrize(
    ("anchors", "message"),
    [
        (["very poor"], r"field 'anchors': an object of labels by point of the scale"),
        ({"0": "nothing"}, r"field 'anchors': '0' is not a point of the scale, a whole number from 1 to 5"),
        ({"one": "very poor"}, r"'one' is not a point of the scale"),
        ({"²": "squared"}, r"'²' is not a point of the scale"),
        ({"1": "very poor", "01": "awful"}, r"field 'anchors': 1 is labelled twice"),
        ({"1": "  "}, r"field 'anchors\.1': a label such as \"very poor\""),
        ({"1": 5}, r"field 'anchors\.1': a label"),
        ({"5": "x" * 61}, r"field 'anchors\.5': at most 60 characters"),
    ],
)
def test_likert_anchors_that_do_not_fit_the_scale_are_refused_naming_the_field(anchors, message):
    with pytest.raises(AnswerError, match=message):
        validate_config("likert", {**LIKERT, "anchors": anchors})
