"""ROUGE-1/2/L/Lsum on summary pairs with 4 references each, against rouge-score in the same run.

    .venv/bin/python benchmarks/bench_rouge.py          # 10,000 predictions × 4 references
    .venv/bin/python benchmarks/bench_rouge.py --quick  # 300 predictions
    .venv/bin/python benchmarks/bench_rouge.py --stem   # with Porter stemming

Texts are real sentences, read at run time from ../shared/data (never copied): every sentence of
ROUGE-1.5.5's SL2003 sample and of the DialSummEval summaries (reference and 13 systems), split
at sentence punctuation. Summaries are 2–5 of them at random, one per line (for ROUGE-Lsum).
Both libraries score the same items in alternating chunks, so a change of load on the shared
machine hits both; every precision, recall and F is checked equal (1e-9) before times are shown.
Nothing is cached between items on our side except nltk's stem of a token.
"""

from __future__ import annotations

import argparse
import html
import os
import random
import re
import time
from pathlib import Path

from rouge_score import rouge_scorer

from evaluation.metrics.rouge import RougeScorer

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
CHUNK = 250


def sentences() -> list[str]:
    found = []
    for path in sorted((DATA / "summ_rouge155_sl2003").rglob("*.html")):
        found += [html.unescape(s) for s in re.findall(r"id=\d+>(.*?)</a>", path.read_text(errors="replace"))]
    for path in sorted((DATA / "summ_dialsummeval" / "reported_metrics").glob("*.summs.txt")):
        for line in path.read_text().splitlines():
            found += [s for s in re.split(r"(?<=[.!?])\s+", line) if len(s.split()) > 2]
    if not found:
        raise SystemExit(f"no sentences found under {DATA}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--stem", action="store_true")
    args = parser.parse_args()
    pool = sentences()
    rng = random.Random(0)
    n = 300 if args.quick else 10_000

    def summary() -> str:
        return "\n".join(rng.sample(pool, rng.randint(2, 5)))

    items = [(summary(), [summary() for _ in range(4)]) for _ in range(n)]
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
