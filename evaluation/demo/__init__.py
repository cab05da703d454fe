"""The shipped demo: a small subset of the Cranfield collection (see build_demo.py for how it was cut)."""

from __future__ import annotations

import json
from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
DEMO_PASSWORD = "cranfield-demo"
DEMO_RESEARCHER = "researcher"
DEMO_ANNOTATORS = ("annotator1", "annotator2", "annotator3")
DEMO_PROJECT_NAME = "Cranfield demo: aerodynamics relevance"
DEMO_POOL_DEPTH = 5


def demo_topics() -> list[dict]:
    return [json.loads(line) for line in (DEMO_DIR / "topics.jsonl").read_text().splitlines() if line]


def demo_documents() -> list[dict]:
    return [json.loads(line) for line in (DEMO_DIR / "documents.jsonl").read_text().splitlines() if line]


def demo_runs() -> list[str]:
    return [path.read_text() for path in sorted(DEMO_DIR.glob("*.run"))]
