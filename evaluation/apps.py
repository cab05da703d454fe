from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        # The one place where annotation's news reaches evaluation: a judgement changed, so a
        # debounced ground-truth job is requested (annotation imports nothing from here).
        from annotation.signals import judged_elsewhere, judgements_changed
        from evaluation import signals
        from evaluation.bundle.archive import import_bundle_job
        from evaluation.collection.import_jobs import register_importer
        from evaluation.ground_truth.jobs import on_judgements_changed, on_prior_changed
        from evaluation.irds.importing import import_dataset_job
        from evaluation.models import ImportJob
        from evaluation.prior.jobs import prior_judgements_of
        from evaluation.sampling import jobs as sampling_jobs  # noqa: F401 - registers its kind of job
        from evaluation.scoring import receivers

        judgements_changed.connect(on_judgements_changed, dispatch_uid="ground-truth-on-judgements")
        # Control flows down: collection and ground truth announce, scoring listens.
        signals.collection_imported.connect(receivers.on_collection_imported, dispatch_uid="score-imported")
        signals.runs_changed.connect(receivers.on_runs_changed, dispatch_uid="score-changed-runs")
        signals.snapshot_written.connect(receivers.on_snapshot_written, dispatch_uid="score-new-snapshot")
        # Prior judgements announce their changes; ground truth merges them in a new snapshot.
        signals.prior_changed.connect(on_prior_changed, dispatch_uid="ground-truth-on-prior")
        # Topics and documents a prior set judged are as judged as the crowd's: not to be deleted.
        judged_elsewhere.connect(prior_judgements_of, dispatch_uid="prior-judgements-refuse-deletion")
        # Bundles are imported as import jobs of their own kind.
        register_importer(ImportJob.Kind.BUNDLE, import_bundle_job)
        register_importer(ImportJob.Kind.IR_DATASETS, import_dataset_job)
