"""``cranfield sample-pool`` and ``cranfield sample-eval``: a sampled pool to judge, its sample qrels once
judged, and the inferred measures in sample_eval.pl's layout (tests/data/sample_eval/ holds the script's
own output); bad input is refused naming the file, line or option."""

from __future__ import annotations

from pathlib import Path

import pytest

from cranfield.cli import main
from cranfield.cli.sample_pool import DEFAULT_STRATA
from evaluation.metrics.trec.files import read_run, write_qrels, write_run
from evaluation.metrics.trec.sample_files import read_sample_pairs, read_sample_qrels
from evaluation.metrics.trec.sampling import parse_strata
from evaluation.metrics.trec.stat_ap import inclusion_probabilities, stat_ap
from tests.conftest import data_set

RECORDED = data_set("sample_eval")


def written_runs(tmp_path: Path) -> list[str]:
    paths = []
    for index in range(2):
        run = {str(t): {f"d{(d * (index + 1)) % 300}": 1000.0 - d for d in range(250)} for t in (1, 2)}
        path = tmp_path / f"run{index}"
        with open(path, "w") as handle:
            write_run(run, handle, f"system{index}")
        paths.append(str(path))
    return paths


def test_the_default_strata_are_the_paper_s():
    parse_strata(DEFAULT_STRATA)


def test_it_prints_what_sample_eval_pl_prints(capsys):
    name = "yilmaz2008-seed7000"
    arguments = [str(RECORDED / f"{name}.qrels"), str(RECORDED / f"{name}.run")]
    assert main(["sample-eval", "-q", *arguments]) == 0
    assert capsys.readouterr().out == (RECORDED / f"{name}.out").read_text()
    assert main(["sample-eval", *arguments]) == 0
    summary = [line for line in (RECORDED / f"{name}.out").read_text().splitlines(True) if "\tall\t" in line]
    assert capsys.readouterr().out == "".join(summary)


def test_stat_ap_follows_sample_eval_pl_s_lines(capsys):
    name = "two-strata-seed7001"
    qrels, run = RECORDED / f"{name}.qrels", RECORDED / f"{name}.run"
    assert main(["sample-eval", "-q", "--stat-ap", str(qrels), str(run)]) == 0
    lines = capsys.readouterr().out.splitlines()
    recorded = (RECORDED / f"{name}.out").read_text().splitlines()
    assert lines[: len(recorded)] == recorded
    expected = stat_ap(inclusion_probabilities(read_sample_qrels(qrels)), read_run(run)[0])
    assert lines[len(recorded) :] == [
        *(f"statAP\t\t{topic}\t\t{values.stat_ap:6.4f}" for topic, values in expected.topics.items()),
        f"statAP\t\tall\t\t{expected.stat_map:6.4f}",
    ]


def test_several_runs_each_get_a_runid_line(capsys):
    name = "two-strata-seed7001"
    run = str(RECORDED / f"{name}.run")
    assert main(["sample-eval", str(RECORDED / f"{name}.qrels"), run, run]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if line.startswith("runid")] == ["runid\t\tall\t\tevaluated"] * 2
    assert len(lines) == 2 * 20


def test_sample_pool_writes_the_pairs_to_judge_and_the_sample_qrels_from_the_judgements(tmp_path, capsys):
    runs = written_runs(tmp_path)
    skeleton = tmp_path / "skeleton"
    strata = "1-10:1,11-100:0.2,101-300:0.05"
    assert (
        main(["sample-pool", *runs, "--strata", strata, "--seed", "9", "--sample-qrels", str(skeleton)]) == 0
    )
    captured = capsys.readouterr()
    pairs = read_sample_pairs(captured.out.splitlines())
    assert "sampled over 2 topics" in captured.err
    assert {p.probability for p in pairs if p.stratum == "1"} == {1.0}
    assert all("?" in line for line in skeleton.read_text().splitlines() if not line.endswith(" -1"))
    judged = tmp_path / "judged"
    with open(judged, "w") as handle:
        write_qrels(
            {t: {p.docno: int(p.docno[1:]) % 2 for p in pairs if p.topic == t} for t in ("1", "2")}, handle
        )
    sample_qrels = tmp_path / "sample.qrels"
    assert main([
        "sample-pool", *runs, "--strata", strata, "--seed", "9", "-o", str(tmp_path / "pairs"),
        "--sample-qrels", str(sample_qrels), "--judgements", str(judged),
    ]) == 0  # fmt: skip
    assert read_sample_pairs(tmp_path / "pairs") == pairs
    qrels = read_sample_qrels(sample_qrels)
    assert {(t, d) for t in qrels for d, j in qrels[t].items() if j.rel >= 0} == {
        (p.topic, p.docno) for p in pairs
    }
    capsys.readouterr()
    assert main(["sample-eval", str(sample_qrels), runs[0]]) == 0
    assert capsys.readouterr().out.startswith("infAP\t\tall\t\t")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--strata", "1-10:1,11-100:2"],
            "--strata: stratum 2 (11-100:2): the sampling rate must be in (0, 1]",
        ),
        (["--judgements", "judged"], "--judgements fills the sample qrels: give --sample-qrels FILE too"),
        (
            ["--sample-qrels", "out", "--judgements", "judged"],
            "judged: the sampled pair 1 d0 has no judgement",
        ),
    ],
)
def test_sample_pool_refuses_bad_options(tmp_path, capsys, monkeypatch, arguments, message):
    runs = written_runs(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "judged").write_text("2 0 d0 1\n")
    assert main(["sample-pool", *runs, "--seed", "1", *arguments]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_sample_eval_names_the_bad_line_and_the_run_without_common_topics(tmp_path, capsys):
    (tmp_path / "sample").write_text("1 0 a 1 1\n1 0 b 1 maybe\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2.0 mine\n")
    assert main(["sample-eval", str(tmp_path / "sample"), str(tmp_path / "run")]) == 2
    assert "sample, line 2, field 'rel': not an integer: 'maybe'" in capsys.readouterr().err
    (tmp_path / "sample").write_text("1 0 a 1 1\n")
    (tmp_path / "other").write_text("5 Q0 a 1 2.0 mine\n")
    assert main(["sample-eval", str(tmp_path / "sample"), str(tmp_path / "other")]) == 2
    err = capsys.readouterr().err
    assert "other: no topic of the run is in the sample qrels" in err
