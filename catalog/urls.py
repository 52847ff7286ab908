from django.urls import path

from catalog import views

app_name = "catalog"

urlpatterns = [
    path("", views.project_list_view, name="project-list"),
    path("projects/<slug:slug>/", views.project_detail_view, name="project-detail"),
    path("coverage/", views.coverage_view, name="coverage"),
]
