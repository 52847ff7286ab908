"""Sign-in lockout (django-axes calls these): the address failures are counted for, and the page
shown when sign-in is locked after repeated failures."""

from __future__ import annotations

import math
from datetime import timedelta

from axes.helpers import get_cool_off
from django.conf import settings
from django.shortcuts import render
from django.utils import timezone


def locked_out(request, original_response=None, credentials=None):
    """429 with when to try again: the cool-off runs from the last failed attempt."""
    cool_off = get_cool_off(request) or timedelta(minutes=15)
    context = {
        "minutes": max(1, math.ceil(cool_off.total_seconds() / 60)),
        "retry_at": timezone.localtime() + cool_off,
    }
    return render(request, "registration/locked_out.html", context, status=429)


def client_address(request) -> str:
    """The peer's address or, with TRUSTED_PROXIES proxies in front, the one the outermost of them
    appended to X-Forwarded-For: the address DRF's rate limits use (NUM_PROXIES)."""
    proxies = settings.TRUSTED_PROXIES
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if proxies and forwarded:
        return forwarded[-min(proxies, len(forwarded))]
    return request.META.get("REMOTE_ADDR", "")
