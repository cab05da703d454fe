"""The thin path through the whole loop, for real: PostgreSQL, Redis, a worker process, HTTP.

Import over the REST API, judge through the web pages as three annotators, let the worker compute
the ground truth, and download the qrels: majority labels and statsmodels' kappa.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import requests
from rest_framework.authtoken.models import Token
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from annotation.models import Judgement, Project
from evaluation.models import GroundTruthSnapshot
from tests.annotation.factories import DOCUMENTS, RUN_A, RUN_B, TOPICS

pytestmark = pytest.mark.integration


def answer(annotator_index: int, topic: str, docno: str) -> int:
    """A fixed, disagreeing pattern of answers, so kappa is neither 0 nor 1."""
    return int((int(docno[1:]) + int(topic) + annotator_index) % 3 != 0)


def web_login(base: str, username: str, password: str) -> requests.Session:
    session = requests.Session()
    session.get(f"{base}/accounts/login/")
    response = session.post(
        f"{base}/accounts/login/",
        data={
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
        },
        headers={"Referer": f"{base}/accounts/login/"},
    )
    assert response.ok and "Log out" in response.text, f"login failed for {username}"
    return session


def post_form(session: requests.Session, base: str, path: str, **data) -> requests.Response:
    return session.post(
        f"{base}{path}",
        data={**data, "csrfmiddlewaretoken": session.cookies["csrftoken"]},
        headers={"Referer": f"{base}{path}"},
    )


def test_import_judge_aggregate_and_export_through_the_real_services(
    celery_worker_process, live_server, researcher, annotators, settings, tmp_path
):
    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 1
    worker = celery_worker_process
    base = live_server.url
    token = Token.objects.create(user=researcher).key
    api = requests.Session()
    api.headers["Authorization"] = f"Token {token}"

    created = api.post(
        f"{base}/api/projects/",
        json={
            "name": "Integration",
            "assignments_per_task": 3,
            "annotators": [a.username for a in annotators],
        },
    )
    assert created.status_code == 201, created.text
    project_id = created.json()["id"]
    imported = api.post(
        f"{base}/api/projects/{project_id}/import/",
        json={"topics": TOPICS, "documents": DOCUMENTS, "runs": [RUN_A, RUN_B], "pool_depth": 2},
    )
    assert imported.status_code == 201, imported.text
    task_count = imported.json()["tasks_created"]
    assert task_count == 7

    given: dict[tuple[str, str], list[int]] = {}
    for index, annotator in enumerate(annotators, start=1):
        session = web_login(base, annotator.username, f"annotator{index}-password")
        page = post_form(session, base, f"/projects/{project_id}/next/").text
        while (form := re.search(r'action="(/projects/\d+/assignments/\d+/submit/)"', page)) is not None:
            topic = re.search(r"Topic: ([^<]+)<", page).group(1)
            docno = re.search(r"<h3>Document (\d+)</h3>", page).group(1)
            topic_id = next(t["id"] for t in TOPICS if t["title"] == topic)
            label = answer(index, topic_id, f"d{docno}")
            given.setdefault((topic_id, f"d{docno}"), []).append(label)
            page = post_form(session, base, form.group(1), label=str(label)).text
        assert "nothing left for you to judge" in page

    # Every judgement is in PostgreSQL; the worker, not this process, builds the snapshot.
    assert Judgement.objects.filter(task__project_id=project_id).count() == 3 * task_count
    deadline = time.monotonic() + 90
    while True:
        latest = GroundTruthSnapshot.objects.filter(project_id=project_id).order_by("-version").first()
        if latest is not None and latest.input_judgement_count == 3 * task_count:
            break
        assert worker.alive(), f"the worker died:\n{worker.log_text()}"
        assert time.monotonic() < deadline, f"no final snapshot; worker log:\n{worker.log_text()}"
        time.sleep(0.5)

    table, _ = aggregate_raters(np.array([votes for _, votes in sorted(given.items())]))
    assert latest.agreement["fleiss_kappa"] == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)

    snapshots = api.get(f"{base}/api/projects/{project_id}/snapshots/").json()["results"]
    assert snapshots[0]["version"] == latest.version
    qrels = api.get(f"{base}/api/projects/{project_id}/snapshots/{latest.version}/qrels/")
    assert qrels.status_code == 200
    expected = [
        f"{topic} 0 {docno} {int(sum(votes) >= 2)}" for (topic, docno), votes in sorted(given.items())
    ]
    assert qrels.text.splitlines() == expected
    assert Project.objects.get(pk=project_id).tasks.filter(completed=False).count() == 0

    # The worker scores both runs against the new snapshot; the leaderboard equals what
    # `cranfield trec-eval -c -m all_trec` prints for the exported qrels and the downloaded runs.
    deadline = time.monotonic() + 90
    while True:
        evaluations = api.get(f"{base}/api/projects/{project_id}/evaluations/").json()["results"]
        done = [e for e in evaluations if e["snapshot_version"] == latest.version and e["status"] == "done"]
        if done:
            break
        assert worker.alive(), f"the worker died:\n{worker.log_text()}"
        assert time.monotonic() < deadline, f"no evaluation; {evaluations}; worker log:\n{worker.log_text()}"
        time.sleep(0.5)
    layout = api.get(done[0]["leaderboard"], params={"as": "trec"}).text
    blocks = {
        block.split("\t", 2)[2].split("\n", 1)[0]: "runid" + block for block in layout.split("runid")[1:]
    }
    qrels_file = tmp_path / "crowd.qrels"
    qrels_file.write_text(qrels.text)
    for run in api.get(f"{base}/api/projects/{project_id}/runs/").json()["results"]:
        run_file = tmp_path / f"{run['tag']}.run"
        run_file.write_text(api.get(run["download"]).text)
        printed = subprocess.run(
            [str(Path(sys.executable).parent / "cranfield"), "trec-eval", "-c", "-m", "all_trec",
             str(qrels_file), str(run_file)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        assert blocks[run["tag"]] == printed
    board = api.get(done[0]["leaderboard"], params={"measures": "map,P_5"}).json()
    assert {row["run"] for row in board["rows"]} == {"runA", "runB"} and len(board["pairs"]) == 1
