"""The seeded vocabulary of DESIGN.md, bilingual."""

import pytest
from django.utils import translation

from catalog.models import EnforcementPoint, Layer, ResourceUnit

pytestmark = pytest.mark.django_db


def test_the_three_layers_are_seeded_in_map_order():
    assert list(Layer.objects.values_list("key", flat=True)) == [
        "platform",
        "control_plane",
        "data_plane",
    ]


def test_every_resource_unit_and_enforcement_point_of_the_design_is_seeded():
    # DESIGN.md's units, and amd_partition (issue 38: AMD partitions are their own unit, not MIG).
    assert set(ResourceUnit.objects.values_list("key", flat=True)) == {
        "whole_gpu", "mig_slice", "amd_partition", "vgpu", "time_slice", "mps_share",
        "memory_compute_quota", "dra_claim", "none",
    }  # fmt: skip
    assert set(EnforcementPoint.objects.values_list("key", flat=True)) == {
        "driver_hardware", "runtime_interception", "scheduler", "admission", "platform",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("key", "english", "chinese"),
    [("data_plane", "Data plane", "数据平面"), ("control_plane", "Control plane", "控制面"),
     ("platform", "Platform", "平台层")],
)  # fmt: skip
def test_layer_names_follow_the_active_language(key, english, chinese):
    layer = Layer.objects.get(key=key)
    with translation.override("en"):
        assert layer.name == english
    with translation.override("zh-hans"):
        assert layer.name == chinese
