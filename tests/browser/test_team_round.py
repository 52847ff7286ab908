"""The whole team round of issue 42 in a browser, in English and in Chinese: an author asks two
reviewers of a team whose policy needs two approvals; one leaves a comment on step 1; the other
cannot approve while it is open, overrides it explicitly and approves; the author's inbox shows
the comment and the approval, the first reviewer's the other's approval; she resolves her
comment and her approval completes the policy. Then the Chinese PDF is read back with pdftotext
for strings left in English."""

from __future__ import annotations

import re
import subprocess

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from evaluations.approvals.services import approval_policy_set
from evaluations.models import Evaluation, State
from evaluations.notifications.models import Notification
from evaluations.review.models import CommentOverride
from evaluations.services import evaluation_create
from evaluations.steps.services import evaluation_step_save
from evaluations.teams.choices import Role
from evaluations.teams.services import membership_set, team_create
from tests.browser.test_team_review_flow import fill_remaining_steps, open_as, watch
from tests.evaluations.factories import MIXED_PROFILE, small_catalog
from tests.factories import make_user

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

TITLE = "Three tenants of the hospital on A100"
COMMENT = "Who owns the MIG geometry between the radiology and ICU tenants?"
PO = "locale/zh_Hans/LC_MESSAGES/django.po"


def _team():
    small_catalog()
    alice = make_user("alice", email="alice@example.org")
    team = team_create(name="Hospital", slug="hospital", admin=alice)
    people = {"alice": alice}
    for name, role in (("erin", Role.EDITOR), ("rita", Role.REVIEWER), ("omar", Role.REVIEWER)):
        people[name] = make_user(name, email=f"{name}@example.org")
        membership_set(team=team, user=people[name], role=role)
    approval_policy_set(team=team, actor=alice, required_approvals=2, rules=[])
    evaluation = evaluation_create(actor=people["erin"], team=team, title=TITLE)
    evaluation_step_save(
        evaluation=evaluation, actor=people["erin"], step="profile", data=MIXED_PROFILE
    )
    fill_remaining_steps(evaluation, people["erin"])
    return people, Evaluation.objects.get(pk=evaluation.pk)


def _events(page) -> list[str]:
    return page.locator(".notification").evaluate_all(
        "items => items.map(item => item.dataset.event)"
    )


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_team_round_with_two_reviewers_an_open_comment_and_a_two_approval_policy(
    browser, live_server, language, screenshot
):
    people, evaluation = _team()
    errors: list[str] = []
    url = f"{live_server.url}/evaluations/{evaluation.pk}/"
    pages = {}
    for name in ("erin", "rita", "omar"):
        pages[name] = open_as(browser, live_server, language, people[name])
        watch(pages[name], errors)
    erin, rita, omar = pages["erin"], pages["rita"], pages["omar"]

    # The author submits and asks both reviewers.
    erin.goto(url)
    expect(erin.locator("html")).to_have_attribute("lang", language)
    erin.click(f"form[action='/evaluations/{evaluation.pk}/submit/'] button")
    expect(erin.locator(".eval-head .state")).to_have_attribute("data-state", "in_review")
    for reviewer in ("rita", "omar"):
        erin.select_option("#review-request-reviewer", str(people[reviewer].pk))
        erin.click(".review-request-form button[type=submit]")
        expect(erin.locator("#approval")).to_contain_text(reviewer)

    # One reviewer leaves a comment on step 1; it stays open.
    rita.goto(f"{url}steps/1/")
    rita.fill("#comment-body", COMMENT)
    rita.click(".comment-form button[type=submit]")
    expect(rita.locator("#comments [data-open-count]")).to_have_attribute("data-open-count", "1")

    # The other sees it listed on the review panel and cannot approve past it unnoticed.
    omar.goto(url)
    overrides = omar.locator(".open-comment-overrides")
    expect(overrides).to_contain_text(COMMENT)
    omar.check("input[name=verdict][value=approve]")
    omar.click(".review-form button[type=submit]")
    expect(omar.locator(".message-error")).to_contain_text(COMMENT[:40])
    expect(omar.locator(".eval-head .state")).to_have_attribute("data-state", "in_review")
    screenshot(omar, f"team-round-open-comment-{language}", full_page=True)
    omar.check("input[name=verdict][value=approve]")
    omar.check(".open-comment-overrides input[name=override_comments]")
    omar.click(".review-form button[type=submit]")
    expect(omar.locator("#approval")).to_contain_text("omar")
    expect(omar.locator(".eval-head .state")).to_have_attribute("data-state", "in_review")
    override = CommentOverride.objects.get()
    assert (override.approver, override.comment.body) == (people["omar"], COMMENT)

    # Inbox items on both sides: the author hears of the comment and the first approval, the
    # first reviewer of the other's approval and of the requests.
    erin.goto(f"{live_server.url}/inbox/")
    assert {"commented", "approval_recorded"} <= set(_events(erin))
    screenshot(erin, f"team-round-author-inbox-{language}", full_page=True)
    rita.goto(f"{live_server.url}/inbox/")
    assert {"review_requested", "approval_recorded"} <= set(_events(rita))

    # She resolves her comment; her approval meets the policy of two.
    rita.goto(f"{url}steps/1/")
    rita.locator("#comments .comment-resolve button").click()
    expect(rita.locator("#comments [data-open-count]")).to_have_attribute("data-open-count", "0")
    rita.goto(url)
    expect(rita.locator(".open-comment-overrides")).to_have_count(0)
    rita.check("input[name=verdict][value=approve]")
    rita.click(".review-form button[type=submit]")
    expect(rita.locator(".eval-head .state")).to_have_attribute("data-state", "approved")
    screenshot(rita, f"team-round-approved-{language}", full_page=True)
    assert Notification.objects.filter(recipient=people["erin"], event="approved").exists()
    assert Notification.objects.filter(recipient=people["omar"], event="approved").exists()
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED
    assert errors == []


def _pdf_text(evaluation: Evaluation, language: str, tmp_path) -> str:
    path = tmp_path / f"report-{language}.pdf"
    call_command("export_report", evaluation.pk, str(path), language=language)
    text = subprocess.run(  # noqa: S603 (fixed program, our own file)
        ["/usr/bin/pdftotext", "-layout", str(path), "-"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return " ".join(text.split())


def _po_pairs() -> list[tuple[str, str]]:
    """(msgid, msgstr) of the Chinese catalog's singular entries, wrapped lines joined."""
    entry = re.compile(r'^msgid ((?:".*"\n)+)msgstr ((?:".*"\n?)+)', flags=re.MULTILINE)
    text = open(PO, encoding="utf-8").read()  # noqa: PTH123, SIM115

    def joined(quoted: str) -> str:
        return "".join(re.findall(r'"(.*)"', quoted)).replace('\\"', '"')

    return [(joined(m[1]), joined(m[2])) for m in entry.finditer(text)]


def _translated_msgids() -> list[str]:
    """The catalog's msgids that have a Chinese translation (placeholders left out), longest
    first."""
    pairs = [(msgid, msgstr) for msgid, msgstr in _po_pairs() if msgid and msgstr]
    return sorted(
        {
            msgid
            for msgid, msgstr in pairs
            if len(msgid) >= 12 and "%" not in msgid and "{" not in msgid and msgid != msgstr
        },
        key=len,
        reverse=True,
    )


def test_the_chinese_pdf_has_no_untranslated_interface_strings(tmp_path):
    people, evaluation = _team()
    english = _pdf_text(evaluation, "en", tmp_path)
    chinese = _pdf_text(evaluation, "zh-hans", tmp_path)

    used = [msgid for msgid in _translated_msgids() if msgid in english]
    left = [msgid for msgid in used if msgid in chinese]

    assert len(used) > 10  # the English report does say the interface's sentences
    assert left == []
    assert TITLE in chinese
