"""Projects, what is judged (topics × documents as micro-tasks) and who judged what.

Vocabulary (after Turkle): a Project holds Tasks; each Task needs ``required_judgements`` (k)
Judgements from k different annotators; an annotator works on a Task through an Assignment, a
lease that expires and returns the slot to the pool.
"""

from __future__ import annotations

import random
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from . import task_types

# A share: a probability or a rate between 0 and 1.
SHARE = [MinValueValidator(0.0), MaxValueValidator(1.0)]


class Project(models.Model):
    """A judging campaign owned by one researcher; what is asked is ``task_type`` with its ``config``."""

    class TaskType(models.TextChoices):
        BINARY_RELEVANCE = "binary_relevance", "Binary relevance"
        GRADED_RELEVANCE = "graded_relevance", "Graded relevance"
        LIKERT = "likert", "Likert quality rating"
        FREE_TEXT = "free_text", "Free-text reference writing"
        PAIRWISE = "pairwise", "Pairwise comparison"

    class ServeOrder(models.TextChoices):
        POOL = "pool", "Pool order (highest-ranked first)"
        RANDOM = "random", "Random"

    name = models.CharField(max_length=200)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_projects"
    )
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="annotated_projects", through="Membership"
    )
    task_type = models.CharField(max_length=40, choices=TaskType.choices, default=TaskType.BINARY_RELEVANCE)
    config = models.JSONField(
        default=dict, blank=True, help_text="Per task type (see annotation.task_types): levels, dimensions…"
    )
    instructions = models.TextField(blank=True, help_text="Markdown; sanitised before display.")
    examples = models.TextField(blank=True, help_text="Worked examples, Markdown; sanitised before display.")
    assignments_per_task = models.PositiveSmallIntegerField(
        default=3, help_text="Redundancy k: how many different annotators judge each task."
    )
    assignment_minutes = models.PositiveIntegerField(
        default=30, help_text="How long an annotator holds a task before it returns to the pool."
    )
    serve_order = models.CharField(max_length=10, choices=ServeOrder.choices, default=ServeOrder.POOL)
    gold_rate = models.FloatField(
        validators=SHARE,
        default=0.0,
        help_text="Share of served tasks that are gold (known-answer) items, while any remain.",
    )
    gold_feedback = models.BooleanField(
        default=False, help_text="Tell annotators the expected answer right after they answer a gold item."
    )
    attention_rate = models.FloatField(
        validators=SHARE,
        default=0.0,
        help_text="Rating tasks: share of served tasks that are attention checks (repeats, degraded).",
    )
    qualification_pass_rate = models.FloatField(
        validators=SHARE,
        default=0.8,
        help_text="Share of qualification questions an annotator must answer correctly to join.",
    )
    qualification_attempts_allowed = models.PositiveSmallIntegerField(
        default=2, help_text="How many times an annotator may take the qualification test."
    )
    quality_threshold = models.FloatField(
        validators=SHARE,
        default=0.7,
        help_text="Annotators whose gold accuracy falls below this are flagged.",
    )

    class RatingNormalisation(models.TextChoices):
        NONE = "none", "None: raw scores"
        ZSCORE = "zscore", "Per-annotator z-scores (removes each annotator's own mean and spread)"

    rating_normalisation = models.CharField(
        max_length=10,
        choices=RatingNormalisation.choices,
        default=RatingNormalisation.NONE,
        help_text="Rating tasks: how each annotator's scores are normalised before they are summarised.",
    )
    exclude_blocked_from_ground_truth = models.BooleanField(
        default=True, help_text="Leave blocked annotators' judgements out of the ground truth."
    )
    one_key_answers = models.BooleanField(
        default=False,
        help_text="Pressing an answer's key sends it at once, without Enter (for answers given with "
        "one key: labels, and Likert once every dimension has its digit; not for free text or a "
        "required rationale).",
    )

    class GroundTruthMethod(models.TextChoices):
        MAJORITY = "majority", "Majority vote (ties: smallest label)"
        DAWID_SKENE = "dawid-skene", "Dawid–Skene"
        GOLD_WEIGHTED = "gold-weighted", "Vote weighted by accuracy on gold items"
        ONE_COIN_DAWID_SKENE = "one-coin-dawid-skene", "One-coin Dawid–Skene"
        GLAD = "glad", "GLAD (annotator ability, item difficulty)"
        MACE = "mace", "MACE (annotator competence)"
        MMSR = "mmsr", "M-MSR (skills by matrix completion)"
        WAWA = "wawa", "Wawa (vote weighted by agreement with the majority)"
        ZERO_BASED_SKILL = "zero-based-skill", "Zero-based skill"

    ground_truth_method = models.CharField(
        max_length=20, choices=GroundTruthMethod.choices, default=GroundTruthMethod.MAJORITY
    )
    active = models.BooleanField(default=True)
    # Set when a ground-truth run is queued and cleared when it starts: submissions arriving in
    # between ride on that run instead of queueing their own (see evaluation.ground_truth.jobs).
    ground_truth_pending = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(assignments_per_task__gte=1), name="project_k_at_least_one"),
            models.CheckConstraint(
                condition=Q(gold_rate__gte=0, gold_rate__lte=1), name="project_gold_rate_is_a_share"
            ),
            models.CheckConstraint(
                condition=Q(attention_rate__gte=0, attention_rate__lte=1),
                name="project_attention_rate_is_a_share",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def assignment_lease(self) -> timedelta:
        return timedelta(minutes=self.assignment_minutes)

    # What a researcher sets on the project form and through the API (besides config and annotators).
    SETTINGS = (
        "name",
        "task_type",
        "instructions",
        "examples",
        "assignments_per_task",
        "assignment_minutes",
        "serve_order",
        "gold_rate",
        "gold_feedback",
        "attention_rate",
        "qualification_pass_rate",
        "qualification_attempts_allowed",
        "quality_threshold",
        "rating_normalisation",
        "exclude_blocked_from_ground_truth",
        "ground_truth_method",
        "one_key_answers",
        "active",
    )

    @property
    def type(self) -> task_types.TaskType:
        """What this project asks (``annotation.task_types``): every rule that differs by type."""
        return task_types.task_type(self.task_type)

    @property
    def is_rating(self) -> bool:
        """Answers are scores per dimension (summarised, not voted on)."""
        return self.type.is_rating

    @property
    def has_labels(self) -> bool:
        """Answers are one categorical label each (so majority vote, kappas and qrels apply)."""
        return self.type.has_labels

    def clean(self) -> None:
        """The task type and its configuration fit together (the admin, the form and the API all
        check this, so nothing can save a project whose judging page would break)."""
        super().clean()
        if getattr(self, "config_errors_shown", False):  # the project form put them beside its fields
            return
        try:
            self.type.validate_config(self.config)
        except task_types.AnswerError as error:
            raise ValidationError({"config": str(error)}) from error


class Membership(models.Model):
    """An annotator in a project: whether they passed the qualification and whether they are blocked."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        BLOCKED = "blocked", "Blocked"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    qualified_at = models.DateTimeField(null=True, blank=True)
    blocked_reason = models.CharField(max_length=300, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "annotator"]
        constraints = [
            models.UniqueConstraint(fields=["project", "annotator"], name="membership_once_per_project"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.project} ({self.status})"

    @property
    def blocked(self) -> bool:
        return self.status == self.Status.BLOCKED


class Topic(models.Model):
    """An information need (TREC topic / query)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="topics")
    external_id = models.CharField(max_length=100, help_text="The topic id used in qrels and runs.")
    title = models.TextField()
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["project", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "external_id"], name="topic_unique_in_project"),
        ]

    def __str__(self) -> str:
        return f"{self.external_id}: {self.title[:60]}"


class Document(models.Model):
    """An item to be judged. Text is untrusted and always rendered escaped."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="documents")
    external_id = models.CharField(max_length=200, help_text="The docno used in qrels and runs.")
    title = models.TextField(blank=True)
    text = models.TextField()

    class Meta:
        ordering = ["project", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "external_id"], name="document_unique_in_project"),
        ]

    def __str__(self) -> str:
        return self.external_id


def random_serve_key() -> float:
    return random.random()


class Task(models.Model):
    """One micro-task: a document (or two, for pairwise) to judge, optionally for a topic.

    Only ``item`` tasks make the ground truth; they need ``required_judgements`` (k) judgements
    from k different annotators. The other kinds are quality control, served alongside and
    rendered identically: ``gold`` items with a known answer (every annotator may get each once),
    ``qualification`` questions (answered on the qualification page), and for rating tasks
    ``repeat`` (an item shown again to an annotator who rated it) and ``degraded`` (a deliberately
    spoiled output that should be rated low) attention checks.
    """

    class Kind(models.TextChoices):
        ITEM = "item", "Item"
        GOLD = "gold", "Gold"
        QUALIFICATION = "qualification", "Qualification question"
        REPEAT = "repeat", "Attention check: repeated item"
        DEGRADED = "degraded", "Attention check: degraded output"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tasks")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.ITEM)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="tasks", null=True, blank=True)
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="tasks")
    document_b = models.ForeignKey(
        Document,
        on_delete=models.CASCADE,
        related_name="tasks_as_second",
        null=True,
        blank=True,
        help_text="Pairwise tasks: the second output.",
    )
    source_task = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="checks",
        help_text="Attention checks: the item this one repeats or degrades.",
    )
    pool_rank = models.PositiveIntegerField(
        help_text="Best rank of the document in any pooled run (or import order); served first."
    )
    serve_key = models.FloatField(default=random_serve_key, help_text="Position in random serving order.")
    # For text outputs: the system that produced the document (an output) and the input it came from
    # (source document, dialogue, audio), so ratings can be averaged per system and per input.
    system_id = models.CharField(max_length=200, blank=True)
    input_id = models.CharField(max_length=200, blank=True)
    required_judgements = models.PositiveSmallIntegerField()
    # Live assignments plus submitted judgements; a claim increments it under a row lock.
    slots_taken = models.PositiveSmallIntegerField(default=0)
    completed = models.BooleanField(default=False)
    gold_answer = models.JSONField(
        null=True, blank=True, help_text="Gold and qualification items: the expected answer."
    )
    gold_explanation = models.TextField(blank=True, help_text="Shown with gold feedback, when enabled.")

    class Meta:
        ordering = ["project", "pool_rank", "id"]
        constraints = [
            # Pooled relevance items: one task per (topic, document).
            models.UniqueConstraint(
                fields=["topic", "document"],
                condition=Q(kind="item", document_b__isnull=True),
                name="task_item_unique_topic_document",
            ),
            # The last line of defence: never more slots than the redundancy k.
            models.CheckConstraint(
                condition=Q(slots_taken__lte=F("required_judgements")), name="task_slots_within_k"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["gold", "qualification"], gold_answer__isnull=False)
                | ~Q(kind__in=["gold", "qualification"]),
                name="task_gold_has_answer",
            ),
        ]
        indexes = [
            # Used by the "next task" claim: open tasks of a project in pool order, or random order.
            models.Index(
                fields=["project", "kind", "completed", "pool_rank", "id"], name="task_open_in_pool_order"
            ),
            models.Index(
                fields=["project", "kind", "completed", "serve_key"], name="task_open_in_random_order"
            ),
        ]

    def __str__(self) -> str:
        parts = [self.topic.external_id if self.topic else "—", self.document.external_id]
        if self.document_b:
            parts.append(self.document_b.external_id)
        return " × ".join(parts) + ("" if self.kind == self.Kind.ITEM else f" ({self.kind})")


class Assignment(models.Model):
    """An annotator's lease on a task."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        SUBMITTED = "submitted", "Submitted"
        EXPIRED = "expired", "Expired"
        SKIPPED = "skipped", "Skipped"

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    # When the judging page first showed the task (the server stamps it as it renders the page):
    # time on task runs from here, not from the lease, which may be handed out long before.
    shown_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # An annotator never gets the same item twice, even after a lease expires.
            models.UniqueConstraint(fields=["task", "annotator"], name="assignment_once_per_annotator"),
        ]
        indexes = [
            # Used when expired leases are returned to the pool.
            models.Index(fields=["status", "expires_at"], name="assignment_status_expiry"),
            # Used to find an annotator's live lease in a project.
            models.Index(fields=["annotator", "status"], name="assignment_annotator_status"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.task_id} ({self.status})"

    def is_live(self, now=None) -> bool:
        return self.status == self.Status.ACTIVE and self.expires_at > (now or timezone.now())


class Judgement(models.Model):
    """An annotator's current answer to a task; every version is kept in ``JudgementRevision``.

    ``answer`` is the normalised answer of the task type (``annotation.task_types``); ``label``
    repeats its categorical label (binary, graded, pairwise) so that aggregation reads a column.
    """

    # The task's project, repeated so that "this annotator's judgements in this project" is one
    # index lookup rather than a join through every task of the project (28 ms at 100,000 tasks).
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="judgements")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="judgements")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgements"
    )
    assignment = models.OneToOneField(Assignment, on_delete=models.PROTECT, related_name="judgement")
    label = models.SmallIntegerField(null=True, blank=True)
    answer = models.JSONField(default=dict)
    seconds_spent = models.FloatField(
        null=True, blank=True, help_text="From the lease being handed out to the first submission."
    )
    seconds_on_task = models.FloatField(
        null=True,
        blank=True,
        help_text="From the task first being shown to the first submission (none if never shown).",
    )
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            # Double-judging is impossible at the database level.
            models.UniqueConstraint(fields=["task", "annotator"], name="judgement_once_per_annotator"),
        ]
        indexes = [
            # Used by the annotator's counts and history in a project.
            models.Index(fields=["project", "annotator"], name="judgement_project_annotator"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} judged {self.task_id}: {self.label}"


class JudgementRevision(models.Model):
    """One version of a judgement: the first answer and every correction, never overwritten."""

    judgement = models.ForeignKey(Judgement, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    label = models.SmallIntegerField(null=True, blank=True)
    answer = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["judgement", "number"]
        constraints = [
            models.UniqueConstraint(fields=["judgement", "number"], name="revision_number_unique"),
        ]

    def __str__(self) -> str:
        return f"judgement {self.judgement_id} r{self.number}"


class QualificationAttempt(models.Model):
    """One sitting of a project's qualification test: the answers given and the share correct."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="qualification_attempts")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualification_attempts"
    )
    answers = models.JSONField(default=dict, help_text="Task id → the answer given.")
    correct = models.PositiveIntegerField()
    total = models.PositiveIntegerField()
    passed = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.project}: {self.correct}/{self.total}"

    @property
    def score(self) -> float:
        return self.correct / self.total if self.total else 0.0
