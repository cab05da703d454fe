"""The crowd's labels and the prior sets' merged under a stated precedence (pure: no database).

Every pair either side judged gets one label and a source:

- ``crowd``: only the crowd judged it; its label.
- ``prior``: only a prior set judged it (no item, or an item no one judged yet); the prior label.
  Under ``crowd-where-missing`` an item both judged is ``prior`` as well: the crowd's labels count
  only where no prior set judges the pair, so its judgements there serve the agreement, nothing else.
- ``both``: both judged it; ``prior-wins`` keeps the prior label, ``crowd-wins`` the crowd's.

Both labels are kept beside the merged one, so the crowd's agreement with the prior sets can be
measured on the overlap whatever the precedence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

PRECEDENCES = ("prior-wins", "crowd-wins", "crowd-where-missing")
# A label taken from a prior set is a given, not an estimate (as a researcher's decision).
PRIOR_CONFIDENCE = 1.0

Pair = tuple[int, int]  # (topic id, document id)


@dataclass
class Merged:
    """``labels``: the snapshot's item rows ``(task, label, confidence, judgements, details)``;
    ``sources``: per item of the overlap ``(source, prior label, crowd label)`` (others are crowd);
    ``prior_only``: ``(topic, document, label)`` of the pairs only a prior set judged."""

    labels: list
    sources: dict[int, tuple[str, int, int]] = field(default_factory=dict)
    prior_only: list[tuple[int, int, int]] = field(default_factory=list)


def merge_labels(
    labels: list, pairs: Mapping[int, Pair], prior: Mapping[Pair, int], precedence: str
) -> Merged:
    """Merge the crowd's item rows ``labels`` (``(task, label, …)``; ``pairs`` gives each task's
    (topic, document)) with ``prior`` ({(topic, document): label}) under ``precedence``."""
    if precedence not in PRECEDENCES:
        raise ValueError(f"precedence must be one of {', '.join(PRECEDENCES)}, not {precedence!r}")
    merged = Merged([])
    crowd_pairs: set[Pair] = set()
    for task, label, confidence, count, details in labels:
        pair = pairs.get(task)
        if pair is None or pair not in prior or label is None:
            merged.labels.append((task, label, confidence, count, details))
            continue
        crowd_pairs.add(pair)
        theirs = prior[pair]
        if precedence == "crowd-wins":
            merged.labels.append((task, label, confidence, count, details))
            merged.sources[task] = ("both", theirs, label)
        else:
            merged.labels.append((task, theirs, PRIOR_CONFIDENCE, count, details))
            merged.sources[task] = ("both" if precedence == "prior-wins" else "prior", theirs, label)
    merged.prior_only = sorted(
        (topic, document, label)
        for (topic, document), label in prior.items()
        if (topic, document) not in crowd_pairs
    )
    return merged
