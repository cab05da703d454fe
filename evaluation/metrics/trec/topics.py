"""TREC topic files (pure; no Django).

Two layouts, as the TREC tracks distributed them:

- the classic SGML-like one of the ad hoc tracks (TREC-1 to Robust 2004), fields running until the
  next tag and ``</top>`` the only closing tag::

      <top>
      <num> Number: 301
      <title> International Organized Crime
      <desc> Description:
      Identify organizations that participate in international criminal activity ...
      <narr> Narrative:
      A relevant document must as a minimum identify the organization ...
      </top>

  (``Number:``, ``Topic:``, ``Description:`` and ``Narrative:`` are optional; other fields of the
  early tracks, ``<dom>``, ``<smry>``, ``<con>``, ``<fac>``, ``<def>``, are skipped; closing tags
  such as ``</title>`` are accepted);
- the XML one of the Web and later tracks: ``<topic number="1"> <query>…</query>
  <description>…</description> <narrative>…</narrative> </topic>`` (``<subtopic>`` skipped).

Every error is a ``TrecFormatError`` naming the line. Whitespace inside a field is collapsed to
single spaces (fields wrap over lines at random in the files).
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from dataclasses import dataclass

from evaluation.metrics.trec.files import TrecFormatError

# A tag: <name …> or </name>; the attributes are read only for <topic number="…">.
_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)([^<>]*)>")
_NUMBER_ATTRIBUTE = re.compile(r"""\bnumber\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
_CLASSIC_FIELDS = {"num": "id", "title": "title", "desc": "description", "narr": "narrative"}
_XML_FIELDS = {"query": "title", "description": "description", "narrative": "narrative"}
_LABELS = {
    "id": re.compile(r"^number\s*:\s*", re.IGNORECASE),
    "title": re.compile(r"^topic\s*:\s*", re.IGNORECASE),
    "description": re.compile(r"^description\s*:\s*", re.IGNORECASE),
    "narrative": re.compile(r"^narrative\s*:\s*", re.IGNORECASE),
}


@dataclass(frozen=True)
class TrecTopic:
    id: str
    title: str
    description: str
    narrative: str
    line: int  # where the topic begins, for messages

    def description_with_narrative(self) -> str:
        """The description, and the narrative (which says what is relevant) after a blank line:
        the two together are what an assessor reads below the title."""
        if not self.narrative:
            return self.description
        narrative = f"Narrative: {self.narrative}"
        return f"{self.description}\n\n{narrative}" if self.description else narrative


def read_topics(text: str, *, name: str = "topics") -> list[TrecTopic]:
    """Every topic of a TREC topic file, in file order; TrecFormatError names the line at fault
    (a topic never closed, a field outside a topic, a topic without a number or title, a number
    given twice, text outside any topic)."""
    reader = _Reader(text, name)
    topics = reader.topics()
    if not topics:
        raise TrecFormatError(
            name,
            1,
            "top",
            'no topic found: a TREC topic file has <top> … </top> (or <topic number="…">) blocks',
        )
    first_line: dict[str, int] = {}
    for topic in topics:
        if topic.id in first_line:
            raise TrecFormatError(
                name,
                topic.line,
                "num",
                f"topic {topic.id} is given twice (first on line {first_line[topic.id]})",
            )
        first_line[topic.id] = topic.line
    return topics


# Markup that is neither a tag nor text: an XML declaration, a comment, a doctype.
_NOT_TEXT = re.compile(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", re.DOTALL | re.IGNORECASE)


class _Reader:
    """One pass over the tags; the text between two tags belongs to the field the first opened."""

    def __init__(self, text: str, name: str) -> None:
        # Declarations and comments become blanks of the same length: positions and lines stay.
        self.text = _NOT_TEXT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        self.name = name
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", text)]
        self.found: list[TrecTopic] = []
        self.open_at: int | None = None  # where the open topic's tag began
        self.layout = ""  # "top" (classic) or "topic" (XML)
        self.fields: dict[str, tuple[str, int]] = {}  # field → (its text so far, where it began)
        self.current: str | None = None  # the field the text is going to

    def line_of(self, position: int) -> int:
        return bisect_right(self.line_starts, position)

    def error(self, position: int, field: str, message: str) -> TrecFormatError:
        return TrecFormatError(self.name, self.line_of(position), field, message)

    def topics(self) -> list[TrecTopic]:
        position = 0
        for match in _TAG.finditer(self.text):
            self.take_text(position, match.start())
            position = match.end()
            closing, tag = match.group(1) == "/", match.group(2).lower()
            if tag in {"top", "topic"}:
                if closing:
                    self.close(match, tag)
                else:
                    self.open(match, tag)
            elif self.open_at is not None:
                self.field(match, tag, closing)
            elif tag in _CLASSIC_FIELDS or tag in _XML_FIELDS:
                raise self.error(match.start(), tag, f"<{'/' if closing else ''}{tag}> outside any topic")
            # Any other tag outside a topic wraps the topics (<webtrack2009>, <topics>): skipped.
        if self.open_at is not None:
            raise self.error(
                self.open_at, self.layout, f"<{self.layout}> is never closed by </{self.layout}>"
            )
        self.take_text(position, len(self.text))
        return self.found

    def take_text(self, start: int, end: int) -> None:
        between = self.text[start:end]
        if self.current is not None:
            text_so_far, began = self.fields[self.current]
            self.fields[self.current] = (text_so_far + between, began)
        elif between.strip():
            where = start + len(between) - len(between.lstrip())
            context = "outside any topic" if self.open_at is None else "outside the topic's fields"
            raise self.error(where, "text", f"text {between.strip()[:30]!r} {context}")

    def open(self, match: re.Match, tag: str) -> None:
        if self.open_at is not None:
            raise self.error(
                match.start(),
                tag,
                f"a new <{tag}> before </{self.layout}> closed the one on line {self.line_of(self.open_at)}",
            )
        self.open_at, self.layout, self.fields, self.current = match.start(), tag, {}, None
        number = _NUMBER_ATTRIBUTE.search(match.group(3)) if tag == "topic" else None
        if number is not None:
            self.fields["id"] = (next(g for g in number.groups() if g is not None), match.start())

    def close(self, match: re.Match, tag: str) -> None:
        if self.open_at is None or tag != self.layout:
            raise self.error(match.start(), tag, f"</{tag}> without an open <{tag}>")
        self.found.append(self.topic(self.fields, self.open_at, self.layout))
        self.open_at, self.current = None, None

    def field(self, match: re.Match, tag: str, closing: bool) -> None:
        names = _CLASSIC_FIELDS if self.layout == "top" else _XML_FIELDS
        if closing:
            self.current = None  # </title>, </desc> …: the field ends here
            return
        field = names.get(tag, "")  # "": a field we do not keep (<dom>, <subtopic> …), skipped
        if field and field in self.fields:
            raise self.error(match.start(), tag, f"<{tag}> given twice in one topic")
        self.current = field
        self.fields[field] = ("", match.end())

    def topic(self, fields: dict[str, tuple[str, int]], start: int, layout: str) -> TrecTopic:
        values = {}
        for field in ("id", "title", "description", "narrative"):
            raw, _ = fields.get(field, ("", start))
            text = " ".join((html.unescape(raw) if layout == "topic" else raw).split())
            values[field] = _LABELS[field].sub("", text, count=1)
        number_tag = "num" if layout == "top" else "topic number"
        if not values["id"]:
            raise self.error(start, "num", f"the topic has no number (<{number_tag}>)")
        if len(values["id"].split()) > 1:
            raise self.error(fields["id"][1], "num", f"a topic number is one word, got {values['id']!r}")
        if not values["title"]:
            title_tag = "title" if layout == "top" else "query"
            raise self.error(start, title_tag, f"topic {values['id']} has no title (<{title_tag}>)")
        return TrecTopic(
            values["id"], values["title"], values["description"], values["narrative"], self.line_of(start)
        )
