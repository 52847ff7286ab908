from django.urls import path
from rest_framework.routers import DefaultRouter

from catalog.api import views
from catalog.imports import api as import_api
from catalog.matrix import api as matrix_api

router = DefaultRouter()
router.register("projects", views.ProjectViewSet, basename="project")
router.register("placements", views.PlacementViewSet, basename="placement")
router.register("interfaces", views.InterfaceViewSet, basename="interface")
router.register("imports", import_api.ImportViewSet, basename="import")

urlpatterns = [
    path("vocabulary/", views.VocabularyView.as_view(), name="vocabulary"),
    path("export/", views.ExportView.as_view(), name="export"),
    path(
        "kubernetes-features/",
        views.KubernetesFeaturesView.as_view(),
        name="kubernetes-features",
    ),
    path("schema/bundle/", views.BundleSchemaView.as_view(), name="bundle-schema"),
    path("matrix/", matrix_api.MatrixView.as_view(), name="matrix"),
    path("matrix/pair/", matrix_api.MatrixPairView.as_view(), name="matrix-pair"),
    *router.urls,
]
