"""HAMi-core, a library, is found through the DaemonSets that install it: Koordinator's
hami-daemon chart runs a container hami-core that copies libvgpu.so to /usr/local/vgpu
(koordinator-sh/charts koordinator-1.8.0 hami-daemon/v0.2.0/templates/daemonset.yaml), its
DaemonSet named <release>-hami-daemon."""

from __future__ import annotations

from tests.catalog.engine.cluster.test_cluster_checks import check, detected

SNAPSHOT = {
    "format": "ecomap.cluster/v1",
    "cluster": "koordinator",
    "nodes": {"items": [{"metadata": {"name": "gpu-1", "labels": {}}}]},
    "daemonsets": {
        "items": [
            {
                "metadata": {"name": "koordinator-hami-daemon", "namespace": "koordinator-system"},
                "spec": {"template": {"spec": {}}},
            }
        ]
    },
}


def test_koordinators_hami_daemon_is_where_hami_core_runs():
    found = detected(check(SNAPSHOT))

    assert found["hami-core/libvgpu"] == ("gpu-1",)
    assert "koordinator/koordlet-device" in found
    assert "hami/device-plugin" not in found
