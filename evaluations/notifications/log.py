"""A team's webhook log: the deliveries with their outcome and next retry, a test event, and
sending a delivery again. Team admins only (the log shows the webhook's address)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from ecomap.dispatch import DELIVER_WEBHOOK, enqueue_on_commit
from evaluations.errors import InvalidInput
from evaluations.notifications.choices import Event
from evaluations.notifications.models import WebhookDelivery
from evaluations.notifications.services import event_sentence
from evaluations.review.editing import role_require
from evaluations.teams.choices import Role

if TYPE_CHECKING:
    from evaluations.teams.models import Team

LOG_LENGTH = 100


def webhook_log(team: Team, *, limit: int = LOG_LENGTH) -> list[WebhookDelivery]:
    """The team's latest deliveries, newest first (index webhook_by_team_idx)."""
    return list(
        WebhookDelivery.objects.filter(team=team)
        .select_related("evaluation")
        .defer("payload", "secret")
        .order_by("-created_at", "-id")[:limit]
    )


def _require_webhook(team: Team) -> None:
    if not team.webhook_url:
        raise InvalidInput(_("The team has no webhook: set its URL first."))


def _delivery_for(team: Team, *, event: str, payload: dict, evaluation=None, resend_of=None):
    """A delivery to the team's current URL, secret and format, sent by a job after commit."""
    delivery = WebhookDelivery.objects.create(
        team=team,
        evaluation=evaluation,
        event=event,
        url=team.webhook_url,
        secret=team.webhook_secret,
        format=team.webhook_format or "generic",
        payload=payload,
        resend_of=resend_of,
    )
    enqueue_on_commit(DELIVER_WEBHOOK, delivery.pk)
    return delivery


@transaction.atomic
def webhook_test_send(*, team: Team, actor) -> WebhookDelivery:
    """Send a test event, so an admin sees at once whether the receiver answers."""
    role_require(evaluation=None, team=team, actor=actor, role=Role.ADMIN)
    _require_webhook(team)
    with translation.override(settings.LANGUAGE_CODE):
        sentence = event_sentence(event=Event.TEST, actor="", title="", revision=0)
    payload = {
        "event": Event.TEST,
        "evaluation": None,
        "team": team.slug,
        "actor": actor.get_username(),
        "text": sentence,
        "summary": sentence,
    }
    return _delivery_for(team, event=Event.TEST, payload=payload)


@transaction.atomic
def webhook_resend(*, delivery: WebhookDelivery, actor) -> WebhookDelivery:
    """Send a delivery's event again, as a new delivery to the team's current URL, secret and
    format (the receiver may have been fixed or moved since)."""
    team = delivery.team
    role_require(evaluation=None, team=team, actor=actor, role=Role.ADMIN)
    _require_webhook(team)
    return _delivery_for(
        team,
        event=delivery.event,
        payload=delivery.payload,
        evaluation=delivery.evaluation,
        resend_of=delivery,
    )
