"""The leaderboard on few topics and on enough: its intervals are the expanded percentile bootstrap
over topics (never outside [0, 1] for a [0, 1] measure), stated on the page, in the API and in the
signature; below the minimums (annotation.crowd.minimums) the page, the API and the CSV show no
interval and no significance verdict, but the same reason."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from django.urls import reverse

from annotation.crowd.minimums import TOPICS_FOR_INTERVAL, TOPICS_FOR_TEST
from evaluation.metrics.intervals import OVER_TOPICS, mean_intervals
from evaluation.metrics.significance import paired_t_test
from tests.scoring.test_pages_and_api import api

INTERVAL_REASON = "too few topics for an interval (2; needs at least 10)"
TEST_REASON = "too few topics for a significance test (2; needs at least 10)"


def with_topics(evaluation, topics: int, seed: int = 0) -> dict[str, dict[str, list[float]]]:
    """Give every run of the evaluation generated per-topic scores on ``topics`` topics (in [0, 1];
    the first run better); returns ``{measure: {run: values in topic order}}``."""
    rng = np.random.default_rng(seed)
    names = [f"t{index:02d}" for index in range(topics)]
    written: dict[str, dict[str, list[float]]] = {}
    for offset, score in enumerate(evaluation.scores.select_related("run").order_by("run__tag")):
        for measure in score.overall:
            values = np.clip(rng.beta(2, 3, topics) + (0.3 if offset == 0 else 0.0), 0, 1).tolist()
            score.per_topic[measure] = dict(zip(names, values, strict=True))
            written.setdefault(measure, {})[score.run.tag] = values
        score.save(update_fields=["per_topic"])
    return written


def test_on_two_topics_the_api_gives_null_bounds_and_no_verdict_with_the_reasons(scored, researcher):
    url = reverse("leaderboard-api", args=[scored.project.pk, scored.pk])
    data = api(researcher).get(url, {"measures": "map,num_ret"}).json()
    assert data["topics"] == 2
    for row in data["rows"]:
        for measure in ("map", "num_ret"):
            value = row["values"][measure]
            assert value["low"] is None and value["high"] is None
            assert value["topics"] == 2 and value["reason"] == INTERVAL_REASON
        overall = scored.scores.get(run__tag=row["run"]).overall["map"]
        assert row["values"]["map"]["mean"] == pytest.approx(overall, abs=1e-4)
    assert data["significance"] == {"topics": 2, "minimum": TOPICS_FOR_TEST.count, "reason": TEST_REASON}
    (pair,) = data["pairs"]
    assert pair["p_value"] is None and pair["corrected_p"] is None and pair["significant"] is None
    assert pair["difference"] >= 0
    assert data["interval"]["method"] == "expanded percentile bootstrap"
    assert data["interval"]["minimum"] == TOPICS_FOR_INTERVAL.count


def test_on_two_topics_the_page_and_the_csv_say_why_and_show_no_verdict(client, scored, researcher):
    client.force_login(researcher)
    text = client.get(reverse("leaderboard", args=[scored.project.pk]), {"measures": "map"}).content.decode()
    assert f"No intervals: {INTERVAL_REASON}." in text
    assert f"No significance verdict: {TEST_REASON}." in text
    assert 'class="interval"' not in text
    pairs = text[text.index('id="pairs"') : text.index("</table>", text.index('id="pairs"'))]
    assert "Corrected p" not in pairs and ">yes<" not in pairs and ">no<" not in pairs
    download = reverse("leaderboard-download", args=[scored.project.pk, scored.pk, "csv"])
    rows = list(csv.reader(io.StringIO(client.get(download, {"measures": "map"}).content.decode())))
    assert rows[0] == ["rank", "run", "map", "map_low", "map_high", "note"]
    assert all(row[3] == row[4] == "" and row[5] == INTERVAL_REASON for row in rows[1:])


def test_on_twelve_topics_the_intervals_are_the_bootstrap_inside_zero_one_and_pairs_are_tested(
    client, scored, researcher
):
    written = with_topics(scored, 12)
    url = reverse("leaderboard-api", args=[scored.project.pk, scored.pk])
    data = api(researcher).get(url, {"measures": "map,ndcg", "test": "t"}).json()
    assert data["topics"] == 12 and data["significance"]["reason"] is None
    for measure in ("map", "ndcg"):
        runs = list(written[measure])
        found = mean_intervals([written[measure][r] for r in runs], OVER_TOPICS)
        expected = dict(zip(runs, found, strict=True))
        for row in data["rows"]:
            value = row["values"][measure]
            assert (value["low"], value["high"]) == pytest.approx(
                (expected[row["run"]].low, expected[row["run"]].high)
            )
            assert 0 <= value["low"] <= value["mean"] <= value["high"] <= 1 and value["reason"] is None
    (pair,) = data["pairs"]
    assert pair["p_value"] == pytest.approx(
        paired_t_test(written["map"][pair["first"]], written["map"][pair["second"]]).p_value
    )
    assert pair["significant"] is True  # the first run is 0.3 better on every topic
    assert data["signature"] == (
        f"{scored.signature}|{OVER_TOPICS.signature()}|test:t|correction:holm|alpha:0.05|min-topics-test:10"
    )
    client.force_login(researcher)
    text = client.get(reverse("leaderboard", args=[scored.project.pk]), {"measures": "map"}).content.decode()
    assert OVER_TOPICS.describe() in text and data["signature"] in text
    first = data["rows"][0]["values"]["map"]
    assert f'<small class="interval">[{first["low"]:.3f}, {first["high"]:.3f}]</small>' in text
    assert "No intervals" not in text and "No significance verdict" not in text
    assert "1 significant at α = 0.05" in text


def test_ranking_stability_over_two_runs_shows_no_tau_but_the_reason_on_the_page_and_the_api(
    client, scored, researcher
):
    """Two runs: Kendall's τ of two rankings of two systems is ±1 by construction."""
    reason = "too few runs for a correlation (2; needs at least 5)"
    stored = scored.checks["stability"]
    assert any(row["kendall_tau"] == 1.0 for row in stored)  # the job keeps the figures
    detail = api(researcher).get(reverse("evaluation-api", args=[scored.project.pk, scored.pk])).json()
    for row in detail["checks"]["stability"]:
        assert row["kendall_tau"] is None and row["tau_ap"] is None
        assert row["systems"] == 2 and row["reason"] == reason
    client.force_login(researcher)
    text = client.get(reverse("leaderboard", args=[scored.project.pk])).content.decode()
    assert f"No τ or τ<sub>AP</sub>: {reason}." in text


def test_from_five_runs_the_stability_figures_are_shown():
    from evaluation.scoring.trust import shown_checks

    checks = {
        "pool_bias": [{"run": f"r{index}"} for index in range(5)],
        "stability": [{"ground_truth": "method: majority", "kendall_tau": 0.8, "tau_ap": 0.7, "flipped": []}],
    }
    (row,) = shown_checks(checks)["stability"]
    assert (row["kendall_tau"], row["tau_ap"], row["systems"], row["reason"]) == (0.8, 0.7, 5, None)


def test_per_topic_kappa_against_external_qrels_on_few_documents_shows_the_reason(client, scored, researcher):
    from evaluation.models import ExternalQrels
    from evaluation.scoring.external import crowd_against_external

    external = ExternalQrels.objects.create(
        project=scored.project,
        name="official",
        judgements={"401": {"d1": 1, "d2": 1, "d3": 0}, "402": {"d4": 1}},
        judged_count=4,
        relevant_count=3,
    )
    compared = crowd_against_external(scored.snapshot, external)
    assert compared["mean_kappa"] is None and compared["kappa_topics"] == 0
    for row in compared["topics"]:
        assert row["kappa"] is None
        assert row["reason"] == f"too few shared items for a kappa ({row['shared']}; needs at least 10)"
    client.force_login(researcher)
    text = client.get(
        reverse("leaderboard", args=[scored.project.pk]), {"evaluation": scored.pk}
    ).content.decode()
    assert "No per-topic mean: no topic has 10 documents judged by both" in text
    assert compared["kappa_over_topics"] is None and compared["shared"] < 10
    assert (
        f"No Cohen's κ over all topics: too few shared items for a kappa ({compared['shared']}; needs" in text
    )
    assert all(row["reason"] in text for row in compared["topics"])


@pytest.mark.parametrize(("fmt", "layout"), [("tex", "latex"), ("md", "markdown")])
def test_the_papers_table_has_the_boards_means_and_its_significant_pairs_by_page_and_api(
    client, scored, researcher, outsider_researcher, annotators, fmt, layout
):
    written = with_topics(scored, 12)
    project = scored.project
    client.force_login(researcher)
    query = {"measures": "map,ndcg", "test": "t"}
    download = client.get(reverse("leaderboard-download", args=[project.pk, scored.pk, fmt]), query)
    assert download.status_code == 200 and "attachment" in download["Content-Disposition"]
    text = download.content.decode()
    by_api = api(researcher).get(
        reverse("leaderboard-api", args=[project.pk, scored.pk]), {**query, "as": layout}
    )
    assert by_api.status_code == 200 and by_api.content.decode() == text
    board = api(researcher).get(reverse("leaderboard-api", args=[project.pk, scored.pk]), query).json()
    separator = " & " if fmt == "tex" else " | "
    rows = [line for line in text.splitlines() if line.count(separator) >= 3 and "System" not in line]
    rows = [line for line in rows if "---" not in line]
    assert len(rows) == len(board["rows"]) == 2
    for line, row in zip(rows, board["rows"], strict=True):
        name = row["run"] if fmt == "md" else row["run"].replace("_", "\\_")
        assert f"{separator}{name}{separator}" in line
        for measure in ("map", "ndcg"):
            assert f"{row['values'][measure]['mean']:.3f}" in line
    # The first run is 0.3 better on every topic: on both measures it carries the other's letter b.
    assert rows[0].count("$^{b}$" if fmt == "tex" else "<sup>b</sup>") == 2
    assert "^" not in rows[1] and "<sup>" not in rows[1]
    assert sorted(written["map"]) == sorted(row["run"] for row in board["rows"])
    client.force_login(outsider_researcher)
    assert client.get(reverse("leaderboard-download", args=[project.pk, scored.pk, fmt])).status_code == 404
    outsider = api(outsider_researcher).get(
        reverse("leaderboard-api", args=[project.pk, scored.pk]), {"as": layout}
    )
    assert outsider.status_code == 404
    client.force_login(annotators[0])
    assert client.get(reverse("leaderboard-download", args=[project.pk, scored.pk, fmt])).status_code in {
        403,
        404,
    }
    bad = api(researcher).get(reverse("leaderboard-api", args=[project.pk, scored.pk]), {"as": "html"})
    assert bad.status_code == 400 and "latex" in bad.json()["as"][0]
