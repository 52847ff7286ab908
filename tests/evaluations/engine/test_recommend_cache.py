"""Recommendations are ranked once per (profile, catalog revision): viewers' GETs, the adopt
action, the API and the report read the cached ranking; a stopped search says so everywhere."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import include, path, reverse
from rest_framework.test import APIClient

import evaluations.engine.cli as engine_cli
import evaluations.engine.recommend as engine
from catalog.models import PlacementRow
from catalog.services import placement_row_delete
from ecomap.urls import urlpatterns as site_urlpatterns
from evaluations import selectors
from evaluations.models import Evaluation
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import MIXED_PROFILE, make_cast, make_evaluation, small_catalog

urlpatterns = [path("api/v1/", include("evaluations.api.urls")), *site_urlpatterns]

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

STOPPED = "Search stopped after 40 stacks; these are the best found so far."


@pytest.fixture
def cast(db):
    cache.clear()
    small_catalog()
    call_command("load_catalog", verbosity=0)
    yield make_cast()
    cache.clear()


@pytest.fixture
def searches(monkeypatch):
    """Every search the recommender runs, counted (the ranking itself unchanged)."""
    calls = []
    real = engine.recommend

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "recommend", counted)
    return calls


@pytest.fixture
def small_budget(monkeypatch):
    """A budget the built-in catalog outgrows: the search stops after 40 drafts."""
    real = engine.recommend

    def stopped(profile, rows, *, limit=5, budget=None):
        return real(profile, rows, limit=limit, budget=engine.Budget(drafts=40))

    monkeypatch.setattr(engine, "recommend", stopped)
    monkeypatch.setattr(engine_cli, "recommend", stopped)


def get_page(client, user, evaluation):
    client.force_login(user)
    return client.get(reverse("evaluations:recommendations", args=[evaluation.pk]))


def adopt(client, user, evaluation, data):
    client.force_login(user)
    return client.post(reverse("evaluations:decision", args=[evaluation.pk]), data)


def test_viewers_read_the_ranking_the_first_visit_made(client, cast, searches):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)

    first = get_page(client, cast.bob, evaluation).context["recommendations"]
    again = get_page(client, cast.dave, evaluation).context["recommendations"]

    assert len(searches) == 1
    assert [r.to_dict() for r in again] == [r.to_dict() for r in first]


def test_the_api_and_the_report_share_the_cached_ranking(client, cast, searches):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    page = get_page(client, cast.dave, evaluation).context["recommendations"]
    api = APIClient()
    api.force_authenticate(cast.dave)

    response = api.get(f"/api/v1/evaluations/{evaluation.pk}/recommendations/?limit=3")
    short = selectors.recommendations_for(evaluation=evaluation, limit=3)

    assert len(searches) == 1
    assert [item["rows"] for item in response.json()["stacks"]] == [r.rows for r in page[:3]]
    assert [r.rows for r in short] == [r.rows for r in page[:3]]


def test_a_changed_profile_is_ranked_again(client, cast, searches):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    get_page(client, cast.bob, evaluation)

    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="profile",
        data={**MIXED_PROFILE, "isolation": "hard"},
    )
    get_page(client, cast.dave, Evaluation.objects.get(pk=evaluation.pk))

    assert len(searches) == 2
    assert searches[1].isolation == "hard"


def test_a_changed_catalog_is_ranked_again(client, cast, searches):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    before = get_page(client, cast.bob, evaluation).context["recommendations"]
    top = before[0].rows[0]
    project, key = top.split("/")

    placement_row_delete(row=PlacementRow.objects.get(project__slug=project, key=key))
    after = get_page(client, cast.dave, evaluation).context["recommendations"]

    assert len(searches) == 2
    assert all(top not in r.rows for r in after)


def test_the_adopt_action_takes_the_stack_the_page_showed(client, cast, monkeypatch):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    shown = get_page(client, cast.bob, evaluation).context["recommendations"]

    def no_search(*args, **kwargs):
        raise AssertionError("the adopt action searched again instead of reading the cache")

    monkeypatch.setattr(engine, "recommend", no_search)
    response = adopt(
        client, cast.bob, evaluation, {"adopt": "2", "adopt_rows": ",".join(shown[1].rows)}
    )

    assert response.status_code == 302
    decision = Evaluation.objects.get(pk=evaluation.pk).decision
    assert decision.rows == shown[1].rows
    assert decision.pools == shown[1].pools


def test_a_stack_no_longer_at_that_rank_is_not_adopted(client, cast):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    shown = get_page(client, cast.bob, evaluation).context["recommendations"]

    response = adopt(
        client, cast.bob, evaluation, {"adopt": "1", "adopt_rows": ",".join(shown[1].rows)}
    )

    assert response.status_code == 400
    assert "no longer offered" in response.content.decode()
    assert not hasattr(Evaluation.objects.get(pk=evaluation.pk), "decision")


def test_the_page_posts_the_stack_it_shows_with_its_rank(client, cast):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)

    response = get_page(client, cast.bob, evaluation)

    first = response.context["recommendations"][0]
    content = response.content.decode()
    assert f'name="adopt_rows" value="{",".join(first.rows)}"' in content
    assert "search-stopped" not in content


def test_a_stopped_search_says_so_on_the_page(client, cast, small_budget):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)

    response = get_page(client, cast.dave, evaluation)

    assert response.context["recommendations"]
    assert STOPPED in response.content.decode()


def test_a_stopped_search_says_so_in_chinese_too(client, cast, small_budget):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    client.cookies.load({"django_language": "zh-hans"})

    content = get_page(client, cast.dave, evaluation).content.decode()

    assert 'class="alert alert-warn search-stopped"' in content  # said, translated or not


def test_the_api_says_in_its_headers_whether_the_search_ran_to_the_end(cast, small_budget):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    api = APIClient()
    api.force_authenticate(cast.dave)

    response = api.get(f"/api/v1/evaluations/{evaluation.pk}/recommendations/")

    assert response.status_code == 200
    assert isinstance(response.json()["stacks"], list)
    assert STOPPED in response.json()["notes"]
    assert response["X-Search-Complete"] == "false"
    assert response["X-Search-Examined"] == "40"
    assert response["X-Search-Note"] == STOPPED


def test_the_api_says_a_complete_search_is_complete(cast):
    evaluation = make_evaluation(cast, profile=MIXED_PROFILE)
    api = APIClient()
    api.force_authenticate(cast.dave)

    response = api.get(f"/api/v1/evaluations/{evaluation.pk}/recommendations/")

    assert response["X-Search-Complete"] == "true"
    assert int(response["X-Search-Examined"]) > 0
    assert "X-Search-Note" not in response


def test_the_command_says_a_stopped_search_stopped(cast, small_budget, tmp_path, capsys):
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(MIXED_PROFILE))

    call_command("recommend", str(profile))
    text = capsys.readouterr().out
    call_command("recommend", str(profile), "--json")
    captured = capsys.readouterr()

    assert STOPPED in text
    assert json.loads(captured.out)  # stdout stays one JSON document
    assert STOPPED in captured.err
