"""The page shown when sign-in is locked after repeated failures (django-axes calls it)."""

from __future__ import annotations

import math
from datetime import timedelta

from axes.helpers import get_cool_off
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
