"""Home, inbox and search pages."""

app_name = "inbox"

urlpatterns: list = []
