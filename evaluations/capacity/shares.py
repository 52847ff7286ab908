"""Whole numbers in proportion: GPUs to pools and tenants, instances to profiles (Hamilton's
method), and the floor that keeps a tenant with work from being rounded down to nothing."""

from __future__ import annotations

from collections.abc import Sequence


def largest_remainder(
    total: int, weights: Sequence[float], minimum: int = 0, rotate: int = 0
) -> list[int]:
    """`total` split in whole numbers in proportion to `weights`, each at least `minimum` while
    the total allows it (Hamilton's method). Equal remainders go in turn from weight `rotate`
    on (then wrapping round): pools or resources split one after another with rotate 0, 1, 2 …
    give equal tenants the odd unit in turn, not always to the first."""
    if not weights:
        return []
    floor = minimum if total >= minimum * len(weights) else 0
    spare = total - floor * len(weights)
    weight_sum = sum(weights)
    if weight_sum <= 0:
        weights, weight_sum = [1.0] * len(weights), float(len(weights))
    shares = [spare * w / weight_sum for w in weights]
    counts = [floor + int(share) for share in shares]
    left = total - sum(counts)
    count = len(weights)
    order = sorted(
        range(count), key=lambda i: (-round(shares[i] - int(shares[i]), 9), (i - rotate) % count)
    )
    for index in order[:left]:
        counts[index] += 1
    return counts


def at_least_one(total: int, weights: Sequence[float], rotate: int = 0) -> list[int]:
    """`total` in proportion to `weights` (largest remainder), then each share rounded down to
    nothing raised to one, taken from the largest share, while the total allows: proportions
    hold except that no one with a weight is left with nothing when it need not be."""
    counts = largest_remainder(total, weights, rotate=rotate)
    for index in sorted(range(len(counts)), key=lambda i: -weights[i]):
        if counts[index] or weights[index] <= 0:
            continue
        richest = max(range(len(counts)), key=lambda i: (counts[i], -i))
        if counts[richest] <= 1:
            break
        counts[richest] -= 1
        counts[index] += 1
    return counts
