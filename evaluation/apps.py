from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        # The one place where annotation's news reaches evaluation: a judgement changed, so a
        # debounced ground-truth job is requested (annotation imports nothing from here).
        from annotation.signals import judgements_changed
        from evaluation.ground_truth.jobs import on_judgements_changed

        judgements_changed.connect(on_judgements_changed, dispatch_uid="ground-truth-on-judgements")
