from django.contrib import admin

from evaluation.models import GroundTruthJob, GroundTruthSnapshot, RankedList, Run, SnapshotLabel


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["tag", "project", "pool_depth", "created_at"]
    list_filter = ["project"]


@admin.register(RankedList)
class RankedListAdmin(admin.ModelAdmin):
    list_display = ["run", "topic_id", "length"]
    list_filter = ["run__project", "run"]
    search_fields = ["topic_id"]
    raw_id_fields = ["run"]


class SnapshotLabelInline(admin.TabularInline):
    model = SnapshotLabel
    raw_id_fields = ["task"]
    extra = 0
    can_delete = False


@admin.register(GroundTruthSnapshot)
class GroundTruthSnapshotAdmin(admin.ModelAdmin):
    list_display = ["project", "version", "method", "input_judgement_count", "created_at"]
    list_filter = ["project", "method"]
    readonly_fields = ["signature"]
    inlines = [SnapshotLabelInline]


@admin.register(GroundTruthJob)
class GroundTruthJobAdmin(admin.ModelAdmin):
    """Runs are written by the job only; the admin shows them for diagnosis."""

    list_display = ["pk", "project", "status", "stage", "progress", "snapshot", "created_at", "finished_at"]
    list_filter = ["status", "project"]
    readonly_fields = [field.name for field in GroundTruthJob._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False
