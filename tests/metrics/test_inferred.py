"""The inferred measures equal NIST's ``sample_eval.pl`` (Yilmaz, Kanoulas & Aslam, SIGIR 2008) to its
printed four decimals: on a worked example, on the script's recorded output (tests/data/sample_eval/),
and, when ``SAMPLE_EVAL_PL`` names a copy of the script, on over a hundred generated topics."""

from __future__ import annotations

import math
import os
import subprocess

import pytest

from evaluation.metrics.trec.files import read_run
from evaluation.metrics.trec.inferred import InferredError, format_sample_eval, sample_eval
from evaluation.metrics.trec.sample_files import SampleJudgement, read_sample_qrels
from tests.conftest import data_set
from tests.metrics.sample_eval_cases import DESIGNS, cases

RECORDED = data_set("sample_eval")
WORKED_QRELS = ["1 0 a 1 1", "1 0 b 1 0", "1 0 c 2 1", "1 0 d 2 0", "1 0 e 2 -1", "1 0 f 2 -1"]
WORKED_RUN = {"1": {"a": 4.0, "x": 3.0, "c": 2.0, "e": 1.0}}


def printed(text: str) -> list[str]:
    return text.splitlines()


def test_a_worked_example_by_hand():
    """Stratum 1 holds a (relevant) and b (not), both judged; stratum 2 holds c (relevant), d (not),
    e and f (not sampled: rel -1). The run retrieves a, x (outside the pool), c, e.

    Inferred number relevant: 1·2/2 + 1·4/2 = 3.
    At a (rank 1) nothing is above: precision 1.
    At c (rank 3) one pooled document is above (a, stratum 1: 1 relevant of 1 sampled); x counts in
    the rank only: precision 1/3 + (1/3)·(1/1)·(1 + ε)/(1 + 3ε) = 0.666660 (ε = 0.00001).
    xinfAP = (1/3)·1 + (2/3)·0.666660 = 0.777773 → 0.7778.
    Relevant retrieved by rank 4: stratum 1: 1·(1+ε)/(1+3ε), stratum 2 (c and e, one sampled):
    2·(1+ε)/(1+3ε), 2.99994 → 2.9999, so iP10 = 0.299994 → 0.3000.
    infNDCG: ideal DCG of three grade-1 documents 1 + 1/log2 3 + 1/2 = 2.130930; DCG = 3 · ((1/3)·1/1
    + (2/3)·(1/log2 4)/1) = 2; 2/2.130930 = 0.93856 → 0.9386.
    sample_eval.pl prints the same (run by hand on these two files, see tests/data/sample_eval/).
    """
    result = sample_eval(read_sample_qrels(WORKED_QRELS), WORKED_RUN)
    topic = result.topics["1"]
    epsilon_ratio = (1 + 0.00001) / (1 + 0.00003)
    assert topic.inum_rel == 3
    assert topic.infAP == pytest.approx(1 / 3 + 2 / 3 * (1 / 3 + epsilon_ratio / 3), abs=1e-12)
    assert f"{topic.infAP:6.4f}" == "0.7778"
    assert topic.inum_rel_ret == pytest.approx(3 * epsilon_ratio, abs=1e-12)
    assert f"{topic.inum_rel_ret:.4f}" == "2.9999"
    assert topic.precision == pytest.approx(
        {10: 0.3 * epsilon_ratio, 50: 0.06 * epsilon_ratio, 1000: 0.003 * epsilon_ratio}
    )
    assert topic.infNDCG == pytest.approx(2 / (1 + 1 / math.log2(3) + 0.5), abs=1e-12)
    assert f"{topic.infNDCG:6.4f}" == "0.9386"
    assert topic.num_ret == 4


@pytest.mark.parametrize("name", sorted(path.stem for path in RECORDED.glob("*.out")))
def test_it_prints_what_sample_eval_pl_printed_on_the_recorded_samples(name):
    """Byte for byte the script's -q output, every topic's lines and the means (PROVENANCE.md there)."""
    result = sample_eval(read_sample_qrels(RECORDED / f"{name}.qrels"), read_run(RECORDED / f"{name}.run")[0])
    assert format_sample_eval(result, per_topic=True) == printed((RECORDED / f"{name}.out").read_text())


def test_the_recordings_cover_every_design_and_a_dozen_topics():
    recorded = sorted(path.stem for path in RECORDED.glob("*.out"))
    assert {name.rsplit("-seed", 1)[0] for name in recorded} == {*DESIGNS, "edge-grades"}
    topics = sum(
        1 for name in recorded for line in printed((RECORDED / f"{name}.out").read_text())
        if line.startswith("infAP") and "\tall\t" not in line
    )  # fmt: skip
    assert topics >= 12


def test_it_equals_sample_eval_pl_run_here_on_over_a_hundred_generated_topics(tmp_path):
    """Every generated case (4 strata designs x 5 seeds: unsampled, unjudged and outside-the-pool
    documents, ties, short and over-1000 runs; and the edge case of grades up to 12, an ideal DCG past
    rank 1000 and a topic id with leading zeros) through the real script, output compared whole."""
    script = os.environ.get("SAMPLE_EVAL_PL")
    if not script:
        pytest.skip(
            "set SAMPLE_EVAL_PL to a copy of NIST's sample_eval.pl (e.g. from github.com/amillert/"
            "TREC-elastic; tests/data/sample_eval/PROVENANCE.md) to compare with the script itself"
        )
    topics = 0
    for case in cases():
        qrels, run = tmp_path / f"{case.name}.qrels", tmp_path / f"{case.name}.run"
        qrels.write_text(case.sample_qrels)
        run.write_text(case.run)
        expected = subprocess.run(
            ["perl", script, "-q", str(qrels), str(run)],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        result = sample_eval(read_sample_qrels(qrels), read_run(run)[0])
        assert format_sample_eval(result, per_topic=True) == printed(expected), case.name
        topics += len(result.topics)
    assert topics >= 100


def test_complete_judgement_gives_average_precision_up_to_the_smoothing():
    """With every pooled document judged and every retrieved one pooled, xinfAP is AP: the precision
    above each relevant document is known exactly (Yilmaz & Aslam 2006), off only by the ε smoothing."""
    qrels = {"7": {f"d{i}": SampleJudgement("1", int(i % 3 == 0)) for i in range(12)}}
    run = {"7": {f"d{i}": 12.0 - i for i in range(12)}}
    relevant_ranks = [1, 4, 7, 10]
    average_precision = sum((k + 1) / rank for k, rank in enumerate(relevant_ranks)) / 4
    assert sample_eval(qrels, run).infAP == pytest.approx(average_precision, abs=1e-4)


def test_a_run_s_topic_ids_lose_their_leading_zeros_as_in_the_script():
    result = sample_eval(read_sample_qrels(WORKED_QRELS), {"001": WORKED_RUN["1"]})
    assert list(result.topics) == ["1"]


def test_only_common_topics_are_averaged_but_inum_rel_counts_every_sampled_topic():
    qrels = read_sample_qrels([*WORKED_QRELS, "2 0 a 1 1", "2 0 b 1 1"])
    result = sample_eval(qrels, WORKED_RUN)
    assert list(result.topics) == ["1"]
    assert result.infAP == result.topics["1"].infAP
    assert result.inum_rel == 3 + 2


def test_a_run_with_no_topic_of_the_sample_is_refused():
    with pytest.raises(InferredError, match="no topic of the run is in the sample qrels"):
        sample_eval(read_sample_qrels(WORKED_QRELS), {"2": {"a": 1.0}})


def test_topic_ids_that_become_one_without_leading_zeros_are_refused():
    with pytest.raises(InferredError, match="become '1'"):
        sample_eval(read_sample_qrels(WORKED_QRELS), {"1": {"a": 1.0}, "01": {"b": 1.0}})
