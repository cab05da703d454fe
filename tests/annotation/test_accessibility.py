"""The stylesheet's text and control colours meet WCAG 2.1 AA contrast (4.5:1 for text)."""

from __future__ import annotations

import re

from evaluation.metrics.colours import contrast_ratio
from tests.conftest import PROJECT_DIR

CSS = (PROJECT_DIR / "annotation" / "static" / "annotation" / "cranfield.css").read_text()


def contrast(a: str, b: str) -> float:
    """WCAG contrast of two ``#rrggbb`` colours (the formula lives in evaluation.metrics.colours)."""

    def rgb(colour: str) -> tuple[int, int, int]:
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))

    return contrast_ratio(rgb(a), rgb(b))


def variable(name: str) -> str:
    return re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{6}})", CSS).group(1)


def test_the_wcag_formula_gives_its_known_extremes():
    assert contrast("#000000", "#ffffff") == 21
    assert contrast("#777777", "#ffffff") < 4.5 < contrast("#767676", "#ffffff")


def test_text_colours_have_at_least_aa_contrast_on_their_backgrounds():
    white = "#ffffff"
    pairs = {
        "ink on page": (variable("ink"), variable("bg")),
        "muted text on page": (variable("muted"), variable("bg")),
        "links and secondary buttons": (variable("accent"), white),
        "primary button text": (white, variable("accent")),
        "marked query terms": (variable("ink"), variable("mark")),
        "error text": ("#82071e", "#ffebe9"),
        "messages": (variable("ink"), "#eef6ff"),
        "notices": (variable("ink"), "#fff8c5"),
    }
    for name, (foreground, background) in pairs.items():
        assert contrast(foreground, background) >= 4.5, name
    # The focus ring must stand out from the page (non-text contrast, 3:1).
    focus = re.search(r":focus-visible { outline: 3px solid (#[0-9a-fA-F]{6})", CSS).group(1)
    assert contrast(focus, white) >= 3
