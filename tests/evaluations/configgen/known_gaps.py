"""Refusals the configuration generator owes a fix, each with the open issue that asks for it:
the recommended stack is sound, the configuration for it is not written yet. A test meeting one
marks itself xfail with the reason, so the gap stays visible and a fix shows at once."""

from __future__ import annotations

# profile name -> (words of the refusal, why, and the issue that tracks it)
KNOWN_GAPS: dict[str, tuple[tuple[str, str], ...]] = {
    "gaudi3-training-k8s-1.34": (
        (
            "no decided data-plane row advertises a resource for Kueue to cover",
            "issue 39: Kueue quota over DRA devices (deviceClassMappings) is not generated yet",
        ),
        (
            "no decided data-plane row presents a resource for Volcano's queues",
            "issue 39: Volcano queues over DRA devices are not generated yet",
        ),
    ),
}


def known_gap(profile: str, refusal: str) -> str | None:
    """Why `refusal` is a known gap for `profile`, or None."""
    return next((why for words, why in KNOWN_GAPS.get(profile, ()) if words in refusal), None)
