"""Large imports as jobs and test-collection bundles over the API: a body too large for the direct
import gets a 413 naming the job endpoint; the job takes it (gzip too), shows its progress and stores
all or nothing; a project's bundle re-imported as a new project restores the collection exactly and
its evaluation gives the same leaderboard; a changed bundle is refused with the file named."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from collections import Counter

import pytest
from django.test import TestCase, override_settings
from django.urls import reverse

from annotation.models import Document, Judgement, JudgementRevision, Project, Task, Topic
from evaluation.collection.flow import import_collection
from evaluation.jobs import embedded
from evaluation.models import Evaluation, GroundTruthSnapshot, ImportJob, Run
from tests.annotation.factories import make_project
from tests.scoring.test_pages_and_api import api
from tests.stored_runs import run_lines

pytestmark = pytest.mark.django_db


def collection(documents: int) -> dict:
    return {
        "topics": [{"id": "t1", "title": "wing flutter"}],
        "documents": [{"id": f"d{i}", "text": f"abstract {i} " * 40} for i in range(documents)],
        "runs": ["".join(f"t1 Q0 d{i} {i + 1} {documents - i}.0 big\n" for i in range(documents))],
        "pool_depth": 5,
    }


def send_job(client, project, body: bytes, **headers):
    # The test's transaction never commits: run the callbacks a commit would (the job is sent in one).
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.generic(
            "POST",
            reverse("import-jobs-api", args=[project.pk]),
            body,
            content_type=headers.pop("content_type", "application/json"),
            **headers,
        )


@pytest.fixture
def empty_project(researcher):
    return Project.objects.create(name="empty", owner=researcher)


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=50_000)
def test_a_body_over_the_direct_limit_gets_a_413_that_names_the_job_endpoint(researcher, empty_project):
    body = json.dumps(collection(300))
    response = api(researcher).post(
        reverse("import-api", args=[empty_project.pk]), body, content_type="application/json"
    )
    assert response.status_code == 413
    assert "import-jobs" in response.json()["detail"] and "50,000 bytes" in response.json()["detail"]
    assert not Document.objects.filter(project=empty_project).exists()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=50_000)
@pytest.mark.parametrize("gzipped", [False, True])
def test_the_job_imports_a_large_body_with_progress(researcher, empty_project, gzipped, monkeypatch):
    from evaluation.collection import import_jobs
    from evaluation.models import ImportJobChunk

    # A body over 1 GB failed as one statement parameter; it is stored in chunks (here of 2,000 bytes).
    monkeypatch.setattr(import_jobs, "STORED_CHUNK", 2000)
    raw = json.dumps(collection(300)).encode()
    headers = {"HTTP_CONTENT_ENCODING": "gzip"} if gzipped else {}
    response = send_job(api(researcher), empty_project, gzip.compress(raw) if gzipped else raw, **headers)
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["status"] == "queued" and job["body_bytes"] == len(raw) and job["kind"] == "collection"
    assert ImportJobChunk.objects.filter(job_id=job["id"]).exists()
    assert embedded.run_queued() >= 1
    done = api(researcher).get(job["url"]).json()
    assert done["status"] == "done" and done["progress"] == 1.0 and done["project"] == empty_project.pk
    assert done["summary"]["documents_created"] == 300 and done["summary"]["tasks_created"] == 5
    assert Document.objects.filter(project=empty_project).count() == 300
    assert len(run_lines(project=empty_project)) == 300
    assert ImportJob.objects.get(pk=job["id"]).body == b""  # the body is not kept once imported
    assert not ImportJobChunk.objects.filter(job_id=job["id"]).exists()
    listed = api(researcher).get(reverse("import-jobs-api", args=[empty_project.pk])).json()
    assert [j["id"] for j in listed["results"]] == [job["id"]]


def test_a_body_is_stored_in_chunks_as_it_arrives_and_read_back_whole(researcher, empty_project, monkeypatch):
    """Issue 27: a 1.07 GB body failed as one statement parameter (PostgreSQL takes at most 1 GB) and
    the web process held it whole. It goes to the database in chunks of STORED_CHUNK compressed bytes
    (here 2,000; random bytes, so that compression leaves them as large)."""
    import hashlib
    import os

    from evaluation.collection import import_jobs

    monkeypatch.setattr(import_jobs, "STORED_CHUNK", 2000)
    data = os.urandom(4 * import_jobs.CHUNK)  # read from the request 1 MiB at a time
    job = import_jobs.create_job("collection", researcher, empty_project, io.BytesIO(data), gzipped=False)
    sizes = [len(bytes(chunk)) for chunk in job.chunks.order_by("number").values_list("data", flat=True)]
    assert len(sizes) >= 4 and all(size >= 2000 for size in sizes[:-1])
    assert (job.body_bytes, job.body_sha256) == (len(data), hashlib.sha256(data).hexdigest())
    assert io.BufferedReader(import_jobs.BodyReader(job)).read() == data  # as a collection is read
    with import_jobs.body_file(job) as body:
        assert body.read() == data


def test_a_refused_job_names_the_problem_and_stores_nothing(researcher, empty_project):
    body = collection(20)
    body["documents"][7]["id"] = "has space"
    response = send_job(api(researcher), empty_project, json.dumps(body).encode())
    embedded.run_queued()
    job = api(researcher).get(response.json()["url"]).json()
    assert job["status"] == "failed" and "nothing was imported" in job["stage"]
    assert list(job["errors"]) == ["documents[7].id"]
    assert not Topic.objects.filter(project=empty_project).exists()
    assert not ImportJob.objects.get(pk=job["id"]).chunks.exists()
    not_json = send_job(api(researcher), empty_project, b"{nope")
    embedded.run_queued()
    assert "not valid JSON" in api(researcher).get(not_json.json()["url"]).json()["errors"][""][0]


def test_bad_uploads_are_refused_with_the_reason(researcher, empty_project):
    client = api(researcher)
    assert send_job(client, empty_project, b"").status_code == 400
    assert send_job(client, empty_project, b"a,b", content_type="text/csv").status_code == 415
    not_gzip = send_job(client, empty_project, b'{"topics": []}', HTTP_CONTENT_ENCODING="gzip")
    assert not_gzip.status_code == 400 and "gzip" in not_gzip.json()["detail"]
    assert send_job(client, empty_project, b"{}", HTTP_CONTENT_ENCODING="br").status_code == 415
    with override_settings(IMPORT_JOB_MAX_BYTES=1000):
        too_big = send_job(client, empty_project, json.dumps(collection(20)).encode())
    assert too_big.status_code == 413 and "1,000 bytes" in too_big.json()["detail"]
    assert not ImportJob.objects.exists()


def test_others_cannot_send_or_see_import_jobs(researcher, outsider_researcher, empty_project, annotators):
    response = send_job(api(researcher), empty_project, json.dumps(collection(3)).encode())
    assert send_job(api(outsider_researcher), empty_project, b"{}").status_code == 404
    assert api(outsider_researcher).get(response.json()["url"]).status_code == 404
    assert api(annotators[0]).get(response.json()["url"]).status_code == 403
    assert api(outsider_researcher).get(reverse("bundle-api", args=[empty_project.pk])).status_code == 404


def bundle_of(researcher, project) -> bytes:
    response = api(researcher).get(reverse("bundle-api", args=[project.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    return b"".join(response.streaming_content)


def import_bundle(researcher, data: bytes, capture, query: str = "") -> dict:
    with capture(execute=True):  # the job is sent once its row is committed
        response = api(researcher).generic(
            "POST",
            reverse("bundle-import-api") + (f"?{query}" if query else ""),
            data,
            content_type="application/zip",
        )
    assert response.status_code == 202, response.content
    with capture(execute=True):  # the evaluations it requests are sent once their rows are committed
        embedded.run_queued()
    embedded.run_queued()
    return api(researcher).get(response.json()["url"]).json()


def leaderboard(researcher, evaluation: Evaluation) -> list:
    url = reverse("leaderboard-api", args=[evaluation.project_id, evaluation.pk])
    board = api(researcher).get(url, {"measures": "map,P_5,ndcg_cut_10,bpref"}).json()
    return without_ids(board)


def without_ids(value):
    """The leaderboard without the database's keys, which differ between two installs."""
    if isinstance(value, dict):
        return {
            k: without_ids(v) for k, v in value.items() if k not in {"run_id", "url", "id", "finished_at"}
        }
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return value


def test_a_bundle_rebuilds_the_collection_and_its_leaderboard(
    researcher, scored, django_capture_on_commit_callbacks
):
    original = scored.project
    data = bundle_of(researcher, original)
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("manifest.json"))
    assert manifest["counts"]["judgements"] == Judgement.objects.filter(project=original).count()
    assert manifest["evaluations"][0]["signature"] == scored.signature

    job = import_bundle(researcher, data, django_capture_on_commit_callbacks, "annotators=match")
    assert job["status"] == "done", job
    copy = Project.objects.get(pk=job["project"])
    assert copy.owner == researcher and copy.name == f"{original.name} (imported)" and copy.pk != original.pk
    for model, field in [(Topic, "project"), (Document, "project"), (Task, "project"), (Run, "project")]:
        assert (
            model.objects.filter(**{field: copy}).count() == model.objects.filter(**{field: original}).count()
        )
    assert entries(copy) == entries(original)
    assert judgements(copy) == judgements(original)
    old, new = (GroundTruthSnapshot.objects.get(project=p) for p in (original, copy))
    assert (new.version, new.signature, labels(new)) == (old.version, old.signature, labels(old))

    evaluation = Evaluation.objects.get(project=copy)
    assert evaluation.status == "done" and evaluation.signature == scored.signature
    assert leaderboard(researcher, evaluation) == leaderboard(researcher, scored)
    assert {s.run.tag: s.overall for s in evaluation.scores.all()} == manifest["evaluations"][0]["overall"]


def entries(project) -> set:
    return set(run_lines(project=project))


def judgements(project) -> list:
    return list(
        Judgement.objects.filter(project=project)
        .order_by("id")
        .values_list(
            "task__topic__external_id",
            "task__document__external_id",
            "annotator__username",
            "label",
            "revision",
            "created_at",
        )
    )


def labels(snapshot) -> set:
    return set(
        snapshot.labels.values_list("task__topic__external_id", "task__document__external_id", "label")
    )


def test_a_changed_bundle_is_refused_and_nothing_is_created(
    researcher, scored, django_capture_on_commit_callbacks
):
    data = bundle_of(researcher, scored.project)
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as changed:
        for name in source.namelist():
            content = source.read(name)
            if name == "judgements.jsonl":
                content = content.replace(b'"label": 0', b'"label": 1', 1)
            changed.writestr(name, content)
    projects = Project.objects.count()
    job = import_bundle(researcher, out.getvalue(), django_capture_on_commit_callbacks)
    assert job["status"] == "failed" and "judgements.jsonl" in job["errors"]
    assert "SHA-256" in job["errors"]["judgements.jsonl"][0]
    assert Project.objects.count() == projects
    assert import_bundle(researcher, b"not a zip", django_capture_on_commit_callbacks)["errors"][""][
        0
    ].startswith("not a Cranfield bundle")


def test_a_bundle_of_a_project_without_runs_or_judgements(
    researcher, annotators, django_capture_on_commit_callbacks
):
    project = make_project(researcher, annotators, k=2)
    job = import_bundle(researcher, bundle_of(researcher, project), django_capture_on_commit_callbacks)
    assert job["status"] == "done" and job["summary"]["counts"]["judgements"] == 0
    assert Task.objects.filter(project_id=job["project"]).count() == project.tasks.count()


def test_a_bundle_carries_adjudications_referrals_and_references(
    researcher, django_user_model, django_capture_on_commit_callbacks
):
    """A researcher's decisions (with their notes and times), an item sent to one more assessor,
    the snapshot's record of both, and a text project's references move with the collection, so a
    ground truth computed again on the new install keeps the decisions."""
    from annotation.adjudication.rules import settle
    from annotation.judging.assignment import RecordedJudgement, record_judgements
    from annotation.models import Adjudication
    from evaluation.ground_truth.build import build_snapshot
    from evaluation.models import Reference
    from tests.groundtruth.builders import items, label_project

    four = [django_user_model.objects.create_user(f"assessor{i}", password="x") for i in range(1, 5)]
    project = label_project(researcher, four, items=2, adjudication_rule="not_unanimous")
    first, second = items(project)
    # The first item 2 against 1, so the rule sends it to a fourth assessor; the second unanimous.
    record_judgements(
        project, [RecordedJudgement(first, a, label) for a, label in zip(four[:3], [1, 0, 1], strict=True)]
    )
    record_judgements(project, [RecordedJudgement(second, a, 1) for a in four[:3]])
    first.refresh_from_db()
    assert first.referred_to == "extra_assessor" and first.required_judgements == 4
    record_judgements(project, [RecordedJudgement(first, four[3], 0)])
    settle(second, researcher, 0, "Off topic, whatever the annotators said.")
    Reference.objects.create(project=project, input_id="in1", text="a reference", writer="w1")
    snapshot = build_snapshot(project.pk)

    job = import_bundle(
        researcher, bundle_of(researcher, project), django_capture_on_commit_callbacks, "annotators=match"
    )
    assert job["status"] == "done", job
    copy = Project.objects.get(pk=job["project"])
    assert job["summary"]["counts"]["adjudications"] == 1 and job["summary"]["counts"]["references"] == 1

    def decisions(p):
        return list(
            Adjudication.objects.filter(project=p).values_list(
                "task__document__external_id", "researcher__username", "label", "note", "created_at"
            )
        )

    assert decisions(copy) == decisions(project)
    referred = sorted(
        project.tasks.values_list("document__external_id", "referred_to", "required_judgements")
    )
    assert (
        sorted(copy.tasks.values_list("document__external_id", "referred_to", "required_judgements"))
        == referred
    )

    def adjudicated(s):
        return sorted(
            s.labels.values_list("task__document__external_id", "label", "adjudicated_by", "aggregate_label")
        )

    restored = GroundTruthSnapshot.objects.get(project=copy)
    assert adjudicated(restored) == adjudicated(snapshot)
    assert list(copy.references.values_list("input_id", "text", "writer")) == [("in1", "a reference", "w1")]
    # Computed again on the new install, the ground truth keeps the researcher's decision.
    # (The judgements are new rows there, so the inputs' fingerprint differs and a version is written.)
    again = build_snapshot(copy.pk)
    assert again is not None and again.version == 2
    assert adjudicated(again) == adjudicated(snapshot)


def rezipped(data: bytes, change) -> bytes:
    """The bundle with its manifest changed by ``change`` (the manifest lists the other files' sums)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as changed:
        for name in source.namelist():
            content = source.read(name)
            if name == "manifest.json":
                manifest = json.loads(content)
                change(manifest)
                content = json.dumps(manifest).encode()
            changed.writestr(name, content)
    return out.getvalue()


def test_an_imported_copy_says_so_and_its_annotators_come_in_inactive(
    client, researcher, annotators, scored, django_capture_on_commit_callbacks
):
    from annotation.judging.assignment import AssignmentError, block_annotator, claim_next_task
    from annotation.models import Membership

    original = scored.project
    block_annotator(original, annotators[2])
    data = bundle_of(researcher, original)
    first = Project.objects.get(
        pk=import_bundle(researcher, data, django_capture_on_commit_callbacks, "annotators=match")["project"]
    )
    second = Project.objects.get(
        pk=import_bundle(researcher, data, django_capture_on_commit_callbacks)["project"]
    )
    assert (first.name, second.name) == ("Test project (imported)", "Test project (imported 2)")
    # A copy of a copy is named after the original, numbered on.
    third_data = bundle_of(researcher, first)
    third = Project.objects.get(
        pk=import_bundle(researcher, third_data, django_capture_on_commit_callbacks)["project"]
    )
    assert third.name == "Test project (imported 3)"

    statuses = dict(Membership.objects.filter(project=first).values_list("annotator__username", "status"))
    assert statuses == {"annotator1": "inactive", "annotator2": "inactive", "annotator3": "blocked"}
    with pytest.raises(AssignmentError, match="not active yet"):
        claim_next_task(first, annotators[0])
    client.force_login(annotators[0])
    home = client.get(reverse("home")).content.decode()
    assert original.name in home and "(imported" not in home  # the copy is not theirs to judge yet

    client.force_login(researcher)
    home = client.get(reverse("home")).content.decode().split('id="owned-projects"')[1]
    shown = [line.split("</li>")[0] for line in home.split("<li>")[1:]]
    assert len(shown) == 4 and len(set(shown)) == 4  # no two look the same

    client.post(reverse("member-unblock", args=[first.pk, annotators[0].pk]))
    assert Membership.objects.get(project=first, annotator=annotators[0]).status == "active"


def test_a_bundle_imported_with_its_annotators_active_lets_them_judge(
    researcher, annotators, django_capture_on_commit_callbacks
):
    from annotation.models import Membership

    project = make_project(researcher, annotators, k=2)
    data = bundle_of(researcher, project)
    refused = api(researcher).generic(
        "POST",
        reverse("bundle-import-api") + "?activate_annotators=maybe",
        data,
        content_type="application/zip",
    )
    assert refused.status_code == 400 and "activate_annotators" in refused.json()
    with django_capture_on_commit_callbacks(execute=True):
        response = api(researcher).generic(
            "POST",
            reverse("bundle-import-api") + "?activate_annotators=true&annotators=match",
            data,
            content_type="application/zip",
        )
    assert response.status_code == 202
    embedded.run_queued()
    copy = Project.objects.get(pk=api(researcher).get(response.json()["url"]).json()["project"])
    assert set(Membership.objects.filter(project=copy).values_list("status", flat=True)) == {"active"}


def test_a_bundle_written_before_tie_rules_keeps_the_lower_label_and_a_withdrawn_run_stays_withdrawn(
    researcher, scored, django_capture_on_commit_callbacks
):
    from evaluation.collection.run_removal import withdraw

    original = scored.project
    Project.objects.filter(pk=original.pk).update(tie_rule="extra_annotator")
    with django_capture_on_commit_callbacks(execute=True):
        withdraw(original.runs.get(tag="runB"), researcher)
    embedded.run_queued()

    def without_tie_rule(manifest):
        del manifest["project"]["tie_rule"]

    old = rezipped(bundle_of(researcher, original), without_tie_rule)
    copy = Project.objects.get(
        pk=import_bundle(researcher, old, django_capture_on_commit_callbacks)["project"]
    )
    assert copy.tie_rule == "lower"
    assert copy.runs.get(tag="runB").withdrawn_at is not None
    newest = Evaluation.objects.filter(project=copy).order_by("-pk").first()
    assert list(newest.scores.values_list("run__tag", flat=True)) == ["runA"]


def test_a_project_with_judged_gold_qualification_corrections_snapshots_and_qrels_round_trips(
    researcher, annotators, django_capture_on_commit_callbacks
):
    """Issue 27: a bundle of a project whose gold items were judged failed on ``task_slots_within_k``
    (the restore gave a gold item, k = 0, a slot per judgement). Every kind of item, a corrected
    judgement, two snapshots and external qrels come back as they were."""
    from annotation.judging.assignment import correct_judgement
    from evaluation.ground_truth.build import build_snapshot
    from tests.groundtruth.builders import judge

    project = Project.objects.create(name="Everything", owner=researcher, assignments_per_task=2)
    project.annotators.set(annotators)
    import_collection(
        project,
        topics=[{"id": "1", "title": "gas flow"}],
        documents=[{"id": f"d{i}", "text": f"document {i}"} for i in range(10)],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(6)],
        gold=[{"topic": "1", "document": f"d{i}", "answer": {"label": i % 2}} for i in (6, 7)],
        qualification=[{"topic": "1", "document": f"d{i}", "answer": {"label": i % 2}} for i in (8, 9)],
    )
    tasks = {task.document.external_id: task for task in project.tasks.select_related("document")}
    for name, task in tasks.items():
        for index, annotator in enumerate(annotators[:2]):
            judge(task, annotator, (int(name[1:]) + index) % 2)
    # As the engine leaves them: each item's two slots taken (the builder stores judgements only).
    project.tasks.filter(kind=Task.Kind.ITEM).update(slots_taken=2, completed=True)
    build_snapshot(project.pk)
    corrected = Judgement.objects.get(task=tasks["d0"], annotator=annotators[0])
    correct_judgement(corrected.pk, annotators[0], 1 - corrected.label)
    build_snapshot(project.pk)
    project.external_qrels.create(
        name="official", judgements={"1": {"d0": 1, "d1": 0}}, judged_count=2, relevant_count=1
    )
    assert Counter(project.tasks.values_list("kind", flat=True)) == {"item": 6, "gold": 2, "qualification": 2}

    job = import_bundle(
        researcher, bundle_of(researcher, project), django_capture_on_commit_callbacks, "annotators=match"
    )
    assert job["status"] == "done", job
    copy = Project.objects.get(pk=job["summary"]["project"])

    def kinds_and_slots(p):
        return sorted(
            p.tasks.values_list(
                "document__external_id", "kind", "required_judgements", "slots_taken", "completed"
            )
        )

    assert kinds_and_slots(copy) == kinds_and_slots(project)
    assert judgements(copy) == judgements(project)
    assert sorted(
        JudgementRevision.objects.filter(judgement__project=copy).values_list(
            "judgement__task__document__external_id", "judgement__annotator__username", "number", "label"
        )
    ) == sorted(
        JudgementRevision.objects.filter(judgement__project=project).values_list(
            "judgement__task__document__external_id", "judgement__annotator__username", "number", "label"
        )
    )
    assert [labels(s) for s in copy.snapshots.order_by("version")] == [
        labels(s) for s in project.snapshots.order_by("version")
    ]
    assert list(copy.external_qrels.values_list("name", "judgements")) == [
        ("official", {"1": {"d0": 1, "d1": 0}})
    ]


def with_file(data: bytes, name: str, content: bytes, *, listed: bool = True) -> bytes:
    """The bundle with ``name`` replaced by (or added as) ``content``, deflated, its real SHA-256 in the
    manifest (or left out of it)."""
    import hashlib

    source = zipfile.ZipFile(io.BytesIO(data))
    manifest = json.loads(source.read("manifest.json"))
    if listed:
        manifest["files"][name] = {
            **manifest["files"].get(name, {}),
            "sha256": hashlib.sha256(content).hexdigest(),
        }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as changed:
        for member in source.namelist():
            if member not in (name, "manifest.json"):
                changed.writestr(member, source.read(member))
        changed.writestr(name, content)
        changed.writestr("manifest.json", json.dumps(manifest))
    return out.getvalue()


def test_a_zip_bomb_an_oversized_bundle_a_long_line_and_an_unlisted_file_are_refused_before_they_are_read(
    researcher, scored, django_capture_on_commit_callbacks, settings
):
    """Issue 27: 1 MiB of deflated spaces with its real checksum took a worker from 284 MB to 2.3 GB.
    Now the ZIP's own sizes are checked first and every file is read in chunks; each refusal names
    the file and imports nothing."""
    import resource

    data = bundle_of(researcher, scored.project)
    projects = Project.objects.count()
    bomb = with_file(data, "documents.jsonl", b" " * (200 * 1024 * 1024))
    assert len(bomb) < 1024 * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    job = import_bundle(researcher, bomb, django_capture_on_commit_callbacks)
    assert job["status"] == "failed"
    assert "refused as a ZIP bomb" in job["errors"]["documents.jsonl"][0], job["errors"]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 100 * 1024  # KiB: nothing inflated

    settings.BUNDLE_MAX_UNPACKED_BYTES = 1000
    job = import_bundle(researcher, data, django_capture_on_commit_callbacks)
    assert "over the 1,000 accepted (BUNDLE_MAX_UNPACKED_MB)" in job["errors"][""][0], job["errors"]
    settings.BUNDLE_MAX_UNPACKED_BYTES = 1 << 30

    settings.BUNDLE_MAX_LINE_BYTES = 4096
    long_line = with_file(data, "topics.jsonl", json.dumps({"id": "1", "title": "x" * 5000}).encode() + b"\n")
    job = import_bundle(researcher, long_line, django_capture_on_commit_callbacks)
    assert job["errors"] == {"topics.jsonl line 1": ["longer than 4,096 bytes"]}, job["errors"]
    settings.BUNDLE_MAX_LINE_BYTES = 16 << 20

    unlisted = with_file(data, "extra.jsonl", b'{"a": 1}\n', listed=False)
    job = import_bundle(researcher, unlisted, django_capture_on_commit_callbacks)
    assert "not among the manifest's files" in job["errors"]["extra.jsonl"][0], job["errors"]
    assert Project.objects.count() == projects
    assert import_bundle(researcher, data, django_capture_on_commit_callbacks)["status"] == "done"


def test_a_logged_in_browser_sends_import_jobs_and_bundles_with_its_session_and_csrf_token(
    researcher, scored, empty_project, django_capture_on_commit_callbacks, settings
):
    """Issue 27: with a session (not a token) the CSRF check read request.POST, which made DRF parse
    the body: a bundle got 415 and a JSON body over the direct limit 413. The README promises token
    or session for both."""
    from django.test import Client

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    bundle = bundle_of(researcher, scored.project)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(researcher)
    browser.get(reverse("home"))
    token = browser.cookies["csrftoken"].value
    body = json.dumps(collection(50)).encode()
    assert len(body) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    with django_capture_on_commit_callbacks(execute=True):
        sent = browser.generic(
            "POST", reverse("import-jobs-api", args=[empty_project.pk]), body,
            content_type="application/json", HTTP_X_CSRFTOKEN=token,
        )  # fmt: skip
        zipped = browser.generic(
            "POST",
            reverse("bundle-import-api"),
            bundle,
            content_type="application/zip",
            HTTP_X_CSRFTOKEN=token,
        )
    assert sent.status_code == 202, sent.content
    assert zipped.status_code == 202, zipped.content
    embedded.run_queued()
    assert ImportJob.objects.get(pk=sent.json()["id"]).status == "done"
    assert ImportJob.objects.get(pk=zipped.json()["id"]).status == "done"
    # Without the token a session's POST is still refused, before anything is read.
    refused = browser.generic("POST", reverse("bundle-import-api"), bundle, content_type="application/zip")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]


def test_a_chunked_upload_without_a_length_is_read_to_its_end_where_the_server_ends_the_stream(
    rf, researcher
):
    """Issue 27: a chunked body (no Content-Length) read as empty. gunicorn ends such a stream itself
    and says so (``wsgi.input_terminated``); then the body is read from the server's stream."""
    from evaluation.bundle.api import body_stream

    chunked = rf.generic("POST", "/api/bundles/", b"", content_type="application/zip")
    chunked.META.pop("CONTENT_LENGTH", None)
    chunked.META["wsgi.input"] = io.BytesIO(b"PK the whole body")
    chunked.META["wsgi.input_terminated"] = True
    assert body_stream(chunked).read() == b"PK the whole body"
    with_length = rf.generic("POST", "/api/bundles/", b"PK sized", content_type="application/zip")
    assert body_stream(with_length).read() == b"PK sized"


def test_a_bundle_from_elsewhere_credits_nothing_to_this_sites_accounts_of_the_same_names(
    researcher, annotators, scored, django_capture_on_commit_callbacks
):
    """Issue 27: the bundle's usernames were matched to this site's accounts, so a bundle could credit
    judgements, decisions and memberships to anyone here. By default each name becomes a new
    pseudonymous account; ``?annotators=match`` keeps the names (the same people), refusing a name
    Django would refuse."""
    from annotation.models import Membership

    data = bundle_of(researcher, scored.project)
    job = import_bundle(researcher, data, django_capture_on_commit_callbacks)
    assert job["status"] == "done", job
    copy = Project.objects.get(pk=job["project"])
    members = list(copy.memberships.select_related("annotator").order_by("annotator__username"))
    names = [m.annotator.username for m in members]
    assert names == [f"imported-{copy.pk}-{n}" for n in (1, 2, 3)]
    assert not any(m.annotator.is_active or m.annotator.has_usable_password() for m in members)
    assert not Judgement.objects.filter(project=copy, annotator__in=annotators).exists()
    assert (
        Judgement.objects.filter(project=copy).count()
        == Judgement.objects.filter(project=scored.project).count()
    )
    assert {m.status for m in members} == {Membership.Status.INACTIVE}

    def renamed(content: bytes, field: str) -> bytes:
        rows = [json.loads(line) for line in content.decode().splitlines() if line.strip()]
        for row in rows:
            if row[field] == annotators[0].username:
                row[field] = "no spaces allowed"
        return "\n".join(json.dumps(row) for row in rows).encode() + b"\n"

    source = zipfile.ZipFile(io.BytesIO(data))
    bad = with_file(data, "annotators.jsonl", renamed(source.read("annotators.jsonl"), "username"))
    bad = with_file(bad, "judgements.jsonl", renamed(source.read("judgements.jsonl"), "annotator"))
    refused = import_bundle(researcher, bad, django_capture_on_commit_callbacks, "annotators=match")
    assert refused["status"] == "failed"
    ((where, messages),) = refused["errors"].items()
    assert where == "annotators.jsonl line 1" and "'no spaces allowed'" in messages[0], refused["errors"]
    assert (
        import_bundle(researcher, bad, django_capture_on_commit_callbacks)["status"] == "done"
    )  # pseudonyms


def test_prior_judgements_their_precedence_the_labels_they_alone_gave_and_a_sampled_pool_round_trip(
    researcher, annotators, django_capture_on_commit_callbacks
):
    """Issue 25: a reused collection's bundle carries its prior sets (with source, date and assessor),
    the precedence, each snapshot's label sources and the pairs only a prior set judged, and the
    sampled pool the inferred measures need; the copy's inferred measures equal the original's."""
    from evaluation.ground_truth.build import build_snapshot
    from evaluation.ground_truth.sampled import sample_qrels
    from evaluation.models import SampledPoolMember, SnapshotLabel
    from evaluation.prior.importing import import_prior_qrels
    from evaluation.prior.settings import precedence_of, set_precedence
    from tests.scoring.conftest import judge_everything
    from tests.scoring.test_inferred_api import RUNS, STRATA

    project = Project.objects.create(name="Reused", owner=researcher, assignments_per_task=3)
    project.annotators.set(annotators)
    import_collection(
        project,
        topics=[{"id": "1", "title": "one"}, {"id": "2", "title": "two"}],
        documents=[{"id": f"d{i}", "text": f"document {i}"} for i in range(60)],
    )
    response = api(researcher).post(
        reverse("runs-api", args=[project.pk]),
        {"runs": RUNS, "pool_method": "stratified", "pool_strata": STRATA, "pool_seed": 3},
        format="json",
    )
    assert response.status_code == 201, response.content
    judge_everything(project, annotators)
    drawn = sorted(project.tasks.values_list("topic__external_id", "document__external_id"))
    both, elsewhere = (
        drawn[0],
        next((t, f"d{i}") for t in ("1", "2") for i in range(60) if (t, f"d{i}") not in drawn),
    )
    import_prior_qrels(
        project,
        "nist",
        f"{both[0]} 0 {both[1]} 1\n{elsewhere[0]} 0 {elsewhere[1]} 1\n",
        source="qrels.txt",
        assessor="NIST assessors",
    )
    set_precedence(project, "crowd-wins")
    snapshot = build_snapshot(project.pk)
    assert snapshot.prior_labels.count() == 1

    job = import_bundle(
        researcher, bundle_of(researcher, project), django_capture_on_commit_callbacks, "annotators=match"
    )
    assert job["status"] == "done", job
    copy = Project.objects.get(pk=job["summary"]["project"])

    def prior_sets(p):
        return [
            (q.name, q.source, q.judged_on, q.assessor, q.judged_count, q.relevant_count)
            for q in p.prior_qrels.all()
        ] + sorted(
            p.prior_qrels.values_list(
                "judgements__topic__external_id", "judgements__document__external_id", "judgements__relevance"
            )
        )

    def sources(s):
        return sorted(
            SnapshotLabel.objects.filter(snapshot=s).values_list(
                "task__topic__external_id",
                "task__document__external_id",
                "label",
                "source",
                "prior_label",
                "crowd_label",
            )
        ) + sorted(s.prior_labels.values_list("topic__external_id", "document__external_id", "label"))

    def pool(p):
        return sorted(
            SampledPoolMember.objects.filter(project=p).values_list(
                "topic_id", "document_id", "best_rank", "stratum", "probability", "sampled", "design"
            )
        )

    assert prior_sets(copy) == prior_sets(project) and len(prior_sets(project)) == 3
    assert precedence_of(copy) == "crowd-wins"
    new = copy.snapshots.get()
    assert sources(new) == sources(snapshot) and ("both" in {row[3] for row in sources(snapshot)[:-1]})
    assert pool(copy) == pool(project) and len(pool(project)) > len(drawn)
    assert sample_qrels(new) == sample_qrels(snapshot)
