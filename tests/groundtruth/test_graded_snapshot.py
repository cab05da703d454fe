"""A graded-relevance project's snapshot: the ordered agreement figures it stores (linearly weighted
Cohen's kappa, ordinal Krippendorff's alpha) equal statsmodels' and the krippendorff package's on the
same judgements, and the majority vote's ties are the ones stored."""

from __future__ import annotations

import itertools
import math
import random

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.minimums import ITEMS_FOR_KAPPA
from annotation.models import Project
from evaluation.ground_truth.build import build_snapshot
from tests.groundtruth.builders import items, judge, label_project

pytestmark = pytest.mark.django_db

LEVELS = [0, 1, 2, 3]
GRADED = {"levels": [{"value": value, "label": f"grade {value}"} for value in LEVELS]}


@pytest.fixture
def judged(researcher, annotators, django_user_model):
    """Sixteen items, each judged by three or four of four annotators: the true grade, or a grade
    next to it, or now and then any grade (seeded), so that every level is used and some items split."""
    people = [*annotators, django_user_model.objects.create_user("annotator4", password="annotator4")]
    project = label_project(
        researcher,
        people,
        items=16,
        task_type=Project.TaskType.GRADED_RELEVANCE,
        config=GRADED,
    )
    rng = random.Random(7)
    triples = []
    for position, task in enumerate(items(project)):
        truth = rng.choice(LEVELS)
        judges = people if position % 2 == 0 else rng.sample(people, 3)
        for person in judges:
            roll = rng.random()
            if roll < 0.5:
                label = truth
            elif roll < 0.85:
                label = min(max(truth + rng.choice((-1, 1)), LEVELS[0]), LEVELS[-1])
            else:
                label = rng.choice(LEVELS)
            judge(task, person, label)
            triples.append((task.pk, person.pk, label))
    assert {label for _, _, label in triples} == set(LEVELS)  # so kappa's weights span every level
    return project, triples


def statsmodels_mean_kappa(triples, weights):
    """Mean over annotator pairs sharing the product's minimum of items (ITEMS_FOR_KAPPA) of
    statsmodels' kappa of their table, each pair weighted by its shared items."""
    by_worker: dict = {}
    for item, worker, label in triples:
        by_worker.setdefault(worker, {})[item] = label
    kappas, counts = [], []
    for first, second in itertools.combinations(sorted(by_worker), 2):
        shared = sorted(set(by_worker[first]) & set(by_worker[second]))
        if len(shared) < ITEMS_FOR_KAPPA.count:
            continue
        table = np.zeros((len(LEVELS), len(LEVELS)))
        for item in shared:
            table[by_worker[first][item], by_worker[second][item]] += 1
        with np.errstate(all="ignore"):
            value = cohens_kappa(table, wt=weights, return_results=False)
        if not math.isnan(value):
            kappas.append(value)
            counts.append(len(shared))
    return float(np.average(kappas, weights=counts)), len(kappas)


def package_alpha(triples, level):
    workers = sorted({worker for _, worker, _ in triples})
    tasks = sorted({item for item, _, _ in triples})
    matrix = np.full((len(workers), len(tasks)), np.nan)
    for item, worker, label in triples:
        matrix[workers.index(worker), tasks.index(item)] = label
    return krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)


def test_the_ordered_figures_equal_statsmodels_and_the_krippendorff_package(judged):
    project, triples = judged
    snapshot = build_snapshot(project.pk)
    ordered = snapshot.agreement["ordered"]
    linear_mean, pairs = statsmodels_mean_kappa(triples, "linear")
    assert ordered["cohen_kappa_weights"] == "linear"
    assert ordered["cohen_kappa_mean"] == pytest.approx(linear_mean, abs=1e-12)
    assert ordered["cohen_kappa_pairs"] == pairs
    assert ordered["krippendorff_level"] == "ordinal"
    assert ordered["krippendorff_alpha"] == pytest.approx(package_alpha(triples, "ordinal"), abs=1e-12)
    # The plain figures sit beside them, and the weighting is not a no-op on these judgements.
    plain_mean, _ = statsmodels_mean_kappa(triples, None)
    assert snapshot.agreement["cohen_kappa_mean"] == pytest.approx(plain_mean, abs=1e-12)
    assert snapshot.agreement["krippendorff_alpha"] == pytest.approx(
        package_alpha(triples, "nominal"), abs=1e-12
    )
    assert ordered["cohen_kappa_mean"] != pytest.approx(plain_mean)


def test_the_majority_vote_and_its_ties_are_stored(judged):
    project, triples = judged
    snapshot = build_snapshot(project.pk)
    vote = majority_vote(triples, tie_rule="lower")
    assert vote.ties  # the design splits some items, so the tie rule matters here
    assert snapshot.agreement["ties"] == sorted(vote.ties)
    assert snapshot.parameters == {"tie_rule": "lower"}  # k = 3: a rule nobody chose is the lower label
    assert {row.task_id: row.tie for row in snapshot.labels.exclude(tie="")} == dict.fromkeys(
        vote.ties, "lower"
    )
    stored = {row.task_id: (row.label, row.confidence) for row in snapshot.labels.all()}
    assert stored == {task: (vote.labels[task], pytest.approx(vote.confidence[task])) for task in vote.labels}


def test_a_level_no_one_used_still_counts_in_the_weighted_distance(researcher, annotators):
    # Grades 0, 1 and 3 only: on the 0–3 scale a 1 against a 3 is two steps apart, which is what
    # statsmodels gives on tables over all four levels (on the three seen it would be one step).
    project = label_project(
        researcher, annotators, items=12, task_type=Project.TaskType.GRADED_RELEVANCE, config=GRADED
    )
    grades = [(0, 1), (1, 3), (3, 3), (0, 0), (1, 0), (3, 3)] * 2  # 12 items: a pair's kappa needs 10
    triples = []
    for task, pair in zip(items(project), grades, strict=True):
        for person, label in zip(annotators[:2], pair, strict=True):
            judge(task, person, label)
            triples.append((task.pk, person.pk, label))
    ordered = build_snapshot(project.pk).agreement["ordered"]
    table = np.zeros((len(LEVELS), len(LEVELS)))
    for first, second in grades:
        table[first, second] += 1
    expected = cohens_kappa(table, wt="linear", return_results=False)
    seen_only = cohens_kappa(table[np.ix_([0, 1, 3], [0, 1, 3])], wt="linear", return_results=False)
    assert ordered["cohen_kappa_mean"] == pytest.approx(expected, abs=1e-12)
    assert expected != pytest.approx(seen_only)
    assert ordered["krippendorff_alpha"] == pytest.approx(package_alpha(triples, "ordinal"), abs=1e-12)
    assert [row["label"] for row in ordered["per_label"]["labels"]] == LEVELS
