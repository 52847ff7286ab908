"""PDF review reports: request (enqueued on commit), build (claimed, idempotent), read."""

from __future__ import annotations

import logging
import time
from typing import Any

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from ecomap.dispatch import BUILD_REPORT, enqueue_on_commit, queue_check
from ecomap.jobs import JobRows, jobs_resend
from evaluations import selectors
from evaluations.errors import NotAllowed
from evaluations.models import Evaluation
from evaluations.reports.content import render_report, report_context
from evaluations.reports.models import Report
from evaluations.teams.choices import Role

logger = logging.getLogger(__name__)
Status = Report.Status


# ---- requesting ---------------------------------------------------------------------------------


def report_create(
    *, evaluation: Evaluation, actor=None, language: str = "", with_cards: bool = False
) -> Report:
    """A pending report row, not yet enqueued (the shell command builds it in-process)."""
    return Report.objects.create(
        evaluation=evaluation,
        requested_by=actor,
        language=language or translation.get_language() or "en",
        with_cards=with_cards,
    )


@transaction.atomic
def report_request(
    *, evaluation: Evaluation, actor, language: str = "", with_cards: bool = False
) -> Report:
    """Ask for a report of the evaluation as it is now; the build runs as a Celery job.

    Editors and reviewers of the team may ask. While a build in the same language (and with
    the same choice of placement cards) is queued, asking again returns that one: it will see
    the evaluation as it is when it starts.
    """
    role = selectors.user_role_in(evaluation, actor)
    if not selectors.role_allows(role, Role.EDITOR):
        raise NotAllowed(_("Building a report needs the editor or reviewer role in the team."))
    language = language or translation.get_language() or "en"
    waiting = Report.objects.filter(
        evaluation=evaluation, language=language, with_cards=with_cards, status=Status.PENDING
    ).first()
    if waiting is not None:
        return waiting
    queue_check()  # refused before writing: a report nobody can build would sit queued
    report = report_create(
        evaluation=evaluation, actor=actor, language=language, with_cards=with_cards
    )
    enqueue_on_commit(BUILD_REPORT, report.id)
    return report


# ---- building -----------------------------------------------------------------------------------


JOBS = JobRows(Report)


def _set_progress(report_id: int, percent: int) -> None:
    JOBS.progress(report_id, percent)


def report_build(*, report_id: int) -> Report | None:
    """Build a requested report. Safe to run twice or after a worker died mid-way: the claim is a
    conditional update, and a finished report is never rebuilt."""
    if not JOBS.claim(report_id):
        return None  # gone with its evaluation, or finished by an earlier delivery
    report = Report.objects.select_related("evaluation").get(id=report_id)
    started = time.perf_counter()
    with translation.override(report.language):
        context = report_context(
            evaluation=report.evaluation,
            with_cards=report.with_cards,
            progress=lambda percent: _set_progress(report_id, percent),
        )
        _set_progress(report_id, 60)
        rendered = render_report(context)
    _set_progress(report_id, 90)
    if report.file:
        report.file.delete(save=False)  # an earlier attempt's file, orphaned by a crash
    report.file.save(f"evaluation-{report.evaluation_id}-report-{report_id}.pdf",
                     ContentFile(rendered.pdf), save=False)  # fmt: skip
    evaluation = context["evaluation"]
    JOBS.succeed(
        report_id,
        file=report.file.name,
        pages=rendered.pages,
        seconds=round(time.perf_counter() - started, 3),
        catalog_revision=context["catalog_revision"],
        evaluation_revision=evaluation.revision,
        evaluation_updated_at=evaluation.updated_at,
    )
    report.refresh_from_db()
    logger.info(
        "report built",
        extra={"report": report_id, "pages": report.pages, "seconds": report.seconds},
    )
    return report


def report_requeue(*, report_id: int) -> None:
    """Put a build cut off by an outage back in the queue (ecomap.jobs.JobRows.requeue)."""
    JOBS.requeue(report_id)


def report_fail(*, report_id: int, error: str) -> None:
    JOBS.fail(report_id, error)


# ---- reading ------------------------------------------------------------------------------------


def report_is_stale(report: Report, evaluation: Evaluation | None = None) -> bool:
    """The evaluation changed (content, state or reviews) after the report was built from it."""
    if report.status != Status.SUCCEEDED or report.evaluation_updated_at is None:
        return False
    evaluation = evaluation or report.evaluation
    return (
        evaluation.revision != report.evaluation_revision
        or evaluation.updated_at > report.evaluation_updated_at
    )


def reports_of(evaluation: Evaluation) -> list[Report]:
    return list(evaluation.reports.select_related("requested_by")[:50])


def report_built(evaluation: Evaluation) -> Report | None:
    """The evaluation's newest report that was built (what a share link's PDF serves)."""
    return evaluation.reports.filter(status=Report.Status.SUCCEEDED).first()


def report_panel(*, evaluation: Evaluation, user) -> dict[str, Any]:
    """What the evaluation page's report panel shows: the latest build, the latest good one."""
    latest = evaluation.reports.first()
    ready = latest if latest and latest.status == Status.SUCCEEDED else None
    if ready is None and latest is not None:
        ready = evaluation.reports.filter(status=Status.SUCCEEDED).first()
    role = selectors.user_role_in(evaluation, user)
    return {
        "latest": latest,
        "ready": ready,
        "stale": bool(ready and report_is_stale(ready, evaluation)),
        "building": bool(latest and not latest.finished),
        "can_request": selectors.role_allows(role, Role.EDITOR),
    }


MAX_ATTEMPTS = 3


def reports_recover(*, now, pending_grace, running_limit) -> dict[str, int]:
    """Reports a worker never got are published again; reports whose worker stopped beating
    are built again (the claim makes that safe) or, after MAX_ATTEMPTS, failed with the reason."""
    return jobs_resend(
        Report.objects.all(),
        task_name=BUILD_REPORT,
        now=now,
        pending_grace=pending_grace,
        running_limit=running_limit,
        max_attempts=MAX_ATTEMPTS,
        fail=lambda pk, attempts: report_fail(
            report_id=pk, error=f"stopped {attempts} times without finishing"
        ),
    )
