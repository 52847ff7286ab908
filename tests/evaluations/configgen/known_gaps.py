"""Refusals the configuration generator owes a fix, each with the open issue that asks for it:
the recommended stack is sound, the configuration for it is not written yet. A test meeting one
marks itself xfail with the reason, so the gap stays visible and a fix shows at once."""

from __future__ import annotations

# profile name -> (words of the refusal, why, and the issue that tracks it)
KNOWN_GAPS: dict[str, tuple[tuple[str, str], ...]] = {
    # Empty since issue 39: Gaudi over DRA with Kueue (deviceClassMappings) and with Volcano
    # (deviceclass/<class> quota keys) both give configuration now.
}


def known_gap(profile: str, refusal: str) -> str | None:
    """Why `refusal` is a known gap for `profile`, or None."""
    return next((why for words, why in KNOWN_GAPS.get(profile, ()) if words in refusal), None)
