"""Judgements made elsewhere (an earlier campaign, another tool) imported into a project's items, all or
nothing, at the database's pace (``POST /api/projects/{id}/judgements/import/``).

Validation is DRF's, worded as DRF words it, but a line in the plain form — the known keys, integers
that are ints, ASCII ids, a username that needs no trimming — is read by ``plain_judgement`` without
DRF's per-field machinery (a tenth of the time); any other line goes through the serializer, and one
refused line makes the whole list go through it, so the errors are the serializer's to the letter.
``tests/scoring/test_judgement_import_fast.py`` holds both ways equal on generated lines.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import QuerySet
from rest_framework import serializers

from annotation.adjudication.rules import close_or_refer
from annotation.judging.assignment import AssignmentError, record_staged, take_slots
from annotation.judging.bulk import NULL, NewJudgement, copy_text, insert_judgements
from annotation.models import Document, Judgement, Membership, Project, Task, Topic
from annotation.serializers import IdentifierField, StrictSerializer
from annotation.signals import announce_judgements_changed
from annotation.task_types import AnswerError
from evaluation.collection.flow import ImportFailed

MAX_JUDGEMENTS = 1_000_000
FIELDS = frozenset(
    ("task", "topic", "document", "document_b", "annotator", "label", "answer", "seconds_spent")
)


def plain_id(value: Any, max_length: int) -> bool:
    """An id IdentifierField keeps as it is: printable ASCII without spaces (NFC, nothing to trim)."""
    return (
        type(value) is str
        and 0 < len(value) <= max_length
        and value.isascii()
        and value.isprintable()
        and " " not in value
    )


def plain_judgement(row: Any) -> dict | None:
    """``JudgementInSerializer``'s validated data for a line in the plain form, else None (the line
    then goes through the serializer)."""
    if type(row) is not dict or not row.keys() <= FIELDS:
        return None
    if ("task" not in row and "document" not in row) or ("label" not in row and "answer" not in row):
        return None
    out = dict(row)
    out.setdefault("topic", None)
    out.setdefault("document_b", None)
    plain = (
        plain_name(row.get("annotator"))
        and ("task" not in row or plain_int(row["task"], 1, 2**63 - 1))
        and (out["topic"] is None or plain_id(out["topic"], 100))
        and ("document" not in row or plain_id(row["document"], 200))
        and (out["document_b"] is None or plain_id(out["document_b"], 200))
        and (row.get("label") is None or plain_int(row["label"], -32768, 32767))
        and ("answer" not in row or row["answer"] is not None)
    )
    if not plain:
        return None
    seconds = row.get("seconds_spent")
    if seconds is not None:
        if type(seconds) not in (int, float) or not 0 <= seconds <= 1e9:
            return None
        out["seconds_spent"] = float(seconds)
    return out


def plain_int(value: Any, lowest: int, highest: int) -> bool:
    return type(value) is int and lowest <= value <= highest


def plain_name(value: Any) -> bool:
    """A username CharField keeps as it is: printable, nothing to trim, 1 to 150 characters."""
    return type(value) is str and 0 < len(value) <= 150 and value.isprintable() and value == value.strip()


class JudgementRows(serializers.ListSerializer):
    """The list of lines: plain ones by ``plain_judgement``, the others by the serializer; any refusal
    sends the whole list through DRF, whose errors name every refused line."""

    def to_internal_value(self, data):
        longest = getattr(self, "max_length", None) or MAX_JUDGEMENTS
        if not isinstance(data, list) or not 0 < len(data) <= longest:
            return super().to_internal_value(data)
        child = self.child
        assert child is not None  # a list serializer always has one
        rows = []
        for row in data:
            plain = plain_judgement(row)
            if plain is None:
                try:
                    plain = child.run_validation(row)
                except serializers.ValidationError:
                    return super().to_internal_value(data)
            rows.append(plain)
        return rows


class JudgementInSerializer(StrictSerializer):
    task = serializers.IntegerField(
        required=False, min_value=1, max_value=2**63 - 1, help_text="an item's id"
    )
    topic = IdentifierField(max_length=100, required=False, allow_null=True, default=None)
    document = IdentifierField(max_length=200, required=False)
    document_b = IdentifierField(max_length=200, required=False, allow_null=True, default=None)
    annotator = serializers.CharField(max_length=150)
    label = serializers.IntegerField(  # type: ignore[assignment]  # (the stubs' Field.label is its title)
        required=False, allow_null=True, min_value=-32768, max_value=32767
    )
    answer = serializers.JSONField(required=False)
    seconds_spent = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1e9)

    class Meta:
        list_serializer_class = JudgementRows

    def validate(self, attrs):
        if "task" not in attrs and "document" not in attrs:
            raise serializers.ValidationError(
                {"document": ["give the item's document (and topic) or its task id"]}
            )
        if "label" not in attrs and "answer" not in attrs:
            raise serializers.ValidationError({"label": ["give a label or an answer"]})
        return attrs


class JudgementImportSerializer(StrictSerializer):
    judgements = JudgementInSerializer(many=True, allow_empty=False, max_length=MAX_JUDGEMENTS)  # type: ignore[call-arg]
    create_annotators = serializers.BooleanField(
        default=False,
        help_text="create an account (inactive, no usable password) for each unknown username",
    )


class JudgementImportSummarySerializer(serializers.Serializer):
    judgements_created = serializers.IntegerField()
    items = serializers.IntegerField(help_text="items that received judgements")
    annotators = serializers.IntegerField()


def import_judgements(project: Project, judgements: list[dict], create_annotators: bool) -> dict:
    """Store the judgements (validated rows) all or nothing; raise ImportFailed naming the first
    line at fault: its item, its annotator, a second judgement of the item by them, its answer, then
    (over all lines) the first that takes an item past its k."""
    users = annotators_for({row["annotator"] for row in judgements}, create_annotators)
    items = ItemFinder(project, judgements, [user.pk for user in users.values() if user.pk is not None])
    try:
        config = project.type.validate_config(project.config)  # once, not per answer
    except AnswerError as error:
        raise ImportFailed([("config", f"the project's settings: {error}")]) from error
    pending: list[tuple[int, Any, Answer, float | None]] = []
    seen: set[tuple[int, str]] = set()
    done = items.done
    # Each distinct answer is validated once and kept with its stored form: known by its label, or
    # by its repr, which tells apart every value JSON can hold (1 from 1.0, from true, from "1").
    answers: dict[Any, Answer] = {}
    for index, row in enumerate(judgements):
        task = items.find(index, row)
        name = row["annotator"]
        user = users.get(name)
        if user is None:
            raise ImportFailed(
                [
                    (
                        f"judgements[{index}].annotator",
                        f"no account named {name!r}: create it first, or send create_annotators: true",
                    )
                ]
            )
        if (task, name) in seen or (task, user.pk) in done:
            raise ImportFailed([(f"judgements[{index}]", f"{name!r} already judged this item")])
        seen.add((task, name))
        if "answer" in row:
            given = row["answer"]
            key: Any = repr(given)
        else:
            label = row.get("label")
            given, key = {"label": label}, (type(label), label)
        answer = answers.get(key)
        if answer is None:
            try:
                value = project.type.validate_answer(config, given, config_checked=True)
            except AnswerError as error:
                raise ImportFailed(
                    [(f"judgements[{index}].{'answer' if 'answer' in row else 'label'}", str(error))]
                ) from error
            answer = answers[key] = Answer(value)
        pending.append((task, user, answer, row.get("seconds_spent")))
    per_task: Counter[int] = Counter(task for task, *_ in pending)
    if any(per_task[task] > items.free[task] for task in per_task):
        first_past_k(pending, items)
    set_based = SET_BASED and connection.vendor == "postgresql"
    with transaction.atomic():
        add_members(project, users, create_annotators)
        try:
            if set_based:
                # The same rows, refusals and referrals as below, one statement per kind of row.
                with transaction.atomic():
                    record_staged(project, per_task, staged_lines(pending))
            else:
                # Locked and counted again: a judging page may have taken a slot since they were read.
                take_slots(per_task, only_open=False)
                with transaction.atomic():
                    insert_judgements(
                        project.pk,
                        # Judged elsewhere: the time given is the time the annotator took.
                        [NewJudgement(task, user.pk, answer.value, s) for task, user, answer, s in pending],
                    )
        except (AssignmentError, IntegrityError) as error:
            raise ImportFailed(
                [("judgements", f"the items changed while importing (someone is judging them): {error}")]
            ) from error
        if not set_based:
            # Complete the items that have their k judgements, or refer them by the adjudication rule.
            close_or_refer(project, list(per_task))
        announce_judgements_changed(project.pk)
    return {"judgements_created": len(pending), "items": len(per_task), "annotators": len(users)}


# PostgreSQL stores by ``record_staged`` (set-based); the ORM's path stays for SQLite and for the test
# that holds the two paths' rows equal.
SET_BASED = True


class Answer:
    """A validated answer: the value, and its label and JSON text as a staged line holds them."""

    __slots__ = ("staged", "value")

    def __init__(self, value: dict) -> None:
        self.value = value
        label = value.get("label")
        self.staged = f"{NULL if label is None else label}\t{copy_text(json.dumps(value))}"


def staged_lines(pending: list[tuple[int, Any, Answer, float | None]]) -> Iterator[str]:
    """``bulk.staged_line`` of each pending judgement, its validated answer's text made once."""
    for task, user, answer, seconds in pending:
        # Judged elsewhere: the time given is the time the annotator took.
        yield f"{task}\t{user.pk}\t{answer.staged}\t{NULL if seconds is None else repr(seconds)}\n"


def first_past_k(pending: list[tuple], items: ItemFinder) -> None:
    """Raise ImportFailed naming the first line that takes its item past its k."""
    per_task: Counter[int] = Counter()
    for index, (task, *_) in enumerate(pending):
        per_task[task] += 1
        if per_task[task] > items.free[task]:
            raise ImportFailed(
                [
                    (
                        f"judgements[{index}]",
                        f"the item would have more than its {items.required[task]} judgements (k)",
                    )
                ]
            )


def add_members(project: Project, users: dict[str, Any], create_annotators: bool) -> None:
    """Save the accounts to create, and make every annotator of the import a project member."""
    if create_annotators:
        for user in users.values():
            if user.pk is None:
                user.set_unusable_password()
                user.save()
    members = set(project.memberships.values_list("annotator_id", flat=True))
    Membership.objects.bulk_create(
        [Membership(project=project, annotator=u) for u in users.values() if u.pk not in members]
    )


def annotators_for(usernames: set[str], create: bool) -> dict[str, Any]:
    model = get_user_model()
    users = {u.get_username(): u for u in model.objects.filter(username__in=usernames)}
    if create:
        for name in usernames - set(users):
            users[name] = model(username=name, is_active=False)  # saved with the judgements
    return users


class ItemFinder:
    """The items the lines name, by id or by (topic, document, document_b): their free slots and k,
    and which of them these annotators have judged. Keys and counts only, read for the documents
    and ids named (a call of 100,000 lines into a project of 300,000 items reads its own items,
    not the project's), all at once on PostgreSQL, ``CHUNK`` at a time elsewhere."""

    CHUNK = 5000

    def __init__(self, project: Project, lines: list[dict], annotators: list[int]) -> None:
        items = Task.objects.filter(project=project, kind=Task.Kind.ITEM).order_by()
        columns = ("pk", "topic_id", "document_id", "document_b_id", "required_judgements", "slots_taken")
        documents = Document.objects.filter(project=project).order_by()
        # Ids by key, read without joins: a join on a chunk of 5,000 names hashes every item and
        # document of the project, 100 ms a chunk at 300,000 items.
        named = sorted({line["document"] for line in lines if "document" in line})
        external: dict[int | None, str | None] = {None: None}  # None: no second document
        for found_documents in self.among(documents, "external_id", named):
            external.update(found_documents.values_list("pk", "external_id"))
        found: dict[int, tuple] = {}
        for chunk in self.among(items, "document_id", sorted(key for key in external if key is not None)):
            found.update((row[0], row) for row in chunk.values_list(*columns))
        for chunk in self.among(items, "id", sorted({line["task"] for line in lines if "task" in line})):
            found.update((row[0], row) for row in chunk.values_list(*columns))
        unknown = {document for row in found.values() for document in row[2:4] if document not in external}
        for found_documents in self.among(documents, "id", sorted(unknown)):
            external.update(found_documents.values_list("pk", "external_id"))
        topics: dict[int | None, str | None] = {None: None}  # None: an item without a topic
        topics.update(Topic.objects.filter(project=project).values_list("pk", "external_id"))
        self.required: dict[int, int] = {}
        self.free: dict[int, int] = {}
        self.by_ids: dict[tuple, list[int]] = {}
        for pk, topic, document, document_b, required, taken in found.values():
            self.required[pk] = required
            self.free[pk] = required - taken
            self.by_ids.setdefault((topics[topic], external[document], external[document_b]), []).append(pk)
        self.done: set[tuple[int, int]] = set()
        judgements = Judgement.objects.filter(annotator_id__in=annotators).order_by()
        for chunk in self.among(judgements, "task_id", sorted(found) if annotators else []):
            self.done.update(chunk.values_list("task_id", "annotator_id"))

    @classmethod
    def among(cls, rows: QuerySet, column: str, values: list) -> Iterator[QuerySet]:
        """``rows`` whose ``column`` is one of ``values``: on PostgreSQL in one query, the values as
        one array (5,000 parameters each prepared by Django and psycopg cost more than the query),
        elsewhere ``CHUNK`` at a time."""
        if not values:
            return
        if connection.vendor == "postgresql":
            # Typed as the column: ``bigint = ANY(smallint[])`` (psycopg's type for small ints) is not
            # hashed, and a filter then walks the whole array for every row (1 s for 15,000).
            quote = connection.ops.quote_name
            kind = "text" if column == "external_id" else "bigint"
            where = f"{quote(rows.model._meta.db_table)}.{quote(column)} = ANY(%s::{kind}[])"
            yield rows.extra(where=[where], params=[values])
            return
        for chunk in cls.chunks(values):
            yield rows.filter(**{f"{column}__in": chunk})

    @classmethod
    def chunks(cls, values: list) -> Iterator[list]:
        for start in range(0, len(values), cls.CHUNK):
            yield values[start : start + cls.CHUNK]

    def find(self, index: int, row: dict) -> int:
        if "task" in row:
            if row["task"] not in self.required:
                raise ImportFailed([(f"judgements[{index}].task", f"no item {row['task']} in this project")])
            return row["task"]
        found = self.by_ids.get((row.get("topic"), row["document"], row.get("document_b")), [])
        if len(found) == 1:
            return found[0]
        what = "several items" if found else "no item"
        raise ImportFailed(
            [
                (
                    f"judgements[{index}].document",
                    f"{what} with topic {row.get('topic')!r} and document "
                    f"{row['document']!r}" + ("; give the task id" if found else ""),
                )
            ]
        )
