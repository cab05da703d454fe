"""Imported texts made readable on a page (pure; no Django): cut into parts small enough to show at
once, and into paragraphs that reflow to the screen.

Texts arrive as their sources wrote them: an abstract hard-wrapped at 70-odd columns, a dialogue
with one turn a line, a 10 MB document on one line. Shown as they were (``white-space: pre-wrap``),
wrapped lines stayed ragged at every width, and a 10.8 MB document took Chromium 10–13 s to lay out
with the answer buttons megabytes below it. So:

1. A text is cut into parts of at most ``PART_CHARS`` characters — at a paragraph break in the
   part's last quarter if there is one, else at a line break, else at a space, else anywhere — and
   a page shows one part, with links to the others. Only that part is highlighted and sent.
2. A part is cut into paragraphs at blank lines. Inside a paragraph a line break is kept only where
   the source meant one: after a line that ends early (shorter than ``SHORT_LINE`` of the
   paragraph's typical line), before a line that starts a list item, a speaker's turn or an
   indented line, and everywhere in a paragraph of short lines (verse, an address). Every other
   break was the source's wrapping and becomes a space, so the paragraph reflows.

Nothing here produces markup: the template escapes every segment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from annotation.judging.display.highlight import highlight_segments

# 20,000 characters (about 3,000 words, a dozen screens) lay out in milliseconds; a whole text of
# any imported length did not.
PART_CHARS = 20_000
# A line shorter than this share of its paragraph's typical line ended where its writer ended it.
# Word-wrapped lines fall short of the wrap column by at most one word (72 - 20 of 72 is 0.72).
SHORT_LINE = 2 / 3
# Below this many characters a paragraph's lines were not wrapped by width: keep every break.
WRAPPED_WIDTH = 40
PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# A line that starts a list item ("- ", "2. "), a speaker's turn ("#Person1#: ", "A: ") or an
# indented block begins a line of its own.
STARTS_A_LINE = re.compile(r"(?:\s|[-*•–]\s|\d{1,3}[.)]\s|#?[A-Z0-9#][\w'’-]*(?: [\w'’-]+){0,2}#?:\s)")

Segments = list[tuple[str, bool]]


@dataclass(frozen=True)
class Part:
    """One part of a text: its paragraphs (each a list of lines, each a list of highlighted
    segments), which part it is (1-based) of how many, and where it starts and ends."""

    paragraphs: list[list[Segments]]
    number: int
    count: int
    start: int
    end: int
    total: int


def part_bounds(text: str, size: int = PART_CHARS) -> list[tuple[int, int]]:
    """Where each part of ``text`` starts and ends; every part but the last has at most ``size``
    characters and ends at the latest break it can find in its last quarter."""
    bounds: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > size:
        limit = start + size
        floor = limit - size // 4
        end = -1
        for separator in ("\n\n", "\n", " "):
            found = text.rfind(separator, floor, limit)
            if found > start:
                end = found + len(separator)
                break
        if end <= start:
            end = limit
        bounds.append((start, end))
        start = end
    bounds.append((start, len(text)))
    return bounds


def reflow(text: str) -> list[list[str]]:
    """``text`` as paragraphs, each a list of the lines to show (the source's wrapping joined)."""
    paragraphs = []
    for block in PARAGRAPH_BREAK.split(text.strip()):
        lines = [line.rstrip() for line in block.split("\n")]
        lines = [line for line in lines if line.strip()]
        if not lines:
            continue
        # The width the source wrapped at: its typical line (a paragraph's last line is short by
        # nature, and one overlong line must not make every other look short).
        wrapped = sorted(len(line) for line in lines[:-1] or lines)
        width = wrapped[len(wrapped) // 2]
        shown = [lines[0].strip()]
        for before, line in pairwise(lines):
            kept = (
                width < WRAPPED_WIDTH
                or len(before) < SHORT_LINE * width
                or STARTS_A_LINE.match(line) is not None
            )
            if kept:
                shown.append(line.strip())
            else:
                shown[-1] = f"{shown[-1]} {line.strip()}"
        paragraphs.append(shown)
    return paragraphs


def text_part(text: str, number: int, terms: set[str], size: int = PART_CHARS) -> Part:
    """Part ``number`` of ``text`` (clamped to the parts there are), reflowed, query terms marked."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    bounds = part_bounds(text, size)
    number = min(max(number, 1), len(bounds))
    start, end = bounds[number - 1]
    paragraphs = [
        [highlight_segments(line, terms) for line in paragraph] for paragraph in reflow(text[start:end])
    ]
    return Part(paragraphs, number, len(bounds), start, end, len(text))
