"""The catalog app: vocabulary, projects, placement rows, the compatibility engine's Django side."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = _("Catalog")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the rooms' jobs in every process (web and worker): services enqueue them by
        # name through ecomap.dispatch, so nothing else imports these modules.
        import catalog.imports.tasks  # noqa: F401
        import catalog.matrix.tasks  # noqa: F401
        from catalog.matrix.services import matrix_refresh_request
        from catalog.services import on_catalog_change

        # Every committed catalog write asks for a fresh matrix (coalesced into one job).
        on_catalog_change(matrix_refresh_request)
