"""Who may see and do what, on every evaluation page: teams scope reads, roles scope writes."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaluations.models import Evaluation, State
from tests.evaluations.factories import (
    MIXED_PROFILE,
    fill_steps,
    make_cast,
    make_evaluation,
    small_catalog,
    submitted,
)

pytestmark = pytest.mark.django_db

READ_ROUTES = [
    ("evaluations:detail", ()),
    ("evaluations:step", (1,)),
    ("evaluations:step", (2,)),
    ("evaluations:step", (3,)),
    ("evaluations:step", (4,)),
    ("evaluations:comparison", ()),
    ("evaluations:recommendations", ()),
    ("evaluations:decision", ()),
]
WRITE_ROUTES = [
    ("evaluations:step", (1,), {"tenancy": "multi"}),
    ("evaluations:step", (2,), {"units": ["whole_gpu"]}),
    ("evaluations:step", (3,), {"add": "volcano/scheduler"}),
    ("evaluations:step", (4,), {}),
    ("evaluations:decision", (), {"rows": ["hami/device-plugin"]}),
    ("evaluations:submit", (), {}),
    ("evaluations:review", (), {"verdict": "approve"}),
    ("evaluations:archive", (), {}),
]


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


@pytest.fixture
def evaluation(cast):
    return fill_steps(make_evaluation(cast), cast.bob)


def url(name: str, evaluation, args=()) -> str:
    return reverse(name, args=[evaluation.pk, *args])


@pytest.mark.parametrize(("name", "args"), READ_ROUTES)
def test_another_teams_evaluation_answers_404(client, cast, evaluation, name, args):
    client.force_login(cast.charlie)

    assert client.get(url(name, evaluation, args)).status_code == 404


@pytest.mark.parametrize(("name", "args", "data"), WRITE_ROUTES)
def test_another_team_cannot_write_and_learns_nothing(client, cast, evaluation, name, args, data):
    client.force_login(cast.charlie)
    revision = evaluation.revision

    assert client.post(url(name, evaluation, args), data).status_code == 404
    assert Evaluation.objects.get(pk=evaluation.pk).revision == revision


def test_a_missing_evaluation_answers_404_like_a_foreign_one(client, cast):
    client.force_login(cast.bob)

    assert client.get(reverse("evaluations:detail", args=[999999])).status_code == 404


@pytest.mark.parametrize(("name", "args"), READ_ROUTES)
def test_a_viewer_reads_every_page(client, cast, evaluation, name, args):
    client.force_login(cast.dave)

    assert client.get(url(name, evaluation, args)).status_code == 200


@pytest.mark.parametrize(("name", "args", "data"), WRITE_ROUTES[:6])
def test_a_viewer_cannot_edit(client, cast, evaluation, name, args, data):
    client.force_login(cast.dave)
    revision = evaluation.revision

    response = client.post(url(name, evaluation, args), data)

    assert response.status_code == 403
    assert Evaluation.objects.get(pk=evaluation.pk).revision == revision


def test_a_viewer_sees_the_steps_read_only(client, cast, evaluation):
    client.force_login(cast.dave)

    content = client.get(url("evaluations:step", evaluation, (1,))).content.decode()

    assert "<fieldset disabled>" in content
    assert "changing it needs the editor role" in content


@pytest.mark.parametrize(("name", "args"), READ_ROUTES)
def test_anonymous_visitors_are_sent_to_sign_in(client, cast, evaluation, name, args):
    response = client.get(url(name, evaluation, args))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_an_editor_cannot_approve(client, cast):
    evaluation = submitted(cast)
    other_editor = cast.alice  # an admin would be allowed; make bob's colleague an editor
    client.force_login(cast.bob)

    response = client.post(url("evaluations:review", evaluation), {"verdict": "approve"})

    assert response.status_code == 403
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.IN_REVIEW
    assert other_editor  # alice (admin) is covered below


def test_a_reviewer_approves_from_the_page(client, cast):
    evaluation = submitted(cast)
    client.force_login(cast.carol)

    response = client.post(url("evaluations:review", evaluation), {"verdict": "approve"})

    assert response.status_code == 302
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED


def test_a_team_admin_may_approve_too(client, cast):
    evaluation = submitted(cast)
    client.force_login(cast.alice)

    client.post(url("evaluations:review", evaluation), {"verdict": "approve"})

    assert Evaluation.objects.get(pk=evaluation.pk).state == State.APPROVED


def test_an_author_cannot_approve_their_own_evaluation(client, cast):
    evaluation = make_evaluation(cast, title="Carol's own")
    evaluation.created_by = cast.carol
    evaluation.save(update_fields=["created_by"])
    fill_steps(evaluation, cast.carol)
    client.force_login(cast.carol)
    client.post(url("evaluations:submit", evaluation))

    response = client.post(url("evaluations:review", evaluation), {"verdict": "approve"})

    assert response.status_code == 403
    assert b"cannot review their own evaluation" in response.content
    assert Evaluation.objects.get(pk=evaluation.pk).state == State.IN_REVIEW


def test_the_review_form_is_not_offered_to_the_author(client, cast):
    evaluation = submitted(cast)
    client.force_login(cast.bob)

    response = client.get(url("evaluations:detail", evaluation))

    assert response.context["review_form"] is None


def test_an_editor_saves_a_step_and_a_viewer_cannot_create(client, cast):
    client.force_login(cast.dave)
    response = client.post(reverse("evaluations:create"), {"title": "Nope", "team": cast.team.pk})
    assert response.status_code == 400
    assert not Evaluation.objects.filter(title="Nope").exists()

    client.force_login(cast.bob)
    response = client.post(reverse("evaluations:create"), {"title": "Yes", "team": cast.team.pk})
    evaluation = Evaluation.objects.get(title="Yes")
    assert response["Location"] == url("evaluations:step", evaluation, (1,))


def test_an_editor_cannot_create_in_another_team(client, cast):
    client.force_login(cast.bob)

    response = client.post(
        reverse("evaluations:create"), {"title": "Sneaky", "team": cast.other_team.pk}
    )

    assert response.status_code == 400
    assert not Evaluation.objects.filter(title="Sneaky").exists()


def test_the_list_shows_only_the_users_teams(client, cast, evaluation):
    foreign = make_evaluation(cast, title="Foreign")
    foreign.team = cast.other_team
    foreign.save(update_fields=["team"])

    client.force_login(cast.dave)
    titles = [e.title for e in client.get(reverse("evaluations:list")).context["evaluations"]]
    assert titles == [evaluation.title]

    client.force_login(cast.charlie)
    titles = [e.title for e in client.get(reverse("evaluations:list")).context["evaluations"]]
    assert titles == ["Foreign"]


def test_autosave_answers_json_with_the_step_state(client, cast):
    evaluation = make_evaluation(cast)
    client.force_login(cast.bob)
    data = {**MIXED_PROFILE, "priority_1": "isolation", "priority_2": "cost"}
    data.pop("priorities")

    response = client.post(url("evaluations:step", evaluation, (1,)), data, HTTP_X_AUTOSAVE="1")

    assert response.status_code == 200
    assert response.json()["done"] is True
    assert Evaluation.objects.get(pk=evaluation.pk).profile["priorities"] == ["isolation", "cost"]


def test_autosave_of_a_viewer_is_refused_as_json(client, cast, evaluation):
    client.force_login(cast.dave)

    response = client.post(
        url("evaluations:step", evaluation, (1,)), {"tenancy": "single"}, HTTP_X_AUTOSAVE="1"
    )

    assert response.status_code == 403
    assert "editor role" in response.json()["detail"]
