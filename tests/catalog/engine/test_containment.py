"""Containment (issue 43): a row that ships another project's component, in the verdict rule, the
matrix and the stack check."""

from __future__ import annotations

from catalog.engine.compatibility import compute_matrix
from catalog.engine.oracle import VERDICTS, pair_verdicts
from catalog.engine.rows import Row
from catalog.engine.stack import check_stack

PLATFORM = Row.create(
    "runai",
    "platform",
    "platform",
    resource_units={"whole_gpu"},
    functions={"workload_operator"},
    provides={"contains:kai", "capability:gang-scheduling"},
)
KAI = Row.create(
    "kai",
    "scheduler",
    "control_plane",
    resource_units={"whole_gpu"},
    functions={"gang", "quota"},
    provides={"crd:scheduling.run.ai/v2/Queue"},
)
OPERATOR = Row.create(
    "operator",
    "policy",
    "platform",
    resource_units={"none"},
    functions={"lifecycle_operator"},
    provides={"contains:plugin/whole-gpu", "label:example.com/deploy.plugin"},
)
PLUGIN = Row.create(
    "plugin",
    "whole-gpu",
    "data_plane",
    resource_units={"whole_gpu"},
    functions={"present"},
    accepts={"label:example.com/deploy.plugin"},
    exclusive={"owner:node/nvidia-gpu"},
)
PLUGIN_MIG = Row.create(
    "plugin",
    "mig",
    "data_plane",
    resource_units={"mig_slice"},
    functions={"present"},
    exclusive={"owner:node/nvidia-gpu"},
)


def test_contains_is_the_first_verdict() -> None:
    assert VERDICTS[0] == "contains"


def test_a_container_and_the_project_it_ships_are_contains_not_independent() -> None:
    detail = pair_verdicts(PLATFORM, KAI)

    assert detail.verdict == "contains"
    assert detail.holds == ("contains",)
    assert "contains" in detail.reasons[0]


def test_containment_reads_the_same_in_either_order() -> None:
    assert pair_verdicts(KAI, PLATFORM).verdict == "contains"


def test_a_contained_pair_holds_no_layer_verdict_but_keeps_its_links() -> None:
    same_layer = Row.create(
        "platform-b",
        "ops",
        "platform",
        resource_units={"whole_gpu"},
        functions={"workload_operator"},
        provides={"contains:runai"},
    )
    detail = pair_verdicts(same_layer, PLATFORM)

    assert detail.holds == ("contains",)  # not competes, though same layer, unit and job
    assert pair_verdicts(OPERATOR, PLUGIN).holds == ("contains", "composes")


def test_a_row_level_token_contains_only_that_row() -> None:
    assert pair_verdicts(OPERATOR, PLUGIN).verdict == "contains"
    assert pair_verdicts(OPERATOR, PLUGIN_MIG).verdict == "independent"


def test_a_shared_exclusive_token_still_holds_as_a_conflict_beside_containment() -> None:
    bundled = Row.create(
        "hami",
        "device-plugin",
        "data_plane",
        resource_units={"vgpu"},
        functions={"present"},
        provides={"contains:plugin"},
        exclusive={"owner:node/nvidia-gpu"},
    )
    detail = pair_verdicts(bundled, PLUGIN)

    assert detail.holds == ("contains", "conflicts")
    assert detail.verdict == "contains"


def test_a_contains_token_links_nothing_even_to_a_wildcard_consumer() -> None:
    shipper = Row.create("shipper", "all", "platform", provides={"contains:greedy"})
    greedy = Row.create("greedy", "all", "control_plane", accepts={"*"})

    assert pair_verdicts(shipper, greedy).links == ()
    assert pair_verdicts(shipper, greedy).holds == ("contains",)


def test_the_matrix_agrees_with_the_rule_on_contained_pairs() -> None:
    rows = [PLATFORM, KAI, OPERATOR, PLUGIN, PLUGIN_MIG]
    matrix = compute_matrix(rows)

    for i, a in enumerate(rows):
        for j, b in enumerate(rows):
            if i != j:
                assert matrix.holds_of(i, j) == pair_verdicts(a, b).holds, (a.id, b.id)
    assert matrix.counts()["contains"] == 2


def test_the_stack_check_refuses_a_contained_project_installed_beside_its_container() -> None:
    report = check_stack([PLATFORM, KAI])

    refused = [f for f in report.fit if f.aspect == "containment"]
    assert not report.ok
    assert len(refused) == 1 and refused[0].blocking
    assert "Keep one" in refused[0].message
    assert "drop the kai/scheduler row" in refused[0].message


def test_a_contained_row_wired_to_its_container_is_the_bundled_copy() -> None:
    report = check_stack([OPERATOR, PLUGIN])

    found = [f for f in report.fit if f.aspect == "containment"]
    assert report.ok
    assert [f.status for f in found] == ["ok"]
    assert "label:example.com/deploy.plugin" in found[0].message


def test_containment_is_checked_across_pools() -> None:
    report = check_stack(
        [PLATFORM, KAI, PLUGIN], pools={"a": ["runai/platform"], "b": ["kai/scheduler"]}
    )

    assert any(f.aspect == "containment" and f.blocking for f in report.fit)


def test_the_maps_contract_lists_say_which_row_ships_which() -> None:
    from catalog.engine.map_focus import contracts_of_project, row_contracts
    from catalog.engine.map_layout import catalog_contracts

    rows = [PLATFORM, KAI, OPERATOR, PLUGIN]
    contracts = catalog_contracts(rows)
    lines = row_contracts(rows, contracts)

    assert set(contracts.containments) == {
        ("runai/platform", "kai/scheduler"),
        ("operator/policy", "plugin/whole-gpu"),
    }
    assert [(c.relation, c.partner) for c in lines["kai/scheduler"]] == [
        ("contained_in", "runai/platform")
    ]
    assert contracts_of_project(rows, "kai").containments == (("runai/platform", "kai/scheduler"),)
