"""The recommendations page draws its ranked stacks once and serves them from the cache
(ecomap.fragments): what each reader may do, their language, their CSRF token and the latest
capacity run must still be theirs and current."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from ecomap.fragments import CSRF_PLACEHOLDER
from evaluations.models import Evaluation
from evaluations.simulations.models import CapacityRun
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import MIXED_PROFILE, make_cast, make_evaluation
from tests.evaluations.simulations.test_capacity_pages import BOARD_PROFILE

pytestmark = pytest.mark.django_db

ADOPT = "Use as decision"


@pytest.fixture
def cast(db):
    call_command("load_catalog", verbosity=0)
    return make_cast()


def recommendations(client: Client, user, evaluation, language: str = "en") -> str:
    client.force_login(user)
    client.cookies.load({"django_language": language})
    response = client.get(reverse("evaluations:recommendations", args=[evaluation.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_stack_adopted_from_a_page_another_editor_drew_passes_the_csrf_check(cast):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    recommendations(Client(enforce_csrf_checks=True), cast.alice, evaluation)  # draws, caches

    bob = Client(enforce_csrf_checks=True)
    content = recommendations(bob, cast.bob, evaluation)
    assert CSRF_PLACEHOLDER not in content
    form = re.search(
        r'<form method="post" action="([^"]+)">.*?name="csrfmiddlewaretoken" value="([^"]+)">'
        r'.*?name="adopt_rows" value="([^"]+)">.*?name="adopt" value="(\d+)"',
        content,
    )
    assert form, "no adopt form on the page"
    action, token, rows, rank = form.groups()
    response = bob.post(action, {"csrfmiddlewaretoken": token, "adopt_rows": rows, "adopt": rank})

    assert response.status_code == 302, response.content[:300]
    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert ",".join(decision.rows) == rows.replace("&#x27;", "'")


def test_a_viewer_never_gets_the_adopt_button_an_editor_was_shown(client, cast):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)

    assert ADOPT in recommendations(client, cast.bob, evaluation)  # editor first: cached
    content = recommendations(client, cast.dave, evaluation)  # viewer

    assert "Shape C" in content
    assert ADOPT not in content
    assert ADOPT in recommendations(client, cast.bob, evaluation)


def test_each_reader_reads_the_stacks_in_their_language(client, cast):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)

    english = recommendations(client, cast.bob, evaluation)
    chinese = recommendations(client, cast.bob, evaluation, "zh-hans")

    assert "What fits" in english and "训练、推理与交互式工作混合" not in english
    assert "训练、推理与交互式工作混合，按节点池拆分" in chinese
    assert "What fits" not in chinese


def test_a_changed_profile_is_ranked_again_not_served_from_the_earlier_drawing(client, cast):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    before = recommendations(client, cast.bob, evaluation)
    assert "Shape C" in before

    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="profile",
        data={**MIXED_PROFILE, "workload_types": ["training"]},
    )
    after = recommendations(client, cast.bob, Evaluation.objects.get(pk=evaluation.pk))

    assert "Shape C" not in after


def test_a_finished_capacity_run_shows_on_a_page_drawn_before_it(
    client, cast, django_capture_on_commit_callbacks
):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    before = recommendations(client, cast.dave, evaluation)
    assert "data-capacity-stack=" not in before
    assert "vendor/plotly/plotly.min.js" not in before

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("capacity:request", args=[evaluation.pk]), {"back": "x"})
    assert CapacityRun.objects.get(evaluation=evaluation).status == "succeeded"
    after = recommendations(client, cast.dave, evaluation)
    again = recommendations(client, cast.dave, evaluation)  # now from the cache

    for content in (after, again):
        assert 'data-capacity-status="succeeded"' in content
        assert "data-capacity-stack=" in content
        assert "vendor/plotly/plotly.min.js" in content  # the figure's scripts, cached or not


def test_a_pending_run_is_drawn_afresh_so_its_progress_moves(client, cast):
    evaluation = make_evaluation(cast, profile=BOARD_PROFILE)
    from evaluations.simulations.selectors import capacity_input

    key, revision = capacity_input(evaluation)
    run = CapacityRun.objects.create(
        evaluation=evaluation, key=key, catalog_revision=revision, progress=10
    )
    assert "data-capacity-progress>10<" in recommendations(client, cast.dave, evaluation)

    CapacityRun.objects.filter(pk=run.pk).update(status="running", progress=64)

    assert "data-capacity-progress>64<" in recommendations(client, cast.dave, evaluation)
