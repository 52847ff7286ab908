"""Issue 27 item 2: the pair page shows only the sentences of verdicts that hold, so a linked pair
never reads as rivals, and named DeviceClasses and HAMi-core show as the contract they are."""

import pytest
from django.urls import reverse

from catalog.matrix.models import MatrixSnapshot
from catalog.matrix.services import matrix_refresh_request, matrix_snapshot_compute

pytestmark = pytest.mark.django_db

RIVALRY = ("alternatives —", "fix a common unit")


@pytest.fixture
def computed(builtin_catalog):
    snapshot = MatrixSnapshot.objects.filter(status="pending").first() or matrix_refresh_request()
    matrix_snapshot_compute(snapshot_id=snapshot.id)


def _pair_page(client, a: str, b: str):
    response = client.get(reverse("matrix:pair"), {"a": a, "b": b})
    assert response.status_code == 200
    return response


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("kai-scheduler/scheduler", "kubernetes-dra/core-allocation"),
        ("volcano/scheduler", "kubernetes-dra/core-allocation"),
        ("nvidia-dra-driver-gpu/compute-domain", "nvidia-dra-driver-gpu/gpu-kubelet-plugin"),
        ("nvidia-device-plugin/time-slicing", "nvidia-device-plugin/mig-single"),
        ("hami-core/libvgpu", "koordinator/koordlet-device"),
    ],
)
def test_a_pair_that_is_not_rivalry_never_reads_as_rivals_on_its_page(bob_client, computed, a, b):
    response = _pair_page(bob_client, a, b)

    keys = [key for key, _reason in response.context["reasons"]]
    assert "competes" not in keys
    assert "incomparable" not in keys
    assert "conflicts" not in keys
    text = response.content.decode()
    for sentence in RIVALRY:
        assert sentence not in text, (a, b, sentence)


def test_each_sentence_on_the_pair_page_belongs_to_a_verdict_that_holds(bob_client, computed):
    response = _pair_page(bob_client, "kai-scheduler/scheduler", "kubernetes-dra/core-allocation")

    detail = response.context["detail"]
    assert [key for key, _reason in response.context["reasons"]] == list(detail.holds)
    assert detail.holds == ("composes", "complements")


def test_the_pair_page_names_the_drivers_deviceclass_that_ties_volcano_to_hami_dra(
    bob_client, computed
):
    response = _pair_page(bob_client, "volcano/scheduler", "hami-dra-driver/kubelet-plugin")

    assert response.context["detail"].verdict == "composes"
    assert "hami-core-gpu.project-hami.io" in response.content.decode()
