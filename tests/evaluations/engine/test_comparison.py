"""The comparison of an evaluation's candidates follows the verdict rule: conflicts first, a table
per set of rows that compete, one line per project pair for everything else."""

from __future__ import annotations

import pytest

from catalog.engine.rows import Row
from evaluations.engine.comparison import compare, compete_groups
from tests.factories import builtin_rows

# The evaluation of the issue that set the rule: HAMi, Volcano, Kueue and the MIG device plugin.
CANDIDATES = (
    "hami/device-plugin",
    "hami/scheduler-extender",
    "volcano/scheduler",
    "kueue/controller",
    "nvidia-device-plugin/mig-mixed",
)


@pytest.fixture(scope="module")
def catalog() -> dict[str, Row]:
    return builtin_rows()


def rows(catalog: dict[str, Row], *ids: str) -> list[Row]:
    return [catalog[i] for i in ids]


def test_the_conflict_among_candidates_is_reported_first(catalog):
    facts = compare(rows(catalog, *CANDIDATES))

    assert [(c.a, c.b) for c in facts.conflicts] == [
        ("hami/device-plugin", "nvidia-device-plugin/mig-mixed")
    ]
    assert "owner:node/nvidia-gpu" in facts.conflicts[0].message
    assert "separate pools" in facts.conflicts[0].message


def test_a_conflict_names_the_decided_pool_it_breaks(catalog):
    facts = compare(
        rows(catalog, *CANDIDATES),
        pools={"shared": ["hami/device-plugin", "nvidia-device-plugin/mig-mixed"]},
    )

    assert facts.conflicts[0].pools == ("shared",)
    assert "the decided pool shared holds both" in facts.conflicts[0].message


def test_a_placement_helper_never_sits_in_a_table_beside_batch_schedulers(catalog):
    groups = compete_groups(rows(catalog, *CANDIDATES))

    control = [g for g in groups if g.layer == "control_plane"]
    assert [g.rows for g in control] == [("kueue/controller", "volcano/scheduler")]
    assert "hami/scheduler-extender" not in {r for g in groups for r in g.rows}


def test_each_row_appears_once_per_table_however_many_units_it_shares(catalog):
    groups = compete_groups(rows(catalog, "kueue/controller", "volcano/scheduler"))

    assert len(groups) == 1
    assert set(groups[0].units) >= {"whole_gpu", "vgpu", "mig_slice"}
    assert "quota" in groups[0].functions


def test_hami_and_kueue_are_one_line_that_says_they_compose(catalog):
    facts = compare(rows(catalog, *CANDIDATES), project_names={"hami": "HAMi", "kueue": "Kueue"})

    lines = [pair for pair in facts.pairs if pair.projects == ("hami", "kueue")]
    assert len(lines) == 1
    assert lines[0].verdict == "composes"
    assert lines[0].summary.startswith("HAMi and Kueue compose through")
    assert {link.interface for link in lines[0].links} >= {"resource:nvidia.com/gpumem"}


def test_two_rows_of_one_project_are_never_a_line_or_a_table(catalog):
    facts = compare(rows(catalog, "hami/device-plugin", "hami/scheduler-extender"))

    assert facts.pairs == []
    assert facts.groups == []


def test_the_comparison_of_many_mig_profiles_stays_short(catalog):
    # 20+ MIG resources between the MIG device plugin and Kueue are one line, not 20.
    facts = compare(rows(catalog, "kueue/controller", "nvidia-device-plugin/mig-mixed"))

    assert len(facts.pairs) == 1
    assert len(facts.pairs[0].links) > 10
    assert "more" in facts.pairs[0].summary


@pytest.mark.parametrize(
    "mig", ["nvidia-device-plugin/mig-single", "nvidia-device-plugin/mig-mixed"]
)
def test_time_slicing_the_mig_devices_of_one_device_plugin_is_no_conflict(catalog, mig):
    # k8s-device-plugin v0.20.0 README: time-slicing shares single- and mixed-strategy MIG devices.
    facts = compare(rows(catalog, "nvidia-device-plugin/time-slicing", mig))

    assert facts.conflicts == []
    assert not facts.incomparable
    assert not facts.groups
