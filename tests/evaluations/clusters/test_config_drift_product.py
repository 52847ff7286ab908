"""A snapshot compared with an evaluation's decision also lists its differences from the
configuration generated from that decision, per generated file: on the compare page and as the
API's `config_drift`; a decision whose configuration cannot be generated says why, once."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from catalog.engine.cluster import parse_snapshot
from evaluations.clusters.selectors import cluster_check
from evaluations.clusters.services import cluster_snapshot_upload
from evaluations.configgen.selectors import evaluation_config
from evaluations.decisions.models import Decision
from evaluations.management.commands.seed_demo_team import INFERENCE
from evaluations.models import Evaluation
from evaluations.teams.models import Team
from tests.catalog.engine.cluster.test_mig_disabled_detection import (
    mig_disabled_nodes,
    operator_snapshot,
)
from tests.evaluations.cluster_factories import (
    body,
    sign_small_catalog,
    snapshot,
    snapshot_as_generated,
)
from tests.evaluations.factories import fill_steps, make_cast, make_evaluation, small_catalog
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(builtin_catalog):
    """seed_demo_team's approved decision: HAMi and Kueue for twelve tenants."""
    user = make_user("demo")
    call_command("seed_demo_team", "demo", verbosity=0)
    evaluation = Evaluation.objects.get(
        state="approved", team__slug="platform-team", title=INFERENCE["title"]
    )
    return user, evaluation


def signed_in(user, language: str = "en") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def drifted_snapshot(evaluation: Evaluation) -> dict:
    """The cluster as the generated files say, except that tenant-1's ClusterQueue does not
    cover nvidia.com/gpumem (the issue's case: HAMi pods asking for memory wait forever)."""
    document = snapshot_as_generated(evaluation_config(evaluation))
    tenant = next(
        q for q in document["clusterqueues"]["items"] if q["metadata"]["name"] == "tenant-1"
    )
    group = tenant["spec"]["resourceGroups"][0]
    group["coveredResources"].remove("nvidia.com/gpumem")
    for flavor in group["flavors"]:
        flavor["resources"] = [r for r in flavor["resources"] if r["name"] != "nvidia.com/gpumem"]
    return document


def stored(user, evaluation: Evaluation, document: dict):
    return cluster_snapshot_upload(
        team=Team.objects.get(pk=evaluation.team_id), actor=user, body=body(document), role="admin"
    )


def test_the_compare_page_lists_differences_from_the_generated_files_grouped_by_file(demo):
    user, evaluation = demo
    snapshot_row = stored(user, evaluation, drifted_snapshot(evaluation))

    response = signed_in(user).get(
        f"/evaluations/{evaluation.pk}/cluster/?snapshot={snapshot_row.pk}"
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert "Differences from the generated configuration" in page
    section = page[page.index('id="config-drift"') :]
    assert "<code>kueue/cluster-queues.yaml</code>" in section
    assert "ClusterQueue tenant-1 does not cover nvidia.com/gpumem." in section
    # Files a snapshot cannot show are named together as not compared, never given a verdict.
    assert "<h3><code>hami/values.yaml</code></h3>" not in section
    not_compared = section[section.index("Not compared, because a cluster snapshot") :]
    assert "<code>hami/values.yaml</code>" in not_compared
    assert "<code>kueue/local-queues.yaml</code>" in not_compared


def test_the_section_is_in_chinese_for_a_chinese_reader(demo):
    user, evaluation = demo
    snapshot_row = stored(user, evaluation, drifted_snapshot(evaluation))

    page = (
        signed_in(user, "zh-hans")
        .get(f"/evaluations/{evaluation.pk}/cluster/?snapshot={snapshot_row.pk}")
        .content.decode()
    )

    assert "与生成配置的差异" in page
    assert "ClusterQueue tenant-1 未覆盖 nvidia.com/gpumem。" in page


def test_the_api_gives_config_drift_per_file_with_a_severity(demo):
    user, evaluation = demo
    snapshot_row = stored(user, evaluation, drifted_snapshot(evaluation))
    client = signed_in(user)

    data = client.get(f"/api/v1/clusters/{snapshot_row.pk}/?evaluation={evaluation.pk}").json()

    assert {
        "path": "kueue/cluster-queues.yaml",
        "message": "ClusterQueue tenant-1 does not cover nvidia.com/gpumem.",
        "severity": "error",
    } in data["config_drift"]
    assert data["config_drift_unavailable"] == ""
    # Without an evaluation there is nothing to compare with.
    alone = client.get(f"/api/v1/clusters/{snapshot_row.pk}/").json()
    assert alone["config_drift"] is None


def test_the_openapi_schema_documents_config_drift(demo):
    user, _evaluation = demo
    schema = signed_in(user).get("/api/schema/?format=json").json()

    detail = schema["components"]["schemas"]["ClusterSnapshotDetail"]["properties"]
    assert "config_drift" in detail and "config_drift_unavailable" in detail
    item = schema["components"]["schemas"]["ConfigDriftItem"]["properties"]
    assert set(item) == {"path", "message", "severity"}


@pytest.fixture
def cast(db):
    small_catalog()
    sign_small_catalog()
    return make_cast()


def test_a_decision_whose_configuration_cannot_be_generated_says_why_once(cast):
    evaluation = fill_steps(make_evaluation(cast), cast.bob)
    # Two pool names with the same slug (the label value, issue 42): refused, saying why.
    Decision.objects.filter(evaluation=evaluation).update(
        pools={"Inference Pool": ["hami/device-plugin"], "inference-pool": []}
    )
    snapshot_row = cluster_snapshot_upload(
        team=cast.team, actor=cast.bob, body=body(snapshot()), role="editor"
    )

    response = signed_in(cast.bob).get(
        f"/evaluations/{evaluation.pk}/cluster/?snapshot={snapshot_row.pk}"
    )
    api = signed_in(cast.bob).get(f"/api/v1/clusters/{snapshot_row.pk}/?evaluation={evaluation.pk}")

    page = response.content.decode()
    assert response.status_code == 200
    assert page.count("No configuration could be generated from this decision") == 1
    assert "Inference Pool" in page[page.index('id="config-drift"') :]
    assert api.json()["config_drift"] is None
    assert "Inference Pool" in api.json()["config_drift_unavailable"]


def checked(*args) -> str:
    """What check_cluster printed (its exit status follows the findings, as before)."""
    out = io.StringIO()
    with contextlib.suppress(SystemExit):
        call_command("check_cluster", *map(str, args), stdout=out)
    return out.getvalue()


def test_check_cluster_with_an_evaluation_lists_the_differences_per_file(demo, tmp_path):
    _user, evaluation = demo
    path = tmp_path / "snapshot.json"
    path.write_bytes(body(drifted_snapshot(evaluation)))

    text = checked(path, "--evaluation", evaluation.pk)
    data = json.loads(checked(path, "--evaluation", evaluation.pk, "--json"))

    assert "Differences from the generated configuration:\n" in text
    queues = text[text.index("  kueue/cluster-queues.yaml\n") :]
    assert "    [error] ClusterQueue tenant-1 does not cover nvidia.com/gpumem." in queues
    assert {
        "path": "kueue/cluster-queues.yaml",
        "message": "ClusterQueue tenant-1 does not cover nvidia.com/gpumem.",
        "severity": "error",
    } in data["config_drift"]


def test_the_products_check_reads_the_catalogs_mig_disabled_signatures(builtin_catalog):
    # The catalog as loaded into the database keeps the MIG modes' unless_node_labels, so the
    # product's check (not only the engine on the files) takes all-disabled nodes as whole GPUs.
    document = operator_snapshot(mig_disabled_nodes())

    report = cluster_check(parse_snapshot(document))

    rows = {d.row for d in report.detected}
    assert "nvidia-device-plugin/whole-gpu" in rows
    assert "nvidia-device-plugin/mig-single" not in rows
