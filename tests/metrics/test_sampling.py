"""The stratified sampled pool (Yilmaz, Kanoulas & Aslam, SIGIR 2008): strata by best rank, n = round(rate
· N) drawn per stratum with inclusion probability n / N, seeded and deterministic."""

from __future__ import annotations

import io
from collections import Counter

import pytest

from evaluation.metrics.trec.sample_files import read_sample_qrels, write_sample_qrels
from evaluation.metrics.trec.sampling import (
    DEFAULT_STRATA,
    StrataError,
    Stratum,
    parse_strata,
    sample_size,
    stratified_sample,
)


def ranked(topic: str, docnos: list[str]) -> dict[str, dict[str, float]]:
    """A run retrieving ``docnos`` in that order for ``topic``."""
    return {topic: {d: float(len(docnos) - i) for i, d in enumerate(docnos)}}


def test_the_default_design_is_the_paper_s():
    assert parse_strata("1-10:1,11-100:0.2,101-1000:0.05") == DEFAULT_STRATA


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1-10:1,11-100", "stratum 2 ('11-100'): expected FIRST-LAST:RATE"),
        ("1-10:x", "stratum 1 ('1-10:x'): expected"),
        ("2-10:1", "must start at rank 1"),
        ("1-10:1,12-20:0.5", "stratum 2 (12-20:0.5): must start at rank 11"),
        ("1-10:1,11-5:0.5", "its last rank is before its first"),
        ("1-10:0", "the sampling rate must be in (0, 1]"),
        ("1-10:1.5", "the sampling rate must be in (0, 1]"),
        ("1-10:nan", "the sampling rate must be in (0, 1]"),
    ],
)
def test_a_bad_design_is_refused_naming_the_stratum(text, message):
    with pytest.raises(StrataError) as error:
        parse_strata(text)
    assert message in str(error.value)


def test_a_stratum_with_documents_always_has_one_sampled():
    assert [sample_size(n, 0.05) for n in (0, 1, 9, 10, 30, 100)] == [0, 1, 1, 1, 2, 5]
    assert sample_size(7, 1.0) == 7


def test_a_document_s_stratum_is_that_of_its_best_rank_over_the_runs():
    first = ranked("1", ["a", "b", "c", "d"])
    second = ranked("1", ["d", "e"])
    members = stratified_sample([first, second], [Stratum(1, 1, 1.0), Stratum(2, 3, 1.0)], seed=0)
    assert {(m.docno, m.best_rank, m.stratum) for m in members} == {
        ("a", 1, "1"), ("d", 1, "1"), ("b", 2, "2"), ("e", 2, "2"), ("c", 3, "2")
    }  # fmt: skip


def test_each_stratum_draws_its_share_with_probability_n_over_n():
    run = ranked("1", [f"d{i}" for i in range(200)])
    members = stratified_sample(
        [run], [Stratum(1, 10, 1.0), Stratum(11, 100, 0.2), Stratum(101, 150, 0.1)], 3
    )
    by_stratum = Counter((m.stratum, m.sampled) for m in members)
    assert by_stratum == {
        ("1", True): 10,
        ("2", True): 18,
        ("2", False): 72,
        ("3", True): 5,
        ("3", False): 45,
    }
    assert {m.stratum: m.probability for m in members} == {"1": 1.0, "2": 0.2, "3": 0.1}
    assert all(m.best_rank <= 150 for m in members)


def test_the_draw_is_deterministic_and_per_topic():
    runs = [ranked("1", [f"d{i}" for i in range(100)]) | ranked("2", [f"d{i}" for i in range(100)])]
    design = [Stratum(1, 100, 0.1)]
    once = stratified_sample(runs, design, seed=11)
    assert once == stratified_sample(runs, design, seed=11)
    assert once != stratified_sample(runs, design, seed=12)
    alone = stratified_sample([{"2": runs[0]["2"]}], design, seed=11)
    assert [m for m in once if m.topic == "2"] == alone


def test_every_document_is_drawn_about_as_often_as_its_probability():
    """Over 400 seeds, each document of a 20 % stratum is sampled 80 times in expectation (binomial
    standard deviation 8): all within 5 deviations."""
    run = ranked("1", [f"d{i}" for i in range(20)])
    counts: Counter[str] = Counter()
    for seed in range(400):
        counts.update(m.docno for m in stratified_sample([run], [Stratum(1, 20, 0.2)], seed) if m.sampled)
    assert all(40 < counts[f"d{i}"] < 120 for i in range(20))


def test_the_written_sample_gives_sample_eval_the_stored_probabilities():
    """sample_eval.pl infers a stratum's inclusion probability as sampled / pooled in the sample qrels:
    that share is the one stored with each member."""
    run = ranked("1", [f"d{i}" for i in range(120)])
    members = stratified_sample([run], DEFAULT_STRATA, seed=5)
    judgements = {"1": {m.docno: 0 for m in members if m.sampled}}
    written = io.StringIO()
    write_sample_qrels(members, written, judgements)
    qrels = read_sample_qrels(written.getvalue().splitlines())["1"]
    for stratum in ("1", "2", "3"):
        in_stratum = [j for j in qrels.values() if j.stratum == stratum]
        share = sum(j.rel >= 0 for j in in_stratum) / len(in_stratum)
        assert {m.probability for m in members if m.stratum == stratum} == {share}
