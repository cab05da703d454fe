"""``shared_index`` (one lookup per run and topic for every qrels) gives exactly what ``evaluate`` gives
on the same run and qrels: every all_trec measure, per topic, bit for bit, on generated collections
with graded and negative judgements, ties, topics only one side has, -J and relevance levels; and the
leave-one-out qrels equal ``trust.qrels_without``'s."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evaluation.metrics.trec.files import TopicScores, trec_ordered
from evaluation.metrics.trec.measures import evaluate, parse_measures
from evaluation.metrics.trec.shared_index import DocumentIndex, evaluate_in_order
from evaluation.metrics.trust import qrels_without

ALL_TREC = parse_measures(["all_trec"])


def generated(rng: random.Random):
    """A ground truth, two variants of it and a run, over a few topics of up to 60 documents."""
    documents = [f"d{i}" for i in range(60)]
    topics = [str(t) for t in range(rng.randint(1, 6))]

    def qrels(judged_share: float) -> dict[str, dict[str, int]]:
        return {
            topic: {d: rng.choice([0, 0, 1, 2, -1, 3]) for d in documents if rng.random() < judged_share}
            for topic in topics
            if rng.random() < 0.9
        }

    truth = qrels(0.4)
    variants = [qrels(0.3), {t: {d: max(v, 0) for d, v in judged.items()} for t, judged in truth.items()}]
    run = {}
    for topic in [*topics, "not-judged"]:
        if rng.random() < 0.85:
            chosen = rng.sample(documents, rng.randint(0, 50))
            scores = np.array([rng.choice([1.0, 0.5, rng.random()]) for _ in chosen], dtype=np.float64)
            run[topic] = trec_ordered(TopicScores(chosen, scores))
    return truth, variants, run


@pytest.mark.parametrize("seed", range(60))
def test_every_measure_equals_evaluates_for_the_ground_truth_its_variants_and_leave_one_out(seed):
    rng = random.Random(seed)
    truth, variants, run = generated(rng)
    index = DocumentIndex([truth, *variants])
    positions = {topic: index.positions(topic, columns.docnos) for topic, columns in run.items()}
    for options in ({}, {"judged_only": True}, {"relevance_level": 2}):
        for qrels in (truth, *variants):
            expected = evaluate(qrels, run, ALL_TREC, complete=True, **options)
            assert evaluate_in_order(index.values(qrels), positions, ALL_TREC, **options) == expected
        removed = {t: set(rng.sample(sorted(judged), len(judged) // 3)) for t, judged in truth.items()}
        removed["not-judged"] = {"d1"}
        expected = evaluate(qrels_without(truth, removed), run, ALL_TREC, complete=True, **options)
        left = index.values(truth).without(removed)
        assert evaluate_in_order(left, positions, ALL_TREC, **options) == expected
    assert index.values(truth).without({}).topics.keys() == truth.keys()
