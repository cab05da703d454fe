"""System runs, pools and versioned ground-truth snapshots."""

from __future__ import annotations

from django.db import models

from annotation.models import Project, Task


class Run(models.Model):
    """A system's ranked output for the project's topics, imported in TREC run format."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    tag = models.CharField(max_length=200)
    pool_depth = models.PositiveIntegerField(help_text="How many top documents per topic went into the pool.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "tag"]
        constraints = [models.UniqueConstraint(fields=["project", "tag"], name="run_tag_unique_in_project")]

    def __str__(self) -> str:
        return self.tag


class RunEntry(models.Model):
    """One line of a run: topic, document, score, and its rank in trec_eval order."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="entries")
    topic_id = models.CharField(max_length=100)
    document_id = models.CharField(max_length=200)
    rank = models.PositiveIntegerField()
    score = models.FloatField()

    class Meta:
        ordering = ["run", "topic_id", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["run", "topic_id", "document_id"], name="run_entry_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.topic_id} Q0 {self.document_id} {self.rank} {self.score}"


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
    agreement = models.JSONField(default=dict)
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


class SnapshotLabel(models.Model):
    """The aggregated label of one task in one snapshot."""

    snapshot = models.ForeignKey(GroundTruthSnapshot, on_delete=models.CASCADE, related_name="labels")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="snapshot_labels")
    label = models.SmallIntegerField()
    confidence = models.FloatField()
    judgement_count = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["snapshot", "task"]
        constraints = [models.UniqueConstraint(fields=["snapshot", "task"], name="snapshot_label_unique")]

    def __str__(self) -> str:
        return f"task {self.task_id}: {self.label} ({self.confidence:.2f})"
