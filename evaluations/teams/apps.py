"""The teams app (issue 44): teams, members and roles, invitations; single sign-on's group
mapping answers `sso_signed_in` from `evaluations.teams.sso` (connected by the evaluations app)."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TeamsConfig(AppConfig):
    name = "evaluations.teams"
    label = "teams"
    verbose_name = _("Teams")
    default_auto_field = "django.db.models.BigAutoField"
