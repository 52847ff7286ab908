"""The expert profiles' recommended stacks that queue with Volcano or KAI Scheduler or hand out
devices through a DRA driver (tests/evaluations/expert_profiles/profiles.py, ranked against the
built-in catalog as that suite ranks them): each, taken as the decision, gives files that
validate, with the queue files of the scheduler it decided."""

from __future__ import annotations

import pytest

from catalog.engine.profile import Profile
from evaluations.configgen.generate import generate
from evaluations.configgen.model import DecisionFacts
from evaluations.configgen.schemas import check_files
from evaluations.engine.recommend import recommend
from tests.evaluations.configgen.catalog_rows import bundle_row
from tests.evaluations.configgen.known_gaps import KNOWN_GAPS, known_gap
from tests.evaluations.engine.test_recommend import load_builtin_catalog
from tests.evaluations.expert_profiles.profiles import PROFILES

LIMIT = 5  # as tests/evaluations/expert_profiles/test_expert_profiles.py ranks them
QUEUE_FILES = {"volcano": "volcano/queues.yaml", "kai-scheduler": "kai-scheduler/queues.yaml"}


def _uses_dra_driver(refs: list[str]) -> bool:
    return any(bundle_row(ref).dra_drivers for ref in refs)


@pytest.fixture(scope="module")
def stacks():
    """(profile, rank, recommendation) of every top-five stack with Volcano, KAI or DRA."""
    rows = load_builtin_catalog()
    found = []
    for expert in PROFILES:
        for item in recommend(Profile.from_dict(expert.profile), rows, limit=LIMIT):
            stack = item.to_dict()
            projects = {ref.split("/", 1)[0] for ref in stack["rows"]}
            if projects & set(QUEUE_FILES) or _uses_dra_driver(stack["rows"]):
                found.append((expert, stack))
    return found


def test_expert_stacks_with_volcano_kai_or_dra_give_files_that_validate(stacks):
    projects = {ref.split("/", 1)[0] for _expert, stack in stacks for ref in stack["rows"]}
    assert {"volcano", "kai-scheduler", "nvidia-dra-driver-gpu"} <= projects

    problems = []
    refused_as_known: set[str] = set()
    for expert, stack in stacks:
        facts = DecisionFacts(
            evaluation_id=stack["rank"],
            rows=tuple(bundle_row(ref) for ref in stack["rows"]),
            profile=Profile.from_dict(expert.profile),
            pools={name: list(refs) for name, refs in stack["pools"].items()},
            pool_tenant_sharing={
                name: detail.get("tenant_sharing", "")
                for name, detail in (stack.get("pool_details") or {}).items()
            },
            # As adopting the recommendation decides it: each pool on its node group.
            pool_groups={
                name: detail["node_group"]
                for name, detail in (stack.get("pool_details") or {}).items()
                if detail.get("node_group")
            },
        )
        where = f"{expert.name} #{stack['rank']}"
        try:
            files = generate(facts)
        except ValueError as exc:
            if known_gap(expert.name, str(exc)):
                refused_as_known.add(expert.name)
                continue
            problems.append(f"{where}: refused: {exc}")
            continue
        problems += [f"{where}: {problem}" for problem in check_files(files)]
        paths = {file.path for file in files}
        for project, path in QUEUE_FILES.items():
            if any(ref.startswith(f"{project}/") for ref in stack["rows"]) and path not in paths:
                problems.append(f"{where}: {project} decided but no {path}")
    assert problems == []
    # A known gap that no longer shows is fixed: take it off the list.
    assert refused_as_known <= set(KNOWN_GAPS)
