"""Datasets registered with ir_datasets from local files, so tests read through ir_datasets itself
without a network: the shipped demo subset of Cranfield (``evaluation/demo``: topics, documents, the
official qrels of its topics, a BM25 run as scoreddocs), and small hand-made ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from evaluation.demo import DEMO_DIR, demo_documents, demo_topics

DEMO_DATASET = "cranfield-demo-subset"
DEMO_RUN = "bm25-fulltext"


class TitledDoc(NamedTuple):
    doc_id: str
    title: str
    text: str


class DescribedQuery(NamedTuple):
    query_id: str
    text: str
    description: str


def register(
    name: str,
    folder: Path,
    *,
    docs: list[dict],
    queries: list[tuple[str, ...]],
    qrels: str = "",
    scoreddocs: str = "",
) -> str:
    """Write the files under ``folder`` and register them as ``name`` (once per process): documents
    as JSON lines (doc_id, title, text), queries as TSV (with a description column when the tuples
    have three values), qrels and scoreddocs in TREC's formats. Returns the name."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import GenericQuery, JsonlDocs, TrecQrels, TrecScoredDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    if name in ir_datasets.registry._registered:
        return name
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "docs.jsonl", "w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps(doc, ensure_ascii=False) + "\n")
    (folder / "queries.tsv").write_text("".join("\t".join(q) + "\n" for q in queries), encoding="utf-8")
    query_cls = DescribedQuery if queries and len(queries[0]) == 3 else GenericQuery
    parts: list[Any] = [
        JsonlDocs(
            LocalDownload(folder / "docs.jsonl"),
            doc_cls=TitledDoc,
            mapping={field: field for field in TitledDoc._fields},
            docstore_path=str(folder / "docstore"),
        ),
        TsvQueries(LocalDownload(folder / "queries.tsv"), query_cls=query_cls),
    ]
    if qrels:
        (folder / "qrels.txt").write_text(qrels, encoding="utf-8")
        parts.append(TrecQrels(LocalDownload(folder / "qrels.txt"), {}))
    if scoreddocs:
        (folder / "run.txt").write_text(scoreddocs, encoding="utf-8")
        parts.append(TrecScoredDocs(LocalDownload(folder / "run.txt")))
    ir_datasets.registry.register(name, Dataset(*parts))
    return name


def register_demo_subset(folder: Path) -> str:
    """The shipped Cranfield demo subset as the ir_datasets dataset ``cranfield-demo-subset``."""
    return register(
        DEMO_DATASET,
        folder,
        docs=[{"doc_id": d["id"], "title": d["title"], "text": d["text"]} for d in demo_documents()],
        queries=[(t["id"], t["title"], t["description"]) for t in demo_topics()],
        qrels=(DEMO_DIR / "reference.qrels").read_text(),
        scoreddocs=(DEMO_DIR / f"{DEMO_RUN}.run").read_text(),
    )
