"""Rules for untrusted input shared by every way in (pages, API, imports) and every way out (CSV).

- **Identifiers** (topic, document, run and user-facing ids) are Unicode-normalised to NFC, so two
  spellings of "café" are one id, and may not contain whitespace or invisible characters (control,
  format such as zero-width spaces, separators): an id with a space or a newline would split a
  TREC qrels or run line and could inject another.
- **JSON** nested deeper than ``MAX_JSON_DEPTH`` is refused with a clear message instead of running
  the parser out of stack.
- **CSV cells** that a spreadsheet would run as a formula are escaped (OWASP's CSV-injection advice).
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

# Far deeper than any import body (topics → [ {…} ] is three levels), far below Python's stack.
MAX_JSON_DEPTH = 64


class InputError(ValueError):
    """Input refused; the message says what is wrong (the caller names the field)."""


def identifier(value: str, *, max_length: int) -> str:
    """``value`` as an id: NFC-normalised, at most ``max_length`` characters, without whitespace or
    invisible characters. Raises InputError saying which character is at fault."""
    normalised = unicodedata.normalize("NFC", value)
    if not normalised:
        raise InputError("an id may not be empty")
    if len(normalised) > max_length:
        raise InputError(f"an id has at most {max_length} characters, this one {len(normalised)}")
    for character in normalised:
        category = unicodedata.category(character)
        if character.isspace() or category[0] in ("C", "Z"):
            name = unicodedata.name(character, f"U+{ord(character):04X}")
            raise InputError(f"an id may not contain whitespace or invisible characters ({name})")
    return normalised


def json_depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed JSON value (a scalar is 0), without recursion."""
    # Level by level, one comprehension a level: a judgement list's 60,000 lines are 180,000
    # containers, and a generator per container cost 5 µs a line.
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level and depth <= MAX_JSON_DEPTH:
        depth += 1
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, dict | list)
        ]
    return depth


def loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses nesting deeper than ``MAX_JSON_DEPTH`` (json.JSONDecodeError or
    InputError) instead of failing with a RecursionError somewhere later."""
    try:
        value = json.loads(text)
    except RecursionError as error:
        raise InputError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep") from error
    if json_depth(value) > MAX_JSON_DEPTH:
        raise InputError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep")
    return value


def spreadsheet_safe(text: Any) -> str:
    """Text for a CSV cell that no spreadsheet will run as a formula (OWASP's CSV injection advice)."""
    text = "" if text is None else str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
