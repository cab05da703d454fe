"""Number formatting for the report pages: a dash for figures that are undefined."""

from __future__ import annotations

from django import template

register = template.Library()

MISSING = "—"


@register.filter
def figure(value, digits: int = 3) -> str:
    """A number to ``digits`` decimals, or a dash when it is undefined (None)."""
    if value is None or value == "":
        return MISSING
    return f"{float(value):.{int(digits)}f}".replace("-", "−")


@register.filter
def percent(value) -> str:
    """A share in [0, 1] as a whole percentage, or a dash when it is undefined."""
    if value is None or value == "":
        return MISSING
    return f"{float(value) * 100:.0f} %"


@register.filter
def item(mapping, key):
    """``mapping[key]`` in a template, for keys held in variables (a measure's name); None if absent."""
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        pass
    try:  # JSON objects' keys are strings: a cut-off of 10 is stored as "10"
        return mapping[str(key)]
    except (KeyError, TypeError):
        return None
