"""Clones made before issue 28 learn their source and its authors from the "cloned" audit entry
(evaluations migration 0009), so the review-independence rule holds for them too."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("evaluations", "0008_decision_pool_tenant_sharing")]
AFTER = [("evaluations", "0009_clone_source_authors")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_existing_clones_get_their_source_and_its_authors_up_to_the_copy():
    try:
        old = _migrate(BEFORE)
        carol, bob, erin, later = (make_user(n) for n in ("carol", "bob", "erin", "later"))
        Team = old.get_model("evaluations", "Team")
        Evaluation = old.get_model("evaluations", "Evaluation")
        AuditEntry = old.get_model("evaluations", "AuditEntry")
        team = Team.objects.create(name="Platform", slug="platform")
        source = Evaluation.objects.create(title="Source", team=team, created_by_id=carol.pk)
        AuditEntry.objects.create(
            evaluation=source, actor_id=erin.pk, action="step_saved", revision=2
        )
        copy = Evaluation.objects.create(title="Copy of Source", team=team, created_by_id=bob.pk)
        AuditEntry.objects.create(
            evaluation=copy,
            actor_id=bob.pk,
            action="cloned",
            changes={"cloned_from": {"id": source.pk, "revision": 2}},
            revision=1,
        )
        AuditEntry.objects.create(  # after the copy: not in it
            evaluation=source, actor_id=later.pk, action="step_saved", revision=3
        )
        second = Evaluation.objects.create(title="Copy of copy", team=team, created_by_id=bob.pk)
        AuditEntry.objects.create(
            evaluation=second,
            actor_id=bob.pk,
            action="cloned",
            changes={"cloned_from": {"id": copy.pk}},
            revision=1,
        )

        new = _migrate(AFTER)

        Evaluation = new.get_model("evaluations", "Evaluation")
        copy = Evaluation.objects.get(pk=copy.pk)
        second = Evaluation.objects.get(pk=second.pk)
        assert copy.cloned_from_id == source.pk
        assert set(copy.source_authors.values_list("pk", flat=True)) == {carol.pk, erin.pk}
        assert second.cloned_from_id == copy.pk
        assert set(second.source_authors.values_list("pk", flat=True)) == {
            carol.pk, erin.pk, bob.pk,
        }  # fmt: skip
        assert Evaluation.objects.get(pk=source.pk).cloned_from_id is None
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
