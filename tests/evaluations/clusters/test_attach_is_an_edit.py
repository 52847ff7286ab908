"""Issue 28 L4: attaching or detaching a cluster snapshot changes the evaluation's report, so it
is an audited edit. On an approved evaluation it withdraws the approval (a new draft revision
that needs review again), like a step edit; in review it is refused like a step edit."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from evaluations.audit.labels import audit_action_label
from evaluations.audit.models import AuditEntry
from evaluations.clusters.models import ClusterAttachment, ClusterSnapshot
from evaluations.clusters.services import cluster_snapshot_attach, cluster_snapshot_upload
from evaluations.errors import EditConflict, InvalidTransition
from evaluations.models import Evaluation, State
from evaluations.review.diffs.selectors import last_approved_revision
from evaluations.review.services import evaluation_review, evaluation_submit
from tests.evaluations.cluster_factories import body, sign_small_catalog, snapshot
from tests.evaluations.factories import (
    approved,
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
    submitted,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db):
    small_catalog()
    sign_small_catalog()
    return make_cast()


def stored(cast) -> ClusterSnapshot:
    return cluster_snapshot_upload(
        team=cast.team, actor=cast.bob, body=body(snapshot()), role="editor"
    )


def signed_in(user, language: str = "en") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def test_attaching_through_the_page_withdraws_the_approval_and_is_audited(cast):
    evaluation = approved(cast)
    snap = stored(cast)
    approved_at = evaluation.revision

    response = signed_in(cast.bob).post(
        f"/evaluations/{evaluation.pk}/cluster/",
        {"snapshot": snap.pk, "revision": evaluation.revision},
    )

    assert response.status_code == 302
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    assert ClusterAttachment.objects.get(evaluation=evaluation).snapshot == snap
    # Needs review again, at a new revision: the approved revision's report is not this one.
    assert evaluation.state == State.DRAFT
    assert evaluation.revision == approved_at + 1
    assert last_approved_revision(evaluation) == approved_at
    entry = AuditEntry.objects.filter(evaluation=evaluation).latest("id")
    assert entry.action == "snapshot_attached"
    assert entry.actor == cast.bob
    assert (entry.state_from, entry.state_to) == (State.APPROVED, State.DRAFT)
    assert entry.revision == evaluation.revision
    assert entry.changes["cluster_snapshot"] == {"old": None, "new": f"#{snap.pk} {snap}"}
    assert "approval" in entry.changes


def test_detaching_from_an_approved_evaluation_is_audited_and_needs_review(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    snap = stored(cast)
    cluster_snapshot_attach(evaluation=evaluation, snapshot=snap, actor=cast.bob)
    evaluation_submit(evaluation=Evaluation.objects.get(pk=evaluation.pk), actor=cast.bob)
    evaluation_review(
        evaluation=Evaluation.objects.get(pk=evaluation.pk), actor=cast.carol, verdict="approve"
    )

    cluster_snapshot_attach(
        evaluation=Evaluation.objects.get(pk=evaluation.pk), snapshot=None, actor=cast.alice
    )

    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    assert not ClusterAttachment.objects.exists()
    assert evaluation.state == State.DRAFT
    entry = AuditEntry.objects.filter(evaluation=evaluation).latest("id")
    assert (entry.action, entry.actor) == ("snapshot_detached", cast.alice)
    assert entry.changes["cluster_snapshot"] == {"old": f"#{snap.pk} {snap}", "new": None}


def test_the_audit_log_names_the_attach_in_both_languages(cast):
    evaluation = approved(cast)
    cluster_snapshot_attach(evaluation=evaluation, snapshot=stored(cast), actor=cast.bob)

    english = signed_in(cast.dave).get(f"/evaluations/{evaluation.pk}/").content.decode()
    chinese = signed_in(cast.dave, "zh-hans").get(f"/evaluations/{evaluation.pk}/")

    assert "attached a cluster snapshot to the report" in english
    assert "cluster snapshot" in english  # the changed field, by its label
    with translation.override("zh-hans"):
        label = audit_action_label("snapshot_attached")
    assert label != "attached a cluster snapshot to the report"
    assert label in chinese.content.decode()


def test_an_evaluation_in_review_cannot_get_a_snapshot(cast):
    evaluation = submitted(cast)
    snap = stored(cast)

    with pytest.raises(InvalidTransition):
        cluster_snapshot_attach(evaluation=evaluation, snapshot=snap, actor=cast.bob)
    response = signed_in(cast.bob).post(
        f"/evaluations/{evaluation.pk}/cluster/", {"snapshot": snap.pk}, follow=True
    )

    assert not ClusterAttachment.objects.exists()
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.IN_REVIEW
    assert "cannot be edited now" in response.content.decode()


def test_attach_on_a_revision_someone_else_saved_over_is_a_conflict(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    loaded = evaluation.revision
    cluster_snapshot_attach(evaluation=evaluation, snapshot=stored(cast), actor=cast.alice)

    with pytest.raises(EditConflict):
        cluster_snapshot_attach(
            evaluation=evaluation, snapshot=None, actor=cast.bob, revision=loaded
        )

    assert ClusterAttachment.objects.exists()


def test_attaching_the_attached_snapshot_again_records_nothing(cast):
    evaluation = approved(cast)
    snap = stored(cast)
    cluster_snapshot_attach(evaluation=evaluation, snapshot=snap, actor=cast.bob)
    after_first = Evaluation.objects.get(pk=evaluation.pk).revision
    entries = AuditEntry.objects.count()

    cluster_snapshot_attach(evaluation=evaluation, snapshot=snap, actor=cast.bob)

    assert Evaluation.objects.get(pk=evaluation.pk).revision == after_first
    assert AuditEntry.objects.count() == entries


def test_a_viewer_cannot_attach(cast):
    evaluation = approved(cast)

    signed_in(cast.dave).post(
        f"/evaluations/{evaluation.pk}/cluster/", {"snapshot": stored(cast).pk}
    )

    assert not ClusterAttachment.objects.exists()
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED
