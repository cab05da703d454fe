"""The Pyramid method's scores (pure): a summary is scored by the summary content units (SCUs) of its
input that it expresses, each SCU weighted by how many reference summaries express it.

- **Original Pyramid** (Nenkova & Passonneau, NAACL 2004, "Evaluating content selection in
  summarization: the pyramid method"): D / Max, D the total weight of the SCUs the summary expresses
  and Max the largest total weight any X SCUs of the pyramid have, X the number it expresses. Their
  formula walks the tiers (tier T_i holds the SCUs of weight i, n the top tier):
  Max = Σ_{i=j+1..n} i·|T_i| + j·(X − Σ_{i=j+1..n} |T_i|), j = max_i (Σ_{t=i..n} |T_t| ≥ X): which
  is the sum of the X heaviest weights (``optimal_weight``). Here a summary's SCUs are the pyramid's
  that the crowd found in it: a micro-task asks of the pyramid's SCUs only, so SCUs of the summary
  that no reference expresses (weight 0 in the original) are not counted in X.
- **Modified (recall) Pyramid** (Passonneau, Nenkova, McKeown & Sigelman 2005, used at DUC 2005–2007):
  D / Max with X the mean number of SCUs per reference summary (Σ weights ÷ references), rounded half
  up: the score no longer rewards a summary for expressing few SCUs.
- **LitePyramid recall** (Shapira et al., NAACL 2019, "Crowdsourcing lightweight pyramids for manual
  summary evaluation"): the share of the input's SCUs judged present, every SCU counting alike; with
  SCU sampling, the share of the sampled SCUs.

A summary that expresses no SCU scores 0 on all three.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from evaluation.metrics.intervals import OVER_INPUTS, IntervalMethod, MeanInterval, mean_intervals

MEASURES = ("pyramid", "modified_pyramid", "lite_pyramid")


class PyramidError(ValueError):
    """Content units or presence answers that cannot be scored; the message names the input or SCU."""


def optimal_weight(weights: Iterable[int], count: float) -> float:
    """The largest total weight ``count`` SCUs of the pyramid can have: its ``count`` heaviest (a
    fractional count takes that share of the next weight; more than there are, all of them)."""
    ordered = sorted(weights, reverse=True)
    whole = math.floor(count)
    total = float(sum(ordered[:whole]))
    if whole < len(ordered) and count > whole:
        total += (count - whole) * ordered[whole]
    return total


def rounded_half_up(value: float) -> int:
    return math.floor(value + 0.5)


def original_pyramid(expressed: Sequence[int], weights: Sequence[int]) -> float:
    """D / Max of a summary expressing SCUs of weights ``expressed``, in a pyramid of ``weights``."""
    best = optimal_weight(weights, len(expressed))
    return sum(expressed) / best if best else 0.0


def modified_pyramid(expressed: Sequence[int], weights: Sequence[int], references: int) -> float:
    """D / Max with X the mean SCU count of the ``references`` reference summaries, rounded half up."""
    if references < 1:
        raise PyramidError("the modified Pyramid needs at least one reference")
    best = optimal_weight(weights, rounded_half_up(sum(weights) / references))
    return sum(expressed) / best if best else 0.0


def lite_pyramid(present: int, units: int) -> float:
    """The share of the (sampled) SCUs judged present."""
    if units < 1:
        raise PyramidError("LitePyramid recall needs at least one SCU")
    if not 0 <= present <= units:
        raise PyramidError(f"{present} SCUs present of {units}")
    return present / units


@dataclass(frozen=True)
class SummaryScore:
    """One system's summary of one input: the SCUs judged present, of how many asked, and its scores."""

    system: str
    input: str
    present: int
    units: int
    weight: int
    pyramid: float
    modified_pyramid: float
    lite_pyramid: float


def summary_scores(
    weights: Mapping[str, Mapping[str, int]],
    present: Mapping[tuple[str, str], Iterable[str]],
    references: Mapping[str, int],
    asked: Mapping[tuple[str, str], Iterable[str]] | None = None,
) -> list[SummaryScore]:
    """Every summary's scores.

    ``weights`` ``{input: {SCU id: weight}}``; ``present`` ``{(system, input): SCU ids judged
    present}``; ``references`` ``{input: number of reference summaries}``; ``asked`` (SCU sampling)
    ``{(system, input): SCU ids the crowd was asked about}``, by default every SCU of the input. The
    Pyramid scores always use the whole pyramid; LitePyramid the SCUs asked."""
    scores = []
    for (system, input_id), found in sorted(present.items()):
        pyramid = weights.get(input_id)
        if not pyramid:
            raise PyramidError(f"input {input_id!r} has no SCUs")
        found = set(found)
        unknown = found - set(pyramid)
        if unknown:
            raise PyramidError(f"input {input_id!r} has no SCU {sorted(unknown)[0]!r}")
        questions = set(asked[(system, input_id)]) if asked is not None else set(pyramid)
        if not found <= questions:
            raise PyramidError(f"{system} on {input_id!r}: an SCU judged present was not asked about")
        expressed = [pyramid[unit] for unit in found]
        count = references.get(input_id) or max(pyramid.values())
        scores.append(
            SummaryScore(
                system=system,
                input=input_id,
                present=len(found),
                units=len(questions),
                weight=sum(expressed),
                pyramid=original_pyramid(expressed, list(pyramid.values())),
                modified_pyramid=modified_pyramid(expressed, list(pyramid.values()), count),
                lite_pyramid=lite_pyramid(len(found), len(questions)),
            )
        )
    return scores


@dataclass(frozen=True)
class SystemScore:
    """A system's mean of each measure over the inputs it summarised, with its interval."""

    system: str
    inputs: int
    scores: dict[str, MeanInterval]


def system_scores(scores: Sequence[SummaryScore], method: IntervalMethod = OVER_INPUTS) -> list[SystemScore]:
    """Each system's means over inputs with bootstrap intervals (``intervals.mean_intervals``), the
    systems resampled over the same inputs: those every system summarised (a system missing an
    input would otherwise be compared on other inputs). Best LitePyramid first."""
    by_system: dict[str, dict[str, SummaryScore]] = {}
    for score in scores:
        by_system.setdefault(score.system, {})[score.input] = score
    if not by_system:
        return []
    shared = sorted(set.intersection(*(set(inputs) for inputs in by_system.values())))
    systems = sorted(by_system)
    out = {name: {} for name in systems}  # type: dict[str, dict[str, MeanInterval]]
    for measure in MEASURES:
        columns = [[getattr(by_system[name][i], measure) for i in shared] for name in systems]
        for name, interval in zip(systems, mean_intervals(columns, method), strict=True):
            out[name][measure] = interval
    ranked = [SystemScore(name, len(shared), out[name]) for name in systems]
    return sorted(ranked, key=lambda s: (-s.scores["lite_pyramid"].mean, s.system))
