"""Projects, what is judged (topics × documents as micro-tasks) and who judged what.

Vocabulary (after Turkle): a Project holds Tasks; each Task needs ``required_judgements`` (k)
Judgements from k different annotators; an annotator works on a Task through an Assignment, a
lease that expires and returns the slot to the pool.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone


class Project(models.Model):
    """A judging campaign owned by one researcher."""

    class TaskType(models.TextChoices):
        BINARY_RELEVANCE = "binary_relevance", "Binary relevance"

    name = models.CharField(max_length=200)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_projects"
    )
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="annotated_projects"
    )
    task_type = models.CharField(max_length=40, choices=TaskType.choices, default=TaskType.BINARY_RELEVANCE)
    instructions = models.TextField(blank=True, help_text="Markdown; sanitised before display.")
    assignments_per_task = models.PositiveSmallIntegerField(
        default=3, help_text="Redundancy k: how many different annotators judge each task."
    )
    assignment_minutes = models.PositiveIntegerField(
        default=30, help_text="How long an annotator holds a task before it returns to the pool."
    )
    class GroundTruthMethod(models.TextChoices):
        MAJORITY = "majority", "Majority vote (ties: smallest label)"
        DAWID_SKENE = "dawid-skene", "Dawid–Skene"

    ground_truth_method = models.CharField(
        max_length=20, choices=GroundTruthMethod.choices, default=GroundTruthMethod.MAJORITY
    )
    active = models.BooleanField(default=True)
    # Set when a ground-truth run is queued and cleared when it starts: submissions arriving in
    # between ride on that run instead of queueing their own (see annotation.tasks).
    ground_truth_pending = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(assignments_per_task__gte=1), name="project_k_at_least_one"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def assignment_lease(self) -> timedelta:
        return timedelta(minutes=self.assignment_minutes)


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


class Task(models.Model):
    """One micro-task: is this document relevant to this topic?"""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tasks")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="tasks")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="tasks")
    pool_rank = models.PositiveIntegerField(
        help_text="Best rank of the document in any pooled run; served first."
    )
    required_judgements = models.PositiveSmallIntegerField()
    # Live assignments plus submitted judgements; a claim increments it under a row lock.
    slots_taken = models.PositiveSmallIntegerField(default=0)
    completed = models.BooleanField(default=False)

    class Meta:
        ordering = ["project", "pool_rank", "id"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "document"], name="task_unique_topic_document"),
            # The last line of defence: never more slots than the redundancy k.
            models.CheckConstraint(
                condition=Q(slots_taken__lte=F("required_judgements")), name="task_slots_within_k"
            ),
        ]
        indexes = [
            # Used by the "next task" claim: open tasks of a project in pool order.
            models.Index(fields=["project", "completed", "pool_rank", "id"], name="task_open_in_pool_order"),
        ]

    def __str__(self) -> str:
        return f"{self.topic.external_id} × {self.document.external_id}"


class Assignment(models.Model):
    """An annotator's lease on a task."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        SUBMITTED = "submitted", "Submitted"
        EXPIRED = "expired", "Expired"

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # An annotator never gets the same item twice, even after a lease expires.
            models.UniqueConstraint(fields=["task", "annotator"], name="assignment_once_per_annotator"),
        ]
        indexes = [
            # Used when expired leases are returned to the pool.
            models.Index(fields=["status", "expires_at"], name="assignment_status_expiry"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.task_id} ({self.status})"

    def is_live(self, now=None) -> bool:
        return self.status == self.Status.ACTIVE and self.expires_at > (now or timezone.now())


class Judgement(models.Model):
    """An annotator's answer to a task. Binary relevance: 1 relevant, 0 not relevant."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="judgements")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgements"
    )
    assignment = models.OneToOneField(Assignment, on_delete=models.PROTECT, related_name="judgement")
    label = models.SmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            # Double-judging is impossible at the database level.
            models.UniqueConstraint(fields=["task", "annotator"], name="judgement_once_per_annotator"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} judged {self.task_id}: {self.label}"
