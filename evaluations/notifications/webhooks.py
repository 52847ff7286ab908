"""Team webhooks: a delivery row is POSTed as signed JSON, retried with backoff, and recovered by
the sweep like every other job row (pending → running → delivered | failed)."""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import logging
import socket
import ssl
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from ecomap.dispatch import DELIVER_WEBHOOK
from ecomap.jobs import jobs_resend
from evaluations.notifications.formats import webhook_body
from evaluations.notifications.models import WebhookDelivery

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
TIMEOUT_S = 5
# Waits before attempts 2 to 5: 5, 10, 20, 40 s. They stay under the sweep's pending grace, so
# a delivery waiting for its retry is never sent again by the sweep as well.
BACKOFF_BASE_S = 5
# An attempt takes at most TIMEOUT_S: one running this long without a word lost its worker.
ATTEMPT_SILENCE = timedelta(seconds=60)
ERROR_LENGTH = 2000
# Checked addresses tried in turn when one refuses the connection: three connect timeouts and
# the request stay well inside ATTEMPT_SILENCE.
ADDRESSES_TRIED = 3


@dataclass(frozen=True)
class Attempt:
    """How one delivery attempt ended: `retry_in` seconds is set when it should be tried again."""

    status: str
    retry_in: int | None = None


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The X-EcoMap-Signature header: HMAC-SHA256, with the delivery's secret, of the
    X-EcoMap-Timestamp value, a full stop and the raw body (a receiver refuses old timestamps,
    so a captured request cannot be replayed later)."""
    signed = str(timestamp).encode() + b"." + body
    return "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def backoff(attempts: int) -> int:
    """Seconds to wait after the `attempts`-th failed attempt."""
    return BACKOFF_BASE_S * 2 ** (attempts - 1)


# Ranges Python 3.11's `is_global` still calls global although nothing public answers there, or
# that carry an IPv4 address inside an IPv6 one, reached through a translator or relay EcoMap
# does not control (whatever the IPv4 inside, even a public one): the IETF protocol block
# (192.0.0.0/24), the 6to4 relay and prefix, NAT64 (well-known and local-use),
# IPv4-compatible, IPv4-translated (RFC 2765/6145), Teredo and the deprecated site-local IPv6
# addresses. IPv4-mapped addresses are not among them: they are judged by their IPv4.
_NOT_PUBLIC = tuple(
    ipaddress.ip_network(network)
    for network in (
        "192.0.0.0/24",
        "192.88.99.0/24",
        "::/96",
        "::ffff:0:0:0/96",
        "64:ff9b::/96",
        "64:ff9b:1::/48",
        "2001::/32",
        "2002::/16",
        "fec0::/10",
    )
)


class Refused(Exception):
    """The destination must not be called: the delivery fails at once, without a request."""


def public_address(ip: str) -> bool:
    """Whether `ip` is a public unicast address a team's receiver may have: `is_global` (which
    leaves out loopback, private, link-local such as the cloud metadata service, shared
    100.64.0.0/10, reserved, documentation ranges) and not multicast nor one of _NOT_PUBLIC
    (every other IPv6 form carrying an IPv4 address); an IPv4-mapped IPv6 address, how a
    dual-stack socket names an IPv4 peer, is judged by its IPv4 address."""
    address = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        address.is_global
        and not address.is_multicast
        and not any(address in network for network in _NOT_PUBLIC)
    )


def internal_address(ip: str) -> bool:
    """Not a public address: a team's webhook must not make EcoMap call into the deployment."""
    return not public_address(ip)


def _private_allowed() -> bool:
    # Development and tests (TEAM_WEBHOOK_ALLOW_PRIVATE, default DEBUG) post to local receivers.
    return getattr(settings, "TEAM_WEBHOOK_ALLOW_PRIVATE", settings.DEBUG)


def destination_addresses(host: str, port: int) -> list[str]:
    """The addresses of `host`, resolved once; the POST connects only to these. Refused when
    any of them is not public (outside development); a name that does not resolve raises
    OSError, which is retried like a refused connection."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not _private_allowed():
        for address in addresses:
            if internal_address(address):
                raise Refused(f"refused: {host} resolves to the internal address {address}")
    return addresses


def _tls_context() -> ssl.SSLContext:
    """Certificate and host name checked against the system's CAs (tests swap in their own)."""
    return ssl.create_default_context()


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to one checked IP address: the Host header, TLS SNI and the
    certificate check still use the URL's host name, but no second DNS lookup takes place
    (a name whose answer changes after the check cannot redirect the POST)."""

    def __init__(self, host, port, *, address: str, tls: ssl.SSLContext | None, timeout):
        super().__init__(host, port, timeout=timeout)
        self.address = address
        self.tls = tls
        self.default_port = 443 if tls else 80  # no ":443" in the Host header

    def connect(self):
        sock = socket.create_connection((self.address, self.port), self.timeout)
        try:
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str, str]:
    """The response status, the start of its body and its Location header; redirects come back
    as they are (an answer, not a new address to send the team's events to: it was never
    checked, and could be an internal one)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise Refused(f"refused: not an http(s) URL: {url[:100]}")
    tls = _tls_context() if scheme == "https" else None
    port = parts.port or (443 if tls else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    failure: OSError | None = None
    for address in destination_addresses(parts.hostname, port)[:ADDRESSES_TRIED]:
        connection = _PinnedConnection(
            parts.hostname, port, address=address, tls=tls, timeout=TIMEOUT_S
        )
        try:
            try:
                connection.connect()
            except OSError as exc:  # the next checked address, as socket.create_connection does
                failure = exc
                continue
            connection.request("POST", target, body=body, headers=headers)
            response = connection.getresponse()
            location = (response.getheader("Location") or "")[:200]
            return response.status, response.read(500).decode(errors="replace"), location
        finally:
            connection.close()
    raise failure or OSError(f"no address for {parts.hostname}")


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

    2xx delivers it; a redirect (3xx) is never followed and fails it at once, saying so (the
    receiver's URL must be the final one); anything else (another status, a timeout, a refused
    connection) puts it back to pending for a retry after `backoff`, or after MAX_ATTEMPTS
    fails it with the last error kept."""
    now = timezone.now()
    if not _claim(delivery_id, now):
        return None
    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    timestamp = int(now.timestamp())
    body = webhook_body(
        format=delivery.format,
        payload=delivery.payload,
        secret=delivery.secret,
        timestamp=timestamp,
        sent_at=now.isoformat(),
    )
    headers = {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": "EcoMap-Webhook/1",
        "X-EcoMap-Event": delivery.event,
        "X-EcoMap-Delivery": str(delivery.pk),
        "X-EcoMap-Timestamp": str(timestamp),
        # The URL and secret of the delivery, as they were when the event happened: a retry
        # after a rotation never sends the new secret's signature to the old address.
        "X-EcoMap-Signature": signature(delivery.secret, timestamp, body),
    }
    response_status, error, refused = None, "", False
    try:
        response_status, text, location = _post(delivery.url, body, headers)
        if 300 <= response_status < 400:
            error = (
                f"Redirect not followed: HTTP {response_status} to {location or '(no Location)'}"
                "; set the webhook to the receiver's final URL"
            )
            refused = True
        elif not 200 <= response_status < 300:
            error = f"HTTP {response_status}: {text[:300]}".strip()
    except Refused as exc:
        error, refused = str(exc), True
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
    retry_at = finished + timedelta(seconds=outcome.retry_in) if outcome.retry_in else None
    WebhookDelivery.objects.filter(pk=delivery_id, status="running").update(
        status=outcome.status,
        response_status=response_status,
        last_error=error[:ERROR_LENGTH],
        heartbeat_at=finished,
        finished_at=None if outcome.retry_in else finished,
        next_attempt_at=retry_at,
    )
    return outcome


def webhook_fail(*, delivery_id: int, error: str) -> None:
    WebhookDelivery.objects.filter(pk=delivery_id).exclude(status="delivered").update(
        status="failed",
        last_error=error[:ERROR_LENGTH],
        finished_at=timezone.now(),
        next_attempt_at=None,
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
