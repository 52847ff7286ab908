"""Where a team's webhook may send (issue 28, L2) and what a delivery is signed with (L3).

Only public addresses, checked on the answer of one DNS lookup, and the POST connects to the
checked address (a second lookup answering 127.0.0.1 is never made); a delivery keeps the URL and
secret of the moment its event happened, and its signature covers a timestamp."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import shutil
import socket
import ssl
import subprocess
import time
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from evaluations.errors import InvalidInput
from evaluations.notifications import webhooks
from evaluations.notifications.models import WebhookDelivery
from evaluations.notifications.webhooks import public_address, webhook_deliver
from evaluations.teams.services import team_webhook_set
from tests.evaluations.factories import make_cast, small_catalog, submitted
from tests.evaluations.notifications.webhook_receiver import webhook_receiver

pytestmark = pytest.mark.django_db

SECRET = "team-webhook-secret"
NAME = "hooks.example.test"
PUBLIC = "93.184.215.14"  # a global unicast address; the tests never reach it

# Not public, yet some of them pass `is_private` or (on Python 3.11) `is_global` alone.
NOT_PUBLIC = [
    "100.64.0.1",  # shared address space (carrier-grade NAT)
    "100.100.100.200",  # Alibaba Cloud's metadata service
    "192.0.0.192",  # IETF protocol assignments (Oracle Cloud's metadata service)
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "::ffff:127.0.0.1",  # IPv4-mapped loopback
    "::ffff:100.100.100.200",  # IPv4-mapped shared address
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "::127.0.0.1",  # IPv4-compatible (deprecated)
    "::ffff:0:7f00:1",  # IPv4-translated 127.0.0.1 (RFC 2765/6145, ::ffff:0:0:0/96)
    "::ffff:0:169.254.169.254",  # IPv4-translated metadata service
    "224.0.0.1",  # multicast
    "169.254.169.254",
    "10.0.0.5",
    "127.0.0.1",
    "::1",
    "fe80::1",
    "fc00::1",
    "0.0.0.0",  # noqa: S104 - an address refused, not one bound to
]


@pytest.fixture
def cast(db):
    small_catalog()
    return make_cast()


def with_webhook(cast, url: str, secret: str = SECRET) -> None:
    cast.team.webhook_url = url
    cast.team.webhook_secret = secret
    cast.team.save(update_fields=["webhook_url", "webhook_secret"])


def verify(request, secret: str) -> bool:
    """What a receiver does: recompute the signature over the timestamp, a full stop, the body."""
    signed = request.headers["X-EcoMap-Timestamp"].encode() + b"." + request.body
    expected = "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, request.headers["X-EcoMap-Signature"])


class Network:
    """socket.getaddrinfo and socket.create_connection for NAME: the DNS answers given in turn
    (the last repeats) and every connection recorded; a connection to PUBLIC reaches
    `public_port` on this machine, one to 127.0.0.1 reaches the port it asked for."""

    def __init__(self, monkeypatch, answers: list[str], public_port: int = 9):
        self.answers = answers
        self.lookups = 0
        self.connected: list[str] = []
        self.public_port = public_port
        real_lookup, real_connect = socket.getaddrinfo, socket.create_connection

        def lookup(host, port, *args, **kwargs):
            if host != NAME:
                return real_lookup(host, port, *args, **kwargs)
            answer = self.answers[min(self.lookups, len(self.answers) - 1)]
            self.lookups += 1
            family = socket.AF_INET6 if ":" in answer else socket.AF_INET
            address = (answer, port, 0, 0) if family == socket.AF_INET6 else (answer, port)
            return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", address)]

        def connect(address, timeout=None, source_address=None, **kwargs):
            host, port = address[0], address[1]
            if host == NAME:  # what the standard library does with a name: look it up again
                host = lookup(host, port)[0][4][0]
            self.connected.append(host)
            if host == PUBLIC:
                return real_connect(("127.0.0.1", self.public_port), timeout)
            return real_connect((host, port), timeout)

        monkeypatch.setattr(socket, "getaddrinfo", lookup)
        monkeypatch.setattr(socket, "create_connection", connect)


# ---- which addresses ----------------------------------------------------------------------------


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_an_address_that_is_not_public_is_refused(address):
    assert not public_address(address)


@pytest.mark.parametrize("address", [PUBLIC, "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_a_public_address_is_allowed(address):
    assert public_address(address)


def _embedded(form: str, ipv4: str) -> str:
    """`ipv4` inside an IPv6 address of `form`, laid out as the form's RFC says."""
    v4 = int(ipaddress.IPv4Address(ipv4))
    layouts = {
        "ipv4-translated": (0xFFFF << 48) | v4,  # ::ffff:0:a.b.c.d, RFC 2765 / 6145
        "nat64": (0x64FF9B << 96) | v4,  # 64:ff9b::/96, RFC 6052
        # 64:ff9b:1::/48 (RFC 8215), a /48 prefix as RFC 6052 lays it out: 16 bits, the u
        # octet, 16 bits
        "nat64-local-use": (0x0064FF9B0001 << 80) | ((v4 >> 16) << 64) | ((v4 & 0xFFFF) << 40),
        "ipv4-compatible": v4,  # ::a.b.c.d, deprecated (RFC 4291)
        "6to4": (0x2002 << 112) | (v4 << 80),  # 2002:V4ADDR::/48, RFC 3056
        # Teredo (RFC 4380): 2001:0::/32, the server's IPv4, flags, port, the client's IPv4
        # inverted
        "teredo": (0x20010000 << 96) | (v4 << 64) | (0xFFFFFFFF ^ v4),
    }
    return str(ipaddress.IPv6Address(layouts[form]))


EMBEDDING_FORMS = [
    "ipv4-translated",
    "nat64",
    "nat64-local-use",
    "ipv4-compatible",
    "6to4",
    "teredo",
]


@pytest.mark.parametrize("ipv4", ["127.0.0.1", "169.254.169.254", "10.0.0.5", "8.8.8.8"])
@pytest.mark.parametrize("form", EMBEDDING_FORMS)
def test_an_ipv6_address_that_embeds_an_ipv4_one_is_refused_whatever_the_ipv4(form, ipv4):
    """Issue 41 L4. Decided: only IPv4-mapped addresses (::ffff:a.b.c.d, how a dual-stack
    socket names a plain IPv4 peer) are judged by their IPv4; every other form that carries an
    IPv4 address reaches it through a translator or relay EcoMap does not control (and a
    receiver publishes its own IPv4 or IPv6 address, not one of these), so it is refused even
    when the IPv4 inside is public."""
    address = _embedded(form, ipv4)
    if form == "teredo":
        assert ipaddress.IPv6Address(address).teredo[1] == ipaddress.IPv4Address(ipv4)
    elif form == "6to4":
        assert ipaddress.IPv6Address(address).sixtofour == ipaddress.IPv4Address(ipv4)

    assert not public_address(address), address


@override_settings(TEAM_WEBHOOK_ALLOW_PRIVATE=False)
@pytest.mark.parametrize("form", EMBEDDING_FORMS)
def test_a_webhook_url_with_such_an_address_is_refused(cast, form):
    url = f"https://[{_embedded(form, '127.0.0.1')}]/hook"

    with pytest.raises(InvalidInput):
        team_webhook_set(team=cast.team, actor=cast.alice, url=url, secret=SECRET)


@override_settings(TEAM_WEBHOOK_ALLOW_PRIVATE=False)
@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_such_an_address_cannot_be_saved_as_a_webhook(cast, address):
    host = f"[{address}]" if ":" in address else address

    with pytest.raises(InvalidInput) as refused:
        team_webhook_set(
            team=cast.team, actor=cast.alice, url=f"https://{host}/hook", secret=SECRET
        )

    assert "internal addresses" in str(refused.value.errors)
    cast.team.refresh_from_db()
    assert cast.team.webhook_url == ""


@override_settings(TEAM_WEBHOOK_ALLOW_PRIVATE=False)
@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_a_name_resolving_to_such_an_address_is_refused_at_send_without_a_connection(
    cast, monkeypatch, address
):
    network = Network(monkeypatch, [address])
    with_webhook(cast, f"https://{NAME}/hook")
    submitted(cast)

    attempt = webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    assert (attempt.status, attempt.retry_in) == ("failed", None)
    assert network.connected == []
    assert f"internal address {address}" in WebhookDelivery.objects.get().last_error


@override_settings(TEAM_WEBHOOK_ALLOW_PRIVATE=False)
def test_a_name_with_one_internal_address_among_public_ones_is_refused(cast, monkeypatch):
    network = Network(monkeypatch, [PUBLIC])
    real_lookup = socket.getaddrinfo

    def two_answers(host, port, *args, **kwargs):
        return real_lookup(host, port, *args, **kwargs) + [
            (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("100.64.0.7", port))
        ]

    monkeypatch.setattr(socket, "getaddrinfo", two_answers)
    with_webhook(cast, f"https://{NAME}/hook")
    submitted(cast)

    attempt = webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    assert attempt.status == "failed" and network.connected == []


# ---- the connection goes to the checked address -------------------------------------------------


@override_settings(TEAM_WEBHOOK_ALLOW_PRIVATE=False)
def test_a_dns_answer_that_changes_after_the_check_never_reaches_the_second_address(
    cast, monkeypatch
):
    with webhook_receiver(204) as public, webhook_receiver(204) as internal:
        port = int(public.url.split(":")[2].split("/")[0])
        internal_port = int(internal.url.split(":")[2].split("/")[0])
        network = Network(monkeypatch, [PUBLIC, "127.0.0.1"], public_port=port)
        with_webhook(cast, f"http://{NAME}:{internal_port}/hooks/ecomap")
        submitted(cast)

        attempt = webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    assert internal.requests == []
    assert network.connected == [PUBLIC] and network.lookups == 1
    assert attempt.status == "delivered"
    (request,) = public.requests
    assert request.headers["Host"] == f"{NAME}:{internal_port}"
    assert request.path == "/hooks/ecomap"


def _certificate(tmp_path, name: str) -> ssl.SSLContext:
    """A server context with a self-signed certificate for `name` (made by the openssl tool)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(  # noqa: S603 - fixed arguments, no user input
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", f"/CN={name}"]
        + ["-addext", f"subjectAltName=DNS:{name}"],
        check=True,
        capture_output=True,
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert, key)
    return server, cert


@override_settings(TEAM_WEBHOOK_ALLOW_PRIVATE=False)
@pytest.mark.parametrize(("certified", "delivered"), [(NAME, True), ("other.example.test", False)])
def test_over_tls_the_pinned_connection_checks_the_certificate_for_the_host_name(
    cast, monkeypatch, tmp_path, certified, delivered
):
    server, cert = _certificate(tmp_path, certified)
    names: list[str] = []
    server.sni_callback = lambda connection, name, context: names.append(name)
    monkeypatch.setattr(webhooks, "_tls_context", lambda: ssl.create_default_context(cafile=cert))
    with webhook_receiver(204, tls=server, name=NAME) as receiver:
        port = int(receiver.url.split(":")[2].split("/")[0])
        network = Network(monkeypatch, [PUBLIC], public_port=port)
        with_webhook(cast, receiver.url)
        submitted(cast)

        attempt = webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    assert network.connected == [PUBLIC] and names == [NAME]
    if delivered:
        assert attempt.status == "delivered"
        assert receiver.requests[0].headers["Host"] == f"{NAME}:{port}"
    else:
        assert attempt.status == "pending" and receiver.requests == []
        assert "CERTIFICATE_VERIFY_FAILED" in WebhookDelivery.objects.get().last_error


# ---- what a delivery is signed with -------------------------------------------------------------


def test_the_signature_covers_a_current_timestamp_and_the_body(cast):
    with webhook_receiver(204) as receiver:
        with_webhook(cast, receiver.url)
        submitted(cast)
        before = int(time.time())
        webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk)

    (request,) = receiver.requests
    assert before <= int(request.headers["X-EcoMap-Timestamp"]) <= int(time.time())
    assert verify(request, SECRET)
    # The same body under another timestamp (a replay with a fresh header) does not verify.
    request.headers.replace_header("X-EcoMap-Timestamp", str(before - 3600))
    assert not verify(request, SECRET)


@override_settings(TEAM_WEBHOOK_ALLOW_LOCAL_HTTP=True)
def test_a_retry_after_a_rotation_keeps_the_url_and_secret_of_its_event(cast):
    """An admin moves the webhook and changes its secret while a delivery waits for its retry:
    the retry goes where and as the event was meant to go, never the new secret's signature
    to the old address."""
    with webhook_receiver(500, 204) as old, webhook_receiver(204) as new:
        with_webhook(cast, old.url, secret="old-secret-0123456789")
        submitted(cast)
        delivery = WebhookDelivery.objects.get()
        assert webhook_deliver(delivery_id=delivery.pk).status == "pending"
        team_webhook_set(
            team=cast.team, actor=cast.alice, url=new.url, secret="new-secret-0123456789"
        )
        waited = timezone.now() - timedelta(seconds=60)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(heartbeat_at=waited)

        assert webhook_deliver(delivery_id=delivery.pk).status == "delivered"

    assert new.requests == []
    assert len(old.requests) == 2
    assert all(verify(request, "old-secret-0123456789") for request in old.requests)
    assert not any(verify(request, "new-secret-0123456789") for request in old.requests)
