"""Counting units for ROUGE-N and ROUGE-S/SU (Lin 2004, §2 and §5).

Skip-bigrams follow ROUGE-1.5.5's ``createSkipBigram`` exactly, because its definitions are the
ones people report as ROUGE-S4/SU4:

* a skip-bigram is an ordered pair of tokens (t_i, t_j), i < j, with at most ``max_skip`` tokens
  between them (j − i ≤ max_skip + 1); ``max_skip=None`` means any gap (ROUGE-S*);
* pairs are taken over the whole text (sentences joined), like n-grams;
* ROUGE-SU adds unigrams to the skip-bigrams. Lin (2004, §5.1) describes this as adding a
  begin-of-sentence marker, but ROUGE-1.5.5 adds no marker: inside its pair loop it counts the
  unigram t_i for i = 0 … n−2, so **the last token's unigram is never counted** and a one-token
  text has no units at all. We count the same units.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """Counts of the n-grams of ``tokens``; unigrams are plain tokens, longer n-grams tuples."""
    if n == 1:
        return Counter(tokens)
    if n == 2:
        return Counter(pairwise(tokens))
    return Counter(zip(*(tokens[i:] for i in range(n)), strict=False))


def skip_bigram_counts(tokens: Sequence[str], max_skip: int | None, unigrams: bool = False) -> Counter:
    """ROUGE-1.5.5's skip-bigram units (with ``unigrams``: its ROUGE-SU units), see module docstring."""
    n = len(tokens)
    reach = n if max_skip is None or max_skip < 0 else max_skip + 1
    counts: Counter = Counter()
    for gap in range(1, min(reach, n - 1) + 1):
        counts.update(zip(tokens, tokens[gap:], strict=False))
    if unigrams and n > 1:
        # Unigrams are 1-tuples so they never collide with a pair.
        counts.update(zip(tokens[:-1], strict=True))
    return counts


def clipped_overlap(reference: Counter, candidate: Counter) -> int:
    """Σ over reference units of min(count in reference, count in candidate)."""
    if len(candidate) < len(reference):
        reference, candidate = candidate, reference
    get = candidate.get
    total = 0
    for unit, count in reference.items():
        other = get(unit)
        if other:
            total += count if count < other else other
    return total
