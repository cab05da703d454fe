"""Create the demo accounts and the demo campaign (idempotent: does nothing if the project exists).

1. Accounts: the researcher, the three human demo annotators (who log in with the demo password)
   and the simulated annotators (``simulated-1`` …, who cannot log in).
2. The project: the shipped Cranfield subset (topics, documents, five systems' runs) imported and
   pooled to depth 10, k = 3 judgements per task.
3. The simulated crowd (``evaluation.demo.simulate``) judges the best-ranked 85 % of the pool, all
   k judgements of each task, stored by the assignment engine as submitted leases, judgements and
   revisions (``annotation.judging.assignment.record_judgements``), dated as if each simulated annotator
   had worked through theirs at its own pace until now (so the project page's rate, forecast and
   charts show a crowd at work); the rest of the pool is left for the human demo annotators, whom
   the engine serves as usual.
4. A first ground truth is requested; without a worker it is computed here and now, so the demo
   has a snapshot as soon as the command ends.

5. Cranfield's official qrels for the demo's topics are imported as external reference qrels, and
   the five runs are evaluated against the snapshot and against them (without a worker, here and
   now), so the leaderboard, its checks and the crowd-against-reference comparison are there at once.

6. The text campaign (``evaluation.demo.text_campaign``): four simple summarisers' outputs for 40
   Cranfield abstracts, each abstract's title as its reference, rated on two dimensions by the
   simulated raters (all but the last few inputs, left for the human demo annotators), its ground
   truth and a text evaluation (without a worker, here and now), so the Systems and Metrics vs
   humans pages are full at once.

7. The Pyramid campaign (``evaluation.demo.pyramid_campaign``): the same summarisers on 12 abstracts,
   content units written by a program from each title (labelled so), imported by the Pyramid import
   and judged present or absent by the simulated workers (all but the last two abstracts, left for
   the human demo annotators); its ground truth and a text evaluation, so its Pyramid, Systems and
   Metrics vs humans pages are full at once.

8. The paid crowd (``evaluation.demo.paid_crowd``): a relevance project with a Prolific study link and
   an MTurk link, a consent form and questions about the workers, pay settings; twelve simulated
   workers (a program, not people; their platform ids made up) arrive by the links, consent, answer,
   and judge a session each through the assignment engine; the budget is set at twice what they cost
   (half spent), and a Prolific bulk bonus file is made.

Steps 1–3 are one transaction, and step 6's project and ratings another, step 7's a third, step 8's a
fourth: an error leaves the database as it was.
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from datetime import timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.test.utils import override_settings
from django.utils import timezone

from annotation.judging.assignment import (
    AssignmentError,
    RecordedJudgement,
    claim_next_task,
    items_left_for,
    record_judgements,
    submit_judgement,
)
from annotation.judging.platforms import Arrival, arrive, create_link, finished_session
from annotation.models import (
    Assignment,
    DemographicResponse,
    Judgement,
    JudgementRevision,
    Membership,
    Project,
    ProjectPay,
    Task,
)
from annotation.pay.costs import committed_cost
from annotation.pay.exports import make_payment_export
from annotation.permissions import RESEARCHERS_GROUP
from evaluation.collection.external_qrels import import_external_qrels
from evaluation.collection.flow import import_collection
from evaluation.demo import (
    DEMO_ANNOTATORS,
    DEMO_ASSIGNMENTS_PER_TASK,
    DEMO_PASSWORD,
    DEMO_POOL_DEPTH,
    DEMO_PROJECT_NAME,
    DEMO_RESEARCHER,
    DEMO_SIMULATED_SHARE,
    DEMO_SIMULATION_SEED,
    demo_documents,
    demo_reference_qrels,
    demo_runs,
    demo_topics,
)
from evaluation.demo.paid_crowd import (
    CONSENT as PAID_CONSENT,
)
from evaluation.demo.paid_crowd import (
    DEMO_PAID_DEPTH,
    DEMO_PAID_GOLD_DEPTH,
    DEMO_PAID_GOLD_TOPICS,
    DEMO_PAID_PROJECT_NAME,
    DEMO_PAID_SEED,
    DEMO_PAID_TOPICS,
    MTURK_SESSION,
    MTURK_WORKERS,
    PROLIFIC_SESSION,
    PROLIFIC_WORKERS,
    ranked_pairs,
    simulated_workers,
)
from evaluation.demo.paid_crowd import (
    QUESTIONS as PAID_QUESTIONS,
)
from evaluation.demo.pyramid_campaign import (
    DEMO_PYRAMID_INPUTS,
    DEMO_PYRAMID_PROJECT_NAME,
    WORKERS,
    simulate_answers,
    write_units,
)
from evaluation.demo.pyramid_campaign import import_body as pyramid_body
from evaluation.demo.simulate import DEMO_CROWD, simulate_judgements, submission_times
from evaluation.demo.text_campaign import (
    DEMO_TEXT_ANCHORS,
    DEMO_TEXT_DIMENSIONS,
    DEMO_TEXT_PROJECT_NAME,
    DEMO_TEXT_SCALE,
    RATERS,
    choose_inputs,
    simulate_ratings,
    summarise,
)
from evaluation.ground_truth.jobs import request_ground_truth_job
from evaluation.ground_truth.tasks import compute_ground_truth
from evaluation.jobs import embedded
from evaluation.metrics.trec.files import write_qrels
from evaluation.models import Evaluation, GroundTruthSnapshot
from evaluation.pyramid.importing import import_pyramid, unit_topic
from evaluation.scoring.jobs import request_evaluation
from evaluation.scoring.tasks import start_evaluation
from evaluation.texts.jobs import request_text_evaluation
from evaluation.texts.tasks import run_text_evaluation

# The name the demo's official Cranfield qrels go by in the project.
REFERENCE_NAME = "cranfield-official"

INSTRUCTIONS = """Read the **topic** (a question an aeronautical engineer asked in the 1960s), then the
document's abstract. Mark the document *relevant* if it would help answer the question, even partly.

*About this demo:* most items were already judged by **simulated annotators** (the accounts
`simulated-1` to `simulated-5`, made by a program with known error rates from Cranfield's own
relevance judgements, not by people). The items left are yours to judge."""

TEXT_INSTRUCTIONS = """The topic is an abstract from the Cranfield collection; the output is a system's
one-line summary of it. Rate **informativeness** (does it say what the abstract is about?) and
**fluency** (does it read as good English?), 1 (very poor) to 5 (excellent).

*About this demo:* the systems are four simple summarisers, each abstract's title is its reference
summary, and most outputs were already rated by **simulated raters** (`simulated-1` to
`simulated-3`, a program, not people). The outputs of the last abstracts are yours to rate."""
# The outputs of this many inputs (the last ones) are left for the human demo annotators.
TEXT_INPUTS_LEFT_TO_RATE = 5
PYRAMID_INPUTS_LEFT_TO_JUDGE = 2
PYRAMID_INSTRUCTIONS = (
    "Each task shows one short statement, a content unit of a reference summary, and a summary written by "
    "a system. Answer Present (key p) if the summary says what the statement says, in any words; Absent "
    "(key a) if it does not, or says only part of it. The statements were written by a program from the "
    "abstracts' titles."
)


class Command(BaseCommand):
    help = (
        "Load the demo campaign (Cranfield subset, five systems' runs, a simulated crowd's judgements "
        "for most of the pool) with a researcher and three annotator accounts."
    )

    def handle(self, *args, **options):
        # Without a worker, a job requested (recording the simulated judgements requests one as it
        # commits) would start on a timer thread that dies with this command; "manual" only queues
        # it in memory, and step 4 runs it here instead.
        with override_settings(GROUND_TRUTH_EMBEDDED_RUNNER="manual"):
            with transaction.atomic():
                project = self.load()
            if project is None:
                self.stdout.write("Demo project already loaded.")
                return
            self.first_ground_truth(project)
            self.first_evaluations(project)
            with transaction.atomic():
                text_project = self.text_campaign()
            if text_project is not None:
                self.first_ground_truth(text_project)
                self.first_text_evaluation(text_project)
            with transaction.atomic():
                pyramid_project = self.pyramid_campaign()
            if pyramid_project is not None:
                self.first_ground_truth(pyramid_project)
                self.first_text_evaluation(pyramid_project)
            with transaction.atomic():
                paid_project = self.paid_crowd()
            if paid_project is not None:
                self.first_ground_truth(paid_project)

    def load(self) -> Project | None:
        """Steps 1–3; None if the demo project already exists."""
        researcher, humans, simulated = self.accounts()
        if Project.objects.filter(name=DEMO_PROJECT_NAME, owner=researcher).exists():
            return None
        project = Project.objects.create(
            name=DEMO_PROJECT_NAME,
            owner=researcher,
            instructions=INSTRUCTIONS,
            assignments_per_task=DEMO_ASSIGNMENTS_PER_TASK,
        )
        project.annotators.set([*humans, *simulated.values()])
        summary = import_collection(
            project,
            topics=demo_topics(),
            documents=demo_documents(),
            runs=demo_runs(),
            pool_depth=DEMO_POOL_DEPTH,
        )
        self.stdout.write(
            f"Demo project loaded: {summary.topics_created} topics, {summary.documents_created} documents, "
            f"{summary.runs_created} runs pooled to depth {DEMO_POOL_DEPTH}, "
            f"{summary.tasks_created} tasks (k = {DEMO_ASSIGNMENTS_PER_TASK})."
        )
        self.simulate_crowd(project, simulated)
        return project

    def text_campaign(self) -> Project | None:
        """Step 6: the summaries project, its outputs and references, and the simulated ratings."""
        researcher, humans, simulated = self.accounts()
        if Project.objects.filter(name=DEMO_TEXT_PROJECT_NAME, owner=researcher).exists():
            return None
        project = Project.objects.create(
            name=DEMO_TEXT_PROJECT_NAME,
            owner=researcher,
            task_type="likert",
            config={
                "dimensions": list(DEMO_TEXT_DIMENSIONS),
                "scale": list(DEMO_TEXT_SCALE),
                "anchors": dict(DEMO_TEXT_ANCHORS),
            },
            instructions=TEXT_INSTRUCTIONS,
            assignments_per_task=len(RATERS),
        )
        project.annotators.set([*humans, *(simulated[name] for name, _, _ in RATERS)])
        inputs = choose_inputs(demo_documents())
        outputs = summarise(inputs)
        import_collection(
            project,
            topics=[{"id": i.id, "title": f"Abstract {i.id}", "description": i.text} for i in inputs],
            documents=[{"id": f"{o.input}-{o.system}", "text": o.text} for o in outputs],
            items=[
                {"topic": o.input, "document": f"{o.input}-{o.system}", "system": o.system, "input": o.input}
                for o in outputs
            ],
            references=[{"input": i.id, "text": i.title, "writer": "the abstract's authors"} for i in inputs],
        )
        tasks = {(t.system_id, t.input_id): t for t in project.tasks.filter(kind=Task.Kind.ITEM)}
        left = {i.id for i in inputs[-TEXT_INPUTS_LEFT_TO_RATE:]}
        ratings = [r for r in simulate_ratings(inputs, outputs) if r.input not in left]
        record_at_their_pace(
            project,
            [
                RecordedJudgement(
                    tasks[(r.system, r.input)],
                    simulated[r.rater],
                    {"scores": r.scores},
                    seconds_spent=r.seconds,
                )
                for r in ratings
            ],
            ratings,
        )
        self.stdout.write(
            f"Text campaign loaded: {len(outputs)} outputs of {len(outputs) // len(inputs)} summarisers "
            f"for {len(inputs)} abstracts, each title as the reference; {len(ratings)} simulated ratings "
            f"(made by a program, not by people); the outputs of {len(left)} abstracts are left to rate."
        )
        return project

    def pyramid_campaign(self) -> Project | None:
        """Step 7: the LitePyramid project, its import and the simulated presence answers."""
        researcher, humans, simulated = self.accounts()
        if Project.objects.filter(name=DEMO_PYRAMID_PROJECT_NAME, owner=researcher).exists():
            return None
        project = Project.objects.create(
            name=DEMO_PYRAMID_PROJECT_NAME,
            owner=researcher,
            task_type="scu_presence",
            instructions=PYRAMID_INSTRUCTIONS,
            assignments_per_task=len(WORKERS),
        )
        project.annotators.set([*humans, *(simulated[name] for name, _ in WORKERS)])
        inputs = choose_inputs(demo_documents(), DEMO_PYRAMID_INPUTS)
        chosen = {i.id for i in inputs}
        outputs = [o for o in summarise(choose_inputs(demo_documents())) if o.input in chosen]
        units = write_units(inputs)
        counts = import_pyramid(project, pyramid_body(inputs, units, outputs))
        tasks = {
            (t.system_id, t.input_id, t.topic.external_id): t
            for t in project.tasks.filter(kind=Task.Kind.ITEM).select_related("topic")
            if t.topic is not None  # every presence item's topic is its content unit
        }
        left = {i.id for i in inputs[-PYRAMID_INPUTS_LEFT_TO_JUDGE:]}
        answers = [a for a in simulate_answers(units, outputs) if a.input not in left]
        record_at_their_pace(
            project,
            [
                RecordedJudgement(
                    tasks[(a.system, a.input, unit_topic(a.input, a.unit))],
                    simulated[a.worker],
                    {"label": a.label},
                    seconds_spent=a.seconds,
                )
                for a in answers
            ],
            answers,
        )
        self.stdout.write(
            f"Pyramid campaign loaded: {counts['units_created']} content units written by a program from "
            f"{len(inputs)} titles, {counts['summaries_created']} summaries, {counts['tasks_created']} "
            f"presence items; {len(answers)} simulated answers (made by a program, not by people); the items "
            f"of {len(left)} abstracts are left to judge."
        )
        return project

    def paid_crowd(self) -> Project | None:
        """Step 8: the paid crowd's project, links and pay, and the simulated workers' sessions."""
        researcher, humans, _simulated = self.accounts()
        if Project.objects.filter(name=DEMO_PAID_PROJECT_NAME, owner=researcher).exists():
            return None
        project = Project.objects.create(
            name=DEMO_PAID_PROJECT_NAME,
            owner=researcher,
            instructions=INSTRUCTIONS.split("*About this demo:*")[0]
            + "*About this demo:* the paid workers here were simulated by a program, not people.",
            assignments_per_task=3,
            gold_rate=0.15,
            consent_text=PAID_CONSENT,
            demographics=PAID_QUESTIONS,
        )
        project.annotators.set(humans)
        topics = [t["id"] for t in demo_topics()]
        qrels, run = demo_reference_qrels(), demo_runs()[0]
        items = ranked_pairs(run, qrels, topics[:DEMO_PAID_TOPICS], DEMO_PAID_DEPTH)
        gold_topics = topics[DEMO_PAID_TOPICS : DEMO_PAID_TOPICS + DEMO_PAID_GOLD_TOPICS]
        gold = ranked_pairs(run, qrels, gold_topics, DEMO_PAID_GOLD_DEPTH)
        chosen = {t for t, _, _ in items + gold}
        named = {d for _, d, _ in items + gold}
        import_collection(
            project,
            topics=[t for t in demo_topics() if t["id"] in chosen],
            documents=[d for d in demo_documents() if d["id"] in named],
            items=[{"topic": t, "document": d} for t, d, _ in items],
            gold=[{"topic": t, "document": d, "answer": {"label": r}} for t, d, r in gold],
        )
        links = {
            "prolific": create_link(
                project,
                researcher,
                platform="prolific",
                note="demo: simulated participants",
                tasks_per_session=PROLIFIC_SESSION,
                completion_code="CRANDEMO",
                screenout_code="CRANOUT",
                gold_failures_allowed=2,
            ),
            "mturk": create_link(
                project,
                researcher,
                platform="mturk",
                note="demo: simulated workers",
                tasks_per_session=MTURK_SESSION,
            ),
        }
        pay = ProjectPay.objects.create(
            project=project,
            currency="GBP",
            per_judgement=Decimal("0.08"),
            per_hour=Decimal("6.00"),
            fee_percent=Decimal("33.33"),
            bonus_per_gold_right=Decimal("0.02"),
            session_bonus=Decimal("0.10"),
        )
        truth = {(t, d): r for t, d, r in items + gold}
        rng = random.Random(DEMO_PAID_SEED)
        recorded: list[Judgement] = []
        offsets: list[float] = []
        for number, worker in enumerate(simulated_workers()):
            link = links[worker.platform]
            session = arrive(link, Arrival(worker.platform_id, f"demo-{number}", "demo-study"))
            annotator = session.worker.annotator
            Membership.objects.filter(project=project, annotator=annotator).update(
                consented_at=timezone.now(), demographics_at=timezone.now()
            )
            DemographicResponse.objects.create(project=project, annotator=annotator, answers=worker.answers)
            clock = -3600.0 * (PROLIFIC_WORKERS + MTURK_WORKERS - number) / 4  # their session, hours ago
            for _ in range(link.tasks_per_session or 0):
                try:
                    lease = claim_next_task(project, annotator, rng=rng)
                except AssignmentError:  # screened out (too many gold items wrong)
                    break
                if lease is None:
                    break
                task = lease.task
                assert task.topic is not None  # a relevance item has its topic
                label = worker.label(truth[(task.topic.external_id, task.document.external_id)], rng)
                judgement = submit_judgement(lease.pk, annotator, {"label": label}).judgement
                judgement.seconds_on_task = judgement.seconds_spent = worker.seconds(rng)
                clock += judgement.seconds_on_task
                recorded.append(judgement)
                offsets.append(clock)
            session_over(project, annotator)  # full: its outcome stored, as their judging page would
        Judgement.objects.bulk_update(recorded, ["seconds_on_task", "seconds_spent"])
        date_judgements(recorded, offsets)
        committed, _seconds = committed_cost(project, pay)
        pay.budget = (committed * 2).quantize(Decimal("0.01"))
        pay.save(update_fields=["budget"])
        export = make_payment_export(project, "prolific", researcher)
        self.stdout.write(
            f"Paid crowd loaded: {len(recorded)} judgements by {len(simulated_workers())} simulated paid "
            "workers (a program, not people) from a Prolific and an MTurk link; budget "
            f"{pay.budget} GBP, half spent; a Prolific bonus file of {export.total if export else 0} "
            "GBP made."
        )
        return project

    def first_text_evaluation(self, project: Project) -> None:
        """Step 6's text evaluation; without a worker, run here before the command ends."""
        evaluation = request_text_evaluation(project)
        if not run_text_evaluation.app.conf.task_always_eager:
            self.stdout.write("Text evaluation: queued for the worker.")
            return
        run_text_evaluation.apply((evaluation.pk,), throw=True)
        embedded.run_queued()
        evaluation.refresh_from_db()
        self.stdout.write(
            self.style.SUCCESS(
                f"Text evaluation {evaluation.pk}: {evaluation.status}, {evaluation.output_count} outputs "
                "scored: see Systems and Metrics vs humans."
            )
        )

    def accounts(self):
        users = get_user_model()
        researchers, _ = Group.objects.get_or_create(name=RESEARCHERS_GROUP)

        def account(username: str, *, human: bool = True, first_name: str = ""):
            user, created = users.objects.get_or_create(username=username)
            if created:
                if human:
                    user.set_password(DEMO_PASSWORD)
                else:
                    user.set_unusable_password()
                user.first_name = first_name
                user.save()
            return user

        researcher = account(DEMO_RESEARCHER)
        researcher.groups.add(researchers)
        humans = [account(name) for name in DEMO_ANNOTATORS]
        simulated = {
            a.name: account(a.name, human=False, first_name="Simulated annotator") for a in DEMO_CROWD
        }
        return researcher, humans, simulated

    def simulate_crowd(self, project: Project, simulated: dict) -> None:
        """Step 3: the simulated judgements of the best-ranked tasks, stored by the assignment engine."""
        tasks = list(
            Task.objects.filter(project=project, kind=Task.Kind.ITEM)
            .order_by("pool_rank", "id")  # the order the engine serves them in
            .select_related("topic", "document")
        )
        # Pooled items always have a topic (runs rank documents for a topic).
        judged = {(t.topic.external_id if t.topic else "", t.document.external_id): t for t in tasks}
        judged = dict(list(judged.items())[: round(DEMO_SIMULATED_SHARE * len(tasks))])
        judgements = simulate_judgements(
            list(judged),
            demo_reference_qrels(),
            per_task=project.assignments_per_task,
            seed=DEMO_SIMULATION_SEED,
        )
        record_at_their_pace(
            project,
            [
                RecordedJudgement(judged[j.task], simulated[j.annotator], j.label, seconds_spent=j.seconds)
                for j in judgements
            ],
            judgements,
        )
        left = len(tasks) - len(judged)
        self.stdout.write(
            f"Simulated judgements (made by a program, not by people): {len(judgements)} by "
            f"{', '.join(simulated)} on {len(judged)} of {len(tasks)} tasks "
            f"({100 * len(judged) / max(len(tasks), 1):.0f} %); {left} tasks are left to judge "
            f"as {', '.join(DEMO_ANNOTATORS)} (password {DEMO_PASSWORD})."
        )

    def first_evaluations(self, project: Project) -> None:
        """Step 5: the official qrels as the reference, and the runs scored against both ground truths
        (the snapshot's evaluation was requested when the snapshot was written)."""
        out = io.StringIO()
        write_qrels(demo_reference_qrels(), out)
        reference = import_external_qrels(project, REFERENCE_NAME, out.getvalue())
        request_evaluation(project, external_qrels=reference)
        if not compute_ground_truth.app.conf.task_always_eager:
            self.stdout.write("Evaluations: queued for the worker.")
            return
        # Run them here: each is sent once its request commits, which a caller's transaction (a
        # test's) may postpone past this command; a second start of a started job does nothing.
        for evaluation in project.evaluations.filter(status=Evaluation.Status.QUEUED):
            start_evaluation.apply((evaluation.pk,), throw=True)
        embedded.run_queued()
        done = project.evaluations.filter(status=Evaluation.Status.DONE).count()
        self.stdout.write(
            self.style.SUCCESS(
                f"Reference qrels {REFERENCE_NAME!r} imported ({reference.relevant_count} relevant); "
                f"{done} evaluations of the {project.runs.count()} runs done: see the leaderboard."
            )
        )

    def first_ground_truth(self, project: Project) -> None:
        """Step 4: request the ground-truth job; without a worker, run it before the command ends."""
        job = request_ground_truth_job(project.pk).job  # the one the submissions queued, if any
        if job is None:
            raise CommandError("no ground-truth job could be requested for the demo project")
        if not compute_ground_truth.app.conf.task_always_eager:
            self.stdout.write(f"Ground truth: job {job.pk} queued for the worker.")
            return
        compute_ground_truth.apply((project.pk, job.pk), throw=True)
        snapshot = GroundTruthSnapshot.objects.filter(project=project).order_by("-version").first()
        if snapshot is None:
            raise CommandError("the demo's ground-truth job wrote no snapshot")
        self.stdout.write(
            self.style.SUCCESS(
                f"Ground truth: snapshot v{snapshot.version} ({snapshot.method}) "
                f"from {snapshot.input_judgement_count} judgements, simulated ones included."
            )
        )


def session_over(project: Project, annotator) -> bool:
    """Has the link worker's session ended (its outcome then stored, as their judging page would)?"""
    member = Membership.objects.select_related("project").get(project=project, annotator=annotator)
    return finished_session(member, lambda: items_left_for(project, annotator)) is not None


def record_at_their_pace(
    project: Project, recorded: Sequence[RecordedJudgement], simulated: Sequence
) -> None:
    """Store simulated judgements through the assignment engine, each dated as its simulated annotator's
    own pace over the past hours made it (``simulate.submission_times``): hundreds in one instant made a
    rate of thousands per hour and a chart of one bar."""
    date_judgements(record_judgements(project, recorded), submission_times(simulated, end=0.0))


def date_judgements(judgements: Sequence[Judgement], seconds_from_now: Sequence[float]) -> None:
    """Give recorded judgements the times they were made (seconds relative to now, negative in the
    past): the judgement and its first revision when submitted, the lease when the task was shown."""
    now = timezone.now()
    when = {
        j.pk: now + timedelta(seconds=offset) for j, offset in zip(judgements, seconds_from_now, strict=True)
    }
    leases = []
    for judgement in judgements:
        judgement.created_at = judgement.updated_at = when[judgement.pk]
        shown = when[judgement.pk] - timedelta(seconds=judgement.seconds_on_task or 0)
        leases.append(Assignment(pk=judgement.assignment_id, created_at=shown, shown_at=shown))
    Judgement.objects.bulk_update(judgements, ["created_at", "updated_at"], batch_size=1000)
    Assignment.objects.bulk_update(leases, ["created_at", "shown_at"], batch_size=1000)
    revisions = list(JudgementRevision.objects.filter(judgement__in=when, number=1).only("judgement_id"))
    for revision in revisions:
        revision.created_at = when[revision.judgement_id]
    JudgementRevision.objects.bulk_update(revisions, ["created_at"], batch_size=1000)
