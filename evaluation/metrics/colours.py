"""Colours of the pairwise-kappa heat map, and the WCAG contrast its text keeps (pure; no Django).

The per-annotator tables of the snapshot's report (confusion against the aggregate, agreement of
ratings with it, the busiest annotators) live in ``annotation.crowd.quality.annotators``.
"""

from __future__ import annotations

from itertools import pairwise

# Viridis (van der Walt & Smith, matplotlib's default colour map): perceptually uniform, readable
# with the common colour-vision deficiencies and in grey scale; luminance rises from end to end.
_VIRIDIS = [  # sampled at sixteenths from matplotlib's table (CC0)
    (0.0, (68, 1, 84)),
    (0.0625, (72, 24, 106)),
    (0.125, (71, 45, 123)),
    (0.1875, (66, 64, 134)),
    (0.25, (59, 82, 139)),
    (0.3125, (51, 99, 141)),
    (0.375, (44, 114, 142)),
    (0.4375, (38, 130, 142)),
    (0.5, (33, 145, 140)),
    (0.5625, (31, 160, 136)),
    (0.625, (40, 174, 128)),
    (0.6875, (63, 188, 115)),
    (0.75, (94, 201, 98)),
    (0.8125, (132, 212, 75)),
    (0.875, (173, 220, 48)),
    (0.9375, (216, 226, 25)),
    (1.0, (253, 231, 37)),
]


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour given as 0–255 channels."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(first: tuple[int, int, int], second: tuple[int, int, int]) -> float:
    """WCAG 2.1 contrast ratio, from 1 (none) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def heat_colours(value: float | None, low: float = -1.0, high: float = 1.0) -> tuple[str, str]:
    """Background and text colour (``#rrggbb``) of a heat-map cell holding ``value``.

    The background follows viridis from ``low`` (dark) to ``high`` (light); values outside are
    clipped; None (no value) is light grey. The text is black or white, whichever contrasts more,
    so the number printed in every cell stays readable (WCAG AA, at least 4.5:1).
    """
    if value is None:
        background = (238, 238, 238)
    else:
        share = min(max((float(value) - low) / (high - low), 0.0), 1.0)
        for (start, left), (end, right) in pairwise(_VIRIDIS):
            if share <= end:
                t = (share - start) / (end - start)
                r, g, b = (round(a + (z - a) * t) for a, z in zip(left, right, strict=True))
                background = (r, g, b)
                break
    black, white = (0, 0, 0), (255, 255, 255)
    text = black if contrast_ratio(background, black) >= contrast_ratio(background, white) else white
    return "#{:02x}{:02x}{:02x}".format(*background), "#{:02x}{:02x}{:02x}".format(*text)
