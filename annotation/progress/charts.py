"""Small charts as inline SVG text (pure; no Django): drawn on the server, shown without any script
or anything fetched from elsewhere, and readable by screen readers through their title and summary.

Every text that reaches the markup goes through ``html.escape`` (annotator names are user input).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence

# The evaluation plots' size and type (evaluation.metrics.plotting: 5.6 in at 100 dpi, 10–12 pt):
# one look for every chart, whose words stay about 9 px high when a phone shrinks it to 370 px.
WIDTH, HEIGHT = 560, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 34, 76
LEGEND_WIDTH = 140
TITLE_SIZE, TEXT_SIZE, SMALL_SIZE = 15, 13, 12
# Okabe & Ito's colour-blind-safe palette (without its black and yellow, which fail on white).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#7a5195", "#8c564b")
# At most this many bucket labels along the x axis; the others are left unlabelled.
MOST_X_LABELS = 8
# Up to this many points a line also marks each one: a line of one point (a first hour) is no line.
MOST_MARKED_POINTS = 24


def _chart_id(title: str) -> str:
    """An id for a chart's title and summary, from the title: unique among a page's charts."""
    return "chart-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def nice_ceiling(value: float) -> tuple[float, float]:
    """The axis top and tick step for values up to ``value``: 1, 2 or 5 times a power of ten, with
    four or five ticks."""
    if value <= 0:
        return 1.0, 1.0
    raw = value / 4
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return step * math.ceil(value / step), step


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _frame(
    title: str, summary: str, y_label: str, top: float, step: float, labels: Sequence[str], plot_width: float
) -> list[str]:
    """The opening of a chart: title, summary, horizontal grid with its numbers, x labels."""
    ident = _chart_id(title)
    title_id, summary_id = f"{ident}-title", f"{ident}-summary"
    plot_height = HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="{title_id} {summary_id}">',
        f'<title id="{title_id}">{html.escape(title)}</title>',
        f'<desc id="{summary_id}">{html.escape(summary)}</desc>',
        f'<text x="{LEFT}" y="18" font-size="{TITLE_SIZE}" font-weight="bold" fill="currentColor">'
        f"{html.escape(title)}</text>",
    ]
    ticks = round(top / step)
    for index in range(ticks + 1):
        value = step * index
        y = TOP + plot_height - plot_height * value / top
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_width}" y1="{y:.1f}" y2="{y:.1f}" stroke="currentColor" '
            f'stroke-opacity="{0.6 if index == 0 else 0.15}"/>'
        )
        parts.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="{TEXT_SIZE}" text-anchor="end" '
            f'fill="currentColor">{_number(value)}</text>'
        )
    parts.append(
        f'<text transform="translate(16 {TOP + plot_height / 2:.1f}) rotate(-90)" font-size="{TEXT_SIZE}" '
        f'text-anchor="middle" fill="currentColor">{html.escape(y_label)}</text>'
    )
    every = max(1, math.ceil(len(labels) / MOST_X_LABELS))
    slot = plot_width / max(1, len(labels))
    for index in range(0, len(labels), every):
        x = LEFT + slot * (index + 0.5)
        parts.append(
            f'<text transform="translate({x:.1f} {TOP + plot_height + 14}) rotate(30)" '
            f'font-size="{SMALL_SIZE}" fill="currentColor">{html.escape(labels[index])}</text>'
        )
    return parts


def bar_chart(*, title: str, labels: Sequence[str], values: Sequence[float], y_label: str) -> str:
    """One bar per label (e.g. judgements per hour)."""
    if len(labels) != len(values):
        raise ValueError(f"{len(labels)} labels for {len(values)} values")
    top, step = nice_ceiling(max(values, default=0))
    busiest = max(range(len(values)), key=lambda i: values[i]) if values else None
    summary = (
        f"{len(values)} bars from {labels[0]} to {labels[-1]}; the highest, {_number(values[busiest])}, "
        f"at {labels[busiest]}."
        if busiest is not None
        else "No data yet."
    )
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    parts = _frame(title, summary, y_label, top, step, labels, plot_width)
    slot = plot_width / max(1, len(values))
    for index, value in enumerate(values):
        height = plot_height * value / top
        x = LEFT + slot * index + slot * 0.1
        parts.append(
            f'<rect x="{x:.1f}" y="{TOP + plot_height - height:.1f}" width="{slot * 0.8:.1f}" '
            f'height="{height:.1f}" fill="{PALETTE[0]}"><title>{html.escape(labels[index])}: '
            f"{_number(value)}</title></rect>"
        )
    parts.append("</svg>")
    return "".join(parts)


def line_chart(
    *,
    title: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    y_label: str,
    background: Sequence[Sequence[float]] = (),
    background_label: str = "",
) -> str:
    """One coloured, named line per series over the labels; ``background`` lines in grey, named
    together in the legend as ``background_label``."""
    for name, values in series.items():
        if len(values) != len(labels):
            raise ValueError(f"{name}: {len(values)} values for {len(labels)} labels")
    highest = max((max(values, default=0) for values in [*series.values(), *background]), default=0)
    top, step = nice_ceiling(highest)
    ends = ", ".join(f"{name} {_number(values[-1])}" for name, values in series.items() if values)
    summary = f"From {labels[0]} to {labels[-1]}; at the end: {ends}." if labels and ends else "No data yet."
    # The right-hand LEGEND_WIDTH px hold the legend.
    plot_width, plot_height = WIDTH - LEFT - RIGHT - LEGEND_WIDTH, HEIGHT - TOP - BOTTOM
    parts = _frame(title, summary, y_label, top, step, labels, plot_width)
    slot = plot_width / max(1, len(labels))

    def coordinates(values: Sequence[float]) -> list[tuple[float, float]]:
        return [
            (LEFT + slot * (index + 0.5), TOP + plot_height - plot_height * value / top)
            for index, value in enumerate(values)
        ]

    def points(values: Sequence[float]) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in coordinates(values))

    def markers(values: Sequence[float], colour: str) -> str:
        if len(labels) > MOST_MARKED_POINTS:
            return ""
        return "".join(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in coordinates(values)
        )

    for values in background:
        parts.append(
            f'<polyline points="{points(values)}" fill="none" stroke="#888" stroke-width="1" '
            f'stroke-opacity="0.6"/>'
        )
    legend_x = LEFT + plot_width + 16
    for index, (name, values) in enumerate(series.items()):
        colour = PALETTE[index % len(PALETTE)]
        parts.append(
            f'<polyline points="{points(values)}" fill="none" stroke="{colour}" stroke-width="2">'
            f"<title>{html.escape(name)}</title></polyline>{markers(values, colour)}"
        )
        y = TOP + 10 + 18 * index
        parts.append(
            f'<line x1="{legend_x}" x2="{legend_x + 14}" y1="{y}" y2="{y}" stroke="{colour}" '
            'stroke-width="3"/>'
            f'<text x="{legend_x + 18}" y="{y + 4}" font-size="{SMALL_SIZE}" fill="currentColor">'
            f"{html.escape(_shorten(name))}</text>"
        )
    if background and background_label:
        y = TOP + 10 + 18 * len(series)
        parts.append(
            f'<line x1="{legend_x}" x2="{legend_x + 14}" y1="{y}" y2="{y}" stroke="#888" stroke-width="2"/>'
            f'<text x="{legend_x + 18}" y="{y + 4}" font-size="{SMALL_SIZE}" fill="currentColor">'
            f"{html.escape(background_label)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _shorten(name: str, most: int = 14) -> str:
    return name if len(name) <= most else name[: most - 1] + "…"
