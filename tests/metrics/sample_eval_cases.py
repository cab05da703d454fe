"""Generated sampled pools for comparing ``inferred.sample_eval`` with NIST's ``sample_eval.pl``: shared by
the test that runs the script (``SAMPLE_EVAL_PL``) and by ``tests/data/sample_eval/record.py``, which
records the script's output for the test that runs everywhere.

Each case pools a few random runs with ``stratified_sample``, judges the sampled pairs at random
(grades 0–3, most not relevant), and evaluates a run that retrieves pooled and unsampled documents,
documents outside the pool, tied scores, runs shorter than 10 and longer than 1000 documents, a topic
the sample qrels lack and topics the run lacks."""

from __future__ import annotations

import io
import random
from typing import NamedTuple

from evaluation.metrics.trec.files import Run, write_run
from evaluation.metrics.trec.sample_files import write_sample_qrels
from evaluation.metrics.trec.sampling import Stratum, stratified_sample

DESIGNS = {
    "yilmaz2008": (Stratum(1, 10, 1.0), Stratum(11, 100, 0.2), Stratum(101, 1000, 0.05)),
    "two-strata": (Stratum(1, 5, 1.0), Stratum(6, 60, 0.3)),
    "twelve-strata": tuple(Stratum(1 + 10 * i, 10 * (i + 1), 1.0 / (i + 1)) for i in range(12)),
    "thin": (Stratum(1, 20, 0.5), Stratum(21, 200, 0.02)),
}


class Case(NamedTuple):
    name: str
    sample_qrels: str
    run: str


def _random_run(rng: random.Random, topics: list[str], universe: int, ties: bool) -> Run:
    run: Run = {}
    for topic in topics:
        length = rng.choice([3, 8, 40, 120, 400, 1100]) if rng.random() < 0.3 else rng.randint(50, 300)
        docnos = rng.sample(range(universe), min(length, universe))
        if not ties:  # statAP_MQ_eval ranks tied scores in Perl's hash order, which varies
            scores = rng.sample(range(10**9), len(docnos))
            run[topic] = {f"D{d}": s / 10**9 for d, s in zip(docnos, scores, strict=True)}
            continue
        # Scores of few distinct values for some topics, so ties are broken by docno.
        levels = rng.choice([5, 50, 10**6])
        run[topic] = {f"D{d}": float(rng.randint(0, levels)) / levels for d in docnos}
    return run


def generate(seed: int, topics: int, design: str, *, ties: bool = True) -> Case:
    """One case: sample qrels over ``topics`` topics, stratified by ``DESIGNS[design]``, and a run
    (with ``ties`` False, no two documents of a topic share a score)."""
    rng = random.Random(seed)
    names = [str(rng.randint(1, 10**4)) for _ in range(topics)]
    names = sorted(set(names), key=names.index)
    universe = rng.choice([300, 1500, 5000])
    pooled_runs = [_random_run(rng, names, universe, ties) for _ in range(rng.randint(2, 5))]
    members = stratified_sample(pooled_runs, DESIGNS[design], seed=seed)
    relevant_share = rng.choice([0.05, 0.2, 0.5])
    judgements: dict[str, dict[str, int]] = {m.topic: {} for m in members}
    for m in members:
        if m.sampled:
            # Relevance likelier near the top of the pool, as in real pools.
            chance = relevant_share * (2.0 if m.best_rank <= 10 else 1.0)
            judgements[m.topic][m.docno] = rng.choice([1, 1, 2, 3]) if rng.random() < chance else 0
    qrels = io.StringIO()
    write_sample_qrels(members, qrels, judgements)
    # The run evaluated: one of the pooled runs, or a new one (with documents outside the pool);
    # one topic dropped, one topic the sample qrels lack.
    evaluated = rng.choice([*pooled_runs, _random_run(rng, names, universe, ties)])
    evaluated = {t: s for t, s in evaluated.items() if t != names[-1] or len(names) == 1}
    evaluated["99999"] = {"D1": 1.0, "D2": 0.5}
    run = io.StringIO()
    write_run(evaluated, run, "evaluated")
    return Case(f"{design}-seed{seed}{'' if ties else '-untied'}", qrels.getvalue(), run.getvalue())


def edge_case(seed: int = 5) -> Case:
    """Two topics of 3,000 pooled documents in three strata, grades up to 12 (sample_eval.pl orders
    grades as strings: "9" before "12" and "10"), so many relevant that the ideal DCG runs past rank
    1000, and a 1,200-document run whose first topic is written "001" (the script strips the zeros)."""
    rng = random.Random(seed)
    qrels = io.StringIO()
    for topic in ("1", "2"):
        for i in range(3000):
            stratum = "1" if i < 50 else ("2" if i < 1500 else "3")
            if rng.random() < {"1": 1.0, "2": 0.3, "3": 0.1}[stratum]:
                rel = rng.choice([0, 0, 1, 2, 9, 10, 12])
            else:
                rel = -1
            qrels.write(f"{topic} 0 D{i} {stratum} {rel}\n")
    run = io.StringIO()
    for topic in ("001", "2"):
        for rank, d in enumerate(rng.sample(range(3500), 1200), start=1):
            run.write(f"{topic} Q0 D{d} {rank} {1000 - rank * 0.5} edge\n")
    return Case(f"edge-grades-seed{seed}", qrels.getvalue(), run.getvalue())


def cases(*, ties: bool = True) -> list[Case]:
    """Every design several times: 4 designs x 5 seeds, 6–8 topics each (over 100 topics evaluated)."""
    generated = []
    for index, design in enumerate(DESIGNS):
        for seed in range(5):
            generated.append(generate(1000 * index + seed, 6 + seed % 3, design, ties=ties))
    return [*generated, edge_case()] if ties else generated
