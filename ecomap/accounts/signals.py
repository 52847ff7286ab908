"""Signals of the accounts app; evaluations listens without ecomap importing it."""

from __future__ import annotations

from django.dispatch import Signal

# Sent after every single sign-on, with `user` and `groups` (the provider's groups claim as a
# list of strings): evaluations.teams sets the memberships OIDC_GROUP_TEAMS maps them to.
sso_signed_in = Signal()
