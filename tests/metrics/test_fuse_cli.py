"""``cranfield fuse``: the run it writes is ``fusion.fuse``'s, readable by trec_eval's reader, and bad
input is refused with the file, line or reason named."""

from __future__ import annotations

import random

import pytest

from cranfield.cli import fuse as fuse_command
from cranfield.cli import main
from evaluation.metrics import fusion
from evaluation.metrics.fusion.normalisation import NORMALISATIONS
from evaluation.metrics.trec.files import read_run, write_run


def written_runs(tmp_path, count: int = 3, seed: int = 3):
    """``count`` run files over 5 topics (the last one in the first run only), ties included."""
    rng = random.Random(seed)
    runs, paths = [], []
    for index in range(count):
        run = {
            str(topic): {f"doc{d}": float(rng.randint(0, 6)) for d in rng.sample(range(30), 12)}
            for topic in range(1, 5 if index else 6)
        }
        path = tmp_path / f"run{index}"
        with open(path, "w") as handle:
            write_run(run, handle, f"system{index}")
        runs.append(run)
        paths.append(str(path))
    return runs, paths


def test_the_command_s_choices_are_the_fusion_package_s():
    assert fuse_command.METHODS == fusion.METHODS
    assert tuple(NORMALISATIONS) == fuse_command.NORMALISATIONS


@pytest.mark.parametrize("method", fusion.METHODS)
@pytest.mark.parametrize("normalisation", list(NORMALISATIONS))
def test_it_writes_the_fused_run(tmp_path, capsys, method, normalisation):
    runs, paths = written_runs(tmp_path)
    assert main(["fuse", *paths, "--method", method, "--norm", normalisation, "--rrf-k", "10"]) == 0
    captured = capsys.readouterr()
    fused, tag = read_run(captured.out.splitlines())
    assert fused == fusion.fuse(runs, method, normalisation, k=10)
    assert tag == (method if method == "rrf" else f"{method}-{normalisation}")
    assert "1 of 5 topics are in only some of the runs" in captured.err
    ranks = [int(line.split()[3]) for line in captured.out.splitlines() if line.startswith("1 ")]
    assert ranks == list(range(1, len(ranks) + 1))


def test_it_writes_a_file_cut_to_depth_with_the_tag_given(tmp_path, capsys):
    runs, paths = written_runs(tmp_path, count=2)
    output = tmp_path / "fused"
    assert main(["fuse", *paths, "--depth", "3", "--tag", "together", "-o", str(output)]) == 0
    assert capsys.readouterr().out == ""
    fused, tag = read_run(output)
    assert tag == "together"
    assert fused == {topic: dict(list(scores.items())[:3]) for topic, scores in fusion.fuse(runs).items()}
    assert all(len(scores) == 3 for scores in fused.values())


def test_a_bad_line_is_named_by_file_and_line(tmp_path, capsys):
    _, paths = written_runs(tmp_path, count=2)
    with open(paths[1], "a") as handle:
        handle.write("1 Q0 docX 13 high system1\n")
    assert main(["fuse", *paths]) == 2
    error = capsys.readouterr().err
    assert error.startswith("cranfield fuse: error: ") and f"{paths[1]}, line 49, field 'score'" in error


def test_one_run_is_refused(tmp_path, capsys):
    _, paths = written_runs(tmp_path, count=1)
    assert main(["fuse", paths[0]]) == 2
    assert "fusion needs at least two runs" in capsys.readouterr().err


def test_runs_with_no_topic_in_common_are_refused_naming_the_files(tmp_path, capsys):
    (tmp_path / "a").write_text("1 Q0 d1 1 2.0 a\n")
    (tmp_path / "b").write_text("2 Q0 d1 1 2.0 b\n")
    assert main(["fuse", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"fusion of runs with no topic in common: {tmp_path / 'a'}, {tmp_path / 'b'}" in captured.err


def test_an_empty_run_and_a_tag_of_two_words_are_refused(tmp_path, capsys):
    _, paths = written_runs(tmp_path, count=1)
    (tmp_path / "empty").write_text("# nothing\n")
    assert main(["fuse", paths[0], str(tmp_path / "empty")]) == 2
    assert "empty: the run has no lines" in capsys.readouterr().err
    assert main(["fuse", paths[0], paths[0], "--tag", "two words"]) == 2
    assert "--tag must be one word" in capsys.readouterr().err
