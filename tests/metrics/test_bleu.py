"""BLEU, chrF and TER equal sacrebleu's and carry its signature; so does ``cranfield bleu``."""

from __future__ import annotations

import json

import pytest
import sacrebleu

from evaluation.metrics.text.bleu import corpus_bleu, sentence_bleu
from evaluation.metrics.text.chrf import corpus_chrf
from evaluation.metrics.text.ter_sacrebleu import corpus_ter


def test_papineni_modified_unigram_precision_is_2_of_7():
    # Papineni et al. (2002), §2.1: "the the the the the the the" against two references.
    score = corpus_bleu(
        ["the the the the the the the"], [["the cat is on the mat", "there is a cat on the mat"]]
    )
    assert score.precisions[0] == pytest.approx(100 * 2 / 7)
    assert score.signature.startswith("nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:")


def test_corpus_scores_equal_sacrebleu():
    predictions = ["the cat sat on the mat", "a quick brown fox", "hello there general"]
    references = [["the cat is on the mat"], ["the quick brown fox jumps"], ["hello there general kenobi"]]
    by_position = [[refs[0] for refs in references]]
    assert corpus_bleu(predictions, references).score == pytest.approx(
        sacrebleu.corpus_bleu(predictions, by_position).score
    )
    assert corpus_chrf(predictions, references).score == pytest.approx(
        sacrebleu.corpus_chrf(predictions, by_position).score
    )
    assert corpus_ter(predictions, references).score == pytest.approx(
        sacrebleu.corpus_ter(predictions, by_position).score
    )
    assert sentence_bleu(predictions[0], references[0]).score == pytest.approx(
        sacrebleu.sentence_bleu(predictions[0], references[0]).score
    )


SENTENCES = [
    ("the cat sat on the mat", ["the cat is on the mat", "a cat sat on a mat"]),
    ("A quick brown fox, jumping!", ["The quick brown fox jumps.", "a fast brown fox jumped"]),
    ("hello there general", ["hello there general kenobi", "hi there, general"]),
    ("Der Hund bellt laut.", ["Der Hund bellt sehr laut.", "Ein Hund bellt."]),
]
PREDICTIONS = [prediction for prediction, _ in SENTENCES]
REFERENCES = [references for _, references in SENTENCES]
BY_POSITION = [list(position) for position in zip(*REFERENCES, strict=True)]


@pytest.mark.parametrize(
    ("smooth_method", "smooth_value"),
    [("none", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2.0), ("exp", None)],
)
@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "none", "zh"])
def test_bleu_with_every_smoothing_and_tokeniser_equals_sacrebleu(tokenize, smooth_method, smooth_value):
    options = {"tokenize": tokenize, "smooth_method": smooth_method, "smooth_value": smooth_value}
    metric = sacrebleu.BLEU(**options)
    theirs = metric.corpus_score(PREDICTIONS, BY_POSITION)
    ours = corpus_bleu(PREDICTIONS, REFERENCES, **options)
    assert ours.score == pytest.approx(theirs.score, abs=1e-12)
    assert ours.precisions == pytest.approx(theirs.precisions, abs=1e-12)
    assert ours.signature == str(metric.get_signature())
    for prediction, references in SENTENCES:
        sentence_metric = sacrebleu.BLEU(**options, effective_order=True)
        expected = sentence_metric.sentence_score(prediction, references).score
        got = sentence_bleu(prediction, references, **options)
        assert got.score == pytest.approx(expected, abs=1e-12)
        assert got.signature == str(sentence_metric.get_signature())


def test_chrf_and_ter_carry_sacrebleu_s_signatures():
    chrf, ter = corpus_chrf(PREDICTIONS, REFERENCES), corpus_ter(PREDICTIONS, REFERENCES)
    chrf_metric, ter_metric = sacrebleu.CHRF(), sacrebleu.TER()
    assert chrf.score == pytest.approx(chrf_metric.corpus_score(PREDICTIONS, BY_POSITION).score)
    assert ter.score == pytest.approx(ter_metric.corpus_score(PREDICTIONS, BY_POSITION).score)
    assert chrf.signature == str(chrf_metric.get_signature())
    assert ter.signature == str(ter_metric.get_signature())
    assert chrf.signature.startswith("nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:")
    assert ter.signature.startswith("nrefs:2|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:")


@pytest.mark.parametrize(("prediction", "reference"), [("", "a b c"), ("a b c", ""), ("", ""), (" ", "a")])
def test_empty_texts_score_as_sacrebleu_scores_them(prediction, reference):
    assert (
        corpus_bleu([prediction], [[reference]]).score
        == sacrebleu.corpus_bleu([prediction], [[reference]]).score
    )
    assert (
        sentence_bleu(prediction, [reference]).score == sacrebleu.sentence_bleu(prediction, [reference]).score
    )
    assert (
        corpus_chrf([prediction], [[reference]]).score
        == sacrebleu.corpus_chrf([prediction], [[reference]]).score
    )
    assert (
        corpus_ter([prediction], [[reference]]).score
        == sacrebleu.corpus_ter([prediction], [[reference]]).score
    )


def test_an_item_without_references_is_refused():
    with pytest.raises(ValueError, match="at least one reference"):
        corpus_bleu(["a", "b"], [["a"], []])


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


PAIR_1 = ("the cat sat on the mat", ["the cat is on the mat"])
records = [
    {"id": 1, "prediction": PAIR_1[0], "references": PAIR_1[1]},
    {"id": 2, "prediction": "a quick brown fox", "references": ["the quick brown fox jumps"]},
    {"id": 3, "prediction": "", "references": ["an empty prediction"]},
]


def test_bleu_cli_reports_items_and_a_signed_corpus_score(tmp_path, capsys):
    from cranfield.cli import main

    pairs = write_jsonl(tmp_path / "pairs.jsonl", records)
    assert main(["bleu", str(pairs)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [item["id"] for item in report["items"]] == [1, 2, 3]
    assert report["aggregate"]["bleu"] == pytest.approx(
        sacrebleu.corpus_bleu(
            ["the cat sat on the mat", "a quick brown fox", ""],
            [["the cat is on the mat", "the quick brown fox jumps", "an empty prediction"]],
        ).score
    )
    assert report["aggregate"]["signature"].startswith("nrefs:1|")
    predictions, by_position = [p["prediction"] for p in records], [[p["references"][0] for p in records]]
    chrf, ter = sacrebleu.CHRF(), sacrebleu.TER()
    assert report["aggregate"]["chrf"] == pytest.approx(chrf.corpus_score(predictions, by_position).score)
    assert report["aggregate"]["ter"] == pytest.approx(ter.corpus_score(predictions, by_position).score)
    assert report["aggregate"]["chrf_signature"] == str(chrf.get_signature())
    assert report["aggregate"]["ter_signature"] == str(ter.get_signature())
    sentence = sacrebleu.BLEU(effective_order=True)
    assert report["items"][0]["bleu"] == pytest.approx(sentence.sentence_score(*PAIR_1).score)
    assert report["items"][0]["signature"] == str(sentence.get_signature())
    # chrF and TER per item too (issue 28), each equal to sacrebleu's sentence score, with its signature.
    for item, record in zip(report["items"], records, strict=True):
        chrf_item, ter_item = sacrebleu.CHRF(), sacrebleu.TER()
        assert item["chrf"] == pytest.approx(
            chrf_item.sentence_score(record["prediction"], record["references"]).score
        )
        assert item["ter"] == pytest.approx(
            ter_item.sentence_score(record["prediction"], record["references"]).score
        )
        assert (item["chrf_signature"], item["ter_signature"]) == (
            str(chrf_item.get_signature()),
            str(ter_item.get_signature()),
        )


@pytest.mark.parametrize(
    ("options", "sacrebleu_options"),
    [
        (["--smooth-method", "add-k", "--smooth-value", "2"], {"smooth_method": "add-k", "smooth_value": 2}),
        (["--smooth-method", "floor"], {"smooth_method": "floor"}),
        (["--smooth-method", "none", "--tokenize", "char"], {"smooth_method": "none", "tokenize": "char"}),
        (["--tokenize", "intl"], {"tokenize": "intl"}),
    ],
)
def test_bleu_cli_smoothing_and_tokeniser_options_equal_sacrebleu(
    tmp_path, capsys, options, sacrebleu_options
):
    from cranfield.cli import main

    pairs = write_jsonl(tmp_path / "pairs.jsonl", records)
    assert main(["bleu", str(pairs), *options]) == 0
    report = json.loads(capsys.readouterr().out)
    metric = sacrebleu.BLEU(**sacrebleu_options)
    predictions, by_position = [p["prediction"] for p in records], [[p["references"][0] for p in records]]
    assert report["aggregate"]["bleu"] == pytest.approx(metric.corpus_score(predictions, by_position).score)
    assert report["aggregate"]["signature"] == str(metric.get_signature())
    sentence = sacrebleu.BLEU(**sacrebleu_options, effective_order=True)
    for item, record in zip(report["items"], records, strict=True):
        expected = sentence.sentence_score(record["prediction"], record["references"])
        assert item["bleu"] == pytest.approx(expected.score)
    assert report["items"][0]["signature"] == str(sentence.get_signature())


def test_bleu_cli_refuses_a_smoothing_value_that_would_be_ignored(tmp_path, capsys):
    from cranfield.cli import main

    pairs = write_jsonl(tmp_path / "pairs.jsonl", records)
    assert main(["bleu", str(pairs), "--smooth-method", "exp", "--smooth-value", "2"]) == 2
    assert "--smooth-value applies to floor and add-k only" in capsys.readouterr().err


VARIABLE = [
    ("the cat sat on the mat", ["the cat sat on the mat today", "a cat was sitting on the mat"]),
    ("there is a dog in the garden", ["a dog is in the garden"]),
    ("hello world", ["hello world", "hi world", "greetings, world"]),
    ("it rained all day long", ["it was raining all day"]),
]


def summed_statistics(metric, pairs) -> float:
    """The corpus score as the sum of each item's own statistics against its own references (the
    definition of corpus BLEU, chrF and TER), through sacrebleu's per-segment statistics."""
    import numpy as np

    stats = [metric._extract_corpus_statistics([p], [[r] for r in refs])[0] for p, refs in pairs]
    return metric._compute_score_from_stats(list(np.sum(np.array(stats, dtype=float), axis=0))).score


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_corpus_scores_with_different_numbers_of_references_sum_each_items_own(name):
    predictions = [p for p, _ in VARIABLE]
    references = [refs for _, refs in VARIABLE]
    ours = {"bleu": corpus_bleu, "chrf": corpus_chrf, "ter": corpus_ter}[name](predictions, references)
    metric = {"bleu": sacrebleu.BLEU(), "chrf": sacrebleu.CHRF(), "ter": sacrebleu.TER()}[name]
    assert ours.score == pytest.approx(summed_statistics(metric, VARIABLE), abs=1e-9)
    assert "nrefs:var" in ours.signature


def test_corpus_bleu_with_different_numbers_of_references_equals_sacrebleu_with_repeated_ones():
    # A reference given twice changes no clipped count and no closest length: sacrebleu's fixed-count
    # path on the references repeated up to three agrees with the variable-count one.
    predictions = [p for p, _ in VARIABLE]
    repeated = [[*refs, *[refs[-1]] * (3 - len(refs))] for _, refs in VARIABLE]
    by_position = [list(position) for position in zip(*repeated, strict=True)]
    assert corpus_bleu(predictions, [refs for _, refs in VARIABLE]).score == pytest.approx(
        sacrebleu.corpus_bleu(predictions, by_position).score
    )


def test_the_cli_gives_corpus_scores_when_items_have_different_numbers_of_references(tmp_path, capsys):
    from cranfield.cli import main

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "".join(
            json.dumps({"id": str(n), "prediction": p, "references": refs}) + "\n"
            for n, (p, refs) in enumerate(VARIABLE)
        )
    )
    assert main(["bleu", str(pairs)]) == 0
    aggregate = json.loads(capsys.readouterr().out)["aggregate"]
    predictions, references = [p for p, _ in VARIABLE], [refs for _, refs in VARIABLE]
    assert aggregate["bleu"] == pytest.approx(summed_statistics(sacrebleu.BLEU(), VARIABLE))
    assert aggregate["chrf"] == pytest.approx(corpus_chrf(predictions, references).score)
    assert aggregate["ter"] == pytest.approx(summed_statistics(sacrebleu.TER(), VARIABLE))
    assert "nrefs:var" in aggregate["signature"] and "note" not in aggregate
