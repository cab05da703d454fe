"""ir_datasets out: a project's topics, documents, runs and every snapshot's qrels, written as files
and read back by ir_datasets' own readers (registered as a dataset) and by ``cranfield trec-eval``,
whose numbers equal pytrec_eval's on what ir_datasets read."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from annotation.models import Project, Task
from evaluation.collection.external_qrels import import_external_qrels
from evaluation.collection.flow import import_collection
from evaluation.collection.runs import stored_run
from evaluation.demo import DEMO_DIR, demo_documents, demo_reference_qrels, demo_topics
from evaluation.irds.export import write_export
from evaluation.metrics.trec.files import write_qrels
from evaluation.models import GroundTruthSnapshot, SnapshotLabel

pytestmark = pytest.mark.django_db
RUNS = ("bm25-fulltext", "tfidf-cosine")


@pytest.fixture
def project(researcher) -> Project:
    """The demo subset with two runs pooled to depth 10, the official qrels as reference, and two
    snapshots: v1 labels the first half of the pool, v2 all of it (from the official qrels)."""
    project = Project.objects.create(name="Cranfield demo", owner=researcher)
    runs = [(DEMO_DIR / f"{tag}.run").read_text() for tag in RUNS]
    import_collection(project, topics=demo_topics(), documents=demo_documents(), runs=runs, pool_depth=10)
    official = demo_reference_qrels()
    out = io.StringIO()
    write_qrels(official, out)
    import_external_qrels(project, "cranfield-official", out.getvalue())
    tasks = list(project.tasks.filter(kind=Task.Kind.ITEM).select_related("topic", "document").order_by("id"))
    for version, share in ((1, 0.5), (2, 1.0)):
        snapshot = GroundTruthSnapshot.objects.create(
            project=project,
            version=version,
            method="majority",
            input_judgement_count=0,
            signature=f"test-v{version}",
        )
        SnapshotLabel.objects.bulk_create(
            SnapshotLabel(
                snapshot=snapshot,
                task=task,
                label=official.get(task.topic.external_id, {}).get(task.document.external_id, 0),
                confidence=1.0,
                judgement_count=3,
            )
            for task in tasks[: int(len(tasks) * share)]
        )
    return project


def exported(project: Project, folder: Path) -> dict:
    buffer = io.BytesIO()
    metadata = write_export(project, buffer)
    with zipfile.ZipFile(buffer) as archive:
        archive.extractall(folder)
        assert json.loads(archive.read("metadata.json")) == metadata
    return metadata


def read_back(folder: Path, name: str, qrels_file: str, run_file: str):
    """The exported folder registered with ir_datasets as ``name``, with one qrels file and one run."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import JsonlDocs, TrecQrels, TrecScoredDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    from tests.irds.local_datasets import TitledDoc

    ir_datasets.registry.register(
        name,
        Dataset(
            JsonlDocs(
                LocalDownload(folder / "docs.jsonl"),
                doc_cls=TitledDoc,
                mapping={f: f for f in TitledDoc._fields},
                docstore_path=str(folder / "docstore"),
            ),
            TsvQueries(LocalDownload(folder / "queries.tsv")),
            TrecQrels(LocalDownload(folder / qrels_file), {}),
            TrecScoredDocs(LocalDownload(folder / run_file)),
        ),
    )
    return ir_datasets.load(name)


def test_the_export_reads_back_through_ir_datasets_as_the_project_holds_it(project, tmp_path):
    metadata = exported(project, tmp_path)
    assert metadata["counts"] == {"topics": 25, "documents": 790, "runs": 2, "qrels": 3}
    assert [r["file"] for r in metadata["runs"]] == [f"runs/{tag}.run" for tag in RUNS]
    assert [q.get("snapshot_version") for q in metadata["qrels"]] == [1, 2, None]
    assert metadata["qrels"][1]["signature"] == "test-v2" and set(metadata["files"]) >= {
        "docs.jsonl",
        "queries.tsv",
    }
    dataset = read_back(
        tmp_path, f"export-{tmp_path.name}", "qrels/snapshot-v2.qrels", "runs/bm25-fulltext.run"
    )

    assert [(q.query_id, q.text) for q in dataset.queries_iter()] == [
        (t["id"], t["title"]) for t in demo_topics()
    ]
    by_id = {d["id"]: d for d in demo_documents()}
    assert [(d.doc_id, d.title, d.text) for d in dataset.docs_iter()] == [
        (i, by_id[i]["title"], by_id[i]["text"])
        for i in project.documents.order_by("id").values_list("external_id", flat=True)
    ]
    run: dict[str, dict[str, float]] = {}
    for scored in dataset.scoreddocs_iter():
        run.setdefault(scored.query_id, {})[scored.doc_id] = scored.score
    assert run == stored_run(project.runs.get(tag="bm25-fulltext").pk)
    qrels: dict[str, dict[str, int]] = {}
    for qrel in dataset.qrels_iter():
        qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    labels = SnapshotLabel.objects.filter(snapshot__version=2).values_list(
        "task__topic__external_id", "task__document__external_id", "label"
    )
    expected: dict[str, dict[str, int]] = {}
    for topic, document, label in labels:
        expected.setdefault(topic, {})[document] = label
    assert (
        qrels == expected
        and sum(map(len, qrels.values())) == project.tasks.filter(kind=Task.Kind.ITEM).count()
    )
    # v1 holds the first half; the external qrels come back as imported.
    half = (tmp_path / "qrels" / "snapshot-v1.qrels").read_text().splitlines()
    assert len(half) == project.tasks.filter(kind=Task.Kind.ITEM).count() // 2
    official = {}
    for line in (tmp_path / "qrels" / "external-cranfield-official.qrels").read_text().splitlines():
        topic, _, document, label = line.split()
        official.setdefault(topic, {})[document] = int(label)
    assert official == demo_reference_qrels()


def test_the_trec_topic_file_reads_back_through_ir_datasets(project, tmp_path):
    from ir_datasets.formats import TrecQueries
    from ir_datasets.util import LocalDownload

    exported(project, tmp_path)
    topics = list(TrecQueries(LocalDownload(tmp_path / "topics.trec")).queries_iter())
    assert [(t.query_id, t.title, t.description) for t in topics] == [
        (t["id"], t["title"], t["description"]) for t in demo_topics()
    ]


def test_cranfield_trec_eval_on_the_exported_files_equals_pytrec_eval_on_what_ir_datasets_read(
    project, tmp_path, capsys
):
    import pytrec_eval

    from cranfield.cli import main

    exported(project, tmp_path)
    for tag in RUNS:
        dataset = read_back(
            tmp_path,
            f"export-{tag}-{tmp_path.name}",
            "qrels/external-cranfield-official.qrels",
            f"runs/{tag}.run",
        )
        qrels: dict[str, dict[str, int]] = {}
        for qrel in dataset.qrels_iter():
            qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
        run: dict[str, dict[str, float]] = {}
        for scored in dataset.scoreddocs_iter():
            run.setdefault(scored.query_id, {})[scored.doc_id] = scored.score
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "ndcg"}).evaluate(run)
        capsys.readouterr()
        assert main(
            [
                "trec-eval",
                "-m",
                "map",
                "-m",
                "P.10",
                "-m",
                "ndcg",
                str(tmp_path / "qrels/external-cranfield-official.qrels"),
                str(tmp_path / f"runs/{tag}.run"),
            ]
        ) in (0, None)
        ours = {line.split()[0]: float(line.split()[2]) for line in capsys.readouterr().out.splitlines()}
        for measure in ("map", "P_10", "ndcg"):
            mean = sum(scores[measure] for scores in theirs.values()) / len(theirs)
            assert ours[measure] == pytest.approx(mean, abs=5e-5), (tag, measure)
        assert ours["map"] > 0.1  # the runs find relevant documents: the ids line up
