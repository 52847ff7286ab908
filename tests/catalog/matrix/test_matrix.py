"""Matrix snapshots (eager here; a real worker in test_matrix_worker.py), pages, API, commands."""

import contextlib
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from catalog.matrix.models import MatrixSnapshot
from catalog.matrix.selectors import matrix_state
from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute
from catalog.models import PlacementRow
from catalog.selectors import catalog_revision
from tests.factories import apply, bundle, placement, project

pytestmark = pytest.mark.django_db


def _real_world_pair(cells, a, b):
    for cell in cells:
        ids = {
            f"{cell['a']['project']}/{cell['a']['row']}",
            f"{cell['b']['project']}/{cell['b']['row']}",
        }
        if ids == {a, b}:
            return cell
    raise AssertionError(f"no cell for {a} × {b}")


@pytest.fixture
def matrix_json(builtin_catalog, capsys):
    call_command("matrix", "--json")
    return json.loads(capsys.readouterr().out)


def test_hami_composes_with_kueue_through_its_vgpu_resources(matrix_json):
    cell = _real_world_pair(matrix_json, "hami/device-plugin", "kueue/controller")

    assert cell["verdict"] == "composes"
    assert "competes" not in cell["holds"]
    assert any("resource:nvidia.com/gpumem" in reason for reason in cell["reasons"])


def test_volcano_assigns_the_vgpus_of_its_own_device_plugin_not_hamis(matrix_json):
    # Volcano's deviceshare plugin writes the device assignment the volcano-vgpu plugin reads;
    # HAMi's plugin needs HAMi's scheduler, so Volcano's wildcard accepts does not bind it.
    own = _real_world_pair(
        matrix_json, "volcano-vgpu-device-plugin/device-plugin", "volcano/scheduler"
    )
    hami = _real_world_pair(matrix_json, "hami/device-plugin", "volcano/scheduler")

    assert own["verdict"] == "composes"
    assert any("assigner:volcano-vgpu" in reason for reason in own["reasons"])
    assert hami["verdict"] == "independent"


def test_kueue_composes_with_mig_partitions(matrix_json):
    cell = _real_world_pair(matrix_json, "kueue/controller", "nvidia-device-plugin/mig-mixed")

    assert cell["verdict"] == "composes"
    assert any("resource:nvidia.com/mig-" in reason for reason in cell["reasons"])


def test_the_nvidia_and_hami_device_plugins_conflict_and_compete(matrix_json):
    cell = _real_world_pair(matrix_json, "nvidia-device-plugin/whole-gpu", "hami/device-plugin")

    assert cell["verdict"] == "conflicts"
    assert any("owner:node/nvidia-gpu" in reason for reason in cell["reasons"])


def test_volcano_and_kueue_compete(matrix_json):
    cell = _real_world_pair(matrix_json, "volcano/scheduler", "kueue/controller")

    assert "competes" in cell["holds"]


def test_hamis_data_plane_row_is_not_a_competitor_of_volcano(matrix_json):
    cell = _real_world_pair(matrix_json, "hami/device-plugin", "volcano/scheduler")

    assert not {"competes", "incomparable"} & set(cell["holds"])


def test_the_gpu_operator_contains_what_it_delivers_and_composes_with_it(matrix_json):
    # Issue 43: the operator ships its operands (contains), still wired through its deploy labels.
    for delivered in ("nvidia-device-plugin/whole-gpu", "dcgm-exporter/exporter"):
        cell = _real_world_pair(matrix_json, "nvidia-gpu-operator/clusterpolicy", delivered)

        assert cell["verdict"] == "contains", delivered
        assert cell["holds"][:2] == ["contains", "composes"], delivered
        assert "contains" in cell["reasons"][0]


def test_run_ai_contains_kai_in_the_matrix_json(matrix_json):
    cell = _real_world_pair(matrix_json, "runai/platform", "kai-scheduler/scheduler")

    assert (cell["verdict"], cell["holds"]) == ("contains", ["contains"])


def test_matrix_for_some_projects_keeps_only_pairs_among_them(builtin_catalog, capsys):
    call_command("matrix", "--project", "hami", "--project", "volcano", "--json")
    found = json.loads(capsys.readouterr().out)

    assert found
    assert {c["a"]["project"] for c in found} | {c["b"]["project"] for c in found} == {
        "hami",
        "volcano",
    }


def test_check_stack_passes_for_shape_c_and_fails_with_two_device_plugins(builtin_catalog, capsys):
    call_command(
        "check_stack", "nvidia-gpu-operator:clusterpolicy", "volcano:scheduler",
        "--pool", "hard=nvidia-mig,nvidia-device-plugin:mig-mixed",
        "--pool", "shared=hami:device-plugin,hami-core:libvgpu,hami:scheduler-extender", "--json",
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True

    with pytest.raises(SystemExit) as exited:
        call_command(
            "check_stack", "nvidia-device-plugin:whole-gpu", "hami:device-plugin", "--json"
        )
    assert exited.value.code == 1
    report = json.loads(capsys.readouterr().out)
    assert report["conflicts"]


def test_check_stack_takes_rows_as_pages_and_matrix_json_write_them(builtin_catalog, capsys):
    """`slug/row` (the row ids of pages and `matrix --json`) and `slug:row` name the same row."""
    with pytest.raises(SystemExit):
        call_command(
            "check_stack", "nvidia-device-plugin/whole-gpu", "hami/device-plugin", "--json"
        )
    slashed = json.loads(capsys.readouterr().out)
    with pytest.raises(SystemExit):
        call_command(
            "check_stack", "nvidia-device-plugin:whole-gpu", "hami:device-plugin", "--json"
        )
    coloned = json.loads(capsys.readouterr().out)

    assert slashed["rows"] == ["nvidia-device-plugin/whole-gpu", "hami/device-plugin"]
    assert slashed == coloned
    pool = "shared=hami/device-plugin,hami:scheduler-extender"
    with contextlib.suppress(SystemExit):  # the stack's verdict is not what is tested here
        call_command("check_stack", "volcano/scheduler", "--pool", pool, "--json")
    shared = json.loads(capsys.readouterr().out)["pools"]["shared"]
    assert {"hami/device-plugin", "hami/scheduler-extender"} <= set(shared)


def test_check_stack_names_an_unknown_row(builtin_catalog):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="has no row 'nope'"):
        call_command("check_stack", "hami:nope")


def test_a_catalog_change_produces_a_fresh_snapshot_of_the_new_revision(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        apply(bundle(project("hami", placement("device-plugin"))))

    state = matrix_state()
    assert state.snapshot is not None
    assert state.snapshot.catalog_revision == catalog_revision()
    assert not state.stale


def test_a_burst_of_edits_queues_one_job(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as edits:
        for i in range(20):
            apply(bundle(project(f"p{i}", placement())))
    # One refresh request per committed edit (beside the catalog_rows_changed signal's sends).
    refreshes = [callback for callback in edits if callback is matrix_refresh_request]
    assert len(refreshes) == 20

    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        for request_refresh in refreshes:
            request_refresh()

    assert len(enqueued) == 1
    assert MatrixSnapshot.objects.filter(status="pending").count() == 1


def test_a_rerun_for_the_same_revision_does_not_duplicate_the_snapshot():
    apply(bundle(project("hami", placement("device-plugin"))))
    first = matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=first.id)
    second = matrix_refresh_request()

    matrix_snapshot_compute(snapshot_id=second.id)
    matrix_snapshot_compute(snapshot_id=first.id)

    assert MatrixSnapshot.objects.filter(status="succeeded").count() == 1


def test_the_page_says_when_the_snapshot_is_stale(bob_client):
    apply(bundle(project("hami", placement("device-plugin"))))
    snapshot = matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.id)
    MatrixSnapshot.objects.filter(status="pending").delete()
    apply(bundle(project("volcano", placement("scheduler", "control_plane"))))
    MatrixSnapshot.objects.filter(status="pending").delete()

    content = bob_client.get(reverse("matrix:page")).content.decode()

    assert "This matrix is stale" in content


def test_the_page_shows_progress_while_computing(bob_client):
    apply(bundle(project("hami", placement("device-plugin"))))
    MatrixSnapshot.objects.create(status="running", progress=40)

    content = bob_client.get(reverse("matrix:page")).content.decode()

    assert "Computing a fresh matrix" in content
    assert 'value="40"' in content


@pytest.fixture
def computed(builtin_catalog):
    snapshot = MatrixSnapshot.objects.filter(status="pending").first() or matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.id)


def test_the_heatmap_groups_rows_by_layer_and_filters_by_layer(bob_client, computed):
    response = bob_client.get(reverse("matrix:page"), {"layer": "control_plane"})

    figure = response.context["figure"]
    control_plane = {row.ref for row in PlacementRow.objects.filter(layer__key="control_plane")}
    assert {key.removeprefix("row:") for key in figure["y"]["keys"]} == control_plane
    assert "Volcano · scheduler" in figure["y"]["labels"]  # names, not slugs
    pairs = len(control_plane) * (len(control_plane) - 1) // 2
    assert sum(count for _key, _label, count, _colour in response.context["counts"]) == pairs


def test_the_pair_page_lists_every_verdict_that_holds(bob_client, computed):
    response = bob_client.get(
        reverse("matrix:pair"),
        {"a": "nvidia-device-plugin/whole-gpu", "b": "hami/device-plugin"},
    )

    content = response.content.decode()
    assert response.status_code == 200
    assert "owner:node/nvidia-gpu" in content  # conflicts
    assert "fix a common unit before comparing them" in content  # and incomparable


def test_an_unknown_pair_is_404(bob_client, computed):
    response = bob_client.get(reverse("matrix:pair"), {"a": "x/y", "b": "hami/device-plugin"})

    assert response.status_code == 404


def test_the_data_plane_by_control_plane_table_marks_what_volcano_can_express(bob_client, computed):
    response = bob_client.get(reverse("matrix:express"))

    table = dict(response.context["table"])
    controls = response.context["controls"]
    cell = table["volcano-vgpu-device-plugin/device-plugin"][controls.index("volcano/scheduler")]
    assert cell.expressible
    # HAMi's vGPU resources need HAMi's scheduler to assign them: Volcano cannot express them.
    assert not table["hami/device-plugin"][controls.index("volcano/scheduler")].expressible


def test_the_matrix_api_returns_the_latest_snapshot_filtered(bob, computed):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(bob)

    body = client.get("/api/v1/matrix/", {"project": ["hami", "kueue"]}).json()

    assert body["snapshot"]["catalog_revision"] == catalog_revision()
    assert body["cells"]
    pair = client.get("/api/v1/matrix/pair/", {"a": "hami/device-plugin", "b": "kueue/controller"})
    assert pair.json()["verdict"] == "composes"


def test_the_matrix_api_pages_through_every_pair_once(bob, computed):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(bob)
    rows = PlacementRow.objects.count()

    first = client.get("/api/v1/matrix/", {"reasons": "false"}).json()
    seen, url = [], "/api/v1/matrix/?reasons=false"
    while url:
        body = client.get(url).json()
        seen += [
            (c["a"]["project"], c["a"]["row"], c["b"]["project"], c["b"]["row"])
            for c in body["cells"]
        ]
        url = body["next"]

    assert first["count"] == rows * (rows - 1) // 2 == len(seen) == len(set(seen))
    assert len(first["cells"]) == 500 and first["previous"] is None
    assert first["next"].endswith("page=2")
    conflicts = client.get("/api/v1/matrix/", {"verdict": "conflicts", "page_size": 10}).json()
    assert conflicts["count"] == first["snapshot"]["counts"]["conflicts"]
    assert len(conflicts["cells"]) == 10


def test_the_matrix_api_refuses_a_page_it_cannot_give(bob, computed):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(bob)

    assert client.get("/api/v1/matrix/", {"page_size": 0}).status_code == 400
    assert "at most 5000" in str(client.get("/api/v1/matrix/", {"page_size": 9000}).json())
    assert client.get("/api/v1/matrix/", {"page": "two"}).status_code == 400
    assert client.get("/api/v1/matrix/", {"page": 999}).status_code == 404


def test_the_matrix_api_refuses_an_unknown_verdict_and_names_the_allowed_ones(bob, computed):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(bob)

    response = client.get("/api/v1/matrix/", {"verdict": ["composes", "friends"]})

    assert response.status_code == 400
    assert "'friends'" in str(response.json())
    assert "incomparable" in str(response.json())
    assert client.get("/api/v1/matrix/", {"verdict": "conflicts"}).status_code == 200


def test_the_pair_page_explains_in_chinese(bob_client, computed):
    bob_client.cookies["django_language"] = "zh-hans"

    content = bob_client.get(
        reverse("matrix:pair"),
        {"a": "nvidia-device-plugin/whole-gpu", "b": "hami/device-plugin"},
    ).content.decode()

    # The token is named in words, its identifier kept verbatim beside them.
    assert "两者都持有独占令牌" in content
    assert '<code title="owner:node/nvidia-gpu">node/nvidia-gpu</code>' in content
    assert "先确定共同的资源单位再比较" in content


def test_the_heatmap_and_its_pairs_speak_chinese(bob_client, computed):
    bob_client.cookies["django_language"] = "zh-hans"

    payload = bob_client.get(reverse("matrix:page")).context["figure"]
    pair = bob_client.get(
        reverse("matrix:pair"), {"a": "nvidia-device-plugin/whole-gpu", "b": "hami/device-plugin"}
    ).content.decode()

    assert "包含" in payload["verdicts"][0]  # issue 43: `contains` is the first verdict
    assert "冲突" in payload["verdicts"][1]
    assert any("数据平面" in note["text"] for note in payload["layout"]["annotations"])
    assert "两者都持有独占令牌" in pair
    assert "they cannot run on the same node pool" not in pair


def test_the_pair_page_never_shows_a_rivals_sentence_for_a_consumer_and_its_api(
    bob_client, computed
):
    # Issue 27: KAI consumes DRA core's claims; the cell says composes, and so must the page.
    response = bob_client.get(
        reverse("matrix:pair"),
        {"a": "kai-scheduler/scheduler", "b": "kubernetes-dra/core-allocation"},
    )

    content = response.content.decode()
    assert response.status_code == 200
    assert [key for key, _label, _colour in response.context["holds"]] == [
        "composes",
        "complements",
    ]
    assert "alternatives" not in content
