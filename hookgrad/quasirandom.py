"""``hookgrad.quasirandom``: ``SobolEngine``, torch's generator of (scrambled) Sobol
sequences, drawing the same numbers as ``torch.quasirandom.SobolEngine``.

The direction numbers are Joe and Kuo's for up to 21201 dimensions, found with their
search criterion D(6) (S. Joe and F. Y. Kuo, "Constructing Sobol sequences with better
two-dimensional projections", SIAM J. Sci. Comput. 30, 2635-2654, 2008; the file
``new-joe-kuo-6.21201`` of https://web.maths.unsw.edu.au/~fkuo/sobol/), the table torch
compiles in. ``sobol_direction_numbers.npz`` holds them as ``poly`` (each dimension's
primitive polynomial, its coefficients as bits) and ``vinit`` (its initial direction
numbers m_1 ... m_deg, zero-padded); it was written from SciPy's copy of the same file
(``scipy/stats/_sobol_direction_numbers.npz``). The steps below are torch's kernels
(``aten/src/ATen/native/SobolEngineOps.cpp``): the state is initialised by Bratley and
Fox's recurrence, scrambled by Owen's linear matrix scrambling with random bits from
hookgrad's generator (torch's stream), and each point is the previous one XORed with the
direction number of the rightmost zero bit of its index (Gray-code order).
"""

from __future__ import annotations

import functools
import operator
from pathlib import Path
from typing import Any

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor.random import Generator, randint
from hookgrad.tensor.tensor import Tensor

__all__ = ["SobolEngine"]

_TABLE = Path(__file__).with_name("sobol_direction_numbers.npz")


@functools.cache
def _direction_table() -> tuple[np.ndarray, np.ndarray]:
    """Joe and Kuo's primitive polynomials and initial direction numbers."""
    with np.load(_TABLE) as table:
        return table["poly"].astype(np.int64), table["vinit"].astype(np.int64)


def _rightmost_zero(n: int) -> int:
    """The position of the lowest zero bit of ``n``."""
    return ((n + 1) & -(n + 1)).bit_length() - 1


class SobolEngine:
    """A generator of Sobol sequences: low-discrepancy points in the unit cube of
    ``dimension`` (1 to 21201) dimensions, optionally scrambled (Owen's scrambling with
    a random digital shift; ``seed`` seeds it, else the default generator draws it).

    ``draw(n)`` returns the next ``n`` points as an ``(n, dimension)`` tensor;
    ``draw_base2(m)`` the next ``2**m``; ``fast_forward(n)`` skips ``n``; ``reset()``
    starts again. The numbers are torch's. Example::

        engine = hookgrad.quasirandom.SobolEngine(dimension=2)
        engine.draw(3)    # tensor([[0.0000, 0.0000], [0.5000, 0.5000], [0.7500, 0.2500]])
    """

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None) -> None:
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(
                f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]"
            )
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        self.sobolstate = Tensor._make(self._initial_state(dimension))
        if not self.scramble:
            self.shift = Tensor._make(np.zeros(dimension, np.int64))
        else:
            self._scramble()
        self.quasi = Tensor._make(self.shift._data.copy())
        # NOTE: as torch, the first point is the shift divided in the default dtype when
        # the engine is made, and later cast to the dtype asked for.
        default = dtypes.get_default_dtype().np
        first = self.quasi._data.astype(default) / default.type(2**self.MAXBIT)
        self._first_point = Tensor._make(first.reshape(1, -1))
        self.num_generated = 0

    # -------------------------------------------------------------- torch's kernels

    @classmethod
    def _initial_state(cls, dimension: int) -> np.ndarray:
        """The direction numbers ``(dimension, MAXBIT)`` (torch's
        ``_sobol_engine_initialize_state_``): Joe and Kuo's initial numbers, extended by
        Bratley and Fox's recurrence (all dimensions at once), then shifted to the top of
        ``MAXBIT`` bits."""
        poly_table, vinit = _direction_table()
        poly = poly_table[:dimension]
        degree = np.array([int(p).bit_length() - 1 for p in poly], np.int64)
        state = np.ones((dimension, cls.MAXBIT), np.int64)
        given = np.arange(cls.MAXBIT) < degree[:, None]
        state[given] = np.pad(vinit[:dimension], ((0, 0), (0, cls.MAXBIT - vinit.shape[1])))[given]
        for j in range(cls.MAXBIT):
            rows = np.flatnonzero(j >= degree)
            rows = rows[degree[rows] > 0]
            if not rows.size:
                continue
            m, p = degree[rows], poly[rows]
            new = state[rows, j - m]
            for k in range(int(m.max())):
                used = (k < m) & (((p >> np.maximum(m - 1 - k, 0)) & 1) == 1)
                term = (2 << k) * state[rows, max(j - k - 1, 0)]
                new = new ^ np.where(used, term, 0)
            state[rows, j] = new
        return state * (1 << np.arange(cls.MAXBIT - 1, -1, -1, dtype=np.int64))

    def _scramble(self) -> None:
        """Owen's scrambling (torch's ``_scramble``): a random shift and random lower
        triangular bit matrices, drawn in torch's order from ``seed``'s generator."""
        generator = None
        if self.seed is not None:
            generator = Generator()
            generator.manual_seed(self.seed)
        bits = self.MAXBIT
        shift_ints = randint(2, (self.dimension, bits), generator=generator)._data
        self.shift = Tensor._make(shift_ints @ (1 << np.arange(bits, dtype=np.int64)))
        ltm = randint(2, (self.dimension, bits, bits), generator=generator)._data
        ltm = np.tril(ltm)
        self.sobolstate = Tensor._make(self._scrambled(self.sobolstate._data, ltm))

    @classmethod
    def _scrambled(cls, state: np.ndarray, ltm: np.ndarray) -> np.ndarray:
        """torch's ``_sobol_engine_scramble_``: each direction number's bit
        ``MAXBIT - 1 - p`` becomes the parity of its AND with row ``p`` of its dimension's
        matrix (diagonal set to 1) read as bits, column 0 the highest."""
        bits = cls.MAXBIT
        ltm = ltm.copy()
        ltm[:, np.arange(bits), np.arange(bits)] = 1
        rows = ltm @ (1 << np.arange(bits - 1, -1, -1, dtype=np.int64))  # (dim, p)
        anded = rows[:, :, None] & state[:, None, :]  # (dim, p, j)
        parity = np.zeros(anded.shape, np.int64)
        for bit in range(bits):
            parity ^= (anded >> bit) & 1
        weights = 1 << np.arange(bits - 1, -1, -1, dtype=np.int64)  # p = 0 is the top bit
        return np.einsum("dpj,p->dj", parity, weights)

    def _advance(self, n: int, num_generated: int) -> np.ndarray:
        """The next ``n`` states (integers ``(n, dimension)``) after ``self.quasi``, the
        ``num_generated``-th; ``self.quasi`` becomes the last (torch's
        ``_sobol_engine_draw``/``_sobol_engine_ff_``)."""
        columns = [_rightmost_zero(num_generated + i) for i in range(n)]
        steps = self.sobolstate._data[:, columns].T
        states = np.bitwise_xor.accumulate(steps, axis=0) ^ self.quasi._data
        if len(states):
            self.quasi = Tensor._make(states[-1].copy())
        return states

    def _points(self, n: int, num_generated: int, dtype: Any) -> np.ndarray:
        """The next ``n`` points as ``dtype``: the states scaled by ``2**-MAXBIT``."""
        states = self._advance(n, num_generated)
        return states.astype(dtype) * dtype.type(2.0**-self.MAXBIT)

    # -------------------------------------------------------------- the public API

    def draw(self, n: int = 1, out: Tensor | None = None, dtype: Any = None) -> Tensor:
        """The next ``n`` points, an ``(n, dimension)`` tensor of ``dtype`` (the default
        float dtype unless given); written into ``out`` (resized) when given."""
        n = operator.index(n)
        target = (dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)).np
        if self.num_generated == 0:
            first = self._first_point._data.astype(target)
            if n == 1:
                points = first
            else:
                points = np.concatenate((first, self._points(n - 1, 0, target)), axis=-2)
        else:
            points = self._points(n, self.num_generated - 1, target)
        self.num_generated += n
        result = Tensor._make(points)
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m: int, out: Tensor | None = None, dtype: Any = None) -> Tensor:
        """The next ``2**m`` points; the total drawn must stay a power of 2 (the balance
        of Sobol points), else ``ValueError``."""
        n = 2**m
        total_n = self.num_generated + n
        if total_n & (total_n - 1) != 0:
            raise ValueError(
                "The balance properties of Sobol' points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total_n}. If you still want to do this, "
                "please use 'SobolEngine.draw()' instead."
            )
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self) -> SobolEngine:
        """Start the sequence again; returns the engine."""
        self.quasi = Tensor._make(self.shift._data.copy())
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Skip the next ``n`` points (as drawing them would); returns the engine."""
        if self.num_generated == 0:
            self._advance(n - 1, 0)
        else:
            self._advance(n, self.num_generated - 1)
        self.num_generated += n
        return self

    def __repr__(self) -> str:
        parts = [f"dimension={self.dimension}"]
        if self.scramble:
            parts.append("scramble=True")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(parts)})"
