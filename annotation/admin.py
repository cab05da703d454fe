from django.contrib import admin

from annotation.models import (
    Assignment,
    Document,
    Judgement,
    JudgementRevision,
    Membership,
    Project,
    ProjectEvent,
    QualificationAttempt,
    Task,
    Topic,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["annotator"]
    fields = ["annotator", "status", "qualified_at", "blocked_reason"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "owner",
        "task_type",
        "assignments_per_task",
        "tie_rule",
        "serve_order",
        "active",
        "created_at",
    ]
    list_filter = ["active", "task_type", "serve_order"]
    search_fields = ["name", "owner__username"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["annotator", "project", "status", "qualified_at", "joined_at"]
    list_filter = ["status", "project"]
    search_fields = ["annotator__username"]
    raw_id_fields = ["annotator"]


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["external_id", "title", "project"]
    list_filter = ["project"]
    search_fields = ["external_id", "title"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["external_id", "title", "project"]
    list_filter = ["project"]
    search_fields = ["external_id", "title"]


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "project",
        "kind",
        "topic",
        "document",
        "pool_rank",
        "slots_taken",
        "required_judgements",
        "completed",
    ]
    list_filter = ["project", "kind", "completed"]
    raw_id_fields = ["topic", "document", "document_b", "source_task"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "annotator", "status", "created_at", "expires_at"]
    list_filter = ["status", "task__project"]
    raw_id_fields = ["task", "annotator"]


class RevisionInline(admin.TabularInline):
    model = JudgementRevision
    extra = 0
    readonly_fields = ["number", "label", "answer", "created_at"]
    can_delete = False


@admin.register(Judgement)
class JudgementAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "annotator", "label", "revision", "created_at", "updated_at"]
    list_filter = ["task__project"]
    raw_id_fields = ["task", "assignment", "annotator"]
    inlines = [RevisionInline]


@admin.register(QualificationAttempt)
class QualificationAttemptAdmin(admin.ModelAdmin):
    list_display = ["annotator", "project", "correct", "total", "passed", "created_at"]
    list_filter = ["passed", "project"]
    raw_id_fields = ["annotator"]


@admin.register(ProjectEvent)
class ProjectEventAdmin(admin.ModelAdmin):
    """A project's history, read only: it records what was done and is never edited."""

    list_display = ["created_at", "project", "action", "actor", "summary"]
    list_filter = ["action", "project"]
    readonly_fields = ["project", "actor", "action", "summary", "details", "created_at"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
