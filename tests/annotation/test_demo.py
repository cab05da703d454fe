"""The demo ships inside the project as a whole campaign: it loads without ../shared, with a
simulated crowd's judgements for most of the pool and a ground-truth snapshot, and loading twice
changes nothing."""

from __future__ import annotations

from collections import defaultdict

import pytest
from django.core.management import call_command

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Judgement, Project, Task
from annotation.progress.live import project_progress_figures
from evaluation.demo import (
    DEMO_ANNOTATORS,
    DEMO_DIR,
    DEMO_POOL_DEPTH,
    DEMO_PROJECT_NAME,
    demo_documents,
    demo_reference_qrels,
    demo_runs,
    demo_topics,
)
from evaluation.demo.simulate import DEMO_CROWD
from evaluation.models import GroundTruthSnapshot
from tests.conftest import PROJECT_DIR


def parsed_runs() -> dict[str, dict[str, list[str]]]:
    """tag -> topic -> documents in rank order, from the shipped run files."""
    runs: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for text in demo_runs():
        for line in text.splitlines():
            topic, _, document, rank, _, tag = line.split()
            assert int(rank) == len(runs[tag][topic]) + 1
            runs[tag][topic].append(document)
    return runs


def depth_pool() -> set[tuple[str, str]]:
    return {
        (topic, document)
        for run in parsed_runs().values()
        for topic, ranking in run.items()
        for document in ranking[:DEMO_POOL_DEPTH]
    }


def test_every_document_a_run_or_the_reference_qrels_name_is_shipped_and_no_other():
    shipped = {d["id"] for d in demo_documents()}
    named = {doc for run in parsed_runs().values() for ranking in run.values() for doc in ranking}
    named |= {doc for judged in demo_reference_qrels().values() for doc in judged}
    assert named == shipped


def test_the_shipped_runs_are_five_systems_over_the_demo_topics_cut_to_twenty():
    runs = parsed_runs()
    topics = {t["id"] for t in demo_topics()}
    assert len(runs) == 5 and {path.stem for path in DEMO_DIR.glob("*.run")} == set(runs)
    assert all(set(run) == topics and all(len(r) <= 20 for r in run.values()) for run in runs.values())
    assert set(demo_reference_qrels()) == topics and len(topics) == 25
    assert sum(path.stat().st_size for path in DEMO_DIR.iterdir() if path.is_file()) < 1_100_000


def test_the_reference_qrels_are_cranfields_own_for_the_demo_topics(data_set):
    official: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (data_set("cranfield") / "cranqrel").read_text().split("\n"):
        if line.strip():
            qid, docid, code = line.split()
            official[qid][docid] = int(int(code) > 0)  # codes 1-4 relevant, -1 judged not relevant
    assert demo_reference_qrels() == {topic: official[topic] for topic in demo_reference_qrels()}


@pytest.mark.django_db
def test_the_demo_is_a_campaign_with_a_simulated_crowd_a_snapshot_and_loads_once(capsys):
    assert DEMO_DIR == PROJECT_DIR / "evaluation" / "demo"  # shipped with the code, not read from ../shared
    call_command("load_demo")
    printed = capsys.readouterr().out
    call_command("load_demo")
    assert "Demo project already loaded." in capsys.readouterr().out
    project = Project.objects.get(name=DEMO_PROJECT_NAME)
    assert project.topics.count() == len(demo_topics()) == 25
    assert project.documents.count() == len(demo_documents())
    tasks = Task.objects.filter(project=project, kind=Task.Kind.ITEM)
    pooled = set(tasks.values_list("topic__external_id", "document__external_id"))
    assert pooled == depth_pool() and len(pooled) == 641
    assert tasks.filter(completed=True).count() == 545  # 85 %, all k = 3 judgements each
    judgements = Judgement.objects.filter(project=project)
    assert judgements.count() == 545 * 3
    assert set(judgements.values_list("annotator__username", flat=True)) == {a.name for a in DEMO_CROWD}
    assert "simulated" in printed and "not by people" in printed and "simulated-1" in project.instructions
    members = set(project.annotators.values_list("username", flat=True))
    assert members == set(DEMO_ANNOTATORS) | {a.name for a in DEMO_CROWD}
    assert project.owner.check_password("cranfield-demo")
    assert not any(project.annotators.get(username=a.name).has_usable_password() for a in DEMO_CROWD)
    snapshot = GroundTruthSnapshot.objects.get(project=project)  # one, however often it is loaded
    assert snapshot.input_judgement_count == 545 * 3 and snapshot.labels.count() == 545
    # The official qrels are the reference, and the five runs are scored against both ground truths.
    reference = project.external_qrels.get()
    assert reference.judgements == demo_reference_qrels()
    evaluations = project.evaluations.all()
    assert {(e.snapshot_id, e.external_qrels_id) for e in evaluations} == {
        (snapshot.pk, None),
        (None, reference.pk),
    }
    assert all(e.status == "done" and e.scores.count() == 5 for e in evaluations)
    assert "see the leaderboard" in printed
    # The crowd worked over the past hours, each at its own pace, not all in one instant; but the
    # simulated annotators cannot log in, so their last hour is no rate and makes no forecast: the
    # dashboard says so, and waits for the people who can judge.
    progress = project_progress_figures(project)
    assert progress["window_minutes"] == 60 and progress["annotators_in_window_not_counted"] == 5
    assert 0 < progress["judgements_in_window_not_counted"] < 545 * 3
    assert (progress["judgements_in_window"], progress["judgements_per_hour"]) == (0, 0)
    assert progress["hours_to_finish"] is None
    assert "who can no longer judge, not counted" in progress["text"]["rate"]
    assert progress["text"]["forecast"].startswith("unknown: no judgements in the last 60 min by annotators")
    first = judgements.order_by("created_at").first()
    assert (
        first.seconds_on_task
        == first.seconds_spent
        == pytest.approx((first.created_at - first.assignment.shown_at).total_seconds())
    )


@pytest.mark.django_db
def test_the_demo_annotators_judge_only_what_the_simulated_crowd_left(django_user_model):
    call_command("load_demo", verbosity=0)
    project = Project.objects.get(name=DEMO_PROJECT_NAME)
    human = django_user_model.objects.get(username=DEMO_ANNOTATORS[0])
    assert human.check_password("cranfield-demo")
    served = 0
    while (lease := claim_next_task(project, human)) is not None:
        assert not lease.task.judgements.exists()
        submit_judgement(lease.pk, human, 0)
        served += 1
    assert served == 641 - 545


@pytest.mark.django_db
def test_the_simulated_crowd_is_mostly_right_and_the_ground_truth_agrees_with_the_reference():
    call_command("load_demo", verbosity=0)
    project = Project.objects.get(name=DEMO_PROJECT_NAME)
    reference = demo_reference_qrels()
    right: dict[str, list[bool]] = defaultdict(list)
    for name, topic, document, label in Judgement.objects.filter(project=project).values_list(
        "annotator__username", "task__topic__external_id", "task__document__external_id", "label"
    ):
        right[name].append(label == reference[topic].get(document, 0))
    accuracy = {name: sum(hits) / len(hits) for name, hits in right.items()}
    assert sorted(accuracy.values())[0] < 0.6  # the careless one
    assert all(value > 0.75 for value in sorted(accuracy.values())[1:])
    snapshot = GroundTruthSnapshot.objects.get(project=project)
    labels = snapshot.labels.values_list("task__topic__external_id", "task__document__external_id", "label")
    agreeing = [label == reference[topic].get(document, 0) for topic, document, label in labels]
    assert sum(agreeing) / len(agreeing) > 0.85


@pytest.mark.django_db
def test_the_demo_has_a_text_campaign_rated_scored_and_ready_for_the_meta_evaluation(capsys):
    from evaluation.demo.text_campaign import DEMO_TEXT_PROJECT_NAME, RATERS, SYSTEMS, choose_inputs
    from evaluation.models import TextEvaluation
    from evaluation.texts.meta_report import correlation_matrix
    from evaluation.texts.systems import system_table

    call_command("load_demo")
    printed = capsys.readouterr().out
    assert "Text campaign loaded" in printed and "not by people" in printed
    project = Project.objects.get(name=DEMO_TEXT_PROJECT_NAME)
    inputs = choose_inputs(demo_documents())
    assert project.is_rating and project.tasks.filter(kind=Task.Kind.ITEM).count() == 4 * len(inputs)
    # Every input's reference is its abstract's title, the summary its authors wrote.
    titles = {i.id: i.title for i in inputs}
    assert dict(project.references.values_list("input_id", "text")) == titles
    # The simulated raters rated all but the last five abstracts' outputs; those are left to people.
    rated = 4 * (len(inputs) - 5)
    assert Judgement.objects.filter(project=project).count() == rated * len(RATERS)
    assert project.tasks.filter(kind=Task.Kind.ITEM, completed=False).count() == 4 * 5
    assert "simulated-1" in project.instructions
    # Each rater at their own pace over the past hours, not 420 ratings in one instant; and none of
    # them can judge now, so the dashboard makes no rate or forecast of them.
    times = sorted(Judgement.objects.filter(project=project).values_list("created_at", flat=True))
    assert (times[-1] - times[0]).total_seconds() > 3600 and len(set(times)) > 0.9 * len(times)
    assert all(j.seconds_on_task and j.seconds_on_task > 0 for j in Judgement.objects.filter(project=project))
    progress = project_progress_figures(project)
    assert progress["judgements_per_hour"] == 0 and progress["hours_to_finish"] is None
    assert progress["annotators_in_window_not_counted"] == len(RATERS)
    snapshot = GroundTruthSnapshot.objects.get(project=project)
    table = system_table(snapshot)
    assert set(table["systems"]) == set(SYSTEMS)
    assert all(
        table["alpha"][d] is not None and table["alpha_ordinal"][d] is not None for d in table["alpha"]
    )
    # Fluency as the simulation made it: whole sentences read best, a keyword list worst.
    fluency = {s: table["cells"][s]["fluency"].mean for s in SYSTEMS}
    assert fluency["lead-sentence"] > fluency["lead-words"] > fluency["keywords"]
    evaluation = TextEvaluation.objects.get(project=project)
    assert evaluation.status == "done" and evaluation.output_count == 4 * len(inputs)
    # Four summarisers are too few for a correlation over systems: the summary level has its values.
    system_level = correlation_matrix(evaluation, "system", "kendall")
    assert "too few systems for a correlation (4; needs at least 5)" in system_level["reasons"]
    matrix = correlation_matrix(evaluation, "summary", "kendall")
    assert set(matrix["dimensions"]) == {"informativeness", "fluency"}
    assert all(cell["value"] is not None for row in matrix["cells"].values() for cell in row.values())
    call_command("load_demo")
    assert TextEvaluation.objects.filter(project=project).count() == 1  # loaded once


@pytest.mark.django_db
def test_the_demo_has_a_litepyramid_campaign_judged_scored_and_against_rouge(capsys):
    """Issue 26, item 6: content units written by a program from the titles (labelled so), simulated
    presence answers, a snapshot, Pyramid scores per system, and ROUGE against LitePyramid."""
    from evaluation.demo.pyramid_campaign import (
        DEMO_PYRAMID_INPUTS,
        DEMO_PYRAMID_PROJECT_NAME,
        WORKERS,
        WRITTEN_BY,
        write_units,
    )
    from evaluation.demo.text_campaign import SYSTEMS, choose_inputs
    from evaluation.models import ContentUnit, TextEvaluation
    from evaluation.pyramid.scores import snapshot_pyramid
    from evaluation.texts.meta_report import correlation_matrix

    call_command("load_demo")
    printed = capsys.readouterr().out
    assert "Pyramid campaign loaded" in printed and "written by a program" in printed
    project = Project.objects.get(name=DEMO_PYRAMID_PROJECT_NAME)
    inputs = choose_inputs(demo_documents(), DEMO_PYRAMID_INPUTS)
    units = write_units(inputs)
    assert project.task_type == "scu_presence" and ContentUnit.objects.filter(project=project).count() == len(
        units
    )
    assert set(ContentUnit.objects.filter(project=project).values_list("written_by", flat=True)) == {
        WRITTEN_BY
    }
    items = project.tasks.filter(kind=Task.Kind.ITEM)
    assert items.count() == len(SYSTEMS) * len(units)
    left = {i.id for i in inputs[-2:]}
    judged = [u for u in units if u.input not in left]
    assert Judgement.objects.filter(project=project).count() == len(SYSTEMS) * len(judged) * len(WORKERS)
    assert items.filter(completed=False).count() == len(SYSTEMS) * (len(units) - len(judged))
    scores = snapshot_pyramid(GroundTruthSnapshot.objects.get(project=project))
    assert {row["system"] for row in scores["systems"]} == set(SYSTEMS)
    # The simulation's truth: a whole first sentence says more of the title than a cut one or keywords.
    lite = {row["system"]: row["lite_pyramid"]["mean"] for row in scores["systems"]}
    assert lite["lead-sentence"] == max(lite.values())
    assert all(row["agreement"]["fleiss_kappa"] > 0.3 for row in scores["systems"])
    evaluation = TextEvaluation.objects.get(project=project)
    assert evaluation.status == "done" and evaluation.output_count == len(SYSTEMS) * len(inputs)
    matrix = correlation_matrix(evaluation, "summary", "kendall")
    assert matrix["dimensions"] == ["pyramid", "modified_pyramid", "lite_pyramid"]
    assert matrix["cells"]["rouge1"]["lite_pyramid"]["value"] is not None


@pytest.mark.django_db
def test_the_demo_has_a_paid_crowd_from_prolific_and_mturk_with_costs_and_a_budget_half_spent(capsys):
    """Issue 23, item 5: a Prolific link and an MTurk link, simulated paid workers (labelled as a
    program), consent and questions answered, costs, a budget half spent, a payments export."""
    from decimal import Decimal

    from annotation.crowd.pay import parse_prolific_bulk_bonus
    from annotation.models import DemographicResponse, PaymentExport, PlatformWorker, StudyLink, StudySession
    from annotation.pay.costs import campaign, committed_cost
    from evaluation.demo.paid_crowd import DEMO_PAID_PROJECT_NAME, MTURK_WORKERS, PROLIFIC_WORKERS

    call_command("load_demo")
    printed = capsys.readouterr().out
    assert "Paid crowd loaded" in printed and "a program, not people" in printed
    project = Project.objects.get(name=DEMO_PAID_PROJECT_NAME)
    assert (
        "simulated by a program" in project.instructions and "simulated by a program" in project.consent_text
    )
    assert sorted(project.study_links.values_list("platform", flat=True)) == ["mturk", "prolific"]
    workers = PlatformWorker.objects.filter(project=project)
    assert workers.filter(platform="prolific").count() == PROLIFIC_WORKERS
    assert workers.filter(platform="mturk").count() == MTURK_WORKERS
    assert DemographicResponse.objects.filter(project=project).count() == PROLIFIC_WORKERS + MTURK_WORKERS
    # Each worker judged a session of their link's size (or until nothing was left for them).
    sizes = dict(StudyLink.objects.filter(project=project).values_list("platform", "tasks_per_session"))
    for worker in workers:
        judged = Judgement.objects.filter(annotator=worker.annotator).count()
        assert 1 <= judged <= sizes[worker.platform]
    assert set(StudySession.objects.filter(link__project=project).values_list("outcome", flat=True)) <= {
        "completed",
        "screened_out",
    }
    pay, cost, _ = campaign(project)
    assert cost.total_cost > 0 and cost.judgements == Judgement.objects.filter(project=project).count()
    committed, _ = committed_cost(project, pay)
    assert abs(pay.budget - 2 * committed) <= Decimal("0.01")  # half spent
    export = PaymentExport.objects.get(project=project)
    paid = parse_prolific_bulk_bonus(export.text)
    assert set(paid) <= set(workers.filter(platform="prolific").values_list("platform_id", flat=True))
    assert sum(paid.values()) == export.total > 0
