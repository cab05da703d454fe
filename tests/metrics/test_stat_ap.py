"""statAP (Aslam, Pavlu & Yilmaz 2006) equals Pavlu's ``statAP_MQ_eval_v3.pl`` (TREC Million Query track)
to its printed six decimals per topic and its printed statMAP: on a worked example, on the script's
recorded output (tests/data/sample_eval/statap/), and, when ``STATAP_MQ_EVAL_PL`` names a copy of the
script, on over a hundred generated topics."""

from __future__ import annotations

import io
import os
import re
import subprocess

import pytest

from evaluation.metrics.trec.files import read_run
from evaluation.metrics.trec.sample_files import read_sample_qrels
from evaluation.metrics.trec.stat_ap import inclusion_probabilities, stat_ap, write_prels
from tests.conftest import data_set
from tests.metrics.sample_eval_cases import cases

RECORDED = data_set("sample_eval") / "statap"
TOPIC = re.compile(r"topic=(\S+)\s+NEU\s+Relevant=(\S+).*?\n.*?\n\s*AP=(\S+)  R-prec=(\S+)  Prec_at_30=(\S+)")


def printed(output: str) -> tuple[dict[str, tuple[str, ...]], dict[str, float]]:
    """The script's -q output: {topic: (Relevant, AP, R-prec, Prec_at_30)} for the topics it scored
    (one with no sampled relevant document prints "NA--no relevant docs"), and its means."""
    scored = (match.groups() for match in TOPIC.finditer(output))
    topics = {topic: tuple(values) for topic, *values in scored if values[1] != "NA--no"}
    means = {
        name: float(value)
        for name, value in re.findall(r"(statMAP|statMRP|statMPC)(?:_30 )?_on_valid_topics=(\S+)", output)
    }
    return topics, means


def ours(sample, run) -> tuple[dict[str, tuple[str, ...]], dict[str, float]]:
    result = stat_ap(sample, run)
    topics = {
        t: (f"{v.estimated_relevant:f}", f"{v.stat_ap:f}", f"{v.r_prec:f}", f"{v.precision_at_30:f}")
        for t, v in result.topics.items()
    }
    return topics, {"statMAP": result.stat_map, "statMRP": result.stat_mrp, "statMPC": result.stat_mpc}


def assert_equal_to_the_script(sample, run, output: str) -> int:
    expected_topics, expected_means = printed(output)
    topics, means = ours(sample, run)
    assert topics == expected_topics
    assert set(expected_means) == set(means)
    for name, value in expected_means.items():  # Perl prints 15 significant digits
        assert means[name] == pytest.approx(value, rel=1e-13, abs=1e-15), name
    return len(topics)


def test_a_worked_example_by_hand():
    """Sampled: a (relevant, π = 1), b (not, π = 1), c (relevant, π = 1/4), d (not, π = 1/4).
    R̂ = 1/1 + 1/(1/4) = 5. The run retrieves c, a, x: at c (rank 1) precision (1 + 0)/1 = 1, weighted
    1/π = 4; at a (rank 2) precision (1 + 4)/2 = 2.5, weighted 1. statAP = (4 + 2.5)/5 = 1.3 — an
    unbiased estimate, so one sample's value may exceed 1. statP@30 = (4 + 1)/30; R̂ rounds to 5, past
    the run's end, so statR-prec = 5/5 = 1."""
    sample = {"1": {"a": (1, 1.0), "b": (0, 1.0), "c": (2, 0.25), "d": (0, 0.25)}}
    result = stat_ap(sample, {"1": {"c": 3.0, "a": 2.0, "x": 1.0}})
    topic = result.topics["1"]
    assert (topic.estimated_relevant, topic.stat_ap, topic.precision_at_30, topic.r_prec) == (
        5,
        1.3,
        5 / 30,
        1,
    )
    assert result.stat_map == 1.3


def test_probabilities_are_each_stratum_s_sampled_share_and_prels_list_only_the_sampled():
    qrels = read_sample_qrels(
        ["7 0 a 1 1", "7 0 b 1 0", "7 0 c 2 2", "7 0 d 2 -1", "7 0 e 2 -1", "7 0 f 2 -1"]
    )
    sample = inclusion_probabilities(qrels)
    assert sample == {"7": {"a": (1, 1.0), "b": (0, 1.0), "c": (2, 0.25)}}
    written = io.StringIO()
    write_prels(sample, written)
    assert written.getvalue() == "7 a 1 1 1.0\n7 b 0 1 1.0\n7 c 2 1 0.25\n"


def test_topics_without_a_sampled_relevant_document_are_not_averaged():
    sample = {"1": {"a": (1, 0.5)}, "2": {"a": (0, 1.0)}}
    result = stat_ap(sample, {"1": {"a": 1.0}, "2": {"a": 1.0}})
    assert list(result.topics) == ["1"] and result.stat_map == 1.0
    with pytest.raises(ValueError, match="no topic of the run has a sampled relevant document"):
        stat_ap(sample, {"2": {"a": 1.0}})


@pytest.mark.parametrize("name", sorted(path.stem for path in RECORDED.glob("*.out")))
def test_it_equals_what_the_script_printed_on_the_recorded_samples(name):
    sample: dict = {}
    for line in (RECORDED / f"{name}.prels").read_text().splitlines():
        topic, docno, rel, _, probability = line.split()
        sample.setdefault(topic, {})[docno] = (int(rel), float(probability))
    run, _ = read_run(RECORDED / f"{name}.run")
    assert assert_equal_to_the_script(sample, run, (RECORDED / f"{name}.out").read_text()) >= 4


def test_it_equals_statap_mq_eval_run_here_on_over_a_hundred_generated_topics(tmp_path):
    """Every generated case without tied scores (the script ranks ties in Perl's hash order)."""
    script = os.environ.get("STATAP_MQ_EVAL_PL")
    if not script:
        pytest.skip(
            "set STATAP_MQ_EVAL_PL to a copy of statAP_MQ_eval_v3.pl (e.g. from github.com/lintool/"
            "IR-Reproducibility, eval/; tests/data/sample_eval/PROVENANCE.md) to compare with the script"
        )
    topics = 0
    for case in cases(ties=False):
        sample = inclusion_probabilities(read_sample_qrels(case.sample_qrels.splitlines()))
        prels, run = tmp_path / f"{case.name}.prels", tmp_path / f"{case.name}.run"
        with open(prels, "w") as handle:
            write_prels(sample, handle)
        run.write_text(case.run)
        output = subprocess.run(
            ["perl", script, "-q", str(prels), str(run)],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        topics += assert_equal_to_the_script(sample, read_run(run)[0], output)
    assert topics >= 100
