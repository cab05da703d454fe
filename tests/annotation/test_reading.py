"""Imported texts on the page (annotation.judging.display.reading): hard-wrapped lines reflow into
paragraphs, the
breaks a writer meant are kept, and a long text is sent one part at a time, escaped as ever."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from annotation.judging.assignment import claim_next_task
from annotation.judging.display.reading import PART_CHARS, part_bounds, reflow, text_part
from tests.annotation.factories import make_project

WRAPPED = """Experiments on the noise of cold subsonic jets show that the sound
power rises with the eighth power of the jet velocity, as Lighthill
predicted, over the whole range of speeds measured.

Mixing nozzles with several lobes lower the noise by up to 10 dB at
the cost of a small loss of thrust."""


def test_hard_wrapped_lines_join_into_paragraphs_split_at_blank_lines():
    assert reflow(WRAPPED) == [
        [
            "Experiments on the noise of cold subsonic jets show that the sound power rises with the "
            "eighth power of the jet velocity, as Lighthill predicted, over the whole range of speeds "
            "measured."
        ],
        [
            "Mixing nozzles with several lobes lower the noise by up to 10 dB at the cost of a small "
            "loss of thrust."
        ],
    ]


def test_windows_line_ends_and_blank_lines_of_spaces_are_paragraph_breaks_too():
    paragraphs = text_part("one line of text\r\n \r\nanother line of text", 1, set()).paragraphs
    assert [[[words for words, _ in line] for line in paragraph] for paragraph in paragraphs] == [
        [["one line of text"]],
        [["another line of text"]],
    ]


def test_a_line_that_ends_early_keeps_its_break():
    text = (
        "THE NOISE OF JETS\nExperiments on the noise of cold subsonic jets show that the sound\npower rises."
    )
    assert reflow(text) == [
        [
            "THE NOISE OF JETS",
            "Experiments on the noise of cold subsonic jets show that the sound power rises.",
        ]
    ]


def test_speakers_turns_list_items_and_indented_lines_start_lines_of_their_own():
    dialogue = (
        "#Person1#: Shall we have lunch at noon by the harbour, or is that too early for you?\n"
        "#Person2#: Noon is fine, but the harbour is closed after the storm on Monday, I heard.\n"
        "Speaker 1: Then the square.\n"
        "- first point of a list that is long enough to look like it was wrapped at 80\n"
        "2. second point of a list that is long enough to look like it was wrapped at 80\n"
        "    an indented line of code that is long enough to look like it was wrapped"
    )
    assert len(reflow(dialogue)[0]) == 6


def test_short_lines_such_as_verse_or_an_address_keep_every_break():
    assert reflow("Roses are red,\nviolets are blue,\nsugar is sweet") == [
        ["Roses are red,", "violets are blue,", "sugar is sweet"]
    ]


def test_parts_cover_the_text_exactly_and_end_at_the_latest_paragraph_break():
    paragraph = "word " * 50 + "\n\n"  # 252 characters
    text = paragraph * 100
    bounds = part_bounds(text, size=1_000)
    assert "".join(text[start:end] for start, end in bounds) == text
    assert all(end - start <= 1_000 for start, end in bounds)
    assert all(text[:end].endswith("\n\n") for _, end in bounds[:-1])
    assert len(bounds) == 34  # three paragraphs (756 characters) a part


def test_a_text_without_spaces_is_cut_anywhere_and_a_short_one_is_one_part():
    assert part_bounds("x" * 2_500, size=1_000) == [(0, 1_000), (1_000, 2_000), (2_000, 2_500)]
    assert part_bounds("short", size=1_000) == [(0, 5)]


def test_a_part_beyond_the_last_is_the_last_and_only_its_part_is_marked():
    text = ("jet noise. " * 200 + "\n\n") * 3
    part = text_part(text, 99, {"noise"}, size=2_500)
    assert (part.number, part.count) == (3, 3)
    assert part.start > 0 and part.end == part.total == len(text)
    marked = [words for paragraph in part.paragraphs for line in paragraph for words, hit in line if hit]
    assert marked == ["noise"] * 200


@pytest.mark.django_db
def test_a_ten_megabyte_document_is_sent_one_part_at_a_time_with_a_way_to_the_next(
    client, researcher, annotators
):
    project = make_project(researcher, annotators, k=1)
    assignment = claim_next_task(project, annotators[0])
    document = assignment.task.document
    sentence = "Mixing nozzles lower the noise of a jet <b>by 10 dB</b>. "
    document.text = (sentence * 60 + "\n\n") * 3_000  # 10.3 MB, in paragraphs of 3,422 characters
    document.save()
    count = len(part_bounds(document.text))
    assert count == 600  # five paragraphs a part
    client.force_login(annotators[0])
    url = reverse("judge", args=[project.pk])
    started = time.perf_counter()
    page = client.get(url).content.decode()
    seconds = time.perf_counter() - started
    assert len(page) < 2 * PART_CHARS + 20_000  # one part (escaped) and the page around it
    assert seconds < 2, seconds
    assert f"Part 1 of {count}" in page
    assert f'href="?part=2" rel="next">Show more: part 2 of {count}' in page
    assert "&lt;b&gt;by 10 dB&lt;/b&gt;" in page and "<b>by" not in page
    second = client.get(url, {"part": "2"}).content.decode()
    assert f"Part 2 of {count}" in second and 'href="?part=1" rel="prev">Previous part' in second
    assert f"Part {count} of {count}" in client.get(url, {"part": "9999"}).content.decode()
    assert f"Part 1 of {count}" in client.get(url, {"part": "two"}).content.decode()
