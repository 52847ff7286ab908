"""The bounded recommender: the built-in catalog ranks as it did before the search was bounded,
and a 2,000-row catalog stays within the budget.

The bounded search is checked against the unbounded one on the same catalog, never against
a ranking captured from an earlier engine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from catalog.engine.profile import Profile
from catalog.engine.rows import row_from_bundle
from evaluations.engine.recommend import UNBOUNDED, Budget, Ranking, recommend
from tests.evaluations.engine.test_recommend import (
    HARD_P99,
    INFERENCE_FIRST,
    MIXED,
    TRAINING_FIRST,
    load_builtin_catalog,
)
from tests.evaluations.factories import MIXED_PROFILE

# The profile bench/report evaluates (training beside P99-bound inference, soft isolation).
BENCH_REPORT = MIXED_PROFILE
SINGLE_TENANT_INFERENCE = {"workload_types": ["online_inference"], "tenancy": "single"}
CHEAP_SHARING = {
    "workload_types": ["interactive", "batch"],
    "primary_objective": "cost",
    "isolation": "none",
    "tenancy": "multi",
    "priorities": ["cost"],
}
PROFILES = {
    "training": TRAINING_FIRST,
    "inference": INFERENCE_FIRST,
    "mixed": MIXED,
    "hard_p99": HARD_P99,
    "bench_report": BENCH_REPORT,
    "single_inference": SINGLE_TENANT_INFERENCE,
    "cost_interactive": CHEAP_SHARING,
}


@pytest.fixture(scope="module")
def catalog():
    return load_builtin_catalog()


def shown(ranking):
    return [(r.rank, r.shape, r.score, r.pools, r.cluster_wide) for r in ranking]


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_the_built_in_catalog_is_ranked_to_the_end_within_the_budget(catalog, name):
    ranking = recommend(Profile.from_dict(PROFILES[name]), catalog, limit=5)

    assert ranking
    for recommendation in ranking:
        placed = {i for ids in recommendation.pools.values() for i in ids}
        assert set(recommendation.rows) == placed | set(recommendation.cluster_wide)
    assert ranking.complete, ranking.examined


@pytest.mark.parametrize("name", ["mixed", "inference"])
def test_the_bounded_search_ranks_the_built_in_catalog_like_the_unbounded_one(catalog, name):
    profile = Profile.from_dict(PROFILES[name])

    # The five a page shows by default (three-pool shapes combine fewer candidates per slot, so
    # further down the two may differ by an alternative of equal kind).
    bounded = recommend(profile, catalog, limit=5)
    unbounded = recommend(profile, catalog, limit=5, budget=UNBOUNDED)

    assert [r.to_dict() for r in bounded] == [r.to_dict() for r in unbounded]
    assert bounded.examined < unbounded.examined  # the pruning did prune


def test_a_spent_budget_returns_the_best_found_so_far_and_says_so(catalog):
    profile = Profile.from_dict(MIXED)

    ranking = recommend(profile, catalog, limit=5, budget=Budget(drafts=40))

    assert isinstance(ranking, Ranking)
    assert not ranking.complete
    assert ranking.examined == 40
    assert ranking, "forty drafts hold at least one stack that passes the check"
    assert [r.rank for r in ranking] == list(range(1, len(ranking) + 1))
    assert all(r.report.ok for r in ranking)


def test_a_deadline_already_passed_stops_the_search_before_any_draft(catalog):
    ranking = recommend(Profile.from_dict(MIXED), catalog, budget=Budget(seconds=0))

    assert not ranking.complete
    assert ranking.examined == 0
    assert ranking == []


def test_the_head_of_a_ranking_keeps_the_account_of_the_search(catalog):
    ranking = recommend(Profile.from_dict(MIXED), catalog, limit=5, budget=Budget(drafts=40))

    head = ranking.head(2)

    assert head == ranking[:2]
    assert (head.examined, head.complete) == (40, False)


def scaled_rows(rows: int):
    """bench/scalecatalog's realistic big catalog as engine rows, maintained projects only."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from scalecatalog import scaled_projects

    return [
        row_from_bundle(project["slug"], placement, project_name=project["name"])
        for project in scaled_projects(rows=rows, projects=rows // 4)
        if "unmaintained" not in project.get("tags", [])
        for placement in project["placements"]
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mixed", "inference"])
def test_a_2000_row_catalog_is_ranked_within_the_budget(name):
    rows = scaled_rows(2000)
    budget = Budget()

    ranking = recommend(Profile.from_dict(PROFILES[name]), rows, limit=5, budget=budget)

    assert len(rows) > 1500
    assert 0 < ranking.examined <= budget.drafts
    assert len(ranking) == 5
    assert all(r.report.ok for r in ranking)
    # Forks and editions of the built-in rows: the best stack scores what the built-in best does.
    built_in = recommend(Profile.from_dict(PROFILES[name]), load_builtin_catalog(), limit=1)
    assert ranking[0].shape == built_in[0].shape
    assert ranking[0].score >= built_in[0].score
