"""A placement's `config` (bundle v1, optional): how generated configuration installs the
component, its Helm chart as the project's documentation gives it. Validated (a chart reference,
release and namespace that cannot carry shell or YAML), stored, exported again, kept by a merge
import that does not state it, refused with a JSON path when malformed."""

from __future__ import annotations

import pytest

from catalog.models import PlacementRow
from catalog.selectors import bundle_export
from catalog.services import BundleInvalid
from tests.factories import apply, bundle, make_user, placement, project

pytestmark = pytest.mark.django_db

# HAMi v2.10.0 README, "Quick Start": helm repo add hami-charts https://project-hami.github.io/HAMi/
# and helm install hami hami-charts/hami -n kube-system.
HAMI = {
    "evidence": ["https://github.com/Project-HAMi/HAMi/blob/v2.10.0/README.md"],
    "helm": {
        "namespace": "kube-system",
        "release": "hami",
        "repository": "https://project-hami.github.io/HAMi/",
        "chart": "hami-charts/hami",
    },
}


def hami(**fields):
    return bundle(project("hami", placement("device-plugin", **fields), name="HAMi"))


def test_the_chart_is_stored_in_a_fixed_order_and_exported_again():
    apply(hami(config=HAMI))

    stored = PlacementRow.objects.get(key="device-plugin").config
    exported = bundle_export()["projects"][0]["placements"][0]["config"]
    assert exported == stored == HAMI
    # jsonb keeps no key order: the export's is the bundle format's.
    assert list(exported) == ["helm", "evidence"]
    assert list(exported["helm"]) == ["chart", "repository", "release", "namespace"]


def test_a_merge_import_that_does_not_state_it_keeps_it():
    apply(hami(config=HAMI))

    apply(hami(promise="Caps GPU memory per container."), mode="merge")

    assert PlacementRow.objects.get(key="device-plugin").config["helm"]["chart"] == (
        "hami-charts/hami"
    )


def test_a_row_without_it_exports_none():
    apply(hami())

    assert "config" not in bundle_export()["projects"][0]["placements"][0]
    assert PlacementRow.objects.get(key="device-plugin").config == {}


def _with(**helm):
    return {"evidence": HAMI["evidence"], "helm": {**HAMI["helm"], **helm}}


@pytest.mark.parametrize(
    ("config", "path"),
    [
        ({"helm": HAMI["helm"]}, "config"),  # no evidence: where the docs say so
        (_with(chart="hami-charts/hami; rm -rf /"), "config.helm.chart"),
        (_with(chart="https://example.org/hami.tgz"), "config.helm.chart"),
        (_with(release="Hami Release"), "config.helm.release"),
        (_with(namespace="kube-system\nkind: Secret"), "config.helm.namespace"),
        (_with(repository="http://insecure.example.org/charts"), "config.helm.repository"),
        (_with(version_prefix="release-"), "config.helm.version_prefix"),
        (_with(values="--set evil=1"), "config.helm"),
        ({**HAMI, "evidence": ["not a url"]}, "config.evidence[0]"),
    ],
    ids=[
        "no-evidence",
        "shell",
        "url-chart",
        "release",
        "namespace-yaml",
        "http-repository",
        "prefix",
        "unknown-key",
        "evidence",
    ],
)
def test_malformed_config_is_refused_with_its_path(config, path):
    with pytest.raises(BundleInvalid) as refused:
        apply(hami(config=config))

    assert any(error.path.endswith(path) for error in refused.value.errors), [
        (e.path, e.message) for e in refused.value.errors
    ]
    assert not PlacementRow.objects.exists()


def test_the_api_shows_it(client):
    apply(hami(config=HAMI))
    client.force_login(make_user("reader"))
    row = PlacementRow.objects.get(key="device-plugin")

    body = client.get(f"/api/v1/placements/{row.pk}/").json()

    assert body["config"]["helm"]["chart"] == "hami-charts/hami"
