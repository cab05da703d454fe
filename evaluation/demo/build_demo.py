"""Rebuild the shipped demo subset from the Cranfield collection in ../shared/data/cranfield.

Not used at run time: the demo loads the files this script wrote, so it works where ../shared is
absent. Rerun it (``python evaluation/demo/build_demo.py``, with the dev extra installed for
``rank_bm25``) only to change the subset; it writes the same files every time.

What it does:

1. Reads the 1,400 documents (title and abstract), the 225 queries and the official qrels. A
   query's id is its position in cran.qry, which is what cranqrel's query ids mean (PROVENANCE.md).
2. Picks the topics: of the queries with between 8 and 20 relevant documents (76 of them), every
   third in query order, 25 in all, so the topics spread over the whole query set.
3. Runs five retrieval systems over all 1,400 documents for those topics (``SYSTEMS``): BM25 from
   the ``rank_bm25`` package with three settings, TF-IDF cosine, and a deliberately weak system
   that weights the query's words by how common they are (idf upside down).
4. Writes each run cut to its top ``RUN_DEPTH`` per topic (``<tag>.run``), the topics, the official
   qrels of those topics as ``reference.qrels`` (codes 1–4 → 1, −1 → 0: trec_eval would read a
   negative value as "not judged"), and only the documents that a run or those qrels name, each as
   its title and abstract.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import numpy

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent.parent / "shared" / "data" / "cranfield"
TOKEN = re.compile(r"[a-z0-9]+")
RUN_DEPTH = 20
TOPIC_COUNT = 25
RELEVANT_PER_TOPIC = (8, 20)
# Function words of the queries ("what … of … in … have been …"): left in, they add the same small
# score to nearly every document and only reorder ties.
STOPWORD_TEXT = """a an and are as at be been by can do does for from has have how in is it its of on or
that the there these this to was what when which with"""
STOPWORDS = frozenset(STOPWORD_TEXT.split())

Run = dict[str, dict[str, float]]  # topic -> document -> score, best first


def parse_smart(text: str) -> list[dict[str, str]]:
    records, field = [], None
    for line in text.splitlines():
        if line.startswith(".I "):
            records.append({"id": line[3:].strip()})
            field = None
        elif len(line) == 2 and line.startswith("."):
            field = line[1]
            records[-1][field] = ""
        elif field:
            records[-1][field] += line + "\n"
    return records


def words(text: str) -> list[str]:
    return [word for word in TOKEN.findall(text.lower()) if word not in STOPWORDS]


def full_text(doc: Mapping[str, str]) -> str:
    return doc.get("T", "") + " " + doc.get("W", "")


def title_only(doc: Mapping[str, str]) -> str:
    return doc.get("T", "")


def best(ids: list[str], scores: Iterable[float], depth: int) -> dict[str, float]:
    """The ``depth`` best positive scores, in trec_eval's order (score, then docno, both descending)."""
    scored = [(round(float(score), 4), docid) for docid, score in zip(ids, scores, strict=True) if score > 0]
    return {docid: score for score, docid in sorted(scored, reverse=True)[:depth]}


def bm25_run(queries, docs, field_of, k1=1.2, b=0.75, depth=RUN_DEPTH) -> Run:
    """BM25 (``rank_bm25.BM25Okapi``: Robertson's idf, floored for words in most documents)."""
    from rank_bm25 import BM25Okapi  # a build-time tool (the dev extra), not a run-time dependency

    ids = [d["id"] for d in docs]
    index = BM25Okapi([words(field_of(d)) for d in docs], k1=k1, b=b)
    # With b = 1 an empty field scores 0 / 0 (NaN); ``best`` leaves NaN out as it does zero.
    with numpy.errstate(invalid="ignore"):
        return {qid: best(ids, index.get_scores(words(text)), depth) for qid, text in queries.items()}


def tfidf_run(queries, docs, field_of, depth=RUN_DEPTH) -> Run:
    """Cosine between (1 + log tf) · log(N / df) vectors of query and document (SMART's ltc.ltc)."""
    ids = [d["id"] for d in docs]
    counts = [Counter(words(field_of(d))) for d in docs]
    df = Counter(word for c in counts for word in c)

    def vector(c: Counter) -> dict[str, float]:
        weights = {w: (1 + math.log(f)) * math.log(len(docs) / df[w]) for w, f in c.items() if w in df}
        norm = math.sqrt(sum(v * v for v in weights.values())) or 1.0
        return {w: v / norm for w, v in weights.items()}

    doc_vectors = [vector(c) for c in counts]
    run = {}
    for qid, text in queries.items():
        query = vector(Counter(words(text)))
        scores = (sum(v * dv.get(w, 0.0) for w, v in query.items()) for dv in doc_vectors)
        run[qid] = best(ids, scores, depth)
    return run


def common_words_run(queries, docs, field_of, depth=RUN_DEPTH) -> Run:
    """Deliberately weak: idf turned upside down. A document scores the number of documents that
    contain each query word it has, so the words that tell documents apart least count most."""
    ids = [d["id"] for d in docs]
    texts = [set(words(field_of(d))) for d in docs]
    df = Counter(word for t in texts for word in t)
    run = {}
    for qid, text in queries.items():
        query = set(words(text))
        run[qid] = best(ids, (sum(df[w] for w in query & t) for t in texts), depth)
    return run


# tag -> how the run is made from (queries, docs); good to weak, each run's tag is its file name.
SYSTEMS: dict[str, Callable[[dict[str, str], list[dict[str, str]]], Run]] = {
    "bm25-fulltext": lambda q, d: bm25_run(q, d, full_text, k1=1.2, b=0.75),
    "bm25-fulltext-k0.6-b0.3": lambda q, d: bm25_run(q, d, full_text, k1=0.6, b=0.3),
    "bm25-title": lambda q, d: bm25_run(q, d, title_only, k1=1.2, b=0.75),
    "tfidf-cosine": lambda q, d: tfidf_run(q, d, full_text),
    "weak-common-words": lambda q, d: common_words_run(q, d, full_text),
}


def read_qrels() -> dict[str, dict[str, int]]:
    """Cranfield's qrels as binary relevance per query position: codes 1–4 → 1, −1 → 0."""
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (SOURCE / "cranqrel").read_text().split("\n"):
        if line.strip():
            qid, docid, code = line.split()
            qrels[qid][docid] = int(int(code) > 0)
    return qrels


def choose_topics(qrels: Mapping[str, Mapping[str, int]], query_count: int) -> list[str]:
    low, high = RELEVANT_PER_TOPIC
    eligible = [
        str(pos) for pos in range(1, query_count + 1) if low <= sum(qrels.get(str(pos), {}).values()) <= high
    ]
    return eligible[::3][:TOPIC_COUNT]


def write_jsonl(name: str, records: Iterable[dict]) -> None:
    with open(HERE / name, "w") as out:
        for record in records:
            out.write(json.dumps(record) + "\n")


def write_topics(chosen: list[str], queries: list[dict[str, str]], topic_text: dict[str, str]) -> None:
    write_jsonl(
        "topics.jsonl",
        (
            {
                "id": pos,
                "title": topic_text[pos],
                "description": f"Cranfield query .I {queries[int(pos) - 1]['id']}",
            }
            for pos in chosen
        ),
    )


def abstract(doc: Mapping[str, str]) -> str:
    """The abstract on one line, without the title that SMART's ``.W`` repeats at its start (the
    judging page shows the title above it; the line breaks are only the 1960s card layout)."""
    title, text = " ".join(doc.get("T", "").split()), " ".join(doc.get("W", "").split())
    rest = text.removeprefix(title).strip() if title else text
    return rest or text


def write_documents(keep: set[str], docs: list[dict[str, str]]) -> None:
    by_id = {d["id"]: d for d in docs}
    write_jsonl(
        "documents.jsonl",
        (
            {
                "id": docid,
                "title": " ".join(by_id[docid].get("T", "").split()),
                "text": abstract(by_id[docid]),
            }
            for docid in sorted(keep, key=int)
        ),
    )


def write_runs(runs: dict[str, Run], chosen: list[str]) -> None:
    for stale in HERE.glob("*.run"):
        stale.unlink()
    for tag, run in runs.items():
        with open(HERE / f"{tag}.run", "w") as out:
            for qid in chosen:
                for rank, (docid, score) in enumerate(run[qid].items(), start=1):
                    out.write(f"{qid} Q0 {docid} {rank} {score} {tag}\n")


def write_reference_qrels(qrels: Mapping[str, Mapping[str, int]], chosen: list[str]) -> None:
    with open(HERE / "reference.qrels", "w") as out:
        for qid in chosen:
            for docid in sorted(qrels[qid], key=int):
                out.write(f"{qid} 0 {docid} {qrels[qid][docid]}\n")


def main() -> None:
    docs = parse_smart((SOURCE / "cran.all.1400").read_text())
    queries = parse_smart((SOURCE / "cran.qry").read_text())
    qrels = read_qrels()
    chosen = choose_topics(qrels, len(queries))
    topic_text = {pos: " ".join(queries[int(pos) - 1]["W"].split()) for pos in chosen}
    runs = {tag: system(topic_text, docs) for tag, system in SYSTEMS.items()}
    keep = set().union(*(qrels[q].keys() for q in chosen))
    for run in runs.values():
        for scores in run.values():
            keep |= scores.keys()
    write_topics(chosen, queries, topic_text)
    write_documents(keep, docs)
    write_runs(runs, chosen)
    write_reference_qrels(qrels, chosen)
    relevant = sum(sum(qrels[q].values()) for q in chosen)
    print(f"{len(chosen)} topics, {len(keep)} documents, {relevant} relevant, runs: {', '.join(runs)}")


if __name__ == "__main__":
    main()
