"""Rebuild the shipped demo subset from the Cranfield collection in ../shared/data/cranfield.

Not used at run time: the demo loads the files this script wrote, so it works where ../shared is
absent. Rerun it (``python evaluation/demo/build_demo.py``) only to change the subset.

What it picks: the first five queries (by position in cran.qry, which is what cranqrel's query ids
mean) that have between 4 and 12 relevant documents; two toy runs ranked by BM25 over the whole
collection (full text, and titles only), cut to the top 10 per topic; and every document that
appears in a run or is relevant. Cranfield's own qrels (codes 1–4 relevant, −1 not relevant)
are shipped as ``reference.qrels`` so the demo's crowd ground truth can be compared with them.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent.parent / "shared" / "data" / "cranfield"
TOKEN = re.compile(r"[a-z0-9]+")
RUN_DEPTH = 10


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


def bm25_run(queries, docs, field_of, k1=1.2, b=0.75, depth=RUN_DEPTH):
    tokens = {d["id"]: TOKEN.findall(field_of(d).lower()) for d in docs}
    avg_len = sum(len(t) for t in tokens.values()) / len(tokens)
    df = Counter(term for t in tokens.values() for term in set(t))
    tf = {docid: Counter(t) for docid, t in tokens.items()}
    run = {}
    for qid, text in queries.items():
        terms = set(TOKEN.findall(text.lower()))
        scores = {}
        for docid, counts in tf.items():
            score = 0.0
            for term in terms & counts.keys():
                idf = math.log(1 + (len(docs) - df[term] + 0.5) / (df[term] + 0.5))
                f = counts[term]
                score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(tokens[docid]) / avg_len))
            if score > 0:
                scores[docid] = round(score, 4)
        run[qid] = dict(sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:depth])
    return run


def read_relevant() -> dict[str, set[str]]:
    """Cranfield's qrels: the documents judged relevant (codes 1-4) per query position."""
    relevant: dict[str, set[str]] = defaultdict(set)
    for line in (SOURCE / "cranqrel").read_text().split("\n"):
        if line.strip():
            qid, docid, code = line.split()
            if int(code) > 0:
                relevant[qid].add(docid)
    return relevant


def write_jsonl(name: str, records) -> None:
    with open(HERE / name, "w") as out:
        for record in records:
            out.write(json.dumps(record) + "\n")


def main() -> None:
    docs = parse_smart((SOURCE / "cran.all.1400").read_text())
    queries = parse_smart((SOURCE / "cran.qry").read_text())
    relevant = read_relevant()
    chosen = [str(pos) for pos in range(1, len(queries) + 1) if 4 <= len(relevant[str(pos)]) <= 12][:5]
    topic_text = {pos: " ".join(queries[int(pos) - 1]["W"].split()) for pos in chosen}
    runs = {
        "bm25-fulltext": bm25_run(topic_text, docs, lambda d: d.get("T", "") + " " + d.get("W", "")),
        "bm25-title": bm25_run(topic_text, docs, lambda d: d.get("T", "")),
    }
    keep = set().union(*(relevant[q] for q in chosen))
    for run in runs.values():
        for scores in run.values():
            keep |= scores.keys()
    by_id = {d["id"]: d for d in docs}
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
    write_jsonl(
        "documents.jsonl",
        (
            {
                "id": docid,
                "title": " ".join(by_id[docid].get("T", "").split()),
                "text": by_id[docid].get("W", "").strip(),
            }
            for docid in sorted(keep, key=int)
        ),
    )
    for tag, run in runs.items():
        with open(HERE / f"{tag}.run", "w") as out:
            for qid in chosen:
                for rank, (docid, score) in enumerate(run[qid].items(), start=1):
                    out.write(f"{qid} Q0 {docid} {rank} {score} {tag}\n")
    with open(HERE / "reference.qrels", "w") as out:
        for qid in chosen:
            pooled = set().union(*(run[qid] for run in runs.values()))
            for docid in sorted(keep, key=int):
                if docid in pooled or docid in relevant[qid]:
                    out.write(f"{qid} 0 {docid} {int(docid in relevant[qid])}\n")
    print(f"{len(chosen)} topics, {len(keep)} documents, runs: {', '.join(runs)}")


if __name__ == "__main__":
    main()
