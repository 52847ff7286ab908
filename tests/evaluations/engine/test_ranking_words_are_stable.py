"""A ranking says the same words in every process.

Python orders a set of strings differently from one process to the next (hash randomisation), so
a sentence that lists a set as it comes is worded differently by each worker: the OpenCost
sentence listed the resources it reads in any order, so two builds of one report, or the page and
the PDF, disagreed. Each run here is a fresh interpreter with its own hash seed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# One expert profile whose ranking names what OpenCost cannot cost (a shared vGPU pool).
SCRIPT = """
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ecomap.settings.test")
django.setup()
from catalog.engine.profile import Profile
from evaluations.engine.recommend import recommend
from tests.evaluations.expert_profiles.profiles import PROFILES_BY_NAME
from tests.factories import builtin_rows
rows = list(builtin_rows(maintained_only=True).values())
expert = PROFILES_BY_NAME[os.environ["EXPERT_PROFILE"]]
ranking = recommend(Profile.from_dict(expert.profile), rows, limit=5)
print("\\n".join(repr(r) for r in ranking))
"""
NAME = "h100-inference-single-tenant-soft"


def _ranking_in_a_process(seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "EXPERT_PROFILE": NAME}
    done = subprocess.run(  # noqa: S603 (this interpreter, a fixed script)
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    return done.stdout


def test_four_processes_word_one_ranking_alike():
    words = {_ranking_in_a_process(seed) for seed in (1, 2, 3, 4)}

    assert len(words) == 1
    assert "cannot cost pool" in next(iter(words))
