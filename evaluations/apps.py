"""The evaluations app: teams, evaluations and their four steps, decisions, reviews, audit log."""

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
