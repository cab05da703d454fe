"""How a vote's ties are broken, by a named rule: the lowest tied label, the highest, one drawn at random
(seeded), or the one the annotators with the better gold accuracy gave."""

from __future__ import annotations

import numpy as np

# How a vote's ties are broken: the lowest label of the tied ones (the conservative choice for
# relevance: a 1–1 split is not relevant), the highest, one drawn at random (seeded), or the one the
# annotators with the better gold accuracy gave (majority vote only; see ``majority_vote``).
TIE_RULES = ("lower", "higher", "random", "gold_weighted")


# The names these rules had before the project setting named them: still accepted, recorded as the new.
TIE_RULE_ALIASES = {"smallest": "lower", "largest": "higher"}


def tie_rule_named(name: str) -> str:
    """The rule's name as ``TIE_RULES`` writes it (``smallest`` and ``largest`` are the old names of
    ``lower`` and ``higher``); ValueError for an unknown one."""
    return _check_tie_rule(name, TIE_RULES)


def _check_tie_rule(tie_rule: str, allowed: tuple[str, ...]) -> str:
    tie_rule = TIE_RULE_ALIASES.get(tie_rule, tie_rule)
    if tie_rule not in allowed:
        raise ValueError(f"tie_rule must be one of {', '.join(allowed)}, not {tie_rule!r}")
    return tie_rule


def _tie_parameters(tie_rule: str, seed: int) -> dict:
    return {"tie_rule": tie_rule} | ({"seed": seed} if tie_rule == "random" else {})


def _break_ties(leaders: np.ndarray, tie_rule: str, seed: int) -> np.ndarray:
    """The winning class of every row of ``leaders`` (items × classes, True where a class leads)."""
    if tie_rule == "lower":
        return leaders.argmax(axis=1)
    if tie_rule == "higher":
        return leaders.shape[1] - 1 - leaders[:, ::-1].argmax(axis=1)
    return (np.random.default_rng(seed).random(leaders.shape) * leaders).argmax(axis=1)
