"""Every aggregation method by its name (the names of ``cranfield aggregate --method`` and of a
project's ground-truth method), and whether it needs gold answers."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from annotation.crowd.aggregation.base import AggregationResult
from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.io.encoding import Labels


def _later(module: str, name: str) -> Callable[..., Any]:
    """The function ``name`` of ``annotation.crowd.<module>``, imported when first called: GLAD,
    MACE and M-MSR need SciPy's optimisers, which a majority vote or Dawid–Skene never should."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(*args, **kwargs)

    return call


one_coin_dawid_skene = _later("one_coin", "one_coin_dawid_skene")
glad = _later("glad", "glad")
mace = _later("mace", "mace")
mmsr = _later("mmsr", "mmsr")
wawa = _later("wawa", "wawa")
zero_based_skill = _later("zero_based_skill", "zero_based_skill")

# name -> (function of (labels, gold, tie_rule), needs gold)
_METHODS: dict[str, tuple[Callable[[Labels, Mapping, str], AggregationResult], bool]] = {
    "majority": (
        lambda data, gold, tie_rule: majority_vote(data, tie_rule=tie_rule, gold=gold or None),
        False,
    ),
    "dawid-skene": (lambda data, gold, tie_rule: dawid_skene(data), False),
    "gold-dawid-skene": (lambda data, gold, tie_rule: dawid_skene(data, gold=gold), True),
    "gold-weighted": (lambda data, gold, tie_rule: gold_weighted_vote(data, gold, tie_rule=tie_rule), True),
    "one-coin-dawid-skene": (lambda data, gold, tie_rule: one_coin_dawid_skene(data), False),
    "glad": (lambda data, gold, tie_rule: glad(data), False),
    "mace": (lambda data, gold, tie_rule: mace(data), False),
    "mmsr": (lambda data, gold, tie_rule: mmsr(data), False),
    "wawa": (lambda data, gold, tie_rule: wawa(data), False),
    "zero-based-skill": (lambda data, gold, tie_rule: zero_based_skill(data), False),
}

METHODS = tuple(_METHODS)
GOLD_METHODS = tuple(name for name, (_, needs_gold) in _METHODS.items() if needs_gold)


def aggregate_by_name(
    labels: Labels,
    method: str,
    *,
    gold: Mapping[Hashable, Hashable] | None = None,
    tie_rule: str = "lower",
) -> AggregationResult:
    """The named method's result; ``tie_rule`` applies to the two votes that take one (majority
    vote's ``gold_weighted`` rule needs ``gold`` too)."""
    if method not in _METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    function, needs_gold = _METHODS[method]
    if needs_gold and not gold:
        raise ValueError(f"method {method!r} needs gold answers")
    return function(labels, dict(gold or {}), tie_rule)
