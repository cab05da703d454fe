"""BLEU/chrF/TER equal sacrebleu's and carry its signature; WER and parts equal jiwer's."""

from __future__ import annotations

import jiwer
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.metrics.text import corpus_bleu, corpus_chrf, corpus_ter, sentence_bleu, word_errors


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


def test_unequal_reference_counts_are_refused():
    with pytest.raises(ValueError, match="same, non-zero number of references"):
        corpus_bleu(["a", "b"], [["a"], ["b", "c"]])


words = st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog"]), min_size=1, max_size=12)


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


def test_empty_references_are_refused_with_their_index():
    with pytest.raises(ValueError, match="reference 1 is empty"):
        word_errors(["a b", " "], ["a b", "c"])


def write_jsonl(path, records):
    import json

    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_bleu_cli_reports_items_and_a_signed_corpus_score(tmp_path, capsys):
    import json

    from cranfield.cli import main

    pairs = write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id": 1, "prediction": "the cat sat on the mat", "references": ["the cat is on the mat"]},
            {"id": 2, "prediction": "a quick brown fox", "references": ["the quick brown fox jumps"]},
        ],
    )
    assert main(["bleu", str(pairs)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [item["id"] for item in report["items"]] == [1, 2]
    assert report["aggregate"]["bleu"] == pytest.approx(
        sacrebleu.corpus_bleu(
            ["the cat sat on the mat", "a quick brown fox"],
            [["the cat is on the mat", "the quick brown fox jumps"]],
        ).score
    )
    assert report["aggregate"]["signature"].startswith("nrefs:1|")


def test_wer_cli_and_line_numbered_errors(tmp_path, capsys):
    import json

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
