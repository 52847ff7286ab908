"""Team pages (/teams/)."""

app_name = "teams"

urlpatterns: list = []
