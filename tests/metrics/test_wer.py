"""WER and its parts equal jiwer's; so does ``cranfield wer``."""

from __future__ import annotations

import json

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.metrics.text.wer import closest_reference, word_errors

words = st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog"]), min_size=1, max_size=12)
WORDS_FOR_REFERENCES = ["the", "cat", "sat", "on", "mat", "a", "dog"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(words, st.lists(st.sampled_from(["the", "cat", "sat", "dog"]), max_size=12)),
        min_size=1,
        max_size=5,
    )
)
def test_word_errors_equal_jiwer(pairs):
    references = [" ".join(r) for r, _ in pairs]
    hypotheses = [" ".join(h) for _, h in pairs]
    ours = word_errors(references, hypotheses)
    theirs = jiwer.process_words(references, hypotheses)
    assert ours.wer == pytest.approx(theirs.wer)
    assert (ours.substitutions, ours.deletions, ours.insertions, ours.hits) == (
        theirs.substitutions, theirs.deletions, theirs.insertions, theirs.hits,
    )  # fmt: skip
    n = theirs.substitutions + theirs.deletions + theirs.hits
    assert ours.wer == pytest.approx((ours.substitutions + ours.deletions + ours.insertions) / n)
    assert ours.word_accuracy == pytest.approx(1 - ours.wer)
    assert ours.cer == pytest.approx(jiwer.cer(references, hypotheses))
    assert ours.mer == pytest.approx(theirs.mer)
    assert ours.wil == pytest.approx(theirs.wil)
    assert ours.alignment == jiwer.visualize_alignment(theirs, show_measures=False)


def test_mer_wil_and_alignment_equal_jiwer_on_a_worked_transcript():
    references = ["the cat sat on the mat", "it was raining cats and dogs"]
    hypotheses = ["the cat sat on a mat today", "it raining cats and frogs"]
    ours = word_errors(references, hypotheses)
    theirs = jiwer.process_words(references, hypotheses)
    assert (ours.mer, ours.wil) == (theirs.mer, theirs.wil)
    assert ours.mer == pytest.approx(jiwer.mer(references, hypotheses))
    assert ours.wil == pytest.approx(jiwer.wil(references, hypotheses))
    assert ours.alignment == jiwer.visualize_alignment(theirs, show_measures=False)
    assert "REF: the cat sat on the mat *****" in ours.alignment
    assert "HYP: it *** raining cats and frogs" in ours.alignment


@pytest.mark.parametrize(
    ("references", "hypotheses"),
    [([""], ["a b"]), ([" "], ["x"]), ([""], [""]), (["a b"], [""]), (["a b", ""], ["a b", "c"])],
)
def test_empty_references_and_predictions_score_as_jiwer_scores_them(references, hypotheses):
    # jiwer 4 accepts an empty reference: with no reference words at all, WER = insertions.
    ours = word_errors(references, hypotheses)
    words = jiwer.process_words(references, hypotheses)
    assert (ours.wer, ours.mer, ours.wil) == (words.wer, words.mer, words.wil)
    assert (ours.substitutions, ours.deletions, ours.insertions, ours.hits) == (
        words.substitutions, words.deletions, words.insertions, words.hits,
    )  # fmt: skip
    assert ours.cer == jiwer.process_characters(references, hypotheses).cer
    assert ours.word_accuracy == 1 - words.wer
    assert ours.alignment == jiwer.visualize_alignment(words, show_measures=False)


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_wer_cli_and_line_numbered_errors(tmp_path, capsys):
    from cranfield.cli import main

    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [{"id": "u1", "prediction": "the cat sat down", "references": ["the cat sat"]}],
    )
    assert main(["wer", str(pairs)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["aggregate"]["wer"] == pytest.approx(1 / 3)
    assert report["items"][0]["insertions"] == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "prediction": "a", "references": ["a"]}\n{"id": 2, "prediction": "b"}\n')
    assert main(["wer", str(bad)]) == 2
    assert "line 2, field 'references': missing" in capsys.readouterr().err
    bad.write_text("not json\n")
    assert main(["bleu", str(bad)]) == 2
    assert "line 1: not JSON" in capsys.readouterr().err


def test_wer_cli_alignment_and_empty_reference_equal_jiwer(tmp_path, capsys):
    from cranfield.cli import main

    lines = [
        {"id": "u1", "prediction": "the cat sat on a mat today", "references": ["the cat sat on the mat"]},
        {"id": "u2", "prediction": "uh hello", "references": [""]},
        {"id": "u3", "prediction": "", "references": ["nothing was said back"]},
    ]
    pairs = write_jsonl(tmp_path / "pairs.jsonl", lines)
    assert main(["wer", str(pairs), "--alignment"]) == 0
    report = json.loads(capsys.readouterr().out)
    references = [line["references"][0] for line in lines]
    hypotheses = [line["prediction"] for line in lines]
    for item, reference, hypothesis in zip(report["items"], references, hypotheses, strict=True):
        words = jiwer.process_words(reference, hypothesis)
        assert (item["wer"], item["mer"], item["wil"]) == (words.wer, words.mer, words.wil)
        assert item["alignment"] == jiwer.visualize_alignment(words, show_measures=False)
    assert report["items"][1]["wer"] == 2  # jiwer 4: an empty reference's WER is its insertions
    overall = jiwer.process_words(references, hypotheses)
    assert (report["aggregate"]["wer"], report["aggregate"]["mer"], report["aggregate"]["wil"]) == (
        overall.wer, overall.mer, overall.wil,
    )  # fmt: skip
    assert report["aggregate"]["alignment"] == jiwer.visualize_alignment(overall, show_measures=False)
    assert main(["wer", str(pairs)]) == 0
    assert "alignment" not in json.loads(capsys.readouterr().out)["items"][0]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS_FOR_REFERENCES), min_size=0, max_size=8), min_size=1, max_size=4),
    st.lists(st.sampled_from(WORDS_FOR_REFERENCES), min_size=0, max_size=8),
)
def test_the_closest_reference_is_jiwers_lowest_wer_the_first_on_a_tie(references, hypothesis):
    texts, said = [" ".join(words) for words in references], " ".join(hypothesis)
    index, rate = closest_reference(texts, said)
    candidates = [i for i, text in enumerate(texts) if text.strip()] or list(range(len(texts)))
    rates = {i: jiwer.wer(texts[i], said) for i in candidates}
    assert rate == pytest.approx(min(rates.values()))
    assert index == min(i for i in candidates if rates[i] == pytest.approx(min(rates.values())))


def test_the_app_and_the_cli_score_several_references_by_one_rule(tmp_path, capsys):
    from cranfield.cli import main
    from evaluation.metrics.text.scores import Output, score_outputs

    items = [
        ("u1", "the cat sat on a mat", ["a dog ran", "the cat sat on the mat", "the cat sat on a mat"]),
        ("u2", "hello there", ["", "hello here", "well hello there"]),  # the blank one is passed over
        ("u3", "one two", ["one two three", "one two four"]),  # a tie: the first
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i, "prediction": p, "references": r}) + "\n" for i, p, r in items)
    )
    assert main(["wer", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [item["reference"] for item in report["items"]] == [2, 2, 0]
    app = score_outputs(
        [Output("system", i, p) for i, p, _ in items], {i: r for i, _, r in items}, metrics=["wer"]
    )
    for item, (name, prediction, references) in zip(report["items"], items, strict=True):
        expected = min(jiwer.wer(r, prediction) for r in references if r.strip())
        assert (
            item["wer"] == pytest.approx(expected) == pytest.approx(app.per_output[("system", name)]["wer"])
        )
    chosen = [
        references[item["reference"]] for item, (_, _, references) in zip(report["items"], items, strict=True)
    ]
    assert report["aggregate"]["wer"] == pytest.approx(jiwer.wer(chosen, [p for _, p, _ in items]))
    assert "closest reference" in report["multi_reference"]
