"""System runs, versioned ground-truth snapshots and the jobs that compute them."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models import AdjudicatedBy, Document, Project, Task, Topic


class Run(models.Model):
    """A system's ranked output for the project's topics, imported in TREC run format."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    tag = models.CharField(max_length=200)
    pool_depth = models.PositiveIntegerField(
        help_text="How many top documents per topic went into the pool (0: the run was not pooled)."
    )
    # Runs of one team or one system family share a group, for leave-one-group-out pool-bias checks.
    group = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A withdrawn run is kept (and may be reinstated) but scored by no evaluation that starts after
    # it was withdrawn, so it leaves the leaderboard (evaluation.collection.run_removal).
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["project", "tag"]
        constraints = [models.UniqueConstraint(fields=["project", "tag"], name="run_tag_unique_in_project")]

    def __str__(self) -> str:
        return self.tag


class RankedList(models.Model):
    """A run's ranked list for one topic, as two blocks rather than a row per line: its documents
    in trec_eval's order (score descending, ties by docno descending; the rank is the position)
    and their scores. A 1,000-deep topic is one row to write and to read back, so 100 runs × 50
    topics are 5,000 rows, not 5,000,000 (``evaluation.collection.runs`` packs and unpacks them)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="ranked_lists")
    topic_id = models.CharField(max_length=100)
    # Docnos joined by newlines: a run file's fields are split at whitespace, so no docno has one.
    documents = models.TextField()
    # The scores as little-endian float64, in the documents' order: read back by one memory copy.
    scores = models.BinaryField()
    length = models.PositiveIntegerField(help_text="How many documents the run retrieved for the topic.")

    class Meta:
        ordering = ["run", "topic_id"]
        constraints = [models.UniqueConstraint(fields=["run", "topic_id"], name="ranked_list_once_per_topic")]

    def __str__(self) -> str:
        return f"{self.run_id}: topic {self.topic_id}, {self.length} documents"


class SampledPoolMember(models.Model):
    """A (topic, document) of a project's stratified sampled pool (Yilmaz, Kanoulas & Aslam 2008;
    ``evaluation.metrics.trec.sampling``): its best rank over the runs, its stratum, its inclusion
    probability and whether it was drawn to be judged. The unsampled members are kept too: the sample
    qrels list them (rel -1), and the inferred measures need them."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="sampled_pool")
    topic_id = models.CharField(max_length=100)
    document_id = models.CharField(max_length=200)
    best_rank = models.PositiveIntegerField()
    stratum = models.CharField(max_length=20)
    probability = models.FloatField(help_text="The stratum's n/N: the chance this document was drawn.")
    sampled = models.BooleanField()
    design = models.CharField(max_length=500, help_text="The strata and seed that drew the sample.")

    class Meta:
        ordering = ["project", "topic_id", "stratum", "document_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "topic_id", "document_id"], name="sampled_pool_member_once"
            ),
            models.CheckConstraint(
                condition=models.Q(probability__gt=0, probability__lte=1), name="sampled_pool_probability"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.topic_id} {self.document_id} (stratum {self.stratum}, p={self.probability:g})"


class GroundTruthSnapshot(models.Model):
    """An immutable, versioned ground truth: how it was made and the label of every task."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="snapshots")
    version = models.PositiveIntegerField()
    method = models.CharField(max_length=40)
    parameters = models.JSONField(default=dict)
    input_judgement_count = models.PositiveIntegerField()
    # The newest judgement id seen: with the count it identifies the inputs, so a rerun on
    # unchanged judgements is recognised and skipped.
    input_last_judgement_id = models.BigIntegerField(default=0)
    # Everything else that changes the result without adding judgements (corrections, blocked
    # annotators, the method and its parameters), hashed; equal fingerprints mean equal inputs.
    input_fingerprint = models.CharField(max_length=64, blank=True)
    agreement = models.JSONField(default=dict)
    # Per-annotator figures computed with the snapshot (agreement with the aggregate, Dawid–Skene
    # reliability, confusion matrices, pairwise kappa of the busiest annotators); see
    # evaluation.ground_truth.report. Kept out of list views, which defer it.
    annotator_report = models.JSONField(default=dict, blank=True)
    # The database clock just before the inputs were read. A run writes only if no snapshot read
    # newer inputs meanwhile, so versions follow the order in which inputs were read.
    inputs_read_at = models.DateTimeField(null=True, blank=True)
    signature = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "-version"]
        get_latest_by = "version"
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="snapshot_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.project} v{self.version} ({self.method})"


class LabelSource(models.TextChoices):
    """Who judged a snapshot's item: the project's annotators, a prior set of judgements, or both."""

    CROWD = "crowd", "Crowd"
    PRIOR = "prior", "Prior judgements"
    BOTH = "both", "Both"


class SnapshotLabel(models.Model):
    """The aggregated label of one task in one snapshot.

    Label tasks (binary, graded, pairwise) have a ``label``; rating tasks have none and keep
    their per-dimension mean, median and dispersion in ``details``.

    An adjudicated item says how: ``extra_assessor`` (its disputed judgements went to one more
    annotator, whose judgement is among those aggregated) or ``researcher`` (a researcher's label
    replaced the aggregate, which is kept in ``aggregate_label``); ``adjudication`` says who,
    when and why (see ``evaluation.ground_truth.compute.adjudicated_labels``).
    """

    snapshot = models.ForeignKey(GroundTruthSnapshot, on_delete=models.CASCADE, related_name="labels")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="snapshot_labels")
    label = models.SmallIntegerField(null=True, blank=True)
    confidence = models.FloatField()
    judgement_count = models.PositiveSmallIntegerField()
    details = models.JSONField(default=dict, blank=True)
    adjudicated_by = models.CharField(max_length=20, choices=AdjudicatedBy.choices, blank=True, default="")
    aggregate_label = models.SmallIntegerField(
        null=True, blank=True, help_text="The crowd's aggregate, when a researcher's label replaced it."
    )
    adjudication = models.JSONField(default=dict, blank=True)
    # Items whose vote tied: how the tie was settled in this snapshot, or that it waits to be
    # (evaluation.ground_truth.ties.TieState); empty for every other item.
    tie = models.CharField(max_length=30, blank=True, default="")
    # Where the label comes from when the project has prior judgements (evaluation.prior): the
    # crowd alone, a prior set alone, or both (the label then follows the snapshot's precedence, and
    # both labels are kept beside it for the crowd-against-prior agreement).
    source = models.CharField(max_length=5, choices=LabelSource.choices, default="crowd", db_default="crowd")
    prior_label = models.SmallIntegerField(null=True, blank=True)
    crowd_label = models.SmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["snapshot", "task"]
        constraints = [models.UniqueConstraint(fields=["snapshot", "task"], name="snapshot_label_unique")]

    def __str__(self) -> str:
        return f"task {self.task_id}: {self.label} ({self.confidence:.2f})"


class JobStatus(models.TextChoices):
    """The states of every job but the ground truth's (which adds "unchanged")."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class JobState(models.Model):
    """What every job shows while it runs and after: its stage, the share done, its error and times.
    (Each job adds its own ``status`` with its own choices.)"""

    stage = models.CharField(max_length=200, blank=True)
    progress = models.FloatField(default=0.0, help_text="Share done, 0 to 1.")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The one lifecycle's stamps (evaluation.jobs.lifecycle): when the job was last sent to the broker,
    # when a worker running it last said it was alive, and how many times one has started it.
    sent_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        abstract = True


class GroundTruthJob(JobState):
    """One execution of the ground-truth computation: its state and progress, visible while it runs.

    A *job*, not a run: in Cranfield "run" means a system's ranked output (``Run``) and nothing else.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        UNCHANGED = "unchanged", "Nothing new to compute"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="ground_truth_jobs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    snapshot = models.ForeignKey(
        GroundTruthSnapshot, on_delete=models.SET_NULL, null=True, blank=True, related_name="jobs"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "-created_at"], name="gt_job_project_newest")]

    def __str__(self) -> str:
        return f"{self.project} ground-truth job {self.pk} ({self.status}, {self.progress:.0%})"


class ExternalQrels(models.Model):
    """Relevance judgements from outside the project (e.g. a collection's official TREC qrels), kept as
    a reference to compare the crowd's ground truth with and to score runs against."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="external_qrels")
    name = models.CharField(max_length=200)
    # ``{topic: {document: relevance}}`` as imported (ids NFC-normalised); read whole, never queried.
    judgements = models.JSONField(default=dict)
    judged_count = models.PositiveIntegerField(default=0)
    relevant_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "name"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="external_qrels_name_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class PriorQrels(models.Model):
    """Relevance judgements made before this project (a collection's official qrels, an earlier
    crowd's, an LLM's), reused: pooling skips the pairs they judge and the ground truth merges them
    with the crowd's labels (``evaluation.prior``). Unlike ``ExternalQrels`` they name only the
    project's own topics and documents, one row per judgement."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="prior_qrels")
    name = models.CharField(max_length=200)
    source = models.CharField(max_length=300, blank=True, help_text="Where they come from (a file, a URL).")
    judged_on = models.DateField(null=True, blank=True, help_text="When they were made.")
    assessor = models.CharField(
        max_length=200, blank=True, help_text='Who judged: "NIST assessors", "earlier crowd", "LLM" …'
    )
    judged_count = models.PositiveIntegerField(default=0)
    relevant_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "pk"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="prior_qrels_name_unique")]

    def __str__(self) -> str:
        return self.name


class PriorJudgement(models.Model):
    """One (topic, document, relevance) of a prior set."""

    prior_qrels = models.ForeignKey(PriorQrels, on_delete=models.CASCADE, related_name="judgements")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    relevance = models.SmallIntegerField()

    class Meta:
        ordering = ["prior_qrels", "topic", "document"]
        constraints = [
            models.UniqueConstraint(
                fields=["prior_qrels", "topic", "document"], name="prior_judgement_once_per_pair"
            )
        ]

    def __str__(self) -> str:
        return f"{self.topic_id}/{self.document_id}: {self.relevance}"


class Precedence(models.TextChoices):
    """Which label a snapshot keeps where the crowd and a prior set both judged a pair."""

    PRIOR_WINS = "prior-wins", "Prior wins"
    CROWD_WINS = "crowd-wins", "Crowd wins"
    CROWD_WHERE_MISSING = "crowd-where-missing", "Crowd only where prior is missing"


class PriorSettings(models.Model):
    """How a project's ground truth merges its prior judgements (one row, made when first set)."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="prior_settings")
    precedence = models.CharField(max_length=20, choices=Precedence.choices, default=Precedence.PRIOR_WINS)

    def __str__(self) -> str:
        return f"{self.project}: {self.precedence}"


class SnapshotPriorLabel(models.Model):
    """A pair of a snapshot's ground truth that only a prior set judged (no crowd label): the label
    comes from the prior set, so it has no item row of its own (``SnapshotLabel``)."""

    snapshot = models.ForeignKey(GroundTruthSnapshot, on_delete=models.CASCADE, related_name="prior_labels")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    label = models.SmallIntegerField()

    class Meta:
        ordering = ["snapshot", "topic", "document"]
        constraints = [
            models.UniqueConstraint(
                fields=["snapshot", "topic", "document"], name="snapshot_prior_label_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.topic_id}/{self.document_id}: {self.label} (prior)"


class Evaluation(JobState):
    """Every run of a project scored against one ground truth (a snapshot or external qrels), with
    the job's state while it runs and, once done, the trust checks.

    The ``signature`` names everything the numbers depend on (ground truth, relevance level, ``-J``,
    cut-offs, code version), as sacrebleu's signatures do, so a figure can be reproduced and two
    figures compared only when their signatures agree.
    """

    Status = JobStatus

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="evaluations")
    snapshot = models.ForeignKey(
        GroundTruthSnapshot, on_delete=models.CASCADE, null=True, blank=True, related_name="evaluations"
    )
    external_qrels = models.ForeignKey(
        ExternalQrels, on_delete=models.CASCADE, null=True, blank=True, related_name="evaluations"
    )
    relevance_level = models.PositiveSmallIntegerField(default=1)
    judged_only = models.BooleanField(default=False)
    # Measures beyond all_trec, asked for with the evaluation (``scoring.compute.extra_measures``): F with
    # this beta (trec_eval's set_F.β²; all_trec has β = 1), nDCG with these gains (trec_eval's
    # ``ndcg.0=0,1=1,2=3``), and accuracy, specificity and fallout of each topic's retrieved set in a
    # collection of this many documents (null: not asked).
    f_beta = models.FloatField(default=1.0)
    ndcg_gains = models.CharField(max_length=100, blank=True, default="")
    collection_size = models.PositiveIntegerField(null=True, blank=True)
    signature = models.CharField(max_length=300)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    run_count = models.PositiveIntegerField(default=0, help_text="Runs to score, fixed when the job starts.")
    # Other ground truths the runs are also ranked under, for the stability check: ``{name: qrels}``,
    # fixed when the job starts (see evaluation.scoring.compute.variant_qrels).
    variant_qrels = models.JSONField(default=dict, blank=True)
    # Trust checks computed once every run is scored (see evaluation.scoring.trust).
    checks = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "-created_at"], name="evaluation_project_newest")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(snapshot__isnull=True) ^ models.Q(external_qrels__isnull=True),
                name="evaluation_one_ground_truth",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.project} evaluation {self.pk} ({self.status})"

    @property
    def ground_truth_name(self) -> str:
        if self.snapshot_id is not None:
            return f"ground truth v{self.snapshot.version}"  # type: ignore[union-attr]
        return f"external qrels {self.external_qrels.name}"  # type: ignore[union-attr]


class RunScore(models.Model):
    """One run's scores in one evaluation: every measure per topic and over all topics."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="scores")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="scores")
    overall = models.JSONField(default=dict)
    # ``{measure: {topic: value}}``: one measure's column can be read without the rest.
    per_topic = models.JSONField(default=dict)
    # What the trust checks need from this run: unjudged shares, left-out score, variant scores.
    checks = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["evaluation", "run"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "run"], name="run_score_unique")]

    def __str__(self) -> str:
        return f"{self.run} in evaluation {self.evaluation_id}"


class ImportJob(JobState):
    """A large import run by a worker: a collection (the import API's JSON body) into a project, a
    test-collection bundle (``evaluation.bundle.archive``) into a new project, or an ir_datasets
    dataset read by the worker itself (``evaluation.irds``: the request in ``options``, no body).

    The body is received in chunks and kept, compressed, in ``ImportJobChunk`` rows until the job has
    read it: the web process never holds it whole, no statement carries more than a chunk (PostgreSQL
    takes at most 1 GB in one parameter, which a 1 GiB body stored whole exceeded), and a worker on
    another machine reads it from the database. ``body`` holds the body of a job stored before the
    chunks.
    """

    Status = JobStatus

    class Kind(models.TextChoices):
        COLLECTION = "collection", "Collection (topics, documents, runs, items)"
        BUNDLE = "bundle", "Test-collection bundle"
        IR_DATASETS = "irds", "ir_datasets dataset (read by the worker)"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The project imported into; for a bundle, the project it creates (none until it has).
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, null=True, blank=True, related_name="import_jobs"
    )
    body = models.BinaryField(
        default=b"",
        blank=True,
        help_text="A body stored before the chunks, zlib-compressed; emptied once read.",
    )
    body_bytes = models.PositiveBigIntegerField(help_text="The body's size as received.")
    body_sha256 = models.CharField(max_length=64)
    summary = models.JSONField(default=dict, blank=True)
    # ``{field: [message, …]}``, as the direct import answers a 400, when the import was refused.
    errors = models.JSONField(default=dict, blank=True)
    # What the request asked for besides its body (a bundle: ``{"activate_annotators": true}``).
    options = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} import job {self.pk} ({self.status})"


class SamplingSimulation(JobState):
    """How far sampled pools of this project's runs would be from full judgement: ``samples`` stratified
    samples at each share judged, with one ground truth (a snapshot, external qrels or a prior set)
    taken as the full judgement (``evaluation.metrics.trec.sampling_simulation``), run by a worker.
    ``result`` keeps every sample's figures, which the page plots."""

    Status = JobStatus

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="sampling_simulations")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The truth: exactly one of these (a check constraint says so).
    snapshot = models.ForeignKey(GroundTruthSnapshot, on_delete=models.CASCADE, null=True, blank=True)
    external_qrels = models.ForeignKey(ExternalQrels, on_delete=models.CASCADE, null=True, blank=True)
    prior_qrels = models.ForeignKey(PriorQrels, on_delete=models.CASCADE, null=True, blank=True)
    truth_name = models.CharField(max_length=250, help_text="The truth as the page names it.")
    shares = models.JSONField(default=list, help_text="The shares of the pool judged, each in (0, 1].")
    samples = models.PositiveIntegerField(default=100)
    depth = models.PositiveIntegerField(default=100, help_text="The pool's depth (ranks per run and topic).")
    top_depth = models.PositiveIntegerField(default=10, help_text="The last rank of the top stratum.")
    seed = models.PositiveIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(snapshot__isnull=False, external_qrels__isnull=True, prior_qrels__isnull=True)
                    | models.Q(snapshot__isnull=True, external_qrels__isnull=False, prior_qrels__isnull=True)
                    | models.Q(snapshot__isnull=True, external_qrels__isnull=True, prior_qrels__isnull=False)
                ),
                name="sampling_simulation_one_truth",
            )
        ]

    def __str__(self) -> str:
        return f"{self.project} sampling simulation {self.pk} ({self.status})"


class ImportJobChunk(models.Model):
    """One piece of an import job's compressed body, in order; deleted once the job has ended."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        ordering = ["job", "number"]
        constraints = [models.UniqueConstraint(fields=["job", "number"], name="import_chunk_once")]

    def __str__(self) -> str:
        return f"chunk {self.number} of import job {self.job_id}"


class Reference(models.Model):
    """A reference text for one input of a text project (a human summary of a document, a
    translation, a transcript); an input may have several. Automatic metrics score each output
    against its input's references (``TextEvaluation``)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="references")
    input_id = models.CharField(max_length=200)
    text = models.TextField()
    writer = models.CharField(max_length=200, blank=True, help_text="Who wrote it: a username or an id.")
    source = models.CharField(
        max_length=200,
        blank=True,
        help_text="Where it came from: imported, or the free-text project it was written in.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "input_id", "id"]
        indexes = [models.Index(fields=["project", "input_id"], name="reference_project_input")]

    def __str__(self) -> str:
        return f"reference {self.pk} for input {self.input_id} of {self.project}"


class ContentUnit(models.Model):
    """A summary content unit (SCU) of the Pyramid method: a statement the reference summaries of one
    input express, weighted by how many of them do (Nenkova & Passonneau 2004). Its statement is its
    topic's title: the crowd is asked of each (SCU, summary) item whether the summary expresses it
    (``scu_presence``; ``evaluation.pyramid``)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="content_units")
    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, related_name="content_unit")
    input_id = models.CharField(max_length=200)
    unit_id = models.CharField(max_length=100, help_text="The SCU's id within its input.")
    weight = models.PositiveSmallIntegerField(help_text="How many reference summaries express it.")
    references = models.JSONField(
        default=list, blank=True, help_text="The writers of the references that express it, when known."
    )
    written_by = models.CharField(
        max_length=200, blank=True, help_text="Who wrote the statement: a person, or a program (labelled)."
    )
    spans = models.JSONField(
        default=list,
        blank=True,
        help_text='Where the references say it, when known: [{"reference": id, "text": words of it}, …].',
    )

    class Meta:
        ordering = ["project", "input_id", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["project", "input_id", "unit_id"], name="content_unit_once"),
            models.CheckConstraint(condition=models.Q(weight__gte=1), name="content_unit_weight_positive"),
        ]

    def __str__(self) -> str:
        return f"SCU {self.input_id}/{self.unit_id} (weight {self.weight})"


class UnitMerge(models.Model):
    """A researcher's decision on a content-unit writing project (``scu_writing``): the written SCUs of
    one input whose statements are ``keys`` (normalised: ``scu_writing.normalised``) are one SCU, worded
    ``statement``, expressed by every reference any of them named (``evaluation.pyramid.written``)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="unit_merges")
    input_id = models.CharField(max_length=200)
    keys = models.JSONField(default=list)
    statement = models.CharField(max_length=300)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "input_id", "pk"]

    def __str__(self) -> str:
        return f"{len(self.keys)} written SCUs of {self.input_id} as “{self.statement}”"


def list_of_text_metrics() -> list[str]:
    """Every metric a text evaluation can compute (the default; a model default must be a callable)."""
    from evaluation.metrics.text.scores import METRICS

    return list(METRICS)


class TextEvaluation(JobState):
    """One scoring of a text project's outputs (items that name their system and input) against
    their inputs' references with every metric of ``metrics.text_scores``: per output
    (``OutputScore``) and per system (means), with each metric's signature."""

    Status = JobStatus

    class MultiReference(models.TextChoices):
        MAX = "max", "Best reference (rouge-score)"
        POOLED = "pooled", "Pooled references (ROUGE-1.5.5)"
        JACKKNIFE = "jackknife", "Jackknifed references"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="text_evaluations")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rouge_multi_ref = models.CharField(
        max_length=10, choices=MultiReference.choices, default=MultiReference.MAX
    )
    stem = models.BooleanField(
        default=True, help_text="Porter stemming for ROUGE, as rouge-score's use_stemmer."
    )
    metrics = models.JSONField(
        default=list_of_text_metrics, help_text="The metrics computed, in metrics.text_scores's order."
    )
    signatures = models.JSONField(default=dict, blank=True)
    per_system = models.JSONField(default=dict, blank=True, help_text="{system: {metric: mean over outputs}}")
    lower_is_better = models.JSONField(
        default=list,
        blank=True,
        help_text="Imported metrics whose lower scores are better (evaluation.texts.imported_scores); "
        "TER and WER are known by their names.",
    )
    output_count = models.PositiveIntegerField(default=0)
    unscored = models.JSONField(
        default=list, blank=True, help_text="[system, input] of outputs without references"
    )
    part_count = models.PositiveIntegerField(
        default=0, help_text="The outputs are scored in this many parts (one worker sub-task each)."
    )
    parts_done = models.JSONField(
        default=dict,
        blank=True,
        help_text="{part number: {unscored, reference_counts}} of the parts stored so far.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.project} text evaluation {self.pk} ({self.status})"


class OutputScore(models.Model):
    """Every metric's score of one output (one system's text for one input) in one text evaluation."""

    evaluation = models.ForeignKey(TextEvaluation, on_delete=models.CASCADE, related_name="outputs")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+")
    system_id = models.CharField(max_length=200)
    input_id = models.CharField(max_length=200)
    scores = models.JSONField(help_text="{metric: value}")

    class Meta:
        ordering = ["evaluation", "system_id", "input_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "system_id", "input_id"], name="one_score_per_output"
            )
        ]

    def __str__(self) -> str:
        return f"{self.system_id} on {self.input_id} in text evaluation {self.evaluation_id}"
