"""Every page passes axe-core (WCAG 2.2 AA and axe's best practices) with no serious or critical
violation, in English and Chinese, at 1366 px and at 390 px; every page starts with a skip link
to its main content and shows where the keyboard focus is.

One browser, one context per language and width: the anonymous pages first, then the signed-in
ones with the session cookie added. The page list is checked against the URL conf, so a new page
cannot be left out of the walk without a reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from catalog.imports.services import import_submit
from evaluations.clusters.services import cluster_snapshot_upload
from evaluations.models import Evaluation
from evaluations.sharing.services import share_link_create
from evaluations.teams.choices import Role
from evaluations.teams.models import Team

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

WIDTHS = (1366, 390)
LANGUAGES = ("en", "zh-hans")
BLOCKING = {"serious", "critical"}
REPORT = Path(settings.BASE_DIR) / "test-artifacts" / "axe-violations.json"
SNAPSHOT = Path(settings.BASE_DIR) / "tests" / "data" / "clusters" / "plugin-and-hami.json"

# Routes that are not pages a person reads, each with why it is not walked.
NOT_PAGES = {
    "healthz": "a health probe (JSON)",
    "imports:upload": "POST only (the upload form is on the imports page)",
    "set_language": "POST only: the language switch",
    "logout": "POST only",
    "account:token-create": "POST only",
    "account:token-revoke": "POST only",
    "account:password-reset-confirm": "walked with a made-up token (the invalid-link page)",
    "evaluations:candidate-search": "a JSON endpoint of step 3's search box",
    "evaluations:candidate-add": "POST only",
    "evaluations:candidate-remove": "POST only",
    "evaluations:submit": "POST only",
    "evaluations:review": "POST only",
    "evaluations:archive": "POST only",
    "evaluations:clone": "POST only",
    "evaluations:comment-add": "POST only",
    "evaluations:comment-resolve": "POST only",
    "teams:accept": "needs an invitation key sent by e-mail; the page is the team page's form",
    "teams:member-role": "POST only",
    "teams:member-remove": "POST only",
    "teams:invite": "POST only",
    "teams:invitation-withdraw": "POST only",
    "teams:webhook": "POST only",
    "inbox:read-all": "POST only",
    "inbox:open": "a redirect to the evaluation",
    "reports:request": "POST only",
    "reports:status": "a partial polled by the report panel",
    "reports:download": "the PDF itself",
    "map:data": "the map's JSON",
    "map:card": "a partial the map page loads into its card",
    "matrix:status": "a partial polled by the matrix page",
    "map:csv": "the map's data as CSV",
    "map:table": "a partial: the map page's table, loaded into the page",
    "readyz": "a readiness probe (JSON)",
    "oidc_authentication_init": "a redirect to the identity provider",
    "oidc_authentication_callback": "the identity provider's redirect back (signs in, redirects)",
    "capacity:request": "POST only",
    "capacity:status": "a partial polled by the capacity panel",
    "evaluations:trace-upload": "POST only (the form is on step 1)",
    "evaluations:review-request": "POST only (the form is on the evaluation page)",
    "evaluations:share-revoke": "POST only",
    "shared:pdf": "the PDF itself",
    "shared:adr": "the decision record as Markdown",
    "teams:webhook-test": "POST only",
    "teams:webhook-resend": "POST only",
}


def anonymous_pages() -> list[tuple[str, int]]:
    return [
        ("/", 200),
        ("/accounts/login/", 200),
        ("/account/password-reset/", 200),
        ("/account/password-reset/sent/", 200),
        ("/account/password-reset/MQ/not-a-token/", 200),
        ("/account/password-reset/done/", 200),
    ]


def signed_in_pages(evaluation: Evaluation, approved: Evaluation, snapshot, job) -> list:
    base = f"/evaluations/{evaluation.pk}"
    return [
        ("/", 200),
        ("/catalog/", 200),
        ("/catalog/?q=gang", 200),
        ("/catalog/projects/hami/", 200),
        ("/catalog/coverage/", 200),
        ("/catalog/imports/", 200),
        (f"/catalog/imports/{job.pk}/", 200),
        ("/catalog/unplaced/", 200),
        ("/map/", 200),
        ("/map/embed/", 200),
        ("/matrix/", 200),
        ("/matrix/express/", 200),
        ("/matrix/pair/?a=hami/device-plugin&b=volcano/scheduler", 200),
        ("/evaluations/", 200),
        ("/evaluations/new/", 200),
        (f"{base}/", 200),
        *[(f"{base}/steps/{number}/", 200) for number in (1, 2, 3, 4)],
        (f"{base}/comparison/", 200),
        (f"{base}/recommendations/", 200),
        (f"{base}/decision/", 200),
        (f"{base}/diff/", 200),
        (f"{base}/cluster/", 200),
        (f"/evaluations/{approved.pk}/decision/", 200),
        # The generated configuration (issue 30); the draft has no decision: the page says why.
        # Its "Download all" is the API's config.tar.gz, outside the walked URL conf.
        (f"/evaluations/{approved.pk}/configuration/", 200),
        (f"{base}/configuration/", 200),
        (f"/evaluations/{approved.pk}/what-if/?row={approved.decision.rows[0]}", 200),
        ("/teams/", 200),
        ("/teams/platform-team/", 200),
        ("/teams/platform-team/approval-policy/", 200),
        ("/teams/platform-team/webhook/log/", 200),
        (f"/evaluations/{approved.pk}/shares/", 200),
        ("/inbox/", 200),
        ("/inbox/search/?q=gang", 200),
        ("/inbox/search/?q=租户隔离", 200),
        ("/clusters/", 200),
        (f"/clusters/{snapshot.pk}/", 200),
        ("/account/token/", 200),
        ("/no-such-page/", 404),
        ("/crash/", 500),
        ("/forbidden/", 403),
        ("/bad-request/", 400),
    ]


def _page_names(patterns, namespace: str = "") -> set[str]:
    names = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if str(pattern.pattern) in ("admin/", "api/"):
                continue
            inner = f"{namespace}:{pattern.namespace}" if pattern.namespace else namespace
            names |= _page_names(pattern.url_patterns, inner.strip(":"))
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(f"{namespace}:{pattern.name}" if namespace else pattern.name)
    return names


@pytest.fixture
def walk(bob, settings):
    """The demo's team and evaluations (bob its admin), a cluster snapshot, an import job and a
    notification, and the URL conf with a page that crashes (the 500 page)."""
    settings.ROOT_URLCONF = "tests.error_urls"
    call_command("load_catalog", verbosity=0)
    call_command("seed_demo_team", bob.username, verbosity=0)
    team = Team.objects.get(slug="platform-team")
    snapshot = cluster_snapshot_upload(
        team=team, actor=bob, body=SNAPSHOT.read_bytes(), role=Role.ADMIN
    )
    job = import_submit(text=(Path(settings.BASE_DIR) / "catalog/data/hami.yaml").read_text(),
                        actor=bob, dry_run=True)  # fmt: skip
    evaluation = Evaluation.objects.filter(state="draft").first()
    approved = Evaluation.objects.filter(state="approved").select_related("decision").first()
    _link, key = share_link_create(evaluation=approved, actor=bob, label="auditor", days=7)
    return {
        # A share link opens the decision for someone without an account (issue 32).
        "anonymous": [*anonymous_pages(), (f"/shared/{key}/", 200)],
        "signed_in": signed_in_pages(evaluation, approved, snapshot, job),
    }


def test_the_walk_covers_every_page_of_the_url_conf(walk):
    walked = {
        resolve(path.split("?")[0]).view_name
        for path, status in walk["anonymous"] + walk["signed_in"]
        if status == 200
    }
    assert _page_names(get_resolver("ecomap.urls").url_patterns) - walked - set(NOT_PAGES) == set()


def _blocking(results) -> list[str]:
    return [
        f"{v['id']} ({v['impact']}): {len(v['nodes'])}× e.g. {v['nodes'][0]['target']}"
        for v in results.response["violations"]
        if v["impact"] in BLOCKING
    ]


def _session_cookie(user, url: str) -> dict:
    client = Client()
    client.force_login(user)
    value = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": value, "url": url}


def test_every_page_passes_axe_in_both_languages_at_both_widths(browser, live_server, walk, bob):
    axe = Axe()
    found: dict[str, list[str]] = {}
    for language in LANGUAGES:
        for width in WIDTHS:
            context = browser.new_context(viewport={"width": width, "height": 900})
            url = live_server.url
            context.add_cookies([{"name": "django_language", "value": language, "url": url}])
            page = context.new_page()
            for group in ("anonymous", "signed_in"):
                if group == "signed_in":
                    context.add_cookies([_session_cookie(bob, url)])
                for path, status in walk[group]:
                    response = page.goto(url + path)
                    assert response.status == status, path
                    problems = _blocking(axe.run(page))
                    # Pages with the site's header (not the map embedded in an iframe) let the
                    # keyboard skip it (WCAG 2.4.1).
                    has_header = page.locator("header.topbar").count() == 1
                    if has_header and page.locator("a.skip-link[href='#main']").count() != 1:
                        problems.append("no skip link to #main")
                    if problems:
                        found[f"{language} {width}px {group} {path}"] = problems
            context.close()
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(found, indent=1, ensure_ascii=False))  # the whole list to fix
    assert found == {}


def test_the_skip_link_is_the_first_stop_and_moves_the_focus_to_the_content(
    signed_in_page, live_server, walk
):
    page = signed_in_page
    page.goto(f"{live_server.url}/catalog/")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.className")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    page.keyboard.press("Enter")

    assert focused == "skip-link"
    assert outline != "none"  # visible focus
    assert page.evaluate("document.activeElement.id") == "main"
