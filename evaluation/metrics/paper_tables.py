"""A leaderboard as a table for a paper, in LaTeX and Markdown (pure; no Django).

One row per system, best first by the first measure, each with a letter (a, b, …); each measure's
mean, the best of each measure in bold (every system tied at the printed digits), and beside each
mean the letters of the systems it is significantly better than on that measure. Every pair of
systems is tested on each measure, paired over topics, and the p-values of a measure are corrected
for its n(n−1)/2 pairs (``leaderboard.all_pairs``): the layout of ranx's ``Report`` (Bassani, ECIR
2022, "ranx: A Blazing-Fast Python Library for Ranking Evaluation and Comparison"), whose tests
are uncorrected; with ``correction="none"`` and the t-test the letters are ranx's
(``tests/metrics/test_paper_tables.py``). Below the minimum of topics for a test there are no
letters, and the caption says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from annotation.crowd.minimums import TOPICS_FOR_TEST, Minimum
from evaluation.metrics.leaderboard import all_pairs, ranking, significance_reason

TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "bootstrap": "paired bootstrap test",
    "randomisation": "paired randomisation test",
}
FORMATS = ("latex", "markdown")


@dataclass(frozen=True)
class PaperTable:
    measures: list[str]
    systems: list[str]  # best first by the first measure; the i-th has the letter ``letter(i)``
    means: dict[str, dict[str, float]]  # system → measure → mean over topics
    better_than: dict[str, dict[str, list[str]]]  # system → measure → systems it significantly beats
    bold: dict[str, set[str]]  # measure → the systems with its best mean at ``digits``
    digits: int
    topics: int
    test: str
    correction: str
    alpha: float
    reason: str | None  # why no pair has a verdict (too few topics), or None

    def letters(self) -> dict[str, str]:
        return {system: letter(index) for index, system in enumerate(self.systems)}

    def value(self, system: str, measure: str) -> str:
        return f"{self.means[system][measure]:.{self.digits}f}"


def letter(index: int) -> str:
    """a … z, then aa, ab, … (a spreadsheet's column names, in lower case)."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


def paper_table(
    scores: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    digits: int = 3,
    minimum: Minimum = TOPICS_FOR_TEST,
    **options,
) -> PaperTable:
    """``scores``: {measure: {system: [value per topic]}}, every list in one topic order and every
    measure naming the same systems; the first measure orders the rows."""
    if not scores:
        raise ValueError("a table needs at least one measure")
    measures = list(scores)
    systems = ranking(scores[measures[0]])
    means = {
        s: {m: float(np.mean(scores[m][s])) if len(scores[m][s]) else 0.0 for m in measures} for s in systems
    }
    better_than: dict[str, dict[str, list[str]]] = {s: {m: [] for m in measures} for s in systems}
    position = {system: index for index, system in enumerate(systems)}
    for measure in measures:
        if len(systems) < 2:
            break
        for pair in all_pairs(
            scores[measure], test=test, correction=correction, alpha=alpha, minimum=minimum, **options
        ):
            if pair.significant and pair.difference > 0:
                better_than[pair.first][measure].append(pair.second)
        for system in systems:
            better_than[system][measure].sort(key=position.__getitem__)
    bold = {}
    for measure in measures:
        best = max(round(means[s][measure], digits) for s in systems) if systems else 0.0
        bold[measure] = {s for s in systems if round(means[s][measure], digits) == best}
    first = scores[measures[0]]
    topics = len(next(iter(first.values()))) if first else 0
    reason = significance_reason(first, minimum) if len(systems) > 1 else None
    return PaperTable(
        measures, systems, means, better_than, bold, digits, topics, test, correction, alpha, reason
    )


def caption(table: PaperTable) -> str:
    """What the table shows and how it was tested, in words (plain text)."""
    said = f"Mean over {table.topics} topics; the best of each measure in bold."
    if len(table.systems) < 2:
        return said
    if table.reason:
        return f"{said} No significance test: {table.reason}."
    corrected = (
        "uncorrected"
        if table.correction == "none"
        else f"{table.correction} correction over the pairs of each measure"
    )
    return (
        f"{said} Superscripts: the systems each is significantly better than "
        f"({TEST_NAMES.get(table.test, table.test)}, {corrected}, alpha = {table.alpha:g})."
    )


# -- LaTeX ---------------------------------------------------------------------------------------

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escaped(text: str) -> str:
    """``text`` as LaTeX prints it literally (run tags come from files: any character may be there)."""
    return "".join(_LATEX_SPECIAL.get(character, character) for character in text)


def _superscript(labels: list[str]) -> str:
    # Single letters run together (ranx's ``ᵃᵇᶜ``); past z they are separated: "ab" is a and b.
    return ("" if all(len(label) == 1 for label in labels) else ",").join(labels)


def to_latex(table: PaperTable, label: str = "tab:results") -> str:
    """A ``table`` environment with a booktabs ``tabular`` (``\\usepackage{booktabs}``)."""
    letters = table.letters()
    said = latex_escaped(caption(table)).replace("alpha =", "$\\alpha$ =")
    lines = [
        "% \\usepackage{booktabs}",
        "\\begin{table}[ht]",
        "\\centering",
        f"\\caption{{{said}}}",
        f"\\label{{{latex_escaped(label)}}}",
        f"\\begin{{tabular}}{{cl{'r' * len(table.measures)}}}",
        "\\toprule",
        " & ".join(["\\#", "System", *(latex_escaped(m) for m in table.measures)]) + " \\\\",
        "\\midrule",
    ]
    for system in table.systems:
        cells = [letters[system], latex_escaped(system)]
        for measure in table.measures:
            value = table.value(system, measure)
            cell = f"\\textbf{{{value}}}" if system in table.bold[measure] else value
            beaten = [letters[other] for other in table.better_than[system][measure]]
            cells.append(f"{cell}$^{{{_superscript(beaten)}}}$" if beaten else cell)
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


# -- Markdown ------------------------------------------------------------------------------------

_MARKDOWN_SPECIAL = set("\\`*_{}[]<>|#")


def markdown_escaped(text: str) -> str:
    """``text`` shown literally in a Markdown table cell (a ``|`` would end the cell)."""
    return "".join(f"\\{c}" if c in _MARKDOWN_SPECIAL else c for c in text)


def to_markdown(table: PaperTable) -> str:
    """A GitHub-flavoured Markdown table, superscripts as ``<sup>``, the caption below it."""
    letters = table.letters()
    header = ["#", "System", *(markdown_escaped(m) for m in table.measures)]
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(["---", "---"] + ["---:"] * len(table.measures)) + " |",
    ]
    for system in table.systems:
        cells = [letters[system], markdown_escaped(system)]
        for measure in table.measures:
            value = table.value(system, measure)
            cell = f"**{value}**" if system in table.bold[measure] else value
            beaten = [letters[other] for other in table.better_than[system][measure]]
            cells.append(f"{cell}<sup>{_superscript(beaten)}</sup>" if beaten else cell)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\n" + markdown_escaped(caption(table)) + "\n"


def rendered(table: PaperTable, fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    return to_latex(table) if fmt == "latex" else to_markdown(table)
