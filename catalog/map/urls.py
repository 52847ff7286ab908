"""URLs of the three-layer map: the page, its frameable embed, its data and card fragments."""

from django.urls import path

from catalog.map import views as map_views

app_name = "map"

urlpatterns = [
    path("", map_views.map_page_view, name="page"),
    path("embed/", map_views.map_embed_view, name="embed"),
    path("data/", map_views.map_data_view, name="data"),
    path("table/", map_views.map_table_view, name="table"),
    path("data.csv", map_views.map_csv_view, name="csv"),
    path("card/<slug:slug>/", map_views.map_card_view, name="card"),
]
