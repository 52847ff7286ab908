"""Share pages are rate-limited (issue 41, L1): opens of /shared/<key>/, its report.pdf and adr.md
count per client address (the lockout's rule: the peer, or the address a trusted proxy appended)
and per link, in the shared cache; a refused open answers 429 with Retry-After and writes no
access-log row."""

from __future__ import annotations

import socket

import pytest
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.test import Client
from rest_framework.throttling import SimpleRateThrottle

from ecomap.settings import base
from evaluations.reports.models import Report
from evaluations.sharing.models import ShareAccess
from evaluations.sharing.services import share_link_create
from tests.evaluations.factories import approved, make_cast, small_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast():
    small_catalog()
    cache.clear()  # no counts from an earlier test
    return make_cast()


@pytest.fixture
def decision(cast):
    return approved(cast)


def _share(decision, cast) -> str:
    _link, key = share_link_create(evaluation=decision, actor=cast.bob, label="Auditor", days=7)
    return key


def _rates(settings, monkeypatch, **rates: str | None) -> None:
    merged = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": merged}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", merged)


def _open(key: str, address: str = "203.0.113.7", what: str = "", **extra):
    return Client().get(f"/shared/{key}/{what}", REMOTE_ADDR=address, **extra)


def test_opens_over_the_address_rate_are_refused_with_when_to_retry_and_not_logged(
    decision, cast, settings, monkeypatch
):
    _rates(settings, monkeypatch, share_open="3/min", share_link=None)
    key = _share(decision, cast)

    answers = [
        _open(key).status_code,
        _open(key, what="adr.md").status_code,
        _open(key).status_code,
    ]
    refused = _open(key)

    assert answers == [200, 200, 200]
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert refused["Cache-Control"] == "private, no-store"
    assert "Too many opens" in refused.content.decode()
    assert ShareAccess.objects.count() == 3  # the refused open is not in the log


def test_the_pdf_counts_against_the_same_budget(decision, cast, settings, monkeypatch):
    report = Report.objects.create(
        evaluation=decision, status=Report.Status.SUCCEEDED, evaluation_revision=decision.revision
    )
    report.file.save("r.pdf", ContentFile(b"%PDF-1.7 shared report"))
    _rates(settings, monkeypatch, share_open="2/min", share_link=None)
    key = _share(decision, cast)
    _open(key)

    assert _open(key, what="report.pdf").status_code == 200
    assert _open(key, what="report.pdf").status_code == 429
    assert ShareAccess.objects.count() == 2


def test_another_address_has_its_own_budget(decision, cast, settings, monkeypatch):
    _rates(settings, monkeypatch, share_open="1/min", share_link=None)
    key = _share(decision, cast)
    _open(key, address="203.0.113.7")

    assert _open(key, address="203.0.113.7").status_code == 429
    assert _open(key, address="198.51.100.9").status_code == 200


def test_a_forged_forwarded_for_header_does_not_dodge_the_address_limit(
    decision, cast, settings, monkeypatch
):
    _rates(settings, monkeypatch, share_open="1/min", share_link=None)
    key = _share(decision, cast)
    _open(key, HTTP_X_FORWARDED_FOR="10.0.0.1")

    assert _open(key, HTTP_X_FORWARDED_FOR="10.0.0.2").status_code == 429


def test_opens_over_the_links_rate_are_refused_from_every_address(
    decision, cast, settings, monkeypatch
):
    _rates(settings, monkeypatch, share_open=None, share_link="2/hour")
    key = _share(decision, cast)
    other_key = _share(decision, cast)

    answers = [_open(key, address=f"198.51.100.{n}").status_code for n in range(1, 4)]

    assert answers == [200, 200, 429]
    assert _open(other_key, address="198.51.100.3").status_code == 200  # its own budget
    assert ShareAccess.objects.count() == 3


def test_a_burst_of_300_opens_writes_no_more_log_rows_than_the_default_rates_allow(
    decision, cast, settings, monkeypatch
):
    """The finding: 300 opens in 21 s, each an access-log row. With the rates EcoMap ships."""
    shipped = base.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    _rates(
        settings, monkeypatch, share_open=shipped["share_open"], share_link=shipped["share_link"]
    )
    per_address = int(shipped["share_open"].split("/")[0])
    key = _share(decision, cast)

    answers = [_open(key).status_code for _ in range(300)]

    assert answers.count(200) == per_address
    assert answers.count(429) == 300 - per_address
    assert ShareAccess.objects.count() == per_address


def test_an_unknown_key_counts_against_the_address(decision, cast, settings, monkeypatch):
    """Guessing keys is slowed like opening one (and fills no per-link counts)."""
    _rates(settings, monkeypatch, share_open="2/min", share_link=None)

    answers = [_open(f"shr_guess{n}").status_code for n in range(3)]

    assert answers == [404, 404, 429]


def test_with_the_cache_down_the_link_still_opens(decision, cast, settings, monkeypatch):
    """Like every rate limit here: an unreachable cache lets the open through, with a warning."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings.CACHES = {
        "default": {
            "BACKEND": "ecomap.outage.FailOpenRedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
        }
    }
    _rates(settings, monkeypatch, share_open="1/min", share_link="1/hour")
    key = _share(decision, cast)

    assert [_open(key).status_code for _ in range(2)] == [200, 200]
