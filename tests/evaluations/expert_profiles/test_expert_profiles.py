"""The recommender's top three, checked against what a GPU-platform expert expects.

One test per (profile, expectation): the id reads "<profile>: <expectation>", the failure names
the profile, the rank, the offending pool and rows, and the source of the expectation. Each
profile is ranked once per module (limit 5) against the built-in catalog.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from evaluations.engine.recommend import recommend
from tests.evaluations.engine.test_recommend import load_builtin_catalog
from tests.evaluations.expert_profiles.profiles import (
    PROFILES,
    PROFILES_BY_NAME,
    Expect,
    ExpertProfile,
)
from tests.evaluations.expert_profiles.properties import SCOPES, Context, Unmet, evaluate

LIMIT = 5


@dataclass
class Outcome:
    """One profile ranked, or why it could not be."""

    ranking: list[Any] = field(default_factory=list)
    error: str | None = None


def _rank(expert: ExpertProfile, rows: list[Row]) -> Outcome:
    try:
        profile = Profile.from_dict(expert.profile)
    except ValueError as exc:
        return Outcome(error=f"Profile.from_dict refused the profile: {exc}")
    try:
        return Outcome(ranking=recommend(profile, rows, limit=LIMIT))
    except Exception as exc:  # any engine error is this profile's failure
        where = traceback.format_exception_only(exc)[-1].strip()
        return Outcome(error=f"recommend() raised {where}")


@pytest.fixture(scope="module")
def catalog_rows() -> list[Row]:
    return load_builtin_catalog()


@pytest.fixture(scope="module")
def ranked(catalog_rows: list[Row]) -> Callable[[str], Outcome]:
    """Each profile ranked once for the module, on first use."""
    cache: dict[str, Outcome] = {}

    def get(name: str) -> Outcome:
        if name not in cache:
            cache[name] = _rank(PROFILES_BY_NAME[name], catalog_rows)
        return cache[name]

    return get


def _failure(expert: ExpertProfile, expect: Expect, problems: list[str]) -> str:
    lines = [f"[{expert.name}] {expect.says}", *(f"  - {p}" for p in problems)]
    lines += [f"  expected because: {expect.source}", f"  profile: {expert.title}"]
    return "\n".join(lines)


CASES = [(p, e) for p in PROFILES for e in p.expectations]


@pytest.mark.parametrize(("expert", "expect"), CASES, ids=[f"{p.name}: {e.says}" for p, e in CASES])
def test_the_top_three_meet_the_experts_expectation(ranked, catalog_rows, expert, expect):
    outcome = ranked(expert.name)
    if outcome.error:
        pytest.fail(f"[{expert.name}] {expect.says}\n  - {outcome.error}", pytrace=False)
    ctx = Context(expert.name, expert.profile, {r.id: r for r in catalog_rows})
    try:
        problems = evaluate(expect.scope, expect.check, expect.args, outcome.ranking, ctx)
    except Unmet as exc:
        problems = [f"interface not there yet: {exc}"]
    if problems:
        pytest.fail(_failure(expert, expect, problems), pytrace=False)


@pytest.mark.parametrize("expert", PROFILES, ids=[p.name for p in PROFILES])
def test_each_profile_is_a_valid_step_one_profile(expert):
    try:
        Profile.from_dict(expert.profile)
    except ValueError as exc:
        pytest.fail(f"[{expert.name}] Profile.from_dict refused it: {exc}", pytrace=False)


# -- the yardstick itself ----------------------------------------------------------------------


def test_there_are_at_least_twelve_profiles_with_distinct_names():
    assert len(PROFILES) >= 12
    assert len(PROFILES_BY_NAME) == len(PROFILES)


@pytest.mark.parametrize("expert", PROFILES, ids=[p.name for p in PROFILES])
def test_every_expectation_names_a_known_check_and_a_source(expert):
    from tests.evaluations.expert_profiles import properties

    checks = {
        "each": properties.RECOMMENDATION_CHECKS,
        "any": properties.RECOMMENDATION_CHECKS,
        "first": properties.RECOMMENDATION_CHECKS,
        "top3": properties.LIST_CHECKS,
        "ranking": properties.RANKING_CHECKS,
    }
    says = [e.says for e in expert.expectations]
    assert len(set(says)) == len(says), f"two expectations read the same: {says}"
    for expect in expert.expectations:
        assert expect.scope in SCOPES, expect
        assert expect.check in checks[expect.scope], expect
        assert (
            "http" in expect.source
            or "METHOD.md" in expect.source
            or ("DESIGN.md" in expect.source)
        ), f"{expect.says}: no source"
