"""Pure helpers of the pages: answer widgets, query-term highlighting, attention checks (progress
figures: test_dashboard.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.crowd.quality.attention import degrade_text, degraded_passes, repeat_passes, score_checks
from annotation.judging.display.highlight import highlight_segments, query_terms
from annotation.task_types import AnswerError, task_type

GRADED = {"levels": [{"value": v, "label": name} for v, name in enumerate(["no", "partly", "yes", "very"])]}
LIKERT = {"dimensions": ["quality", "coherence"], "scale": [1, 5]}


def test_every_label_gets_a_distinct_key_that_is_not_reserved():
    for name, config in [("binary_relevance", {}), ("pairwise", {}), ("graded_relevance", GRADED)]:
        keys = [choice.key for choice in task_type(name).widget(config).choices]
        assert len(set(keys)) == len(keys)
        assert not set(keys) & {"s", "u"}
    assert [c.key for c in task_type("binary_relevance").widget({}).choices] == ["r", "n"]
    assert [c.key for c in task_type("graded_relevance").widget(GRADED).choices] == ["0", "1", "2", "3"]


def test_graded_levels_beyond_one_digit_are_keyed_by_position():
    config = {"levels": [{"value": 10, "label": "low"}, {"value": 20, "label": "high"}]}
    assert [c.key for c in task_type("graded_relevance").widget(config).choices] == ["1", "2"]


def likert_keys(low: int, high: int) -> list[str]:
    widget = task_type("likert").widget({"dimensions": ["quality"], "scale": [low, high]})
    return [choice.key for choice in widget.dimensions[0].choices]


def test_long_scales_get_a_key_for_each_of_their_first_ten_points():
    assert likert_keys(1, 5) == ["1", "2", "3", "4", "5"]
    assert likert_keys(0, 9) == [str(v) for v in range(10)]
    assert likert_keys(1, 10) == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"]  # 0 is ten
    # 0-10 has eleven points: the first ten by position, the last by the arrow keys.
    assert likert_keys(0, 10) == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", ""]
    levels = {"levels": [{"value": v, "label": f"level {v}"} for v in range(12)]}
    keys = [c.key for c in task_type("graded_relevance").widget(levels).choices]
    assert keys[:10] == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"] and keys[10:] == ["", ""]


@given(st.integers(-5, 20), st.integers(0, 15))
def test_digit_keys_are_distinct_digits_never_page_keys(low, span):
    keys = [key for key in likert_keys(low, low + span) if key]
    assert len(keys) == len(set(keys)) == min(span + 1, 10)
    assert all(key.isdigit() and len(key) == 1 for key in keys)


def test_a_widget_is_prefilled_with_the_answer_being_corrected():
    widget = task_type("likert").widget(LIKERT, {"scores": {"quality": 2, "coherence": 5}})
    checked = {d.name: [c.value for c in d.choices if c.checked] for d in widget.dimensions}
    assert checked == {"quality": [2], "coherence": [5]}


def test_form_fields_become_answers_and_bad_numbers_name_the_field():
    assert task_type("likert").parse_form(LIKERT, {"scores.quality": "4", "scores.coherence": "3"}) == {
        "scores": {"quality": 4, "coherence": 3}
    }
    assert task_type("free_text").parse_form({"max_words": 5}, {"text": "a b", "rationale": "r"}) == {
        "text": "a b",
        "rationale": "r",
    }
    with pytest.raises(AnswerError, match=r"scores\.coherence"):
        task_type("likert").parse_form(LIKERT, {"scores.quality": "4", "scores.coherence": "x"})
    with pytest.raises(AnswerError, match="'label': choose"):
        task_type("binary_relevance").parse_form({}, {})


def test_gold_answers_match_on_labels_and_on_likert_within_one_point():
    assert task_type("graded_relevance").answers_agree({"label": 2}, {"label": 2})
    assert not task_type("graded_relevance").answers_agree({"label": 2}, {"label": 3})
    assert task_type("likert").answers_agree(
        {"scores": {"quality": 4}}, {"scores": {"quality": 5, "coherence": 1}}
    )
    assert not task_type("likert").answers_agree({"scores": {"quality": 4}}, {"scores": {"quality": 2}})
    assert task_type("graded_relevance").describe_answer(GRADED, {"label": 3}) == "“very”"


def test_query_terms_skip_stop_words_and_highlighting_marks_word_starts():
    terms = query_terms("What is the flow of heat in slabs?")
    assert terms == {"flow", "heat", "slabs"}
    segments = highlight_segments("Heat flows; overflow is not flow-like.", terms)
    assert [text for text, hit in segments if hit] == ["Heat", "flows", "flow"]


@given(st.text(max_size=200), st.sets(st.text(alphabet="abcxyz", min_size=1, max_size=4), max_size=4))
def test_highlighting_never_loses_or_adds_text(text, terms):
    assert "".join(part for part, _ in highlight_segments(text, terms)) == text


@given(
    st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=6), min_size=0, max_size=30),
    st.integers(0, 99),
)
def test_a_degraded_output_only_uses_words_of_the_original(words, seed):
    text = " ".join(words)
    degraded = degrade_text(text, random.Random(seed))
    assert set(degraded.split()) <= set(text.split())
    if len(words) > 2:
        assert len(degraded.split()) == max(2, len(words) // 2)


def test_attention_checks_pass_on_consistent_repeats_and_lower_degraded_ratings():
    assert repeat_passes({"q": 4, "c": 3}, {"q": 5, "c": 3})
    assert not repeat_passes({"q": 4, "c": 3}, {"q": 2, "c": 3})
    assert degraded_passes({"q": 4, "c": 4}, {"q": 2, "c": 3})
    assert not degraded_passes({"q": 4, "c": 4}, {"q": 4, "c": 4})
    result = score_checks([({"q": 4}, {"q": 4}), ({"q": 4}, {"q": 1})], [({"q": 4}, {"q": 1})])
    assert (result.passed, result.total, result.pass_rate) == (2, 3, pytest.approx(2 / 3))
