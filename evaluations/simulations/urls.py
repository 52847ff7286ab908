"""Capacity simulation URLs under /evaluations/<pk>/capacity/."""

from django.urls import path

from evaluations.simulations import views

app_name = "capacity"

urlpatterns = [
    path("<int:pk>/capacity/run/", views.capacity_request_view, name="request"),
    path("<int:pk>/capacity/status/", views.capacity_status_view, name="status"),
]
