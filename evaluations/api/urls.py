"""Evaluation API routes, relative to /api/v1/ (the project's API tree includes them there)."""

from rest_framework.routers import SimpleRouter

from evaluations.api import report_views, views

router = SimpleRouter()
router.register("evaluations", views.EvaluationViewSet, basename="evaluation")
router.register(
    r"evaluations/(?P<evaluation_pk>[^/.]+)/reports",
    report_views.ReportViewSet,
    basename="evaluation-report",
)

urlpatterns = router.urls
