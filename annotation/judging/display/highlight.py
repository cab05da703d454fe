"""Query-term highlighting for the judging page (pure; no Django).

Returns plain text segments flagged as matches; the template escapes every segment and wraps
matches in ``<mark>``, so imported text never reaches the page as HTML.
"""

from __future__ import annotations

import re

# Words too common to be worth highlighting (short function words of English topics).
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "there",
        "these",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "any",
        "all",
        "about",
    ]
)
WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(*texts: str, min_length: int = 3) -> set[str]:
    """The lower-cased words of a topic worth highlighting."""
    return {
        word.lower()
        for text in texts
        for word in WORD.findall(text or "")
        if len(word) >= min_length and word.lower() not in STOP_WORDS
    }


def highlight_segments(text: str, terms: set[str]) -> list[tuple[str, bool]]:
    """Split ``text`` into ``(segment, is_term)`` pieces; a word matches a term or starts with it
    (so "flows" and "flowing" light up for "flow"), ignoring case."""
    if not terms:
        return [(text, False)]
    pattern = re.compile(
        r"\b(?:" + "|".join(re.escape(term) for term in sorted(terms, key=len, reverse=True)) + r")\w*",
        re.IGNORECASE | re.UNICODE,
    )
    segments: list[tuple[str, bool]] = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() > position:
            segments.append((text[position : match.start()], False))
        segments.append((match.group(0), True))
        position = match.end()
    if position < len(text):
        segments.append((text[position:], False))
    return segments
