"""The site's root: mounted by ecomap.urls through include() (the project package names the
evaluations app's modules only as strings), keeping the global URL name "home"."""

from django.urls import path

from evaluations.inbox.views import home_view

urlpatterns = [path("", home_view, name="home")]
