"""Issue 21's campaign replayed through the engine and the pages, for its numbers: 3 topics, 20 documents, 2
runs pooled to depth 10, k = 2, three annotators (one always right, two careless). The numbers that "would
be laughed at in a lab meeting" are gone: the leaderboard shows no interval outside [0, 1] (on 3 topics,
none at all, and why), no significance verdict on 3 topics, and the agreement page explains its low kappa."""

from __future__ import annotations

import html
import random
import re

import pytest
from django.urls import reverse

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from evaluation.scoring.jobs import request_evaluation

TOPICS = ["1", "2", "3"]
SEED = 21
DOCUMENTS = [f"d{n:02d}" for n in range(20)]
# Two relevant documents per topic: the prevalence of a real pool.
RELEVANT = {
    (topic, document) for topic in TOPICS for document in DOCUMENTS[int(topic) * 3 : int(topic) * 3 + 2]
}


def run_text(tag: str, seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for topic in TOPICS:
        ranked = sorted(DOCUMENTS, key=lambda d: -(((topic, d) in RELEVANT) * 2 + rng.random()))
        lines += [f"{topic} Q0 {d} {rank} {20 - rank} {tag}" for rank, d in enumerate(ranked, 1)]
    return "\n".join(lines) + "\n"


@pytest.fixture
def campaign(researcher, annotators, django_capture_on_commit_callbacks):
    project = Project.objects.create(name="Newcomer", owner=researcher, assignments_per_task=2)
    project.annotators.set(annotators)
    import_collection(
        project,
        topics=[{"id": topic, "title": f"topic {topic}"} for topic in TOPICS],
        documents=[{"id": d, "text": f"document {d}"} for d in DOCUMENTS],
        runs=[run_text("good", 1), run_text("fair", 2)],
        pool_depth=10,
    )
    rng = random.Random(SEED)
    working = list(enumerate(annotators))
    while working:  # in turns, one task each, as people judging at the same time
        for index, annotator in list(working):
            lease = claim_next_task(project, annotator)
            if lease is None:
                working.remove((index, annotator))
                continue
            truth = int((lease.task.topic.external_id, lease.task.document.external_id) in RELEVANT)
            # A careless annotator skims: misses half the relevant documents, and now and then
            # calls another one relevant.
            careless = index > 0 and rng.random() < (0.5 if truth else 0.05)
            submit_judgement(lease.pk, annotator, 1 - truth if careless else truth)
    snapshot = build_snapshot(project.pk)
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = request_evaluation(project, snapshot=snapshot)
    assert embedded.run_queued() == 1
    evaluation.refresh_from_db()
    return project, evaluation


def test_the_leaderboard_shows_no_interval_outside_zero_one_and_no_verdict_on_three_topics(
    client, researcher, campaign
):
    project, _ = campaign
    client.force_login(researcher)
    page = html.unescape(
        client.get(
            reverse("leaderboard", args=[project.pk]), {"measures": "map,bpref,num_ret"}
        ).content.decode()
    )
    table = page[page.index('id="leaderboard"') : page.index("</table>", page.index('id="leaderboard"'))]
    bounds = [
        float(n.replace("−", "-")) for pair in re.findall(r"\[([^\]]+)\]", table) for n in pair.split(", ")
    ]
    assert bounds == []  # 3 topics: no interval at all…
    assert "No intervals: too few topics for an interval (3; needs at least 10)." in page  # …and why
    assert "No significance verdict: too few topics for a significance test (3; needs at least 10)." in page
    pairs = page[page.index('id="pairs"') : page.index("</table>", page.index('id="pairs"'))]
    assert ">yes<" not in pairs and ">no<" not in pairs and "significant" not in pairs.lower()


def test_the_agreement_page_explains_the_low_kappa_with_pabak_beside_it(client, researcher, campaign):
    project, _ = campaign
    snapshot = project.snapshots.get()
    agreement = snapshot.agreement
    kappa = (
        agreement["cohen_kappa_mean"]
        if agreement["cohen_kappa_mean"] is not None
        else agreement["fleiss_kappa"]
    )
    assert kappa < 0.4 < agreement["pabak"]  # few relevant documents: chance agreement is high
    client.force_login(researcher)
    page = html.unescape(client.get(reverse("agreement-report", args=[project.pk])).content.decode())
    explanation = re.search(r'<p class="notice" id="kappa-explanation">(.*?)</p>', page).group(1)
    assert explanation.startswith("Kappa is low although the annotators mostly agree")
    assert "Most labels are “not relevant”" in explanation and f"is {agreement['pabak']:.2f}." in explanation
    assert '<th scope="row">PABAK (prevalence- and bias-adjusted kappa)</th>' in page
