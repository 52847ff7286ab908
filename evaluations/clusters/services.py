"""Cluster snapshot writes: an upload (untrusted input, refused whole) and attaching one."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from catalog.engine.cluster import SnapshotError, load_snapshot
from ecomap.parsers import MAX_INT_DIGITS
from evaluations.audit.services import audit_write
from evaluations.clusters.models import ClusterAttachment, ClusterSnapshot
from evaluations.clusters.selectors import cluster_check
from evaluations.errors import NotAllowed
from evaluations.models import Evaluation, State
from evaluations.review.editing import (
    edit_begin,
    evaluation_lock,
    revision_check,
    role_require,
)
from evaluations.review.revisions import revision_record
from evaluations.selectors import role_allows
from evaluations.teams.choices import Role

if TYPE_CHECKING:
    from evaluations.teams.models import Team

EMPTY_BODY = "the body is empty: send an ecomap.cluster/v1 JSON document"
TOO_MANY_DIGITS = f"a number has more than {MAX_INT_DIGITS} digits"


def _collected_at(value: str) -> datetime:
    moment = parse_datetime(value or "")
    if moment is None:
        return timezone.now()
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, timezone.utc)


def check_can_upload(role: str | None) -> None:
    """Refuse a viewer or reviewer before the upload is read."""
    _check_editor(role)


def _check_editor(role: str | None) -> None:
    if not role_allows(role, Role.EDITOR):
        raise NotAllowed(_("Only the team's editors can do this."))


def cluster_snapshot_upload(*, team: Team, actor, body: bytes, role: str | None) -> ClusterSnapshot:
    """Store an uploaded `ecomap.cluster/v1` document as the team's newest snapshot of it.

    `body` is the raw upload, already capped at the size limit by the caller; a refused snapshot
    raises catalog.engine.cluster.SnapshotError and stores nothing.
    """
    _check_editor(role)
    if not isinstance(body, bytes | str) or not body.strip():
        raise SnapshotError([("$", EMPTY_BODY)])
    try:
        snapshot = load_snapshot(body)  # every limit, then the schema
    except SnapshotError:
        raise
    except ValueError:  # past the engine's checks: Python refuses to convert the digits
        raise SnapshotError([("$", TOO_MANY_DIGITS)]) from None
    document = json.loads(body)  # stored as uploaded; the engine's Snapshot keeps only parts
    summary = cluster_check(snapshot).to_dict()
    return ClusterSnapshot.objects.create(
        team=team,
        cluster=snapshot.cluster[:200],
        collected_at=_collected_at(snapshot.collected_at),
        kubernetes_version=snapshot.kubernetes_version[:64],
        document=document,
        sha256=hashlib.sha256(body).hexdigest(),
        size_bytes=len(body),
        uploaded_by=actor,
        summary=summary,
    )


def _snapshot_label(snapshot: ClusterSnapshot | None) -> str | None:
    """How the audit names a snapshot: its id, cluster and collection time (stays readable after
    the snapshot row is gone)."""
    if snapshot is None:
        return None
    return f"#{snapshot.pk} {snapshot}"


@transaction.atomic
def cluster_snapshot_attach(
    *,
    evaluation: Evaluation,
    snapshot: ClusterSnapshot | None,
    actor,
    revision: int | None = None,
) -> ClusterAttachment | None:
    """Attach a snapshot of the evaluation's team to it (None detaches).

    The attached snapshot is a chapter of the evaluation's report, so attaching or detaching is
    an edit like a step save (issue 28, L4): editors only, refused in review or archived, made
    on `revision` (an older one someone else saved over is an EditConflict), a new revision with
    one audit entry naming the old and new snapshot, and an approved evaluation goes back to
    draft with its approval withdrawn — the approved revision's PDF never changes unreviewed.
    Attaching what is already attached changes nothing and records nothing."""
    role_require(evaluation=evaluation, team=evaluation.team, actor=actor, role=Role.EDITOR)
    if snapshot is not None and snapshot.team_id != evaluation.team_id:
        raise NotAllowed(_("That snapshot belongs to another team."))
    evaluation = evaluation_lock(evaluation)
    if evaluation.state in (State.IN_REVIEW, State.ARCHIVED):
        edit_begin(evaluation)  # raises with the reason
    revision_check(evaluation, revision, actor)
    current = (
        ClusterAttachment.objects.filter(evaluation=evaluation).select_related("snapshot").first()
    )
    before = current.snapshot if current else None
    if (before.pk if before else None) == (snapshot.pk if snapshot else None):
        return current
    if snapshot is None:
        ClusterAttachment.objects.filter(evaluation=evaluation).delete()
        attachment = None
    else:
        attachment, _created = ClusterAttachment.objects.update_or_create(
            evaluation=evaluation, defaults={"snapshot": snapshot, "attached_by": actor}
        )
    transition = edit_begin(evaluation)
    evaluation.revision += 1
    evaluation.save(update_fields=["state", "revision", "updated_at"])
    changes: dict[str, Any] = {
        "cluster_snapshot": {"old": _snapshot_label(before), "new": _snapshot_label(snapshot)}
    }
    if transition and transition[0] == State.APPROVED:
        # The same rule as editing.edit_commit: an approval covers the revision it saw.
        changes["approval"] = _("withdrawn: the approved evaluation was edited")
    action = "snapshot_attached" if snapshot is not None else "snapshot_detached"
    audit_write(evaluation, actor, action, changes=changes, transition=transition)
    revision_record(evaluation=evaluation, actor=actor)
    return attachment
