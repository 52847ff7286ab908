"""The catalog's regression suite: relations the projects' own docs state (in
documented_relations.yaml) and the method's own examples, asserted against the engine on the
built-in catalog."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml

from catalog.engine.compatibility import compute_matrix
from catalog.engine.oracle import pair_verdicts
from tests.factories import builtin_rows

RELATIONS = yaml.safe_load(
    (Path(__file__).parent / "documented_relations.yaml").read_text(encoding="utf-8")
)
GOVERNORS = (
    "kueue/controller",
    "volcano/scheduler",
    "yunikorn/scheduler",
    "kai-scheduler/scheduler",
    "scheduler-plugins/plugins",
)


ROWS = builtin_rows()
MATRIX = compute_matrix(list(ROWS.values()))


def verdict(a: str, b: str) -> str:
    return MATRIX.verdict_of(MATRIX.index(a), MATRIX.index(b))


def test_the_file_holds_at_least_forty_distinct_documented_relations():
    pairs = {tuple(sorted((r["a"], r["b"]))) for r in RELATIONS}
    assert len(pairs) == len(RELATIONS) >= 40
    assert all(r["source"].startswith("https://") and r["quote"].strip() for r in RELATIONS)


@pytest.mark.parametrize(
    "relation", RELATIONS, ids=[f"{r['a']}~{r['b']}:{r['verdict']}" for r in RELATIONS]
)
def test_a_relation_the_docs_state_is_the_engines_verdict(relation):
    detail = pair_verdicts(ROWS[relation["a"]], ROWS[relation["b"]])

    assert detail.verdict == relation["verdict"], (relation["source"], detail.reasons)
    assert verdict(relation["a"], relation["b"]) == relation["verdict"]
    if relation.get("via"):
        assert relation["via"] in {link.interface for link in detail.links}, detail.links


# The method's own examples (METHOD.md: 组合≠竞品, the three shapes).


@pytest.mark.parametrize("governor", ["volcano/scheduler", "kueue/controller"])
@pytest.mark.parametrize(
    "hami", ["hami/device-plugin", "hami/scheduler-extender", "hami/dynamic-mig"]
)
def test_hami_is_never_an_alternative_to_volcano_or_kueue(hami, governor):
    holds = pair_verdicts(ROWS[hami], ROWS[governor]).holds

    assert "competes" not in holds
    assert "incomparable" not in holds


def test_shape_b_hami_composes_with_kueue_through_its_vgpu_resources():
    links = pair_verdicts(ROWS["hami/device-plugin"], ROWS["kueue/controller"]).links

    assert {"resource:nvidia.com/gpumem", "resource:nvidia.com/gpucores"} <= {
        link.interface for link in links
    }


def test_the_hami_placement_helper_complements_a_batch_scheduler_on_the_control_plane():
    for governor in ("volcano/scheduler", "kueue/controller"):
        assert verdict("hami/scheduler-extender", governor) == "complements"


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations(GOVERNORS, 2)))
def test_queues_and_batch_schedulers_still_compete_with_each_other(a, b):
    assert verdict(a, b) == "competes"


def test_the_device_plugin_and_a_scheduler_extension_are_not_competitors_they_compose():
    # METHOD: the device plugin answers "what is the resource", scheduler-plugins "who gets it".
    detail = pair_verdicts(
        ROWS["nvidia-device-plugin/whole-gpu"], ROWS["scheduler-plugins/plugins"]
    )

    assert detail.verdict == "composes"
    assert "competes" not in detail.holds


def test_kubernetes_dra_composes_with_the_drivers_it_serves_and_the_claims_consumers():
    assert verdict("kubernetes-dra/resource-api", "nvidia-dra-driver-gpu/gpu-kubelet-plugin") == (
        "composes"
    )
    assert verdict("kubernetes-dra/core-allocation", "kueue/controller") == "composes"
    assert verdict("kubernetes-dra/core-allocation", "kai-scheduler/scheduler") == "composes"


def test_rows_that_present_no_unit_never_compete():
    no_unit = [r for r in ROWS.values() if r.resource_units <= {"none"}]
    assert len(no_unit) >= 5
    for a, b in itertools.combinations(no_unit, 2):
        assert "competes" not in pair_verdicts(a, b).holds, (a.id, b.id)


def test_a_platform_is_not_a_mechanism_it_relies_on_them():
    # GPUStack packages serving on top of lower layers; it composes or coexists, never competes.
    for row in ROWS.values():
        if row.layer != "platform":
            assert "competes" not in pair_verdicts(ROWS["gpustack/platform"], row).holds


def test_the_built_in_catalog_is_as_broad_as_the_audit_requires():
    projects = {row.project for row in ROWS.values()}
    assert len(projects) >= 38
    assert len(ROWS) >= 60
