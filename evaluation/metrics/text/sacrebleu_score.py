"""A sacrebleu score with its signature (Post 2018, "A Call for Clarity in Reporting BLEU Scores"), so a
stored score says exactly how it was computed; and references laid out as sacrebleu reads them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast


@dataclass(frozen=True)
class SacrebleuScore:
    """A sacrebleu score (0–100) with its n-gram precisions where it has them, and its signature."""

    metric: str
    score: float
    signature: str
    precisions: tuple[float, ...] = ()
    brevity_penalty: float | None = None


def _references_by_position(references: Sequence[Sequence[str]]) -> list[list[str]]:
    """sacrebleu wants one list per reference *position*; we take one list of references per item.

    Items with fewer references than the most are padded with None, which sacrebleu reads as "no
    reference here" (``Metric._cache_references`` drops them per segment; its signature then says
    ``nrefs:var``): each item is scored against its own references, and the corpus statistics are
    the sums of the items' (a blank string would instead be a reference of no words)."""
    if not references or any(len(refs) == 0 for refs in references):
        raise ValueError("every item needs at least one reference for corpus scores")
    most = max(len(refs) for refs in references)
    padded = [[*refs, *([None] * (most - len(refs)))] for refs in references]
    # sacrebleu's type hints leave out the None its docstring and code accept.
    return cast("list[list[str]]", [list(position) for position in zip(*padded, strict=True)])
