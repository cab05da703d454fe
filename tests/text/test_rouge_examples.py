"""Worked examples from the literature and the lecture material, and invariants of ROUGE.

Sources: Lin (2004), "ROUGE: A Package for Automatic Evaluation of Summaries" (§3 LCS, §4 WLCS,
§5 skip-bigrams); the summarisation lecture's water-spinach ROUGE-2 example; HF ``evaluate``'s
three-candidate example; ROUGE-1.5.5 for its skip-bigram and ROUGE-W conventions.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.metrics.rouge.aggregate import aggregate
from evaluation.metrics.rouge.ngrams import ngram_counts, skip_bigram_counts
from evaluation.metrics.rouge.scores import RougeScorer, Score
from evaluation.metrics.rouge.text import tokenize

# The lecture's example: one system summary, three human summaries of water spinach.
SYSTEM = "Water spinach is a leaf vegetable commonly eaten in tropical areas of Asia"
HUMANS = [
    "Water spinach is a green leafy vegetable grown in the tropics",
    "Water spinach is a semi-aquatic tropical plant grown as a vegetable",
    "Water spinach is a commonly eaten leaf vegetable of Asia",
]


def whitespace_words(text: str) -> list[str]:
    return text.lower().split()


def test_water_spinach_rouge2_pooled_is_12_of_29_with_semi_aquatic_as_one_word():
    # Matched bigrams: 3 ("water spinach", "spinach is", "is a") with each of the first two
    # summaries, 6 with the third ("commonly eaten", "leaf vegetable", "of asia" too): 12.
    # Reference bigrams: 10 + 10 + 9 = 29 when "semi-aquatic" is one word.
    scorer = RougeScorer(["rouge2"], multi_ref="pooled", tokenizer=whitespace_words)
    assert [len(whitespace_words(h)) - 1 for h in HUMANS] == [10, 10, 9]
    result = scorer.score(SYSTEM, HUMANS)["rouge2"]
    assert Fraction(result.recall).limit_denominator(100) == Fraction(12, 29)
    assert round(result.recall, 3) == 0.414
    # Precision counts the system's 12 bigrams once per reference (ROUGE-1.5.5's model average).
    assert result.precision == pytest.approx(12 / 36)


def test_water_spinach_rouge2_pooled_is_12_of_30_with_rouge_score_s_tokeniser():
    # rouge-score (and ROUGE-1.5.5) split "semi-aquatic", so the second summary has 11 bigrams.
    assert [len(tokenize(h)) - 1 for h in HUMANS] == [10, 11, 9]
    result = RougeScorer(["rouge2"], multi_ref="pooled").score(SYSTEM, HUMANS)["rouge2"]
    assert result.recall == pytest.approx(12 / 30)
    assert round(result.recall, 3) == 0.400


def test_water_spinach_12_of_28_is_a_miscount():
    # 28 reference bigrams would need one of the first two summaries to have 9 bigrams; neither
    # tokenisation gives that, so the 0.43 sometimes quoted is not a ROUGE-2 of these texts.
    for tokenizer, total in ((whitespace_words, 29), (tokenize, 30)):
        counts = [sum(ngram_counts(tokenizer(h), 2).values()) for h in HUMANS]
        assert sum(counts) == total != 28
    for tokenizer in (whitespace_words, None):
        recall = RougeScorer(["rouge2"], multi_ref="pooled", tokenizer=tokenizer).score(SYSTEM, HUMANS)
        assert recall["rouge2"].recall != pytest.approx(12 / 28)


def test_hf_evaluate_three_candidate_example():
    # evaluate.load("rouge").compute(predictions, references) with lists of references prints
    # {'rouge1': 0.6659340659340659, 'rouge2': 0.45454545454545453,
    #  'rougeL': 0.6146520146520146, 'rougeLsum': 0.6146520146520146}: best reference by F,
    # mean F over the three candidates.
    predictions = [
        "Transformers Transformers are fast plus efficient",
        "Good Morning",
        "I am waiting for new Transformers",
    ]
    references = [
        [
            "HuggingFace Transformers are fast efficient plus awesome",
            "Transformers are awesome because they are fast to execute",
        ],
        ["Good Morning Transformers", "Morning Transformers"],
        [
            "People are eagerly waiting for new Transformer models",
            "People are very excited about new Transformers",
        ],
    ]
    scorer = RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], multi_ref="max")
    items = [scorer.score(p, refs) for p, refs in zip(predictions, references, strict=True)]
    means = {name: value["fmeasure"] for name, value in aggregate(items).items()}
    assert means == pytest.approx(
        {"rouge1": 0.6659340659340659, "rouge2": 0.45454545454545453,
         "rougeL": 0.6146520146520146, "rougeLsum": 0.6146520146520146},
        abs=1e-12,
    )  # fmt: skip


# Lin (2004): S1 is the reference.
S1 = "police killed the gunman"
S2 = "police kill the gunman"
S3 = "the gunman kill police"
S4 = "the gunman police killed"
S5 = "gunman the killed police"


def test_lin_rouge_l_prefers_s2_where_rouge_2_cannot_tell_s2_from_s3():
    # §3.1: with beta = 1, ROUGE-L(S2) = 3/4 = 0.75 and ROUGE-L(S3) = 2/4 = 0.5, while both
    # share only the bigram "the gunman" with S1 (ROUGE-2 = 1/3 each).
    scorer = RougeScorer(["rougeL", "rouge2"])
    s2, s3 = scorer.score(S2, [S1]), scorer.score(S3, [S1])
    assert s2["rougeL"] == Score(0.75, 0.75, 0.75)
    assert s3["rougeL"] == Score(0.5, 0.5, 0.5)
    assert s2["rouge2"] == s3["rouge2"] == pytest.approx((1 / 3, 1 / 3, 1 / 3))


def test_lin_rouge_s_of_s2_s3_s4():
    # §5: S1 has C(4,2) = 6 skip-bigrams; S2 shares 3 ("police the", "police gunman",
    # "the gunman"), S3 one ("the gunman"), S4 two ("the gunman", "police killed"):
    # ROUGE-S = 0.5, 0.167 and 0.333 with beta = 1.
    scorer = RougeScorer(["rougeS*", "rougeS4"])
    for candidate, expected in ((S2, 3 / 6), (S3, 1 / 6), (S4, 2 / 6)):
        result = scorer.score(candidate, [S1])
        assert result["rougeS*"] == pytest.approx((expected, expected, expected))
        assert result["rougeS4"] == result["rougeS*"]  # at most 2 words apart in 4 tokens


def test_lin_rouge_su_scores_s5_where_rouge_s_is_zero():
    # §5.1: S5 is S1 reversed, so no skip-bigram matches (ROUGE-S = 0); ROUGE-SU still credits
    # shared words. ROUGE-1.5.5 counts the unigrams of every token but the last (no marker):
    # S1 gives police, killed, the; S5 gives gunman, the, killed; 2 of them match, so
    # SU = 2 / (6 + 3) with beta = 1. (Lin's begin-of-sentence formulation would give 4/10.)
    result = RougeScorer(["rougeS*", "rougeSU*"]).score(S5, [S1])
    assert result["rougeS*"] == Score(0.0, 0.0, 0.0)
    assert result["rougeSU*"] == pytest.approx((2 / 9, 2 / 9, 2 / 9))


def test_lin_rouge_w_prefers_consecutive_matches():
    # §4: X = A B C D E F G; Y1 = A B C D H I K and Y2 = A H B K C I D have the same LCS (4),
    # but with f(k) = k^2 WLCS(X, Y1) = 16 and WLCS(X, Y2) = 4, so ROUGE-W = f⁻¹(WLCS / f(7)):
    # sqrt(16/49) = 4/7 for Y1 and sqrt(4/49) = 2/7 for Y2.
    x, y1, y2 = "A B C D E F G", "A B C D H I K", "A H B K C I D"
    scorer = RougeScorer(["rougeW", "rougeL"], weight=2)
    assert scorer.score(y1, [x])["rougeL"] == scorer.score(y2, [x])["rougeL"]
    assert scorer.score(y1, [x])["rougeW"] == pytest.approx((4 / 7, 4 / 7, 4 / 7))
    assert scorer.score(y2, [x])["rougeW"] == pytest.approx((2 / 7, 2 / 7, 2 / 7))
    # ROUGE-1.5.5 weighs runs of consecutive reference positions only, so there Y2 ties Y1,
    # and its recall normalises by f applied twice: (16 / (7^2)^2)^(1/2) = 4/49.
    legacy = RougeScorer(["rougeW"], weight=2, rouge_w="rouge155")
    assert legacy.score(y1, [x]) == legacy.score(y2, [x])
    assert legacy.score(y2, [x])["rougeW"].recall == pytest.approx(4 / 49)
    assert legacy.score(y2, [x])["rougeW"].precision == pytest.approx(4 / 7)


def test_lin_rouge_w_with_the_default_weight_on_s2():
    # S2 against S1: "police" then "the gunman" consecutive; WLCS = f(1) + f(2) = 1 + 2^1.2,
    # f(4) = 4^1.2 on both sides, ROUGE-W = ((1 + 2^1.2) / 4^1.2)^(1/1.2) = 0.67569...
    expected = ((1 + 2**1.2) / 4**1.2) ** (1 / 1.2)
    assert RougeScorer(["rougeW"]).score(S2, [S1])["rougeW"] == pytest.approx((expected,) * 3)
    assert round(expected, 5) == 0.67569


VOCABULARY = ["police", "killed", "the", "gunman", "a", "kill", "of"]
words = st.lists(st.sampled_from(VOCABULARY), min_size=2, max_size=25)
ALL_TYPES = [
    "rouge1", "rouge2", "rouge4", "rougeL", "rougeLsum", "rougeW",
    "rougeS4", "rougeS*", "rougeSU4", "rougeSU*",
]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(words, st.integers(min_value=1, max_value=3))
def test_identical_texts_score_one_on_every_type(tokens, lines):
    # Lines make several sentences for ROUGE-Lsum; ROUGE-N needs at least N tokens.
    step = max(1, len(tokens) // lines)
    text = "\n".join(" ".join(tokens[i : i + step]) for i in range(0, len(tokens), step))
    for mode in ("max", "pooled", "jackknife"):
        result = RougeScorer(ALL_TYPES, multi_ref=mode).score(text, [text, text])
        for name, value in result.items():
            if name == "rouge4" and len(tokens) < 4:
                continue
            assert value == pytest.approx((1.0, 1.0, 1.0)), (name, mode)


@settings(max_examples=200, deadline=None)
@given(words, words, st.sampled_from([0, 1, 4, None]))
def test_rouge_su_adds_the_unigrams_of_all_but_the_last_token_to_rouge_s(candidate, reference, skip):
    s = skip_bigram_counts(reference, skip)
    su = skip_bigram_counts(reference, skip, unigrams=True)
    assert su.total() == s.total() + len(reference) - 1
    assert su - s == Counter(zip(reference[:-1], strict=True))
    # Hits: SU's are S's plus the clipped unigram matches, so S hits <= SU hits.
    name = "*" if skip is None else str(skip)
    scorer = RougeScorer([f"rougeS{name}", f"rougeSU{name}"], beta=1)
    result = scorer.score(" ".join(candidate), [" ".join(reference)])
    s_hits = result[f"rougeS{name}"].recall * s.total()
    su_hits = result[f"rougeSU{name}"].recall * su.total()
    assert s_hits <= su_hits + 1e-9


@settings(max_examples=200, deadline=None)
@given(words, st.lists(words, min_size=1, max_size=4))
def test_multi_reference_modes(candidate, references):
    candidate, references = " ".join(candidate), [" ".join(r) for r in references]
    types = ["rouge1", "rouge2", "rougeLsum", "rougeSU4", "rougeW"]
    singles = [RougeScorer(types).score(candidate, [r]) for r in references]
    best = RougeScorer(types, multi_ref="max").score(candidate, references)
    pooled = RougeScorer(types, multi_ref="pooled").score(candidate, references)
    jackknife = RougeScorer(types, multi_ref="jackknife").score(candidate, references)
    for name in types:
        fs = [single[name].fmeasure for single in singles]
        assert best[name] == singles[fs.index(max(fs))][name]
        if len(references) == 1:
            assert pooled[name] == pytest.approx(best[name]) and jackknife[name] == best[name]
        else:
            expected = [max((s[name] for k, s in enumerate(singles) if k != left), key=lambda v: v.fmeasure)
                        for left in range(len(singles))]  # fmt: skip
            averaged = tuple(sum(v) / len(v) for v in zip(*expected, strict=True))
            assert jackknife[name] == pytest.approx(averaged)
            # Pooled recall lies between the worst and best single-reference recalls.
            recalls = [single[name].recall for single in singles]
            assert min(recalls) - 1e-12 <= pooled[name].recall <= max(recalls) + 1e-12


def test_pooled_rouge1_is_summed_hits_over_summed_reference_counts():
    result = RougeScorer(["rouge1"], multi_ref="pooled").score("a b c d", ["a b x", "c y y y", "a a"])
    # Hits 2 + 1 + 1 = 4 over 3 + 4 + 2 = 9 reference unigrams; 4 / (3 references × 4 tokens).
    assert result["rouge1"] == pytest.approx((4 / 12, 4 / 9, 2 * (1 / 3) * (4 / 9) / (1 / 3 + 4 / 9)))


def test_f_beta_weighs_recall_beta_times_as_much_as_precision():
    precision, recall = 2 / 4, 2 / 3  # "a b c d" against "a b x"
    for beta in (0.5, 1.0, 2.0, 10.0):
        result = RougeScorer(["rouge1"], beta=beta).score("a b c d", ["a b x"])["rouge1"]
        expected = (1 + beta**2) * precision * recall / (beta**2 * precision + recall)
        assert result.fmeasure == pytest.approx(expected)
    assert RougeScorer(["rouge1"], beta=100).score("a b c d", ["a b x"])["rouge1"].fmeasure == pytest.approx(
        recall, abs=1e-3
    )
