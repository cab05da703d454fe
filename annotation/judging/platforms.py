"""Crowd platforms' workers: study links for Prolific, Mechanical Turk (ExternalQuestion) and any other
platform with a return URL.

A worker arrives by the link with the platform's parameters; they become a pseudonymous annotator
of the project (no password, no email: the same platform id is the same annotator on return, and two
tabs are one), take a session of the link's size (a number of judgements, or minutes), and leave with
the completion code: to Prolific's completion URL, by the form MTurk expects at
``{turkSubmitTo}/mturk/externalSubmit``, or to the return URL of another platform. A worker who fails
the qualification, or too many gold checks, is screened out at once, with the screen-out code.

Sessions lease items through the one assignment engine (``annotation.judging.assignment``): exact k,
no double judging, as for every annotator. What this module adds to a claim is the session's limit
(``session_refusal``). The researcher makes links on the Annotators page (``annotation.accounts``).

The platforms do not sign their parameters: whoever knows a worker's id could work under it. That is
so for every external study link (Prolific's, MTurk's ExternalQuestion); it gains the forger nothing
but unpaid work under someone else's id, and payments go to platform ids, never elsewhere.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, urlsplit
from xml.sax.saxutils import escape

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotation.items.counts import has_qualification_items
from annotation.models import Judgement, Membership, PlatformWorker, StudyLink, StudySession, Task
from annotation.pay.costs import budget_refusal
from annotation.quality.attention_results import attention_results
from annotation.quality.qualification import attempts_left

Platform = StudyLink.Platform
Outcome = StudySession.Outcome

PROLIFIC_COMPLETION_URL = "https://app.prolific.com/submissions/complete?cc={code}"
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"  # what MTurk sends while a worker only looks at the HIT
EXTERNAL_QUESTION_SCHEMA = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
)

# Letters and digits that cannot be mistaken for one another (as the sign-up codes'), for codes and
# pseudonyms.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

# The parameters each platform appends to the link, and which of them says who, which session and
# which study. Prolific's ids are 24 hexadecimal digits; MTurk's are capitals and digits.
PROLIFIC_ID = re.compile(r"^[0-9a-fA-F]{24}$")
PLATFORM_TOKEN = re.compile(r"^[A-Za-z0-9]{1,64}$")
OTHER_TOKEN = re.compile(r"^[A-Za-z0-9_.:@-]{1,64}$")
CODE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # a completion or screen-out code


@dataclass(frozen=True)
class Parameter:
    name: str
    pattern: re.Pattern[str]
    required: bool = True


PARAMETERS: dict[str, dict[str, Parameter]] = {
    Platform.PROLIFIC: {
        "worker": Parameter("PROLIFIC_PID", PROLIFIC_ID),
        "study": Parameter("STUDY_ID", PLATFORM_TOKEN),
        "session": Parameter("SESSION_ID", PLATFORM_TOKEN),
    },
    Platform.MTURK: {
        "worker": Parameter("workerId", PLATFORM_TOKEN),
        "study": Parameter("hitId", PLATFORM_TOKEN),
        "session": Parameter("assignmentId", PLATFORM_TOKEN),
    },
    Platform.OTHER: {
        "worker": Parameter("worker", OTHER_TOKEN),
        "session": Parameter("session", OTHER_TOKEN, required=False),
    },
}


class LinkError(ValueError):
    """An arrival or a request that cannot be served; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Arrival:
    """What a link's parameters say: who (``worker``), which session and study, where MTurk takes
    the submission; ``preview``: an MTurk worker only looking at the HIT (nothing is leased)."""

    worker: str = ""
    session: str = ""
    study: str = ""
    submit_to: str = ""
    preview: bool = False


# -- links ------------------------------------------------------------------------------------------


def generate_completion_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))


def create_link(project, by, **fields) -> StudyLink:
    """A new study link; a completion code is made when none is given. Fields are validated by the
    form or serializer that calls this."""
    if not fields.get("completion_code"):
        fields["completion_code"] = generate_completion_code()
    return StudyLink.objects.create(project=project, created_by=by, slug=secrets.token_urlsafe(9), **fields)


def study_url(base: str, platform: str) -> str:
    """The address to give the platform: the link with the parameters it fills in. Prolific fills
    ``{{%NAME%}}`` placeholders; MTurk appends its own; another platform fills in what its
    documentation says (the placeholders here are to be replaced in its own syntax)."""
    if platform == Platform.PROLIFIC:
        return base + "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    if platform == Platform.OTHER:
        return base + "?worker=WORKER_ID&session=SESSION_ID"
    return base


def link_refusal(link: StudyLink) -> str | None:
    if not link.active:
        return "This study link was closed by the researcher."
    if not link.project.active:
        return "This study is closed."
    return None


def external_question_xml(link_url: str, frame_height: int = 0) -> str:
    """The ExternalQuestion a researcher gives CreateHIT (``Question``): MTurk shows ``link_url`` in a
    frame and appends assignmentId, hitId, workerId and turkSubmitTo. Height 0: the whole window."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_SCHEMA}">\n'
        f"  <ExternalURL>{escape(link_url)}</ExternalURL>\n"
        f"  <FrameHeight>{int(frame_height)}</FrameHeight>\n"
        "</ExternalQuestion>\n"
    )


def hit_settings(link: StudyLink, link_url: str) -> dict:
    """The CreateHIT settings that follow from the link, for the researcher's own tooling (boto3's
    ``create_hit`` takes these names); reward and lifetime are theirs to choose."""
    minutes = link.minutes_per_session or 60
    return {
        "Title": link.project.name[:128],
        "Description": f"Judge {link.tasks_per_session or 'as many'} items for a research study.",
        "Keywords": "relevance, annotation, research",
        "MaxAssignments": 1,
        "AssignmentDurationInSeconds": int(minutes * 60 * 1.5),  # time to read the instructions too
        "AutoApprovalDelayInSeconds": 3 * 24 * 3600,
        "Question": external_question_xml(link_url),
    }


# -- arriving ---------------------------------------------------------------------------------------


def submit_hosts() -> list[str]:
    """The MTurk hosts a finished worker's form may be sent to (``MTURK_SUBMIT_HOSTS``)."""
    return [host.rstrip("/") for host in settings.MTURK_SUBMIT_HOSTS]


def read_arrival(link: StudyLink, query: Mapping[str, str]) -> Arrival:
    """The link's parameters, checked; LinkError naming the parameter that is missing or malformed.

    MTurk's ``turkSubmitTo`` must be one of the allowed hosts: a worker's browser is never sent to post
    a form anywhere else.
    """
    wanted = PARAMETERS[link.platform]
    if link.platform == Platform.MTURK and query.get("assignmentId") == MTURK_PREVIEW:
        return Arrival(preview=True)
    values: dict[str, str] = {}
    for role, parameter in wanted.items():
        value = (query.get(parameter.name) or "").strip()
        if not value:
            if parameter.required:
                raise LinkError(
                    f"The link lacks its “{parameter.name}” parameter: open the study from "
                    f"{Platform(link.platform).label} again."
                )
            continue
        if not parameter.pattern.match(value):
            raise LinkError(f"The link's “{parameter.name}” is not a {Platform(link.platform).label} id.")
        values[role] = value
    submit_to = ""
    if link.platform == Platform.MTURK:
        submit_to = (query.get("turkSubmitTo") or "").strip().rstrip("/")
        if not submit_to:
            raise LinkError(
                "The link lacks its “turkSubmitTo” parameter: open the HIT from Mechanical Turk again."
            )
        if submit_to not in submit_hosts():
            raise LinkError("The link's “turkSubmitTo” is not a Mechanical Turk address.")
    return Arrival(values["worker"], values.get("session", ""), values.get("study", ""), submit_to)


def pseudonym(platform: str) -> str:
    return f"{platform}-" + "".join(secrets.choice(CODE_ALPHABET) for _ in range(10)).lower()


def worker_for(link: StudyLink, platform_id: str) -> PlatformWorker:
    """The project's worker with this platform id, made (with a pseudonymous account) on first arrival.
    Two arrivals at once with one id (two tabs) end with one worker: the second insert meets the
    unique constraint and reads the first's row."""
    found = PlatformWorker.objects.filter(
        project=link.project, platform=link.platform, platform_id=platform_id
    )
    worker = found.select_related("annotator").first()
    if worker is not None:
        return worker
    users = get_user_model()
    try:
        with transaction.atomic():
            user = users.objects.create_user(pseudonym(link.platform), password=None)
            return PlatformWorker.objects.create(
                project=link.project, platform=link.platform, platform_id=platform_id, annotator=user
            )
    except IntegrityError:
        return found.select_related("annotator").get()


def judged_count(project_id: int, annotator_id: int) -> int:
    return Judgement.objects.filter(project_id=project_id, annotator_id=annotator_id).count()


def arrive(link: StudyLink, arrival: Arrival) -> StudySession:
    """The worker's session for this arrival: the one they had (a return, a second tab), or a new one
    within the link's cap on sessions. A worker starting a new session while another is open ends
    the open one as completed with what it holds (it is never left half-open). LinkError when the
    link is closed or the worker has used up their sessions."""
    refusal = link_refusal(link)
    if refusal:
        raise LinkError(refusal, status=410)
    with transaction.atomic():
        worker = worker_for(link, arrival.worker)
        if worker.erased_at is not None:  # pragma: no cover - an erased worker's id is blank, never matched
            raise LinkError("This worker's data was erased.", status=410)
        Membership.objects.get_or_create(
            project=link.project,
            annotator=worker.annotator,
            defaults={"joined_via": Membership.JoinedVia.STUDY_LINK},
        )
        # The worker's row, locked: two tabs of one worker start one session, not two.
        PlatformWorker.objects.select_for_update().filter(pk=worker.pk).get()
        existing = StudySession.objects.filter(
            link=link, worker=worker, platform_session=arrival.session
        ).first()
        if existing is not None:
            return existing
        taken = StudySession.objects.filter(link=link, worker=worker).count()
        if taken >= link.sessions_per_worker:
            raise LinkError(
                "You have already taken part in this study"
                + (f" {taken} times, as many as it allows" if taken > 1 else "")
                + ". Thank you! There is nothing more for you here.",
                status=409,
            )
        now = timezone.now()
        StudySession.objects.filter(worker=worker, outcome=Outcome.OPEN).update(
            outcome=Outcome.COMPLETED, finished_at=now
        )
        return StudySession.objects.create(
            link=link,
            worker=worker,
            platform_session=arrival.session,
            platform_study=arrival.study,
            submit_to=arrival.submit_to,
            tasks=link.tasks_per_session,
            judgements_before=judged_count(link.project_id, worker.annotator_id),
            ends_at=now + timedelta(minutes=link.minutes_per_session) if link.minutes_per_session else None,
        )


# -- during a session ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionCheck:
    """What a link worker's claim asks of their latest session in the project, read in one statement
    (``session_check``): its state, its size, the worker's judgements in the project now
    (``judged_now``), the link's limit on failed checks and whether the project has a budget."""

    id: int
    outcome: str
    ends_at: datetime | None
    tasks: int | None
    judgements_before: int
    judged_now: int
    failed_checks_allowed: int | None
    budgeted: bool

    @property
    def judged(self) -> int:
        """The session's judgements so far."""
        return max(0, self.judged_now - self.judgements_before)

    @property
    def seconds_left(self) -> int | None:
        """Whole seconds until the session's time runs out (0 once it has); None without a time limit."""
        if self.ends_at is None:
            return None
        return max(0, int((self.ends_at - timezone.now()).total_seconds()))

    @property
    def full(self) -> bool:
        """Has the session reached its size (its judgements, or its time)?"""
        return self.seconds_left == 0 or (self.tasks is not None and self.judged >= self.tasks)


# Written out rather than built by the ORM: it runs at every claim of a link worker, and building the
# same query (two joins, a count, an EXISTS) took 1.2 ms of CPU against the statement's own 0.05 ms,
# which was the whole difference between a link worker's judgement and an account user's.
SESSION_CHECK_SQL = """
    SELECT s.id, s.outcome, s.ends_at, s.tasks, s.judgements_before,
           (SELECT COUNT(*) FROM annotation_judgement AS j WHERE j.project_id = %s AND j.annotator_id = %s),
           l.gold_failures_allowed,
           EXISTS (SELECT 1 FROM annotation_projectpay AS p WHERE p.project_id = %s AND p.budget IS NOT NULL)
    FROM annotation_studysession AS s
    JOIN annotation_studylink AS l ON l.id = s.link_id
    JOIN annotation_platformworker AS w ON w.id = s.worker_id
    WHERE w.annotator_id = %s AND l.project_id = %s
    ORDER BY s.started_at DESC, s.id DESC
    LIMIT 1
"""


def session_check(member: Membership) -> SessionCheck | None:
    """The link worker's latest session in the member's project, as its claims need it; None when
    they have none."""
    project, annotator = member.project_id, member.annotator_id
    with connection.cursor() as cursor:
        cursor.execute(SESSION_CHECK_SQL, [project, annotator, project, annotator, project])
        row = cursor.fetchone()
    if row is None:
        return None
    id_, outcome, ends_at, tasks, before, judged_now, allowed, budgeted = row
    if isinstance(ends_at, str):  # SQLite gives a raw statement's timestamps back in UTC, as text …
        ends_at = datetime.fromisoformat(ends_at)
    if ends_at is not None and timezone.is_naive(ends_at):  # … or as naive datetimes
        ends_at = ends_at.replace(tzinfo=UTC)
    return SessionCheck(id_, outcome, ends_at, tasks, before, judged_now, allowed, bool(budgeted))


def gold_failures(member: Membership) -> int:
    """How many gold items the member answered against the gold answer."""
    project = member.project
    answers = Judgement.objects.filter(
        project_id=member.project_id, annotator_id=member.annotator_id, task__kind=Task.Kind.GOLD
    ).values_list("answer", "task__gold_answer")
    return sum(1 for answer, gold in answers if not project.type.answers_agree(gold or {}, answer))


def failed_checks(member: Membership) -> int:
    """How many checks the member failed: gold items answered against the gold answer and, in a
    rating project, attention checks (a repeat rated apart from the first rating, a spoiled output
    rated no lower than the original)."""
    failed = gold_failures(member)
    if member.project.is_rating:
        result = attention_results(member.project, member.annotator_id).get(member.annotator_id)
        failed += result.total - result.passed if result else 0
    return failed


def screened_out(member: Membership, failed_checks_allowed: int | None) -> bool:
    """Is the worker out of the study: blocked, out of qualification attempts, or past the link's
    limit on failed checks (gold items, attention checks)?"""
    project = member.project
    if member.blocked:
        return True
    if (
        member.qualified_at is None
        and has_qualification_items(project.pk)
        and attempts_left(project, member.annotator) == 0
    ):
        return True
    return past_check_limit(member, failed_checks_allowed)


def past_check_limit(member: Membership, failed_checks_allowed: int | None) -> bool:
    return failed_checks_allowed is not None and failed_checks(member) > failed_checks_allowed


def session_refusal(member: Membership) -> str | None:
    """Why a link worker may not take another task in their session now, or None. Asked by the
    assignment engine at every claim of a link worker (never at a submission: an answer to a task in
    hand is kept even when the session's time ran out while it was being written), after
    ``work_refusal`` let the member work: not blocked, and qualified where the project asks it.

    The session read is kept on the member (``member.study_session``): its ``judged_now`` is the
    worker's count that the judging page shows, so the page need not count again."""
    session = member.study_session = session_check(member)
    if session is None:
        return "Open your study link again to start a session."
    if session.outcome != Outcome.OPEN:
        return "This session is over: open your study link again for the code."
    if past_check_limit(member, session.failed_checks_allowed):
        return "You cannot go on in this study."
    if session.full:
        return "This session is complete."
    return budget_refusal(member.project) if session.budgeted else None


def finished_session(member: Membership, items_left: Callable[[], str]) -> StudySession | None:
    """The worker's session if it is over, its outcome decided and stored (screened out, or completed:
    full, or nothing left for them or the budget spent after at least one judgement); None while
    there is work to do.

    Asked when a link worker has no task in hand, before the judging page would show one;
    ``items_left``: the assignment engine's ``items_left_for`` of the worker (asked only if needed).
    """
    check = member.study_session = session_check(member)  # the judging page reads it too
    if check is None:
        return None
    if check.outcome == Outcome.OPEN:
        if screened_out(member, check.failed_checks_allowed):
            outcome = Outcome.SCREENED_OUT
        elif check.full or (
            check.judged and (items_left() == "none" or (check.budgeted and budget_refusal(member.project)))
        ):
            # Full, or the study ran out of items for them or of money: they are paid for what they did.
            outcome = Outcome.COMPLETED
        else:
            return None
        StudySession.objects.filter(pk=check.id, outcome=Outcome.OPEN).update(
            outcome=outcome, finished_at=timezone.now()
        )
    return StudySession.objects.select_related("link").get(pk=check.id)


# -- leaving ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exit:
    """Where a finished worker goes: the code to show; ``url`` to go on to (Prolific, another platform);
    or ``submit_to`` and ``fields``, the form MTurk expects."""

    code: str
    url: str = ""
    submit_to: str = ""
    fields: tuple[tuple[str, str], ...] = ()


def exit_for(session: StudySession) -> Exit:
    link = session.link
    code = link.screenout_code if session.outcome == Outcome.SCREENED_OUT else link.completion_code
    if link.platform == Platform.MTURK:
        if session.outcome == Outcome.SCREENED_OUT or not session.submit_to:
            return Exit(code)  # a screened-out MTurk worker returns the HIT: it cannot be submitted
        host = session.submit_to.rstrip("/")
        if host not in submit_hosts():  # the allow-list changed since the arrival
            return Exit(code)
        fields = (("assignmentId", session.platform_session), ("completion_code", code))
        return Exit(code, submit_to=f"{host}/mturk/externalSubmit", fields=fields)
    if not code:
        return Exit("")
    template = link.return_url or (PROLIFIC_COMPLETION_URL if link.platform == Platform.PROLIFIC else "")
    return Exit(code, url=template.replace("{code}", quote(code, safe="")) if template else "")


def return_url_problem(template: str) -> str | None:
    """Why a researcher's return URL cannot be used, or None."""
    if not template:
        return None
    parts = urlsplit(template.replace("{code}", "CODE"))
    if parts.scheme not in ("https", "http") or not parts.netloc:
        return "write an http(s) address, with {code} where the completion code goes"
    if "{code}" not in template:
        return "put {code} where the completion code goes"
    return None
