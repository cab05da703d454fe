"""``cranfield plot`` and ``cranfield sets``: the images are valid, the curves carry the reference
libraries' values (pytrec_eval, scikit-learn, SciPy), and the set measures equal scikit-learn's."""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
import pytrec_eval
from scipy import stats
from sklearn.metrics import accuracy_score, fbeta_score, precision_score, recall_score, roc_auc_score

from cranfield.cli import main
from cranfield.cli import plot as plot_command
from evaluation.metrics import curves, plot_data
from evaluation.metrics.trec.files import trec_order, write_qrels, write_run
from evaluation.metrics.trec.measures import evaluate
from evaluation.metrics.trec.retrieved_sets import known_documents, set_measures, topic_confusions


def generated_case(seed: int = 7, topics: int = 8, documents: int = 40):
    """Qrels judging half the documents of each topic (graded 0-2) and two runs over every topic
    ranking a random 15 of them with distinct scores."""
    rng = np.random.default_rng(seed)
    names = [f"doc{i:02d}" for i in range(documents)]
    qrels, runs = {}, {"one": {}, "two": {}}
    for topic in range(1, topics + 1):
        judged = rng.choice(names, documents // 2, replace=False)
        qrels[str(topic)] = {str(doc): int(rng.choice([0, 0, 1, 2])) for doc in judged}
        qrels[str(topic)][str(judged[0])] = 2  # every topic has a relevant document
        for name in runs:
            retrieved = rng.choice(names, 15, replace=False)
            runs[name][str(topic)] = {
                str(doc): float(s) for doc, s in zip(retrieved, rng.permutation(15) + 0.5, strict=True)
            }
    return qrels, runs


@pytest.fixture
def files(tmp_path):
    qrels, runs = generated_case()
    with open(tmp_path / "qrels", "w") as handle:
        write_qrels(qrels, handle)
    for name, run in runs.items():
        with open(tmp_path / name, "w") as handle:
            write_run(run, handle, name)
    return tmp_path, qrels, runs


@pytest.mark.parametrize("kind", plot_command.KINDS)
@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_plot_writes_a_valid_image_of_every_kind(files, kind, fmt):
    directory, _, _ = files
    output = directory / f"{kind}.{fmt}"
    arguments = ["plot", kind, str(directory / "qrels"), str(directory / "one"), str(directory / "two")]
    assert main([*arguments, "-o", str(output)]) == 0
    content = output.read_bytes()
    if fmt == "png":
        assert content.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        assert ElementTree.fromstring(content).tag == "{http://www.w3.org/2000/svg}svg"


def options(**given) -> argparse.Namespace:
    defaults = {
        "relevance_level": 1,
        "measure": "map",
        "trec_eval_version": "10.0",
        "kind": "roc",
        "against": "differences",
    }
    return argparse.Namespace(**(defaults | given))


def test_the_precision_recall_curve_is_pytrec_evals_iprec_at_recall(files):
    _, qrels, runs = files
    figure = plot_command.precision_recall(qrels, runs, options(trec_eval_version="9"))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"})
    for line, run in zip(figure.axes[0].lines, runs.values(), strict=True):
        expected = evaluator.evaluate(run)
        points = [i / 10 for i in range(11)]
        reference = [np.mean([v[f"iprec_at_recall_{p:.2f}"] for v in expected.values()]) for p in points]
        np.testing.assert_allclose(line.get_xdata(), points)
        np.testing.assert_allclose(line.get_ydata(), reference)


def test_roc_auc_is_the_mean_of_scikit_learns_per_topic_on_the_judged_documents(files):
    _, qrels, runs = files
    by_topic = plot_data.judged_scores_by_topic(qrels, runs["one"], relevance_level=2)
    for topic, (scores, labels) in by_topic.items():
        expected = [
            (s, int(qrels[topic][d] >= 2)) for d, s in runs["one"][topic].items() if d in qrels[topic]
        ]
        assert sorted(zip(scores, labels, strict=True)) == sorted(expected)
    aucs = [
        roc_auc_score(labels, scores) for scores, labels in by_topic.values() if 0 < sum(labels) < len(labels)
    ]
    assert aucs
    assert curves.topic_averaged_roc(by_topic.values()).auc == pytest.approx(np.mean(aucs))
    figure = plot_command.binary_curves(qrels, {"one": runs["one"]}, options(relevance_level=2))
    assert f"AUC {np.mean(aucs):.3f}" in figure.axes[0].get_legend().get_texts()[0].get_text()


def test_the_qq_plot_is_of_the_per_topic_differences(files):
    _, qrels, runs = files
    figure = plot_command.differences_qq(qrels, runs, options(measure="P.10"))
    one, two = (pytrec_eval.RelevanceEvaluator(qrels, {"P.10"}).evaluate(run) for run in runs.values())
    differences = [one[t]["P_10"] - two[t]["P_10"] for t in sorted(qrels)]
    (_, ordered), _ = stats.probplot(differences, dist="norm")
    loc, scale = stats.norm.fit(differences)
    # statsmodels' ProbPlot(fit=True): the sorted sample standardised by the fitted normal, against
    # standard-normal quantiles at i/(n + 1) (probplot uses Filliben's positions instead).
    x, y = figure.axes[0].lines[0].get_data()
    np.testing.assert_allclose(y, (ordered - loc) / scale)
    n = len(differences)
    np.testing.assert_allclose(x, stats.norm.ppf(np.arange(1, n + 1) / (n + 1)))


def test_qq_takes_two_runs_and_a_known_image_format(files, capsys):
    directory, _, _ = files
    qrels, one = str(directory / "qrels"), str(directory / "one")
    assert main(["plot", "qq", qrels, one, "-o", str(directory / "x.png")]) == 2
    assert "qq --against differences takes 2 runs, got 1" in capsys.readouterr().err
    two = str(directory / "two")
    assert main(["plot", "qq", "--against", "normal", qrels, one, two, "-o", str(directory / "x.png")]) == 2
    assert "qq --against normal takes 1 run, got 2" in capsys.readouterr().err
    assert main(["plot", "pr", qrels, one, "-o", str(directory / "x.gif")]) == 2
    assert "-o: the file name must end in .png or .svg" in capsys.readouterr().err
    assert main(["plot", "per-topic", qrels, one, "-m", "nope", "-o", str(directory / "x.svg")]) == 2
    assert "unknown measure 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("k", "beta", "collection_size"), [(None, 1.0, None), (5, 0.5, None), (10, 2.0, 100)]
)
def test_sets_equal_scikit_learn(files, capsys, k, beta, collection_size):
    directory, qrels, runs = files
    arguments = [
        "sets",
        str(directory / "qrels"),
        str(directory / "one"),
        "-q",
        "--json",
        "--beta",
        str(beta),
    ]
    arguments += ["-k", str(k)] if k else []
    arguments += ["--collection-size", str(collection_size)] if collection_size else []
    assert main(arguments) == 0
    printed = json.loads(capsys.readouterr().out)
    # The collection: every document the files name, padded with unnamed ones up to its size.
    named = sorted({d for ranked in [*qrels.values(), *runs["one"].values()] for d in ranked})
    universe = named + [f"unnamed{i}" for i in range((collection_size or len(named)) - len(named))]
    for topic in qrels:
        retrieved = set(trec_order(runs["one"][topic])[:k])
        y_true = [int(qrels[topic].get(d, 0) >= 1) for d in universe]
        y_pred = [int(d in retrieved) for d in universe]
        values = printed["per_query"][topic]
        assert values["precision"] == pytest.approx(precision_score(y_true, y_pred, zero_division=0))
        assert values["recall"] == pytest.approx(recall_score(y_true, y_pred, zero_division=0))
        assert values["F"] == pytest.approx(fbeta_score(y_true, y_pred, beta=beta, zero_division=0))
        assert values["accuracy"] == pytest.approx(accuracy_score(y_true, y_pred))
        specificity = recall_score(y_true, y_pred, pos_label=0, zero_division=0)
        assert values["specificity"] == pytest.approx(specificity)
        assert values["fallout"] == pytest.approx(1 - specificity)
    mean = {name: np.mean([v[name] for v in printed["per_query"].values()]) for name in printed["all"]}
    assert printed["all"] == pytest.approx(mean)
    assert printed["settings"]["collection_size"] == len(universe)


def test_sets_f_is_trec_evals_set_f_with_beta_squared(files):
    """trec_eval's set_F.X is (X + 1)PR / (XP + R): X is beta², so --beta 0.5 is set_F.0.25."""
    _, qrels, runs = files
    confusions = topic_confusions(qrels, runs["two"])
    trec = evaluate(qrels, runs["two"], ["set_F.0.25"], complete=True)
    for topic, confusion in confusions.items():
        assert set_measures(confusion, beta=0.5)["F"] == pytest.approx(trec[topic]["set_F_0.25"])


def test_sets_prints_trec_eval_s_layout_and_says_what_the_collection_was(files, capsys):
    directory, qrels, runs = files
    assert main(["sets", str(directory / "qrels"), str(directory / "one"), "-k", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0].strip() for line in lines[:6]] == [
        "precision", "recall", "F", "accuracy", "specificity", "fallout"
    ]  # fmt: skip
    assert all(line.split("\t")[1] == "all" for line in lines[:6])
    assert (
        f"collection: {known_documents(qrels, runs['one'])} (documents named by the qrels and run)"
        in lines[-1]
    )


def test_sets_refuses_a_collection_smaller_than_the_documents_named(files, capsys):
    directory, _, _ = files
    assert main(["sets", str(directory / "qrels"), str(directory / "one"), "--collection-size", "3"]) == 2
    assert "collection_size 3 is smaller" in capsys.readouterr().err


def test_sets_matrix_is_trec_evals_counts_and_the_top_k_counted_by_hand(files, capsys):
    """All retrieved: TP = num_rel_ret, FP = num_ret − num_rel_ret, FN = num_rel − num_rel_ret (pytrec_eval);
    the top 5 counted from the run by hand; TN is the rest of the collection."""
    directory, qrels, runs = files
    arguments = ["sets", "--matrix", "--json", str(directory / "qrels"), str(directory / "one")]
    assert main(arguments) == 0
    matrix = json.loads(capsys.readouterr().out)
    size = matrix["collection_size"]
    counts = pytrec_eval.RelevanceEvaluator(qrels, {"num_ret", "num_rel", "num_rel_ret"}).evaluate(
        runs["one"]
    )
    for topic, row in matrix["per_query"].items():
        expected = counts[topic]
        assert row["tp"] == expected["num_rel_ret"]
        assert row["fp"] == expected["num_ret"] - expected["num_rel_ret"]
        assert row["fn"] == expected["num_rel"] - expected["num_rel_ret"]
        assert sum(row.values()) == size
    assert matrix["all"] == {
        cell: sum(row[cell] for row in matrix["per_query"].values()) for cell in matrix["all"]
    }
    assert main(["sets", "--matrix", "-k", "5", str(directory / "qrels"), str(directory / "one")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["topic", "TP", "FP", "FN", "TN"] and lines[-1].startswith("# top 5")
    for line in lines[1:-2]:
        topic, tp, fp, fn, _ = line.split()
        top = trec_order(runs["one"][topic])[:5]
        relevant = {doc for doc, rel in qrels[topic].items() if rel >= 1}
        assert (int(tp), int(fp), int(fn)) == (
            len(relevant & set(top)),
            len(set(top) - relevant),
            len(relevant - set(top)),
        )
    assert lines[-2].split()[0] == "all"


def test_the_qq_plot_of_two_runs_is_statsmodels_and_of_one_run_the_fitted_normal(files):
    from statsmodels.graphics.gofplots import ProbPlot

    _, qrels, runs = files
    one, two = (pytrec_eval.RelevanceEvaluator(qrels, {"P.10"}).evaluate(run) for run in runs.values())
    first = [one[t]["P_10"] for t in sorted(qrels)]
    second = [two[t]["P_10"] for t in sorted(qrels)]
    figure = plot_command.differences_qq(qrels, runs, options(measure="P.10", against="run"))
    x, y = figure.axes[0].lines[0].get_data()
    np.testing.assert_allclose(y, np.sort(first))  # equal sizes: both samples' order statistics
    np.testing.assert_allclose(x, np.sort(second))
    figure = plot_command.differences_qq(
        qrels, {"one": runs["one"]}, options(measure="P.10", against="normal")
    )
    x, y = figure.axes[0].lines[0].get_data()
    expected = ProbPlot(np.array(first), fit=True)
    np.testing.assert_allclose(y, expected.sample_quantiles)
    np.testing.assert_allclose(x, expected.theoretical_quantiles)
