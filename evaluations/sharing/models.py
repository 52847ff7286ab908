"""Share links of a decision and the log of every use."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ShareLink(models.Model):
    """A read-only link to one evaluation's decision; the link carries a key stored only hashed
    (like invitations and API tokens), so a database leak gives no working link."""

    evaluation = models.ForeignKey(
        "evaluations.Evaluation", on_delete=models.CASCADE, related_name="share_links"
    )
    # Who the link is for ("auditor at Example Corp"): shown in the list and the access log.
    label = models.CharField(_("shared with"), max_length=120)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        db_table = "evaluations_sharelink"  # the table it had in the evaluations app
        ordering = ["-created_at", "-id"]
        verbose_name = _("share link")
        verbose_name_plural = _("share links")
        indexes = [
            # the decision page: its links, newest first
            models.Index(fields=["evaluation", "-created_at"], name="share_by_evaluation_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.evaluation} shared with {self.label}"

    @property
    def active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()


class ShareAccess(models.Model):
    """One use of a share link: when, what was opened, from where."""

    class Kind(models.TextChoices):
        PAGE = "page", _("decision page")
        PDF = "pdf", _("PDF report")
        ADR = "adr", _("decision record (Markdown)")

    link = models.ForeignKey(ShareLink, on_delete=models.CASCADE, related_name="accesses")
    at = models.DateTimeField(_("when"), auto_now_add=True)
    kind = models.CharField(_("opened"), max_length=4, choices=Kind.choices)
    address = models.CharField(_("address"), max_length=45, blank=True)
    user_agent = models.CharField(_("browser"), max_length=200, blank=True)

    class Meta:
        db_table = "evaluations_shareaccess"  # the table it had in the evaluations app
        ordering = ["-at", "-id"]
        verbose_name = _("share link access")
        verbose_name_plural = _("share link accesses")
        indexes = [
            # a link's log, newest first
            models.Index(fields=["link", "-at"], name="share_access_by_link_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} via {self.link_id} at {self.at:%Y-%m-%d %H:%M}"
