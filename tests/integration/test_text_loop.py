"""Text outputs through the whole loop, for real: PostgreSQL, Redis, a worker process, HTTP.

A researcher imports four systems' outputs for five inputs with two references each over the REST
API; two annotators rate every output through the judging pages; the worker builds the ground
truth and, asked over the API, scores every output; the meta-evaluation the page shows equals
the pure functions (``metrics.meta_evaluation``, ``metrics.text_scores``) on what the API lets one
download: the ratings snapshot and each output's scores.
"""

from __future__ import annotations

import html
import re
import time

import pytest
import requests
from rest_framework.authtoken.models import Token

from annotation.crowd.minimums import POINTS_FOR_CORRELATION
from evaluation.metrics.meta_evaluation import level_correlation, paired, williams_tests
from evaluation.metrics.text.scores import Output, score_outputs
from evaluation.models import GroundTruthSnapshot
from tests.integration.test_whole_loop import post_form, web_login

pytestmark = pytest.mark.integration

SYSTEMS = {"copier": 0.9, "paraphraser": 0.6, "rambler": 0.3, "random": 0.05}
INPUTS = [f"in{i}" for i in range(5)]
# The page is read at one method per level (the API at all nine): each read is a full page.
PAGE_CHECKS = {("summary", "pearson"), ("system", "spearman"), ("global", "kendall")}
WORDS = ["flow", "shock", "wave", "boundary", "layer", "plate", "pressure", "heat", "transfer", "wing"]
WORDS += ["drag", "lift", "supersonic", "jet"]


def references(input_index: int) -> list[str]:
    base = WORDS[input_index : input_index + 8]
    return [" ".join(base), " ".join(reversed(base))]


def output_text(system: str, input_index: int) -> str:
    """The share ``SYSTEMS[system]`` of the first reference's words, then filler words."""
    reference = references(input_index)[0].split()
    kept = reference[: round(len(reference) * SYSTEMS[system])]
    filler = [w for w in WORDS if w not in reference][: 8 - len(kept)]
    return " ".join([*kept, *filler, system, str(input_index)])  # unique per output


def rating(system: str, annotator_index: int) -> dict[str, int]:
    """Raters who mostly follow the system's skill, the second a little harsher on coherence."""
    quality = 1 + round(4 * SYSTEMS[system])
    coherence = max(1, min(5, quality - annotator_index + (system == "rambler")))
    return {"quality": quality, "coherence": coherence}


def wait_for(condition, worker, what: str, seconds: float = 90):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert worker.alive(), f"the worker died:\n{worker.log_text()}"
        assert time.monotonic() < deadline, f"{what} did not happen; worker log:\n{worker.log_text()}"
        time.sleep(0.5)
    return found


def test_outputs_ratings_metrics_and_meta_evaluation_through_the_real_services(
    celery_worker_process, live_server, researcher, annotators, settings
):
    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 1
    worker, base = celery_worker_process, live_server.url
    api = requests.Session()
    api.headers["Authorization"] = f"Token {Token.objects.create(user=researcher).key}"
    created = api.post(
        f"{base}/api/projects/",
        json={
            "name": "Summaries",
            "task_type": "likert",
            "config": {"dimensions": ["quality", "coherence"], "scale": [1, 5]},
            "assignments_per_task": 2,
            "annotators": [a.username for a in annotators[:2]],
        },
    )
    assert created.status_code == 201, created.text
    project = created.json()["id"]
    texts = {(s, f"in{i}"): output_text(s, i) for s in SYSTEMS for i in range(len(INPUTS))}
    body = {
        "topics": [{"id": i, "title": f"Source {i}", "description": "a source text"} for i in INPUTS],
        "documents": [{"id": f"{s}-{i}", "text": text} for (s, i), text in texts.items()],
        "items": [{"topic": i, "document": f"{s}-{i}", "system": s, "input": i} for s, i in texts],
        "references": [
            {"input": f"in{n}", "text": text, "writer": f"writer{w}"}
            for n in range(len(INPUTS))
            for w, text in enumerate(references(n))
        ],
    }
    imported = api.post(f"{base}/api/projects/{project}/import/", json=body)
    assert imported.status_code == 201, imported.text
    assert imported.json()["tasks_created"] == 20 and imported.json()["references_created"] == 10

    # Two annotators rate every output on the judging pages (they never see the system's name).
    output_of = {text: key for key, text in texts.items()}
    for index, annotator in enumerate(annotators[:2], start=1):
        session = web_login(base, annotator.username, f"annotator{index}-password")
        page = post_form(session, base, f"/projects/{project}/next/").text
        rated = 0
        while (form := re.search(r'action="(/projects/\d+/assignments/\d+/submit/)"', page)) is not None:
            shown = [text for text in output_of if html.escape(text) in page]
            assert len(shown) == 1, shown  # each output's text is unique
            system, _ = output_of[shown[0]]
            scores = rating(system, index)
            fields = {f"scores.{dimension}": str(value) for dimension, value in scores.items()}
            page = post_form(session, base, form.group(1), **fields).text
            rated += 1
        assert rated == 20 and "nothing left for you to judge" in page

    snapshot = wait_for(
        lambda: GroundTruthSnapshot.objects.filter(project_id=project, input_judgement_count=40).first(),
        worker,
        "a snapshot of all 40 ratings",
    )

    # The worker scores every output against its input's two references.
    requested = api.post(f"{base}/api/projects/{project}/text-evaluations/", json={"stem": True})
    assert requested.status_code == 202, requested.text
    job = wait_for(
        lambda: (j := api.get(requested.json()["url"]).json())["status"] == "done" and j,
        worker,
        "the text evaluation",
    )
    assert job["output_count"] == 20
    outputs = api.get(
        f"{base}/api/projects/{project}/text-evaluations/{job['id']}/outputs/", params={"page_size": 100}
    ).json()["results"]
    expected = score_outputs(
        [Output(s, i, text) for (s, i), text in texts.items()],
        {f"in{n}": references(n) for n in range(len(INPUTS))},
    )
    for row in outputs:
        assert row["scores"] == pytest.approx(expected.per_output[(row["system"], row["input"])], abs=1e-12)

    # The meta-evaluation, recomputed from the downloads with the pure functions.
    ratings = api.get(f"{base}/api/projects/{project}/snapshots/{snapshot.version}/ratings/").json()
    human = [(i["system"], i["input"], i["scores"]["quality"]["mean"]) for i in ratings["items"]]
    metric = [(row["system"], row["input"], row["scores"]["rouge2"]) for row in outputs]
    pairs = paired(metric, human)
    matrix_url = f"{base}/api/projects/{project}/text-evaluations/{job['id']}/meta-evaluation/"
    researcher_page = web_login(base, researcher.username, "owner-password")
    for level in ("summary", "system", "global"):
        for method in ("pearson", "spearman", "kendall"):
            value = level_correlation(pairs, level, method)
            matrix = api.get(matrix_url, params={"level": level, "method": method}).json()
            cell = matrix["cells"]["rouge2"]["quality"]
            if not POINTS_FOR_CORRELATION.met(cell["n"]):  # the 4 systems: no value, the reason
                assert cell["value"] is None and cell["reason"].startswith(
                    "too few systems for a correlation"
                )
                continue
            assert cell["value"] == pytest.approx(value, abs=1e-12)
            if (level, method) not in PAGE_CHECKS:
                continue
            shown = researcher_page.get(
                f"{base}/projects/{project}/meta-evaluation/",
                params={"level": level, "method": method, "metric": "rouge2", "dimension": "quality"},
            ).text
            row = re.search(r'<th scope="row">rouge2</th>(.*?)</tr>', shown, re.S).group(1)
            first_cell = re.search(r"#scatter-heading\">([^<]+)</a>", row).group(1)
            assert first_cell == f"{value:.2f}".replace("-", "−"), (level, method)
    # Williams' test of ROUGE-2 against BLEU on the page's scatter data, from the downloads too.
    scatter = api.get(
        f"{base}/api/projects/{project}/text-evaluations/{job['id']}/scatter/",
        params={"metric": "rouge2", "dimension": "quality"},
    ).json()
    means = {
        name: {s: sum(r["scores"][name] for r in outputs if r["system"] == s) / len(INPUTS) for s in SYSTEMS}
        for name in ("rouge2", "bleu")
    }
    human_means = {s: sum(v for sy, _, v in human if sy == s) / len(INPUTS) for s in SYSTEMS}
    # Four systems are too few for Williams' test (annotation.crowd.minimums): none, and the same reason.
    by_hand = williams_tests("rouge2", means, human_means)
    assert by_hand.tests == [] and scatter["williams"] == []
    assert (
        scatter["williams_reason"]
        == by_hand.reason
        == "too few systems for Williams' test (4; needs at least 8)"
    )
