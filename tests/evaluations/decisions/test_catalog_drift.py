"""Catalog drift (issue 20): an approved decision is pinned, and a catalog write that makes its
stack check worse sends it back to re-review and tells the team; a mere wording change leaves
it approved with a note."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from catalog.imports.services import import_submit
from catalog.models import PlacementRow
from evaluations.audit.models import AuditEntry
from evaluations.decisions.drift import catalog_drift_check
from evaluations.models import Evaluation, State
from evaluations.notifications.models import Notification, WebhookDelivery
from evaluations.recovery import jobs_recover
from evaluations.review.services import evaluation_review, evaluation_submit
from tests.evaluations.factories import approved as approved_evaluation
from tests.evaluations.factories import make_cast, small_catalog
from tests.factories import apply, bundle, make_user, placement, project

pytestmark = pytest.mark.django_db


def hami(description: str = "hami does GPU things.", **changes):
    """HAMi's row as small_catalog states it, with `changes`."""
    fields = {
        "resource_units": ["memory_compute_quota"],
        "enforcement_points": ["runtime_interception"],
        "isolation": {"memory": "hard", "compute": "soft", "fault": "none"},
        "provides": ["resource:nvidia.com/gpumem", "signal:hami/vgpu_memory_used"],
        "signals": ["signal:hami/vgpu_memory_used"],
        "exclusive": ["owner:node/nvidia-gpu"],
        "non_promise": "Does not decide who may use GPUs.",
        "failure_modes": ["statically linked CUDA escapes the limits"],
        "costs": {"performance": {"level": "low", "note": "interception"}},
        **changes,
    }
    return project(
        "hami", placement("device-plugin", **fields), name="HAMi", description=description
    )


def volcano(**changes):
    return project(
        "volcano",
        placement(
            "scheduler",
            "control_plane",
            resource_units=["whole_gpu", "memory_compute_quota"],
            enforcement_points=["scheduler", "admission"],
            provides=["capability:gang-scheduling", "capability:quota"],
            accepts=["resource:*"],
            non_promise="Never promises zero interference inside the node.",
            failure_modes=["a queue without quota starves others"],
            **changes,
        ),
        name="Volcano",
    )


@pytest.fixture
def cast(db):
    small_catalog()
    # Volcano's queue here needs HAMi's memory resource: the contract the import will remove.
    apply(bundle(volcano(requires=["resource:nvidia.com/gpumem"])))
    return make_cast()


@pytest.fixture
def approved(cast):
    evaluation = approved_evaluation(cast)
    Notification.objects.all().delete()
    return Evaluation.objects.get(pk=evaluation.pk)


def imported(document, django_capture_on_commit_callbacks, **kwargs):
    """Import through the real import path, running what it queues after commit."""
    with django_capture_on_commit_callbacks(execute=True):
        job = import_submit(text=json.dumps(document), source="vendor sheet", **kwargs)
    assert job.status == "succeeded", job.errors
    return job


def test_approval_pins_the_catalog_revision_rows_and_findings(approved):
    decision = approved.decision

    assert decision.approved_at is not None
    assert decision.approved_catalog_revision > 0
    assert set(decision.approved_rows) == {"hami/device-plugin", "volcano/scheduler"}
    assert "resource:nvidia.com/gpumem" in decision.approved_rows["hami/device-plugin"]["provides"]
    assert decision.approved_rows["hami/device-plugin"]["project"]["name"] == "HAMi"
    assert all("key" in finding for finding in decision.approved_findings)


def test_an_import_that_removes_a_contract_the_stack_needs_asks_for_re_review(
    approved, django_capture_on_commit_callbacks
):
    imported(
        bundle(hami(provides=["signal:hami/vgpu_memory_used"])), django_capture_on_commit_callbacks
    )

    evaluation = Evaluation.objects.get(pk=approved.pk)
    assert evaluation.state == State.NEEDS_REVIEW
    drift = evaluation.catalog_drift
    assert drift["stack_check"] == "worse"
    assert drift["rows"]["hami/device-plugin"]["provides"] == {
        "old": ["resource:nvidia.com/gpumem", "signal:hami/vgpu_memory_used"],
        "new": ["signal:hami/vgpu_memory_used"],
    }
    assert [(f["kind"], f["row"], f["pattern"]) for f in drift["new_findings"]] == [
        ("gap", "volcano/scheduler", "resource:nvidia.com/gpumem")
    ]
    assert drift["since_revision"] == approved.decision.approved_catalog_revision
    assert drift["catalog_revision"] > drift["since_revision"]
    assert drift["history"][0]["source"].endswith("vendor sheet")
    entry = AuditEntry.objects.get(evaluation=evaluation, action="catalog_drift")
    assert (entry.state_from, entry.state_to) == ("approved", "needs_review")


def test_a_description_change_keeps_it_approved_with_a_note(
    approved, django_capture_on_commit_callbacks
):
    imported(
        bundle(hami(non_promise="Does not decide who may use GPUs, nor when.")),
        django_capture_on_commit_callbacks,
    )

    evaluation = Evaluation.objects.get(pk=approved.pk)
    assert evaluation.state == State.APPROVED
    drift = evaluation.catalog_drift
    assert drift["stack_check"] == "unchanged"
    assert drift["rows"] == {
        "hami/device-plugin": {
            "non_promise": {
                "old": "Does not decide who may use GPUs.",
                "new": "Does not decide who may use GPUs, nor when.",
            }
        }
    }
    assert not Notification.objects.exists()
    assert not AuditEntry.objects.filter(action="catalog_drift").exists()


def test_a_project_description_change_is_noted_too(approved, django_capture_on_commit_callbacks):
    imported(
        bundle(hami(description="HAMi shares GPUs by intercepting CUDA.")),
        django_capture_on_commit_callbacks,
    )

    evaluation = Evaluation.objects.get(pk=approved.pk)
    assert evaluation.state == State.APPROVED
    change = evaluation.catalog_drift["rows"]["hami/device-plugin"]["project.description"]
    assert change["new"] == "HAMi shares GPUs by intercepting CUDA."


def test_the_team_is_told_and_its_webhook_called_when_it_gets_worse(
    cast, approved, django_capture_on_commit_callbacks
):
    cast.team.webhook_url = "https://hooks.example.org/ecomap"
    cast.team.save(update_fields=["webhook_url"])

    imported(
        bundle(hami(provides=["signal:hami/vgpu_memory_used"])), django_capture_on_commit_callbacks
    )

    told = set(
        Notification.objects.filter(event="catalog_drift").values_list(
            "recipient__username", flat=True
        )
    )
    assert told == {"alice-admin", "bob-editor", "carol-reviewer"}  # not dave the viewer
    delivery = WebhookDelivery.objects.get(event="catalog_drift")
    assert "needs re-review" in delivery.payload["text"]


def test_the_api_shows_catalog_drift(cast, approved, client, django_capture_on_commit_callbacks):
    imported(
        bundle(hami(provides=["signal:hami/vgpu_memory_used"])), django_capture_on_commit_callbacks
    )
    client.force_login(cast.dave)

    body = client.get(f"/api/v1/evaluations/{approved.pk}/").json()

    assert body["state"] == "needs_review"
    assert body["catalog_drift"]["stack_check"] == "worse"
    assert "hami/device-plugin" in body["catalog_drift"]["rows"]


def test_load_catalog_triggers_the_check(approved, tmp_path, django_capture_on_commit_callbacks):
    (tmp_path / "hami.json").write_text(
        json.dumps(bundle(hami(provides=["signal:hami/vgpu_memory_used"])))
    )

    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_catalog", dir=tmp_path, stdout=open("/dev/null", "w"))  # noqa: SIM115

    assert Evaluation.objects.get(pk=approved.pk).state == State.NEEDS_REVIEW


def test_an_admin_deleting_a_decided_row_asks_for_re_review(
    approved, client, django_capture_on_commit_callbacks
):
    root = make_user("root", is_staff=True, is_superuser=True)
    client.force_login(root)
    row = PlacementRow.objects.get(project__slug="hami", key="device-plugin")

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:catalog_placementrow_delete", args=[row.pk]), {"post": "yes"}
        )

    assert response.status_code == 302
    evaluation = Evaluation.objects.get(pk=approved.pk)
    assert evaluation.state == State.NEEDS_REVIEW
    assert evaluation.catalog_drift["removed_rows"] == ["hami/device-plugin"]
    assert evaluation.catalog_drift["history"][0]["actor"] == "root"


def test_a_change_to_an_unrelated_row_leaves_it_alone(approved, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        apply(bundle(project("time-slicer", placement("plugin", promise="Slices time."))))

    evaluation = Evaluation.objects.get(pk=approved.pk)
    assert evaluation.state == State.APPROVED
    assert evaluation.catalog_drift == {}


def test_the_check_run_twice_flags_and_tells_once(approved, django_capture_on_commit_callbacks):
    imported(
        bundle(hami(provides=["signal:hami/vgpu_memory_used"])), django_capture_on_commit_callbacks
    )
    notified = Notification.objects.count()

    assert catalog_drift_check(refs=["hami/device-plugin"]) == {"same": 1}
    call_command("check_catalog_drift", stdout=open("/dev/null", "w"))  # noqa: SIM115

    assert Notification.objects.count() == notified
    assert AuditEntry.objects.filter(action="catalog_drift").count() == 1


def test_approving_again_is_the_new_baseline(cast, approved, django_capture_on_commit_callbacks):
    imported(
        bundle(hami(provides=["signal:hami/vgpu_memory_used"])), django_capture_on_commit_callbacks
    )
    evaluation = evaluation_submit(
        evaluation=Evaluation.objects.get(pk=approved.pk), actor=cast.bob
    )
    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")

    evaluation = Evaluation.objects.get(pk=approved.pk)
    assert evaluation.state == State.APPROVED
    assert evaluation.catalog_drift == {}
    pinned = evaluation.decision.approved_rows["hami/device-plugin"]
    assert "resource:nvidia.com/gpumem" not in pinned["provides"]


def test_the_overview_and_decision_pages_show_the_notice(
    cast, approved, client, django_capture_on_commit_callbacks
):
    imported(
        bundle(hami(provides=["signal:hami/vgpu_memory_used"])), django_capture_on_commit_callbacks
    )
    client.force_login(cast.bob)

    for name in ("evaluations:detail", "evaluations:decision"):
        page = client.get(reverse(name, args=[approved.pk])).content.decode()
        assert "The catalog changed since approval" in page
        assert "provides" in page and "resource:nvidia.com/gpumem" in page
        assert "volcano/scheduler needs resource:nvidia.com/gpumem" in page
        assert "Revise it, or submit it for review again" in page


def test_the_schema_documents_catalog_drift(cast, client):
    client.force_login(cast.bob)

    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    components = schema["components"]["schemas"]
    assert "catalog_drift" in components["Evaluation"]["properties"]
    drift = components["CatalogDrift"]["properties"]
    assert {"rows", "removed_rows", "stack_check", "new_findings", "since_revision"} <= set(drift)


def test_the_queued_job_runs_by_its_registered_name(approved):
    from ecomap.celery import app
    from ecomap.dispatch import CHECK_CATALOG_DRIFT

    apply(bundle(hami(provides=["signal:hami/vgpu_memory_used"])))  # not committed: no signal

    app.tasks[CHECK_CATALOG_DRIFT].delay(["hami/device-plugin"])
    app.tasks[CHECK_CATALOG_DRIFT].delay(["hami/device-plugin"])

    assert Evaluation.objects.get(pk=approved.pk).state == State.NEEDS_REVIEW
    assert Notification.objects.filter(event="catalog_drift").count() == 3


def test_a_reviewer_reviewing_again_sees_what_changed(
    cast, approved, client, django_capture_on_commit_callbacks
):
    imported(
        bundle(hami(provides=["signal:hami/vgpu_memory_used"])), django_capture_on_commit_callbacks
    )
    evaluation_submit(evaluation=Evaluation.objects.get(pk=approved.pk), actor=cast.bob)
    client.force_login(cast.carol)

    page = client.get(reverse("evaluations:detail", args=[approved.pk])).content.decode()

    assert "The catalog changed since approval" in page
    assert "weigh them before recording a verdict" in page
    assert "Record review" in page


def test_the_command_pins_decisions_approved_before_pinning_existed(approved):
    from evaluations.decisions.models import Decision

    Decision.objects.filter(pk=approved.decision.pk).update(approved_at=None, approved_rows={})
    apply(bundle(hami(provides=["signal:hami/vgpu_memory_used"])))

    call_command("check_catalog_drift", pin_unpinned=True, stdout=open("/dev/null", "w"))  # noqa: SIM115

    evaluation = Evaluation.objects.get(pk=approved.pk)
    assert evaluation.decision.approved_at is not None
    assert evaluation.state == State.APPROVED  # the baseline is now: nothing drifted since


def test_a_drift_check_lost_with_the_broker_is_sent_again_by_the_sweep(
    approved, django_capture_on_commit_callbacks
):
    # The import commits but its queued drift check never reaches a worker.
    with django_capture_on_commit_callbacks(execute=False):
        job = import_submit(
            text=json.dumps(bundle(hami(provides=["signal:hami/vgpu_memory_used"]))),
            source="vendor sheet",
        )
    assert job.status == "succeeded", job.errors
    assert Evaluation.objects.get(pk=approved.pk).state == State.APPROVED
    now = timezone.now() + timedelta(minutes=5)  # past the sweep's grace

    with django_capture_on_commit_callbacks(execute=True):
        done = jobs_recover(now=now)

    assert done["catalog_drift"] == {"republished": 1}
    assert Evaluation.objects.get(pk=approved.pk).state == State.NEEDS_REVIEW
    # Checked now: the next sweep has nothing to send.
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_recover(now=now)["catalog_drift"] == {"republished": 0}


def test_a_pin_older_than_a_field_rows_gained_is_not_a_change(approved):
    """Rows gained `config` (their Helm chart) after decisions were pinned: a pin without the
    field compares as it did, with no change and no re-review."""
    from evaluations.decisions.models import Decision

    decision = Decision.objects.get(evaluation=approved)
    old = {
        ref: {k: v for k, v in row.items() if k != "config"}
        for ref, row in decision.approved_rows.items()
    }
    Decision.objects.filter(pk=decision.pk).update(approved_rows=old)

    catalog_drift_check()

    evaluation = Evaluation.objects.get(pk=approved.pk)
    assert evaluation.state == State.APPROVED
    assert evaluation.catalog_drift == {}
