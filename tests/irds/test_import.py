"""ir_datasets in: a project filled from a dataset read by ir_datasets itself equals the project the
demo builds from the same files; subsets by topic and a document cap keep what they say; the import
is a job with progress, all or nothing."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys

import pytest
from django.test import TestCase

from annotation.models import Document, Project, Topic
from evaluation.collection.external_qrels import import_external_qrels
from evaluation.collection.flow import import_collection
from evaluation.collection.runs import ranked_lists
from evaluation.demo import DEMO_DIR, demo_documents, demo_reference_qrels, demo_topics
from evaluation.demo.build_demo import abstract
from evaluation.irds.importing import choice_from, send_import
from evaluation.jobs import embedded
from evaluation.metrics.trec.files import write_qrels
from evaluation.models import ImportJob
from tests.irds.local_datasets import DEMO_RUN, register

pytestmark = pytest.mark.django_db

DEMO_REQUEST = {
    "query_field": "text",
    "description_field": "description",
    "doc_fields": ["text"],
    "title_field": "title",
    "qrels": "reference",
    "qrels_name": "cranfield-official",
    "scoreddocs": True,
    "run_tag": DEMO_RUN,
    "pool_depth": 10,
}


def run_import(project: Project, request: dict) -> ImportJob:
    """Queue the import as the API does and run it as a worker would."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        job = send_import(project.owner, project, choice_from(request))
    embedded.run_queued()
    job.refresh_from_db()
    return job


def demo_built(owner) -> Project:
    """The demo's collection as ``load_demo`` builds it from the shipped files (its BM25 run, pooled
    to depth 10, and the official qrels as reference), without the simulated crowd."""
    project = Project.objects.create(name="demo", owner=owner)
    run = (DEMO_DIR / f"{DEMO_RUN}.run").read_text()
    import_collection(project, topics=demo_topics(), documents=demo_documents(), runs=[run], pool_depth=10)
    out = io.StringIO()
    write_qrels(demo_reference_qrels(), out)
    import_external_qrels(project, "cranfield-official", out.getvalue())
    return project


def contents(project: Project) -> dict:
    """Everything the import makes, ids and texts, in a comparable form."""
    run = project.runs.get()
    return {
        "topics": list(
            project.topics.order_by("external_id").values_list("external_id", "title", "description")
        ),
        "documents": list(
            project.documents.order_by("external_id").values_list("external_id", "title", "text")
        ),
        "run": (
            run.tag,
            run.pool_depth,
            {t: (c.docnos, c.scores.tolist()) for t, c in ranked_lists(run.pk).items()},
        ),
        "pool": sorted(project.tasks.values_list("topic__external_id", "document__external_id", "pool_rank")),
        "qrels": {q.name: q.judgements for q in project.external_qrels.all()},
    }


def test_the_demo_subset_read_through_ir_datasets_equals_the_demo_project(researcher, demo_dataset):
    imported = Project.objects.create(name="from ir_datasets", owner=researcher)
    job = run_import(imported, {"dataset": demo_dataset, **DEMO_REQUEST})
    assert job.status == ImportJob.Status.DONE, job.errors or job.error
    assert job.progress == 1.0 and job.kind == "irds"
    assert job.summary["topics_created"] == 25 and job.summary["documents_created"] == 790
    assert job.summary["qrels_created"] == 327 and job.summary["runs_created"] == 1
    assert contents(imported) == contents(demo_built(researcher))


def test_a_topic_list_and_a_document_cap_keep_the_judged_and_retrieved_documents(researcher, demo_dataset):
    chosen = [t["id"] for t in demo_topics()[:3]]
    qrels = demo_reference_qrels()
    run_docs = {
        line.split()[2]
        for line in (DEMO_DIR / f"{DEMO_RUN}.run").read_text().splitlines()
        if line.split()[0] in chosen
    }
    named = run_docs | {doc for topic in chosen for doc in qrels[topic]}
    project = Project.objects.create(name="subset", owner=researcher)
    job = run_import(
        project, {"dataset": demo_dataset, **DEMO_REQUEST, "topics": chosen, "max_documents": len(named) + 5}
    )
    assert job.status == ImportJob.Status.DONE, job.errors
    assert sorted(project.topics.values_list("external_id", flat=True)) == sorted(chosen)
    kept = set(project.documents.values_list("external_id", flat=True))
    assert named <= kept and len(kept) == len(named) + 5  # the named ones first, then five others
    assert job.summary["documents_over_cap"] == 790 - len(kept)
    assert set(project.external_qrels.get().judgements) == set(chosen)
    assert job.summary["qrels_left_out"] == 327 - sum(len(qrels[t]) for t in chosen)
    # A cap smaller than the named documents cuts the run to the documents kept, and says how much.
    small = Project.objects.create(name="small", owner=researcher)
    job = run_import(small, {"dataset": demo_dataset, **DEMO_REQUEST, "topics": chosen, "max_documents": 10})
    assert job.status == ImportJob.Status.DONE, job.errors
    assert small.documents.count() == 10 and job.summary["run_lines_left_out"] > 0
    lists = ranked_lists(small.runs.get().pk)
    assert {doc for c in lists.values() for doc in c.docnos} <= set(
        small.documents.values_list("external_id", flat=True)
    )


def test_documents_whose_chosen_fields_are_empty_are_kept_and_named(researcher, tmp_path):
    name = register(
        "test-empty-docs",
        tmp_path,
        docs=[{"doc_id": "d1", "title": "t", "text": "words"}, {"doc_id": "d2", "title": "", "text": "  "}],
        queries=[("q1", "a query")],
    )
    project = Project.objects.create(name="empty docs", owner=researcher)
    job = run_import(project, {"dataset": name, "qrels": "none"})
    assert job.status == ImportJob.Status.DONE, job.errors
    # Kept as the collection import keeps them (qrels and runs may name them), and named in the summary.
    assert list(project.documents.order_by("id").values_list("external_id", "text")) == [
        ("d1", "words"),
        ("d2", ""),
    ]
    assert job.summary["documents_empty"] == 1 and job.summary["empty_document_ids"] == ["d2"]


def test_the_job_shows_its_stage_and_progress_as_it_reads(researcher, demo_dataset, monkeypatch):
    from evaluation.collection import import_jobs
    from evaluation.irds import reading

    monkeypatch.setattr(reading, "PROGRESS_EVERY", 200)
    seen: list[tuple[str, float]] = []
    real = import_jobs.set_stage
    monkeypatch.setattr(
        import_jobs,
        "set_stage",
        lambda job, stage, share: seen.append((stage, share)) or real(job, stage, share),
    )
    job = run_import(Project.objects.create(name="progress", owner=researcher), {"dataset": demo_dataset})
    assert job.status == ImportJob.Status.DONE
    stages = [stage for stage, _ in seen]
    assert stages[0] == "read 25 queries; reading the qrels and scoreddocs"
    assert [s for s in stages if s.startswith("reading documents")] == [
        f"reading documents ({n:,} read)" for n in (200, 400, 600)
    ]
    assert stages[-1] == "checking and storing 790 documents (all or nothing)"
    shares = [share for _, share in seen]
    assert shares == sorted(shares) and shares[-1] < 1.0


def test_a_job_cancelled_while_reading_stores_nothing(researcher, demo_dataset, monkeypatch):
    from evaluation.collection import import_jobs
    from evaluation.irds import reading
    from evaluation.jobs import lifecycle

    monkeypatch.setattr(reading, "PROGRESS_EVERY", 200)
    real = import_jobs.set_stage

    def cancel_at_documents(job_id: int, stage: str, share: float) -> None:
        if stage.startswith("reading documents"):
            lifecycle.cancel(import_jobs.IMPORT_JOBS, job_id, "the owner")
        real(job_id, stage, share)

    monkeypatch.setattr(import_jobs, "set_stage", cancel_at_documents)
    project = Project.objects.create(name="cancelled", owner=researcher)
    job = run_import(project, {"dataset": demo_dataset})
    assert job.status == ImportJob.Status.CANCELLED
    assert (
        not project.topics.exists() and not project.documents.exists() and not project.external_qrels.exists()
    )


def test_a_problem_found_by_the_worker_leaves_nothing_half_imported(researcher, tmp_path):
    name = register(
        "test-bad-doc-id",
        tmp_path,
        docs=[{"doc_id": f"d{i}", "title": "", "text": "words"} for i in range(5)]
        + [{"doc_id": "has space", "title": "", "text": "words"}],
        queries=[("q1", "a query")],
        qrels="q1 0 d1 1\n",
    )
    project = Project.objects.create(name="refused", owner=researcher)
    job = run_import(project, {"dataset": name})
    assert job.status == ImportJob.Status.FAILED and "nothing was imported" in job.stage
    assert list(job.errors) == ["documents[has space].id"]
    assert not Topic.objects.filter(project=project).exists()
    assert not Document.objects.filter(project=project).exists()
    assert not project.external_qrels.exists()


# -- the full Cranfield collection, offline ---------------------------------------------------------


@pytest.fixture
def cranfield_home(data_set, tmp_path):
    """An IR_DATASETS_HOME whose cranfield/ holds the three files as ir_datasets names them."""
    source = data_set("cranfield")
    home = tmp_path / "ir_datasets"
    (home / "cranfield").mkdir(parents=True)
    for ours, theirs in (
        ("cran.all.1400", "docs.txt"),
        ("cran.qry", "queries.txt"),
        ("cranqrel", "qrels.txt"),
    ):
        shutil.copy(source / ours, home / "cranfield" / theirs)
    return home


def test_ir_datasets_reads_cranfield_offline_from_ir_datasets_home(cranfield_home):
    # A fresh process: ir_datasets fixes each dataset's paths when it is first imported.
    script = (
        "import ir_datasets; d = ir_datasets.load('cranfield'); "
        "print(*(sum(1 for _ in rows) for rows in (d.docs_iter(), d.queries_iter(), d.qrels_iter())))"
    )
    env = {"IR_DATASETS_HOME": str(cranfield_home), "PATH": "/usr/bin:/bin", "HOME": str(cranfield_home)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1400", "225", "1837"]


def test_the_full_cranfield_imported_offline_equals_the_demo_on_its_topics(researcher, cranfield_home):
    """Cranfield's own reader (``ir_datasets.datasets.cranfield``) over the files under
    IR_DATASETS_HOME, registered under a test id (the ``cranfield`` entry was fixed to the home this
    process had when it first imported ir_datasets): the demo's topics, documents and binary qrels."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.datasets.cranfield import CranfieldDocs, CranfieldQrels, CranfieldQueries
    from ir_datasets.util import LocalDownload

    name = f"cranfield-offline-{cranfield_home.parent.name}"
    files = cranfield_home / "cranfield"
    ir_datasets.registry.register(
        name,
        Dataset(
            CranfieldDocs(LocalDownload(files / "docs.txt")),
            CranfieldQueries(LocalDownload(files / "queries.txt")),
            CranfieldQrels(LocalDownload(files / "qrels.txt")),
        ),
    )
    topics = demo_topics()
    project = Project.objects.create(name="cranfield", owner=researcher)
    request = {
        "dataset": name,
        "doc_fields": ["text"],
        "title_field": "title",
        "topics": [t["id"] for t in topics],
        "relevant_from": 1,  # codes 1-4 relevant, -1 judged non-relevant, as the demo reads them
        "qrels_name": "cranfield-official",
    }
    job = run_import(project, request)
    assert job.status == ImportJob.Status.DONE, job.errors or job.error
    # Documents 471 and 995 have no abstract: kept (as in the demo, whose qrels name 995), and named.
    assert project.documents.count() == 1400 and job.summary["empty_document_ids"] == ["471", "995"]
    assert list(project.topics.order_by("id").values_list("external_id", "title")) == [
        (t["id"], t["title"]) for t in topics
    ]
    imported = {
        d: (title, text) for d, title, text in project.documents.values_list("external_id", "title", "text")
    }
    for document in demo_documents():
        title, text = imported[document["id"]]
        if document["id"] == "578":
            # Its record has two .W sections: ir_datasets' reader keeps both, the demo's the last.
            assert title == document["title"] and " ".join(text.split()).endswith(" " + document["text"])
            continue
        # The demo shows the abstract without the title SMART's .W repeats (build_demo.abstract).
        assert (title, abstract({"T": title, "W": text})) == (document["title"], document["text"])
    assert project.external_qrels.get().judgements == demo_reference_qrels()
    assert job.summary["qrels_left_out"] == 1837 - 327


def test_manage_py_imports_cranfield_by_its_id_offline_from_ir_datasets_home(cranfield_home, tmp_path):
    """The whole path a user takes offline, in fresh processes on a database of their own: the real
    ``cranfield`` id, read from IR_DATASETS_HOME, into a new project by ``manage.py import_ir_datasets``."""
    from tests.conftest import PROJECT_DIR

    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DATABASE_URL", "REDIS_URL"))
    }
    env |= {
        "DEBUG": "true",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "IR_DATASETS_HOME": str(cranfield_home),
        "DJANGO_SUPERUSER_PASSWORD": "not-used-0123456789",
    }

    def manage(*arguments: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *arguments],
            cwd=PROJECT_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    manage("migrate", "-v0")
    manage("createsuperuser", "--noinput", "--username", "researcher", "--email", "r@example.org")
    out = manage(
        "import_ir_datasets",
        "cranfield",
        "--create",
        "Cranfield",
        "--owner",
        "researcher",
        "--title-field",
        "title",
    )
    assert "1400 documents" in out and "225 topics" in out and "1837 reference judgements" in out
