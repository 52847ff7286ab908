"""Import jobs: any supported format → one bundle → the one validation and apply path.

`import_submit` parses, converts and validates synchronously (so bad input is rejected at once,
with every error and its path) and applies small imports inline; large ones wait for a Celery
worker, which calls `import_run`. Every import, rejected ones included, leaves an ImportJob.
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass
from typing import Any

import orjson
from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from catalog.engine.bundle import BundleInvalid, normalize_bundle
from catalog.engine.formats import (
    FORMATS,
    Converted,
    FormatError,
    KnownProject,
    csv_to_bundle,
    detect_format,
    landscape_to_bundle,
)
from catalog.imports.models import ImportJob
from catalog.imports.parsing import BundleParseError, parse_document
from catalog.models import Project
from catalog.selectors import catalog_revision, vocabulary_current
from catalog.services import IMPORT_MODES, BundleResult, bundle_apply
from ecomap.dispatch import RUN_IMPORT, enqueue_on_commit, queue_check
from ecomap.gcpause import gc_paused
from ecomap.jobs import ERROR_MAX, JobRows, jobs_resend
from ecomap.outage import cache_delete_quietly, cache_get_or, cache_set_quietly

logger = logging.getLogger(__name__)

# Changes kept on the job for display; counts always cover everything.
MAX_RECORDED_CHANGES = 2000
NUL_MESSAGE = "the data contains NUL characters (\\u0000), which the catalog cannot store"


@dataclass
class ImportRejected(Exception):
    """The input could not be imported; the job (already saved as failed) says why."""

    job: ImportJob


def _known_projects() -> list[KnownProject]:
    return [
        KnownProject(slug=slug, name=name, repository=repository, placed=rows > 0)
        for slug, name, repository, rows in Project.objects.annotate(rows=Count("placements"))
        .values_list("slug", "name", "repository", "rows")
        .iterator()
    ]


def convert(text: str, *, format_hint: str = "", content_type: str = "") -> tuple[str, Converted]:
    """Parse and convert to a bundle; raises BundleParseError or FormatError."""
    if format_hint and format_hint not in FORMATS:
        raise FormatError(f"unknown format {format_hint!r}; allowed: {', '.join(FORMATS)}")
    is_csv = format_hint == "csv" or "csv" in content_type
    document: Any = None
    if not is_csv:
        syntax = "json" if "json" in content_type else ("yaml" if "yaml" in content_type else "")
        document = parse_document(text, hint=syntax)
    kind = format_hint or ("csv" if is_csv else detect_format(document, text))
    if kind == "csv":
        return kind, csv_to_bundle(text)
    if kind == "landscape":
        if not isinstance(document, dict) or "landscape" not in document:
            raise FormatError("a landscape file needs a top-level 'landscape' list")
        return kind, landscape_to_bundle(document, _known_projects())
    return kind, Converted(bundle=document, items=_count_items(document))


def _count_items(document: Any) -> int:
    if not isinstance(document, dict) or not isinstance(document.get("projects"), list):
        return 0
    return sum(
        1 + len(p.get("placements") or []) if isinstance(p, dict) else 1
        for p in document["projects"]
    )


def _storable(value: Any) -> Any:
    """PostgreSQL cannot store NUL characters; error messages may quote them from the input."""
    if isinstance(value, str):
        return value.replace("\x00", "\\x00")
    if isinstance(value, list):
        return [_storable(item) for item in value]
    if isinstance(value, dict):
        return {key: _storable(item) for key, item in value.items()}
    return value


def pack_payload(payload: dict[str, Any]) -> bytes:
    """What a queued job carries to its worker: JSON, compressed (10 MB of rows → ~0.7 MB)."""
    return zlib.compress(orjson.dumps(payload), 1)


def unpack_payload(packed: bytes | memoryview | None) -> dict[str, Any]:
    return orjson.loads(zlib.decompress(bytes(packed))) if packed else {}


def _reject(job: ImportJob, errors: list[dict[str, Any]]) -> ImportRejected:
    job.status = ImportJob.Status.FAILED
    job.errors = _storable(errors)
    reasons = (item.get("message", "") if isinstance(item, dict) else item for item in errors[:3])
    job.error = "; ".join(str(reason) for reason in reasons)[:ERROR_MAX]
    job.finished_at = timezone.now()
    job.save()
    return ImportRejected(job)


def _outcome(job: ImportJob, result: BundleResult) -> dict[str, Any]:
    """What a finished import stores about what it did."""
    changed = [item for item in result.items if item.action != "unchanged"]
    return {
        "counts": result.counts(),
        "changes": [item.to_dict() for item in changed[:MAX_RECORDED_CHANGES]],
        "done": job.total,
        "payload": None,
    }


@gc_paused()
def import_submit(
    *,
    text: str,
    actor=None,
    source: str = "",
    dry_run: bool = False,
    format_hint: str = "",
    content_type: str = "",
    inline: bool | None = None,
    mode: str = "merge",
) -> ImportJob:
    """Create the import job; apply inline when small (or dry run), else queue it.

    `mode="merge"`: a placement that re-states only some fields keeps the stored values of the
    others; `mode="replace"`: each placement given is the whole row.

    Raises ImportRejected for unparsable or invalid input: nothing is written to the catalog.
    """
    job = ImportJob(
        created_by=actor if actor is not None and actor.is_authenticated else None,
        source=source.replace("\x00", "")[:500],
        dry_run=dry_run,
        format=format_hint if format_hint in FORMATS else ImportJob.Format.BUNDLE,
    )
    if mode not in IMPORT_MODES:
        raise _reject(job, [{"path": "mode", "message": f"use one of {', '.join(IMPORT_MODES)}"}])
    if "\x00" in text or "\\u0000" in text:
        raise _reject(job, [{"path": "$", "message": NUL_MESSAGE}])
    try:
        kind, converted = convert(text, format_hint=format_hint, content_type=content_type)
    except BundleParseError as exc:
        raise _reject(job, [{"path": "$", "message": str(exc)}]) from exc
    except FormatError as exc:
        raise _reject(job, exc.errors) from exc
    job.format = kind
    job.total = converted.items
    job.linked = [{"item": name, "project": slug} for name, slug in converted.linked]
    try:
        normalized = normalize_bundle(converted.bundle, vocabulary_current())
    except BundleInvalid as exc:
        errors = []
        for error in exc.errors:
            item = error.to_dict()
            if kind != "bundle":
                item["where"] = converted.locate(error.path)
            errors.append(item)
        raise _reject(job, errors) from exc
    if inline is None:
        inline = dry_run or converted.items <= settings.IMPORT_INLINE_MAX_ITEMS
    if not inline:
        queue_check()  # a job nobody can run would sit pending: refuse before writing it
    if inline:
        job.started_at = timezone.now()
        result = bundle_apply(
            normalized=normalized,
            actor=actor,
            source=_history_source(job),
            dry_run=dry_run,
            mode=mode,
        )
        for name, value in _outcome(job, result).items():
            setattr(job, name, value)
        job.status, job.progress, job.attempts = ImportJob.Status.SUCCEEDED, 100, 1
        job.finished_at = timezone.now()
        job.save()
        return job
    # Validated once: the worker applies the normalised projects, re-checking only vocabulary.
    # The revision it was validated on: a redelivery after the catalog moved is refused.
    job.payload = pack_payload(
        {"normalized": normalized, "catalog_revision": catalog_revision(), "mode": mode}
    )
    job.save()
    enqueue_on_commit(RUN_IMPORT, str(job.id))
    return job


def _history_source(job: ImportJob) -> str:
    return f"import {job.get_format_display()}: {job.source}"[:200]


def progress_key(job_id) -> str:
    return f"import-progress:{job_id}"


def import_progress(job: ImportJob) -> tuple[int, int]:
    """(done, total) — live from the cache while a worker applies the job."""
    if job.status == ImportJob.Status.RUNNING:
        live = cache_get_or(progress_key(job.id))
        if live:
            return live
    return job.done, job.total


JOBS = JobRows(ImportJob)


@gc_paused()
def import_run(*, job_id) -> None:
    """Apply a queued import. Safe to rerun: applying the same bundle twice changes nothing."""
    was = ImportJob.objects.filter(id=job_id).values_list("status", flat=True).first()
    if not JOBS.claim(job_id, progress=0):
        return  # gone, or already finished by an earlier delivery
    job = ImportJob.objects.get(id=job_id)
    payload = unpack_payload(job.payload)
    validated_on = payload.get("catalog_revision")
    # Running already, or claimed before: its worker died mid-way (or the recovery sweep sent
    # it again). Apply it only if the catalog is still as it was when it was validated.
    again = was == ImportJob.Status.RUNNING or job.attempts > 1
    if again and validated_on is not None and validated_on != catalog_revision():
        message = (
            f"The catalog changed since this import was validated (revision {validated_on}, "
            f"now {catalog_revision()}) and its worker stopped mid-way: nothing was applied. "
            "Submit the file again to apply it to the current catalog."
        )
        JOBS.fail(job.pk, message, errors=[{"path": "$", "message": message}], payload=None)
        return

    def progress(done: int, total: int) -> None:
        cache_set_quietly(progress_key(job.id), (done, total), timeout=3600)
        JOBS.progress(job.pk, min(99, 100 * done // total) if total else 0)

    try:
        result = bundle_apply(
            normalized=payload.get("normalized"),
            document=None if "normalized" in payload else payload,
            actor=job.created_by,
            source=_history_source(job),
            dry_run=job.dry_run,
            progress=progress,
            # jobs queued before modes existed replaced whole rows
            mode=payload.get("mode", "replace"),
        )
    except BundleInvalid as exc:  # the vocabulary changed between submit and run
        errors = [error.to_dict() for error in exc.errors]
        reason = f"The catalog's vocabulary changed since this import was validated: {exc}"
        JOBS.fail(job.pk, reason, errors=errors, payload=None)
        return
    JOBS.succeed(job.pk, **_outcome(job, result))
    cache_delete_quietly(progress_key(job.id))
    logger.info("import %s applied: %s", job.id, result.counts())


def imports_recover(*, now, pending_grace, running_limit) -> dict[str, int]:
    """Jobs a worker never got (the publish was lost) are published again; jobs whose worker
    stopped beating are sent again, and import_run re-checks the catalog revision first."""
    return jobs_resend(
        ImportJob.objects.filter(payload__isnull=False),
        task_name=RUN_IMPORT,
        now=now,
        pending_grace=pending_grace,
        running_limit=running_limit,
        key=str,
    )
