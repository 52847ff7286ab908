"""Each stack shows its own sizing: two recommended stacks may have the same rows in different
pools (#1 one MIG pool, #2 a MIG pool beside a whole-GPU pool); the recommendations page, the
decision page and the PDF each pick the sized stack of the same rank or pools, never the first
with the same rows (issue 40: #2 and #5 showed #1's and #4's MIG sizing)."""

from __future__ import annotations

from evaluations.simulations.selectors import capacity_of_rows

ROWS = ["nvidia-gpu-operator/clusterpolicy", "nvidia-mig/mig-mixed", "kueue/controller"]
ONE_POOL = {"rank": 1, "rows": ROWS, "pools": [{"name": "shared", "mig_geometry": [[1]]}]}
TWO_POOLS = {
    "rank": 2,
    "rows": list(reversed(ROWS)),
    "pools": [{"name": "inference", "mig_geometry": [[2]]}, {"name": "training"}],
}
PANEL = {"stacks": [ONE_POOL, TWO_POOLS]}


def test_a_recommendation_gets_the_sized_stack_of_its_rank():
    assert capacity_of_rows(PANEL, ROWS, rank=2, pools={"inference": [], "training": []}) is (
        TWO_POOLS
    )
    assert capacity_of_rows(PANEL, ROWS, rank=1, pools={"shared": []}) is ONE_POOL


def test_a_decision_gets_the_sized_stack_with_its_pools():
    assert capacity_of_rows(PANEL, ROWS, pools={"training": [], "inference": []}) is TWO_POOLS


def test_rows_alone_that_two_stacks_share_pick_neither():
    assert capacity_of_rows(PANEL, ROWS) is None
    assert capacity_of_rows({"stacks": [ONE_POOL]}, ROWS) is ONE_POOL
