"""The detect signatures of the rows the cluster fixtures exercise: sourced at a release, and
specific enough that one component's objects do not report another."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from catalog.engine.cluster.detect import WORKLOAD_KEYS

DATA = Path(settings.BASE_DIR) / "catalog" / "data"
FILES = (
    "hami",
    "kueue",
    "volcano",
    "nvidia-device-plugin",
    "nvidia-dra-driver-gpu",
    "nvidia-mig",
)
TAGGED = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/blob/v\d+\.\d+\.\d+/\S+$")


def placements():
    for name in FILES:
        for project in yaml.safe_load((DATA / f"{name}.yaml").read_text())["projects"]:
            for placement in project["placements"]:
                yield f"{project['slug']}/{placement['key']}", project, placement


ROWS = list(placements())


@pytest.mark.parametrize(("row", "project", "placement"), ROWS, ids=[r[0] for r in ROWS])
def test_each_row_can_be_found_by_a_workload_and_says_where_its_names_come_from(
    row, project, placement
):
    detect = placement["detect"]
    assert any(detect.get(key) for key in WORKLOAD_KEYS), row
    assert detect["evidence"], row
    for url in detect["evidence"]:
        assert TAGGED.match(url), url
        # Evidence at the release the row names.
        assert f"/blob/{placement['project_version']}/" in url, url
    assert detect.get("note"), row


def test_images_shared_by_several_components_of_a_chart_are_not_signatures():
    images = {row: p["detect"].get("images", []) for row, _, p in ROWS}
    # HAMi's scheduler and device plugin run projecthami/hami; the device plugin chart's
    # GFD and MPS DaemonSets run nvidia/k8s-device-plugin; the DRA driver's controller and
    # kubelet plugin run one image: none of them may tell a row apart.
    shared = {
        "projecthami/hami",
        "nvidia/k8s-device-plugin",
        "dra-driver-nvidia/dra-driver-nvidia-gpu",
    }
    assert not {image for found in images.values() for image in found} & shared


def test_rows_sharing_a_daemonset_differ_in_what_the_nodes_show():
    modes = {
        row: (
            tuple(p["detect"].get("node_labels", ())),
            tuple(p["detect"].get("extended_resources", ())),
        )
        for row, _, p in ROWS
        if row.startswith("nvidia-device-plugin/")
    }
    assert len(set(modes.values())) == len(modes)


@pytest.mark.parametrize("mode", ["mig-single", "mig-mixed"])
def test_the_mig_modes_take_no_evidence_from_nodes_whose_mig_is_disabled(mode):
    # GFD v0.20.0 writes nvidia.com/mig.strategy whatever the devices (internal/lm/strategy.go)
    # and the plugin advertises MIG-disabled GPUs whole under any strategy (device_map.go), so a
    # node the MIG manager left at all-disabled, or without a MIG-capable GPU, is whole-GPU.
    [(_row, _project, placement)] = [r for r in ROWS if r[0] == f"nvidia-device-plugin/{mode}"]
    detect = placement["detect"]
    assert detect["unless_node_labels"] == [
        "nvidia.com/mig.config=all-disabled",
        "nvidia.com/mig.capable=false",
    ]
    cited = " ".join(detect["evidence"])
    assert "/v0.20.0/internal/rm/device_map.go" in cited
    assert "/v0.20.0/internal/lm/mig-strategy.go" in cited
    assert "gpu-operator/blob/v26.7.0/controllers/nodelabeling_controller.go" in detect["note"]
