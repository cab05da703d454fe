"""The item browser's collecting side: a project's items and gold items, searched and filtered by
what their judgements say, and everything known about one item — one query and one filter for
the researcher's page and the API alike.

What the ground truth made of an item (its aggregate label in the newest snapshot) is
``evaluation``'s to add; nothing here reads a snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import django_filters
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast

from annotation.crowd.adjudication import disagree, disputed, label_tally, majority_share, rating_spread
from annotation.models import (
    AdjudicatedBy,
    Adjudication,
    Document,
    Judgement,
    Membership,
    Project,
    Task,
    Topic,
)
from annotation.task_types import LIKERT_GOLD_TOLERANCE

BROWSED_KINDS = (Task.Kind.ITEM, Task.Kind.GOLD)


def spread(dimension: str) -> Any:
    """An item's highest score on a rating dimension minus its lowest, in SQL (on tasks)."""
    return _spread_of(dimension, "judgements__answer")


def _spread_of(dimension: str, answer: str = "answer") -> Any:
    score = Cast(KeyTextTransform(dimension, KeyTransform("scores", answer)), IntegerField())
    return Max(score) - Min(score)


def disagreement_expression(project: Project) -> Any:
    """True when an item's annotators disagree: two different labels, or for ratings a dimension on
    which scores lie further apart than a gold answer's tolerance. Texts never disagree."""
    if project.has_labels:
        return ExpressionWrapper(Q(labels_given__gt=1), output_field=BooleanField())
    if project.is_rating:
        apart = Q()
        for position in range(len(project.config.get("dimensions", []))):
            apart |= Q(**{f"spread_{position}__gt": LIKERT_GOLD_TOLERANCE})
        return ExpressionWrapper(apart, output_field=BooleanField())
    return Value(False, output_field=BooleanField())


def browsable_tasks(project: Project) -> QuerySet[Task]:
    """The project's items and gold items in judging order, their keys only: what the filters, the
    count and a page's slice read, by the tasks' indexes alone. The rows and the per-item figures of
    ``with_judgement_facts`` are read for one page's 50 (``page_rows``), not for every item of the
    project before the page is cut (at 1,000,000 items that grouping took seconds)."""
    return _in_judging_order(project).only("pk", "project")  # the project: set on each row by its manager


def _in_judging_order(project: Project) -> QuerySet[Task]:
    return project.tasks.filter(kind__in=BROWSED_KINDS).order_by("pool_rank", "id")


def with_judgement_facts(project: Project, rows: QuerySet[Task]) -> QuerySet[Task]:
    """The rows with their topic and documents, each with its judgement count (``judged``), whether
    its annotators disagree (``disagreeing``) and the label of the researcher's decision in force
    (``decided_label``: None when there is none)."""
    rows = rows.select_related("topic", "document", "document_b").annotate(
        judged=Count("judgements", distinct=True),
        labels_given=Count("judgements__label", distinct=True),
        decided_label=decided_label(),
    )
    if project.is_rating:  # aliases by position: a dimension's name may be any text
        dimensions = project.config.get("dimensions", [])
        rows = rows.annotate(**{f"spread_{i}": spread(d) for i, d in enumerate(dimensions)})
    return rows.annotate(disagreeing=disagreement_expression(project))


def browsable_items(project: Project) -> QuerySet[Task]:
    """The items and gold items in judging order with ``with_judgement_facts``: for one item, or a handful."""
    return with_judgement_facts(project, _in_judging_order(project))


def page_rows(project: Project, tasks: list[Task]) -> list[Task]:
    """A page's tasks (``browsable_tasks``, filtered and sliced: keys only) read whole, with
    ``with_judgement_facts``, in the page's order."""
    found = {task.pk: task for task in browsable_items(project).filter(pk__in=[task.pk for task in tasks])}
    return [found[task.pk] for task in tasks]


def decided_label() -> Subquery:
    """The label of the task's newest decision by hand (None when there is none)."""
    newest_decision = Adjudication.objects.filter(task=OuterRef("pk")).order_by("-created_at", "-id")
    return Subquery(newest_decision.values("label")[:1])


def disagreeing_tasks(project: Project) -> QuerySet:
    """The ids of the project's tasks whose annotators disagree (``disagreement_expression``), from
    its judgements grouped by task: what the disagreement filter selects by."""
    judgements = Judgement.objects.filter(project=project).values("task").order_by()
    if project.has_labels:
        # Two labels differ exactly when the least and the greatest differ; MIN and MAX need no sort
        # within each item as COUNT(DISTINCT) does (262 → 68 ms over 300,000 judgements).
        return (
            judgements.annotate(least=Min("label"), greatest=Max("label"))
            .exclude(least=F("greatest"))
            .values("task")
        )
    if project.is_rating:
        dimensions = project.config.get("dimensions", [])
        spreads = {f"spread_{i}": _spread_of(d) for i, d in enumerate(dimensions)}
        apart = Q()
        for name in spreads:
            apart |= Q(**{f"{name}__gt": LIKERT_GOLD_TOLERANCE})
        return judgements.annotate(**spreads).filter(apart).values("task") if spreads else judgements.none()
    return judgements.none()


YES_NO = [("true", "yes"), ("false", "no")]


class ItemFilter(django_filters.FilterSet):
    """The item browser's filters (query string): ``q``, ``topic``, ``status``, ``disagreement``,
    ``gold``, ``annotator``, ``adjudicated``, on ``browsable_items``."""

    q = django_filters.CharFilter(
        method="search",
        label="Search",
        help_text="words in the topic (id or title) or document (id, title, text)",
    )
    topic = django_filters.CharFilter(field_name="topic__external_id", help_text="the topic id, exactly")
    status = django_filters.ChoiceFilter(
        choices=[("open", "open: needs judgements"), ("complete", "complete")],
        method="by_status",
        empty_label="any",
        help_text="items only: open (still needs judgements) or complete",
    )
    disagreement = django_filters.ChoiceFilter(
        choices=YES_NO,
        method="by_disagreement",
        empty_label="any",
        help_text="true: the item's annotators disagree (two labels; ratings more than one point apart)",
    )
    gold = django_filters.ChoiceFilter(
        choices=YES_NO,
        method="by_gold",
        empty_label="any",
        help_text="true: gold items only; false: items only",
    )
    annotator = django_filters.CharFilter(
        method="by_annotator", help_text="the username of an annotator who judged it"
    )
    adjudicated = django_filters.ChoiceFilter(
        choices=[
            ("pending", "waiting: for its extra assessor or for you"),
            ("extra_assessor", "by an extra assessor"),
            ("researcher", "by a researcher"),
            ("true", "either way"),
            ("false", "not adjudicated"),
        ],
        method="by_adjudication",
        empty_label="any",
        help_text="pending, extra_assessor, researcher, true (either) or false",
    )

    class Meta:
        model = Task
        fields: list[str] = []

    def __init__(self, *args: Any, project: Project | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.project = project  # the disagreement filter's settings (None: only to describe the filters)

    def search(self, queryset, name, value):
        # The topics and documents that match are found first and the items by their keys: matching
        # the words on each item's joined rows read every document's text once per item (1 s a
        # search at 1,000,000 items of 10,000 documents, benchmarks/bench_pages.py).
        topics = Topic.objects.filter(Q(external_id__icontains=value) | Q(title__icontains=value))
        documents = Document.objects.filter(
            Q(external_id__icontains=value) | Q(title__icontains=value) | Q(text__icontains=value)
        )
        second_documents = Document.objects.filter(Q(external_id__icontains=value) | Q(text__icontains=value))
        if self.project is not None:
            topics, documents = topics.filter(project=self.project), documents.filter(project=self.project)
            second_documents = second_documents.filter(project=self.project)
        return queryset.filter(
            Q(topic__in=topics.values("pk"))
            | Q(document__in=documents.values("pk"))
            | Q(document_b__in=second_documents.values("pk"))
        )

    def by_status(self, queryset, name, value):
        return queryset.filter(kind=Task.Kind.ITEM, completed=value == "complete")

    def by_disagreement(self, queryset, name, value):
        assert self.project is not None, "ItemFilter(…, project=…) filters by disagreement"
        disagreeing = disagreeing_tasks(self.project)
        return (
            queryset.filter(pk__in=disagreeing) if value == "true" else queryset.exclude(pk__in=disagreeing)
        )

    def by_gold(self, queryset, name, value):
        return queryset.filter(kind=Task.Kind.GOLD if value == "true" else Task.Kind.ITEM)

    def by_annotator(self, queryset, name, value):
        judged = Judgement.objects.filter(task=OuterRef("pk"), annotator__username=value)
        return queryset.filter(Exists(judged))

    def by_adjudication(self, queryset, name, value):
        queryset = queryset.annotate(decided_label=decided_label())
        extra_done = Q(referred_to=AdjudicatedBy.EXTRA_ASSESSOR, completed=True)
        settled = Q(decided_label__isnull=False)
        conditions = {
            # The first condition says what the others imply, so that only referred items are read.
            "pending": Q(referred_to__in=[AdjudicatedBy.EXTRA_ASSESSOR, AdjudicatedBy.RESEARCHER])
            & (
                Q(referred_to=AdjudicatedBy.EXTRA_ASSESSOR, completed=False)
                | Q(referred_to=AdjudicatedBy.RESEARCHER, decided_label__isnull=True)
            ),
            "extra_assessor": extra_done,
            "researcher": settled,
            "true": extra_done | settled,
            "false": ~(extra_done | settled),
        }
        return queryset.filter(conditions[value])


# -- what a page of rows and one item show -------------------------------------------------------


@dataclass
class ItemFacts:
    """What an item's judgements say, for a row of the browser or the item page."""

    task: Task
    answers: list[dict] = field(default_factory=list)  # current answers, in judging order
    tally: list[tuple[str, int]] = field(default_factory=list)  # label names with counts, most first
    majority_share: float | None = None
    disagreeing: bool = False
    disputed: bool = False  # by the project's rule
    spread: dict[str, int] = field(default_factory=dict)  # ratings: per dimension, highest minus lowest
    decision: Adjudication | None = None  # the researcher's decision in force

    @property
    def status(self) -> str:
        if self.task.kind == Task.Kind.GOLD:
            return "gold"
        if self.decision is not None:
            return "settled by a researcher"
        if self.task.referred_to == AdjudicatedBy.EXTRA_ASSESSOR and not self.task.completed:
            return "waiting for an extra assessor"
        if self.task.referred_to == AdjudicatedBy.RESEARCHER:
            return "waiting for a researcher"
        return "complete" if self.task.completed else "open"


def facts_of(project: Project, tasks: list[Task]) -> list[ItemFacts]:
    """Each task's ``ItemFacts``, from one query of their judgements and one of decisions."""
    answers: dict[int, list[dict]] = {task.pk: [] for task in tasks}
    judgements = Judgement.objects.filter(task_id__in=list(answers)).order_by("created_at", "id")
    for task_id, answer in judgements.values_list("task_id", "answer"):
        answers[task_id].append(answer)
    decisions = Adjudication.objects.in_force(project, list(answers))
    return [facts(project, task, answers[task.pk], decisions.get(task.pk)) for task in tasks]


def facts(project: Project, task: Task, answers: list[dict], decision: Adjudication | None) -> ItemFacts:
    found = ItemFacts(task, answers, decision=decision)
    if project.has_labels:
        labels = [answer.get("label") for answer in answers]
        names = project.type.label_names(project.config)
        found.tally = [(str(names.get(label, label)), n) for label, n in label_tally(labels)]  # type: ignore[call-overload]
        found.majority_share = majority_share(labels)
        found.disagreeing = disagree(labels)
        if project.adjudication_rule != Project.AdjudicationRule.OFF:
            found.disputed = disputed(labels, project.adjudication_rule, project.adjudication_threshold)
    elif project.is_rating:
        found.spread = rating_spread(answer.get("scores", {}) for answer in answers)
        found.disagreeing = any(value > LIKERT_GOLD_TOLERANCE for value in found.spread.values())
    return found


def judgements_with_history(task: Task) -> list[Judgement]:
    """The item's judgements in judging order, each with its annotator and every revision."""
    return list(
        task.judgements.select_related("annotator").prefetch_related("revisions").order_by("created_at", "id")
    )


def extra_assessor(task: Task, judgements: list[Judgement]) -> Judgement | None:
    """The judgement given after the item was referred to one more assessor, if any."""
    if task.referred_to != AdjudicatedBy.EXTRA_ASSESSOR or task.referred_at is None:
        return None
    return next((j for j in judgements if j.created_at >= task.referred_at), None)


def annotators_left(project: Project, task: Task) -> int:
    """How many active members of the project could still take this item (never had it)."""
    had = task.assignments.values("annotator_id")
    return (
        Membership.objects.filter(project=project, status=Membership.Status.ACTIVE)
        .exclude(annotator_id__in=had)
        .count()
    )
