"""The ground-truth job's gold-weighted vote, end to end: gold questions answered by annotators of
known reliability, the Celery task run on them, and a snapshot whose labels, confidences, ties and
gold weights are what the pure ``gold_weighted_vote`` gives on the same judgements."""

from __future__ import annotations

import pytest

from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.models import Project
from evaluation.ground_truth.tasks import compute_ground_truth
from evaluation.models import GroundTruthJob
from tests.groundtruth.builders import correct, gold_items, items, judge, label_project

pytestmark = pytest.mark.django_db

# How many of the six gold questions (expected labels 1, 0, 1, 0, 1, 0) each annotator answers
# right at first: "expert" and "peer" all six (equal weights), "guesser" four, "careless" four;
# "newcomer" answers none, so has no record and weight 0.
RIGHT_ON_GOLD = {"expert": 6, "peer": 6, "guesser": 4, "careless": 4}


@pytest.fixture
def people(researcher, annotators, django_user_model):
    extra = [django_user_model.objects.create_user(name, password=name) for name in ("careless", "newcomer")]
    return dict(
        zip(["expert", "peer", "guesser", "careless", "newcomer"], [*annotators, *extra], strict=True)
    )


@pytest.fixture
def project(researcher, people):
    project = label_project(
        researcher,
        list(people.values()),
        items=8,
        gold=6,
        ground_truth_method=Project.GroundTruthMethod.GOLD_WEIGHTED,
    )
    return project


def answer_gold(project, people) -> tuple[list, dict]:
    """Each annotator answers the gold questions per ``RIGHT_ON_GOLD``; returns the first answers
    as (task, annotator, label) and the expected labels. The guesser corrects one wrong answer
    afterwards: only first answers weigh an annotator, so the correction must not count."""
    gold = {task.pk: task.gold_answer["label"] for task in gold_items(project)}
    first = []
    for name, right in RIGHT_ON_GOLD.items():
        for position, (task_id, expected) in enumerate(gold.items()):
            label = expected if position < right else 1 - expected
            judgement = judge(project.tasks.get(pk=task_id), people[name], label)
            first.append((task_id, people[name].pk, label))
            if name == "guesser" and label != expected:
                correct(judgement, expected)
    return first, gold


# Item by item: who says what. The expert alone outweighs guesser and careless together (d0, d1),
# and expert with peer beat them in a 2–2 split (d2), so the weighted vote leaves plain majority
# there; on d6 expert and peer weigh exactly the same and disagree (a tie); on d7 the newcomer's
# vote weighs nothing, so careless decides a 1–1 split that plain majority breaks the other way.
ANSWERS = [
    {"expert": 1, "guesser": 0, "careless": 0},
    {"expert": 0, "guesser": 1, "careless": 1, "newcomer": 1},
    {"expert": 1, "peer": 1, "guesser": 0, "careless": 0},
    {"expert": 0, "peer": 0, "guesser": 0},
    {"peer": 1, "guesser": 0, "careless": 1},
    {"guesser": 1, "careless": 1, "newcomer": 0},
    {"expert": 1, "peer": 0},
    {"newcomer": 0, "careless": 1},
]


def test_the_snapshot_equals_the_pure_gold_weighted_vote_on_the_same_judgements(project, people):
    gold_triples, gold = answer_gold(project, people)
    triples = []
    for task, answers in zip(items(project), ANSWERS, strict=True):
        for name, label in answers.items():
            judge(task, people[name], label)
            triples.append((task.pk, people[name].pk, label))
    run = GroundTruthJob.objects.create(project=project)

    assert compute_ground_truth(project.pk, run.pk) == 1

    run.refresh_from_db()
    snapshot = run.snapshot
    expected = gold_weighted_vote(triples + gold_triples, gold, tie_rule="lower")
    item_ids = [task.pk for task in items(project)]
    stored = {row.task_id: row for row in snapshot.labels.all()}
    assert sorted(stored) == sorted(item_ids)  # gold questions get no label
    assert {task: row.label for task, row in stored.items()} == {
        task: expected.labels[task] for task in item_ids
    }
    for task in item_ids:
        assert stored[task].confidence == pytest.approx(expected.confidence[task])
    assert snapshot.agreement["ties"] == sorted(task for task in expected.ties if task not in gold)
    weights = expected.parameters["annotator_weights"]
    for person in people.values():
        assert snapshot.annotator_report["annotators"][str(person.pk)]["gold_weight"] == pytest.approx(
            weights[person.pk]
        )
    assert (snapshot.method, snapshot.parameters) == ("gold-weighted", {"tie_rule": "lower"})

    # The design did what it says: weights follow the known reliability, d6 is the one tie, and the
    # weighted vote departs from plain majority on d0, d1, d2 and d7.
    by_name = {name: weights[person.pk] for name, person in people.items()}
    assert by_name["expert"] == by_name["peer"] > by_name["guesser"] == by_name["careless"] > 0
    assert by_name["newcomer"] == 0
    assert snapshot.agreement["ties"] == [item_ids[6]]
    plain = majority_vote(triples)
    assert [task for task in item_ids if plain.labels[task] != stored[task].label] == [
        item_ids[i] for i in (0, 1, 2, 7)
    ]
