"""Deliveries made before issue 28 (L3) keep signing with the secret they were being sent with:
evaluations migration 0010 gives unfinished ones their team's current secret."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("evaluations", "0009_clone_source_authors")]
AFTER = [("evaluations", "0010_webhook_delivery_secret")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_unfinished_deliveries_keep_their_teams_secret_and_finished_ones_none():
    try:
        old = _migrate(BEFORE)
        Team = old.get_model("evaluations", "Team")
        WebhookDelivery = old.get_model("evaluations", "WebhookDelivery")
        team = Team.objects.create(
            name="Platform",
            slug="platform",
            webhook_url="https://hooks.example.org/e",
            webhook_secret="the-secret-0123456789",
        )
        other = Team.objects.create(name="Research", slug="research")
        made = {
            status: WebhookDelivery.objects.create(
                team=team, event="submitted", url=team.webhook_url, status=status
            ).pk
            for status in ("pending", "running", "delivered", "failed")
        }
        without = WebhookDelivery.objects.create(
            team=other, event="submitted", url="https://hooks.example.org/r"
        ).pk

        new = _migrate(AFTER)

        WebhookDelivery = new.get_model("evaluations", "WebhookDelivery")
        secrets = dict(WebhookDelivery.objects.values_list("pk", "secret"))
        assert {status: secrets[pk] for status, pk in made.items()} == {
            "pending": "the-secret-0123456789",
            "running": "the-secret-0123456789",
            "delivered": "",
            "failed": "",
        }
        assert secrets[without] == ""
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
