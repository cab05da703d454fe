"""Every text output scored against its input's references, per output and per system (pure).

An *output* is one system's text for one input (a summary of a document, a translation of a
sentence, a transcript of a recording); its input has one or more reference texts. Each output gets

- ROUGE-1, -2, -L, -Lsum, -W and -SU4 F-measures (``metrics.rouge``: rouge-score's tokeniser, Porter
  stemming, and the chosen multi-reference mode: ``max``, rouge-score's best reference; ``pooled``,
  ROUGE-1.5.5's; ``jackknife``);
- sentence BLEU (effective order) and chrF against all its references (sacrebleu), and TER
  (``metrics.text.ter``: sacrebleu's TER computed faster, equal to it, with its signature), 0–100;
- WER against its closest reference (``wer.closest_reference``: the lowest WER over the
  references, the first on a tie, as a transcript is judged against the nearest acceptable one;
  ``cranfield wer`` applies the same rule).

A system's score on a metric is the mean over its outputs (each input weighs the same, as in the
summary-level correlations of ``meta_evaluation``). Every metric keeps the signature of how it was
computed, so a stored number says what produced it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

import sacrebleu

from evaluation.metrics.rouge.scores import RougeScorer
from evaluation.metrics.text.ter import sentence_ter
from evaluation.metrics.text.wer import closest_reference

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW", "rougeSU4")
METRICS = (*ROUGE_TYPES, "bleu", "chrf", "ter", "wer")
# Lower is better for these; a correlation with human quality is expected to be negative.
LOWER_IS_BETTER = frozenset({"ter", "wer"})


@dataclass(frozen=True)
class Output:
    system: str
    input: str
    text: str


@dataclass
class TextScores:
    """``per_output[(system, input)][metric]``, ``per_system[system][metric]`` (means), the
    ``signatures`` of every metric, the outputs that could not be scored (their input has no
    reference) in ``unscored``, and how many references the scored outputs' inputs had."""

    per_output: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    per_system: dict[str, dict[str, float]] = field(default_factory=dict)
    signatures: dict[str, str] = field(default_factory=dict)
    unscored: list[tuple[str, str]] = field(default_factory=list)
    reference_counts: set[int] = field(default_factory=set)


def _sacrebleu_metrics() -> dict[str, Any]:
    # BLEU as ``bleu.sentence_bleu`` computes it (13a, exp smoothing, effective order), built once.
    # TER's scores are ``ter.sentence_ter``'s (sacrebleu's, faster); sacrebleu's object names them.
    return {
        "bleu": sacrebleu.BLEU(tokenize="13a", smooth_method="exp", effective_order=True),
        "chrf": sacrebleu.CHRF(),
        "ter": sacrebleu.TER(),
    }


def signatures(
    rouge_multi_ref: str = "max",
    stem: bool = True,
    references_per_input: set[int] | None = None,
    metrics: Sequence[str] = METRICS,
) -> dict[str, str]:
    """The signature of each of ``metrics`` with these settings; sacrebleu's say how many references
    each input had (``nrefs:4``, or ``nrefs:var`` when it varies)."""
    rouge = RougeScorer(ROUGE_TYPES, stem=stem, multi_ref=rouge_multi_ref).signature
    counts = references_per_input or {1}
    nrefs = f"nrefs:{next(iter(counts))}" if len(counts) == 1 else "nrefs:var"
    named = {name: f"{name}|{rouge}" for name in ROUGE_TYPES}
    for name, metric in _sacrebleu_metrics().items():
        metric.sentence_score("a", ["a"])  # sacrebleu names a metric's settings once it has scored
        named[name] = re.sub(r"nrefs:\w+", nrefs, str(metric.get_signature()))
    named["wer"] = f"wer|jiwer|closest-reference|version:{version('jiwer')}"
    return {name: named[name] for name in metrics}


def check_metrics(metrics: Sequence[str]) -> list[str]:
    """``metrics`` in the module's order, each known and given once; ValueError names the first bad one."""
    unknown = [name for name in metrics if name not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}: choose from {', '.join(METRICS)}")
    if not metrics:
        raise ValueError("choose at least one metric")
    return [name for name in METRICS if name in metrics]


def score_outputs(
    outputs: Iterable[Output],
    references: Mapping[str, Sequence[str]],
    *,
    rouge_multi_ref: str = "max",
    stem: bool = True,
    metrics: Sequence[str] = METRICS,
) -> TextScores:
    """Score every output against ``references[output.input]`` with ``metrics`` (all by default;
    see the module docstring). TER is still the slowest (its shift search), though tens of times
    faster than sacrebleu's (``metrics.text.ter``)."""
    metrics = check_metrics(metrics)
    rouge_types = [name for name in ROUGE_TYPES if name in metrics]
    rouge = RougeScorer(rouge_types, stem=stem, multi_ref=rouge_multi_ref) if rouge_types else None
    sacrebleu_metrics = {
        name: m for name, m in _sacrebleu_metrics().items() if name in metrics and name != "ter"
    }
    result = TextScores()
    counts = result.reference_counts
    by_system: dict[str, list[dict[str, float]]] = defaultdict(list)
    for output in outputs:
        texts = [text for text in references.get(output.input, ()) if text.strip()]
        key = (output.system, output.input)
        if key in result.per_output:
            raise ValueError(f"system {output.system!r} has two outputs for input {output.input!r}")
        if not texts:
            result.unscored.append(key)
            continue
        counts.add(len(texts))
        values = {name: s.fmeasure for name, s in rouge.score(output.text, texts).items()} if rouge else {}
        for name, metric in sacrebleu_metrics.items():
            values[name] = metric.sentence_score(output.text, texts).score
        if "ter" in metrics:
            values["ter"] = sentence_ter(output.text, texts)
        if "wer" in metrics:
            values["wer"] = closest_reference(texts, output.text)[1]
        result.per_output[key] = values
        by_system[output.system].append(values)
    result.signatures = signatures(rouge_multi_ref, stem, counts, metrics)
    result.per_system = system_means(by_system, metrics)
    return result


def system_means(by_system: Mapping[str, Sequence[Mapping[str, float]]], metrics: Sequence[str]):
    """``{system: {metric: mean over its outputs}}`` from each system's per-output scores."""
    return {
        system: {name: sum(row[name] for row in rows) / len(rows) for name in metrics}
        for system, rows in by_system.items()
        if rows
    }
