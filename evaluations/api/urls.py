"""Evaluation API routes, relative to /api/v1/ (the project's API tree includes them there)."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from evaluations.api import views
from evaluations.approvals import api as approval_api
from evaluations.clusters import api as cluster_api
from evaluations.configgen.api import ConfigArchiveView, ConfigView
from evaluations.reports import api as report_api
from evaluations.simulations.api import CapacityView

router = SimpleRouter()
router.register("evaluations", views.EvaluationViewSet, basename="evaluation")
router.register("clusters", cluster_api.ClusterSnapshotViewSet, basename="cluster")
router.register(
    r"evaluations/(?P<evaluation_pk>[^/.]+)/reports",
    report_api.ReportViewSet,
    basename="evaluation-report",
)

urlpatterns = [
    path("schema/cluster/", cluster_api.ClusterSchemaView.as_view(), name="cluster-schema"),
    # DESIGN.md names the file as it is saved: `adr.md`, no trailing slash.
    path(
        "evaluations/<str:pk>/adr.md",
        views.EvaluationViewSet.as_view(
            {"get": "adr_markdown"}, content_negotiation_class=views.AnyAccept
        ),
        name="evaluation-adr-markdown",
    ),
    path(
        "teams/<slug:slug>/approval-policy/",
        approval_api.ApprovalPolicyView.as_view(),
        name="team-approval-policy",
    ),
    path(
        "evaluations/<str:pk>/approval/",
        approval_api.ApprovalStatusView.as_view(),
        name="evaluation-approval",
    ),
    path(
        "evaluations/<str:pk>/review-requests/",
        approval_api.ReviewRequestView.as_view(),
        name="evaluation-review-requests",
    ),
    path("evaluations/<str:pk>/capacity/", CapacityView.as_view(), name="evaluation-capacity"),
    path("evaluations/<str:pk>/config/", ConfigView.as_view(), name="evaluation-config"),
    # The archive is named as it is saved (like adr.md): `config.tar.gz`, no trailing slash.
    path(
        "evaluations/<str:pk>/config.tar.gz",
        ConfigArchiveView.as_view(content_negotiation_class=views.AnyAccept),
        name="evaluation-config-archive",
    ),
    *router.urls,
]
