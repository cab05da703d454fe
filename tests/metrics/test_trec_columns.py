"""A large run scored as whole columns (``columnar.rank_files`` + ``batched.evaluate_ranked``, issue 28)
gives the per-topic values of the topic-by-topic path bit for bit, and refuses every file it might read
differently, which the Python readers then read (and name the bad line of) as before."""

from __future__ import annotations

import contextlib
import math
import random
import shlex

import pytest

from cranfield.cli import main
from evaluation.metrics.trec import columnar
from evaluation.metrics.trec.batched import evaluate_ranked
from evaluation.metrics.trec.files import TrecFormatError, read_qrels, read_run_columns
from evaluation.metrics.trec.measures import evaluate, parse_measures
from tests.metrics.test_trec_eval_suite import SUITE

SPECS = [
    ["all_trec"],
    ["all_trec", "ndcg_exp", "ndcg_cut_exp"],
    ["ndcg.1=3,2=9", "rbp.p=0.5", "G.0=1,1=2", "Rndcg.2=0", "ndcg_rel.1=0.5,2=4", "rbp_resid.p=0.8",
     "P.3,7", "map_cut.2,50", "set_F.0.5", "utility.2,-1,0,0", "relstring.5", "11pt_avg.0.1,0.5",
     "iprec_at_recall.0.25", "Rprec_mult.0.5,1.5", "success.1,2", "unj.3", "relative_P.4", "recall.2"],
]  # fmt: skip


def identical(old: dict, new: dict) -> bool:
    """Same topics, names and order, and every value of the same type and bits (a float's sign too)."""
    if list(old) != list(new) or any(list(old[qid]) != list(new[qid]) for qid in old):
        return False
    for qid, values in old.items():
        for name, value in values.items():
            other = new[qid][name]
            if type(value) is not type(other) or value != other:
                return False
            if isinstance(value, float) and math.copysign(1, value) != math.copysign(1, other):
                return False
    return True


def random_collection(rng: random.Random, directory) -> tuple:
    topics = list(dict.fromkeys(f"{rng.choice(['q', '', 'T-'])}{rng.randint(0, 40)}" for _ in range(12)))
    topics = topics[: rng.randint(1, len(topics))]
    docs = list(dict.fromkeys(f"{rng.choice(['d', 'D', 'doc', 'x'])}{rng.randint(0, 60)}" for _ in range(80)))
    levels = rng.choice([[0, 1], [0, 1, 2, 3], [-1, 0, 1, 2], [-2, 0, 1, 5, 12]])
    score = rng.choice([
        lambda: repr(rng.random()),
        lambda: str(rng.randint(0, 5)),  # ties, broken by docno
        lambda: rng.choice(["0.0", "-0.0", "1", "1e0"]),
    ])  # fmt: skip
    qrels, run = [], []
    for topic in topics:
        qrels += [
            f"{topic} 0 {d} {rng.choice(levels)}" for d in rng.sample(docs, rng.randint(0, len(docs) // 2))
        ]
        if rng.random() < 0.9:
            ranked = rng.sample(docs, rng.randint(1, len(docs)))
            run += [
                f"{topic} Q0 {d} {rank} {score()} tag{rng.randint(0, 2)}" for rank, d in enumerate(ranked, 1)
            ]
    rng.shuffle(qrels)
    if rng.random() < 0.5:
        rng.shuffle(run)
    end = rng.choice(["\n", "\r\n"])
    (directory / "qrels").write_bytes((end.join(qrels) + end * (rng.random() < 0.8)).encode())
    (directory / "run").write_bytes((end.join(run) + end).encode())
    options = {
        "relevance_level": rng.choice([1, 1, 0, 2, 3]),
        "judged_only": rng.random() < 0.3,
        "complete": rng.random() < 0.3,
        "max_docs": rng.choice([None, None, 1, 5, 30]),
        "version": rng.choice(["10.0", "9"]),
    }
    return directory / "qrels", directory / "run", options


def test_random_collections_score_bit_identically_as_columns(tmp_path, monkeypatch):
    rng = random.Random(28)
    taken = 0
    dense = columnar.DENSE_CELLS
    for case in range(150):
        # Every other case joins by binary search and counts levels by sorting, as a large collection does.
        monkeypatch.setattr(columnar, "DENSE_CELLS", 0 if case % 2 else dense)
        qrels_path, run_path, options = random_collection(rng, tmp_path)
        measures = parse_measures(rng.choice(SPECS))
        level, version = options.pop("relevance_level"), options.pop("version")
        qrels, (run, tag) = read_qrels(qrels_path), read_run_columns(run_path)
        old = evaluate(qrels, run, measures, relevance_level=level, version=version, **options)
        ranked = columnar.rank_files(qrels_path, run_path, smallest_run=0, **options)
        if ranked is None:  # refused only for an empty run (Arrow reads no data)
            assert not run, f"case {case}: a plain collection was refused"
            continue
        assert ranked.tag == tag
        new = evaluate_ranked(ranked.topics, measures, relevance_level=level, version=version)
        assert identical(old, new), f"case {case}: {options}, level {level}, version {version}"
        taken += 1
    assert taken >= 130


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ("q 0 d1 1\n", "q Q0 d1 1 1.0 t\nq Q0 d1 2 0.5 t\n", "line 2, field 'docno'"),
        ("q 0 d1 1\nq 0 d1 2\n", "q Q0 d1 1 1.0 t\n", "line 2, field 'rel'"),
        ("q 0 d1 1\n", "q Q0 d1 1 nan t\n", "line 1, field 'score'"),
        ("q 0 d1 0x1\n", "q Q0 d1 1 1.0 t\n", "line 1, field 'rel'"),
        ("q 0 d1 1\n", "q Q0 d1 1 1.0 t\nq Q0 d2 2 t\n", "line 2, field 'line'"),
        ("q 0 d1 1\n", "q  d1 1 1.0 t\n", "line 1, field 'line'"),
        ("q 0 d1 1\n", "q Q0 d1 1 1.0x t\n", "line 1, field 'score'"),
        ("q 0 d1 1 5\n", "q Q0 d1 1 1.0 t\n", "line 1, field 'line'"),
    ],
)
def test_a_bad_file_is_refused_and_its_line_named_as_before(
    tmp_path, qrels, run, message, capsys, monkeypatch
):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    assert columnar.rank_files(tmp_path / "qrels", tmp_path / "run", smallest_run=0) is None
    monkeypatch.setattr(columnar, "SMALLEST_RUN", 0)
    assert main(["trec-eval", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "run",
    [
        "q Q0 d1 1 1_0 t\n",  # Python's float reads 1_0, Arrow does not
        "q Q0 d1 1 1.0 t\n#q Q0 d2 2 0.5 t\n",  # a comment line
        "q\tQ0 d1 1 1.0 t\n",
        " q Q0 d1 1 1.0 t\n",
        "q Q0 d1 1 1.0 t \n",
        "q Q0 d1 1 1.0 t\n\nq Q0 d2 2 0.5 t\n\n",
        "q Q0 d1 1 1.0 t\rq Q0 d2 2 0.5 t\r",
        "q Q0 d\xe91 1 1.0 t\n",
        'q Q0 "d1" 1 1.0 t\n',
        "q Q0 d1 1 1.0 t extra\nq Q0 d2 2 0.5 t\n",
    ],
)
def test_what_arrow_might_read_differently_goes_to_the_python_readers(tmp_path, run):
    (tmp_path / "qrels").write_text("q 0 d1 1\nq 0 d2 0\n")
    (tmp_path / "run").write_bytes(run.encode("latin-1"))
    ranked = columnar.rank_files(tmp_path / "qrels", tmp_path / "run", smallest_run=0)
    if ranked is not None:  # read after all: then exactly as the Python readers read it
        qrels, (columns, tag) = read_qrels(tmp_path / "qrels"), read_run_columns(tmp_path / "run")
        measures = parse_measures(["all_trec"])
        assert identical(evaluate(qrels, columns, measures), evaluate_ranked(ranked.topics, measures))
        assert ranked.tag == tag
    else:
        with contextlib.suppress(TrecFormatError):  # read, or refused with its line named, as before
            read_run_columns(tmp_path / "run")


@pytest.mark.parametrize(
    "options",
    [
        ["-m", "all_trec"],
        ["-c", "--json", "-q", "-m", "all_trec"],
        ["-c", "-q", "-m", "all_trec", "-m", "ndcg_exp"],
    ],
)
def test_no_topic_in_common_prints_as_the_topic_by_topic_path(tmp_path, capsys, monkeypatch, options):
    """No topic scored (exit 2, num_q 0), or with -c every qrels topic ranked empty."""
    (tmp_path / "qrels").write_text("a 0 d1 1\na 0 d2 0\nb 0 d3 2\n")
    (tmp_path / "run").write_text("x Q0 d1 1 1.0 t\nx Q0 d2 2 0.5 t\n")
    arguments = ["trec-eval", *options, str(tmp_path / "qrels"), str(tmp_path / "run")]
    before = main(arguments), capsys.readouterr()
    monkeypatch.setattr(columnar, "SMALLEST_RUN", 0)
    assert columnar.rank_files(tmp_path / "qrels", tmp_path / "run", smallest_run=0) is not None
    assert (main(arguments), capsys.readouterr()) == before


def test_a_docno_with_0x_is_read_as_columns_but_a_hexadecimal_relevance_is_not(tmp_path):
    (tmp_path / "qrels").write_text("q 0 d0x1 1\nq 0 d2 0\n")
    (tmp_path / "run").write_text("q Q0 d0x1 1 1.0 t\nq Q0 d2 2 0.5 t\n")
    ranked = columnar.rank_files(tmp_path / "qrels", tmp_path / "run", smallest_run=0)
    assert ranked is not None and ranked.topics["q"].rels.tolist() == [1, 0]
    (tmp_path / "qrels").write_text("q 0 d0x1 1\nq 0 d2 0X0\n")
    assert columnar.rank_files(tmp_path / "qrels", tmp_path / "run", smallest_run=0) is None


def test_a_comment_is_refused_but_a_hash_inside_a_docno_is_not(tmp_path):
    (tmp_path / "qrels").write_text("q 0 d#1 1\n")
    (tmp_path / "run").write_text("q Q0 d#1 1 1.0 t\nq Q0 d2 2 0.5 t\n")
    ranked = columnar.rank_files(tmp_path / "qrels", tmp_path / "run", smallest_run=0)
    assert ranked is not None and ranked.topics["q"].rels.tolist() == [1, -1]
    (tmp_path / "run").write_text("q Q0 d#1 1 1.0 t\n#q Q0 d2 2 0.5 t\n")
    assert columnar.rank_files(tmp_path / "qrels", tmp_path / "run", smallest_run=0) is None


@pytest.mark.parametrize(("arguments", "expected_file", "minimum"), SUITE)
def test_trec_eval_s_own_suite_through_the_columns(
    arguments, expected_file, minimum, data_set, capsys, monkeypatch, tmp_path
):
    """The suite's files with their blanks made single spaces (theirs have tabs and padding, which the
    Python readers take): read as columns, the output is still trec_eval's, line for line."""
    directory = data_set("trec_eval_tests")
    monkeypatch.setattr(columnar, "SMALLEST_RUN", 0)
    *options, qrels, run = shlex.split(arguments)
    for name in (qrels, run):
        lines = (directory / name).read_bytes().splitlines()
        (tmp_path / name).write_bytes(
            b"".join(b" ".join(line.split()) + b"\n" for line in lines if line.split())
        )
    if "comment" not in qrels + run and run != "results.trunc":  # comments; lines of 6 to 9 fields
        assert columnar.rank_files(tmp_path / qrels, tmp_path / run, smallest_run=0) is not None
    assert main(["trec-eval", *options, str(tmp_path / qrels), str(tmp_path / run)]) == 0
    ours = capsys.readouterr().out.splitlines()
    assert ours == (directory / expected_file).read_text().splitlines()
    assert len(ours) >= minimum
