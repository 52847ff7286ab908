"""The Configuration page, under /evaluations/<pk>/configuration/ (the archive it links is the
API's `config.tar.gz`)."""

from django.urls import path

from evaluations.configgen import views

app_name = "configuration"

urlpatterns = [
    path("<int:pk>/configuration/", views.evaluation_configuration_view, name="page"),
]
