"""JSON in and out for `manage.py recommend PROFILE.json --json`, without Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from evaluations.engine.recommend import Ranking, recommend


def recommend_json(profile_dict: Mapping[str, Any], rows: Sequence[Row], limit: int = 5) -> Ranking:
    """Ranked stacks as JSON-ready dicts (a `Ranking`: its `note` says whether the search
    budget stopped the search); a ValueError names what is wrong with the input."""
    if not isinstance(profile_dict, Mapping):
        raise ValueError(f"a profile is a JSON object, got {type(profile_dict).__name__}")
    # bool is an int subclass; `--limit true` is not a number of stacks.
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit: expected a positive integer, got {limit!r}")
    profile = Profile.from_dict(profile_dict)
    ranking = recommend(profile, rows, limit=limit)
    return Ranking(
        (recommendation.to_dict() for recommendation in ranking),
        examined=ranking.examined,
        complete=ranking.complete,
    )
