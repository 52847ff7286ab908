"""A workload one project names exactly is not another's because a glob matches its name:
HAMi's Ascend device plugin DaemonSet is hami-ascend-device-plugin (Project-HAMi/
ascend-device-plugin v1.4.0 ascend-device-plugin.yaml and chart values daemonSet.name), which
HAMi's own glob *hami*-device-plugin (chart v2.10.0, <fullname>-device-plugin) also matches."""

from __future__ import annotations

from tests.catalog.engine.cluster.test_cluster_checks import check, detected, found

SNAPSHOT = {
    "format": "ecomap.cluster/v1",
    "cluster": "ascend",
    "nodes": {"items": [{"metadata": {"name": "npu-1", "labels": {}}}]},
    "daemonsets": {
        "items": [
            {
                "metadata": {"name": "hami-ascend-device-plugin", "namespace": "kube-system"},
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "device-plugin",
                                    "image": "projecthami/ascend-device-plugin:v1.4.0",
                                }
                            ]
                        }
                    }
                },
            }
        ]
    },
}


def test_hamis_ascend_plugin_is_not_taken_for_hamis_nvidia_plugin():
    report = check(SNAPSHOT)

    assert "hami-ascend-device-plugin/device-plugin" in detected(report)
    assert not {"hami/device-plugin", "hami/dynamic-mig", "hami-core/libvgpu"} & set(
        detected(report)
    )
    assert not [f for f in found(report, "requirement-unmet") if "hami/" in str(f.rows)]
