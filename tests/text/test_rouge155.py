"""Our ROUGE against Lin's ROUGE-1.5.5 itself, run from Perl on generated texts.

Each test writes a few hundred generated (prediction, references) pairs as SPL files, runs
ROUGE-1.5.5 once with ``-d`` (per-pair scores, printed with 5 decimals) and compares every pair:
precision and recall within 6e-6 (its rounding), F within 2e-5 (it computes F from the rounded
P and R). Our ``pooled`` mode is its default model-average scoring (``-f A``); its ROUGE-L is our
``rougeLsum``; its ROUGE-W is our ``rouge_w="rouge155"``. Skipped without Perl (see rouge155.py).
"""

from __future__ import annotations

import random

import pytest

from evaluation.metrics.rouge.scores import RougeScorer
from evaluation.metrics.rouge.text import truncate
from tests.text.rouge155 import rouge155

WORDS = [
    "the", "police", "killed", "gunman", "a", "of", "and", "semi-aquatic", "water", "spinach",
    "is", "grown", "in", ",", ".", "3.5", "U.S.", "don't", "cat",
]  # fmt: skip
CONTENT = ["police", "killed", "gunman", "spinach", "water", "cat", "grown"]
NAMES = {
    "ROUGE-1": "rouge1",
    "ROUGE-2": "rouge2",
    "ROUGE-3": "rouge3",
    "ROUGE-L": "rougeLsum",
    "ROUGE-W-1.2": "rougeW",
}


def generated_pairs(seed: int, count: int) -> list[tuple[str, list[str]]]:
    """Texts of 1–3 lines; every line opens with a content word, since ROUGE-1.5.5 divides by zero
    on a reference without tokens (its ``wlcs`` has no guard)."""
    rng = random.Random(seed)

    def text() -> str:
        lines = []
        for _ in range(rng.randint(1, 3)):
            words = [rng.choice(CONTENT)] + [rng.choice(WORDS) for _ in range(rng.randint(0, 14))]
            lines.append(" ".join(words))
        return "\n".join(lines)

    return [(text(), [text() for _ in range(rng.randint(1, 4))]) for _ in range(count)]


def compare(per_eval, pairs, scorer, names, truncate_references=None):
    checked = 0
    for index, (prediction, references) in enumerate(pairs):
        if truncate_references:
            references = [truncate(reference, **truncate_references) for reference in references]
        ours = scorer.score(prediction, references)
        for measure, name in names.items():
            recall, precision, f = per_eval[(measure, index)]
            got = ours[name]
            assert got.recall == pytest.approx(recall, abs=6e-6), (measure, index)
            assert got.precision == pytest.approx(precision, abs=6e-6), (measure, index)
            assert got.fmeasure == pytest.approx(f, abs=2e-5), (measure, index)
            checked += 1
    return checked


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    return rouge155(tmp_path_factory)


def test_every_measure_in_pooled_mode_equals_rouge_1_5_5(oracle, tmp_path):
    pairs = generated_pairs(seed=1, count=250)
    per_eval, _ = oracle.run(tmp_path, pairs, ["-n", "3", "-w", "1.2", "-2", "4", "-U"])
    names = {**NAMES, "ROUGE-S4": "rougeS4", "ROUGE-SU4": "rougeSU4"}
    scorer = RougeScorer(list(names.values()), multi_ref="pooled", rouge_w="rouge155")
    assert compare(per_eval, pairs, scorer, names) == 250 * len(names)


def test_unlimited_skips_stop_words_and_word_truncation_equal_rouge_1_5_5(oracle, tmp_path):
    # -s against remove_stop_words with no list given: ours defaults to ROUGE-1.5.5's own list;
    # -l cuts the references too, so we cut them with the same rule before scoring.
    pairs = generated_pairs(seed=2, count=150)
    options = ["-n", "2", "-w", "1.2", "-2", "-1", "-U", "-s", "-l", "12"]
    per_eval, _ = oracle.run(tmp_path, pairs, options)
    names = {**NAMES, "ROUGE-S*": "rougeS*", "ROUGE-SU*": "rougeSU*"}
    del names["ROUGE-3"]
    scorer = RougeScorer(
        list(names.values()),
        multi_ref="pooled",
        rouge_w="rouge155",
        remove_stop_words=True,
        truncate_words=12,
    )
    assert compare(per_eval, pairs, scorer, names, truncate_references={"words": 12}) == 150 * len(names)


def test_byte_truncation_equals_rouge_1_5_5_for_ngrams_and_skip_bigrams(oracle, tmp_path):
    # ROUGE-1.5.5's -b for ROUGE-L/W reads sentences with readText_LCS, which never adds to its
    # running byte count; we apply the n-gram rule (readText) everywhere, see rouge_text.truncate.
    pairs = generated_pairs(seed=3, count=150)
    per_eval, _ = oracle.run(tmp_path, pairs, ["-n", "2", "-2", "4", "-U", "-b", "40", "-x"])
    names = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-S4": "rougeS4", "ROUGE-SU4": "rougeSU4"}
    scorer = RougeScorer(list(names.values()), multi_ref="pooled", truncate_bytes=40)
    assert compare(per_eval, pairs, scorer, names, truncate_references={"bytes_": 40}) == 150 * 4


def test_single_reference_scores_do_not_depend_on_the_mode(oracle, tmp_path):
    pairs = [(prediction, references[:1]) for prediction, references in generated_pairs(seed=4, count=100)]
    per_eval, _ = oracle.run(tmp_path, pairs, ["-n", "2", "-2", "4", "-U"])
    names = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeLsum", "ROUGE-SU4": "rougeSU4"}
    for mode in ("max", "pooled", "jackknife"):
        assert compare(per_eval, pairs, RougeScorer(list(names.values()), multi_ref=mode), names) == 400


def test_lin_examples_through_rouge_1_5_5(oracle, tmp_path):
    # The hand-worked values of test_rouge_examples, confirmed by the Perl script itself.
    reference = "police killed the gunman"
    candidates = [
        "police kill the gunman",
        "the gunman kill police",
        "the gunman police killed",
        "gunman the killed police",
    ]
    per_eval, _ = oracle.run(tmp_path, [(c, [reference]) for c in candidates], ["-n", "2", "-2", "-1", "-U"])
    assert [per_eval[("ROUGE-L", i)][0] for i in range(4)] == [0.75, 0.5, 0.5, 0.25]
    assert [per_eval[("ROUGE-S*", i)][0] for i in range(4)] == [0.5, 0.16667, 0.33333, 0.0]
    assert per_eval[("ROUGE-SU*", 3)][0] == 0.22222  # 2/9: no marker, last token's unigram not counted


@pytest.mark.parametrize("required", [True, False])
def test_a_missing_rouge_1_5_5_fails_in_ci_and_skips_locally(monkeypatch, tmp_path_factory, required):
    import tests.conftest
    import tests.text.rouge155

    monkeypatch.setattr(tests.text.rouge155, "_locate", lambda base: None)
    monkeypatch.setattr(tests.conftest, "REQUIRE_SERVICES", required)
    outcome = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(outcome, match=r"ROUGE-1\.5\.5 needs Perl"):
        rouge155(tmp_path_factory)


def test_cli_truncate_bytes_equals_rouge_1_5_5_b(oracle, tmp_path, capsys):
    # ROUGE-1.5.5's -b cuts the references too; the CLI cuts predictions only, so the JSONL holds
    # the references as -b leaves them.
    import json

    from cranfield.cli import main

    pairs = generated_pairs(seed=5, count=120)
    assert sum(len(prediction.encode()) > 50 for prediction, _ in pairs) > 60  # the cut bites
    per_eval, _ = oracle.run(tmp_path, pairs, ["-n", "2", "-2", "4", "-U", "-b", "50", "-x"])
    lines = [
        {"id": index, "prediction": prediction, "references": [truncate(r, bytes_=50) for r in references]}
        for index, (prediction, references) in enumerate(pairs)
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    names = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-S4": "rougeS4", "ROUGE-SU4": "rougeSU4"}
    metrics = ",".join(names.values())
    options = ["--metrics", metrics, "--multi-ref", "pooled", "--truncate-bytes", "50", "--bootstrap", "0"]
    assert main(["rouge", str(path), *options]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["signature"].endswith("trunc:bytes:50")
    for index, item in enumerate(report["items"]):
        for measure, name in names.items():
            recall, precision, f = per_eval[(measure, index)]
            assert item[name]["recall"] == pytest.approx(recall, abs=6e-6), (measure, index)
            assert item[name]["precision"] == pytest.approx(precision, abs=6e-6), (measure, index)
            assert item[name]["fmeasure"] == pytest.approx(f, abs=2e-5), (measure, index)
