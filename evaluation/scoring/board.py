"""The leaderboard of an evaluation for pages, API and downloads: runs × chosen measures with
bootstrap intervals over topics, all-pairs significance on the first measure, corrected for
multiple comparisons, and the per-topic drill-down. Reads only the measures asked for (each is one
key of ``RunScore.per_topic``), computes with ``evaluation.metrics.leaderboard``. Below the stated
minimums of topics (``annotation.crowd.minimums``) there is no interval and no significance
verdict, and the data says why; page, API and downloads all read this one dict."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass
from typing import Any

from django.db.models import F

from annotation.crowd.minimums import TOPICS_FOR_TEST
from annotation.items.inputs import spreadsheet_safe
from evaluation.jobs.remembered import remembered
from evaluation.metrics.intervals import OVER_TOPICS
from evaluation.metrics.leaderboard import NO_CORRECTION, all_pairs, board, significance_reason
from evaluation.metrics.natural_order import natural_sorted
from evaluation.metrics.paper_tables import paper_table, rendered
from evaluation.metrics.trec.layout import write_layout
from evaluation.metrics.trec.measures import PER_TOPIC_ONLY, parse_measures
from evaluation.metrics.trec.names import measure_name_or_as_given, split_measures
from evaluation.models import Evaluation, RunScore
from evaluation.scoring.compute import MEASURES

DEFAULT_MEASURES = ("map", "P_10", "ndcg_cut_10", "bpref", "recip_rank")
TESTS = ("t", "wilcoxon", "bootstrap", "randomisation")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "sidak", "holm-sidak", "hommel", NO_CORRECTION)
# Resampling tests over every pair: enough resamples for a p near 0.05 to be stable, few enough that
# 100 runs (4,950 pairs) still answer in seconds.
RESAMPLES = 2000


class BoardError(ValueError):
    """A leaderboard request that cannot be answered; ``field`` names the parameter."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class BoardOptions:
    measures: tuple[str, ...] = DEFAULT_MEASURES
    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05

    @classmethod
    def from_query(cls, query, available: set[str]) -> BoardOptions:
        """Options from a query string (``measures=map,P_10`` or repeated ``m=``; ``test``,
        ``correction``, ``alpha``), each checked; BoardError names the bad one."""
        # ir_measures' names and trec_eval's -m arguments too (nDCG@10, ndcg_cut.10 → ndcg_cut_10).
        names = [
            measure_name_or_as_given(n)
            for value in query.getlist("m") + query.getlist("measures")
            for n in split_measures(value)
        ]
        measures = tuple(dict.fromkeys(names)) or tuple(m for m in DEFAULT_MEASURES if m in available)
        unknown = [m for m in measures if m not in available or m in PER_TOPIC_ONLY]
        if unknown:
            message = (
                f"unknown measure {unknown[0]!r}; this evaluation has e.g. map, P_10, ndcg_cut_10 "
                "(as trec_eval prints them; nDCG@10, P@10 and AP, as ir_measures writes them, too)"
            )
            raise BoardError("measures", message)
        test = query.get("test", "t")
        if test not in TESTS:
            raise BoardError("test", f"test must be one of {', '.join(TESTS)}")
        correction = query.get("correction", "holm")
        if correction not in CORRECTIONS:
            raise BoardError("correction", f"correction must be one of {', '.join(CORRECTIONS)}")
        try:
            alpha = float(query.get("alpha", 0.05))
        except ValueError:
            raise BoardError("alpha", "alpha must be a number between 0 and 1") from None
        if not 0 < alpha < 1:
            raise BoardError("alpha", "alpha must be a number between 0 and 1")
        return cls(measures, test, correction, alpha)


def available_measures(evaluation: Evaluation) -> set[str]:
    first = evaluation.scores.values_list("overall", flat=True).first()
    return set(first or ())


def topic_columns(evaluation: Evaluation, measure: str) -> tuple[list[str], dict[str, list[float]]]:
    """Every run's per-topic values of one measure, in one topic order: ``(topics, {tag: values})``."""
    rows = list(
        evaluation.scores.annotate(tag=F("run__tag"))
        .order_by("run__tag")
        .values_list("tag", f"per_topic__{measure}")
    )
    topics = sorted({topic for _, values in rows for topic in values or {}})
    return topics, {tag: [float((values or {}).get(t, 0.0)) for t in topics] for tag, values in rows}


# Part of every key: raise it when the board's contents change, so no older one is served.
BOARD_VERSION = 1


def leaderboard(evaluation: Evaluation, options: BoardOptions) -> dict:
    """``computed_leaderboard``, from the cache when this evaluation's board was computed with these
    options before: a done evaluation's scores are never rewritten (a deleted run's go, and a renamed
    or regrouped run shows anew, so the runs are part of the key). 100 runs × 1,000 topics take
    seconds: the intervals' resamples and every pair's test."""
    runs = list(evaluation.scores.order_by("run_id").values_list("run_id", "run__tag", "run__group"))
    depends_on = [evaluation.pk, evaluation.created_at, runs, asdict(options)]
    return remembered(
        f"leaderboard:v{BOARD_VERSION}", depends_on, lambda: computed_leaderboard(evaluation, options)
    )


def computed_leaderboard(evaluation: Evaluation, options: BoardOptions) -> dict:
    """JSON-ready: the evaluation, one row per run (best first by the first measure) with each
    measure's mean and interval over topics (or null bounds and the reason), all pairs compared on
    the first measure (or, below the minimum of topics, their differences with no verdict), how
    the intervals and tests were made, and the signature of it all."""
    runs = {row["run__tag"]: row for row in evaluation.scores.values("run__tag", "run_id", "run__group")}
    columns: dict[str, dict] = {}
    topics: list[str] = []
    primary = options.measures[0]
    primary_values: dict[str, list[float]] = {}
    for measure in options.measures:
        topics, values = topic_columns(evaluation, measure)
        if measure == primary:
            primary_values = values
        columns[measure] = {row.system: row for row in board(values, OVER_TOPICS)}
    order = sorted(runs, key=lambda tag: columns[primary][tag].rank)
    pairs = []
    if len(runs) > 1:
        extra = {"n_resamples": RESAMPLES} if options.test in {"bootstrap", "randomisation"} else {}
        pairs = [
            asdict(c)
            for c in all_pairs(
                primary_values,
                test=options.test,
                correction=options.correction,
                alpha=options.alpha,
                minimum=TOPICS_FOR_TEST,
                **extra,
            )
        ]
    return {
        "evaluation": evaluation_summary(evaluation),
        "signature": board_signature(evaluation, options),
        "measures": list(options.measures),
        "topics": len(topics),
        "interval": OVER_TOPICS.as_dict(),
        "test": options.test,
        "correction": options.correction,
        "alpha": options.alpha,
        "significance": {
            "topics": len(topics),
            "minimum": TOPICS_FOR_TEST.count,
            "reason": significance_reason(primary_values, TOPICS_FOR_TEST) if len(runs) > 1 else None,
        },
        "rows": [
            {
                "run": tag,
                "run_id": runs[tag]["run_id"],
                "group": runs[tag]["run__group"] or tag,
                "rank": columns[primary][tag].rank,
                "values": {m: interval(columns[m][tag]) for m in options.measures},
            }
            for tag in order
        ],
        "pairs": pairs,
    }


def paper_table_text(evaluation: Evaluation, options: BoardOptions, fmt: str) -> str:
    """The leaderboard as a paper's table (``metrics.paper_tables``: LaTeX or Markdown), its letters
    from every pair tested on every chosen measure; kept in the cache as the board is."""
    runs = list(evaluation.scores.order_by("run_id").values_list("run_id", "run__tag"))
    depends_on = [evaluation.pk, evaluation.created_at, runs, asdict(options), fmt]

    def computed() -> str:
        columns = {measure: topic_columns(evaluation, measure)[1] for measure in options.measures}
        extra: dict[str, Any] = (
            {"n_resamples": RESAMPLES} if options.test in {"bootstrap", "randomisation"} else {}
        )
        table = paper_table(
            columns, test=options.test, correction=options.correction, alpha=options.alpha, **extra
        )
        return rendered(table, fmt)

    return remembered(f"paper-table:v{BOARD_VERSION}", depends_on, computed)


def board_signature(evaluation: Evaluation, options: BoardOptions) -> str:
    """The scores' signature (``compute.signature``, fixed when the evaluation ran) and what the
    board adds when it is read: how its intervals are made and which test compares the runs."""
    test = f"test:{options.test}|correction:{options.correction}|alpha:{options.alpha:g}"
    return f"{evaluation.signature}|{OVER_TOPICS.signature()}|{test}|min-topics-test:{TOPICS_FOR_TEST.count}"


def interval(row) -> dict:
    return {"mean": row.mean, "low": row.low, "high": row.high, "topics": row.topics, "reason": row.reason}


def evaluation_summary(evaluation: Evaluation) -> dict:
    return {
        "id": evaluation.pk,
        "ground_truth": evaluation.ground_truth_name,
        "signature": evaluation.signature,
        "status": evaluation.status,
        "finished_at": evaluation.finished_at.isoformat() if evaluation.finished_at else None,
    }


def per_topic_table(evaluation: Evaluation, score: RunScore, measures: tuple[str, ...]) -> list[dict]:
    """One run's drill-down: each topic's value of each measure."""
    topics = natural_sorted({t for m in measures for t in score.per_topic.get(m, {})})
    return [{"topic": t, "values": {m: score.per_topic.get(m, {}).get(t) for m in measures}} for t in topics]


def leaderboard_csv(data: dict) -> str:
    """One line per run: rank, run, then mean, low and high of each measure (low and high empty
    where there is no interval), and why an interval is missing."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    measures = data["measures"]
    parts = ("mean", "low", "high")
    writer.writerow(
        ["rank", "run", *(f"{m}{part}" for m in measures for part in ("", "_low", "_high")), "note"]
    )
    for row in data["rows"]:
        cells = [row["values"][m][part] for m in measures for part in parts]
        reasons = dict.fromkeys(row["values"][m]["reason"] for m in measures if row["values"][m]["reason"])
        writer.writerow(
            [
                row["rank"],
                spreadsheet_safe(row["run"]),
                *("" if value is None else f"{value:.6f}" for value in cells),
                "; ".join(reasons),
            ]
        )
    return out.getvalue()


def leaderboard_json(data: dict) -> str:
    return json.dumps(data, indent=2)


def trec_eval_text(evaluation: Evaluation, per_query: bool = False) -> str:
    """Every run's measures in trec_eval's output layout (``cranfield trec-eval -c -m all_trec``),
    one block per run; ``per_query`` adds each topic's lines first, as ``-q``."""
    order = {name: index for index, name in enumerate(measure_order())}
    out = io.StringIO()
    for score in evaluation.scores.select_related("run").order_by("run__tag"):
        # The database keeps JSON objects' keys in its own order: put them back in trec_eval's.
        names = sorted(score.per_topic, key=lambda name: order.get(name, len(order)))
        topics = sorted({t for values in score.per_topic.values() for t in values})
        per_topic = {t: {n: score.per_topic[n][t] for n in names if t in score.per_topic[n]} for t in topics}
        summary = {n: score.overall[n] for n in sorted(score.overall, key=lambda n: order.get(n, len(order)))}
        write_layout(out, per_topic, summary, score.run.tag, per_query=per_query, measures=[MEASURES])
    return out.getvalue()


def measure_order() -> list[str]:
    """Every measure's name in trec_eval's print order, num_q first."""
    return ["num_q", *(name for measure in parse_measures([MEASURES]) for name in measure.names())]
