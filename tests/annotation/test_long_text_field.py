"""Long texts (documents, run files, qrels) are refused for surrogate characters as DRF refuses them,
with its message naming the first one, by the UTF-8 encoder instead of DRF's Python loop over every
character (``annotation.serializers.SurrogatesRefused``)."""

from __future__ import annotations

import random
import time

import pytest
from rest_framework import serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from annotation.serializers import DocumentInSerializer, LongTextField, SurrogatesRefused
from evaluation.collection.serializers import ImportSerializer

PIECES = [
    "plain words ",
    "café ",
    "日本語 ",
    "emoji 🙂 ",
    "\ud800",
    "\udfff",
    "\udbff\udc00",
    "\x00",
    "\ue000",
    "\U0010ffff",
]


def outcome(validator, text: str) -> str | None:
    try:
        validator(text)
    except serializers.ValidationError as error:
        return str(error.detail[0])
    return None


def test_the_same_texts_are_refused_with_the_same_first_surrogate_as_drfs():
    rng = random.Random(28)
    refused = 0
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))
        expected = outcome(ProhibitSurrogateCharactersValidator(), text)
        assert outcome(SurrogatesRefused(), text) == expected, repr(text)
        refused += expected is not None
    assert 500 < refused < 2900


@pytest.mark.parametrize(
    "field", [DocumentInSerializer().fields["text"], ImportSerializer().fields["runs"].child]
)
def test_the_long_text_fields_carry_the_fast_check_and_no_other(field):
    assert isinstance(field, LongTextField)
    kinds = [type(check) for check in field.validators]
    assert SurrogatesRefused in kinds and ProhibitSurrogateCharactersValidator not in kinds


def test_a_document_with_a_surrogate_is_refused_naming_it():
    serializer = DocumentInSerializer(data={"id": "d1", "text": "fine until \udc80 here"})
    assert not serializer.is_valid()
    assert serializer.errors["text"] == ["Surrogate characters are not allowed: U+DC80."]


def test_a_long_run_file_is_checked_at_the_encoders_speed():
    text = "401 Q0 dé 1 2.5 run\n" * 200_000  # 4 MB, not ASCII
    started = time.process_time()
    SurrogatesRefused()(text)
    ours = time.process_time() - started
    started = time.process_time()
    ProhibitSurrogateCharactersValidator()(text)
    drfs = time.process_time() - started
    assert ours * 10 < drfs, (ours, drfs)
