"""Cluster snapshot writes: an upload (untrusted input, refused whole) and attaching one."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from catalog.engine.cluster import SnapshotError, load_snapshot
from ecomap.parsers import MAX_INT_DIGITS
from evaluations.clusters.models import ClusterAttachment, ClusterSnapshot
from evaluations.clusters.selectors import cluster_check
from evaluations.errors import NotAllowed
from evaluations.models import Evaluation, Role, Team
from evaluations.selectors import role_allows

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


@transaction.atomic
def cluster_snapshot_attach(
    *, evaluation: Evaluation, snapshot: ClusterSnapshot | None, actor, role: str | None
) -> ClusterAttachment | None:
    """Attach a snapshot of the evaluation's team to it (None detaches)."""
    _check_editor(role)
    if snapshot is None:
        ClusterAttachment.objects.filter(evaluation=evaluation).delete()
        return None
    if snapshot.team_id != evaluation.team_id:
        raise NotAllowed(_("That snapshot belongs to another team."))
    attachment, _created = ClusterAttachment.objects.update_or_create(
        evaluation=evaluation, defaults={"snapshot": snapshot, "attached_by": actor}
    )
    return attachment
