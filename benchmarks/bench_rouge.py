"""ROUGE-1/2/L/Lsum on summary pairs with 4 references each, against rouge-score in the same run.

    .venv/bin/python benchmarks/bench_rouge.py          # 10,000 predictions × 4 references
    .venv/bin/python benchmarks/bench_rouge.py --quick  # 300 predictions

Texts are real sentences: every sentence of ROUGE-1.5.5's own SL2003 sample (../shared/data/
summ_rouge155_sl2003, read at run time, never copied), recombined at random into summaries of
2–5 sentences (one per line, for ROUGE-Lsum). Scores are checked equal before times are compared.
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

from evaluation.metrics.rouge import score

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "summ_rouge155_sl2003"
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def sentences() -> list[str]:
    found = []
    for path in sorted(DATA.rglob("*.html")):
        found += [html.unescape(s) for s in re.findall(r"id=\d+>(.*?)</a>", path.read_text(errors="replace"))]
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
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=args.stem)
    start = time.perf_counter()
    theirs = [scorer.score_multi(refs, pred) for pred, refs in items]
    t_theirs = time.perf_counter() - start
    start = time.perf_counter()
    ours = [score(pred, refs, TYPES, stem=args.stem) for pred, refs in items]
    t_ours = time.perf_counter() - start
    for mine, reference in zip(ours, theirs, strict=True):
        for rouge_type in TYPES:
            assert abs(mine[rouge_type].fmeasure - reference[rouge_type].fmeasure) < 1e-9, rouge_type
    print(f"cores: {os.cpu_count()}; {n} predictions × 4 references; {len(pool)} sentences; stem={args.stem}")
    ratio = t_theirs / t_ours
    print(f"rouge-score time / ours {ratio:.2f} (s: theirs {t_theirs:.1f}, ours {t_ours:.1f}); same scores")


if __name__ == "__main__":
    main()
