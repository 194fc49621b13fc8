"""Timing helpers shared by the benchmarks: best-of-N wall time of a callable."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], repeat: int = 7, number: int = 1) -> float:
    """The fastest of ``repeat`` runs of ``number`` calls, in seconds per call."""
    fn()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def report(name: str, ours: float, theirs: float, target: float) -> None:
    """Print hookgrad's time, torch's time and the ratio against the target ratio."""
    ratio = ours / theirs
    verdict = "meets" if ratio <= target else "misses"
    print(
        f"{name:<32} hookgrad {ours * 1e3:9.3f} ms   torch {theirs * 1e3:9.3f} ms   "
        f"ratio {ratio:5.2f}x  ({verdict} target {target:.2f}x)"
    )
