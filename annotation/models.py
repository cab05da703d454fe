"""Projects, what is judged (topics × documents as micro-tasks) and who judged what.

Vocabulary (after Turkle): a Project holds Tasks; each Task needs ``required_judgements`` (k)
Judgements from k different annotators; an annotator works on a Task through an Assignment, a
lease that expires and returns the slot to the pool.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from annotation import task_types
from annotation.crowd.questionnaire import QuestionnaireError, validate_questionnaire


def questionnaire_checked(value: object) -> None:
    """``validate_questionnaire`` as a field's validator: the form and the API name the question."""
    try:
        validate_questionnaire(value)
    except QuestionnaireError as error:
        raise ValidationError(str(error)) from error


# A share: a probability or a rate between 0 and 1.
SHARE = [MinValueValidator(0.0), MaxValueValidator(1.0)]


class AdjudicatedBy(models.TextChoices):
    """Who settles a disputed item: one more assessor (an extra judgement), or a researcher by hand."""

    EXTRA_ASSESSOR = "extra_assessor", "One more assessor"
    RESEARCHER = "researcher", "A researcher"


class Project(models.Model):
    """A judging campaign owned by one researcher; what is asked is ``task_type`` with its ``config``."""

    class TaskType(models.TextChoices):
        BINARY_RELEVANCE = "binary_relevance", "Binary relevance"
        GRADED_RELEVANCE = "graded_relevance", "Graded relevance"
        LIKERT = "likert", "Likert quality rating"
        FREE_TEXT = "free_text", "Free-text reference writing"
        PAIRWISE = "pairwise", "Pairwise comparison"
        SCU_PRESENCE = "scu_presence", "Content-unit presence (LitePyramid)"
        SCU_WRITING = "scu_writing", "Content-unit writing (Pyramid, expert step)"

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
        MAJORITY = "majority", "Majority vote (ties: the tie rule)"
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

    class AdjudicationRule(models.TextChoices):
        # The rules of annotation.crowd.adjudication.
        OFF = "off", "Off: disputed items go to the ground truth as they are"
        NOT_UNANIMOUS = "not_unanimous", "Items whose judgements are not unanimous"
        MAJORITY_BELOW = "majority_below", "Items whose majority label's share is below the threshold"

    adjudication_rule = models.CharField(
        max_length=20,
        choices=AdjudicationRule.choices,
        default=AdjudicationRule.OFF,
        help_text="Label projects: which items count as disputed once their k judgements are in.",
    )
    adjudication_threshold = models.FloatField(
        validators=SHARE,
        default=0.75,
        help_text="With “majority below”: an item is disputed when its most frequent label has less than "
        "this share of the judgements (0.75 sends 2 against 1, not 4 against 1).",
    )
    adjudicated_by = models.CharField(
        max_length=20,
        choices=AdjudicatedBy.choices,
        default=AdjudicatedBy.EXTRA_ASSESSOR,
        help_text="Where disputed items go: to one more annotator who has not judged them (once per item), "
        "or to you, to settle on the item page.",
    )

    class TieRule(models.TextChoices):
        # How majority vote settles a tie (a 1–1 split with k = 2): referred like a disputed item
        # (annotation.adjudication.rules), or broken at once by annotation.crowd.aggregation's rules.
        EXTRA_ANNOTATOR = "extra_annotator", "Refer it to one more annotator"
        RESEARCHER = "researcher", "Refer it to you, to settle on the item page"
        LOWER = "lower", "The lower label (e.g. not relevant)"
        HIGHER = "higher", "The higher label (e.g. relevant)"
        GOLD_WEIGHTED = "gold_weighted", "The label of the annotators with the better gold accuracy"

    tie_rule = models.CharField(
        max_length=20,
        choices=TieRule.choices,
        blank=True,
        default="",
        help_text="Majority vote: what happens to an item whose labels tie. Left empty, it is chosen "
        "by k when the project is saved: one more annotator when k is even, the lower label when odd.",
    )
    active = models.BooleanField(default=True)
    # Sign-up with a project code (annotation.accounts.joining): anyone who has the code may create an account
    # and join while sign-up is enabled. Not a setting of the form or API: it is shown, switched and
    # renewed on the project's Annotators page only.
    consent_text = models.TextField(
        blank=True,
        default="",
        help_text="Markdown; sanitised before display. When set, every annotator must accept it before "
        "any task (the informed consent of a paid study).",
    )
    demographics = models.JSONField(
        default=list,
        blank=True,
        validators=[questionnaire_checked],
        help_text='Questions asked once before any task, e.g. [{"name": "age", "question": "How old are '
        'you?", "kind": "number", "min": 18}]; kinds: choice (with choices), number, text. '
        "“Prefer not to say” is always offered; answers are kept apart from judgements.",
    )
    signup_code = models.CharField(max_length=32, blank=True, default="")
    signup_enabled = models.BooleanField(default=False)
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
            # A code names one project (looked up by it at sign-up).
            models.UniqueConstraint(
                fields=["signup_code"], condition=~Q(signup_code=""), name="project_signup_code_unique"
            ),
            models.CheckConstraint(
                condition=Q(adjudication_threshold__gte=0, adjudication_threshold__lte=1),
                name="project_adjudication_threshold_is_a_share",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        if not self.tie_rule:  # a rule nobody chose is chosen by k, visibly, once
            self.tie_rule = default_tie_rule(self.assignments_per_task)
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "tie_rule"}
        super().save(*args, **kwargs)

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
        "adjudication_rule",
        "adjudication_threshold",
        "adjudicated_by",
        "tie_rule",
        "one_key_answers",
        "consent_text",
        "demographics",
        "active",
    )

    @property
    def votes_by_majority(self) -> bool:
        """Is the ground truth a majority vote of labels (so its ties follow ``tie_rule``)?"""
        return self.has_labels and self.ground_truth_method == Project.GroundTruthMethod.MAJORITY

    @property
    def tie_route(self) -> str | None:
        """Where tied items are referred (an ``AdjudicatedBy``), or None if the tie rule breaks them."""
        if not self.votes_by_majority:
            return None
        routes: dict[str, str] = {
            Project.TieRule.EXTRA_ANNOTATOR: AdjudicatedBy.EXTRA_ASSESSOR,
            Project.TieRule.RESEARCHER: AdjudicatedBy.RESEARCHER,
        }
        return routes.get(self.tie_rule)

    @property
    def vote_tie_rule(self) -> str:
        """The tie-break of ``annotation.crowd.aggregation.majority_vote`` this project's snapshots use:
        its rule, or ``lower`` for a rule that refers ties (their label until they are settled)."""
        if self.tie_rule in (Project.TieRule.HIGHER, Project.TieRule.GOLD_WEIGHTED):
            return self.tie_rule
        return Project.TieRule.LOWER

    @property
    def even_k_warning(self) -> str | None:
        """What to know when k is even under majority vote (a warning, not a refusal), or None."""
        return even_k_warning(self.assignments_per_task, self.ground_truth_method, self.tie_rule)

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

    @staticmethod
    def adjudication_refusal(task_type_name: str, rule: str) -> str | None:
        """Why a project of this task type cannot have this adjudication rule, or None if it can.

        Only labels are voted on, so only label projects (binary, graded, pairwise) are adjudicated.
        """
        if rule == Project.AdjudicationRule.OFF:
            return None
        try:
            if task_types.task_type(task_type_name).has_labels:
                return None
        except task_types.AnswerError:  # an unknown task type is refused by its own field
            return None
        return "adjudication applies to label projects (binary or graded relevance, pairwise); keep it off"

    def clean(self) -> None:
        """The task type and its configuration fit together (the admin, the form and the API all
        check this, so nothing can save a project whose judging page would break), and so do the
        task type and the adjudication rule."""
        super().clean()
        refusal = Project.adjudication_refusal(self.task_type, self.adjudication_rule)
        if refusal is not None:
            raise ValidationError({"adjudication_rule": refusal})
        if getattr(self, "config_errors_shown", False):  # the project form put them beside its fields
            return
        try:
            self.type.validate_config(self.config)
        except task_types.AnswerError as error:
            raise ValidationError({"config": str(error)}) from error


def default_tie_rule(k: int) -> str:
    """The tie rule of a project whose researcher chose none: with an even k a split vote is likely
    (1–1 with k = 2), and one more annotator settles it; with an odd k binary votes cannot tie."""
    return Project.TieRule.EXTRA_ANNOTATOR if k % 2 == 0 else Project.TieRule.LOWER


def even_k_warning(k: int, method: str, tie_rule: str) -> str | None:
    """Why an even k under majority vote deserves a thought (shown by the form and the API), or None."""
    if k % 2 or method != Project.GroundTruthMethod.MAJORITY:
        return None
    rule = tie_rule or default_tie_rule(k)
    fates: dict[str, str] = {
        Project.TieRule.EXTRA_ANNOTATOR: "each goes to one more annotator (so it needs k + 1 annotators)",
        Project.TieRule.RESEARCHER: "each waits for you to settle it on its item page",
        Project.TieRule.LOWER: "each gets the lower label",
        Project.TieRule.HIGHER: "each gets the higher label",
        Project.TieRule.GOLD_WEIGHTED: "each gets the label of the annotators with the better gold accuracy",
    }
    fate = fates.get(rule)
    if fate is None:  # a rule the form or API is refusing anyway
        return None
    split = f"{k // 2}–{k // 2}"
    return (
        f"k = {k} is even: under majority vote a {split} split is a tie, and {fate}. "
        "An odd k avoids most ties; the tie rule says what happens to the rest."
    )


class MembershipQuerySet(models.QuerySet["Membership"]):
    def locked(self, project: Project, annotator) -> Membership | None:
        """The annotator's membership row, locked for this transaction, and no other row.

        of=("self",) and no ordering: Membership's default ordering joins the project and user tables,
        and FOR UPDATE would then lock the project row too, so every claim in a project would queue
        behind the others and deadlock with submissions updating that row (the load benchmark found it).
        """
        return (
            self.select_for_update(of=("self",))
            .filter(project=project, annotator=annotator)
            .order_by("pk")
            .first()
        )


class Membership(models.Model):
    """An annotator in a project: how they came in, whether they passed the qualification and whether
    they are blocked."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        BLOCKED = "blocked", "Blocked"
        # A member on record who may not take tasks until the researcher activates them (the
        # annotators of an imported bundle): unlike blocking, their judgements stay in the ground truth.
        INACTIVE = "inactive", "Inactive"

    class JoinedVia(models.TextChoices):
        ADDED = "added", "Added by username"
        ACCOUNT = "account", "Account created by the researcher"
        INVITATION = "invitation", "Invitation link"
        SIGNUP_CODE = "signup_code", "Sign-up code"
        STUDY_LINK = "study_link", "Study link of a crowd platform"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    qualified_at = models.DateTimeField(null=True, blank=True)
    blocked_reason = models.CharField(max_length=300, blank=True)
    joined_via = models.CharField(max_length=20, choices=JoinedVia.choices, default=JoinedVia.ADDED)
    invitation = models.ForeignKey(
        "Invitation", on_delete=models.SET_NULL, null=True, blank=True, related_name="memberships"
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    consented_at = models.DateTimeField(
        null=True, blank=True, help_text="When they accepted the consent form."
    )
    demographics_at = models.DateTimeField(
        null=True, blank=True, help_text="When they answered the questions about themselves."
    )

    objects = MembershipQuerySet.as_manager()
    # Not a field: a link worker's session as the claim in this request read it (a SessionCheck of
    # annotation.judging.platforms, whose judged_now the judging page shows).
    study_session: object = None

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

    @property
    def inactive(self) -> bool:
        return self.status == self.Status.INACTIVE


class Invitation(models.Model):
    """A link that lets whoever holds it join a project (with a new account, or their own).

    Only a SHA-256 of the link's random token is stored: the link is shown once, when it is made,
    and a copy of the database does not give anyone a way in. ``max_uses`` None: any number of
    people until it expires.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    token_hash = models.CharField(max_length=64, unique=True)
    note = models.CharField(
        max_length=200, blank=True, help_text="Whom it is for; shown only to researchers."
    )
    max_uses = models.PositiveIntegerField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField()
    revoked = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # The last line of defence behind the conditional UPDATE that counts a use.
            models.CheckConstraint(
                condition=Q(max_uses__isnull=True) | Q(uses__lte=F("max_uses")),
                name="invitation_uses_within_max",
            ),
        ]

    def __str__(self) -> str:
        return f"invitation to {self.project} ({self.note or self.pk})"

    def refusal(self, now=None) -> str | None:
        """Why this link cannot be used now, or None if it can."""
        now = now or timezone.now()
        if self.revoked:
            return "This invitation was withdrawn by the researcher."
        if self.expires_at <= now:
            return "This invitation has expired."
        if self.max_uses is not None and self.uses >= self.max_uses:
            return "This invitation has already been used."
        if not self.project.active:
            return "This project is closed."
        return None


class StudyLink(models.Model):
    """A link that brings a crowd platform's workers (Prolific, Mechanical Turk, any other) into a
    project, each as a pseudonymous annotator, for sessions of a set size, and sends them back to the
    platform with a completion code (``annotation.judging.platforms``).

    The slug is public (it is in the study's URL on the platform), not a secret: who may work is the
    platform's business, and what a worker can do is judge this project's items and nothing else.
    """

    class Platform(models.TextChoices):
        PROLIFIC = "prolific", "Prolific"
        MTURK = "mturk", "Mechanical Turk"
        OTHER = "other", "Another platform"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="study_links")
    platform = models.CharField(max_length=10, choices=Platform.choices)
    slug = models.CharField(max_length=32, unique=True)
    note = models.CharField(
        max_length=200, blank=True, help_text="What it is for; shown only to researchers."
    )
    completion_code = models.CharField(
        max_length=64,
        help_text="Given to a worker who finished a session (Prolific's study completion code).",
    )
    screenout_code = models.CharField(
        max_length=64,
        blank=True,
        help_text="Given at once to a worker screened out (failed qualification, blocked); "
        "empty: they are told they cannot go on, with no code.",
    )
    return_url = models.CharField(
        max_length=500,
        blank=True,
        help_text="Where a finished worker goes, with {code} standing for their code "
        "(Prolific's completion URL when empty; Mechanical Turk's workers submit to MTurk instead).",
    )
    tasks_per_session = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="A session ends after this many judgements.",
    )
    minutes_per_session = models.PositiveIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)], help_text="A session ends after this long."
    )
    sessions_per_worker = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1)], help_text="How many sessions one worker may take."
    )
    gold_failures_allowed = models.PositiveSmallIntegerField(
        "failed checks allowed",
        null=True,
        blank=True,
        help_text="A worker who fails more checks than this (gold items answered wrongly; in rating "
        "projects also attention checks) is screened out; empty: never.",
    )
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(tasks_per_session__isnull=False) | Q(minutes_per_session__isnull=False),
                name="study_link_session_has_a_size",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_platform_display()} link to {self.project} ({self.note or self.slug})"


class PlatformWorker(models.Model):
    """A crowd platform's worker in one project, known to everyone but the payments by a pseudonym.

    ``annotator`` is an account without password or email, named by a random pseudonym; the
    platform's own id is kept apart, here only, for returns and payments, and is erased on request
    (``erased_at``): the judgements stay, under the pseudonym.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="platform_workers")
    platform = models.CharField(max_length=10, choices=StudyLink.Platform.choices)
    platform_id = models.CharField(max_length=64, blank=True)
    annotator = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="platform_worker"
    )
    erased_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            # The same id arriving twice at once (two tabs) is one worker: the second insert fails.
            models.UniqueConstraint(
                fields=["project", "platform", "platform_id"],
                condition=~Q(platform_id=""),
                name="platform_worker_once_per_project",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} ({self.get_platform_display()})"


class StudySession(models.Model):
    """One session of a platform worker through a link: a Prolific submission, an MTurk assignment.

    Its size is the link's (``tasks`` judgements counted from ``judgements_before``, or until
    ``ends_at``); it ends completed (the worker gets the completion code) or screened out (the
    screen-out code).
    """

    class Outcome(models.TextChoices):
        OPEN = "open", "Working"
        COMPLETED = "completed", "Completed"
        SCREENED_OUT = "screened_out", "Screened out"

    link = models.ForeignKey(StudyLink, on_delete=models.CASCADE, related_name="sessions")
    worker = models.ForeignKey(PlatformWorker, on_delete=models.CASCADE, related_name="sessions")
    platform_session = models.CharField(
        max_length=64, blank=True, help_text="Prolific's SESSION_ID, MTurk's assignmentId."
    )
    platform_study = models.CharField(
        max_length=64, blank=True, help_text="Prolific's STUDY_ID, MTurk's hitId."
    )
    submit_to = models.CharField(max_length=200, blank=True, help_text="MTurk's turkSubmitTo (allow-listed).")
    tasks = models.PositiveIntegerField(null=True, blank=True)
    judgements_before = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(auto_now_add=True)
    ends_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=12, choices=Outcome.choices, default=Outcome.OPEN)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["started_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["link", "worker", "platform_session"], name="study_session_once"),
        ]

    def __str__(self) -> str:
        return f"session {self.platform_session or self.pk} of {self.worker}"


MONEY = [MinValueValidator(0)]


class ProjectPay(models.Model):
    """How a project pays its crowd workers (those who came in by a study link), and its budget:
    ``annotation.crowd.pay`` does the arithmetic, ``annotation.pay`` reads the work and shows it.

    ``base_paid_by_platform``: the platform pays each session's reward itself when the researcher
    approves it (Prolific's study reward, a HIT's reward), so the payment exports carry only the
    bonuses; otherwise they carry everything owed.
    """

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="pay")
    currency = models.CharField(max_length=3, default="GBP", help_text="ISO code: GBP, USD, EUR, …")
    per_judgement = models.DecimalField(max_digits=10, decimal_places=4, default=0, validators=MONEY)
    per_hour = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        default=0,
        validators=MONEY,
        help_text="On the measured time on task.",
    )
    fee_percent = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=0,
        validators=[MinValueValidator(0), MaxValueValidator(99.99)],
        help_text="The platform's fee on everything paid (Prolific about 33.33, MTurk 20).",
    )
    bonus_per_gold_right = models.DecimalField(max_digits=10, decimal_places=4, default=0, validators=MONEY)
    accuracy_bonus = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        default=0,
        validators=MONEY,
        help_text="Once per worker, for accuracy on gold.",
    )
    accuracy_threshold = models.FloatField(default=0.8, validators=SHARE)
    accuracy_min_gold = models.PositiveSmallIntegerField(default=5, validators=[MinValueValidator(1)])
    session_bonus = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        default=0,
        validators=MONEY,
        help_text="A fixed amount per completed session.",
    )
    minimum_hourly = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        default=Decimal("9.00"),
        validators=MONEY,
        help_text="The fair minimum the median effective hourly pay is held to (Prolific recommends £9.00).",
    )
    budget = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=MONEY,
        help_text="New leases stop when the committed cost (fees included) would pass it; empty: no cap.",
    )
    base_paid_by_platform = models.BooleanField(
        default=True,
        help_text="The platform pays the base reward itself: the exports carry the bonuses only.",
    )

    def __str__(self) -> str:
        return f"pay of {self.project}"


class PaymentExport(models.Model):
    """One payment file made for a platform, kept with what it paid each worker (``payments``), so a
    later export pays only what is still owed."""

    class Kind(models.TextChoices):
        PROLIFIC = "prolific", "Prolific bulk bonus"
        MTURK = "mturk", "Mechanical Turk bulk bonus"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="payment_exports")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    currency = models.CharField(max_length=3)
    total = models.DecimalField(max_digits=12, decimal_places=2)
    text = models.TextField(help_text="The file as made, to download again.")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} file {self.pk} of {self.project}"


class Payment(models.Model):
    """What one export paid one worker."""

    export = models.ForeignKey(PaymentExport, on_delete=models.CASCADE, related_name="payments")
    # RESTRICT: a paid worker is never deleted alone (their payments would vanish), but goes with
    # their project, payments and all.
    worker = models.ForeignKey("PlatformWorker", on_delete=models.RESTRICT, related_name="payments")
    amount = models.DecimalField(max_digits=12, decimal_places=2)

    def __str__(self) -> str:
        return f"{self.amount} to {self.worker}"


class DemographicResponse(models.Model):
    """An annotator's answers to the project's questions about themselves (``Project.demographics``),
    kept apart from their judgements and erased on request without touching them."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="demographic_responses")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    answers = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "annotator"], name="demographics_once_per_project"),
        ]

    def __str__(self) -> str:
        return f"answers of {self.annotator} in {self.project}"


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

    # No index of its own: every index below leads with it, and each index is written again whenever
    # a judgement completes the task.
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="tasks", db_index=False)
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
    # Pairwise items: the system that produced the second output, so that the comparisons rank
    # systems (Bradley-Terry), not only items.
    system_b_id = models.CharField(max_length=200, blank=True)
    required_judgements = models.PositiveSmallIntegerField()
    # Live assignments plus submitted judgements; a claim increments it under a row lock.
    slots_taken = models.PositiveSmallIntegerField(default=0)
    completed = models.BooleanField(default=False)
    gold_answer = models.JSONField(
        null=True, blank=True, help_text="Gold and qualification items: the expected answer."
    )
    gold_explanation = models.TextField(blank=True, help_text="Shown with gold feedback, when enabled.")
    # Set by the project's adjudication rule (annotation.adjudication.rules) when the item's k judgements
    # were disputed: sent to one more assessor (``required_judgements`` went up by one), or left for
    # a researcher. How a researcher settled it is in ``Adjudication``, whether referred or not.
    referred_to = models.CharField(max_length=20, choices=AdjudicatedBy.choices, blank=True, default="")
    referred_at = models.DateTimeField(null=True, blank=True)

    class ReferralReason(models.TextChoices):
        DISPUTED = "disputed", "Disputed under the adjudication rule"
        TIE = "tie", "Its vote was tied"

    referral_reason = models.CharField(max_length=10, choices=ReferralReason.choices, blank=True, default="")

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
            # The item browser's page: every item and gold item in pool order, cut at 50 (at 1,000,000
            # items, without it, a sort of the whole project: 400 ms).
            models.Index(fields=["project", "pool_rank", "id"], name="task_in_pool_order"),
            # The adjudication queue: the few referred items, not every item with a subquery each.
            models.Index(
                fields=["project", "referred_to"], name="task_referred", condition=~Q(referred_to="")
            ),
        ]

    def __str__(self) -> str:
        parts = [self.topic.external_id if self.topic else "—", self.document.external_id]
        if self.document_b:
            parts.append(self.document_b.external_id)
        return " × ".join(parts) + ("" if self.kind == self.Kind.ITEM else f" ({self.kind})")

    @property
    def title(self) -> str:
        """The item in words, for pages: the topic's title and the document's (or the start of its
        text), where ``str()`` gives the ids ("7 × 492")."""

        def name(document: Document) -> str:
            text = document.title or document.text
            return text if len(text) <= 80 else text[:79] + "…"

        documents = " / ".join(name(d) for d in (self.document, self.document_b) if d is not None)
        return f"{self.topic.title} — {documents}" if self.topic else documents


class Assignment(models.Model):
    """An annotator's lease on a task."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        SUBMITTED = "submitted", "Submitted"
        EXPIRED = "expired", "Expired"
        SKIPPED = "skipped", "Skipped"

    # No index of their own: (task, annotator) and (annotator, status) below lead with them, and each
    # extra index is written for every lease (the judgement import writes 100,000 at a time).
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments", db_index=False
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


class JudgementQuerySet(models.QuerySet["Judgement"]):
    def of_items(self, project: Project) -> models.QuerySet[Judgement]:
        """The project's judgements of items (not of gold, qualification or attention-check tasks):
        every judgement of the project but those of its few other tasks, left out by a short list
        rather than by joining every task to read its kind (at 1,000,000 items that join cost about
        0.5 s a query on the project page)."""
        others = [kind for kind in Task.Kind.values if kind != Task.Kind.ITEM]
        not_items = Task.objects.filter(project=project, kind__in=others).order_by().values("pk")
        return self.filter(project=project).exclude(task_id__in=not_items)


class Judgement(models.Model):
    """An annotator's current answer to a task; every version is kept in ``JudgementRevision``.

    ``answer`` is the normalised answer of the task type (``annotation.task_types``); ``label``
    repeats its categorical label (binary, graded, pairwise) so that aggregation reads a column.
    """

    # The task's project, repeated so that "this annotator's judgements in this project" is one
    # index lookup rather than a join through every task of the project (28 ms at 100,000 tasks).
    # Neither has an index of its own: (project, annotator) and (task, annotator) below lead with them.
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="judgements", db_index=False)
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="judgements", db_index=False)
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

    objects = JudgementQuerySet.as_manager()

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

    # No index of its own: (judgement, number), unique below, leads with it.
    judgement = models.ForeignKey(
        Judgement, on_delete=models.CASCADE, related_name="revisions", db_index=False
    )
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


class AdjudicationQuerySet(models.QuerySet["Adjudication"]):
    def in_force(self, project: Project, task_ids: Collection[int] | None = None) -> dict[int, Adjudication]:
        """The decision in force on each item that has one: its newest ``Adjudication``, if it has a
        label."""
        rows = self.filter(project=project).select_related("researcher")
        if task_ids is not None:
            rows = rows.filter(task_id__in=task_ids)
        newest: dict[int, Adjudication] = {}
        for row in rows.order_by("task_id", "-created_at", "-id"):
            newest.setdefault(row.task_id, row)
        return {task: row for task, row in newest.items() if row.label is not None}


class Adjudication(models.Model):
    """A researcher's decision on an item's label, overriding the crowd's aggregate in the ground truth.

    Never overwritten: a new decision is a new row, and the newest row of a task is in force. A row
    without a label withdraws the decision (the aggregate applies again). Label projects only.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="adjudications")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="adjudications")
    researcher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="adjudications"
    )
    label = models.SmallIntegerField(null=True, blank=True, help_text="None: the decision was withdrawn.")
    note = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AdjudicationQuerySet.as_manager()

    class Meta:
        ordering = ["task", "-created_at", "-id"]
        indexes = [
            # Used by the ground-truth job and the item browser: a project's decisions, newest first.
            models.Index(fields=["project", "task", "-created_at"], name="adjudication_project_task"),
        ]

    def __str__(self) -> str:
        settled = "withdrawn" if self.label is None else f"label {self.label}"
        return f"{self.researcher} on task {self.task_id}: {settled}"


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


class ProjectEvent(models.Model):
    """One entry of a project's history: who did what, when, to what (runs withdrawn or deleted,
    topics and documents deleted, the project archived, a lease released…). Written in the same
    transaction as the change it records, never edited."""

    class Action(models.TextChoices):
        RUN_WITHDRAWN = "run_withdrawn", "Run withdrawn"
        RUN_REINSTATED = "run_reinstated", "Run reinstated"
        RUN_DELETED = "run_deleted", "Run deleted"
        TOPICS_DELETED = "topics_deleted", "Topics deleted"
        DOCUMENTS_DELETED = "documents_deleted", "Documents deleted"
        PROJECT_ARCHIVED = "project_archived", "Project archived"
        PROJECT_UNARCHIVED = "project_unarchived", "Project unarchived"
        LEASE_RELEASED = "lease_released", "Lease released"
        PERSONAL_DATA_ERASED = "personal_data_erased", "Personal data erased"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    action = models.CharField(max_length=30, choices=Action.choices)
    summary = models.TextField(help_text="What happened, in words (as the confirmation said it).")
    details = models.JSONField(default=dict, blank=True, help_text="Names and counts of what changed.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "-created_at"], name="project_event_newest")]

    def __str__(self) -> str:
        return f"{self.project}: {self.get_action_display()} ({self.created_at:%Y-%m-%d %H:%M})"
