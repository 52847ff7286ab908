"""Cluster pages, mounted at the site root: /clusters/ and /evaluations/<pk>/cluster/."""

from django.urls import path

from evaluations.clusters import views

app_name = "clusters"

urlpatterns = [
    path("clusters/", views.cluster_list_view, name="list"),
    path("clusters/<int:pk>/", views.cluster_detail_view, name="detail"),
    path("evaluations/<int:pk>/cluster/", views.evaluation_cluster_view, name="compare"),
]
