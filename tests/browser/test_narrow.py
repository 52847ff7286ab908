"""At 390 px (a phone) no page scrolls sideways, in English and in Chinese, and none logs a
console error: wide tables scroll inside their own box, step tabs wrap between words."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from evaluations.models import Evaluation

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

WIDTH = 390


@pytest.fixture
def evaluation(bob):
    """The demo's sample evaluation (all four steps filled), bob its team's admin."""
    call_command("load_catalog", verbosity=0)
    call_command("seed_demo_team", bob.username, verbosity=0)
    return Evaluation.objects.get(state="draft")


def language_cookie(page, live_server, language: str) -> None:
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )


def pages(evaluation: Evaluation) -> list[str]:
    base = f"/evaluations/{evaluation.pk}"
    return [
        "/catalog/",
        "/catalog/?layer=data_plane&unit=mig_slice",
        "/catalog/projects/hami/",
        "/catalog/coverage/",
        "/map/",
        "/matrix/",
        "/matrix/pair/?a=hami/device-plugin&b=nvidia-device-plugin/mps",
        "/evaluations/",
        f"{base}/",
        *[f"{base}/steps/{number}/" for number in (1, 2, 3, 4)],
        f"{base}/comparison/",
        f"{base}/recommendations/",
        f"{base}/decision/",
        "/catalog/imports/",
        "/account/token/",
        "/",
        "/inbox/",
        "/inbox/search/?q=hami",
        "/teams/",
        "/teams/platform-team/",
        # the demo's approved evaluation: its decision and comments
        *[f"/evaluations/{e.pk}/decision/" for e in Evaluation.objects.filter(state="approved")],
    ]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_no_page_scrolls_sideways_at_390_px(
    signed_in_page, live_server, evaluation, console_errors, language
):
    page = signed_in_page
    page.set_viewport_size({"width": WIDTH, "height": 900})
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    too_wide, failed = {}, {}
    for path in pages(evaluation):
        response = page.goto(live_server.url + path)
        page.wait_for_load_state("load")
        assert response.status == 200, path
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > WIDTH:
            too_wide[path] = width
        if console_errors:
            failed[path] = list(console_errors)
            console_errors.clear()
    assert page.evaluate("document.documentElement.lang") == language

    assert too_wide == {}
    assert failed == {}


def test_step_tabs_never_break_inside_a_word(signed_in_page, live_server, evaluation):
    page = signed_in_page
    page.set_viewport_size({"width": WIDTH, "height": 900})
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/steps/2/")

    broken = page.evaluate(
        """() => [...document.querySelectorAll('.eval-progress-label')].filter(label => {
            const lineHeight = parseFloat(getComputedStyle(label).lineHeight);
            const words = label.textContent.trim().split(/\\s+/).length;
            return words === 1 && label.getBoundingClientRect().height > lineHeight * 1.5;
        }).map(label => label.textContent.trim())"""
    )

    assert broken == []


def test_the_chinese_search_button_stays_on_one_line(signed_in_page, live_server, evaluation):
    page = signed_in_page
    page.set_viewport_size({"width": WIDTH, "height": 900})
    page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/catalog/")

    button = page.locator("form.search button[type=submit]")
    box = button.bounding_box()
    line_height = float(button.evaluate("b => parseFloat(getComputedStyle(b).lineHeight)"))

    assert box["height"] < line_height * 2
