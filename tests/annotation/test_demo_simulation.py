"""The demo's simulated crowd: deterministic by seed, as good as configured, never judging twice."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from evaluation.demo.simulate import (
    DEMO_CROWD,
    PAUSE_SECONDS,
    SimulatedAnnotator,
    SimulatedJudgement,
    simulate_judgements,
    submission_times,
)

# 4,000 tasks, one in four relevant: each annotator judges ~2,400 of them (3 of 5 per task), so
# about 600 relevant and 1,800 not; a rate's standard error is then at most 0.02 (sensitivity)
# and 0.012 (specificity), and 0.05 is more than 2.5 of them.
TASKS = [(str(topic), f"d{doc}") for topic in range(40) for doc in range(100)]
QRELS = {str(topic): {f"d{doc}": int(doc % 4 == 0) for doc in range(100)} for topic in range(40)}


def test_the_same_seed_gives_the_same_judgements_and_another_seed_others():
    first = simulate_judgements(TASKS[:200], QRELS, seed=7)
    assert first == simulate_judgements(TASKS[:200], QRELS, seed=7)
    assert first != simulate_judgements(TASKS[:200], QRELS, seed=8)


def test_every_task_gets_k_judgements_from_k_different_annotators():
    judgements = simulate_judgements(TASKS[:500], QRELS, per_task=3, seed=1)
    by_task = defaultdict(list)
    for judgement in judgements:
        by_task[judgement.task].append(judgement.annotator)
    assert list(by_task) == TASKS[:500]  # in the order given
    assert all(len(names) == len(set(names)) == 3 for names in by_task.values())
    with pytest.raises(ValueError):
        simulate_judgements(TASKS[:1], QRELS, per_task=len(DEMO_CROWD) + 1)


def test_each_annotators_error_rates_are_near_those_configured():
    judgements = simulate_judgements(TASKS, QRELS, seed=3)
    said = defaultdict(Counter)  # annotator -> (truth, label) -> count
    for judgement in judgements:
        topic, document = judgement.task
        said[judgement.annotator][QRELS[topic][document], judgement.label] += 1
    for annotator in DEMO_CROWD:
        counts = said[annotator.name]
        sensitivity = counts[1, 1] / (counts[1, 1] + counts[1, 0])
        specificity = counts[0, 0] / (counts[0, 0] + counts[0, 1])
        assert sensitivity == pytest.approx(annotator.sensitivity, abs=0.05), annotator
        assert specificity == pytest.approx(annotator.specificity, abs=0.05), annotator


def test_the_demo_crowd_is_realistic_with_one_careless_annotator_near_chance():
    careful = [a for a in DEMO_CROWD if min(a.sensitivity, a.specificity) >= 0.7]
    careless = [a for a in DEMO_CROWD if a not in careful]
    assert len(careful) == len(DEMO_CROWD) - 1
    assert all(0.7 <= rate <= 0.95 for a in careful for rate in (a.sensitivity, a.specificity))
    assert len(careless) == 1 and abs(careless[0].sensitivity + careless[0].specificity - 1) < 0.1


def test_pairs_the_qrels_do_not_name_are_not_relevant_and_times_are_positive():
    perfect = SimulatedAnnotator("perfect", sensitivity=1.0, specificity=1.0, median_seconds=10)
    judgements = simulate_judgements([("1", "unjudged"), ("1", "d1")], QRELS, crowd=[perfect], per_task=1)
    assert [j.label for j in judgements] == [0, 0]
    assert all(j.seconds > 0 for j in judgements)
    assert simulate_judgements([("0", "d0")], QRELS, crowd=[perfect], per_task=1)[0].label == 1


def test_each_simulated_annotator_works_back_to_back_until_the_end():
    judgements = [
        SimulatedJudgement(("1", "d1"), "fast", 1, seconds=5.0),
        SimulatedJudgement(("1", "d1"), "slow", 0, seconds=30.0),
        SimulatedJudgement(("1", "d2"), "fast", 0, seconds=4.0),
        SimulatedJudgement(("1", "d2"), "slow", 1, seconds=20.0),
    ]
    times = submission_times(judgements, end=1000.0)
    # Each one's last judgement ends at the end; the one before ends its seconds and a pause earlier.
    assert times == [1000.0 - 4.0 - PAUSE_SECONDS, 1000.0 - 20.0 - PAUSE_SECONDS, 1000.0, 1000.0]
