"""Announcing review events: one Notification per recipient and, when the team has a webhook,
one WebhookDelivery, written in the caller's transaction and sent by jobs once it commits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ecomap.dispatch import DELIVER_WEBHOOK, SEND_NOTIFICATION_EMAIL, enqueue_on_commit
from evaluations.audit.selectors import evaluation_editors
from evaluations.models import PLACEMENT_STEPS, Evaluation, State, Step
from evaluations.notifications.choices import Event
from evaluations.notifications.models import Notification, WebhookDelivery
from evaluations.notifications.selectors import unread_count_forget
from evaluations.review.selectors import participant_ids
from evaluations.selectors import reviewers_asked
from evaluations.teams.choices import Role
from evaluations.teams.selectors import member_ids

if TYPE_CHECKING:
    from evaluations.review.models import Comment


def anchor_path(evaluation: Evaluation, anchor: str = "") -> str:
    """The page a comment anchor is shown on: its step, the decision, or else the overview."""
    if anchor in PLACEMENT_STEPS:
        number = PLACEMENT_STEPS.index(anchor) + 1
        return reverse("evaluations:step", args=[evaluation.pk, number])
    if anchor == Step.DECISION:
        return reverse("evaluations:decision", args=[evaluation.pk])
    return reverse("evaluations:detail", args=[evaluation.pk])


def evaluation_url(evaluation: Evaluation, anchor: str = "") -> str:
    """The evaluation's page, or the page of an anchor, as an absolute URL (SITE_URL)."""
    return f"{settings.SITE_URL}{anchor_path(evaluation, anchor)}"


def event_sentence(
    *,
    event: str,
    actor: str,
    title: str,
    revision: int,
    anchor: str = "",
    about: str = "",
    recipient: str = "",
) -> str:
    """What happened, in one sentence of the active language. `about` names the person asked
    for a review; told to `recipient` who is that person, the sentence asks them."""
    values = {"actor": actor, "title": title, "revision": revision, "about": about}
    if event == Event.SUBMITTED:
        return _("%(actor)s submitted “%(title)s” for review (revision %(revision)s).") % values
    if event == Event.APPROVED:
        return _("%(actor)s approved “%(title)s” (revision %(revision)s).") % values
    if event == Event.CHANGES_REQUESTED:
        return _("%(actor)s requested changes to “%(title)s” (revision %(revision)s).") % values
    if event == Event.APPROVAL_RECORDED:
        return (
            _(
                "%(actor)s approved “%(title)s” (revision %(revision)s); the team's policy needs "
                "more approvals."
            )
            % values
        )
    if event == Event.REVIEW_REQUESTED and about and about != recipient:
        return (
            _("%(actor)s asked %(about)s to review “%(title)s” (revision %(revision)s).") % values
        )
    if event == Event.REVIEW_REQUESTED:
        return _("%(actor)s asks for your review of “%(title)s” (revision %(revision)s).") % values
    if event == Event.TEST:
        return _("A test event from EcoMap: the team's webhook is reachable.")
    if event == Event.CATALOG_DRIFT:
        return (
            _(
                "The catalog changed under “%(title)s”: its stack check got worse, so it needs "
                "re-review (revision %(revision)s)."
            )
            % values
        )
    if anchor:
        values["step"] = Step(anchor).label
        return _("%(actor)s commented on “%(title)s”, %(step)s (revision %(revision)s).") % values
    return _("%(actor)s commented on “%(title)s” (revision %(revision)s).") % values


def _members(
    evaluation: Evaluation, user_ids: set[int] | None, *, roles: tuple[str, ...] = ()
) -> set[int]:
    """Those of `user_ids` still in the evaluation's team (with one of `roles`, if given)."""
    return member_ids(team_id=evaluation.team_id, roles=roles, among=user_ids)


def recipients_for(*, evaluation: Evaluation, actor, event: str) -> set[int]:
    """Who is told, as user ids; never the actor, only current members of the team.

    Submitted: the team's reviewers and admins. Every other review event (approved, one
    approval of several, changes requested, commented, review requested): the evaluation's
    editors (its author and everyone who changed it) and the reviewers asked this round; a
    comment by one of its editors also tells the reviewers taking part (who reviewed or
    commented), or while it is in review and none has yet, the team's reviewers. Catalog drift
    (no actor): the team's editors, reviewers and admins.
    """
    reviewers = (Role.REVIEWER, Role.ADMIN)
    editors = evaluation_editors(evaluation, inherited=False)
    asked = reviewers_asked(evaluation)
    if event == Event.SUBMITTED:
        wanted = _members(evaluation, None, roles=reviewers)
    elif event in (
        Event.APPROVED,
        Event.APPROVAL_RECORDED,
        Event.CHANGES_REQUESTED,
        Event.REVIEW_REQUESTED,
    ):
        wanted = _members(evaluation, editors | asked)
    elif event == Event.CATALOG_DRIFT:
        wanted = _members(evaluation, None, roles=(Role.EDITOR, *reviewers))
    elif actor.pk in editors:
        taking_part = participant_ids(evaluation)
        wanted = _members(evaluation, (taking_part | asked) - editors)
        if not wanted - {actor.pk} and evaluation.state == State.IN_REVIEW:
            wanted = _members(evaluation, None, roles=reviewers) - editors
    else:
        wanted = _members(evaluation, editors | asked)
    return wanted - {getattr(actor, "pk", None)}


def webhook_payload(
    *, evaluation: Evaluation, actor, event: str, comment=None, about: str = ""
) -> dict:
    """The JSON a team's webhook receives (`sent_at` is added when it is sent). `text` is a
    one-line summary Slack-compatible endpoints show as the message."""
    anchor = comment.anchor if comment is not None else ""
    url = evaluation_url(evaluation, anchor)
    actor_name = actor.get_username() if actor is not None else ""  # "": EcoMap itself
    with translation.override(settings.LANGUAGE_CODE):
        sentence = event_sentence(
            event=event,
            actor=actor_name,
            title=evaluation.title,
            revision=evaluation.revision,
            anchor=anchor,
            about=about,
        )
    payload = {
        "event": event,
        "evaluation": {
            "id": evaluation.pk,
            "title": evaluation.title,
            "state": evaluation.state,
            "revision": evaluation.revision,
            "url": url,
        },
        "team": evaluation.team.slug,
        "actor": actor_name,
        "text": f"{_slack_escape(sentence)} <{url}|{_slack_escape(_open_label())}>",
        # The same sentence as plain text, for chat formats without Slack's link syntax.
        "summary": sentence,
    }
    if about:
        payload["reviewer"] = about
    if comment is not None:
        payload["comment"] = {"id": comment.pk, "anchor": comment.anchor, "body": comment.body}
    return payload


def _open_label() -> str:
    return _("Open in EcoMap")


def _slack_escape(text: str) -> str:
    # Slack's mrkdwn reads <…> as links and &… as entities; everything else is plain text.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def evaluation_announce(
    *,
    evaluation: Evaluation,
    actor,
    event: str,
    comment: Comment | None = None,
    about=None,
) -> list[Notification]:
    """Tell the people concerned, in the caller's transaction: inbox items now, e-mails and the
    team's webhook by jobs after commit (nothing is sent for a change that rolls back). `about`
    is the person a review request asks, who is told with the others."""
    user_ids = recipients_for(evaluation=evaluation, actor=actor, event=event)
    about_name = about.get_username() if about is not None else ""
    notifications = Notification.objects.bulk_create(
        Notification(
            recipient_id=user_id,
            evaluation=evaluation,
            event=event,
            actor=actor,
            revision=evaluation.revision,
            about=about_name,
        )
        for user_id in sorted(user_ids)
    )
    unread_count_forget(user_ids)
    mailable = set(
        get_user_model()
        .objects.filter(pk__in=user_ids)
        .exclude(email="")
        .values_list("pk", flat=True)
    )
    for notification in notifications:
        if notification.recipient_id in mailable:
            enqueue_on_commit(SEND_NOTIFICATION_EMAIL, notification.pk)
    team = evaluation.team
    if team.webhook_url:
        delivery = WebhookDelivery.objects.create(
            team=team,
            evaluation=evaluation,
            event=event,
            url=team.webhook_url,
            secret=team.webhook_secret,
            format=team.webhook_format or "generic",
            payload=webhook_payload(
                evaluation=evaluation, actor=actor, event=event, comment=comment, about=about_name
            ),
        )
        enqueue_on_commit(DELIVER_WEBHOOK, delivery.pk)
    return notifications


def notification_open(*, user, pk: int) -> Notification | None:
    """The user's notification, marked read if it was not; None when it is not theirs."""
    notification = (
        Notification.objects.filter(pk=pk, recipient=user).select_related("evaluation").first()
    )
    if notification is not None and notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])
        unread_count_forget([user.pk])
    return notification


def notifications_mark_all_read(*, user) -> int:
    """Mark every unread notification of the user read; returns how many were unread."""
    marked = Notification.objects.filter(recipient=user, read_at__isnull=True).update(
        read_at=timezone.now()
    )
    unread_count_forget([user.pk])
    return marked
