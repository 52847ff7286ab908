"""The notifications app's models: what people are told about a review event (`Event`), each
person's inbox item (`Notification`) and each POST to a team's webhook (`WebhookDelivery`).

They were the evaluations app's until issue 44 and keep its tables (`db_table`); the move was a
state-only migration (`evaluations.notifications` 0001, `evaluations` 0021)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from evaluations.notifications.choices import Event


class Notification(models.Model):
    """One event for one person: listed in their inbox, e-mailed once."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="notifications"
    )
    event = models.CharField(_("event"), max_length=20, choices=Event.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    revision = models.PositiveIntegerField(_("revision"))
    # Whom the event is about besides the actor: the person asked for a review.
    about = models.CharField(_("about whom"), max_length=150, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    emailed_at = models.DateTimeField(_("e-mailed"), null=True, blank=True)

    class Meta:
        db_table = "evaluations_notification"  # the table it had in the evaluations app
        ordering = ["-created_at", "-id"]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        indexes = [
            models.Index(fields=["recipient", "-created_at"], name="notification_inbox_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_event_display()}: {self.evaluation} for {self.recipient}"


class WebhookDelivery(models.Model):
    """One POST to a team's webhook: a job row like imports and reports (pending → running →
    delivered | failed), retried with backoff and swept by recover_jobs."""

    team = models.ForeignKey(
        "teams.Team", on_delete=models.CASCADE, related_name="webhook_deliveries"
    )
    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    event = models.CharField(_("event"), max_length=20, choices=Event.choices)
    # The team's URL and secret when the event happened, kept for every retry (a rotation
    # never sends the new secret's signature to the old URL). Stored as the team's secret is.
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=128, blank=True, editable=False)
    payload = models.JSONField(default=dict)
    # The team's body format when the event happened, kept like the URL and secret.
    format = models.CharField(max_length=10, default="generic")
    status = models.CharField(max_length=10, default="pending")
    attempts = models.PositiveSmallIntegerField(default=0)
    # When a failed attempt is tried again (the log shows it); empty otherwise.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # A delivery sent again by hand from the log points at the one it repeats.
    resend_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "evaluations_webhookdelivery"  # the table it had in the evaluations app
        ordering = ["-created_at", "-id"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        indexes = [
            models.Index(fields=["status", "created_at"], name="webhook_by_status_idx"),
            # the team's delivery log, newest first
            models.Index(fields=["team", "-created_at"], name="webhook_by_team_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.url} ({self.status})"
