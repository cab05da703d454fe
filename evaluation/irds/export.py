"""A project written out as files ir_datasets and the TREC tools read, in one ZIP:

- ``queries.tsv`` — ``query_id<TAB>text`` (ir_datasets' ``TsvQueries``), the topics' titles;
- ``topics.trec`` — the topics in TREC's ``<top>`` layout (ir_datasets' ``TrecQueries``, trec_eval's
  users' topic readers), with title, description and an empty narrative;
- ``docs.jsonl`` — one ``{"doc_id", "title", "text"}`` a line (ir_datasets' ``JsonlDocs``);
- ``runs/<tag>.run`` — each run in TREC's format (``qid Q0 docno rank score tag``: trec_eval,
  ir_datasets' ``TrecScoredDocs``);
- ``qrels/snapshot-v<N>.qrels`` — every ground-truth snapshot's labels as TREC qrels, and
  ``qrels/external-<name>.qrels`` every external qrels the project holds and ``qrels/prior-<name>.qrels``
  every set of prior judgements (``TrecQrels``, trec_eval);
- ``metadata.json`` — what the project is, each file's role and size, each snapshot's method and
  signature, and how to register the folder with ir_datasets.

Every topic and document line carries no tab or line break of its own (both become spaces in the TSV;
the JSON escapes them), so each reader splits them as written.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterable, Iterator
from typing import IO

from django.utils import timezone

from annotation.models import Project
from evaluation.collection.runs import run_file
from evaluation.ground_truth.downloads import qrels_text
from evaluation.metrics.trec.files import write_qrels
from evaluation.models import PriorQrels

FORMAT = "cranfield-ir-datasets-export"
FORMAT_VERSION = 1
SAFE_NAME = re.compile(r"[A-Za-z0-9][\w.+-]*")


def one_line(text: str) -> str:
    return " ".join(text.split())


def query_lines(project: Project) -> Iterator[str]:
    for tid, title in project.topics.order_by("id").values_list("external_id", "title"):
        yield f"{tid}\t{one_line(title)}\n"


def trec_topic_lines(project: Project) -> Iterator[str]:
    for tid, title, description in project.topics.order_by("id").values_list(
        "external_id", "title", "description"
    ):
        yield (
            f"<top>\n<num> Number: {tid}\n<title> {one_line(title)}\n\n"
            f"<desc> Description:\n{description.strip()}\n\n<narr> Narrative:\n\n</top>\n\n"
        )


def document_lines(project: Project) -> Iterator[str]:
    rows = project.documents.order_by("id").values_list("external_id", "title", "text")
    for did, title, text in rows.iterator(chunk_size=2000):
        yield json.dumps({"doc_id": did, "title": title, "text": text}, ensure_ascii=False) + "\n"


def prior_set_qrels(prior: PriorQrels) -> dict[str, dict[str, int]]:
    """A prior set as ``{topic: {document: relevance}}``."""
    qrels: dict[str, dict[str, int]] = {}
    rows = prior.judgements.values_list("topic__external_id", "document__external_id", "relevance")
    for topic, document, relevance in rows.iterator(chunk_size=5000):
        qrels.setdefault(topic, {})[document] = relevance
    return qrels


def file_name(prefix: str, name: str, number: int, suffix: str) -> str:
    """``prefix/name.suffix`` when the name is safe as a file name, else ``prefix/<number>.suffix``."""
    stem = name if SAFE_NAME.fullmatch(name) else f"{number:04d}"
    return f"{prefix}/{stem}{suffix}"


class Writer:
    """The ZIP being written, with each file's size for the metadata."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.files: dict[str, dict] = {}

    def write(self, name: str, role: str, lines: Iterable[str]) -> None:
        size = 0
        with self.archive.open(name, "w", force_zip64=True) as handle:
            for line in lines:
                data = line.encode()
                handle.write(data)
                size += len(data)
        self.files[name] = {"role": role, "bytes": size}


def write_export(project: Project, out: IO[bytes]) -> dict:
    """Write the project's files (the module's docstring lists them) as a ZIP to ``out``; return the
    metadata written as ``metadata.json``."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        writer = Writer(archive)
        writer.write(
            "queries.tsv", "queries: query_id TAB text (ir_datasets TsvQueries)", query_lines(project)
        )
        writer.write(
            "topics.trec",
            "topics in TREC's <top> layout (ir_datasets TrecQueries)",
            trec_topic_lines(project),
        )
        writer.write(
            "docs.jsonl", "documents: doc_id, title, text (ir_datasets JsonlDocs)", document_lines(project)
        )
        runs = []
        for number, run in enumerate(project.runs.order_by("id"), start=1):
            name = file_name("runs", run.tag, number, ".run")
            writer.write(
                name, "a run in TREC format (trec_eval; ir_datasets TrecScoredDocs)", [run_file(run)]
            )
            runs.append({"tag": run.tag, "file": name, "withdrawn": run.withdrawn_at is not None})
        qrels = []
        for snapshot in project.snapshots.order_by("version"):
            name = f"qrels/snapshot-v{snapshot.version}.qrels"
            writer.write(name, "a ground-truth snapshot as TREC qrels", [qrels_text(snapshot)])
            qrels.append(
                {
                    "file": name,
                    "snapshot_version": snapshot.version,
                    "method": snapshot.method,
                    "signature": snapshot.signature,
                    "created_at": snapshot.created_at.isoformat(),
                }
            )
        for number, external in enumerate(project.external_qrels.order_by("name"), start=1):
            name = file_name("qrels", f"external-{external.name}", number, ".qrels")
            text = io.StringIO()
            write_qrels(external.judgements, text)
            writer.write(name, "external qrels as imported, TREC qrels", [text.getvalue()])
            qrels.append({"file": name, "external_qrels": external.name})
        for number, prior in enumerate(project.prior_qrels.order_by("name"), start=1):
            name = file_name("qrels", f"prior-{prior.name}", number, ".qrels")
            text = io.StringIO()
            write_qrels(prior_set_qrels(prior), text)
            writer.write(name, "prior judgements as imported, TREC qrels", [text.getvalue()])
            qrels.append(
                {
                    "file": name,
                    "prior_qrels": prior.name,
                    "source": prior.source,
                    "date": prior.judged_on.isoformat() if prior.judged_on else None,
                    "assessor": prior.assessor,
                }
            )
        metadata = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "exported_at": timezone.now().isoformat(),
            "project": {"id": project.pk, "name": project.name, "task_type": project.task_type},
            "counts": {
                "topics": project.topics.count(),
                "documents": project.documents.count(),
                "runs": len(runs),
                "qrels": len(qrels),
            },
            "runs": runs,
            "qrels": qrels,
            "files": writer.files,
            "ir_datasets": {
                "docs": "JsonlDocs(File('docs.jsonl'), doc_cls=a NamedTuple of doc_id, title, text)",
                "queries": "TsvQueries(File('queries.tsv'))",
                "qrels": "TrecQrels(File('qrels/<file>'), {})",
                "scoreddocs": "TrecScoredDocs(File('runs/<file>'))",
            },
        }
        archive.writestr("metadata.json", json.dumps(metadata, ensure_ascii=False, indent=1, sort_keys=True))
    return metadata
