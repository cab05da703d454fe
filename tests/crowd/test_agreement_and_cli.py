"""Pairwise Cohen's kappa against scikit-learn, alpha against the krippendorff package, the CSV
reader's errors, and the two CLI commands."""

from __future__ import annotations

import csv
import io
import json

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.agreement.cohen import cohen_kappa_pairs
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.crowd.io.labels import LabelFileError, read_gold, read_label_columns, read_labels
from cranfield.cli import main

ratings = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=3, max_size=40)


@settings(max_examples=150, deadline=None)
@given(ratings, st.sampled_from(["none", "linear", "quadratic"]))
def test_a_pair_of_annotators_gets_scikit_learns_kappa(pairs, weights):
    triples = [(i, "ann", a) for i, (a, _) in enumerate(pairs)] + [
        (i, "bob", b) for i, (_, b) in enumerate(pairs)
    ]
    result = cohen_kappa_pairs(triples, weights=weights)
    first, second = zip(*pairs, strict=True)
    labels = sorted(set(first) | set(second))
    with np.errstate(all="ignore"):
        expected = cohen_kappa_score(
            first, second, labels=labels, weights=None if weights == "none" else weights
        )
    if np.isnan(expected):
        assert result.mean is None
    else:
        assert result.pairs[("ann", "bob")] == pytest.approx(expected, abs=1e-9)
        assert result.shared_items[("ann", "bob")] == len(pairs)


def test_the_mean_is_over_every_pair_that_shares_items():
    triples = [
        (1, "a", 0),
        (1, "b", 0),
        (2, "a", 1),
        (2, "b", 1),
        (3, "a", 1),
        (3, "b", 0),
        (1, "c", 0),
        (2, "c", 1),
    ]
    result = cohen_kappa_pairs(triples)
    assert set(result.pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    assert result.shared_items == {("a", "b"): 3, ("a", "c"): 2, ("b", "c"): 2}
    # By hand: a-b agree on items 1 and 2, differ on 3: p_o = 2/3, a's margins (1/3, 2/3), b's
    # (2/3, 1/3), p_e = 2/9 + 2/9 = 4/9, kappa = (2/3 − 4/9) / (5/9) = 0.4. a-c and b-c agree on
    # both items, each label once: kappa = 1. Weighted by shared items: (3 · 0.4 + 2 + 2) / 7.
    assert result.pairs[("a", "b")] == pytest.approx(0.4)
    assert result.pairs[("a", "c")] == result.pairs[("b", "c")] == pytest.approx(1.0)
    assert result.mean == pytest.approx((3 * 0.4 + 2 * 1.0 + 2 * 1.0) / 7)  # 0.7429; unweighted 0.8


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=5, max_size=5), min_size=2, max_size=6
    ),
    st.sampled_from(["nominal", "ordinal", "interval"]),
)
def test_alpha_equals_the_krippendorff_package_on_unbalanced_designs(matrix, level):
    triples = [
        (item, f"w{w}", v) for w, row in enumerate(matrix) for item, v in enumerate(row) if v is not None
    ]
    data = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    ours = krippendorff_alpha(triples, level=level)
    pairable = data[:, np.sum(~np.isnan(data), axis=0) >= 2]
    if ours.value is None:
        assert len(np.unique(pairable[~np.isnan(pairable)])) < 2
        return
    # Nominal labels are recoded 0..K-1; alpha is invariant to that.
    assert ours.value == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    assert ours.n_items == pairable.shape[1]


def test_label_files_name_the_bad_line(tmp_path):
    bad = tmp_path / "labels.csv"
    bad.write_text("item,worker,label\n1,a,0\n2,b\n")
    with pytest.raises(LabelFileError, match="line 3: expected 3 fields"):
        list(read_labels(bad))
    bad.write_text("item,worker,label\n1,,0\n")
    with pytest.raises(LabelFileError, match="line 2, field 'worker': empty"):
        list(read_labels(bad))
    bad.write_text("task,annotator,answer\n")
    with pytest.raises(LabelFileError, match="line 1: expected the header item,annotator,label"):
        list(read_labels(bad))
    bad.write_text("item,annotator,label\n1,,0\n")
    with pytest.raises(LabelFileError, match="line 2, field 'annotator': empty"):
        list(read_labels(bad))
    gold = tmp_path / "gold.csv"
    gold.write_text("item,gold\n1,0\n1,1\n")
    with pytest.raises(LabelFileError, match="two different gold labels"):
        read_gold(gold)


def test_agreement_cli_reports_the_required_fields(data_set, capsys):
    assert main(["agreement", str(data_set("crowd_snow2008") / "wsd_labels.csv")]) == 0
    report = json.loads(capsys.readouterr().out)
    required = {"fleiss_kappa", "cohen_kappa_mean", "krippendorff_alpha", "n_items", "n_annotators"}
    assert required <= set(report)
    assert round(report["fleiss_kappa"], 4) == 0.9372


@pytest.mark.parametrize("method", ["majority", "dawid-skene", "gold-weighted"])
def test_aggregate_cli_writes_item_label_confidence(data_set, capsys, method):
    labels = data_set("crowd_snow2008") / "rte_labels.csv"
    gold = data_set("crowd_snow2008") / "rte_gold.csv"
    assert main(["aggregate", str(labels), "--method", method, "--gold", str(gold)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "item,label,confidence"
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 800
    assert all(0.0 <= float(row["confidence"]) <= 1.0 for row in rows)


def test_aggregate_cli_explains_missing_gold_and_bad_files(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("item,worker,label\n1,a,x\n1,b\n")
    assert main(["aggregate", str(labels), "--method", "gold-weighted"]) == 2
    assert "needs --gold" in capsys.readouterr().err
    assert main(["aggregate", str(labels)]) == 2
    assert "line 3" in capsys.readouterr().err


def test_agreement_cli_reports_per_label_figures_and_intervals(data_set, capsys):
    labels = data_set("crowd_snow2008") / "rte_labels.csv"
    assert main(["agreement", str(labels), "--ci", "--resamples", "50", "--seed", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["n_items"], report["n_annotators"], report["n_labels"]) == (800, 164, 8000)
    assert report["fleiss_kappa_n_items"] == report["krippendorff_alpha_n_items"] == 800
    assert [row["label"] for row in report["per_label"]["labels"]] == [0, 1]
    for name in ("fleiss_kappa", "cohen_kappa_mean", "krippendorff_alpha"):
        interval = report[f"{name}_ci"]
        assert interval["low"] < report[name] < interval["high"]
        assert interval["resamples"] == 50
    assert report["bootstrap"]["seed"] == 3
    assert main(["agreement", str(labels), "--ci-statistics", "gwet"]) == 2
    assert "unknown" in capsys.readouterr().err
    assert main(["agreement", str(labels)]) == 0
    assert "fleiss_kappa_ci" not in json.loads(capsys.readouterr().out)


def write_labels(path, n_items, per_item=3, bad_line=None):
    """A generated labels file; ``bad_line`` (a file line number) gets an empty worker field
    (the header is crowd-kit's, item,worker,label, which the reader takes as well)."""
    line = 1
    with open(path, "w") as handle:
        handle.write("item,worker,label\n")
        for item in range(n_items):
            for k in range(per_item):
                line += 1
                worker = "" if line == bad_line else f"w{(item + k) % 17}"
                handle.write(f"doc{item},{worker},{(item * k) % 3}\n")
    return line


def test_the_chunked_reader_equals_the_row_reader_and_names_a_bad_line_late_in_the_file(tmp_path):
    path = tmp_path / "labels.csv"
    write_labels(path, 3000)
    data = read_label_columns(path, chunk_rows=1000)
    assert data.triples() == list(read_labels(path))
    write_labels(path, 3000, bad_line=8765)
    with pytest.raises(LabelFileError, match="line 8765, field 'worker': empty"):
        read_label_columns(path, chunk_rows=1000)


def test_the_chunked_reader_copes_with_quotes_blank_lines_spaces_and_extra_columns(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text('item,worker,label,note\n"a,1", w1 ,yes,x\n\n"b\nc",w2,2.5\n   \na,w1,yes,y,z\n')
    data = read_label_columns(path)
    assert (
        data.triples()
        == list(read_labels(path))
        == [("a,1", "w1", "yes"), ("b\nc", "w2", 2.5), ("a", "w1", "yes")]
    )
    path.write_text("item,worker,label\n1,a,0\n2,b\n")
    with pytest.raises(LabelFileError, match="line 3: expected 3 fields"):
        read_label_columns(path)
    path.write_text("task,annotator,answer\n1,a,0\n")
    with pytest.raises(LabelFileError, match="line 1: expected the header"):
        read_label_columns(path)


def test_aggregate_cli_on_a_generated_file_equals_the_library(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    write_labels(path, 2000, per_item=5)
    triples = list(read_labels(path))
    for method, expected in (("majority", majority_vote(triples)), ("dawid-skene", dawid_skene(triples))):
        assert main(["aggregate", str(path), "--method", method]) == 0
        rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
        assert {row["item"]: int(row["label"]) for row in rows} == expected.labels
        assert all(
            float(row["confidence"]) == pytest.approx(expected.confidence[row["item"]], abs=1e-6)
            for row in rows
        )
    write_labels(path, 2000, per_item=5, bad_line=9001)
    assert main(["aggregate", str(path)]) == 2
    assert "line 9001" in capsys.readouterr().err


def test_agreement_cli_scale_keeps_unused_levels_in_weighted_kappa(tmp_path, capsys):
    # Two annotators on a 0-3 scale where no one said 2: 1 against 3 is two steps apart, not one.
    first = [0, 1, 3, 3, 0, 1, 1, 3, 0, 0]
    second = [0, 3, 3, 1, 1, 1, 0, 3, 0, 3]
    path = tmp_path / "graded.csv"
    rows = [f"i{n},a,{x}\ni{n},b,{y}" for n, (x, y) in enumerate(zip(first, second, strict=True))]
    path.write_text("item,worker,label\n" + "\n".join(rows) + "\n")
    table = np.zeros((4, 4))
    for x, y in zip(first, second, strict=True):
        table[x, y] += 1
    expected = cohens_kappa(table, wt="quadratic").kappa
    assert main(["agreement", str(path), "--weights", "quadratic", "--scale", "0,1,2,3"]) == 0
    assert json.loads(capsys.readouterr().out)["cohen_kappa_mean"] == pytest.approx(expected, abs=1e-12)
    assert main(["agreement", str(path), "--weights", "quadratic"]) == 0  # the labels found: 0, 1, 3
    seen = cohens_kappa(table[np.ix_([0, 1, 3], [0, 1, 3])], wt="quadratic").kappa
    assert json.loads(capsys.readouterr().out)["cohen_kappa_mean"] == pytest.approx(seen, abs=1e-12)
    assert seen != pytest.approx(expected)
    assert main(["agreement", str(path), "--weights", "quadratic", "--scale", "0,1,2"]) == 2
    assert "outside the scale" in capsys.readouterr().err
