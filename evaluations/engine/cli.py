"""JSON in and out for `manage.py recommend PROFILE.json --json`, without Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from evaluations.engine.recommend import recommend


def recommend_json(
    profile_dict: Mapping[str, Any], rows: Sequence[Row], limit: int = 5
) -> dict[str, Any]:
    """The ranking as JSON (`Ranking.envelope`: `stacks`, `left_out`, `unknown_models`,
    `notes`); a ValueError names what is wrong with the input."""
    if not isinstance(profile_dict, Mapping):
        raise ValueError(f"a profile is a JSON object, got {type(profile_dict).__name__}")
    # bool is an int subclass; `--limit true` is not a number of stacks.
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit: expected a positive integer, got {limit!r}")
    profile = Profile.from_dict(profile_dict)
    ranking = recommend(profile, rows, limit=limit)
    return ranking.envelope([recommendation.to_dict() for recommendation in ranking])
