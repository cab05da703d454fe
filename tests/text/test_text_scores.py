"""Every output's scores equal the reference implementations' on generated outputs: ROUGE-1/2/L/Lsum
rouge-score's (stemmed, best reference by F), BLEU, chrF and TER sacrebleu's sentence scores against
all the references, WER jiwer's against the closest reference; a system's score is the mean of its
outputs'."""

from __future__ import annotations

import random

import jiwer
import pytest
import sacrebleu
from rouge_score import rouge_scorer

from evaluation.metrics.rouge.scores import RougeScorer
from evaluation.metrics.text.scores import METRICS, ROUGE_TYPES, Output, score_outputs, signatures

WORDS = ["the", "a", "wing", "flow", "boundary", "layer", "shock", "wave", "heat", "transfer"]
WORDS += ["pressure", "laminar", "turbulent", "models"]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14))).capitalize() + "."


def text(rng: random.Random) -> str:
    return "\n".join(sentence(rng) for _ in range(rng.randint(1, 3)))


def generated(seed: int, systems: int = 4, inputs: int = 12, max_references: int = 3):
    rng = random.Random(seed)
    references = {f"i{i}": [text(rng) for _ in range(rng.randint(1, max_references))] for i in range(inputs)}
    outputs = [Output(f"s{s}", f"i{i}", text(rng)) for s in range(systems) for i in range(inputs)]
    return outputs, references


@pytest.mark.parametrize("seed", range(4))
def test_every_output_equals_the_reference_implementations(seed):
    outputs, references = generated(seed)
    result = score_outputs(outputs, references)
    kit = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    ours_w_su4 = RougeScorer(["rougeW", "rougeSU4"], stem=True)
    for output in outputs:
        values = result.per_output[(output.system, output.input)]
        refs = references[output.input]
        theirs = kit.score_multi(refs, output.text)
        for name in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
            assert values[name] == pytest.approx(theirs[name].fmeasure, abs=1e-12), name
        for name, score in ours_w_su4.score(output.text, refs).items():
            assert values[name] == pytest.approx(score.fmeasure, abs=1e-12)
        assert values["bleu"] == pytest.approx(sacrebleu.sentence_bleu(output.text, refs).score, abs=1e-9)
        assert values["chrf"] == pytest.approx(sacrebleu.sentence_chrf(output.text, refs).score, abs=1e-9)
        assert values["ter"] == pytest.approx(sacrebleu.sentence_ter(output.text, refs).score, abs=1e-9)
        assert values["wer"] == pytest.approx(min(jiwer.wer(r, output.text) for r in refs), abs=1e-12)
    for system, means in result.per_system.items():
        mine = [v for (s, _), v in result.per_output.items() if s == system]
        for name in METRICS:
            assert means[name] == pytest.approx(sum(v[name] for v in mine) / len(mine), abs=1e-12)


def test_pooled_references_change_only_rouge_and_are_named_in_the_signature():
    outputs, references = generated(3)
    best, pooled = (
        score_outputs(outputs, references),
        score_outputs(outputs, references, rouge_multi_ref="pooled"),
    )
    assert "multi:max" in best.signatures["rouge1"] and "multi:pooled" in pooled.signatures["rouge1"]
    assert any(best.per_output[k]["rouge1"] != pooled.per_output[k]["rouge1"] for k in best.per_output)
    assert all(best.per_output[k]["bleu"] == pooled.per_output[k]["bleu"] for k in best.per_output)


def test_outputs_without_references_are_listed_and_duplicates_refused():
    outputs, references = generated(1, inputs=3)
    references["i1"] = ["  "]
    del references["i2"]
    result = score_outputs(outputs, references)
    assert sorted(result.unscored) == sorted((o.system, o.input) for o in outputs if o.input != "i0")
    assert set(result.per_system) == {"s0", "s1", "s2", "s3"}
    with pytest.raises(ValueError, match="two outputs"):
        score_outputs([*outputs, outputs[0]], references)


def test_every_metric_has_a_signature_naming_its_settings():
    named = signatures()
    assert set(named) == set(METRICS)
    assert all(named[name].startswith(f"{name}|rouge|") for name in ROUGE_TYPES)
    assert "stem:porter" in named["rouge1"]
    assert named["bleu"].startswith("nrefs:1|") and "eff:yes" in named["bleu"]
    assert signatures(references_per_input={1, 4})["chrf"].startswith("nrefs:var|")
    assert named["chrf"].startswith("nrefs:") and named["ter"].startswith("nrefs:")


def test_only_the_metrics_asked_for_are_computed_and_signed():
    outputs = [Output("s", "i", "the cat sat on the mat"), Output("t", "i", "a dog lay on a rug")]
    references = {"i": ["the cat is on the mat", "there is a cat on the mat"]}
    found = score_outputs(outputs, references, metrics=["ter"])
    assert set(found.signatures) == {"ter"} and set(found.per_system["s"]) == {"ter"}
    for output in outputs:
        expected = sacrebleu.TER().sentence_score(output.text, references["i"]).score
        assert found.per_output[(output.system, output.input)] == {"ter": pytest.approx(expected)}
    with pytest.raises(ValueError, match="unknown metric 'meteor'"):
        score_outputs(outputs, references, metrics=["meteor"])
    with pytest.raises(ValueError, match="at least one"):
        score_outputs(outputs, references, metrics=[])
