"""HAMi's NVIDIA device plugin and HAMi's separate Ascend device plugin are told apart.

HAMi chart v2.10.0 names its DaemonSet `<fullname>-device-plugin`, fullname being the release
name when it contains "hami" and `<release>-hami` otherwise
(https://github.com/Project-HAMi/HAMi/blob/v2.10.0/charts/hami/templates/_helpers.tpl#L13-L25,
#L47-L49); its image is projecthami/hami (values.yaml#L291, the scheduler's too, #L133). HAMi's
ascend-device-plugin chart v1.4.0 names its DaemonSet `hami-ascend-device-plugin`
(daemonSet.name, https://github.com/Project-HAMi/ascend-device-plugin/blob/v1.4.0/charts/
ascend-device-plugin/values.yaml#L9-L10) and runs projecthami/ascend-device-plugin (#L1-L2).
Koordinator's hami-daemon chart (koordinator-sh/charts at koordinator-1.8.0, hami-daemon/v0.2.0)
runs a DaemonSet `<release>-hami-daemon` (or the release name when it contains hami-daemon) that
copies HAMi-core's libvgpu.so onto the nodes (templates/daemonset.yaml#L4 and #L46-L47,
_helpers.tpl#L13-L24).
"""

from __future__ import annotations

import pytest

from tests.catalog.engine.cluster.test_cluster_checks import check
from tests.evaluations.cluster_factories import daemonset, snapshot

HAMI_ROWS = ("hami/", "hami-core/")


def hami_rows_found(*daemonsets) -> set[str]:
    report = check(snapshot(daemonsets=list(daemonsets)))
    return {d.row for d in report.detected if d.row.startswith(HAMI_ROWS)}


@pytest.mark.parametrize(
    "name",
    [
        "hami-device-plugin",  # release "hami"
        "gpu-hami-device-plugin",  # release "gpu": <release>-hami
        "hami-prod-device-plugin",  # release "hami-prod" holds "hami"
    ],
)
def test_hamis_nvidia_device_plugin_is_found_whatever_the_release_is_called(name):
    found = hami_rows_found(daemonset(name, "docker.io/projecthami/hami:v2.10.0"))

    assert "hami/device-plugin" in found
    assert "hami-core/libvgpu" in found


def test_hamis_ascend_plugin_is_neither_hamis_nvidia_device_plugin_nor_hami_core():
    plugin = daemonset("hami-ascend-device-plugin", "projecthami/ascend-device-plugin:v1.4.0")

    assert hami_rows_found(plugin) == set()


def test_hami_core_installed_by_koordinators_hami_daemon_is_found_without_hamis_plugin():
    daemon = daemonset("koordinator-hami-daemon", "docker.m.daocloud.io/projecthami/hami:v2.6.0")

    assert hami_rows_found(daemon) == {"hami-core/libvgpu"}
