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


def bm25_run(queries, docs, field_of, k1=1.2, b=0.75):
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
        run[qid] = dict(sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:RUN_DEPTH])
    return run


def main() -> None:
    docs = parse_smart((SOURCE / "cran.all.1400").read_text())
    queries = parse_smart((SOURCE / "cran.qry").read_text())
    relevant = defaultdict(set)
    for line in (SOURCE / "cranqrel").read_text().split("\n"):
        if line.strip():
            qid, docid, code = line.split()
            if int(code) > 0:
                relevant[qid].add(docid)
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
    with open(HERE / "topics.jsonl", "w") as out:
        for pos in chosen:
            title = topic_text[pos]
            out.write(
                json.dumps(
                    {
                        "id": pos,
                        "title": title,
                        "description": f"Cranfield query .I {queries[int(pos) - 1]['id']}",
                    }
                )
                + "\n"
            )
    with open(HERE / "documents.jsonl", "w") as out:
        for docid in sorted(keep, key=int):
            d = by_id[docid]
            out.write(
                json.dumps(
                    {"id": docid, "title": " ".join(d.get("T", "").split()), "text": d.get("W", "").strip()}
                )
                + "\n"
            )
    for tag, run in runs.items():
        with open(HERE / f"{tag}.run", "w") as out:
            for qid in chosen:
                for rank, (docid, score) in enumerate(run[qid].items(), start=1):
                    out.write(f"{qid} Q0 {docid} {rank} {score} {tag}\n")
    with open(HERE / "reference.qrels", "w") as out:
        for qid in chosen:
            for docid in sorted(keep, key=int):
                if any(docid in run[qid] for run in runs.values()) or docid in relevant[qid]:
                    out.write(f"{qid} 0 {docid} {int(docid in relevant[qid])}\n")
    print(f"{len(chosen)} topics, {len(keep)} documents, runs: {', '.join(runs)}")


if __name__ == "__main__":
    main()
