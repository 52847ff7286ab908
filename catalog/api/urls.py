from django.urls import path
from rest_framework.routers import DefaultRouter

from catalog.api import matrix_views, views

router = DefaultRouter()
router.register("projects", views.ProjectViewSet, basename="project")
router.register("placements", views.PlacementViewSet, basename="placement")
router.register("interfaces", views.InterfaceViewSet, basename="interface")
router.register("imports", views.ImportViewSet, basename="import")

urlpatterns = [
    path("vocabulary/", views.VocabularyView.as_view(), name="vocabulary"),
    path("export/", views.ExportView.as_view(), name="export"),
    path("schema/bundle/", views.BundleSchemaView.as_view(), name="bundle-schema"),
    path("matrix/", matrix_views.MatrixView.as_view(), name="matrix"),
    path("matrix/pair/", matrix_views.MatrixPairView.as_view(), name="matrix-pair"),
    *router.urls,
]
