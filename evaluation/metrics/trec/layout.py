"""trec_eval's output layout (pure): each topic's lines with ``-q``, then ``runid`` and the ``all``
lines, every value formatted as trec_eval 10.0 prints it. Used by ``cranfield trec-eval`` and by the
leaderboard's trec_eval download alike."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TextIO

from evaluation.metrics.trec.measures import COUNTS, SUMMARY_ONLY

# The measure sets whose output includes ``runid`` and ``num_q`` unless asked for by name, as trec_eval's.
WITH_RUNID = {"official", "all_trec", "all", "set", "runid"}
WITH_NUM_Q = {"official", "all_trec", "all", "set", "num_q"}


def write_layout(
    out: TextIO,
    per_topic: dict,
    summary: dict,
    tag: str,
    *,
    per_query: bool = False,
    measures: Sequence[str] | None = None,
) -> None:
    """trec_eval's output of one run: each topic's lines (``per_query``, as ``-q``), then runid and the
    ``all`` lines; ``measures`` are the ``-m`` arguments given (default: official)."""
    if hasattr(out, "reconfigure"):  # ids read as bytes (trec_io.decode) print back as the same bytes
        out.reconfigure(errors="surrogateescape")
    if per_query:
        for qid, values in per_topic.items():
            for name, value in values.items():
                if name not in SUMMARY_ONLY:
                    out.write(format_line(name, qid, value, COUNTS))
    specs = set(measures or ["official"])
    if specs & WITH_RUNID:
        out.write(f"{'runid':<22}\tall\t{tag}\n")
    for name, value in summary.items():
        if name != "num_q" or specs & WITH_NUM_Q:
            out.write(format_line(name, "all", value, COUNTS))


def format_line(name: str, qid: str, value: float | str, counts: Collection[str]) -> str:
    """One line of trec_eval's output: ``%-22s\\t%s\\t%6.4f`` (``counts`` and num_q as integers, a string
    measure such as relstring quoted, as m_relstring.c prints it)."""
    if isinstance(value, str):
        return f"{name:<22}\t{qid}\t'{value}'\n"
    if name in counts or name == "num_q":
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    return f"{name:<22}\t{qid}\t{value:6.4f}\n"
