"""The team flow of issue 18 end to end, in English and in Chinese: an admin invites a reviewer,
an editor files the evaluation and submits it, the reviewer is notified (inbox and e-mail),
comments on step 1 and requests changes, the editor fixes step 1 and resolves the comment, the
reviewer approves and the decision is exported as an ADR."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from playwright.sync_api import expect

from evaluations.decisions.services import evaluation_decide
from evaluations.models import Evaluation, State
from evaluations.notifications.models import Notification
from evaluations.review.models import Comment
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.models import Membership
from evaluations.teams.services import membership_set, team_create
from tests.evaluations.factories import small_catalog
from tests.factories import make_user

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

# What each language shows for the few texts the test reads (the rest goes by selectors).
WORDS = {
    "en": {"inbox": "Inbox", "join": "Join Platform", "submitted": "submitted for review"},
    "zh-hans": {"inbox": "收件箱", "join": "加入 Platform", "submitted": "提交了评审"},
}


def open_as(browser, live_server, language: str, user=None, *, width: int = 1280):
    """A fresh browser context in `language`, signed in as `user` when one is given."""
    context = browser.new_context(viewport={"width": width, "height": 1000})
    cookies = [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}]
    if user is not None:
        client = Client()
        client.force_login(user)
        cookies.append(
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        )
    context.add_cookies(cookies)
    return context.new_page()


def watch(page, errors: list[str]) -> None:
    page.on("console", lambda m: m.type == "error" and errors.append(f"{page.url}: {m.text}"))
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_team_reviews_an_evaluation_from_invitation_to_adr(
    browser, live_server, language, screenshot
):
    small_catalog()
    alice = make_user("alice", email="alice@example.org")
    team = team_create(name="Platform", slug="platform", admin=alice)
    erin = make_user("erin", email="erin@example.org")
    membership_set(team=team, user=erin, role=Role.EDITOR)
    words = WORDS[language]
    errors: list[str] = []

    # 1. The team admin invites a reviewer who has no account yet.
    admin = open_as(browser, live_server, language, alice)
    watch(admin, errors)
    admin.goto(f"{live_server.url}/teams/platform/")
    expect(admin.locator("html")).to_have_attribute("lang", language)
    admin.fill("#invite input[name=email]", "rita@example.org")
    admin.select_option("#invite select[name=role]", "reviewer")
    admin.click("#invite button[type=submit]")
    link = admin.locator(".team-invite-link input").input_value()
    assert [m.to for m in mail.outbox] == [["rita@example.org"]]
    assert link in mail.outbox[0].body

    # 2. She opens the link, chooses a username and a password, and is a reviewer of the team.
    rita = open_as(browser, live_server, language)
    watch(rita, errors)
    rita.goto(link)
    expect(rita.locator("h1")).to_contain_text(words["join"])
    rita.fill("input[name=username]", "rita")
    rita.fill("input[name=password1]", "night shift 2027 pass")
    rita.fill("input[name=password2]", "night shift 2027 pass")
    rita.click("form.team-signup button[type=submit]")
    rita.wait_for_url(re.compile(r"/teams/platform/$"))
    expect(rita.locator('[data-member="rita"]')).to_be_visible()
    assert Membership.objects.get(team=team, user__username="rita").role == Role.REVIEWER

    # 3. The editor files the evaluation: the title and step 1 in the browser, then the steps
    # the whole-evaluation browser test already drives (tests/browser/test_evaluation_flow.py).
    editor = open_as(browser, live_server, language, erin)
    watch(editor, errors)
    editor.goto(f"{live_server.url}/evaluations/")
    editor.fill("#new-evaluation input[name=title]", "Multi-tenant LLM inference on A100")
    editor.click("#new-evaluation button[type=submit]")
    editor.wait_for_url(re.compile(r"/steps/1/$"))
    evaluation = Evaluation.objects.get(title="Multi-tenant LLM inference on A100")
    editor.check("input[name=workload_types][value=training]")
    editor.check("input[name=workload_types][value=online_inference]")
    editor.select_option("#id_primary_objective", "p99_latency")
    editor.fill("#id_p99_target_ms", "2000")
    editor.select_option("#id_jitter_tolerance", "low")
    editor.select_option("#id_isolation", "soft")
    editor.select_option("#id_failure_semantics", "incident")
    editor.select_option("#id_tenancy", "multi")
    editor.select_option("#id_priority_1", "isolation")
    editor.select_option("#id_priority_2", "observability")
    editor.select_option("#id_priority_3", "cost")
    editor.select_option("#id_priority_4", "compatibility")
    editor.click(".step-buttons button[name=go][value=stay]")
    editor.wait_for_load_state("domcontentloaded")
    evaluation.refresh_from_db()
    assert evaluation.profile["p99_target_ms"] == 2000
    fill_remaining_steps(evaluation, erin)

    editor.goto(f"{live_server.url}/evaluations/{evaluation.pk}/")
    editor.click(f"form[action='/evaluations/{evaluation.pk}/submit/'] button")
    expect(editor.locator(".eval-head .state")).to_have_attribute("data-state", "in_review")

    # 4. The reviewer is told: by e-mail and in her inbox, whose badge counts it.
    assert any(m.to == ["rita@example.org"] for m in mail.outbox[1:])
    rita.goto(f"{live_server.url}/")
    expect(rita.locator(".mainnav .count-badge")).to_have_text("1")
    rita.click(".mainnav a.nav-inbox")
    expect(rita.locator("h1")).to_have_text(words["inbox"])
    expect(rita.locator("#to-review")).to_contain_text("Multi-tenant LLM inference on A100")
    notice = rita.locator(".notification.is-unread").first
    expect(notice).to_contain_text(words["submitted"])
    screenshot(rita, f"team-flow-inbox-{language}", full_page=True)
    notice.locator("a").first.click()
    rita.wait_for_url(re.compile(rf"/evaluations/{evaluation.pk}/"))

    # 5. She comments on step 1 and requests changes; she is not offered "Submit for review".
    rita.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")
    rita.fill("#comment-body", "A P99 of 2000 ms is not interactive; did you mean 200 ms?")
    rita.click(".comment-form button[type=submit]")
    expect(rita.locator("#comments [data-open-count]")).to_have_attribute("data-open-count", "1")
    screenshot(rita, f"team-flow-comment-{language}", full_page=True)
    rita.goto(f"{live_server.url}/evaluations/{evaluation.pk}/")
    rita.check("input[name=verdict][value=request_changes]")
    rita.click(".review-form button[type=submit]")
    expect(rita.locator(".eval-head .state")).to_have_attribute("data-state", "changes_requested")
    expect(rita.locator(f"form[action='/evaluations/{evaluation.pk}/submit/']")).to_have_count(0)

    # 6. The editor is told, reads the comment on step 1, fixes the target, resolves the
    # comment and submits again.
    assert Notification.objects.filter(recipient=erin, event="changes_requested").exists()
    editor.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/1/")
    expect(editor.locator("#comments .comment")).to_contain_text("did you mean 200 ms?")
    editor.fill("#id_p99_target_ms", "200")
    editor.click(".step-buttons button[name=go][value=stay]")
    editor.wait_for_load_state("domcontentloaded")
    editor.locator("#comments .comment-resolve button").click()
    expect(editor.locator("#comments [data-open-count]")).to_have_attribute("data-open-count", "0")
    editor.goto(f"{live_server.url}/evaluations/{evaluation.pk}/")
    editor.click(f"form[action='/evaluations/{evaluation.pk}/submit/'] button")
    expect(editor.locator(".eval-head .state")).to_have_attribute("data-state", "in_review")
    evaluation.refresh_from_db()
    assert evaluation.profile["p99_target_ms"] == 200
    assert Comment.objects.get(evaluation=evaluation).resolved_by == erin

    # 7. The reviewer approves.
    rita.goto(f"{live_server.url}/evaluations/{evaluation.pk}/")
    rita.check("input[name=verdict][value=approve]")
    rita.click(".review-form button[type=submit]")
    expect(rita.locator(".eval-head .state")).to_have_attribute("data-state", "approved")
    assert Notification.objects.filter(recipient=erin, event="approved").exists()

    # 8. The decision is exported as a Markdown ADR from the decision page.
    editor.goto(f"{live_server.url}/evaluations/{evaluation.pk}/decision/")
    with editor.expect_download() as download:
        editor.click("a[href$='/adr.md']")
    adr = Path(download.value.path()).read_text(encoding="utf-8")
    assert adr.startswith("# ")
    assert "Multi-tenant LLM inference on A100" in adr
    assert "HAMi" in adr and "Volcano" in adr
    assert "200" in adr  # the fixed P99 target is a decision driver
    assert re.search(r"^## ", adr, flags=re.MULTILINE)
    screenshot(editor, f"team-flow-decision-{language}", full_page=True)

    evaluation.refresh_from_db()
    assert evaluation.state == State.APPROVED
    assert errors == []


def fill_remaining_steps(evaluation: Evaluation, actor) -> None:
    """Steps 2–4 and the decision through the services the pages call."""
    save = evaluation_step_save
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    save(
        evaluation=evaluation,
        actor=actor,
        step="units",
        data={"units": [{"unit": "memory_compute_quota", "note": "shared inference pool"}]},
    )
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    save(
        evaluation=evaluation,
        actor=actor,
        step="candidates",
        data={
            "candidates": [
                {"row": "hami/device-plugin", "points_confirmed": True},
                {"row": "volcano/scheduler", "points_confirmed": True},
            ]
        },
    )
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    boundaries = [
        {"row": c.row.ref, "promise": c.boundary_promise, "non_promise": c.boundary_non_promise}
        for c in evaluation.candidates.select_related("row__project")
    ]
    save(evaluation=evaluation, actor=actor, step="boundaries", data={"boundaries": boundaries})
    evaluation_decide(
        evaluation=Evaluation.objects.get(pk=evaluation.pk),
        actor=actor,
        rows=["hami/device-plugin", "volcano/scheduler"],
        rationale="HAMi shares the GPUs by memory, Volcano governs the tenants' queues.",
        risks="Statically linked CUDA escapes HAMi's limits.\nA queue without quota starves.",
        acceptance_checks="P99 below 200 ms under load\nNo tenant above its quota",
    )
