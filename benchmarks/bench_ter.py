"""TER per output, ours (``metrics.text.ter.sentence_ter``) against sacrebleu's ``TER().sentence_score``.

    .venv/bin/python benchmarks/bench_ter.py          # 1,000 outputs × 4 references (about a minute)
    .venv/bin/python benchmarks/bench_ter.py --quick  # 40 outputs (a smoke run)

Outputs of a few sentences with 4 references each, as a text evaluation scores them. Sentences are
real ones (``bench_rouge.sentences``: ROUGE-1.5.5's SL2003 sample and DialSummEval's summaries when
``../shared/data`` has them, else the shipped demo's Cranfield abstracts, and it says which). Each
input gets 4 references of 2–4 sentences; an output takes one reference's sentences, keeps each with
a probability (its system's skill, 0.2–0.8) or puts a sentence of the pool in its place, and half
the outputs have their sentences in another order, so the shift search has phrases to move.

Both score the same outputs in one process, in alternating chunks so a change of load on the shared
machine hits both; every score is checked equal (1e-9) before the times are shown. sacrebleu's
tokeniser keeps an LRU cache, so each library sees every text once. Our ``_beam`` geometry is cached
per (hypothesis length, reference length), which outputs share.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import sacrebleu

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_rouge import sentences  # noqa: E402

from evaluation.metrics.text.ter import sentence_ter  # noqa: E402

CHUNK = 20


def outputs(count: int, seed: int = 0) -> tuple[list[tuple[str, list[str]]], str]:
    pool, source = sentences()
    rng = random.Random(seed)
    items = []
    for _ in range(count):
        references = [" ".join(rng.sample(pool, rng.randint(2, 4))) for _ in range(4)]
        skill = rng.uniform(0.2, 0.8)
        base = references[rng.randrange(4)].split(". ")
        parts = [part if rng.random() < skill else rng.choice(pool) for part in base]
        if rng.random() < 0.5:
            rng.shuffle(parts)
        items.append((". ".join(parts), references))
    return items, source


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--outputs", type=int, help="how many outputs (default 1,000; 40 with --quick)")
    args = parser.parse_args()
    n = args.outputs or (40 if args.quick else 1000)
    items, source = outputs(n)
    print(f"texts: sentences of {source}")
    metric = sacrebleu.TER()
    theirs: list[float] = []
    ours: list[float] = []
    t_theirs = t_ours = 0.0
    for start in range(0, n, CHUNK):
        chunk = items[start : start + CHUNK]
        began = time.perf_counter()
        theirs += [metric.sentence_score(hypothesis, references).score for hypothesis, references in chunk]
        t_theirs += time.perf_counter() - began
        began = time.perf_counter()
        ours += [sentence_ter(hypothesis, references) for hypothesis, references in chunk]
        t_ours += time.perf_counter() - began
    differ = [k for k, (a, b) in enumerate(zip(ours, theirs, strict=True)) if abs(a - b) > 1e-9]
    if differ:
        k = differ[0]
        raise SystemExit(f"{len(differ)} outputs differ; the first: ours {ours[k]!r}, theirs {theirs[k]!r}")
    words = sum(len(h.split()) for h, _ in items) / n
    reference_words = sum(len(r.split()) for _, refs in items for r in refs) / (4 * n)
    print(
        f"cores: {os.cpu_count()}; {n} outputs × 4 references; {words:.0f} words per output, "
        f"{reference_words:.0f} per reference on average"
    )
    print(f"same scores on all {n} outputs (within 1e-9)")
    print()
    print("| TER per output | ms |")
    print("| --- | --- |")
    print(f"| sacrebleu 2.6.0 `TER().sentence_score` | {1000 * t_theirs / n:.2f} |")
    print(f"| ours `sentence_ter` | {1000 * t_ours / n:.3f} |")
    print()
    print(f"sacrebleu time / ours {t_theirs / t_ours:.1f} (s: sacrebleu {t_theirs:.2f}, ours {t_ours:.3f})")


if __name__ == "__main__":
    main()
