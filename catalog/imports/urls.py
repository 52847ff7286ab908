"""URLs of the import pages and the unplaced work queue (mounted under catalog/)."""

from django.urls import path

from catalog.imports import views as import_views

app_name = "imports"

urlpatterns = [
    path("imports/", import_views.import_list_view, name="list"),
    path("imports/upload/", import_views.import_upload_view, name="upload"),
    path("imports/<uuid:pk>/", import_views.import_detail_view, name="detail"),
    path("unplaced/", import_views.unplaced_view, name="unplaced"),
]
