"""Step 3 suggests what the cluster runs (issue 42 item 4): a profile whose step 1 says Kueue is
installed gets Kueue's row among the control plane's suggestions, first, with the reason."""

from __future__ import annotations

import pytest
from django.utils import translation

from catalog.engine.profile import Profile
from evaluations.steps.suggestions import RowFacts, rank_suggestions

KUEUE = RowFacts(
    id=1,
    ref="kueue/controller",
    project="Kueue",
    component="controller",
    layer="control_plane",
    units=frozenset({"whole_gpu"}),
    functions=frozenset({"quota", "fair_sharing", "preemption"}),
    isolation_memory="none",
)
VOLCANO = RowFacts(
    id=2,
    ref="volcano/scheduler",
    project="Volcano",
    component="scheduler",
    layer="control_plane",
    units=frozenset({"vgpu", "whole_gpu", "mig_slice"}),
    functions=frozenset({"quota", "fair_sharing", "gang", "preemption"}),
    isolation_memory="none",
)


def _profile(**extra) -> Profile:
    return Profile.from_dict(
        {
            "workload_types": ["training"],
            "primary_objective": "throughput",
            "tenancy": "multi",
            **extra,
        }
    )


@pytest.mark.parametrize("units", [{"mig_slice"}, {"whole_gpu"}])
def test_an_installed_kueue_is_suggested_first(units):
    profile = _profile(installed=[{"project": "kueue", "version": "0.10.1"}])

    with translation.override("en"):
        ranked = rank_suggestions([VOLCANO, KUEUE], profile, units, unit_names={}, per_layer=3)

    first, _score, reason = ranked["control_plane"][0]
    assert first.ref == "kueue/controller"
    assert reason.startswith("Installed in the cluster (0.10.1), as step 1 says")


def test_without_it_installed_the_fit_decides():
    ranked = rank_suggestions([VOLCANO, KUEUE], _profile(), {"mig_slice"}, unit_names={})

    assert [row.ref for row, _s, _r in ranked["control_plane"]] == ["volcano/scheduler"]
