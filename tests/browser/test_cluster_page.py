"""A cluster snapshot in a real browser: an editor uploads the file on /clusters/, reads the
findings and the deployed stack on the map, then compares the snapshot with the team's decision
from the decision page and attaches it to the report."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from playwright.sync_api import expect

from evaluations.clusters.models import ClusterAttachment, ClusterSnapshot
from evaluations.decisions.services import evaluation_decide
from tests.evaluations.factories import make_cast, make_evaluation

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

FIXTURE = Path(settings.BASE_DIR) / "tests" / "data" / "clusters" / "plugin-and-hami.json"


def signed_in(context, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )


def test_an_editor_uploads_a_snapshot_and_compares_it_with_the_decision(
    page, live_server, console_errors, screenshot
):
    call_command("load_catalog", verbosity=0)
    cast = make_cast()
    evaluation = make_evaluation(cast, title="Inference pool")
    evaluation_decide(
        evaluation=evaluation,
        actor=cast.bob,
        rows=["hami/device-plugin", "hami/scheduler-extender", "kueue/controller"],
    )
    signed_in(page.context, live_server, cast.bob)

    # Upload through the page.
    page.goto(f"{live_server.url}/clusters/")
    page.set_input_files("input[name=file]", str(FIXTURE))
    page.select_option("select[name=team]", "platform")
    page.click(".cluster-upload button[type=submit]")

    snapshot = ClusterSnapshot.objects.get()
    expect(page).to_have_url(f"{live_server.url}/clusters/{snapshot.pk}/")
    # Two device plugins hand out the same GPUs: an error, with the nodes it concerns.
    error = page.locator(".finding-error").first
    expect(error).to_be_visible()
    expect(error).to_contain_text("gpu-a-1")
    expect(page.locator(".cluster-detected")).to_contain_text("HAMi")
    expect(page.locator("#cluster-map .main-svg").first).to_be_attached()
    screenshot(page, "cluster-page", full_page=True)

    # From the decision page to the comparison.
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/decision/")
    page.click(f"a[href='/evaluations/{evaluation.pk}/cluster/']")
    expect(page.locator(".compare-absent")).to_contain_text("Kueue")
    expect(page.locator(".compare-undecided")).to_contain_text("NVIDIA device plugin")
    expect(page.locator(".compare-both")).to_contain_text("HAMi")
    page.click(".compare-attach button[type=submit]")
    expect(page.locator(".compare-attach .chip-on")).to_be_visible()
    assert ClusterAttachment.objects.get(evaluation=evaluation).snapshot == snapshot
    screenshot(page, "cluster-compare", full_page=True)

    assert console_errors == []
