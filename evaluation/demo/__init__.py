"""The shipped demo: a whole campaign on a subset of the Cranfield collection.

What ships here (cut by ``build_demo.py``, which says how): 25 Cranfield queries as topics, five
retrieval systems' runs over the 1,400 documents cut to their top 20 per topic, the official qrels
of those topics (``reference.qrels``) and only the documents a run or those qrels name.
``simulate.py`` is the simulated crowd that ``manage.py load_demo`` records for most of the pool.

Provenance and terms: Cranfield 1400 (Cleverdon 1967), as distributed by the Glasgow IR group
(http://ir.dcs.gla.ac.uk/resources/test_collections/cran/) and copied byte for byte into the
project's ../shared/data/cranfield (its PROVENANCE.md names the copy it came from). No licence is
stated for the collection by its distributors; it is a classic research test collection, and only
this small subset is redistributed with the code, under those same unstated terms (not re-licensed
by this project's Apache-2.0). The runs are this project's own output; the qrels are Cranfield's
judgements with codes 1–4 read as relevant (1) and −1 as judged not relevant (0).
"""

from __future__ import annotations

import json
from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
DEMO_PASSWORD = "cranfield-demo"
DEMO_RESEARCHER = "researcher"
DEMO_ANNOTATORS = ("annotator1", "annotator2", "annotator3")
DEMO_PROJECT_NAME = "Cranfield demo: aerodynamics relevance"
DEMO_POOL_DEPTH = 10
DEMO_ASSIGNMENTS_PER_TASK = 3
# The simulated crowd judges this share of the pool, the best-ranked tasks first (the order the
# assignment engine serves them); the rest is left for the demo's human annotators.
DEMO_SIMULATED_SHARE = 0.85
DEMO_SIMULATION_SEED = 1967


def demo_topics() -> list[dict]:
    return [json.loads(line) for line in (DEMO_DIR / "topics.jsonl").read_text().splitlines() if line]


def demo_documents() -> list[dict]:
    return [json.loads(line) for line in (DEMO_DIR / "documents.jsonl").read_text().splitlines() if line]


def demo_runs() -> list[str]:
    """The runs' TREC texts, one per system, in file-name order."""
    return [path.read_text() for path in sorted(DEMO_DIR.glob("*.run"))]


def demo_reference_qrels() -> dict[str, dict[str, int]]:
    """Cranfield's official qrels for the demo's topics, ``{topic: {document: 0 or 1}}``."""
    qrels: dict[str, dict[str, int]] = {}
    for line in (DEMO_DIR / "reference.qrels").read_text().splitlines():
        if line.strip():
            topic, _, document, relevance = line.split()
            qrels.setdefault(topic, {})[document] = int(relevance)
    return qrels
