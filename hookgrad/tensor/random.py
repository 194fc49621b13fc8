"""Random numbers: ``Generator``, ``manual_seed`` and the random creation functions.

hookgrad's generator is NumPy's PCG64; a seed reproduces hookgrad's numbers, not
torch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import _finish, _like_dtype, _np_dtype, _shape


class Generator:
    """A source of random numbers with its own state.

    Example::

        g = hookgrad.Generator().manual_seed(0)
        hookgrad.randn(3, generator=g)
    """

    def __init__(self, device: Any = "cpu") -> None:
        self._seed = 67280421310721
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        """Reset the state from ``seed``; returns the generator."""
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Seed from fresh entropy; returns the new seed."""
        self._seed = int(np.random.SeedSequence().entropy % (2**63))
        self._rng = np.random.default_rng(self._seed)
        return self._seed

    def get_state(self) -> Any:
        return self._rng.bit_generator.state

    def set_state(self, state: Any) -> Generator:
        self._rng.bit_generator.state = state
        return self


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def _rng(generator: Generator | None) -> np.random.Generator:
    return (default_generator if generator is None else generator)._rng


def _float_np(dtype: Any) -> np.dtype:
    np_dtype = _np_dtype(dtype)
    if np_dtype.kind not in "fc":
        raise RuntimeError(
            f"\"check_uniform_bounds\" not implemented for '{dtypes.to_dtype(dtype)}'"
        )
    return np_dtype


def _sample(kind: str, shape: tuple[int, ...], np_dtype: np.dtype, rng: np.random.Generator) -> Any:
    real = np.dtype(np_dtype.char.lower()) if np_dtype.kind == "c" else np_dtype
    draw = rng.random if kind == "uniform" else rng.standard_normal
    if np_dtype.kind == "c":
        scale = 1.0 if kind == "uniform" else np.sqrt(0.5)
        return (draw(shape) * scale + 1j * draw(shape) * scale).astype(np_dtype)
    return draw(shape).astype(real, copy=False) if real != np.float64 else draw(shape)


def rand(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Uniform samples from ``[0, 1)`` of shape ``size``."""
    array = _sample("uniform", _shape(size), _float_np(dtype), _rng(generator))
    return _finish(np.asarray(array), requires_grad)


def randn(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Standard normal samples of shape ``size``."""
    array = _sample("normal", _shape(size), _float_np(dtype), _rng(generator))
    return _finish(np.asarray(array), requires_grad)


def randint(
    low: int,
    high: Any = None,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Integers uniform in ``[low, high)`` of shape ``size`` (``randint(high, size)`` too)."""
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    np_dtype = np.int64 if dtype is None else dtypes.to_dtype(dtype).np
    array = _rng(generator).integers(low, high, size=_shape((size,))).astype(np_dtype)
    return _finish(array, requires_grad)


def rand_like(input: Any, *, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Any:
    np_dtype = _like_dtype(input, dtype)
    array = _sample("uniform", input._data.shape, np_dtype, _rng(None))
    return _finish(np.asarray(array), requires_grad)


def randn_like(input: Any, *, dtype: Any = None, requires_grad: bool = False, **_: Any) -> Any:
    np_dtype = _like_dtype(input, dtype)
    array = _sample("normal", input._data.shape, np_dtype, _rng(None))
    return _finish(np.asarray(array), requires_grad)


def randint_like(
    input: Any,
    low: int,
    high: Any = None,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
    **_: Any,
) -> Any:
    if high is None:
        low, high = 0, low
    array = _rng(None).integers(low, high, size=input._data.shape)
    return _finish(array.astype(_like_dtype(input, dtype)), requires_grad)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """A random permutation of ``0 .. n-1``."""
    np_dtype = np.int64 if dtype is None else dtypes.to_dtype(dtype).np
    return _finish(_rng(generator).permutation(n).astype(np_dtype), requires_grad)
