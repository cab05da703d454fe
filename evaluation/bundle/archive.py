"""A whole test collection in one file: a project's settings, topics, documents, runs, pool (and its
sampled pool's design), annotators, judgements (every revision), researchers' adjudications,
ground-truth snapshots (with the labels only prior judgements gave), external qrels, prior judgements
with their precedence, the reference texts of text projects and the content units of Pyramid projects,
as a ZIP with a manifest that lists every file's SHA-256 and the signatures of the snapshots and of
the evaluations it was scored by.

``write_bundle`` exports; ``import_bundle`` (run as an import job, ``evaluation.collection.import_jobs``)
rebuilds the collection as a new project and asks for its evaluations, which give the same leaderboard: the
runs, pool, judgements and snapshot labels are restored exactly, and the scores are computed again.

The files are JSON Lines (one object per line) and TREC run files, readable without Cranfield.
Tasks are referred to by their line number in ``tasks.jsonl`` (``ref``), annotators by username.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import IO, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.items.importing import store_in_batches
from annotation.models import (
    Adjudication,
    Assignment,
    Document,
    Judgement,
    JudgementRevision,
    Membership,
    Project,
    Task,
    Topic,
)
from annotation.serializers import ProjectSerializer
from evaluation.collection.flow import ImportFailed
from evaluation.collection.import_jobs import body_file
from evaluation.collection.runs import ranked_lists, store_ranked_lists
from evaluation.models import (
    ContentUnit,
    ExternalQrels,
    GroundTruthSnapshot,
    ImportJob,
    PriorJudgement,
    PriorQrels,
    PriorSettings,
    Reference,
    Run,
    SampledPoolMember,
    SnapshotLabel,
    SnapshotPriorLabel,
)
from evaluation.prior.settings import precedence_of
from evaluation.scoring.compute import CODE_VERSION
from evaluation.signals import announce_collection_imported

FORMAT = "cranfield-bundle"
FORMAT_VERSION = 1
# " (imported)" or " (imported 3)" ending a project's name: a copy of a copy is named after the original.
IMPORTED_SUFFIX = re.compile(r"(\s*\(imported(?: \d+)?\))+$")
SETTINGS_FIELDS = [
    name
    for name in ProjectSerializer.Meta.fields
    if name not in {"id", "annotators", "created_at", "warnings"}
]
SNAPSHOT_FIELDS = [
    "version",
    "method",
    "parameters",
    "input_judgement_count",
    "input_fingerprint",
    "agreement",
    "annotator_report",
    "signature",
]


def when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


class MemberWriter:
    """One file of the bundle, written line by line, its SHA-256 and size kept for the manifest."""

    def __init__(self, archive: zipfile.ZipFile, name: str, files: dict) -> None:
        self.name = name
        self.handle = archive.open(name, "w", force_zip64=True)
        self.digest = hashlib.sha256()
        self.size = 0
        self.files = files

    def write(self, text: str) -> None:
        data = text.encode()
        self.handle.write(data)
        self.digest.update(data)
        self.size += len(data)

    def close(self) -> None:
        self.handle.close()
        self.files[self.name] = {"sha256": self.digest.hexdigest(), "bytes": self.size}


def write_member(archive: zipfile.ZipFile, files: dict, name: str, lines: Iterable[str]) -> None:
    member = MemberWriter(archive, name, files)
    for line in lines:
        member.write(line)
    member.close()


def jsonl(rows: Iterable[dict]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"


def write_bundle(project: Project, out: IO[bytes]) -> dict:
    """Write the project's bundle (a ZIP) to ``out``; return its manifest.

    1. the collection: topics, documents, each run's lines (``write_runs``), the items;
    2. what people did: annotators, every judgement revision, researchers' adjudications;
    3. what was derived or brought: every snapshot's labels (``write_snapshots``), external qrels, prior
       judgements, the sampled pool's members, references;
    4. the manifest, with every file's SHA-256 and the counts an import checks (``manifest_of``).
    """
    files: dict[str, dict] = {}
    refs = {pk: ref for ref, pk in enumerate(project.tasks.order_by("id").values_list("pk", flat=True))}
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        write_member(archive, files, "topics.jsonl", jsonl(topic_rows(project)))
        write_member(archive, files, "documents.jsonl", jsonl(document_rows(project)))
        runs = write_runs(archive, files, project)
        write_member(archive, files, "tasks.jsonl", jsonl(task_rows(project, refs)))
        write_member(archive, files, "annotators.jsonl", jsonl(annotator_rows(project)))
        write_member(archive, files, "judgements.jsonl", jsonl(judgement_rows(project, refs)))
        write_member(archive, files, "adjudications.jsonl", jsonl(adjudication_rows(project, refs)))
        snapshots = write_snapshots(archive, files, project, refs)
        external = [
            {"name": q.name, "judgements": q.judgements} for q in project.external_qrels.order_by("name")
        ]
        write_member(archive, files, "external_qrels.jsonl", jsonl(external))
        write_member(archive, files, "prior_qrels.jsonl", jsonl(prior_rows(project)))
        write_member(archive, files, "sampled_pool.jsonl", jsonl(sampled_pool_rows(project)))
        write_member(archive, files, "content_units.jsonl", jsonl(content_unit_rows(project)))
        write_member(archive, files, "references.jsonl", jsonl(reference_rows(project)))
        manifest = manifest_of(project, files, runs, snapshots, len(refs), len(external))
        archive.writestr("manifest.json", json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True))
    return manifest


def write_runs(archive: zipfile.ZipFile, files: dict, project: Project) -> list[dict]:
    """Each run's lines as a file of its own, and the runs' entries for ``runs.jsonl``."""
    runs = []
    for number, run in enumerate(project.runs.order_by("id"), start=1):
        name = f"runs/{number:04d}.txt"
        write_member(archive, files, name, run_lines(run))
        runs.append(
            {
                "tag": run.tag,
                "group": run.group,
                "description": run.description,
                "pool_depth": run.pool_depth,
                "file": name,
                "created_at": when(run.created_at),
                "withdrawn_at": when(run.withdrawn_at),
            }
        )
    write_member(archive, files, "runs.jsonl", jsonl(runs))
    return runs


def write_snapshots(archive: zipfile.ZipFile, files: dict, project: Project, refs: dict) -> list[dict]:
    """Each snapshot's labels as a file of its own, and the snapshots' manifest entries."""
    snapshots = []
    for snapshot in project.snapshots.order_by("version"):
        name = f"snapshots/v{snapshot.version}.jsonl"
        write_member(archive, files, name, jsonl(label_rows(snapshot, refs)))
        entry = snapshot_entry(project, snapshot, name)
        if snapshot.prior_labels.exists():  # pairs only a prior set judged: they have no item
            entry["prior_file"] = f"snapshots/v{snapshot.version}.prior.jsonl"
            write_member(archive, files, entry["prior_file"], jsonl(prior_label_rows(snapshot)))
        snapshots.append(entry)
    return snapshots


def manifest_of(
    project: Project, files: dict, runs: list, snapshots: list, tasks: int, external: int
) -> dict:
    """The bundle's manifest: its format, the project's settings, the counts, every file's digest."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "evaluation_code_version": CODE_VERSION,
        "project": {
            name: value for name, value in ProjectSerializer(project).data.items() if name in SETTINGS_FIELDS
        },
        "counts": {
            "topics": project.topics.count(),
            "documents": project.documents.count(),
            "runs": len(runs),
            "tasks": tasks,
            "judgements": Judgement.objects.filter(project=project).count(),
            "snapshots": len(snapshots),
            "external_qrels": external,
            "prior_qrels": project.prior_qrels.count(),
            "sampled_pool": project.sampled_pool.count(),
            "content_units": project.content_units.count(),
            "adjudications": project.adjudications.count(),
            "references": project.references.count(),
        },
        "runs": runs,
        "snapshots": snapshots,
        "prior_precedence": precedence_of(project),
        "evaluations": evaluation_entries(project),
        "files": files,
    }


def topic_rows(project: Project) -> Iterator[dict]:
    for tid, title, description in project.topics.order_by("id").values_list(
        "external_id", "title", "description"
    ):
        yield {"id": tid, "title": title, "description": description}


def document_rows(project: Project) -> Iterator[dict]:
    rows = project.documents.order_by("id").values_list("external_id", "title", "text")
    for did, title, text in rows.iterator(chunk_size=2000):
        yield {"id": did, "title": title, "text": text}


def run_lines(run: Run) -> Iterator[str]:
    """The run as stored: its ranks and scores exactly (``repr`` of the float)."""
    for topic, ranked in ranked_lists(run.pk).items():
        for rank, (document, score) in enumerate(
            zip(ranked.docnos, ranked.scores.tolist(), strict=True), start=1
        ):
            yield f"{topic} Q0 {document} {rank} {score!r} {run.tag}\n"


def task_rows(project: Project, refs: dict[int, int]) -> Iterator[dict]:
    rows = project.tasks.order_by("id").values_list(
        "pk",
        "kind",
        "topic__external_id",
        "document__external_id",
        "document_b__external_id",
        "source_task_id",
        "pool_rank",
        "serve_key",
        "system_id",
        "system_b_id",
        "input_id",
        "required_judgements",
        "gold_answer",
        "gold_explanation",
        "referred_to",
        "referred_at",
        "referral_reason",
    )
    for (
        pk,
        kind,
        topic,
        doc,
        doc_b,
        source,
        rank,
        key,
        system,
        system_b,
        input_id,
        k,
        gold,
        why,
        referred_to,
        referred_at,
        referral_reason,
    ) in rows.iterator():
        yield {
            "ref": refs[pk],
            "kind": kind,
            "topic": topic,
            "document": doc,
            "document_b": doc_b,
            "source": refs.get(source) if source else None,
            "pool_rank": rank,
            "serve_key": key,
            "system_id": system,
            "system_b_id": system_b,
            "input_id": input_id,
            "required_judgements": k,
            "gold_answer": gold,
            "gold_explanation": why,
            "referred_to": referred_to,
            "referred_at": when(referred_at),
            "referral_reason": referral_reason,
        }


def adjudication_rows(project: Project, refs: dict[int, int]) -> Iterator[dict]:
    """Every decision a researcher took (withdrawals too), oldest first: the newest of a task is in force."""
    rows = project.adjudications.order_by("created_at", "id").values_list(
        "task_id", "researcher__username", "label", "note", "created_at"
    )
    for task, researcher, label, note, created in rows.iterator():
        yield {
            "task": refs[task],
            "researcher": researcher,
            "label": label,
            "note": note,
            "created_at": when(created),
        }


def reference_rows(project: Project) -> Iterator[dict]:
    rows = project.references.order_by("id").values_list("input_id", "text", "writer", "source")
    for input_id, text, writer, source in rows.iterator():
        yield {"input": input_id, "text": text, "writer": writer, "source": source}


def annotator_rows(project: Project) -> Iterator[dict]:
    members = {m.annotator_id: m for m in project.memberships.select_related("annotator")}
    judged = set(Judgement.objects.filter(project=project).values_list("annotator_id", flat=True))
    users = get_user_model().objects.filter(pk__in=set(members) | judged).order_by("id")
    for user in users:
        member = members.get(user.pk)
        yield {
            "username": user.get_username(),
            "member": member is not None,
            "status": member.status if member else None,
            "qualified_at": when(member.qualified_at) if member else None,
            "blocked_reason": member.blocked_reason if member else "",
        }


def judgement_rows(project: Project, refs: dict[int, int]) -> Iterator[dict]:
    """Every judgement in the order it was first made, with every revision."""
    revisions: dict[int, list[dict]] = {}
    for judgement_id, number, label, answer, created in JudgementRevision.objects.filter(
        judgement__project=project
    ).values_list("judgement_id", "number", "label", "answer", "created_at"):
        revisions.setdefault(judgement_id, []).append(
            {"number": number, "label": label, "answer": answer, "created_at": when(created)}
        )
    rows = (
        Judgement.objects.filter(project=project)
        .order_by("id")
        .values_list(
            "pk",
            "task_id",
            "annotator__username",
            "label",
            "answer",
            "seconds_spent",
            "seconds_on_task",
            "revision",
            "created_at",
            "updated_at",
        )
    )
    for pk, task, username, label, answer, seconds, on_task, revision, created, updated in rows.iterator():
        yield {
            "task": refs[task],
            "annotator": username,
            "label": label,
            "answer": answer,
            "seconds_spent": seconds,
            "seconds_on_task": on_task,
            "revision": revision,
            "created_at": when(created),
            "updated_at": when(updated),
            "revisions": sorted(revisions.get(pk, []), key=lambda r: r["number"]),
        }


def label_rows(snapshot: GroundTruthSnapshot, refs: dict[int, int]) -> Iterator[dict]:
    rows = snapshot.labels.order_by("task_id").values_list(
        "task_id",
        "label",
        "confidence",
        "judgement_count",
        "details",
        "adjudicated_by",
        "aggregate_label",
        "adjudication",
        "tie",
        "source",
        "prior_label",
        "crowd_label",
    )
    for task, label, confidence, count, details, by, aggregate, adjudication, tie, *sources in rows.iterator(
        chunk_size=5000
    ):
        yield dict(zip(("source", "prior_label", "crowd_label"), sources, strict=True)) | {
            "task": refs[task],
            "label": label,
            "confidence": confidence,
            "judgement_count": count,
            "details": details,
            "adjudicated_by": by,
            "aggregate_label": aggregate,
            "adjudication": adjudication,
            "tie": tie,
        }


def prior_label_rows(snapshot: GroundTruthSnapshot) -> Iterator[dict]:
    rows = snapshot.prior_labels.order_by("topic_id", "document_id").values_list(
        "topic__external_id", "document__external_id", "label"
    )
    for topic, document, label in rows.iterator(chunk_size=5000):
        yield {"topic": topic, "document": document, "label": label}


def prior_rows(project: Project) -> Iterator[dict]:
    """Each prior set, its judgements as ``{topic: {document: relevance}}`` (as external qrels)."""
    for prior in project.prior_qrels.order_by("pk"):
        judgements: dict[str, dict[str, int]] = {}
        pairs = prior.judgements.values_list("topic__external_id", "document__external_id", "relevance")
        for topic, document, relevance in pairs.iterator(chunk_size=5000):
            judgements.setdefault(topic, {})[document] = relevance
        yield {
            "name": prior.name,
            "source": prior.source,
            "judged_on": prior.judged_on.isoformat() if prior.judged_on else None,
            "assessor": prior.assessor,
            "created_at": when(prior.created_at),
            "judgements": judgements,
        }


def content_unit_rows(project: Project) -> Iterator[dict]:
    """A Pyramid project's SCUs: each names its topic (whose title is its statement) by id."""
    fields = ("topic__external_id", "input_id", "unit_id", "weight", "references", "written_by", "spans")
    for row in project.content_units.order_by("pk").values_list(*fields).iterator(chunk_size=5000):
        yield dict(zip(("topic", *fields[1:]), row, strict=True))


def sampled_pool_rows(project: Project) -> Iterator[dict]:
    fields = ("topic_id", "document_id", "best_rank", "stratum", "probability", "sampled", "design")
    for row in project.sampled_pool.order_by("pk").values_list(*fields).iterator(chunk_size=5000):
        yield dict(zip(fields, row, strict=True))


def snapshot_entry(project: Project, snapshot: GroundTruthSnapshot, name: str) -> dict:
    entry = {field: getattr(snapshot, field) for field in SNAPSHOT_FIELDS}
    # Which judgements it read, as a count of the project's judgements in order (ids do not travel).
    read = Judgement.objects.filter(project=project, pk__lte=snapshot.input_last_judgement_id).count()
    return entry | {"judgements_read": read, "created_at": when(snapshot.created_at), "file": name}


def evaluation_entries(project: Project) -> list[dict]:
    """The newest finished evaluation of each ground truth, with every run's overall scores: what the
    re-imported collection's evaluations should give again."""
    entries: dict[str, dict] = {}
    for evaluation in project.evaluations.filter(status="done").select_related("snapshot", "external_qrels"):
        key = evaluation.signature
        if key in entries:  # ordered newest first
            continue
        scores = {s.run.tag: s.overall for s in evaluation.scores.select_related("run")}
        entries[key] = {
            "signature": evaluation.signature,
            "ground_truth": evaluation.ground_truth_name,
            "relevance_level": evaluation.relevance_level,
            "judged_only": evaluation.judged_only,
            "f_beta": evaluation.f_beta,
            "ndcg_gains": evaluation.ndcg_gains,
            "collection_size": evaluation.collection_size,
            "overall": scores,
        }
    return list(entries.values())


# Import ----------------------------------------------------------------------------------------


def read_archive(data: bytes | IO[bytes]) -> tuple[zipfile.ZipFile, dict]:
    """Open the bundle and check its manifest, the unpacked size of its files (``check_sizes``) and
    every file's checksum, reading each in chunks; ImportFailed names the file."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data)
        check_sizes(archive)
        manifest = json.loads(read_small(archive, "manifest.json"))
    except (zipfile.BadZipFile, KeyError, ValueError) as error:
        raise ImportFailed([("", f"not a Cranfield bundle (a ZIP with manifest.json): {error}")]) from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ImportFailed([("manifest.json", f"format must be {FORMAT!r}")])
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ImportFailed(
            [
                (
                    "manifest.json",
                    f"format_version {manifest.get('format_version')!r} is not "
                    f"{FORMAT_VERSION}, the version this Cranfield reads",
                )
            ]
        )
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise ImportFailed([("manifest.json", "files must list every file with its sha256")])
    unlisted = sorted(set(archive.namelist()) - set(files) - {"manifest.json"})
    if unlisted:
        raise ImportFailed(
            [
                (name, "in the bundle but not among the manifest's files: it cannot be checked")
                for name in unlisted
            ]
        )
    for name, expected in files.items():
        try:
            digest = sha256_of(archive, name)
        except KeyError:
            raise ImportFailed([(name, "listed in the manifest but missing from the bundle")]) from None
        if digest != expected.get("sha256"):
            raise ImportFailed([(name, "its SHA-256 differs from the manifest's: the file was changed")])
    return archive, manifest


MIB = 1 << 20


def check_sizes(archive: zipfile.ZipFile) -> None:
    """Refuse a bundle before reading it if its files unpack past ``BUNDLE_MAX_UNPACKED_BYTES`` or a
    file over 1 MiB claims a compression ratio past ``BUNDLE_MAX_COMPRESSION_RATIO`` (a ZIP bomb).
    The sizes are the ZIP's own; zipfile stops a member that inflates past its stated size."""
    total = 0
    for member in archive.infolist():
        total += member.file_size
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > MIB and ratio > settings.BUNDLE_MAX_COMPRESSION_RATIO:
            raise ImportFailed(
                [
                    (
                        member.filename,
                        f"unpacks to {member.file_size:,} bytes from {member.compress_size:,} "
                        f"({ratio:,.0f} times; at most {settings.BUNDLE_MAX_COMPRESSION_RATIO} are "
                        "accepted): refused as a ZIP bomb",
                    )
                ]
            )
    if total > settings.BUNDLE_MAX_UNPACKED_BYTES:
        raise ImportFailed(
            [
                (
                    "",
                    f"the bundle's files unpack to {total:,} bytes, over the "
                    f"{settings.BUNDLE_MAX_UNPACKED_BYTES:,} accepted (BUNDLE_MAX_UNPACKED_MB)",
                )
            ]
        )


def sha256_of(archive: zipfile.ZipFile, name: str) -> str:
    digest = hashlib.sha256()
    with archive.open(name) as handle:
        while chunk := handle.read(MIB):
            digest.update(chunk)
    return digest.hexdigest()


# The manifest lists the files, snapshots and evaluations: kilobytes, whatever the collection's size.
MANIFEST_MAX_BYTES = 16 * MIB


def read_small(archive: zipfile.ZipFile, name: str) -> bytes:
    """A file read whole (the manifest), refused past ``MANIFEST_MAX_BYTES``."""
    if archive.getinfo(name).file_size > MANIFEST_MAX_BYTES:
        raise ValueError(f"{name} is over {MANIFEST_MAX_BYTES:,} bytes")
    return archive.read(name)


def lines(archive: zipfile.ZipFile, name: str) -> Iterator[tuple[str, dict]]:
    """The objects of a JSON Lines file, each with its ``file line N`` for error messages; a line
    longer than ``BUNDLE_MAX_LINE_BYTES`` is refused as it is read, never held whole."""
    limit = settings.BUNDLE_MAX_LINE_BYTES
    with archive.open(name) as handle:
        number = 0
        while raw := handle.readline(limit + 1):
            number += 1
            if len(raw) > limit and not raw.endswith(b"\n"):
                raise ImportFailed([(f"{name} line {number}", f"longer than {limit:,} bytes")])
            if raw.strip():
                yield f"{name} line {number}", json.loads(raw)


def import_bundle(
    job: ImportJob,
    data: bytes | IO[bytes],
    progress: Callable[[str, float], None],
    still_wanted: Callable[[], None] = lambda: None,
) -> dict:
    """Rebuild the bundle as a new project owned by the job's requester (all or nothing), then ask
    for its evaluations. Returns the summary the job shows. ``still_wanted()`` ends the storing
    transaction and raises to undo it (the job was cancelled meanwhile)."""
    archive, manifest = read_archive(data)
    progress("checking the project's settings", 0.05)
    settings_in = dict(manifest.get("project") or {})
    # A bundle written before projects chose a tie rule was built with the lower label's.
    settings_in.setdefault("tie_rule", "lower")
    if isinstance(settings_in.get("name"), str):
        settings_in["name"] = imported_name(job.requested_by, settings_in["name"])
    serializer = ProjectSerializer(data={k: v for k, v in settings_in.items() if k in SETTINGS_FIELDS})
    if not serializer.is_valid():
        raise ImportFailed(
            [
                (f"manifest.json project.{field}", " ".join(map(str, messages)))
                for field, messages in serializer.errors.items()
            ]
        )
    try:
        with transaction.atomic():
            project = serializer.save(owner=job.requested_by)
            ImportJob.objects.filter(pk=job.pk).update(project=project)
            counts = restore(
                project,
                archive,
                manifest,
                progress,
                activate=job.options.get("activate_annotators", False),
                match_names=job.options.get("annotators") == "match",
            )
            still_wanted()
    except (KeyError, TypeError, ValueError) as error:
        raise ImportFailed([("", f"the bundle's contents are malformed: {error!r}")]) from error
    progress("asking for the evaluations", 0.95)
    announce_collection_imported(project.pk, runs_added=project.runs.count())  # committed above
    return {"project": project.pk, "counts": counts, "evaluations_expected": manifest.get("evaluations", [])}


def imported_name(owner, name: str) -> str:
    """The copy's name: the bundle's with " (imported)", numbered when the owner has that name already
    (" (imported 2)", …), so a copy never looks like its original, or like another copy, on a page."""
    base = IMPORTED_SUFFIX.sub("", name).strip() or "Project"
    taken = set(Project.objects.filter(owner=owner, name__startswith=base).values_list("name", flat=True))
    number = 1
    while (candidate := f"{base} (imported{'' if number == 1 else f' {number}'})") in taken:
        number += 1
    return candidate[: Project._meta.get_field("name").max_length]


def restore(
    project: Project,
    archive: zipfile.ZipFile,
    manifest: dict,
    progress: Callable,
    *,
    activate: bool = False,
    match_names: bool = False,
) -> dict:
    """Rebuild the bundle's collection in ``project`` in the order it depends on itself: topics and
    documents, runs, the pool's items, annotators and judgements, adjudications, prior judgements,
    snapshots, external qrels, the sampled pool and references (the files a bundle written before them
    lacks restore nothing). Returns the counts restored."""
    progress("topics and documents", 0.1)
    topic_pk, document_pk = restore_topics_and_documents(project, archive)
    progress("runs", 0.3)
    for entry in manifest["runs"]:
        restore_run(project, archive, entry)
    progress("the pool", 0.5)
    task_pk = restore_tasks(project, archive, topic_pk, document_pk)
    progress("annotators and judgements", 0.6)
    accounts = Accounts(project, match_names)
    users = restore_annotators(project, archive, accounts, activate=activate)
    judgement_pks = restore_judgements(project, archive, task_pk, users)
    adjudications = restore_adjudications(project, archive, manifest, task_pk, accounts)
    progress("ground-truth snapshots", 0.8)
    restore_prior(project, archive, manifest, topic_pk, document_pk)
    for entry in manifest["snapshots"]:
        restore_snapshot(project, archive, entry, task_pk, judgement_pks, topic_pk, document_pk)
    restore_external_qrels(project, archive)
    restore_sampled_pool(project, archive, manifest)
    restore_content_units(project, archive, manifest, topic_pk)
    references = restore_references(project, archive, manifest)
    return {
        "topics": len(topic_pk),
        "documents": len(document_pk),
        "runs": len(manifest["runs"]),
        "tasks": len(task_pk),
        "judgements": len(judgement_pks),
        "adjudications": adjudications,
        "snapshots": len(manifest["snapshots"]),
        "references": references,
    }


def restore_topics_and_documents(
    project: Project, archive: zipfile.ZipFile
) -> tuple[dict[str, int], dict[str, int]]:
    """The topics and documents, and their new primary keys by external id."""
    topics = {row["id"]: row for _, row in lines(archive, "topics.jsonl")}
    Topic.objects.bulk_create(
        [
            Topic(project=project, external_id=t, title=r["title"], description=r["description"])
            for t, r in topics.items()
        ],
        batch_size=2000,
    )
    store_in_batches(  # a stream: Django's bulk_create would hold every document at once
        Document,
        (
            Document(project=project, external_id=r["id"], title=r["title"], text=r["text"])
            for _, r in lines(archive, "documents.jsonl")
        ),
    )
    topic_pk = dict(project.topics.values_list("external_id", "pk"))
    return topic_pk, dict(project.documents.values_list("external_id", "pk"))


def restore_external_qrels(project: Project, archive: zipfile.ZipFile) -> None:
    for _, row in lines(archive, "external_qrels.jsonl"):
        ExternalQrels.objects.create(
            project=project,
            name=row["name"],
            judgements=row["judgements"],
            judged_count=sum(len(docs) for docs in row["judgements"].values()),
            relevant_count=sum(1 for docs in row["judgements"].values() for rel in docs.values() if rel > 0),
        )


def restore_prior(
    project: Project, archive: zipfile.ZipFile, manifest: dict, topic_pk: dict, document_pk: dict
) -> None:
    """The prior sets and their precedence; a pair naming a topic or document the bundle lacks is
    refused with its line, as the prior import refuses it."""
    if "prior_qrels.jsonl" in manifest["files"]:
        for where, row in lines(archive, "prior_qrels.jsonl"):
            pairs = [(t, d, rel) for t, docs in row["judgements"].items() for d, rel in docs.items()]
            for topic, document, _ in pairs:
                if topic not in topic_pk or document not in document_pk:
                    raise ImportFailed(
                        [(where, f"topic {topic!r} or document {document!r} is not among the bundle's")]
                    )
            prior = PriorQrels.objects.create(
                project=project,
                name=row["name"],
                source=row["source"],
                judged_on=row["judged_on"],
                assessor=row["assessor"],
                judged_count=len(pairs),
                relevant_count=sum(rel > 0 for _, _, rel in pairs),
            )
            PriorJudgement.objects.bulk_create(
                (
                    PriorJudgement(
                        prior_qrels=prior, topic_id=topic_pk[t], document_id=document_pk[d], relevance=rel
                    )
                    for t, d, rel in pairs
                ),
                batch_size=5000,
            )
    if manifest.get("prior_precedence"):
        PriorSettings.objects.create(project=project, precedence=manifest["prior_precedence"])


def restore_sampled_pool(project: Project, archive: zipfile.ZipFile, manifest: dict) -> None:
    if "sampled_pool.jsonl" not in manifest["files"]:
        return
    SampledPoolMember.objects.bulk_create(
        (SampledPoolMember(project=project, **row) for _, row in lines(archive, "sampled_pool.jsonl")),
        batch_size=5000,
    )


def restore_content_units(project: Project, archive: zipfile.ZipFile, manifest: dict, topic_pk: dict) -> None:
    if "content_units.jsonl" not in manifest["files"]:
        return
    units = []
    for where, row in lines(archive, "content_units.jsonl"):
        if row["topic"] not in topic_pk:
            raise ImportFailed([(where, f"topic {row['topic']!r} is not among the bundle's")])
        fields = {k: row[k] for k in ("input_id", "unit_id", "weight", "references", "written_by")}
        fields["spans"] = row.get("spans", [])  # absent from bundles written before spans
        units.append(ContentUnit(project=project, topic_id=topic_pk[row["topic"]], **fields))
    ContentUnit.objects.bulk_create(units, batch_size=5000)


def restore_references(project: Project, archive: zipfile.ZipFile, manifest: dict) -> int:
    """A text project's references (absent from bundles written before they existed)."""
    if "references.jsonl" not in manifest["files"]:
        return 0
    references = [
        Reference(
            project=project, input_id=r["input"], text=r["text"], writer=r["writer"], source=r["source"]
        )
        for _, r in lines(archive, "references.jsonl")
    ]
    Reference.objects.bulk_create(references, batch_size=2000)
    return len(references)


class Accounts:
    """Who the bundle's usernames become here. By default (``match`` False) each name becomes a new
    pseudonymous account (``imported-<project>-<n>``, inactive, no usable password): a bundle from
    elsewhere must not credit its judgements, decisions and memberships to whoever has that name on
    this site. With ``match`` (the researcher says the names are the same people, as in a copy made on
    this site) a name is this site's account of that name, or a new one that cannot log in; a name
    Django would refuse is refused, naming its line."""

    def __init__(self, project: Project, match: bool) -> None:
        self.project, self.match = project, match
        self.found: dict[str, Any] = {}

    def __call__(self, username: str, where: str = "") -> Any:
        if username not in self.found:
            self.found[username] = self._named(username, where) if self.match else self._pseudonym()
        return self.found[username]

    def _pseudonym(self) -> Any:
        return self._new(f"imported-{self.project.pk}-{len(self.found) + 1}")

    def _named(self, username: str, where: str) -> Any:
        model = get_user_model()
        try:
            model._meta.get_field("username").run_validators(username)
        except ValidationError as error:
            problem = f"username {username!r}: {' '.join(error.messages)}"
            raise ImportFailed([(where or "annotators.jsonl", problem)]) from error
        return model.objects.filter(username=username).first() or self._new(username)

    @staticmethod
    def _new(username: str) -> Any:
        user = get_user_model()(username=username, is_active=False)
        user.set_unusable_password()
        user.save()
        return user


def restore_adjudications(
    project: Project, archive: zipfile.ZipFile, manifest: dict, task_pk: list[int], accounts: Accounts
) -> int:
    """The researchers' decisions, with their times, attributed to accounts of the same usernames."""
    if "adjudications.jsonl" not in manifest["files"]:
        return 0
    rows = [row for _, row in lines(archive, "adjudications.jsonl")]
    researchers = {
        name: accounts(name, "adjudications.jsonl") for name in {row["researcher"] for row in rows}
    }
    made = Adjudication.objects.bulk_create(
        [
            Adjudication(
                project=project,
                task_id=task_pk[row["task"]],
                researcher=researchers[row["researcher"]],
                label=row["label"],
                note=row["note"],
            )
            for row in rows
        ],
        batch_size=2000,
    )
    for adjudication, row in zip(made, rows, strict=True):  # auto_now_add: restored afterwards
        adjudication.created_at = datetime.fromisoformat(row["created_at"])
    Adjudication.objects.bulk_update(made, ["created_at"], batch_size=2000)
    return len(made)


def restore_run(project: Project, archive: zipfile.ZipFile, entry: dict) -> None:
    run = Run.objects.create(
        project=project,
        tag=entry["tag"],
        group=entry["group"],
        description=entry["description"],
        pool_depth=entry["pool_depth"],
        withdrawn_at=datetime.fromisoformat(entry["withdrawn_at"]) if entry.get("withdrawn_at") else None,
    )

    # A bundle's run file is written topic by topic in rank order (``run_lines``); the ranks are
    # still the order, should a hand-edited file have its lines mixed.
    lines: dict[str, list[tuple[int, str, float]]] = {}
    with archive.open(entry["file"]) as handle:
        for raw in io.TextIOWrapper(handle, encoding="utf-8"):
            topic, _, document, rank, score, _ = raw.split()
            lines.setdefault(topic, []).append((int(rank), document, float(score)))
    ordered = {topic: sorted(topic_lines) for topic, topic_lines in lines.items()}
    store_ranked_lists(
        run.pk,
        (
            (topic, [d for _, d, _ in rows], [score for _, _, score in rows])
            for topic, rows in ordered.items()
        ),
    )


def restore_tasks(
    project: Project, archive: zipfile.ZipFile, topic_pk: dict[str, int], document_pk: dict[str, int]
) -> list[int]:
    """The tasks, with their new primary keys by ``ref``; attention checks after the items they check."""
    tasks: list[Task] = []
    sources: list[int | None] = []
    for _, row in lines(archive, "tasks.jsonl"):
        tasks.append(
            Task(
                project=project,
                kind=row["kind"],
                topic_id=topic_pk[row["topic"]] if row["topic"] else None,
                document_id=document_pk[row["document"]],
                document_b_id=document_pk[row["document_b"]] if row["document_b"] else None,
                pool_rank=row["pool_rank"],
                serve_key=row["serve_key"],
                system_id=row["system_id"],
                system_b_id=row.get("system_b_id", ""),  # absent from bundles written before it existed
                input_id=row["input_id"],
                required_judgements=row["required_judgements"],
                gold_answer=row["gold_answer"],
                gold_explanation=row["gold_explanation"],
                referred_to=row.get("referred_to", ""),
                referred_at=datetime.fromisoformat(row["referred_at"]) if row.get("referred_at") else None,
                referral_reason=row.get("referral_reason", ""),  # absent from bundles written before it
            )
        )
        sources.append(row["source"])
    Task.objects.bulk_create([t for t, s in zip(tasks, sources, strict=True) if s is None], batch_size=2000)
    checks = [t for t, s in zip(tasks, sources, strict=True) if s is not None]
    for task, source in zip(tasks, sources, strict=True):
        if source is not None:
            task.source_task_id = tasks[source].pk
    Task.objects.bulk_create(checks, batch_size=2000)
    return [t.pk for t in tasks]


def restore_annotators(
    project: Project, archive: zipfile.ZipFile, accounts: Accounts, *, activate: bool = False
) -> dict[str, Any]:
    """Annotators by username (``Accounts``); members come in inactive (their judgements count,
    they get no tasks) unless ``activate``; a blocked one stays blocked (the ground truth leaves
    their judgements out, as the original's did)."""
    users: dict[str, Any] = {}
    for where, row in lines(archive, "annotators.jsonl"):
        user = accounts(row["username"], where)
        users[row["username"]] = user
        if row["member"]:
            status = row["status"]
            if status != Membership.Status.BLOCKED and not activate:
                status = Membership.Status.INACTIVE
            Membership.objects.create(
                project=project,
                annotator=user,
                status=status,
                blocked_reason=row["blocked_reason"],
                qualified_at=datetime.fromisoformat(row["qualified_at"]) if row["qualified_at"] else None,
            )
    return users


def restore_judgements(
    project: Project, archive: zipfile.ZipFile, task_pk: list[int], users: dict[str, Any]
) -> list[int]:
    """Every judgement with its lease (submitted), its revisions and its times, in the original order;
    each task's slot count follows. Returns the new judgement keys in order."""
    rows = [row for _, row in lines(archive, "judgements.jsonl")]
    made = [datetime.fromisoformat(row["created_at"]) for row in rows]
    assignments = Assignment.objects.bulk_create(
        [
            Assignment(
                task_id=task_pk[row["task"]],
                annotator=users[row["annotator"]],
                status=Assignment.Status.SUBMITTED,
                expires_at=at,
            )
            for row, at in zip(rows, made, strict=True)
        ],
        batch_size=2000,
    )
    judgements = Judgement.objects.bulk_create(
        [
            Judgement(
                project=project,
                task_id=a.task_id,
                annotator_id=a.annotator_id,
                assignment=a,
                label=row["label"],
                answer=row["answer"],
                seconds_spent=row["seconds_spent"],
                seconds_on_task=row.get("seconds_on_task"),  # bundles written before it have none
                revision=row["revision"],
            )
            for row, a in zip(rows, assignments, strict=True)
        ],
        batch_size=2000,
    )
    for judgement, row, at in zip(
        judgements, rows, made, strict=True
    ):  # auto_now fields: restored afterwards
        judgement.created_at = at
        judgement.updated_at = datetime.fromisoformat(row["updated_at"])
    Judgement.objects.bulk_update(judgements, ["created_at", "updated_at"], batch_size=2000)
    JudgementRevision.objects.bulk_create(
        [
            JudgementRevision(judgement=j, number=r["number"], label=r["label"], answer=r["answer"])
            for j, row in zip(judgements, rows, strict=True)
            for r in row["revisions"]
        ],
        batch_size=2000,
    )
    per_task = Counter(j.task_id for j in judgements)
    # Only items take slots of k; gold, qualification and check items are judged by everyone who
    # meets them and keep their own state (a judged gold item has k = 0 and no slot taken).
    tasks = list(Task.objects.filter(pk__in=per_task, kind=Task.Kind.ITEM))
    for task in tasks:
        task.slots_taken = min(per_task[task.pk], task.required_judgements)
        task.completed = task.slots_taken >= task.required_judgements
    Task.objects.bulk_update(tasks, ["slots_taken", "completed"], batch_size=2000)
    return [j.pk for j in judgements]


def restore_snapshot(
    project: Project,
    archive: zipfile.ZipFile,
    entry: dict,
    task_pk: list[int],
    judgement_pks: list[int],
    topic_pk: dict[str, int],
    document_pk: dict[str, int],
) -> None:
    read = entry["judgements_read"]
    snapshot = GroundTruthSnapshot.objects.create(
        project=project,
        input_last_judgement_id=judgement_pks[read - 1] if read else 0,
        **{field: entry[field] for field in SNAPSHOT_FIELDS},
    )
    SnapshotLabel.objects.bulk_create(
        (
            SnapshotLabel(
                snapshot=snapshot,
                task_id=task_pk[r["task"]],
                label=r["label"],
                confidence=r["confidence"],
                judgement_count=r["judgement_count"],
                details=r["details"],
                adjudicated_by=r.get("adjudicated_by", ""),
                aggregate_label=r.get("aggregate_label"),
                adjudication=r.get("adjudication") or {},
                tie=r.get("tie", ""),
                source=r.get("source", "crowd"),
                prior_label=r.get("prior_label"),
                crowd_label=r.get("crowd_label"),
            )
            for _, r in lines(archive, entry["file"])
        ),
        batch_size=5000,
    )
    if entry.get("prior_file"):
        SnapshotPriorLabel.objects.bulk_create(
            (
                SnapshotPriorLabel(
                    snapshot=snapshot,
                    topic_id=topic_pk[r["topic"]],
                    document_id=document_pk[r["document"]],
                    label=r["label"],
                )
                for _, r in lines(archive, entry["prior_file"])
            ),
            batch_size=5000,
        )


def import_bundle_job(
    job: ImportJob, progress: Callable[[str, float], None], still_wanted: Callable[[], None]
) -> dict:
    """A bundle import job (``collection.import_jobs``): the job's body is the bundle."""
    with body_file(job) as data:
        return import_bundle(job, data, progress, still_wanted)
