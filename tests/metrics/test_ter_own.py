"""Our TER (``metrics.text.ter``) equals sacrebleu 2.6.0's ``TER()`` on every input: sacrebleu's own
test cases, 5,000 generated hypothesis/reference sets (many shifted phrases, mixed case,
punctuation, repeated words, empty texts, 1–4 references, up to ~130 words so the beam binds and the
1,000-candidate cap is reached), the demo's text campaign, and the TER ``score_outputs`` stores.

sacrebleu takes about ten minutes on the 5,000 generated sets, so their scores are kept in
``ter_sacrebleu_scores.json`` beside this file, written by sacrebleu 2.6.0 itself::

    .venv/bin/python -m tests.metrics.test_ter_own --write

The file also holds a hash of the generated inputs (a changed generator must be written again),
and a sample of the sets is scored by the installed sacrebleu at every run as well.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest
import sacrebleu

from evaluation.metrics.text import ter
from evaluation.metrics.text.ter import corpus_ter, segment_statistics, sentence_ter

EXPECTED = Path(__file__).with_name("ter_sacrebleu_scores.json")
SEED = 2806
CASES = 5000

# sacrebleu's test/test_ter.py (github.com/mjpost/sacrebleu), as data: (hypotheses, references,
# expected TER as a fraction); sacrebleu checks corpus_score within 1e-3.
WMT_HYPOTHESES = [
    'wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , '
    "damit das Bild ungefähr dieselbe Größe aufweist wie die andere Größe .",
    "wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des "
    'Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "',
    'klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie '
    'Werte für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " ein .',
    "Sie können beispielsweise ein Dokument erstellen , das ein Auto über die Bühne enthält .",
    'wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "',
]
WMT_REFERENCES = [
    'wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , '
    "damit die Darstellung des Bildes in einer anderen Größe beibehalten wird .",
    "wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des "
    'Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "',
    'klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie '
    'für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " niedrigere Werte ein .',
    "Sie können beispielsweise ein Dokument erstellen , das ein Auto enthalt , "
    "das sich über die Bühne bewegt .",
    'wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "',
]
SACREBLEU_CASES = [
    (["aaaa bbbb cccc dddd"], ["aaaa bbbb cccc dddd"], 0),  # perfect match
    (["dddd eeee ffff"], ["aaaa bbbb cccc"], 1),  # no overlap
    ([""], ["a"], 1),  # empty hypothesis
    (["a"], [""], 1),  # empty reference
    ([""], [""], 0),  # both empty: 0 by definition
    (["d e f g h a b c"], ["a b c d e f g h"], 1 / 8),  # a single shift
    (WMT_HYPOTHESES, WMT_REFERENCES, 0.136),  # WMT 2019 dev data
]


@pytest.mark.parametrize(("hypotheses", "references", "expected"), SACREBLEU_CASES)
def test_sacrebleus_own_cases(hypotheses, references, expected):
    ours = corpus_ter(hypotheses, [[reference] for reference in references])
    assert ours == pytest.approx(100 * expected, abs=1e-3)
    assert ours == pytest.approx(sacrebleu.TER().corpus_score(hypotheses, [references]).score, abs=1e-9)
    for hypothesis, reference in zip(hypotheses, references, strict=True):
        theirs = sacrebleu.TER().sentence_score(hypothesis, [reference]).score
        assert sentence_ter(hypothesis, [reference]) == pytest.approx(theirs, abs=1e-9)


# ---- generated sets ----------------------------------------------------------------------------

VOCABULARY = [
    "the",
    "a",
    "of",
    "to",
    "in",
    "wing",
    "flow",
    "boundary",
    "layer",
    "shock",
    "wave",
    "heat",
    "transfer",
    "pressure",
    "laminar",
    "turbulent",
    "model",
    "models",
    "surface",
    "body",
    "Mach",
    "number",
    "The",
    "Flow",
    "A",
]
ODD_WORDS = ["Straße", "İstanbul", "ÉCOLE", "naïve", "x-ray", "3.5", "1,000", "(see", "fig.)", "don't", "'s"]
PUNCTUATION = [",", ".", ";", ":", "!", "?", '"', "(", ")", "-"]


def _words(rng: random.Random, count: int, vocabulary: list[str]) -> list[str]:
    out = []
    for _ in range(count):
        word = rng.choice(vocabulary) if rng.random() > 0.05 else rng.choice(ODD_WORDS)
        draw = rng.random()
        if draw < 0.1:
            word = word.upper()
        elif draw < 0.2:
            word = word.capitalize()
        if rng.random() < 0.1:
            word += rng.choice(PUNCTUATION)  # glued: one token with its word
        elif rng.random() < 0.05:
            out.append(rng.choice(PUNCTUATION))
        out.append(word)
    return out


def _shifted(rng: random.Random, reference: list[str]) -> list[str]:
    """The reference's words with phrases of 1–8 words moved, then some words dropped, replaced,
    recased or doubled."""
    words = list(reference)
    for _ in range(rng.randint(1, 6)):
        if len(words) < 2:
            break
        start = rng.randrange(len(words))
        end = min(len(words), start + rng.randint(1, 8))
        phrase, rest = words[start:end], words[:start] + words[end:]
        target = rng.randint(0, len(rest))
        words = rest[:target] + phrase + rest[target:]
    out = []
    for word in words:
        draw = rng.random()
        if draw < 0.08:
            continue
        if draw < 0.16:
            out.append(rng.choice(VOCABULARY))
            continue
        out.append(word.swapcase() if draw < 0.22 else word)
        if rng.random() < 0.05:
            out.append(word)
    return out


def off_diagonal_case(rng: random.Random) -> tuple[str, list[str]]:
    """A long text against a part of it (either way round), so that the words align far from the
    beam's pseudo-diagonal and the beam changes the distance."""
    vocabulary = VOCABULARY[: rng.choice([6, len(VOCABULARY)])]
    long = _words(rng, rng.randint(60, 120), vocabulary)
    start = rng.randrange(len(long) - 10)
    part = _shifted(rng, long[start : start + rng.randint(10, 40)])
    texts = [" ".join(long), " ".join(part)]
    if rng.random() < 0.5:
        texts.reverse()
    return texts[0], [texts[1]]


def generated_case(rng: random.Random) -> tuple[str, list[str]]:
    if rng.random() < 0.04:
        return off_diagonal_case(rng)
    size = rng.random()
    longest = 8 if size < 0.55 else 30 if size < 0.92 else 120
    vocabulary = VOCABULARY[: rng.choice([3, 6, len(VOCABULARY)])]
    count = rng.randint(1, 4 if longest <= 30 else 2)
    references = [
        " ".join(_words(rng, rng.randint(0 if rng.random() < 0.05 else 1, longest), vocabulary))
        for _ in range(count)
    ]
    base = rng.choice(references).split()
    if rng.random() < 0.05:
        hypothesis = ""
    elif rng.random() < 0.75 and base:
        hypothesis = " ".join(_shifted(rng, base))
    else:
        hypothesis = " ".join(_words(rng, rng.randint(1, longest), vocabulary))
    if rng.random() < 0.05:
        hypothesis += "  \n"
    if rng.random() < 0.05:
        references[rng.randrange(count)] = rng.choice(["", "   "])
    return hypothesis, references


def generated_cases() -> list[tuple[str, list[str]]]:
    rng = random.Random(SEED)
    return [generated_case(rng) for _ in range(CASES)]


def _fingerprint(cases) -> str:
    return hashlib.sha256(json.dumps(cases, ensure_ascii=False).encode()).hexdigest()


@pytest.fixture(scope="module")
def cases():
    return generated_cases()


def test_generated_sets_equal_sacrebleus_stored_scores(cases):
    stored = json.loads(EXPECTED.read_text())
    assert stored["sacrebleu"] == "2.6.0" == sacrebleu.__version__
    assert stored["inputs_sha256"] == _fingerprint(cases), "the generator changed: write the scores again"
    for (hypothesis, references), expected in zip(cases, stored["scores"], strict=True):
        assert sentence_ter(hypothesis, references) == pytest.approx(expected, abs=1e-9), (
            hypothesis,
            references,
        )


def test_generated_sets_equal_the_installed_sacrebleu_on_a_sample(cases):
    """A sixth of the sets with at most 30 words a text (sacrebleu's time grows fast with length)."""
    metric = sacrebleu.TER()
    sample = [c for c in cases[::6] if max(len(t.split()) for t in [c[0], *c[1]]) <= 30]
    assert len(sample) > 700
    for hypothesis, references in sample:
        theirs = metric.sentence_score(hypothesis, references).score
        assert sentence_ter(hypothesis, references) == pytest.approx(theirs, abs=1e-9), (
            hypothesis,
            references,
        )


def test_the_generated_sets_reach_the_hard_parts(cases):
    """The sets exercise what could differ from a plain implementation: rounds of several shifts, the
    beam changing the distance, the candidate cap, and the beam's corrections at both edges."""
    seen = {"shifts": 0, "capped": 0, "beam binds": 0, "corner": 0, "right": 0}
    for hypothesis, references in cases:
        hyp = ter._hypothesis_words(hypothesis)
        for text in references:
            ref = ter._reference_words(text)
            if not ref:
                continue
            pair = ter._Pair(hyp, ref)
            rows = ter._beam(len(hyp), len(ref))
            seen["corner"] += any(row[2] for row in rows)
            seen["right"] += any(row[1] for row in rows)
            edits = pair.edits(hyp)
            distance = ter._Pair(hyp, ref).distance(hyp)
            seen["shifts"] += edits < distance
            seen["beam binds"] += distance != _levenshtein(hyp, ref)
            seen["capped"] += pair.capped
    assert seen["shifts"] > 3000 and seen["beam binds"] > 40 and seen["capped"] > 100, seen
    assert seen["corner"] > 100 and seen["right"] > 1000, seen


def _levenshtein(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, word in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (word != other))
    return row[-1]


# ---- the API's edges ---------------------------------------------------------------------------


def test_references_of_none_are_left_out_and_none_at_all_is_an_error():
    references = ["the wing flow", None, "a wing"]
    theirs = sacrebleu.TER().sentence_score("flow the wing", references).score
    assert sentence_ter("flow the wing", references) == pytest.approx(theirs, abs=1e-9)
    assert segment_statistics("flow the wing", references) == (1, 2.5)
    with pytest.raises(ValueError, match="no reference"):
        sentence_ter("a", [])
    with pytest.raises(TypeError):
        sentence_ter("a", "a")


def test_candidates_scored_in_groups_score_the_same(cases, monkeypatch):
    """On long texts a round's candidates are scored in groups (``TABLE_BYTES``); here in groups
    of a few lanes, mostly one."""
    chosen = [c for c in cases if len(c[0].split()) > 25][:60]
    whole = [sentence_ter(hypothesis, references) for hypothesis, references in chosen]
    monkeypatch.setattr(ter, "TABLE_BYTES", 400)
    assert [sentence_ter(hypothesis, references) for hypothesis, references in chosen] == whole


def test_corpus_ter_equals_sacrebleu_with_a_varying_number_of_references(cases):
    chosen = [c for c in cases[:400] if max(len(t.split()) for t in [c[0], *c[1]]) <= 30][:120]
    hypotheses = [h for h, _ in chosen]
    references = [r for _, r in chosen]
    most = max(len(r) for r in references)
    by_position = [[r[k] if k < len(r) else None for r in references] for k in range(most)]
    theirs = sacrebleu.TER().corpus_score(hypotheses, by_position).score
    assert corpus_ter(hypotheses, references) == pytest.approx(theirs, abs=1e-9)
    with pytest.raises(ValueError):
        corpus_ter(["a"], [])


# ---- the demo's text campaign and the stored scores --------------------------------------------


def test_the_demo_campaign_scores_equal_sacrebleu():
    """Every summary of the shipped demo against its title, as the demo stores them; and, for
    more words and shifts, against the title and the other three summaries of the same abstract."""
    from evaluation.demo import demo_documents
    from evaluation.demo.text_campaign import choose_inputs, summarise

    inputs = choose_inputs(demo_documents())
    outputs = summarise(inputs)
    titles = {i.id: i.title for i in inputs}
    metric = sacrebleu.TER()
    for output in outputs:
        references = [titles[output.input]]
        theirs = metric.sentence_score(output.text, references).score
        assert sentence_ter(output.text, references) == pytest.approx(theirs, abs=1e-9)
    for output in outputs[::3]:
        others = [o.text for o in outputs if o.input == output.input and o.system != output.system]
        references = [titles[output.input], *others]
        theirs = metric.sentence_score(output.text, references).score
        assert sentence_ter(output.text, references) == pytest.approx(theirs, abs=1e-9)


def test_score_outputs_stores_sacrebleus_ter_and_signature(cases):
    from evaluation.metrics.text.scores import Output, score_outputs, signatures

    chosen = [c for c in cases[:200] if max(len(t.split()) for t in [c[0], *c[1]]) <= 30][:12]
    references = {f"i{k}": refs for k, (_, refs) in enumerate(chosen)}
    outputs = [Output("s", f"i{k}", hypothesis) for k, (hypothesis, _) in enumerate(chosen)]
    result = score_outputs(outputs, references, metrics=["ter"])
    metric = sacrebleu.TER()
    assert len(result.per_output) + len(result.unscored) == len(outputs) and result.per_output
    for output in outputs:
        texts = [t for t in references[output.input] if t.strip()]  # score_outputs leaves out blank ones
        if not texts:
            continue
        theirs = metric.sentence_score(output.text, texts).score
        assert result.per_output[("s", output.input)]["ter"] == pytest.approx(theirs, abs=1e-9)
    metric.sentence_score("a", ["a", "b"])
    assert signatures(references_per_input={2}, metrics=["ter"])["ter"] == str(metric.get_signature())
    assert result.signatures["ter"].startswith("nrefs:")


def write_expected() -> None:
    cases = generated_cases()
    metric = sacrebleu.TER()
    scores = [metric.sentence_score(hypothesis, references).score for hypothesis, references in cases]
    body = {"sacrebleu": sacrebleu.__version__, "inputs_sha256": _fingerprint(cases), "scores": scores}
    EXPECTED.write_text(json.dumps(body, indent=0) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit(f"usage: python -m tests.metrics.test_ter_own --write  (writes {EXPECTED.name})")
    write_expected()
