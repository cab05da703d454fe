"""The leaderboard as a paper's table: the letters beside each mean are ranx's (its Report on the same
per-topic scores, t-test uncorrected), the LaTeX is well formed with one row per system and the means
as computed, names are escaped, and too few topics give no letters and say why."""

from __future__ import annotations

import re

import numpy as np
import pytest
from ranx.data_structures.report import Report
from ranx.statistical_tests import compute_statistical_significance

from evaluation.metrics.paper_tables import (
    letter,
    markdown_escaped,
    paper_table,
    rendered,
    to_latex,
    to_markdown,
)


def generated(rng: np.random.Generator) -> dict[str, dict[str, list[float]]]:
    systems = [f"run{i}" for i in range(int(rng.integers(2, 9)))]
    topics = int(rng.integers(10, 41))
    measures = ["map", "P_10", "ndcg_cut_10"][: int(rng.integers(1, 4))]
    shift = {system: rng.uniform(-0.15, 0.15) for system in systems}
    base = rng.uniform(0, 1, topics)  # topics differ in difficulty: paired tests find real gaps
    return {
        m: {s: list(np.clip(base + shift[s] + rng.normal(0, 0.1, topics), 0, 1)) for s in systems}
        for m in measures
    }


def ranx_letters(scores: dict, alpha: float) -> dict[str, dict[str, set[str]]]:
    """Per system and measure, the systems ranx's Report marks it significantly better than."""
    measures = list(scores)
    systems = list(next(iter(scores.values())))
    metric_scores = {s: {m: np.array(scores[m][s]) for m in measures} for s in systems}
    comparisons = compute_statistical_significance(systems, metric_scores, "student", max_p=alpha)
    results = {s: {m: float(np.mean(scores[m][s])) for m in measures} for s in systems}
    report = Report(systems, results, comparisons, measures, alpha, {}, stat_test="student")
    letters = "abcdefghijklmnopqrstuvwxyz"
    return {
        s: {m: {systems[letters.index(c)] for c in report.get_superscript_for_latex(s, m)} for m in measures}
        for s in systems
    }


def test_the_letters_are_ranx_reports_on_generated_leaderboards():
    rng = np.random.default_rng(7)
    marked = 0
    for _ in range(120):
        scores = generated(rng)
        table = paper_table(scores, test="t", correction="none", alpha=0.05)
        expected = ranx_letters(scores, 0.05)
        for system in table.systems:
            for measure in scores:
                assert set(table.better_than[system][measure]) == expected[system][measure]
                marked += len(expected[system][measure])
    assert marked > 200  # the generated leaderboards have many significant pairs, not none


def test_a_correction_only_removes_letters():
    rng = np.random.default_rng(3)
    for _ in range(30):
        scores = generated(rng)
        loose = paper_table(scores, correction="none")
        strict = paper_table(scores, correction="holm")
        for system in loose.systems:
            for measure in scores:
                assert set(strict.better_than[system][measure]) <= set(loose.better_than[system][measure])


def test_a_worked_table():
    topics = 12
    scores = {
        "map": {
            "strong": [0.8 + 0.01 * (t % 3) for t in range(topics)],
            "middle": [0.5 + 0.01 * (t % 4) for t in range(topics)],
            "weak": [0.2 + 0.01 * (t % 5) for t in range(topics)],
        }
    }
    table = paper_table(scores)
    assert table.systems == ["strong", "middle", "weak"]
    assert table.better_than["strong"]["map"] == ["middle", "weak"]
    assert table.better_than["middle"]["map"] == ["weak"]
    assert table.better_than["weak"]["map"] == []
    assert table.bold == {"map": {"strong"}}
    latex = to_latex(table)
    assert "a & strong & \\textbf{0.810}$^{bc}$ \\\\" in latex
    assert "b & middle & 0.515$^{c}$ \\\\" in latex
    assert "c & weak & 0.218 \\\\" in latex
    assert "| a | strong | **0.810**<sup>bc</sup> |" in to_markdown(table)


def braces_balanced(text: str) -> bool:
    depth = 0
    for character in re.sub(r"\\[{}]", "", text):
        depth += {"{": 1, "}": -1}.get(character, 0)
        if depth < 0:
            return False
    return depth == 0


def test_the_latex_is_well_formed_with_one_row_per_system_and_the_means_as_computed():
    rng = np.random.default_rng(11)
    special = "&%$#_{}~^\\"
    for _ in range(40):
        scores = generated(rng)
        names = {s: f"{s}_{special[int(rng.integers(0, 10))]}x" for s in next(iter(scores.values()))}
        scores = {m: {names[s]: v for s, v in per.items()} for m, per in scores.items()}
        table = paper_table(scores, digits=4)
        latex = to_latex(table)
        assert braces_balanced(latex)
        body = latex.split("\\midrule\n")[1].split("\\bottomrule")[0].splitlines()
        assert len(body) == len(table.systems)
        for line, system in zip(body, table.systems, strict=True):
            assert line.endswith(" \\\\")
            cells = line[: -len(" \\\\")].split(" & ")
            assert len(cells) == 2 + len(scores)
            for cell, measure in zip(cells[2:], scores, strict=True):
                number = float(re.search(r"\d+\.\d+", cell).group())
                assert number == round(float(np.mean(scores[measure][system])), 4)
                assert ("\\textbf{" in cell) == (system in table.bold[measure])
        # The best of each measure is bold, and nothing rounds above it.
        for measure in scores:
            best = max(round(float(np.mean(v)), 4) for v in scores[measure].values())
            assert {round(table.means[s][measure], 4) for s in table.bold[measure]} == {best}


def test_names_are_escaped_in_both_formats():
    scores = {"P_10": {"a&b_c%d$e#f{g}h~i^j\\k": [0.5] * 3, "x|y*z": [0.4] * 3}}
    table = paper_table(scores)
    latex = to_latex(table)
    assert "a\\&b\\_c\\%d\\$e\\#f\\{g\\}h\\textasciitilde{}i\\textasciicircum{}j\\textbackslash{}k" in latex
    assert braces_balanced(latex)
    markdown = to_markdown(table)
    assert "x\\|y\\*z" in markdown
    assert all(line.count("|") - line.count("\\|") == 4 for line in markdown.splitlines()[:4])
    assert markdown_escaped("a|b") == "a\\|b"


def test_too_few_topics_give_no_letters_and_say_why():
    scores = {"map": {"a": [0.9, 0.8, 0.9], "b": [0.1, 0.2, 0.1]}}
    table = paper_table(scores)
    assert table.better_than == {"a": {"map": []}, "b": {"map": []}}
    assert "No significance test: too few topics" in to_latex(table)
    assert "$^{" not in to_latex(table)


def test_letters_go_on_past_z_and_are_then_separated():
    assert [letter(i) for i in (0, 1, 25, 26, 27, 51, 52)] == ["a", "b", "z", "aa", "ab", "az", "ba"]
    topics = 12
    scores = {"map": {f"s{i:02d}": [1 - i / 40 + 0.001 * (t % 3) for t in range(topics)] for i in range(30)}}
    table = paper_table(scores, correction="none")
    last = to_latex(table).split("\\midrule\n")[1].splitlines()[0]
    assert last.startswith("a & s00 & ") and "$^{b,c," in last and ",ad}$" in last


def test_an_unknown_format_is_refused():
    table = paper_table({"map": {"a": [0.5] * 10}})
    with pytest.raises(ValueError, match="latex, markdown"):
        rendered(table, "html")
