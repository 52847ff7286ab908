"""One search box: catalog projects, placement rows and the evaluations of my teams only."""

from __future__ import annotations

import pytest

from evaluations import services
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast():
    small_catalog()
    return make_cast()


def _search(client, text: str):
    response = client.get("/inbox/search/", {"q": text})
    assert response.status_code == 200
    return response


def test_it_finds_projects_by_name_and_slug(client, cast):
    client.force_login(cast.bob)
    assert [h.project.slug for h in _search(client, "Volc").context["results"].projects] == [
        "volcano"
    ]
    assert [h.project.slug for h in _search(client, "time-sl").context["results"].projects] == [
        "time-slicer"
    ]


def test_it_finds_placement_rows_by_component_and_key(client, cast):
    client.force_login(cast.bob)
    rows = _search(client, "device-plugin").context["results"].rows
    assert [hit.row.ref for hit in rows][0] == "hami/device-plugin"  # its key, then "plugin"
    rows = _search(client, "scheduler component").context["results"].rows
    assert [hit.row.ref for hit in rows][0] == "volcano/scheduler"


def test_it_finds_evaluations_of_my_teams_by_title(client, cast):
    mine = make_evaluation(cast, title="Inference pool sharing")
    client.force_login(cast.dave)
    found = _search(client, "pool sharing").context["results"].evaluations
    assert [hit.evaluation.pk for hit in found] == [mine.pk]


def test_it_never_shows_another_teams_evaluations(client, cast):
    services.evaluation_create(actor=cast.charlie, team=cast.other_team, title="Secret pool plan")
    make_evaluation(cast, title="Open pool plan")
    client.force_login(cast.bob)
    response = _search(client, "pool plan")
    assert [hit.evaluation.title for hit in response.context["results"].evaluations] == [
        "Open pool plan"
    ]
    assert "Secret pool plan" not in response.content.decode()


def test_each_group_is_capped(client, cast):
    for i in range(15):
        make_evaluation(cast, title=f"Capped evaluation {i}")
    client.force_login(cast.bob)
    assert len(_search(client, "Capped").context["results"].evaluations) == 10


def test_results_are_grouped_and_escaped(client, cast):
    apply(bundle(project("hami-extras", placement("hami-exporter", "data_plane"))))
    make_evaluation(cast, title="<script>alert(1)</script> HAMi rollout")
    client.force_login(cast.bob)
    page = _search(client, "HAMi").content.decode()
    assert 'id="projects"' in page and 'id="rows"' in page and 'id="evaluations"' in page
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; <mark>HAMi</mark> rollout" in page


def test_the_query_is_echoed_escaped_and_an_empty_result_says_so(client, cast):
    client.force_login(cast.bob)
    page = _search(client, '"><b>nothing</b>').content.decode()
    assert "<b>nothing</b>" not in page
    assert "Nothing matches" in page


def test_an_empty_query_shows_only_the_box(client, cast):
    client.force_login(cast.bob)
    response = _search(client, "   ")
    assert response.context["results"].empty
    assert "Nothing matches" not in response.content.decode()


def test_search_needs_sign_in(client):
    assert client.get("/inbox/search/?q=hami").status_code == 302


def test_it_finds_decisions_of_my_teams_by_their_rationale(client, cast):
    evaluation = fill_steps(make_evaluation(cast, title="Shared inference"), cast.bob)
    client.force_login(cast.dave)
    found = _search(client, "governs").context["results"].decisions
    assert [hit.decision.evaluation_id for hit in found] == [evaluation.pk]
    assert "<mark>governs</mark>" in found[0].excerpt


def test_it_never_finds_another_teams_decision(client, cast):
    theirs = services.evaluation_create(
        actor=cast.charlie, team=cast.other_team, title="Research cluster"
    )
    fill_steps(theirs, cast.charlie)
    client.force_login(cast.bob)
    response = _search(client, "governs")
    assert response.context["results"].decisions == []
    assert "Research cluster" not in response.content.decode()


def test_it_finds_an_evaluation_by_the_boundaries_its_team_wrote(client, cast):
    evaluation = fill_steps(make_evaluation(cast, title="Pool A"), cast.bob)
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="boundaries",
        data={
            "boundaries": [
                {"row": "hami/device-plugin", "promise": "", "non_promise": "No fencing of Xid."},
                {"row": "volcano/scheduler", "promise": "", "non_promise": ""},
            ]
        },
    )
    client.force_login(cast.bob)
    found = _search(client, "fencing").context["results"].evaluations
    assert [hit.evaluation.pk for hit in found] == [evaluation.pk]
    assert "<mark>fencing</mark>" in found[0].excerpt
