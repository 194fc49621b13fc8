"""``OpCase``: one row of the op table.

``fn(lib, *tensors)`` runs the op with ``lib`` being ``hookgrad`` or ``torch``, so the
same lambda drives both libraries. ``inputs`` lists, per argument of ``fn``, either a
shape (a tuple: a random floating tensor that requires grad) or a ``Const`` (a fixed,
non-differentiable argument such as an index tensor or a mask).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np


@dataclass(frozen=True)
class Const:
    """A non-differentiable input: ``make(rng)`` returns a NumPy array (int/bool/float)."""

    make: Callable[[np.random.Generator], np.ndarray]


Input = Union[tuple, Const]


@dataclass(frozen=True)
class OpCase:
    name: str
    fn: Callable[..., Any]
    inputs: tuple[Input, ...]
    low: float = -2.0
    high: float = 2.0
    # Sample so that no two differentiable elements are closer than this (for max/sort
    # style ops whose gradient jumps at ties), 0 to disable.
    distinct: bool = False
    gradgrad: bool = True
    rtol32: float = 1e-4
    atol32: float = 1e-5
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def id(self) -> str:
        shapes = "-".join(
            "x".join(map(str, i)) if isinstance(i, tuple) else "c" for i in self.inputs
        )
        return f"{self.name}[{shapes}]"

    def arrays(self) -> list[np.ndarray]:
        """The case's inputs as float64 / constant arrays, the same on every run."""
        rng = np.random.default_rng(zlib.crc32(self.id.encode()))
        sizes = [int(np.prod(s)) for s in self.inputs if isinstance(s, tuple)]
        # Distinct values: one shuffled grid shared by all inputs, so no two elements tie.
        grid = rng.permutation(sum(sizes)) / max(sum(sizes), 1) * (self.high - self.low)
        grid = grid + self.low + 0.5 * (self.high - self.low) / max(sum(sizes), 1)
        out = []
        for spec in self.inputs:
            if isinstance(spec, Const):
                out.append(spec.make(rng))
            elif self.distinct:
                count = int(np.prod(spec))
                out.append(grid[:count].reshape(spec).astype(np.float64))
                grid = grid[count:]
            else:
                out.append(rng.uniform(self.low, self.high, size=spec))
        return out
