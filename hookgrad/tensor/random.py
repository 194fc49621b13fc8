"""Random numbers: ``Generator``, ``manual_seed``, the RNG state, and the random creation
functions (``rand``, ``randn``, ``randint``, ``randperm``, ``*_like``).

A ``Generator`` wraps NumPy's PCG64; a seed makes hookgrad's numbers reproducible, but
they are not torch's numbers. ``sample_uniform`` and ``sample_normal`` are the samplers
the rest of hookgrad draws from (``rand``, ``randn``, initialisers, dropout).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import (
    like_dtype,
    new_leaf,
    parse_size,
    resolve_dtype,
    size_args,
)
from hookgrad.tensor.device import check_device, cpu

DEFAULT_SEED = 67280421310721
_MASK64 = (1 << 64) - 1


class Generator:
    """A source of random numbers with its own state.

    Example::

        g = hookgrad.Generator().manual_seed(0)
        a = hookgrad.randn(3, generator=g)
        g.manual_seed(0)
        b = hookgrad.randn(3, generator=g)   # equal to a
    """

    def __init__(self, device: Any = "cpu") -> None:
        check_device(device)
        self.manual_seed(DEFAULT_SEED)

    @property
    def device(self) -> Any:
        """The device the generator draws for: always the CPU."""
        return cpu

    def manual_seed(self, seed: int) -> Generator:
        """Reset the state from ``seed`` (negative seeds wrap to 64 bits); returns ``self``."""
        seed = int(seed)
        if not -(1 << 63) <= seed <= _MASK64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _MASK64
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        """The seed the current state was made from."""
        return self._seed

    def seed(self) -> int:
        """Re-seed from fresh OS entropy; returns the new seed."""
        self.manual_seed(int.from_bytes(os.urandom(8), "little"))
        return self._seed

    def get_state(self) -> Any:
        """The generator's state as an int64 tensor (restore it with ``set_state``)."""
        state = self._rng.bit_generator.state
        words = [
            state["state"]["state"] & _MASK64,
            state["state"]["state"] >> 64,
            state["state"]["inc"] & _MASK64,
            state["state"]["inc"] >> 64,
            state["has_uint32"],
            state["uinteger"],
            self._seed,
        ]
        return new_leaf(np.array(words, dtype=np.uint64).view(np.int64))

    def set_state(self, new_state: Any) -> Generator:
        """Restore a state returned by ``get_state``; returns ``self``."""
        words = [int(w) for w in np.asarray(new_state._data, dtype=np.int64).view(np.uint64)]
        if len(words) != 7:
            raise RuntimeError("Expected a state tensor returned by Generator.get_state()")
        self._seed = words[6]
        self._rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": words[0] | words[1] << 64, "inc": words[2] | words[3] << 64},
            "has_uint32": words[4],
            "uinteger": words[5],
        }
        return self


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator, so that later random calls repeat; returns it.

    Example::

        hookgrad.manual_seed(0); a = hookgrad.rand(2)
        hookgrad.manual_seed(0); b = hookgrad.rand(2)    # equal to a
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from fresh entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed of the default generator."""
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    """The default generator's state as a tensor (see ``set_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


def _rng(generator: Generator | None) -> np.random.Generator:
    return (default_generator if generator is None else generator)._rng


# -- samplers ------------------------------------------------------------------------------
def _check_dtype(np_dtype: np.dtype, kernel: str) -> None:
    if np_dtype.kind not in "fc":
        name = dtypes.legacy_name(dtypes.from_numpy_dtype(np_dtype))
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _uniform_real(shape: tuple[int, ...], np_dtype: np.dtype, rng: np.random.Generator) -> Any:
    if np_dtype == np.float16:
        # NOTE: float16 keeps 11 significant bits: a multiple of 2**-11 never rounds to 1.
        return (rng.integers(0, 1 << 11, shape) * 2.0**-11).astype(np.float16)
    return rng.random(shape, dtype=np_dtype)


def sample_uniform(
    shape: tuple[int, ...], np_dtype: np.dtype, generator: Generator | None = None
) -> np.ndarray:
    """An array of ``shape`` uniform in ``[0, 1)`` (real and imaginary parts for complex)."""
    np_dtype = np.dtype(np_dtype)
    _check_dtype(np_dtype, "check_uniform_bounds")
    rng = _rng(generator)
    if np_dtype.kind == "c":
        real = np.float32 if np_dtype == np.complex64 else np.float64
        parts = _uniform_real(shape, np.dtype(real), rng), _uniform_real(shape, np.dtype(real), rng)
        return (parts[0] + 1j * parts[1]).astype(np_dtype)
    return np.asarray(_uniform_real(shape, np_dtype, rng))


def sample_normal(
    shape: tuple[int, ...], np_dtype: np.dtype, generator: Generator | None = None
) -> np.ndarray:
    """An array of ``shape`` of standard normal samples; a complex sample has variance 1
    (each part variance 1/2), as torch's."""
    np_dtype = np.dtype(np_dtype)
    _check_dtype(np_dtype, "normal_kernel_cpu")
    rng = _rng(generator)
    if np_dtype.kind == "c":
        real = np.float32 if np_dtype == np.complex64 else np.float64
        parts = rng.standard_normal((2, *shape), dtype=real) * np.sqrt(0.5, dtype=real)
        return (parts[0] + 1j * parts[1]).astype(np_dtype)
    if np_dtype == np.float16:
        return rng.standard_normal(shape, dtype=np.float32).astype(np.float16)
    return np.asarray(rng.standard_normal(shape, dtype=np_dtype))


# -- random creation functions -------------------------------------------------------------
def rand(
    *args: Any,
    size: Any = None,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Samples uniform in ``[0, 1)`` of the given size (varargs or a tuple).

    Example: ``hookgrad.rand(2, 3)``.
    """
    check_device(device)
    shape = parse_size(size_args(args, size), "rand")
    return new_leaf(sample_uniform(shape, resolve_dtype(dtype).np, generator), requires_grad)


def randn(
    *args: Any,
    size: Any = None,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Standard normal samples of the given size (varargs or a tuple).

    Example: ``hookgrad.randn(2, 3, dtype=hookgrad.float64)``.
    """
    check_device(device)
    shape = parse_size(size_args(args, size), "randn")
    return new_leaf(sample_normal(shape, resolve_dtype(dtype).np, generator), requires_grad)


def _check_int(value: Any, name: str, position: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"randint(): argument '{name}' (position {position}) must be int, not "
            f"{type(value).__name__}"
        )
    return int(value)


def _random_integers(
    low: int, high: int, shape: tuple[int, ...], target: dtypes.dtype, generator: Any
) -> np.ndarray:
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if target is dtypes.bool_ and low < 0:
        raise RuntimeError("from is out of bounds for bool")
    if target is dtypes.bool_ and high > 2:
        raise RuntimeError("to - 1 is out of bounds for bool")
    return _rng(generator).integers(low, high, size=shape).astype(target.np)


def randint(
    low: Any = None,
    high: Any = None,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Integers uniform in ``[low, high)`` of shape ``size`` (a tuple); int64 unless
    ``dtype`` says otherwise. ``randint(high, size)`` draws from ``[0, high)``.

    Example: ``hookgrad.randint(0, 10, (2, 3))``.
    """
    check_device(device)
    high_position = 2
    if size is None and isinstance(high, (tuple, list)):
        low, high, size, high_position = 0, low, high, 1
    elif high is None:
        low, high, high_position = 0, low, 1
    elif low is None:
        low = 0
    elif size is None:
        raise TypeError(
            f"randint(): argument 'size' (position 2) must be tuple of ints, not "
            f"{type(high).__name__}"
        )
    if size is None:
        raise TypeError('randint() missing 1 required positional arguments: "size"')
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"randint(): argument 'size' (position 3) must be tuple of ints, not "
            f"{type(size).__name__}"
        )
    low, high = _check_int(low, "low", 1), _check_int(high, "high", high_position)
    target = dtypes.int64 if dtype is None else dtypes.to_dtype(dtype)
    shape = parse_size((size,), "randint")
    return new_leaf(_random_integers(low, high, shape, target, generator), requires_grad)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` says otherwise).

    Example: ``hookgrad.randperm(4)`` could be ``tensor([2, 0, 3, 1])``.
    """
    check_device(device)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    target = dtypes.int64 if dtype is None else dtypes.to_dtype(dtype)
    if target is dtypes.bool_ or target.is_complex:
        raise NotImplementedError(
            f"\"randperm\" not implemented for '{dtypes.legacy_name(target)}'"
        )
    (count,) = parse_size((int(n),), "randperm")
    return new_leaf(_rng(generator).permutation(count).astype(target.np), requires_grad)


def rand_like(
    input: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    """Uniform ``[0, 1)`` samples with the shape (and, unless given, dtype) of ``input``."""
    check_device(device)
    np_dtype = like_dtype(input, dtype)
    return new_leaf(sample_uniform(input._data.shape, np_dtype), requires_grad)


def randn_like(
    input: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    """Standard normal samples with the shape (and, unless given, dtype) of ``input``."""
    check_device(device)
    np_dtype = like_dtype(input, dtype)
    return new_leaf(sample_normal(input._data.shape, np_dtype), requires_grad)


def randint_like(
    input: Any,
    low: int = 0,
    high: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    """Integers in ``[low, high)`` (``randint_like(x, high)``: ``[0, high)``) with the
    shape (and, unless given, dtype) of ``input``."""
    check_device(device)
    if high is None:
        low, high = 0, low
    target = dtypes.from_numpy_dtype(like_dtype(input, dtype))
    array = _random_integers(int(low), int(high), input._data.shape, target, None)
    return new_leaf(array, requires_grad)
