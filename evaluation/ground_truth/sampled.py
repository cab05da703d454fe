"""A stratified sampled pool's ground truth as the sample qrels NIST's ``sample_eval.pl`` reads
(``topic 0 docno stratum rel``; ``evaluation.metrics.trec.sample_files``), for downloads and for the
inferred measures (``scoring.inferred``)."""

from __future__ import annotations

import io

from evaluation.ground_truth.downloads import snapshot_qrels
from evaluation.metrics.trec.sample_files import NOT_SAMPLED, SampleJudgement, SampleQrels
from evaluation.models import GroundTruthSnapshot


def sample_qrels(snapshot: GroundTruthSnapshot) -> SampleQrels:
    """Every member of the project's sampled pool with its stratum, and as rel the snapshot's label
    of a drawn document. A drawn document the snapshot has no label for yet is written -1, as if
    not drawn: the estimators then infer from the judged share of its stratum (judgements missing at
    random), rather than count it not relevant. Empty when the project has no sampled pool."""
    labels = snapshot_qrels(snapshot)
    qrels: SampleQrels = {}
    rows = snapshot.project.sampled_pool.values_list("topic_id", "document_id", "stratum", "sampled")
    for topic, docno, stratum, sampled in rows.iterator(chunk_size=5000):
        label = labels.get(topic, {}).get(docno) if sampled else None
        rel = NOT_SAMPLED if label is None or label < 0 else label
        qrels.setdefault(topic, {})[docno] = SampleJudgement(stratum, rel)
    return qrels


def sample_qrels_text(qrels: SampleQrels) -> str:
    """Sample qrels as text, sorted by topic, stratum, docno."""
    out = io.StringIO()
    for topic in sorted(qrels):
        for docno, judgement in sorted(qrels[topic].items(), key=lambda item: (item[1].stratum, item[0])):
            out.write(f"{topic} 0 {docno} {judgement.stratum} {judgement.rel}\n")
    return out.getvalue()
