"""Step 3's JSON endpoints: search as you type, add and remove a candidate. Who may, what a
stale revision gets, and that catalog text arrives as text."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evaluations.models import Evaluation
from evaluations.steps.candidates import MAX_QUERY
from evaluations.steps.forms import NAMED_GROUP, alternative_group_choices
from evaluations.steps.services import evaluation_candidate_add, evaluation_step_save
from tests.evaluations.factories import make_cast, make_evaluation, small_catalog
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db

HOSTILE = '<img src=x onerror="alert(1)" id="injected">'


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return make_evaluation(cast)


def url(name: str, evaluation, *args) -> str:
    return reverse(f"evaluations:{name}", args=[evaluation.pk, *args])


def add(client, evaluation, row: str, revision: int | None = None):
    revision = Evaluation.objects.get(pk=evaluation.pk).revision if revision is None else revision
    return client.post(url("candidate-add", evaluation), {"row": row, "revision": revision})


def refs(evaluation) -> list[str]:
    return [c.row.ref for c in Evaluation.objects.get(pk=evaluation.pk).candidates.all()]


# Search


def test_the_search_answers_rows_with_layer_units_and_functions(client, cast, evaluation):
    client.force_login(cast.dave)  # reading the catalog needs no editor role

    response = client.get(url("candidate-search", evaluation), {"q": "volcano"})

    assert response.status_code == 200
    assert response.json()["results"] == [
        {
            "ref": "volcano/scheduler",
            "project": "Volcano",
            "component": "scheduler component",
            "layer": "control_plane",
            "layer_label": "Control plane",
            "units": ["Whole GPU", "Memory + compute quota"],
            "functions": ["Quota", "Gang scheduling"],
            "added": False,
        }
    ]


def test_the_search_puts_the_project_named_before_those_that_mention_it(client, cast, evaluation):
    apply(bundle(project("aaa-queues", placement("main"), description="Runs jobs on Volcano.")))
    client.force_login(cast.bob)

    results = client.get(url("candidate-search", evaluation), {"q": "volcano"}).json()["results"]

    assert [r["ref"] for r in results] == ["volcano/scheduler", "aaa-queues/main"]


def test_the_search_marks_rows_already_added(client, cast, evaluation):
    evaluation_candidate_add(evaluation=evaluation, actor=cast.bob, row="hami/device-plugin")
    client.force_login(cast.bob)

    results = client.get(url("candidate-search", evaluation), {"q": "hami"}).json()["results"]

    assert [(r["ref"], r["added"]) for r in results] == [("hami/device-plugin", True)]


def test_the_search_is_capped_and_says_that_more_match(client, cast, evaluation):
    apply(bundle(*(project(f"bulk-{n:02d}", placement("main")) for n in range(30))))
    client.force_login(cast.bob)

    body = client.get(url("candidate-search", evaluation), {"q": "bulk"}).json()

    assert len(body["results"]) == 25
    assert body["more"] is True
    assert body["results"][0]["ref"] == "bulk-00/main"


def test_an_empty_or_overlong_search_is_answered_not_refused(client, cast, evaluation):
    client.force_login(cast.bob)

    empty = client.get(url("candidate-search", evaluation), {"q": "  "})
    long = client.get(url("candidate-search", evaluation), {"q": "x" * (MAX_QUERY * 5)})

    assert empty.json() == {"query": "", "more": False, "results": []}
    assert long.status_code == 200 and len(long.json()["query"]) == MAX_QUERY


def test_catalog_text_shaped_like_markup_arrives_as_text(client, cast, evaluation):
    apply(bundle(project("evil", placement("main", component=HOSTILE), name=HOSTILE)))
    client.force_login(cast.bob)

    result = client.get(url("candidate-search", evaluation), {"q": "evil"}).json()["results"][0]
    page = client.get(url("step", evaluation, 3), {"q": "evil"}).content.decode()
    fragment = add(client, evaluation, "evil/main").json()["html"]

    assert result["project"] == HOSTILE  # data; candidates.js sets it as textContent
    for html in (page, fragment):
        assert HOSTILE not in html
        assert "&lt;img src=x onerror=&quot;alert(1)&quot; id=&quot;injected&quot;&gt;" in html


# Add


def test_an_editor_adds_a_candidate_and_gets_its_row_and_the_new_revision(client, cast, evaluation):
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    client.force_login(cast.bob)

    response = add(client, evaluation, "volcano/scheduler", loaded)

    assert response.status_code == 201
    body = response.json()
    candidate = Evaluation.objects.get(pk=evaluation.pk).candidates.get()
    assert body["revision"] == loaded + 1
    assert body["candidate"] == candidate.pk and body["done"] is False
    assert 'data-candidate="volcano/scheduler"' in body["html"]
    assert f'name="points_{candidate.pk}"' in body["html"]
    assert "data-suggestions" in body["suggestions"]
    assert {p.key for p in candidate.enforcement_points.all()} == {"scheduler", "admission"}


def test_adding_a_row_twice_keeps_one_candidate(client, cast, evaluation):
    client.force_login(cast.bob)

    add(client, evaluation, "volcano/scheduler")
    again = add(client, evaluation, "volcano/scheduler")

    assert again.status_code == 201
    assert refs(evaluation) == ["volcano/scheduler"]


def test_a_row_not_in_the_catalog_is_refused(client, cast, evaluation):
    client.force_login(cast.bob)

    response = add(client, evaluation, "nope/missing")

    assert response.status_code == 400
    assert "Not in the catalog: nope/missing" in response.json()["detail"]
    assert refs(evaluation) == []


def test_a_viewer_cannot_add_a_candidate(client, cast, evaluation):
    client.force_login(cast.dave)

    response = add(client, evaluation, "volcano/scheduler")

    assert response.status_code == 403
    assert "editor role" in response.json()["detail"]
    assert refs(evaluation) == []


def test_another_teams_evaluation_is_not_found(client, cast, evaluation):
    evaluation_candidate_add(evaluation=evaluation, actor=cast.bob, row="hami/device-plugin")
    candidate = Evaluation.objects.get(pk=evaluation.pk).candidates.get()
    client.force_login(cast.charlie)

    search = client.get(url("candidate-search", evaluation), {"q": "hami"})
    added = add(client, evaluation, "volcano/scheduler")
    removed = client.post(url("candidate-remove", evaluation, candidate.pk), {"revision": 1})

    assert (search.status_code, added.status_code, removed.status_code) == (404, 404, 404)
    assert refs(evaluation) == ["hami/device-plugin"]


def test_an_add_made_on_a_revision_someone_else_saved_over_is_a_conflict(client, cast, evaluation):
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    evaluation_step_save(
        evaluation=evaluation, actor=cast.alice, step="profile", data={"tenancy": "multi"}
    )
    client.force_login(cast.bob)

    response = add(client, evaluation, "volcano/scheduler", loaded)

    assert response.status_code == 409
    assert response.json()["revision"] == loaded + 1
    assert "alice-admin saved this evaluation" in response.json()["detail"]
    assert refs(evaluation) == []


def test_ones_own_adds_on_the_same_loaded_revision_are_no_conflict(client, cast, evaluation):
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    client.force_login(cast.bob)

    first = add(client, evaluation, "hami/device-plugin", loaded)
    second = add(client, evaluation, "volcano/scheduler", loaded)

    assert (first.status_code, second.status_code) == (201, 201)
    assert refs(evaluation) == ["hami/device-plugin", "volcano/scheduler"]


def test_an_add_needs_a_post(client, cast, evaluation):
    client.force_login(cast.bob)

    assert (
        client.get(url("candidate-add", evaluation), {"row": "hami/device-plugin"}).status_code
        == 405
    )


def test_the_page_without_javascript_adds_with_the_revision_and_says_so_on_a_conflict(
    client, cast, evaluation
):
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    evaluation_step_save(
        evaluation=evaluation, actor=cast.alice, step="profile", data={"tenancy": "multi"}
    )
    client.force_login(cast.bob)

    response = client.post(
        url("step", evaluation, 3), {"add": "volcano/scheduler", "revision": loaded, "q": "vol"},
        follow=True,
    )  # fmt: skip

    assert response.redirect_chain[-1][0].endswith("/steps/3/?q=vol")
    assert "alice-admin saved this evaluation" in response.content.decode()
    assert refs(evaluation) == []


# Remove


@pytest.fixture
def two_candidates(cast, evaluation):
    evaluation_step_save(
        evaluation=evaluation,
        actor=cast.bob,
        step="candidates",
        data={
            "candidates": [
                {"row": "hami/device-plugin", "points_confirmed": True, "alternative_group": "A",
                 "enforcement_points": ["runtime_interception"]},
                {"row": "volcano/scheduler", "points_confirmed": True},
            ]
        },
    )  # fmt: skip
    return {c.row.ref: c for c in Evaluation.objects.get(pk=evaluation.pk).candidates.all()}


def test_removing_a_candidate_keeps_the_others_as_stored(client, cast, evaluation, two_candidates):
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    client.force_login(cast.bob)

    response = client.post(
        url("candidate-remove", evaluation, two_candidates["volcano/scheduler"].pk),
        {"revision": loaded},
    )

    assert response.status_code == 200
    assert response.json()["revision"] == loaded + 1 and response.json()["done"] is True
    kept = Evaluation.objects.get(pk=evaluation.pk).candidates.get()
    assert kept.row.ref == "hami/device-plugin"
    assert (kept.points_confirmed, kept.alternative_group) == (True, "A")
    assert [p.key for p in kept.enforcement_points.all()] == ["runtime_interception"]


def test_a_viewer_cannot_remove_a_candidate(client, cast, evaluation, two_candidates):
    client.force_login(cast.dave)

    response = client.post(
        url("candidate-remove", evaluation, two_candidates["volcano/scheduler"].pk),
        {"revision": Evaluation.objects.get(pk=evaluation.pk).revision},
    )

    assert response.status_code == 403
    assert len(refs(evaluation)) == 2


def test_a_remove_on_a_stale_revision_is_a_conflict(client, cast, evaluation, two_candidates):
    loaded = Evaluation.objects.get(pk=evaluation.pk).revision
    evaluation_candidate_add(evaluation=evaluation, actor=cast.alice, row="gpustack/platform")
    client.force_login(cast.bob)

    response = client.post(
        url("candidate-remove", evaluation, two_candidates["volcano/scheduler"].pk),
        {"revision": loaded},
    )

    assert response.status_code == 409
    assert len(refs(evaluation)) == 3


def test_removing_a_candidate_that_is_gone_says_so(client, cast, evaluation, two_candidates):
    client.force_login(cast.bob)
    target = url("candidate-remove", evaluation, two_candidates["volcano/scheduler"].pk)

    client.post(target, {"revision": Evaluation.objects.get(pk=evaluation.pk).revision})
    again = client.post(target, {"revision": Evaluation.objects.get(pk=evaluation.pk).revision})

    assert again.status_code == 400
    assert refs(evaluation) == ["hami/device-plugin"]


# Alternatives groups


def test_the_group_select_offers_the_groups_in_use_a_new_letter_and_a_name(cast):
    values = [value for value, _label in alternative_group_choices(["A", "isolation", "A", ""])]

    assert values == ["", "A", "isolation", "B", NAMED_GROUP]


def test_a_new_group_can_be_named_on_the_step_form(client, cast, evaluation, two_candidates):
    hami, volcano = two_candidates["hami/device-plugin"], two_candidates["volcano/scheduler"]
    client.force_login(cast.bob)

    client.post(
        url("step", evaluation, 3),
        {
            "revision": Evaluation.objects.get(pk=evaluation.pk).revision,
            f"points_{hami.pk}": ["runtime_interception"], f"group_{hami.pk}": NAMED_GROUP,
            f"group_name_{hami.pk}": " shared pool ",
            f"points_{volcano.pk}": ["scheduler"], f"group_{volcano.pk}": "B",
        },
    )  # fmt: skip

    groups = {c.row.ref: c.alternative_group for c in evaluation.candidates.all()}
    assert groups == {"hami/device-plugin": "shared pool", "volcano/scheduler": "B"}


def test_a_new_named_group_without_a_name_keeps_the_group_it_had(
    client, cast, evaluation, two_candidates
):
    hami = two_candidates["hami/device-plugin"]
    client.force_login(cast.bob)

    client.post(
        url("step", evaluation, 3),
        {
            "revision": Evaluation.objects.get(pk=evaluation.pk).revision,
            f"points_{hami.pk}": ["runtime_interception"], f"group_{hami.pk}": NAMED_GROUP,
            f"group_name_{hami.pk}": "",
        },
    )  # fmt: skip

    assert evaluation.candidates.get(pk=hami.pk).alternative_group == "A"


# The page


def test_the_step_page_offers_suggestions_to_editors_only(client, cast, evaluation):
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "multi"}
    )

    editor = page_of(client, cast.bob, evaluation)
    viewer = page_of(client, cast.dave, evaluation)

    assert 'data-suggestion="volcano/scheduler"' in editor
    assert "Quota between tenants on Memory + compute quota, Whole GPU" in editor
    assert "data-suggestions" not in viewer and "candidate-q" not in viewer


def test_the_step_page_costs_the_same_queries_with_more_candidates(client, cast, evaluation):
    apply(
        bundle(
            *(
                project(f"more-{n}", placement("main", "control_plane", functions=["quota"]))
                for n in range(3)
            )
        )
    )
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "multi"}
    )
    evaluation_candidate_add(evaluation=evaluation, actor=cast.bob, row="hami/device-plugin")
    client.force_login(cast.bob)
    client.get(url("step", evaluation, 3))  # the first request may fill caches
    with CaptureQueriesContext(connection) as few:
        client.get(url("step", evaluation, 3), {"q": "a"})
    for row in ("volcano/scheduler", "time-slicer/plugin", "gpustack/platform"):
        evaluation_candidate_add(evaluation=evaluation, actor=cast.bob, row=row)
    client.get(url("step", evaluation, 3))  # a new set of candidate rows fills its cache entry

    with CaptureQueriesContext(connection) as many:
        client.get(url("step", evaluation, 3), {"q": "a"})

    assert len(many) == len(few)


def page_of(client, user, evaluation) -> str:
    client.force_login(user)
    return client.get(url("step", evaluation, 3)).content.decode()


def test_the_step_page_answers_in_few_queries_once_warm(
    client, cast, evaluation, django_assert_max_num_queries
):
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="profile", data={"tenancy": "multi"}
    )
    evaluation_candidate_add(evaluation=evaluation, actor=cast.bob, row="hami/device-plugin")
    client.force_login(cast.bob)
    client.get(url("step", evaluation, 3))

    # The session, the user, the evaluation, its candidates (4: with their rows' units and
    # points), its decision, its comments, its units, the catalog revision and the unread count;
    # the vocabulary's names and the catalog's side of the suggestions come from the cache.
    with django_assert_max_num_queries(13):
        page = client.get(url("step", evaluation, 3)).content.decode()

    assert 'data-suggestion="volcano/scheduler"' in page
