"""The evaluations app: evaluations and their four steps, decisions, reviews, audit log (teams,
notifications and the inbox are apps of their own inside it: issue 44)."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    verbose_name = _("Evaluations")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the report job in every process (web and worker): services enqueue it by
        # name through ecomap.dispatch, so nothing else imports this module.
        import evaluations.reports.tasks  # noqa: F401
        import evaluations.simulations.tasks  # noqa: F401
        import evaluations.tasks  # noqa: F401
        from catalog.signals import catalog_rows_changed
        from evaluations.decisions.drift import on_catalog_rows_changed

        # The catalog never imports evaluations: it announces its writes, and drift listens.
        catalog_rows_changed.connect(on_catalog_rows_changed, dispatch_uid="evaluations-drift")

        from ecomap.accounts.signals import sso_signed_in
        from evaluations.teams.sso import on_sso_signed_in

        # Single sign-on lives in ecomap; the teams its groups map to are evaluations'.
        sso_signed_in.connect(on_sso_signed_in, dispatch_uid="evaluations-sso-teams")
