"""The site's URLs plus one page that crashes, to see the 500 page a visitor gets."""

from django.urls import path

from ecomap.urls import handler400, handler403, handler404, handler500, urlpatterns


def crashing_view(request):
    raise RuntimeError("a bug")


urlpatterns = [*urlpatterns, path("crash/", crashing_view), path("api/v1/crash/", crashing_view)]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
