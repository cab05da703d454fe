"""The files of a sampled pool: the sample qrels ``sample_eval.pl`` reads, and the list of sampled pairs
sent for judging. Errors name the file, line and field (``TrecFormatError``).

- sample qrels (NIST's ``sample_eval.pl``; Yilmaz, Kanoulas & Aslam 2008): ``topic iter docno stratum
  rel``, five whitespace-separated fields. Every pooled document is listed with its stratum; ``rel`` is
  its judgement (0 not relevant, > 0 the grade) when it was sampled, and ``-1`` when it is in the pool
  but was not sampled. A document absent from the file is outside the pool. The script reads the file
  as one stream of words taken five at a time, so a line of any other length would shift every later
  line: here it is an error. A skeleton written before judging holds ``?`` where a sampled pair's
  judgement goes; reading one back is an error naming the line.
- sampled pairs: ``topic docno stratum probability``, the pairs to judge with their inclusion
  probability, which must be in (0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import IO, NamedTuple

from evaluation.metrics.trec.files import Qrels, Source, TrecFormatError, _lines, _numbered_fields
from evaluation.metrics.trec.sampling import PoolMember

SAMPLE_QRELS_FIELDS = ("topic", "iter", "docno", "stratum", "rel")
SAMPLE_PAIRS_FIELDS = ("topic", "docno", "stratum", "probability")
NOT_SAMPLED = -1
NOT_JUDGED_YET = "?"


class SampleJudgement(NamedTuple):
    """A pooled document of the sample qrels: its stratum and its judgement (negative: not sampled)."""

    stratum: str
    rel: int


SampleQrels = dict[str, dict[str, SampleJudgement]]


class SampledPair(NamedTuple):
    topic: str
    docno: str
    stratum: str
    probability: float


def read_sample_qrels(source: Source, *, name: str | None = None) -> SampleQrels:
    """``{topic: {docno: SampleJudgement}}`` from a sample qrels file (the module's docstring)."""
    label, lines = _lines(source, name)
    qrels: SampleQrels = {}
    for number, fields in _numbered_fields(lines):
        if len(fields) != len(SAMPLE_QRELS_FIELDS):
            raise TrecFormatError(
                label,
                number,
                "line",
                f"expected 5 fields ({' '.join(SAMPLE_QRELS_FIELDS)}), found {len(fields)}",
            )
        topic, _, docno, stratum, rel_text = fields
        if rel_text == NOT_JUDGED_YET:
            raise TrecFormatError(
                label, number, "rel", f"{topic} {docno} was sampled but is not judged yet ('?')"
            )
        try:
            rel = int(rel_text)
        except ValueError:
            raise TrecFormatError(label, number, "rel", f"not an integer: {rel_text!r}") from None
        topic_qrels = qrels.setdefault(topic, {})
        if docno in topic_qrels:
            raise TrecFormatError(label, number, "docno", f"{docno!r} is listed twice for topic {topic!r}")
        topic_qrels[docno] = SampleJudgement(stratum, rel)
    return qrels


def write_sample_qrels(
    members: Iterable[PoolMember], handle: IO[str], judgements: Qrels | None = None
) -> None:
    """Write the sample qrels of a stratified pool: unsampled members with rel -1, sampled ones with
    their judgement from ``judgements`` (``{topic: {docno: rel}}``), or ``?`` when it is None (a
    skeleton to fill). Raises ValueError naming a sampled pair that ``judgements`` lacks or judges
    negative."""
    for member in members:
        if not member.sampled:
            rel = str(NOT_SAMPLED)
        elif judgements is None:
            rel = NOT_JUDGED_YET
        else:
            judged = judgements.get(member.topic, {}).get(member.docno)
            if judged is None:
                raise ValueError(f"the sampled pair {member.topic} {member.docno} has no judgement")
            if judged < 0:
                raise ValueError(f"the sampled pair {member.topic} {member.docno} is judged {judged}")
            rel = str(judged)
        handle.write(f"{member.topic} 0 {member.docno} {member.stratum} {rel}\n")


def write_sample_pairs(members: Iterable[PoolMember], handle: IO[str]) -> None:
    """Write the sampled members as ``topic docno stratum probability`` (the pairs to judge)."""
    for member in members:
        if member.sampled:
            handle.write(f"{member.topic} {member.docno} {member.stratum} {member.probability!r}\n")


def read_sample_pairs(source: Source, *, name: str | None = None) -> list[SampledPair]:
    """The sampled pairs of a file written by ``write_sample_pairs``; a probability outside (0, 1] or a
    pair listed twice is an error naming the line."""
    label, lines = _lines(source, name)
    pairs: list[SampledPair] = []
    seen: set[tuple[str, str]] = set()
    for number, fields in _numbered_fields(lines):
        if len(fields) != len(SAMPLE_PAIRS_FIELDS):
            raise TrecFormatError(
                label,
                number,
                "line",
                f"expected 4 fields ({' '.join(SAMPLE_PAIRS_FIELDS)}), found {len(fields)}",
            )
        topic, docno, stratum, probability_text = fields
        try:
            probability = float(probability_text)
        except ValueError:
            raise TrecFormatError(
                label, number, "probability", f"not a number: {probability_text!r}"
            ) from None
        if math.isnan(probability) or not 0 < probability <= 1:
            raise TrecFormatError(
                label,
                number,
                "probability",
                f"{probability_text} is outside (0, 1]: not an inclusion probability",
            )
        if (topic, docno) in seen:
            raise TrecFormatError(label, number, "docno", f"{docno!r} is listed twice for topic {topic!r}")
        seen.add((topic, docno))
        pairs.append(SampledPair(topic, docno, stratum, probability))
    return pairs
