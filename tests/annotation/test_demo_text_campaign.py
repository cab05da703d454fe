"""The demo's text campaign as pure functions: which abstracts, what each summariser writes, and
simulated ratings that are deterministic, on the scale, and shaped as the module says."""

from __future__ import annotations

from collections import defaultdict
from statistics import mean

from evaluation.demo import demo_documents
from evaluation.demo.text_campaign import (
    DEMO_TEXT_INPUTS,
    KEYWORDS,
    LEAD_WORDS,
    RATERS,
    SYSTEMS,
    choose_inputs,
    sentences,
    simulate_ratings,
    summarise,
)


def campaign(seed: int = 1400):
    inputs = choose_inputs(demo_documents())
    outputs = summarise(inputs, seed)
    return inputs, outputs, simulate_ratings(inputs, outputs, seed)


def test_the_inputs_are_abstracts_with_a_title_and_three_sentences():
    inputs = choose_inputs(demo_documents())
    assert len(inputs) == DEMO_TEXT_INPUTS and len({i.id for i in inputs}) == DEMO_TEXT_INPUTS
    assert all(i.title and len(sentences(i.text)) >= 3 for i in inputs)


def test_each_summariser_writes_what_its_name_says():
    inputs, outputs, _ = campaign()
    by_input = {i.id: i for i in inputs}
    assert len(outputs) == len(SYSTEMS) * len(inputs)
    for output in outputs:
        source = by_input[output.input]
        if output.system == "lead-words":
            assert output.text.split() == source.text.split()[:LEAD_WORDS]
        elif output.system == "lead-sentence":
            assert output.text == sentences(source.text)[0]
        elif output.system == "random-sentence":
            assert output.text in sentences(source.text)
        else:
            assert 0 < len(output.text.split()) <= KEYWORDS
            assert all(word in source.text.lower() for word in output.text.split())


def test_the_ratings_are_deterministic_on_the_scale_and_by_every_rater():
    _, outputs, ratings = campaign()
    assert ratings == campaign()[2]
    assert ratings != campaign(seed=1)[2]
    assert len(ratings) == len(outputs) * len(RATERS)
    assert all(1 <= score <= 5 for r in ratings for score in r.scores.values())
    by_system: dict[str, list[int]] = defaultdict(list)
    for rating in ratings:
        by_system[rating.system].append(rating.scores["fluency"])
    # Whole sentences read better than a cut one, which reads better than a list of keywords.
    means = {system: mean(values) for system, values in by_system.items()}
    assert means["lead-sentence"] > means["lead-words"] > means["keywords"]
