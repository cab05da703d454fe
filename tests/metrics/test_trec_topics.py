"""TREC topic files: the classic <top> layout and the Web tracks' XML, read as ir_datasets reads
them (its TrecQueries and TrecXmlQueries, on generated files), and every malformed file refused with
the line at fault."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_datasets.formats.trec import TrecQueries, TrecXmlQueries
from ir_datasets.util.fileio import StringFile

from evaluation.metrics.trec.files import TrecFormatError
from evaluation.metrics.trec.topics import read_topics

CLASSIC = """<top>
<head> Tipster Topic Description
<num> Number: 051
<dom> Domain: International Economics
<title> Topic: Airbus subsidies

<desc> Description:
Document will discuss government assistance to
Airbus Industrie.

<narr> Narrative:
To be relevant, a document must cite some specific aspect
of the assistance.
<con> Concept(s):
1. Airbus Industrie
</top>

<top>
<num> Number: 401
<title> foreign minorities, Germany
<desc> Description:
What language and cultural differences impede integration?
<narr> Narrative:
Relevant documents discuss the impediments.
</top>
"""

WEB = """<?xml version="1.0"?>
<!-- a Web track topic file -->
<webtrack2009>
<topic number="1" type="faceted">
  <query>obama family tree</query>
  <description>Find information on the family
    history &amp; origins.</description>
  <subtopic number="1" type="nav">Find the photo essay.</subtopic>
</topic>
<topic number="2" type="faceted">
  <query>french lick resort and casino</query>
  <description>Find information on the resort.</description>
</topic>
</webtrack2009>
"""


def words(text: str) -> str:
    return " ".join(text.split())


def test_the_classic_layout_reads_every_field_and_skips_the_others():
    first, second = read_topics(CLASSIC)
    assert (first.id, first.title, first.line) == ("051", "Airbus subsidies", 1)
    assert first.description == "Document will discuss government assistance to Airbus Industrie."
    assert first.narrative == "To be relevant, a document must cite some specific aspect of the assistance."
    assert first.description_with_narrative() == f"{first.description}\n\nNarrative: {first.narrative}"
    assert (second.id, second.title, second.line) == ("401", "foreign minorities, Germany", 18)


def test_the_xml_layout_reads_as_ir_datasets_reads_it():
    ours = read_topics(WEB)
    # ir_datasets reads the Web track's <query> as its title (its own datasets map it so).
    fields = {"query": "title", "description": "description", "narrative": "narrative"}
    theirs = list(TrecXmlQueries(StringFile(WEB.split("\n", 2)[2]), qtype_map=fields).queries_iter())
    assert [(t.id, t.title, t.description) for t in ours] == [
        (q.query_id, words(q.title), words(q.description)) for q in theirs
    ]
    assert ours[0].description == "Find information on the family history & origins."
    assert ours[1].line == 10


line_text = st.text(alphabet="abcdefghij ,.;'()-XYZ", min_size=1, max_size=30).filter(lambda s: s.strip())
paragraph = st.lists(line_text, min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 999), line_text, paragraph, paragraph),
        min_size=1,
        max_size=6,
        unique_by=lambda t: t[0],
    ),
    st.booleans(),
)
def test_generated_classic_files_read_as_ir_datasets_reads_them(topics, labelled):
    blocks = []
    for number, title, description, narrative in topics:
        blocks.append(
            "\n".join(
                [
                    "<top>",
                    f"<num> {'Number: ' if labelled else ''}{number}",
                    f"<title> {title}",
                    f"<desc> {'Description:' if labelled else ''}",
                    *description,
                    f"<narr> {'Narrative:' if labelled else ''}",
                    *narrative,
                    "</top>",
                ]
            )
        )
    text = "\n\n".join(blocks) + "\n"
    ours = read_topics(text)
    theirs = list(TrecQueries(StringFile(text)).queries_iter())
    assert [(t.id, t.title, t.description, t.narrative) for t in ours] == [
        (q.query_id, words(q.title), words(q.description), words(q.narrative)) for q in theirs
    ]


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("<top>\n<num> 1\n<title> a\n", 1, "never closed"),
        ("<top>\n<title> a\n</top>\n", 1, "has no number"),
        ("<top>\n<num> 1 2\n<title> a\n</top>\n", 2, "one word"),
        ("<top>\n<num> 7\n</top>\n", 1, "topic 7 has no title"),
        (
            "<top><num> 1 <title> a </top>\n\n<top><num> 1 <title> b </top>\n",
            3,
            "given twice (first on line 1)",
        ),
        (
            "<top><num> 1 <title> a\n<top><num> 2 <title> b </top>",
            2,
            "before </top> closed the one on line 1",
        ),
        ("some words\n<top><num> 1 <title> a </top>\n", 1, "outside any topic"),
        ("<top><num> 1 <title> a </top>\n</top>\n", 2, "without an open <top>"),
        ("<num> 1\n", 1, "outside any topic"),
        ("<top><num> 1 <title> a <title> b </top>", 1, "given twice in one topic"),
        ("a file of JSON\n", 1, "outside any topic"),
        ("", 1, "no topic found"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_line(text, line, says):
    with pytest.raises(TrecFormatError, match=says.replace("(", r"\(").replace(")", r"\)")) as raised:
        read_topics(text)
    assert raised.value.line == line
    assert str(raised.value).startswith(f"topics, line {line}")
