"""DialSummEval through the app, as a researcher would bring it: 14 summarisers × 100 SAMSum dialogues
imported over the API (each summary an item naming its system and dialogue, the SAMSum reference as the
dialogue's reference), the 3 annotators' 4-dimension ratings imported as judgements, the ground truth
built, the outputs scored by a text evaluation job, and the meta-evaluation read over the API.

Checked against PROVENANCE.md: mean relevance per system (GOLD 4.170, LONGEST_3 4.427, BART 3.633, PGN
2.347, Transformer 1.797); Krippendorff's alpha per dimension, interval and ordinal (coherence 0.553 /
0.475, consistency 0.493 / 0.407, fluency 0.134 / 0.010, relevance 0.387 / 0.312); BART's mean ROUGE
against the reference with rouge-score, unstemmed (0.5179 / 0.2928 / 0.4525); and every correlation
equal to SciPy's on the same vectors. A test fixture only: DialSummEval's terms forbid shipping it.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rouge_score import rouge_scorer
from scipy import stats

from annotation.models import Project
from evaluation.jobs import embedded
from evaluation.texts.systems import system_table
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

MODELS = dict(zip("ABCDEFGHIJKLMN", ["GOLD", "LONGEST_3", "LEAD_3", "PGN", "Transformer", "BART", "PEGASUS",
              "UniLM", "CODS", "ConvoSumm", "MV_BART", "PLM", "PNEP", "S_BART"], strict=True))  # fmt: skip
DIMENSIONS = ["consistency", "relevance", "fluency", "coherence"]
ALPHA = {  # PROVENANCE.md: interval, ordinal
    "coherence": (0.553, 0.475),
    "consistency": (0.493, 0.407),
    "fluency": (0.134, 0.010),
    "relevance": (0.387, 0.312),
}


def test_dialsummeval_through_the_app_gives_the_published_figures(
    data_set, researcher, django_capture_on_commit_callbacks
):
    rows = [json.loads(line) for line in (data_set("summ_dialsummeval") / "human_judgment.jsonl").open()]
    assert len(rows) == 1400
    project = Project.objects.create(
        name="DialSummEval", owner=researcher, task_type="likert", assignments_per_task=3,
        config={"dimensions": DIMENSIONS, "scale": [1, 5]},
    )  # fmt: skip
    client = api(researcher)
    dialogues = {row["id"]: row["dialogue"] for row in rows}
    gold = {row["id"]: row["summary"] for row in rows if row["model_id"] == "A"}
    body = {
        "topics": [{"id": d, "title": f"Dialogue {d}", "description": text} for d, text in dialogues.items()],
        "documents": [{"id": f"{r['id']}-{r['model_id']}", "text": r["summary"]} for r in rows],
        "items": [
            {
                "topic": r["id"],
                "document": f"{r['id']}-{r['model_id']}",
                "system": MODELS[r["model_id"]],
                "input": r["id"],
            }
            for r in rows
        ],
        "references": [{"input": d, "text": text, "writer": "SAMSum"} for d, text in gold.items()],
    }
    imported = client.post(reverse("import-api", args=[project.pk]), body, format="json")
    assert imported.status_code == 201, imported.content[:500]
    assert imported.json()["tasks_created"] == 1400 and imported.json()["references_created"] == 100
    judgements = [
        {"topic": r["id"], "document": f"{r['id']}-{r['model_id']}", "annotator": f"dialsummeval-{n + 1}",
         "answer": {"scores": {d: annotation[d] for d in DIMENSIONS}}}
        for r in rows
        for n, annotation in enumerate(r["annotations"])
    ]  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        stored = client.post(
            reverse("judgement-import-api", args=[project.pk]),
            {"judgements": judgements, "create_annotators": True},
            format="json",
        )
    assert stored.status_code == 201, stored.content[:500]
    assert stored.json() == {"judgements_created": 4200, "items": 1400, "annotators": 3}
    embedded.run_queued()  # the ground-truth job the import requested
    snapshot = project.snapshots.get()

    # Per-system human scores and the agreement per dimension, as PROVENANCE.md reports them.
    table = system_table(snapshot)
    relevance = {system: table["cells"][system]["relevance"].mean for system in table["systems"]}
    expected = {"GOLD": 4.170, "LONGEST_3": 4.427, "BART": 3.633, "PGN": 2.347, "Transformer": 1.797}
    assert {system: round(relevance[system], 3) for system in expected} == expected
    for dimension, (interval, ordinal) in ALPHA.items():
        figures = snapshot.agreement["dimensions"][dimension]
        assert round(figures["krippendorff_alpha"], 3) == interval, dimension
        assert round(figures["krippendorff_alpha_ordinal"], 3) == ordinal, dimension

    # The outputs scored against the SAMSum reference, unstemmed as PROVENANCE.md's rouge-score run.
    with django_capture_on_commit_callbacks(execute=True):
        requested = client.post(
            reverse("text-evaluations-api", args=[project.pk]), {"stem": False}, format="json"
        )
    embedded.run_queued()
    job = client.get(requested.json()["url"]).json()
    assert job["status"] == "done" and job["output_count"] == 1400, job
    bart = job["per_system"]["BART"]
    assert (round(bart["rouge1"], 4), round(bart["rouge2"], 4), round(bart["rougeL"], 4)) == (
        0.5179,
        0.2928,
        0.4525,
    )
    kit = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)
    outputs = client.get(
        reverse("text-evaluation-outputs-api", args=[project.pk, job["id"]]),
        {"system": "PGN", "page_size": 1000},
    ).json()["results"]
    summaries = {r["id"]: r["summary"] for r in rows if r["model_id"] == "D"}
    assert len(outputs) == 100
    for output in outputs:
        theirs = kit.score(gold[output["input"]], summaries[output["input"]])
        for name in ("rouge1", "rouge2", "rougeL"):
            assert output["scores"][name] == pytest.approx(theirs[name].fmeasure, abs=1e-12)

    # Every correlation equals SciPy's on the same vectors, at each level (ROUGE-2 against relevance).
    human = {
        (MODELS[r["model_id"]], r["id"]): sum(a["relevance"] for a in r["annotations"]) / 3 for r in rows
    }
    metric = {}
    for system in MODELS.values():
        page = client.get(
            reverse("text-evaluation-outputs-api", args=[project.pk, job["id"]]),
            {"system": system, "page_size": 1000},
        ).json()["results"]
        metric.update({(system, o["input"]): o["scores"]["rouge2"] for o in page})
    keys = sorted(human)
    url = reverse("meta-evaluation-api", args=[project.pk, job["id"]])
    flat = client.get(url, {"level": "global", "method": "kendall"}).json()["cells"]["rouge2"]["relevance"]
    assert flat["value"] == pytest.approx(
        stats.kendalltau([metric[k] for k in keys], [human[k] for k in keys]).statistic
    )
    systems = sorted(MODELS.values())
    mean = lambda table, s: sum(v for (system, _), v in table.items() if system == s) / 100  # noqa: E731
    by_system = client.get(url, {"level": "system", "method": "pearson"}).json()["cells"]["rouge2"][
        "relevance"
    ]
    assert by_system["value"] == pytest.approx(
        stats.pearsonr([mean(metric, s) for s in systems], [mean(human, s) for s in systems]).statistic
    )
    summary_level = client.get(url, {"level": "summary", "method": "spearman"}).json()["cells"]["rouge2"][
        "relevance"
    ]
    per_input = [
        stats.spearmanr([metric[(s, d)] for s in systems], [human[(s, d)] for s in systems]).statistic
        for d in sorted(dialogues)
    ]
    assert summary_level["value"] == pytest.approx(sum(per_input) / len(per_input))

    # Williams' test of ROUGE-2 against every other metric on relevance (system level, 14 systems),
    # equal to the formula on SciPy's Pearson correlations of the system means.
    from evaluation.metrics.meta_evaluation import williams_test

    scatter = client.get(
        reverse("scatter-api", args=[project.pk, job["id"]]),
        {"metric": "rouge2", "dimension": "relevance"},
    ).json()
    assert len(scatter["williams"]) == 9
    bleu = {}
    for system in MODELS.values():
        page = client.get(
            reverse("text-evaluation-outputs-api", args=[project.pk, job["id"]]),
            {"system": system, "page_size": 1000},
        ).json()["results"]
        bleu.update({(system, o["input"]): o["scores"]["bleu"] for o in page})
    human_means = [mean(human, s) for s in systems]
    rouge_means, bleu_means = [mean(metric, s) for s in systems], [mean(bleu, s) for s in systems]
    expected = williams_test(
        stats.pearsonr(human_means, rouge_means).statistic,
        stats.pearsonr(human_means, bleu_means).statistic,
        stats.pearsonr(rouge_means, bleu_means).statistic,
        14,
    )
    against_bleu = next(test for test in scatter["williams"] if test["second"] == "bleu")
    assert against_bleu["t"] == pytest.approx(expected.t)
    assert against_bleu["p_value"] == pytest.approx(expected.p_value)
    assert against_bleu["degrees_of_freedom"] == 11
