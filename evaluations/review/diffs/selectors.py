"""Diff reads: which revisions can be compared, the default pair, and the diff of two of them
with the audit entries between them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from evaluations.audit.selectors import entries_between
from evaluations.models import Evaluation
from evaluations.review.choices import Verdict
from evaluations.review.diffs.engine import ContentDiff, Touch, content_diff
from evaluations.review.models import EvaluationRevision
from evaluations.review.revisions import revision_get


class DiffRefused(ValueError):
    """The two revisions asked for cannot be compared; the message says why, in words."""


@dataclass
class EvaluationDiff:
    evaluation: Evaluation
    old: EvaluationRevision
    new: EvaluationRevision
    diff: ContentDiff

    @property
    def labels(self) -> dict[str, str]:
        """Rows named as people know them, from both revisions (a removed row keeps its name)."""
        return {**self.old.content.get("labels", {}), **self.new.content.get("labels", {})}


def last_approved_revision(evaluation: Evaluation) -> int | None:
    """The revision the latest approval signed off, if the evaluation was ever approved."""
    return (
        evaluation.reviews.filter(verdict=Verdict.APPROVE)
        .order_by("-created_at", "-id")
        .values_list("revision", flat=True)
        .first()
    )


def first_recorded(evaluation: Evaluation) -> EvaluationRevision | None:
    return EvaluationRevision.objects.filter(evaluation=evaluation).order_by("revision").first()


def last_reviewed_revision(evaluation: Evaluation) -> int | None:
    """The revision the latest verdict (an approval or a request for changes) was given on."""
    return (
        evaluation.reviews.order_by("-created_at", "-id").values_list("revision", flat=True).first()
    )


def default_pair(evaluation: Evaluation) -> tuple[int, int]:
    """From the revision the latest verdict saw — since changes were requested, or since the
    approval — (else the first recorded one) to the current one."""
    start = last_reviewed_revision(evaluation)
    if start is None:
        first = first_recorded(evaluation)
        start = first.revision if first else 1
    return min(start, evaluation.revision), evaluation.revision


def parse_revision(value: Any, default: int) -> int:
    """A revision number from a query string; DiffRefused when it is not one."""
    if value in (None, ""):
        return default
    text = str(value).strip()
    if not text.isdigit() or len(text) > 9:
        raise DiffRefused(_("“{value}” is not a revision number.").format(value=str(value)[:20]))
    return int(text)


def evaluation_diff(*, evaluation: Evaluation, old: int, new: int) -> EvaluationDiff:
    """The changes from revision `old` to revision `new`; DiffRefused for a revision that does
    not exist or was never recorded, or when `old` comes after `new`."""
    if old > new:
        raise DiffRefused(
            _("Revision {old} comes after revision {new}: compare an older one with a newer.")
            .format(old=old, new=new)
        )  # fmt: skip
    records = {}
    for number in (old, new):
        if number < 1 or number > evaluation.revision:
            raise DiffRefused(
                _("This evaluation has no revision {number}; its revisions are 1 to {last}.")
                .format(number=number, last=evaluation.revision)
            )  # fmt: skip
        record = revision_get(evaluation=evaluation, revision=number)
        first = first_recorded(evaluation)
        if record is None and first is not None and first.revision < number:
            merged_into = (
                EvaluationRevision.objects.filter(evaluation=evaluation, revision__gt=number)
                .order_by("revision")
                .values_list("revision", flat=True)
                .first()
            )
            raise DiffRefused(
                _(
                    "Revision {number} is part of revision {merged}: one editor's saves within "
                    "a minute are kept as one revision."
                ).format(number=number, merged=merged_into)
            )
        if record is None:
            raise DiffRefused(
                _(
                    "Revision {number} was not recorded: revisions before {date} were made "
                    "before EcoMap kept each revision's content."
                ).format(number=number, date=_recorded_since(first))
            )
        records[number] = record
    entries = entries_between(evaluation, old, new)
    touches = [
        Touch(
            actor=entry.actor.get_username() if entry.actor else "",
            action=entry.action,
            step=entry.step,
            revision=entry.revision,
            at=entry.created_at.isoformat(),
        )
        for entry in entries
    ]
    diff = content_diff(records[old].content, records[new].content, touches)
    return EvaluationDiff(evaluation=evaluation, old=records[old], new=records[new], diff=diff)


def _recorded_since(first: EvaluationRevision | None) -> str:
    moment = first.created_at if first else timezone.now()
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}"


def unrecorded_note(evaluation: Evaluation, revisions: list[EvaluationRevision]) -> str:
    """Said on the page when the earliest revisions predate recorded contents."""
    if not revisions or revisions[0].revision == 1:
        return ""
    return _("Revisions before {date} were not recorded (revisions 1 to {last}).").format(
        date=_recorded_since(revisions[0]), last=revisions[0].revision - 1
    )


def approved_revisions(evaluation: Evaluation) -> set[int]:
    """Every revision a reviewer approved (the selects mark them)."""
    return set(
        evaluation.reviews.filter(verdict=Verdict.APPROVE).values_list("revision", flat=True)
    )
