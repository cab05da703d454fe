"""Tied votes in a ground-truth snapshot: how each was settled, or that it still waits to be.

Under majority vote an item whose labels tie (a 1–1 split with k = 2) follows the project's tie rule
(``Project.tie_rule``). The rules that *break* a tie do it in the snapshot itself: the lower label,
the higher, or the label of the annotators with the better gold accuracy. The rules that *refer* it
send the item to one more annotator or to the researcher (``annotation.adjudication.rules``); until that
is done the snapshot labels it with the lower label — the conservative reading for relevance (a
split is not relevant), and the label majority vote gave ties before projects chose — and says it
is waiting (``WAITING_EXTRA_ANNOTATOR``, ``WAITING_RESEARCHER``). A settled tie says who settled it.

Each tied item's state is stored on its ``SnapshotLabel.tie``; the agreement and ground-truth pages
and the API list them (``tied_items``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping

from annotation.models import AdjudicatedBy, Project, Task
from evaluation.models import GroundTruthSnapshot, SnapshotLabel

# The label a referred tie has until it is settled (``Project.vote_tie_rule``).
MEANWHILE = Project.TieRule.LOWER

# A tie's state in a snapshot: broken by a rule (the rule's name), waiting, or settled by a person.
WAITING_EXTRA_ANNOTATOR = "waiting_extra_annotator"
WAITING_RESEARCHER = "waiting_researcher"
SETTLED_BY_EXTRA_ANNOTATOR = "extra_annotator"
SETTLED_BY_RESEARCHER = "researcher"

STATES = {
    Project.TieRule.LOWER: "broken by the lower label",
    Project.TieRule.HIGHER: "broken by the higher label",
    Project.TieRule.GOLD_WEIGHTED: "broken by the gold-weighted vote",
    WAITING_EXTRA_ANNOTATOR: "waiting for one more annotator (the lower label meanwhile)",
    WAITING_RESEARCHER: "waiting for you to settle it (the lower label meanwhile)",
    SETTLED_BY_EXTRA_ANNOTATOR: "settled by one more annotator",
    SETTLED_BY_RESEARCHER: "settled by you",
}
WAITING = (WAITING_EXTRA_ANNOTATOR, WAITING_RESEARCHER)


def describe_state(state: str) -> str:
    return STATES.get(state, state)


def tie_states(
    ties: list[Hashable],
    tie_breaks: Mapping[Hashable, str],
    referrals: Mapping[Hashable, tuple[str, str, bool]],
    decisions: Mapping[Hashable, object],
    extra_assessors: Mapping[Hashable, object],
) -> dict[Hashable, str]:
    """The state of every item whose vote is tied in this snapshot, or was when it was referred.

    ``ties`` and ``tie_breaks`` are the vote's (``AggregationResult``); ``referrals`` maps each
    referred item to (where it was referred, why, whether it is complete); ``decisions`` are the
    researchers' decisions in force and ``extra_assessors`` the items whose extra judgement is in.

    A tied item a researcher decided is ``researcher``; one waiting for its extra annotator or for
    the researcher says so; otherwise its tie-break says how it was broken (also for an item whose
    extra annotator left it tied: 1–1–1). An item referred *because* it was tied that is no longer
    tied was settled by one more annotator (2–1), or by the researcher.
    """
    states: dict[Hashable, str] = {}
    for item in ties:
        route, _, complete = referrals.get(item, ("", "", True))
        if item in decisions:
            states[item] = SETTLED_BY_RESEARCHER
        elif route == AdjudicatedBy.EXTRA_ASSESSOR and not complete:
            states[item] = WAITING_EXTRA_ANNOTATOR
        elif route == AdjudicatedBy.RESEARCHER:
            states[item] = WAITING_RESEARCHER
        else:
            states[item] = tie_breaks.get(item, MEANWHILE)
    for item, (_, reason, _) in referrals.items():
        if item in states or reason != Task.ReferralReason.TIE:
            continue
        if item in decisions:
            states[item] = SETTLED_BY_RESEARCHER
        elif item in extra_assessors:
            states[item] = SETTLED_BY_EXTRA_ANNOTATOR
    return states


def rule_parameters(project: Project) -> dict:
    """What a majority-vote snapshot records of its tie rule (its parameters, and so its signature)."""
    if project.tie_route is None:
        return {"tie_rule": project.vote_tie_rule}
    return {"tie_rule": project.tie_rule, "ties_meanwhile": MEANWHILE}


def rule_in_words(parameters: Mapping) -> str:
    """A snapshot's tie rule as its pages say it, from its parameters."""
    rule = parameters.get("tie_rule")
    if rule is None:
        return "no tie rule (the method does not vote)"
    old_names = {"smallest": Project.TieRule.LOWER, "largest": Project.TieRule.HIGHER}
    said = dict(Project.TieRule.choices).get(old_names.get(rule, rule), rule)
    if parameters.get("ties_meanwhile"):
        return f"{said}; the lower label until then"
    return said


def state_counts(states: Mapping[Hashable, str]) -> dict[str, int]:
    return dict(Counter(states.values()))


# Tied items a page lists by name (the count, and the API, cover all of them).
TIES_ON_PAGE = 200


def tie_report(
    project: Project, snapshot: GroundTruthSnapshot | None, limit: int | None = None
) -> dict | None:
    """A snapshot's tie rule and tied items, as the agreement and ground-truth pages and the API give
    them: the rule in words, how many items tied and by state, and each item (its title, its label in
    the snapshot and its state), waiting ones first; None for a snapshot without votes (ratings)."""
    if snapshot is None or not project.has_labels:
        return None
    labels = SnapshotLabel.objects.filter(snapshot=snapshot).select_related(
        "task__topic", "task__document", "task__document_b"
    )
    rows = list(labels.exclude(tie="").order_by("task__pool_rank", "task_id"))
    if not rows and snapshot.agreement.get("ties"):
        # Written before ties had states: every listed tie was broken by the snapshot's rule.
        rows = list(
            labels.filter(task_id__in=snapshot.agreement["ties"]).order_by("task__pool_rank", "task_id")
        )
        old_rule = {"largest": Project.TieRule.HIGHER}.get(snapshot.parameters.get("tie_rule"), MEANWHILE)
        for row in rows:
            row.tie = old_rule
    counts = Counter(row.tie for row in rows)
    names = project.type.label_names(project.config)
    chosen = sorted(rows, key=lambda row: row.tie not in WAITING)  # stable: pool order within each
    if limit is not None:
        chosen = chosen[:limit]
    return {
        "rule": snapshot.parameters.get("tie_rule"),
        "rule_in_words": rule_in_words(snapshot.parameters),
        "ties_meanwhile": snapshot.parameters.get("ties_meanwhile"),
        "count": sum(counts.values()),
        "waiting": sum(counts[state] for state in WAITING),
        "by_state": {
            state: {"count": n, "in_words": describe_state(state)} for state, n in sorted(counts.items())
        },
        "items": [
            {
                "item": row.task_id,
                "title": str(row.task.title),
                "ids": str(row.task),
                "label": row.label,
                "label_name": str(names.get(row.label, row.label)) if row.label is not None else "—",
                "state": row.tie,
                "in_words": describe_state(row.tie),
            }
            for row in chosen
        ],
    }
