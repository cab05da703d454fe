from django.contrib import admin

from .models import Assignment, Document, Judgement, Project, Task, Topic


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "task_type", "assignments_per_task", "active", "created_at"]
    list_filter = ["active", "task_type"]
    filter_horizontal = ["annotators"]


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
        "topic",
        "document",
        "pool_rank",
        "slots_taken",
        "required_judgements",
        "completed",
    ]
    list_filter = ["project", "completed"]
    raw_id_fields = ["topic", "document"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "annotator", "status", "created_at", "expires_at"]
    list_filter = ["status"]
    raw_id_fields = ["task"]


@admin.register(Judgement)
class JudgementAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "annotator", "label", "created_at"]
    list_filter = ["task__project"]
    raw_id_fields = ["task", "assignment"]
