from django.urls import path

from catalog.matrix import views as matrix_views

app_name = "matrix"

urlpatterns = [
    path("", matrix_views.matrix_page, name="page"),
    path("status/", matrix_views.matrix_status, name="status"),
    path("pair/", matrix_views.pair_page, name="pair"),
    path("express/", matrix_views.express_page, name="express"),
]
