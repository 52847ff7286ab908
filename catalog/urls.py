from django.urls import path

from catalog import views
from catalog.coverage import views as coverage_views

app_name = "catalog"

urlpatterns = [
    path("", views.project_list_view, name="project-list"),
    path("projects/<slug:slug>/", views.project_detail_view, name="project-detail"),
    path("coverage/", coverage_views.coverage_view, name="coverage"),
]
