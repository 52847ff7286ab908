"""The home page and the inbox: what a signed-in person sees of their own work, their reviews and
their notifications, and what a visitor sees."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.models import CatalogChange
from evaluations import services
from evaluations.notifications.choices import Event
from evaluations.notifications.models import Notification
from evaluations.review.services import evaluation_review, evaluation_submit
from evaluations.steps.services import evaluation_step_save
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast():
    small_catalog()
    return make_cast()


def _notify(cast, evaluation, recipient, event=Event.SUBMITTED, read=False) -> Notification:
    return Notification.objects.create(
        recipient=recipient,
        evaluation=evaluation,
        event=event,
        actor=cast.bob,
        revision=evaluation.revision,
        read_at=timezone.now() if read else None,
    )


def _approved(cast, title: str):
    evaluation = fill_steps(make_evaluation(cast, title=title), cast.bob)
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    return evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")


def test_a_visitor_sees_what_ecomap_does_and_a_sign_in_link(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Three layers" in page and "Four steps" in page
    assert "/accounts/login/" in page
    assert "Inbox" not in page


def test_the_overview_speaks_chinese_when_asked(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    assert 'lang="zh-hans"' in response.content.decode()


def test_an_editor_sees_their_drafts_and_not_others(client, cast):
    mine = make_evaluation(cast, title="Bob own draft")
    theirs = services.evaluation_create(actor=cast.charlie, team=cast.other_team, title="Secret")
    client.force_login(cast.bob)
    page = client.get("/").content.decode()
    assert mine.title in page
    assert theirs.title not in page


def test_a_draft_someone_else_created_shows_once_i_edited_it(client, cast):
    evaluation = services.evaluation_create(actor=cast.alice, team=cast.team, title="Alice's draft")
    client.force_login(cast.bob)
    assert "Alice&#x27;s draft" not in client.get("/").content.decode()
    evaluation_step_save(
        evaluation=evaluation, actor=cast.bob, step="units", data={"units": ["mig_slice"]}
    )
    drafts = client.get("/").context["drafts"]
    assert [item.pk for item in drafts] == [evaluation.pk]


def test_a_reviewer_sees_what_waits_for_their_review_until_they_reviewed_it(client, cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    client.force_login(cast.carol)
    assert [e.pk for e in client.get("/").context["to_review"]] == [evaluation.pk]
    evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")
    assert client.get("/").context["to_review"] == []


def test_the_author_and_a_viewer_are_not_asked_to_review(client, cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    evaluation_submit(evaluation=evaluation, actor=cast.bob)
    for person in (cast.bob, cast.dave, cast.charlie):
        client.force_login(person)
        assert client.get("/").context["to_review"] == [], person


def test_recent_decisions_list_approved_evaluations_newest_first(client, cast):
    first = _approved(cast, "First decision")
    second = _approved(cast, "Second decision")
    client.force_login(cast.dave)
    decisions = client.get("/").context["decisions"]
    assert [e.pk for e in decisions] == [second.pk, first.pk]


def test_a_catalog_change_to_a_decided_row_shows_with_a_link(client, cast):
    evaluation = _approved(cast, "Decided on HAMi")
    apply(
        bundle(
            project(
                "hami",
                placement("device-plugin", promise="A new promise."),
                name="HAMi",
            )
        )
    )
    change = CatalogChange.objects.filter(project_slug="hami", row_key="device-plugin").first()
    assert change is not None and change.action == "updated"
    client.force_login(cast.dave)
    response = client.get("/")
    watched = response.context["catalog_changes"]
    assert watched[0].change.pk == change.pk
    assert watched[0].evaluation.pk == evaluation.pk
    assert watched[0].after_decision
    page = response.content.decode()
    assert "/catalog/projects/hami/#row-device-plugin" in page
    assert "after the decision" in page


def test_the_initial_catalog_load_is_not_a_change_under_a_decision(client, cast):
    # small_catalog() created the decided rows before the decision: nothing changed since.
    _approved(cast, "Decided on HAMi")
    client.force_login(cast.dave)

    response = client.get("/")

    assert response.context["catalog_changes"] == []
    assert "No change to the rows your decisions rely on." in response.content.decode()


def test_a_row_created_again_after_the_decision_shows(client, cast):
    _approved(cast, "Decided on HAMi")
    CatalogChange.objects.create(
        project_slug="hami", row_key="device-plugin", action="created", changes={}
    )
    client.force_login(cast.dave)

    watched = client.get("/").context["catalog_changes"]

    assert [w.change.action for w in watched] == ["created"]


def test_changes_to_rows_no_decision_names_never_show_however_many_come_after(client, cast):
    # Decided: hami/device-plugin and volcano/scheduler. volcano/device-plugin and
    # hami/scheduler share a project and a key with them, and are named by no decision.
    _approved(cast, "Decided on HAMi")
    relied = CatalogChange.objects.create(
        project_slug="hami", row_key="device-plugin", action="updated", changes={"promise": [1, 2]}
    )
    CatalogChange.objects.bulk_create(
        CatalogChange(project_slug=slug, row_key=key, action="updated", changes={"promise": [1, 2]})
        for _ in range(150)
        for slug, key in (("volcano", "device-plugin"), ("hami", "scheduler"))
    )
    client.force_login(cast.dave)

    watched = client.get("/").context["catalog_changes"]

    assert [w.change.pk for w in watched] == [relied.pk]
    assert watched[0].ref == "hami/device-plugin"


def test_catalog_changes_of_another_teams_decision_do_not_show(client, cast):
    _approved(cast, "Platform's decision")
    apply(bundle(project("hami", placement("device-plugin", promise="Changed."), name="HAMi")))
    client.force_login(cast.charlie)
    assert client.get("/").context["catalog_changes"] == []


def test_the_home_page_sends_the_same_queries_for_3_or_30_evaluations(client, cast):
    def build(count: int) -> None:
        for i in range(count):
            evaluation = fill_steps(make_evaluation(cast, title=f"Evaluation {i}"), cast.bob)
            evaluation_submit(evaluation=evaluation, actor=cast.bob)
            if i % 3 == 0:
                evaluation_review(evaluation=evaluation, actor=cast.carol, verdict="approve")
            _notify(cast, evaluation, cast.alice)

    def measure() -> int:
        client.get("/")
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/").status_code == 200
        return len(queries)

    client.force_login(cast.alice)
    build(3)
    small = measure()
    build(27)
    assert measure() == small


def test_the_nav_shows_the_unread_count(client, cast):
    evaluation = make_evaluation(cast)
    _notify(cast, evaluation, cast.carol)
    _notify(cast, evaluation, cast.carol)
    _notify(cast, evaluation, cast.carol, read=True)
    client.force_login(cast.carol)
    page = client.get("/evaluations/").content.decode()
    assert '<span class="count-badge" aria-label="2 unread notifications">2</span>' in page


def test_the_inbox_lists_my_notifications_newest_first_with_unread_marked(client, cast):
    evaluation = make_evaluation(cast)
    older = _notify(cast, evaluation, cast.carol, read=True)
    newer = _notify(cast, evaluation, cast.carol, event=Event.COMMENTED)
    _notify(cast, evaluation, cast.alice)  # someone else's
    client.force_login(cast.carol)
    response = client.get("/inbox/")
    assert response.status_code == 200
    assert [n.pk for n in response.context["notifications"]] == [newer.pk, older.pk]
    assert response.content.decode().count("is-unread") == 1


def test_the_inbox_is_paginated_by_30(client, cast):
    evaluation = make_evaluation(cast)
    for _ in range(31):
        _notify(cast, evaluation, cast.carol)
    client.force_login(cast.carol)
    assert len(client.get("/inbox/").context["notifications"]) == 30
    assert len(client.get("/inbox/?page=2").context["notifications"]) == 1


def test_opening_a_notification_marks_it_read_and_goes_to_the_evaluation(client, cast):
    evaluation = make_evaluation(cast)
    notification = _notify(cast, evaluation, cast.carol)
    client.force_login(cast.carol)
    response = client.get(f"/inbox/notifications/{notification.pk}/")
    assert response.status_code == 302
    assert response["Location"].startswith(f"/evaluations/{evaluation.pk}/")
    notification.refresh_from_db()
    assert notification.read_at is not None


def test_someone_elses_notification_is_not_found(client, cast):
    notification = _notify(cast, make_evaluation(cast), cast.carol)
    client.force_login(cast.dave)
    assert client.get(f"/inbox/notifications/{notification.pk}/").status_code == 404
    notification.refresh_from_db()
    assert notification.read_at is None


def test_mark_all_read_clears_only_my_unread(client, cast):
    evaluation = make_evaluation(cast)
    mine = [_notify(cast, evaluation, cast.carol) for _ in range(3)]
    others = _notify(cast, evaluation, cast.alice)
    client.force_login(cast.carol)
    assert client.post("/inbox/read-all/").status_code == 302
    assert all(Notification.objects.get(pk=n.pk).read_at for n in mine)
    assert Notification.objects.get(pk=others.pk).read_at is None


def test_the_inbox_needs_sign_in(client):
    response = client.get("/inbox/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_someone_in_no_team_is_told_how_to_join(client, bob):
    client.force_login(bob)
    page = client.get("/").content.decode()
    assert "You are not in a team yet" in page


def test_a_team_member_is_not_told_to_join(client, cast):
    client.force_login(cast.dave)
    assert "You are not in a team yet" not in client.get("/").content.decode()


def test_the_home_page_reads_no_stored_documents_it_does_not_show(client, cast):
    _approved(cast, "Platform's decision")
    apply(bundle(project("hami", placement("device-plugin", promise="Changed."), name="HAMi")))
    client.force_login(cast.alice)
    client.get("/")

    with CaptureQueriesContext(connection) as queries:
        page = client.get("/")

    assert page.context["decisions"] and page.context["catalog_changes"]
    sql = " ".join(query["sql"] for query in queries.captured_queries)
    for column in ('"approved_rows"', '"approved_findings"', '"catalog_drift"', '"profile"'):
        assert column not in sql


def test_the_inbox_badge_follows_new_and_read_notifications_with_its_count_cached(client, cast):
    """The nav's unread count is cached per person (issue 28, throughput): a new notification,
    opening one and marking all read each show at once, whichever path wrote them."""
    from evaluations.notifications.services import (
        evaluation_announce,
        notification_open,
        notifications_mark_all_read,
    )

    evaluation = make_evaluation(cast)
    client.force_login(cast.carol)

    def badge() -> int:
        return client.get("/").context["inbox_unread"]

    assert badge() == 0
    _notify(cast, evaluation, cast.carol)  # saved one by one (a signal forgets the count)
    assert badge() == 1
    evaluation_announce(evaluation=evaluation, actor=cast.bob, event=Event.SUBMITTED)
    announced = Notification.objects.filter(recipient=cast.carol).count()
    assert announced >= 2, "carol is a reviewer of the team: the submission reaches her"
    assert badge() == announced
    notification_open(user=cast.carol, pk=Notification.objects.filter(recipient=cast.carol)[0].pk)
    assert badge() == announced - 1
    notifications_mark_all_read(user=cast.carol)
    assert badge() == 0
