"""A multi-pool decision filed through the decision form in a real browser, no script needed:
two node pools with their tenant sharing for three named tenants, the rest cluster-wide;
saved, reloaded, submitted and approved by a second user (issue 38, item 6)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from playwright.sync_api import expect

from evaluations.models import Evaluation, State
from evaluations.services import evaluation_create
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.browser.conftest import SCREENS
from tests.factories import make_user

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

# Profile v2: one H100 node group and three named tenants, each saying whether its work may
# share a GPU with another tenant's.
PROFILE = {
    "workload_types": ["training", "interactive"],
    "primary_objective": "throughput",
    "p99_target_ms": 500,
    "jitter_tolerance": "medium",
    "isolation": "hard",
    "failure_semantics": "degrade",
    "tenancy": "multi",
    "priorities": ["isolation", "cost", "observability", "compatibility"],
    "node_groups": [{"name": "h100", "gpu_model": "H100 80GB", "nodes": 8, "gpus_per_node": 8}],
    "tenants": [
        {
            "name": "vision",
            "workloads": ["training"],
            "cross_tenant_sharing": "never",
            "demand": [{"workload": "training", "gpus": 32, "when": "window"}],
        },
        {
            "name": "search",
            "workloads": ["interactive"],
            "cross_tenant_sharing": "hard_partitions",
            "demand": [{"workload": "interactive", "replicas": 8, "mig_profile": "1g.10gb"}],
        },
        {
            "name": "students",
            "workloads": ["interactive"],
            "cross_tenant_sharing": "never",
            "demand": [{"workload": "interactive", "replicas": 20, "mig_profile": "1g.10gb"}],
        },
    ],
}
EXPORTER = "dcgm-exporter/exporter"
WHOLE_GPU = "nvidia-device-plugin/whole-gpu"
MIG = "nvidia-device-plugin/mig-mixed"
MIG_MANAGER = "nvidia-mig/mig-manager"
GOVERNOR = "kai-scheduler/scheduler"
CANDIDATES = [EXPORTER, WHOLE_GPU, MIG, MIG_MANAGER, GOVERNOR]


@pytest.fixture
def evaluation(db):
    call_command("load_catalog", verbosity=0)
    erin = make_user("erin")
    team = team_create(name="Platform team", slug="platform-team", admin=make_user("alice"))
    membership_set(team=team, user=erin, role=Role.EDITOR)
    membership_set(team=team, user=make_user("rita"), role=Role.REVIEWER)
    evaluation = evaluation_create(
        actor=erin, team=team, title="Training and notebooks for three tenants"
    )
    steps = {
        "profile": PROFILE,
        "units": {"units": [{"unit": "whole_gpu"}, {"unit": "mig_slice"}]},
        "candidates": {"candidates": [{"row": r, "points_confirmed": True} for r in CANDIDATES]},
    }
    for step, data in steps.items():
        evaluation_step_save(
            evaluation=Evaluation.objects.get(pk=evaluation.pk), actor=erin, step=step, data=data
        )
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    boundaries = [
        {"row": c.row.ref, "promise": c.boundary_promise, "non_promise": c.boundary_non_promise}
        for c in evaluation.candidates.select_related("row__project")
    ]
    evaluation_step_save(
        evaluation=evaluation, actor=erin, step="boundaries", data={"boundaries": boundaries}
    )
    return Evaluation.objects.get(pk=evaluation.pk)


def open_as(browser, live_server, username: str, *, language: str = "en", width: int = 1366):
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies(
        [
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url},
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            },
        ]
    )
    return context.new_page()


def watch(page, errors: list[str]) -> None:
    page.on("console", lambda m: m.type == "error" and errors.append(f"{page.url}: {m.text}"))
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))


def shoot(page, selector: str, name: str) -> None:
    """The element as it lies on the full page: an element shot would show the sticky top bar
    over it."""
    box = page.locator(selector).bounding_box()
    top = box["y"] + page.evaluate("window.scrollY")
    clip = {"x": 0, "y": top, "width": page.viewport_size["width"], "height": box["height"]}
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=True, clip=clip)


def tick(page, name: str, ref: str) -> None:
    page.check(f"form.step-form input[name='{name}'][value='{ref}']")


def test_a_two_pool_decision_is_filed_in_the_form_saved_reviewed_and_approved(
    browser, live_server, evaluation
):
    errors: list[str] = []
    erin = open_as(browser, live_server, "erin")
    watch(erin, errors)
    url = f"{live_server.url}/evaluations/{evaluation.pk}/decision/"
    erin.goto(url)

    # Pool 1: training on whole GPUs, each pod its own devices.
    erin.fill("#id_pool-0-name", "training")
    erin.select_option("#id_pool-0-tenant_sharing", "none")
    # Saved before its rows are ticked: the error stands beside the pool, the input stays.
    erin.click(".step-buttons button[type=submit]")
    expect(erin.locator("fieldset[data-pool='1'] .field-errors")).to_contain_text(
        "Tick the rows that run in this pool, or remove it."
    )
    expect(erin.locator("#id_pool-0-name")).to_have_value("training")
    expect(erin.locator("#id_pool-0-tenant_sharing")).to_have_value("none")
    shoot(erin, "form.step-form", "decision-form-error-en-1366")
    # The page answered 400 (the browser logs that); nothing else went wrong.
    assert [e for e in errors if "status of 400" not in e] == []
    errors.clear()
    tick(erin, "pool-0-rows", WHOLE_GPU)
    tick(erin, "pool-0-rows", EXPORTER)
    # A second pool, without a script: "Add a pool" shows one more and keeps what was typed.
    erin.click("button[name=add_pool]")
    expect(erin.locator("#id_pool-1-name")).to_be_visible()
    expect(erin.locator("#id_pool-0-name")).to_have_value("training")
    expect(
        erin.locator(f"form.step-form input[name='pool-0-rows'][value='{WHOLE_GPU}']")
    ).to_be_checked()
    erin.fill("#id_pool-1-name", "interactive notebooks")
    erin.select_option("#id_pool-1-tenant_sharing", "within_tenant")
    for ref in (MIG, MIG_MANAGER, EXPORTER):
        tick(erin, "pool-1-rows", ref)
    tick(erin, "cluster_wide", GOVERNOR)
    erin.fill("#id_rationale", "Whole GPUs for training; MIG notebooks, one pool per tenant.")
    erin.click(".step-buttons button[type=submit]")
    expect(erin.locator(".messages, .alert").first).to_contain_text("Decision saved")

    # Reloaded, the form shows what was saved.
    erin.goto(url)
    expect(erin.locator("#id_pool-0-name")).to_have_value("training")
    expect(erin.locator("#id_pool-0-tenant_sharing")).to_have_value("none")
    expect(erin.locator("#id_pool-1-name")).to_have_value("interactive notebooks")
    expect(erin.locator("#id_pool-1-tenant_sharing")).to_have_value("within_tenant")
    for name, ref in (
        ("pool-0-rows", EXPORTER),
        ("pool-1-rows", EXPORTER),
        ("cluster_wide", GOVERNOR),
    ):
        expect(erin.locator(f"form.step-form input[name='{name}'][value='{ref}']")).to_be_checked()
    expect(
        erin.locator(f"form.step-form input[name='cluster_wide'][value='{EXPORTER}']")
    ).not_to_be_checked()
    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert decision.pools == {
        "training": [EXPORTER, WHOLE_GPU],
        "interactive notebooks": [EXPORTER, MIG, MIG_MANAGER],
    }
    assert decision.pool_tenant_sharing == {
        "training": "none",
        "interactive notebooks": "within_tenant",
    }
    expect(erin.locator(".stack-report").first).to_be_visible()  # the stack check of it

    # The form as it looks, wide and narrow, in English and Chinese.
    SCREENS.mkdir(parents=True, exist_ok=True)
    for language in ("en", "zh-hans"):
        for width in (1366, 390):
            page = (
                erin
                if (language, width) == ("en", 1366)
                else open_as(browser, live_server, "erin", language=language, width=width)
            )
            watch(page, errors)
            page.goto(url)
            shoot(page, "form.step-form", f"decision-form-{language}-{width}")
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, (language, width, overflow)

    # Submitted for review; a second user approves it.
    erin.goto(f"{live_server.url}/evaluations/{evaluation.pk}/")
    erin.click(f"form[action='/evaluations/{evaluation.pk}/submit/'] button")
    expect(erin.locator(".eval-head .state")).to_have_attribute("data-state", "in_review")
    rita = open_as(browser, live_server, "rita")
    watch(rita, errors)
    rita.goto(f"{live_server.url}/evaluations/{evaluation.pk}/")
    rita.check("input[name=verdict][value=approve]")
    rita.click(".review-form button[type=submit]")
    expect(rita.locator(".eval-head .state")).to_have_attribute("data-state", "approved")
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED
    assert errors == []
