"""The leaderboard's trust checks against reference computations done here with pytrec_eval and
scipy: unjudged shares, leave-one-run-out re-scoring and Kendall's τ, on Cranfield's official qrels
with generated runs, plus τ_AP's defining examples."""

from __future__ import annotations

import random

import pytest
import pytrec_eval
from scipy import stats

from evaluation.metrics.trec.files import trec_order
from evaluation.metrics.trust import (
    flipped_pairs,
    kendall_tau,
    leave_one_out,
    mean_unjudged_share,
    symmetric_tau_ap,
    tau_ap,
    unjudged_share,
)
from tests.metrics.test_trec_measures_vs_pytrec_eval import cranfield_qrels

DEPTH = 10


def generated_runs(qrels, count: int = 6, seed: int = 11) -> dict:
    """Runs of varying quality: each ranks a share of the judged documents among random ones."""
    rng = random.Random(seed)
    runs = {}
    for number in range(count):
        keep = 0.15 + 0.12 * number
        run = {}
        for qid, judged in qrels.items():
            relevant = [doc for doc, rel in judged.items() if rel > 0 and rng.random() < keep]
            noise = [str(rng.randint(1, 1400)) for _ in range(40)]
            run[qid] = {doc: rng.random() + (1.0 if doc in relevant else 0.0) for doc in relevant + noise}
        runs[f"run{number}"] = run
    return runs


def pytrec_map(qrels, run) -> float:
    """MAP over every qrels topic (a topic the run misses scores 0), as trec_eval -c computes it."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map"})
    per_topic = evaluator.evaluate({qid: scores for qid, scores in run.items() if qid in qrels})
    return sum(per_topic.get(qid, {"map": 0.0})["map"] for qid in qrels) / len(qrels)


@pytest.fixture(scope="module")
def cranfield(data_set):
    qrels = cranfield_qrels(data_set)
    return qrels, generated_runs(qrels)


def test_unjudged_shares_equal_a_direct_count(cranfield):
    qrels, runs = cranfield
    for run in runs.values():
        shares = unjudged_share(run, qrels, (5, 10, 20))
        for qid, by_cutoff in shares.items():
            ranked = trec_order(run[qid])
            for k, share in by_cutoff.items():
                assert share == sum(doc not in qrels[qid] for doc in ranked[:k]) / min(k, len(ranked))
        mean = mean_unjudged_share(shares)
        assert mean[10] == pytest.approx(sum(s[10] for s in shares.values()) / len(shares))


def test_a_run_shorter_than_k_has_its_unjudged_share_over_what_it_retrieved():
    """Found on the way (issue 25, item 7): the share was over k, so at 100 a run of 30 documents,
    none judged, showed 30 % unjudged; every document it ranked is unjudged."""
    qrels = {"1": {f"judged{i}": 1 for i in range(200)}}
    short = {"1": {f"unseen{i}": 30.0 - i for i in range(30)}}
    assert unjudged_share(short, qrels, (10, 100)) == {"1": {10: 1.0, 100: 1.0}}
    half = {"1": {f"{'judged' if i % 2 else 'unseen'}{i}": 40.0 - i for i in range(40)}}
    assert unjudged_share(half, qrels, (10, 100)) == {"1": {10: 0.5, 100: 0.5}}
    long = {"1": {f"{'judged' if i < 150 else 'unseen'}{i}": 200.0 - i for i in range(200)}}
    assert unjudged_share(long, qrels, (100, 200)) == {"1": {100: 0.0, 200: 0.25}}
    assert unjudged_share({"1": {}}, qrels, (10,)) == {"1": {10: 1.0}}


def test_leave_one_run_out_equals_pytrec_eval_on_qrels_without_its_unique_documents(cranfield):
    qrels, runs = cranfield
    results = {result.run: result for result in leave_one_out(runs, qrels, DEPTH)}
    full = {name: pytrec_map(qrels, run) for name, run in runs.items()}
    pooled = {name: {qid: set(trec_order(s)[:DEPTH]) for qid, s in run.items()} for name, run in runs.items()}
    for name, run in runs.items():
        others = set().union(
            *({(q, d) for q, docs in pooled[o].items() for d in docs} for o in runs if o != name)
        )
        unique = {(q, d) for q, docs in pooled[name].items() for d in docs} - others
        reduced = {
            qid: {d: r for d, r in judged.items() if (qid, d) not in unique} for qid, judged in qrels.items()
        }
        assert results[name].score == pytest.approx(full[name], abs=1e-12)
        assert results[name].score_left_out == pytest.approx(pytrec_map(reduced, run), abs=1e-12)
        assert results[name].score_left_out <= results[name].score + 1e-12  # losing judgements only hurts
        assert results[name].unique_relevant == sum(qrels[q].get(d, 0) > 0 for q, d in unique if q in qrels)
    ranked = sorted(full, key=lambda n: -full[n])
    assert [results[name].rank for name in ranked] == list(range(1, len(runs) + 1))


def test_a_group_is_left_out_together(cranfield):
    qrels, runs = cranfield
    groups = {name: ("team-a" if name in ("run0", "run1") else name) for name in runs}
    together = {r.run: r for r in leave_one_out(runs, qrels, DEPTH, groups=groups)}
    alone = {r.run: r for r in leave_one_out(runs, qrels, DEPTH)}
    # Leaving a team's two runs out removes at least what leaving either alone removes.
    assert together["run0"].score_left_out <= alone["run0"].score_left_out + 1e-12
    assert together["run0"].group == together["run1"].group == "team-a"


def test_kendall_tau_is_scipys_and_flipped_pairs_are_its_discordant_pairs(cranfield):
    qrels, runs = cranfield
    crowd = {name: pytrec_map(qrels, run) for name, run in runs.items()}
    rng = random.Random(3)
    other = {name: value + rng.gauss(0, 0.03) for name, value in crowd.items()}
    names = sorted(crowd)
    expected = stats.kendalltau([crowd[n] for n in names], [other[n] for n in names]).statistic
    assert kendall_tau(crowd, other) == pytest.approx(expected)
    n = len(names)
    flips = flipped_pairs(crowd, other)
    assert kendall_tau(crowd, other) == pytest.approx(1 - 4 * len(flips) / (n * (n - 1)))


def test_tau_ap_punishes_a_swap_at_the_top_more_than_one_at_the_bottom():
    reference = ["a", "b", "c", "d"]
    assert tau_ap(reference, reference) == 1.0
    assert tau_ap(reference, list(reversed(reference))) == -1.0
    # By hand: C(i)/(i-1) for i = 2..4 is 0, 1, 1 (top swap) and 1, 1, 2/3 (bottom swap).
    assert tau_ap(reference, ["b", "a", "c", "d"]) == pytest.approx(2 / 3 * 2 - 1)
    assert tau_ap(reference, ["a", "b", "d", "c"]) == pytest.approx(2 / 3 * (2 + 2 / 3) - 1)
    # Kendall's τ cannot tell the two apart: one discordant pair of six either way.
    assert symmetric_tau_ap(reference, ["b", "a", "c", "d"]) < symmetric_tau_ap(
        reference, ["a", "b", "d", "c"]
    )


def test_agreement_with_reference_equals_scikit_learn_kappa():
    import random

    from sklearn.metrics import cohen_kappa_score

    from evaluation.metrics.trust import agreement_with_reference

    rng = random.Random(3)
    checked = 0
    for _ in range(50):
        topics = [str(t) for t in range(rng.randint(1, 4))]
        reference = {
            t: {f"d{i}": rng.choice([0, 0, 1, 2]) for i in range(rng.randint(2, 30))} for t in topics
        }
        crowd = {
            t: {
                doc: (rel if rng.random() < 0.8 else 1 - min(rel, 1))
                for doc, rel in docs.items()
                if rng.random() < 0.7
            }
            for t, docs in reference.items()
        }
        for row in agreement_with_reference(crowd, reference):
            shared = sorted(set(crowd[row.topic]) & set(reference[row.topic]))
            a = [int(crowd[row.topic][d] >= 1) for d in shared]
            b = [int(reference[row.topic][d] >= 1) for d in shared]
            if len(shared) < 10:
                assert row.kappa is None
                assert row.reason == f"too few shared items for a kappa ({len(shared)}; needs at least 10)"
            elif row.kappa is None:
                assert len(set(a)) == len(set(b)) == 1 and a[0] == b[0] and "undefined" in row.reason
            else:
                assert row.kappa == pytest.approx(cohen_kappa_score(a, b)) and row.reason is None
                checked += 1
            relevant = [d for d, rel in reference[row.topic].items() if rel >= 1]
            assert row.reference_relevant == len(relevant)
            assert row.reference_relevant_judged == sum(d in crowd[row.topic] for d in relevant)
    assert checked > 30


def test_the_mean_kappa_over_topics_weighs_each_by_its_shared_documents():
    from evaluation.metrics.trust import TopicAgreement, weighted_mean_kappa

    rows = [
        TopicAgreement("1", 30, 0.8, 5, 5),
        TopicAgreement("2", 10, 0.2, 5, 5),
        TopicAgreement("3", 4, None, 1, 1, "too few shared items for a kappa (4; needs at least 10)"),
    ]
    # (30 · 0.8 + 10 · 0.2) / 40 = 0.65; the unweighted mean of the two would be 0.5.
    assert weighted_mean_kappa(rows) == pytest.approx(0.65)
    assert weighted_mean_kappa(rows[2:]) is None


def test_the_kappa_over_topics_is_scikit_learns_on_every_shared_document():
    import random

    from sklearn.metrics import cohen_kappa_score

    from evaluation.metrics.trust import kappa_over_topics

    rng = random.Random(11)
    # Five topics of 4 shared documents each: no topic has enough for its own kappa, all have 20.
    reference = {str(t): {f"d{i}": int(rng.random() < 0.3) for i in range(4)} for t in range(5)}
    crowd = {
        t: {d: (r if rng.random() < 0.8 else 1 - r) for d, r in docs.items()} for t, docs in reference.items()
    }
    kappa, shared, reason = kappa_over_topics(crowd, reference)
    pairs = [(crowd[t][d], reference[t][d]) for t in reference for d in reference[t]]
    assert shared == 20 and reason is None
    assert kappa == pytest.approx(cohen_kappa_score([a for a, _ in pairs], [b for _, b in pairs]))
    few = {"1": reference["1"]}
    assert kappa_over_topics(crowd, few) == (
        None,
        4,
        "too few shared items for a kappa (4; needs at least 10)",
    )
