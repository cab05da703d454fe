"""Topic ids in the order people count them: numbers inside ids compare as numbers."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from evaluation.metrics.natural_order import natural_key, natural_sorted


def test_numbers_sort_as_numbers_and_the_rest_as_text():
    assert natural_sorted(["10", "2", "1", "225", "100"]) == ["1", "2", "10", "100", "225"]
    assert natural_sorted(["q10", "q9", "Q1", "q1"]) == ["Q1", "q1", "q9", "q10"]
    assert natural_sorted(["401-b", "401-a10", "401-a9", "40"]) == ["40", "401-a9", "401-a10", "401-b"]
    # Digits and letters meet without a TypeError; an id of digits comes first, as in string order.
    assert natural_sorted(["a1", "1a", "1"]) == ["1", "1a", "a1"]
    # Leading zeros break ties only, so the order stays total and repeatable.
    assert natural_sorted(["07", "7", "007", "6"]) == ["6", "7", "07", "007"]


@given(st.lists(st.integers(0, 10**6), unique=True))
def test_ids_that_are_numbers_sort_as_the_numbers_do(numbers):
    assert natural_sorted(str(n) for n in numbers) == [str(n) for n in sorted(numbers)]


@given(st.lists(st.text(alphabet="ab019-_.", max_size=8), max_size=30))
def test_the_order_is_total_and_does_not_depend_on_the_input_order(ids):
    once = natural_sorted(ids)
    assert natural_sorted(reversed(ids)) == once
    assert all(natural_key(a) <= natural_key(b) for a, b in pairwise(once))
