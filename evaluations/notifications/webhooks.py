"""Team webhooks: a delivery row is POSTed as signed JSON, retried with backoff, and recovered by
the sweep like every other job row (pending → running → delivered | failed)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from ecomap.dispatch import DELIVER_WEBHOOK
from ecomap.jobs import jobs_resend
from evaluations.models import WebhookDelivery

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
TIMEOUT_S = 5
# Waits before attempts 2 to 5: 5, 10, 20, 40 s. They stay under the sweep's pending grace, so
# a delivery waiting for its retry is never sent again by the sweep as well.
BACKOFF_BASE_S = 5
# An attempt takes at most TIMEOUT_S: one running this long without a word lost its worker.
ATTEMPT_SILENCE = timedelta(seconds=60)
ERROR_LENGTH = 2000


@dataclass(frozen=True)
class Attempt:
    """How one delivery attempt ended: `retry_in` seconds is set when it should be tried again."""

    status: str
    retry_in: int | None = None


def signature(secret: str, body: bytes) -> str:
    """The X-EcoMap-Signature header: HMAC-SHA256 of the raw body with the team's secret."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def backoff(attempts: int) -> int:
    """Seconds to wait after the `attempts`-th failed attempt."""
    return BACKOFF_BASE_S * 2 ** (attempts - 1)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    # A redirect is an answer, not a new address to send the team's events to.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_NoRedirects)


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    """The response status and the start of its body; redirects come back as they are."""
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {url[:100]}")
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310 - scheme checked above
    try:
        with _opener.open(request, timeout=TIMEOUT_S) as response:
            return response.status, response.read(500).decode(errors="replace")
    except urllib.error.HTTPError as exc:  # 3xx, 4xx and 5xx all arrive here
        with exc:
            return exc.code, exc.read(500).decode(errors="replace")


def internal_address(ip: str) -> bool:
    """An address inside the deployment (loopback, private, link-local such as the cloud
    metadata service, reserved): a team's webhook must not make EcoMap call into it."""
    address = ipaddress.ip_address(ip.split("%", 1)[0])
    return (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    )


def destination_problem(url: str) -> str:
    """Why a delivery must not go to `url`, or "": its host resolves to an internal address.
    Allowed in development and tests (TEAM_WEBHOOK_ALLOW_PRIVATE, default DEBUG). A name that
    does not resolve is left to the POST, which fails and is retried."""
    if getattr(settings, "TEAM_WEBHOOK_ALLOW_PRIVATE", settings.DEBUG):
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        infos = socket.getaddrinfo(host, parts.port or 443, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        return ""
    for info in infos:
        if internal_address(str(info[4][0])):
            return f"refused: {host} resolves to the internal address {info[4][0]}"
    return ""


def _claim(delivery_id: int, now) -> bool:
    """Take a delivery that is due: pending (a retry only once most of its backoff has passed,
    so a redelivered copy of the previous attempt's message does not jump the wait), or running
    with a silent attempt (its worker died). The update is conditional on what was read."""
    row = (
        WebhookDelivery.objects.filter(pk=delivery_id)
        .values("status", "attempts", "heartbeat_at", "started_at")
        .first()
    )
    if row is None:
        return False
    last_word = row["heartbeat_at"] or row["started_at"]
    if row["status"] == "pending":
        wait = timedelta(seconds=backoff(row["attempts"]) / 2) if row["attempts"] else None
        if wait and last_word and now < last_word + wait:
            return False
    elif row["status"] != "running" or (last_word and now - last_word < ATTEMPT_SILENCE):
        return False
    return bool(
        WebhookDelivery.objects.filter(
            pk=delivery_id, status=row["status"], attempts=row["attempts"]
        ).update(
            status="running",
            attempts=F("attempts") + 1,
            started_at=now,
            heartbeat_at=now,
        )
    )


def webhook_deliver(*, delivery_id: int) -> Attempt | None:
    """Make one attempt at a delivery; None when the row is gone, done, or being sent right now.

    2xx delivers it; anything else (another status, a redirect, a timeout, a refused
    connection) puts it back to pending for a retry after `backoff`, or after MAX_ATTEMPTS
    fails it with the last error kept."""
    now = timezone.now()
    if not _claim(delivery_id, now):
        return None
    delivery = WebhookDelivery.objects.select_related("team").get(pk=delivery_id)
    body = json.dumps(
        {**delivery.payload, "sent_at": now.isoformat()}, ensure_ascii=False, separators=(",", ":")
    ).encode()
    headers = {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": "EcoMap-Webhook/1",
        "X-EcoMap-Event": delivery.event,
        "X-EcoMap-Delivery": str(delivery.pk),
        "X-EcoMap-Signature": signature(delivery.team.webhook_secret, body),
    }
    response_status, error = None, ""
    refused = destination_problem(delivery.url)
    try:
        if refused:
            error = refused
        else:
            response_status, text = _post(delivery.url, body, headers)
            if not 200 <= response_status < 300:
                error = f"HTTP {response_status}: {text[:300]}".strip()
    except Exception as exc:  # timeouts, refused connections, DNS, TLS: all worth a retry
        error = f"{type(exc).__name__}: {exc}"
    if not error:
        outcome = Attempt("delivered")
    elif refused or delivery.attempts >= MAX_ATTEMPTS:
        outcome = Attempt("failed")
    else:
        outcome = Attempt("pending", retry_in=backoff(delivery.attempts))
    if error:
        logger.warning("webhook delivery %s attempt %s: %s", delivery_id, delivery.attempts, error)
    finished = timezone.now()
    WebhookDelivery.objects.filter(pk=delivery_id, status="running").update(
        status=outcome.status,
        response_status=response_status,
        last_error=error[:ERROR_LENGTH],
        heartbeat_at=finished,
        finished_at=None if outcome.retry_in else finished,
    )
    return outcome


def webhook_fail(*, delivery_id: int, error: str) -> None:
    WebhookDelivery.objects.filter(pk=delivery_id).exclude(status="delivered").update(
        status="failed", last_error=error[:ERROR_LENGTH], finished_at=timezone.now()
    )


def webhooks_recover(*, now, pending_grace, running_limit) -> dict[str, int]:
    """Deliveries whose message was lost are published again — pending past `pending_grace`
    since they were made or last tried (a retry waiting for its backoff is left alone) — and
    attempts whose worker died are made again, or after MAX_ATTEMPTS failed."""
    recently_tried = Q(status="pending", heartbeat_at__gte=now - pending_grace)
    return jobs_resend(
        WebhookDelivery.objects.exclude(recently_tried),
        task_name=DELIVER_WEBHOOK,
        now=now,
        pending_grace=pending_grace,
        running_limit=max(running_limit, ATTEMPT_SILENCE),
        max_attempts=MAX_ATTEMPTS,
        fail=lambda pk, attempts: webhook_fail(
            delivery_id=pk, error=f"stopped {attempts} times without an answer"
        ),
    )
