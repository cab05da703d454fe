from django.contrib import admin

from .models import GroundTruthSnapshot, Run, SnapshotLabel


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["tag", "project", "pool_depth", "created_at"]
    list_filter = ["project"]


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
