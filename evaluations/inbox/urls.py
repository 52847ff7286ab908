"""Inbox and search pages (the home page itself is mounted at / in ecomap/urls.py)."""

from django.urls import path

from evaluations.inbox import views

app_name = "inbox"

urlpatterns = [
    path("", views.inbox_view, name="index"),
    path("read-all/", views.mark_all_read_view, name="read-all"),
    path("notifications/<int:pk>/", views.notification_open_view, name="open"),
    path("search/", views.search_view, name="search"),
]
