"""What a share link opens, under /shared/<key>/: the decision, its PDF, its ADR. Nothing else."""

from django.urls import path

from evaluations.sharing import views

app_name = "shared"

urlpatterns = [
    path("<str:key>/", views.shared_decision_view, name="decision"),
    path("<str:key>/report.pdf", views.shared_pdf_view, name="pdf"),
    path("<str:key>/adr.md", views.shared_adr_view, name="adr"),
]
