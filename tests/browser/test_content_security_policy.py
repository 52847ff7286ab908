"""Every page under the site's Content-Security-Policy in a real browser: no violation, no
console error, and catalog text shaped like markup stays text (no injected element)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from evaluations import services
from evaluations.models import Step
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.factories import apply, bundle, placement, project

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOSTILE = '<a href="https://evil.example/phish" id="injected">EVIL</a>'
PAGES = (
    "/catalog/",
    "/catalog/projects/hami/",
    "/catalog/projects/evil/",
    "/catalog/coverage/",
    "/map/",
    "/map/?q=evil",
    "/map/embed/",
    "/matrix/",
    "/matrix/express/",
    "/matrix/pair/?a=hami/device-plugin&b=kueue/controller",
    "/catalog/imports/",
    "/catalog/unplaced/",
    "/evaluations/",
    "/account/token/",
    "/api/docs/",
    "/api/redoc/",
)


@pytest.fixture
def hostile_catalog(db, bob):
    call_command("load_catalog", verbosity=0)
    apply(
        bundle(
            project(
                "evil",
                placement("plugin", provides=["resource:nvidia.com/gpu"], component=HOSTILE),
                name=HOSTILE,
                description=HOSTILE,
            )
        )
    )
    team = team_create(name="CSP", slug="csp", admin=bob)
    membership_set(team=team, user=bob, role=Role.ADMIN)
    evaluation = services.evaluation_create(actor=bob, team=team, title=HOSTILE)
    evaluation_step_save(
        evaluation=evaluation,
        actor=bob,
        step=Step.CANDIDATES,
        data={"candidates": [{"row": "evil/plugin"}, {"row": "kueue/controller"}]},
    )
    return evaluation


def watch_violations(page) -> list[str]:
    violations: list[str] = []
    page.expose_function("reportViolation", lambda text: violations.append(text))
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e =>"
        " window.reportViolation(e.violatedDirective + ' ' + e.blockedURI));"
    )
    return violations


def test_no_page_breaks_the_csp_or_renders_injected_markup(
    signed_in_page, live_server, hostile_catalog, console_errors
):
    page = signed_in_page
    violations = watch_violations(page)
    evaluation = hostile_catalog.pk
    extra = [f"/evaluations/{evaluation}/", f"/evaluations/{evaluation}/steps/3/",
             f"/evaluations/{evaluation}/comparison/"]  # fmt: skip
    for path in (*PAGES, *extra):
        response = page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        assert response.status < 500, path
        assert "script-src 'self'" in (response.headers.get("content-security-policy") or ""), path
        assert page.locator("#injected").count() == 0, path
        assert page.locator("a[href*='evil.example']").count() == 0, path

    assert violations == []
    assert [e for e in console_errors if "Content Security Policy" in e] == []


def test_the_embed_view_may_be_framed_only_by_the_configured_origins(client, bob, settings):
    client.force_login(bob)

    page = client.get("/map/")
    embed = client.get("/map/embed/")

    assert "frame-ancestors 'self'" in page["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in embed["Content-Security-Policy"]
    assert "X-Frame-Options" not in embed


def test_the_watch_sees_an_inline_script_the_policy_blocks(signed_in_page, live_server):
    page = signed_in_page
    violations = watch_violations(page)
    page.goto(live_server.url + "/catalog/")

    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.ran = true'; document.body.appendChild(s); }"
    )
    page.wait_for_timeout(200)

    assert page.evaluate("() => window.ran === true") is False
    assert any(v.startswith("script-src") for v in violations), violations


def test_redoc_is_served_under_the_csp_with_no_inline_script(client, bob):
    client.force_login(bob)

    response = client.get("/api/redoc/")

    page = response.content.decode()
    policy = response["Content-Security-Policy"]
    assert response.status_code == 200
    assert "script-src 'self'" in policy
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "<script>" not in page  # every script has a src on this site
    assert "fonts.googleapis.com" not in page
    assert "redoc.standalone.js" in page


def test_redoc_draws_the_schema_without_a_violation(signed_in_page, live_server, console_errors):
    page = signed_in_page
    violations = watch_violations(page)

    page.goto(live_server.url + "/api/redoc/")
    page.wait_for_selector("text=EcoMap API", timeout=15_000)

    assert violations == []
    assert [e for e in console_errors if "Content Security Policy" in e] == []
    assert [e for e in console_errors if "Permissions-Policy" in e] == []


@pytest.mark.parametrize("path", ["/catalog/", "/api/redoc/", "/api/v1/projects/", "/healthz"])
def test_every_response_denies_the_browser_features_the_site_never_uses(client, bob, path):
    client.force_login(bob)

    policy = client.get(path)["Permissions-Policy"]

    for feature in ("camera", "microphone", "geolocation", "payment", "usb"):
        assert f"{feature}=()" in policy
