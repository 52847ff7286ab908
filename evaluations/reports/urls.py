"""Report URLs under /reports/: request, status (polled), download."""

from django.urls import path

from evaluations.reports import views as report_views

app_name = "reports"

urlpatterns = [
    path("evaluations/<int:pk>/", report_views.report_request_view, name="request"),
    path(
        "evaluations/<int:pk>/<int:report_id>/status/",
        report_views.report_status_view,
        name="status",
    ),
    path(
        "evaluations/<int:pk>/<int:report_id>/download/",
        report_views.report_download_view,
        name="download",
    ),
]
