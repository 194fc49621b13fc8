"""Random numbers: ``Generator``, the seeds and the RNG state, the samplers the rest of
hookgrad draws from, and the random creation functions (``rand``, ``randn``, ``randint``,
``randperm``, ``*_like``).

A ``Generator`` is torch's CPU generator, bit for bit: the same Mersenne Twister seeded
the same way (``hookgrad.tensor.mersenne``), the same transforms for each dtype and size
(``hookgrad.tensor.random_kernels``), and the same state layout, so that after the same
``manual_seed`` a program draws the same numbers from hookgrad as from torch, and a state
saved by one can be restored in the other.

The samplers (``sample_uniform``, ``sample_normal`` ...) take the array to be filled and
return its new values: torch visits a tensor's elements in memory order, and takes its
vectorised normal path only for a contiguous one, so the layout matters as well as the
shape.

Example::

    hookgrad.manual_seed(0)
    hookgrad.rand(2)                   # tensor([0.4963, 0.7682]), as torch.rand(2)
"""

from __future__ import annotations

import contextlib
import math
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from hookgrad.ops.inplace import OVERLAP_ERROR, has_internal_overlap
from hookgrad.tensor import dtypes, random_kernels
from hookgrad.tensor.creation import (
    check_options,
    leaf_or_out,
    like_array,
    like_dtype,
    new_leaf,
    out_dtype,
    out_like,
    parse_size,
    resolve_dtype,
    size_args,
)
from hookgrad.tensor.device import check_device, cpu, factory_device
from hookgrad.tensor.mersenne import MASK64, Engine
from hookgrad.tensor.tensor import Tensor

DEFAULT_SEED = 67280421310721  # torch's seed of a new Generator


class Generator:
    """A source of random numbers with its own state: torch's CPU generator.

    Example::

        g = hookgrad.Generator().manual_seed(0)
        a = hookgrad.randn(3, generator=g)
        g.manual_seed(0)
        b = hookgrad.randn(3, generator=g)   # equal to a (and to torch's)
    """

    def __init__(self, device: Any = "cpu") -> None:
        check_device(device)
        self._engine = Engine(DEFAULT_SEED)

    @property
    def device(self) -> Any:
        """The device the generator draws for: always the CPU."""
        return cpu

    def manual_seed(self, seed: int) -> Generator:
        """Reset the state from ``seed`` (negative seeds wrap to 64 bits; the twister uses
        the low 32 bits, as torch's); returns ``self``."""
        seed = int(seed)
        if not -(1 << 63) <= seed <= MASK64:
            raise ValueError("Overflow when unpacking long long")
        self._engine.reseed(seed & MASK64)
        return self

    def initial_seed(self) -> int:
        """The seed the current state was made from."""
        return self._engine.seed

    def seed(self) -> int:
        """Re-seed from fresh OS entropy; returns the new seed."""
        seed = int.from_bytes(os.urandom(8), "little")
        self._engine.reseed(seed)
        return seed

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor of torch's 5056 state bytes (restore it with
        ``set_state``; torch's takes it as ``torch.from_numpy(s.numpy())``)."""
        return new_leaf(self._engine.state_bytes())

    def set_state(self, new_state: Any) -> Generator:
        """Restore a state from ``get_state`` here or in torch (a byte tensor of either
        library, or a NumPy uint8 array); returns ``self``."""
        self._engine.load_state_bytes(_state_bytes(new_state))
        return self

    def clone_state(self) -> Generator:
        """A new generator in the same state."""
        return Generator().set_state(self.get_state())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restored_generator, (self._engine.state_bytes(),))


def _restored_generator(state: np.ndarray) -> Generator:
    """Unpickle a ``Generator`` from its state bytes."""
    return Generator().set_state(state)


def _state_bytes(state: Any) -> np.ndarray:
    """The bytes of a state: a uint8 tensor (hookgrad's, or torch's read through NumPy)
    or a uint8 array."""
    data = state._data if isinstance(state, Tensor) else np.asarray(state)
    if data.dtype != np.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    return data.ravel()


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


def get_rng_state() -> Tensor:
    """The default generator's state: torch's 5056 state bytes (see
    ``Generator.get_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator's state from ``get_rng_state()`` (hookgrad's or
    torch's)."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices: Any = None, enabled: bool = True, device_type: str = "cuda"
) -> Iterator[None]:
    """A context in which the default generator may be used freely: its state is put back
    on exit (hookgrad has only the CPU generator; ``devices`` are accepted and ignored).

    Example::

        with hookgrad.random.fork_rng():
            hookgrad.rand(3)         # does not change what the next rand() outside gives
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def engine_of(generator: Generator | None) -> Engine:
    """The engine of ``generator`` (the default generator's for None)."""
    if generator is None:
        return default_generator._engine
    if not isinstance(generator, Generator):
        raise TypeError(
            f"expected a torch.Generator, but got {type(generator).__name__} for argument "
            "'generator'"
        )
    return generator._engine


# -- the order of the elements -----------------------------------------------------------------
def _memory_axes(like: np.ndarray) -> list[int]:
    """The axes of ``like`` from outermost to innermost in memory: the order in which
    torch's TensorIterator visits its elements."""
    return sorted(range(like.ndim), key=lambda axis: -abs(like.strides[axis]))


def _placed(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    """Flat ``values``, in the order torch visits the elements of ``like``, as an array of
    ``like``'s shape."""
    if like.ndim < 2 or like.flags.c_contiguous:
        return values.reshape(like.shape)
    axes = _memory_axes(like)
    return values.reshape([like.shape[axis] for axis in axes]).transpose(np.argsort(axes))


def _visited(array: np.ndarray, like: np.ndarray) -> np.ndarray:
    """The elements of ``array`` (of ``like``'s shape) flat, in the order torch visits the
    elements of ``like`` (the inverse of ``_placed``)."""
    if like.ndim < 2 or like.flags.c_contiguous:
        return array.ravel()
    return array.transpose(_memory_axes(like)).ravel()


# -- samplers ------------------------------------------------------------------------------
def _engine_for(like: np.ndarray, generator: Generator | None) -> Engine:
    """The engine to draw ``like``'s values from, after torch's check (made before any
    draw) that no two elements of ``like`` share memory."""
    if like.size and has_internal_overlap(like):
        raise RuntimeError(OVERLAP_ERROR)
    return engine_of(generator)


def _not_implemented(kernel: str, np_dtype: np.dtype) -> NotImplementedError:
    name = dtypes.legacy_name(dtypes.from_numpy_dtype(np_dtype))
    return NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _check_floating(np_dtype: np.dtype, kernel: str) -> None:
    if np_dtype.kind not in "fc":
        raise _not_implemented(kernel, np_dtype)


def _real_dtype(np_dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)


def sample_uniform(
    like: np.ndarray, low: float = 0.0, high: float = 1.0, generator: Generator | None = None
) -> np.ndarray:
    """New values for ``like`` (an array: its shape, dtype and layout count), uniform in
    ``[low, high)``; a complex array gets its real and imaginary parts so."""
    np_dtype = like.dtype
    _check_floating(np_dtype, "check_uniform_bounds")
    engine = _engine_for(like, generator)
    if np_dtype.kind == "c":
        real = random_kernels.uniform(engine, 2 * like.size, _real_dtype(np_dtype), low, high)
        return _placed(real.view(np_dtype), like)
    return _placed(random_kernels.uniform(engine, like.size, np_dtype, low, high), like)


def sample_normal(
    like: np.ndarray, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> np.ndarray:
    """New values for ``like``, normal with ``mean`` and ``std``; a complex sample has
    variance ``std**2`` (each part ``std**2 / 2``), as torch's."""
    np_dtype = like.dtype
    _check_floating(np_dtype, "normal_kernel_cpu")
    engine = _engine_for(like, generator)
    contiguous = bool(like.flags.c_contiguous)
    if np_dtype.kind == "c":
        scale = std / math.sqrt(2)
        real = random_kernels.normal(
            engine, 2 * like.size, _real_dtype(np_dtype), mean, scale, contiguous
        )
        return _placed(real.view(np_dtype), like)
    values = random_kernels.normal(engine, like.size, np_dtype, mean, std, contiguous)
    return _placed(values, like)


def _update_from(low: int, np_dtype: np.dtype) -> int:
    """torch's ``update_from``: the smallest integer at least ``low`` that the floating
    dtype holds exactly (as torch computes it)."""
    with np.errstate(over="ignore", invalid="ignore"):  # C's casts overflow silently
        rounded = int(random_kernels.cast(np.array([low + 1]), np_dtype).astype(np.int64)[0])
    if rounded < low:
        bits = abs(low + 1).bit_length() - 1
        low = rounded + (1 << (bits - random_kernels.digits(np_dtype) + 1))
    return low


def _update_to(high: int, np_dtype: np.dtype) -> int:
    """torch's ``update_to``: the matching adjustment of an exclusive upper bound."""
    with np.errstate(over="ignore", invalid="ignore"):  # C's casts overflow silently
        rounded = int(random_kernels.cast(np.array([high - 1]), np_dtype).astype(np.int64)[0])
    if rounded >= high:
        bits = abs(high - 1).bit_length() - 1
        high = rounded - (1 << (bits - random_kernels.digits(np_dtype) + 1))
    return high


def _check_bounds(low: int, top: int, target: dtypes.dtype) -> None:
    """torch's ``check_from_to_in_range`` for integers from ``low`` to ``top`` (inclusive)
    in ``target``: an error outside the dtype, a warning beyond a float's exact integers."""
    name = dtypes.cpp_name(target)
    if target.is_floating_point:
        info = np.finfo(target.np)
        lowest, highest = float(info.min), float(info.max)
    elif target is dtypes.bool_:
        lowest, highest = 0, 1
    else:
        limits = np.iinfo(target.np)
        lowest, highest = int(limits.min), int(limits.max)
    for value, label in ((low, "from"), (top, "to - 1")):
        if not lowest <= value <= highest:
            raise RuntimeError(f"{label} is out of bounds for {name}")
    if target.is_floating_point:
        digits = random_kernels.digits(target.np)
        for value, label in ((low, "from"), (top, "to - 1")):
            if not -(1 << digits) <= value <= 1 << digits:
                warnings.warn(
                    f"{label} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {name} can support discrete uniform distribution only "
                    "within this range. This warning will become an error in version 1.7 "
                    "release, please fix the code in advance",
                    UserWarning,
                    stacklevel=4,
                )


def sample_integers(
    like: np.ndarray, low: int, high: int | None, generator: Generator | None = None
) -> np.ndarray:
    """New values for ``like``: integers uniform in ``[low, high)`` (``high`` None: up to
    the largest value of the dtype; ``low = -2**63`` then takes whole 64-bit words), with
    torch's checks of the bounds against the dtype."""
    np_dtype = like.dtype
    target = dtypes.from_numpy_dtype(np_dtype)
    floating = np_dtype.kind == "f"
    if high is None and low == -(1 << 63):
        _check_full_range(np_dtype)
        engine = _engine_for(like, generator)
        return _placed(random_kernels.random_full_range(engine, like.size, np_dtype), like)
    if np_dtype.kind == "c":
        kind = "random_from_to_impl" if high is None else "check_random_bounds"
        raise RuntimeError(f"{kind} handles only integral, floating-point and boolean types")
    if high is None:
        if floating:
            top = min(1 << random_kernels.digits(np_dtype), (1 << 63) - 1)
            low = _update_from(low, np_dtype)
            if low >= top:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than or equal to "
                    f"'to_inc' casted to dtype, but got from={low} > to_inc={top}"
                )
        else:
            top = 1 if target is dtypes.bool_ else int(np.iinfo(np_dtype).max)
    else:
        if low >= high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        if floating:
            low, high = _update_from(low, np_dtype), _update_to(high, np_dtype)
            if low >= high:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={low} >= to={high}"
                )
        top = high - 1
    _check_bounds(low, top, target)
    span = (top - low + 1) & MASK64
    engine = _engine_for(like, generator)
    return _placed(random_kernels.random_from_to(engine, like.size, np_dtype, span, low), like)


def _check_full_range(np_dtype: np.dtype) -> None:
    """torch draws whole 64-bit words only into int64, float64 and float32."""
    if np_dtype.kind in "bc" or np_dtype == np.float16:
        raise _not_implemented("random_full_64_bits_range_kernel_cpu", np_dtype)
    if np_dtype not in (np.int64, np.float64, np.float32):
        raise RuntimeError(
            "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16"
        )


def sample_bits(like: np.ndarray, generator: Generator | None = None) -> np.ndarray:
    """New values for ``like`` as ``random_()`` draws them: integers in ``[0, max]`` of
    the dtype (``[0, 2**mantissa]`` for a floating one)."""
    if like.dtype.kind == "c":
        raise _not_implemented("random_kernel_cpu", like.dtype)
    engine = _engine_for(like, generator)
    return _placed(random_kernels.random_bits(engine, like.size, like.dtype), like)


def sample_bernoulli(like: np.ndarray, p: Any, generator: Generator | None = None) -> np.ndarray:
    """New values for ``like``: 1 with probability ``p`` (a number, or an array that
    broadcasts to ``like``'s shape: float64 ones are compared with double uniforms, others
    with float ones, as torch's), else 0."""
    if like.dtype.kind == "c":
        tensor_p = isinstance(p, np.ndarray)
        kernel = "bernoulli_tensor_cpu_self_" if tensor_p else "bernoulli_scalar_cpu_"
        raise _not_implemented(kernel, like.dtype)
    engine = _engine_for(like, generator)
    if isinstance(p, np.ndarray):
        probability = _visited(np.broadcast_to(p, like.shape), like)
        bad = np.flatnonzero(~((probability >= 0) & (probability <= 1)))
        if bad.size:
            random_kernels.bernoulli(engine, probability[: bad[0]])  # drawn before the error
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement request to "
                "PyTorch.)"
            )
    else:
        probability = np.full(like.size, float(p))
    hits = random_kernels.bernoulli(engine, probability)
    return _placed(random_kernels.cast(hits, like.dtype), like)


def _continuous(
    like: np.ndarray, values: Callable[[Engine, int], np.ndarray], generator: Any
) -> np.ndarray:
    engine = _engine_for(like, generator)
    return _placed(random_kernels.cast(values(engine, like.size), like.dtype), like)


def sample_exponential(like: np.ndarray, rate: float, generator: Any = None) -> np.ndarray:
    """New values for ``like`` from the exponential distribution of ``rate``."""
    return _continuous(like, lambda e, n: random_kernels.exponential(e, n, rate), generator)


def sample_cauchy(
    like: np.ndarray, median: float, sigma: float, generator: Any = None
) -> np.ndarray:
    """New values for ``like`` from the Cauchy distribution."""
    return _continuous(like, lambda e, n: random_kernels.cauchy(e, n, median, sigma), generator)


def sample_log_normal(
    like: np.ndarray, mean: float, std: float, generator: Any = None
) -> np.ndarray:
    """New values for ``like`` whose logarithm is normal with ``mean`` and ``std``."""
    return _continuous(like, lambda e, n: random_kernels.log_normal(e, n, mean, std), generator)


def sample_geometric(like: np.ndarray, p: float, generator: Any = None) -> np.ndarray:
    """New values for ``like``: the number of Bernoulli(``p``) trials to the first success."""
    if like.dtype.kind == "c":
        raise _not_implemented("geometric_cpu", like.dtype)
    return _continuous(like, lambda e, n: random_kernels.geometric(e, n, p), generator)


# -- random creation functions -------------------------------------------------------------
def _drawn_into(name: str, size: tuple[Any, ...], options: dict[str, Any]) -> np.ndarray:
    """The array a random factory ``name`` fills, after the checks of its ``options``
    (``out``, ``dtype``, ``layout``, ``device``, ``pin_memory``): ``out``'s memory when it
    has the shape, as torch draws in the order of ``out``'s memory."""
    check_options(name, options["layout"], options["pin_memory"])
    check_device(factory_device(options["device"]))
    dtype = out_dtype(name, options["dtype"], options["out"])
    shape = parse_size(size, name)
    return out_like(shape, resolve_dtype(dtype).np, options["out"])


def rand(
    *args: Any,
    size: Any = None,
    generator: Generator | None = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """Samples uniform in ``[0, 1)`` of the given size (varargs or a tuple), from
    ``generator`` (default: the global one). As every factory: ``out`` receives the
    values (and gives the dtype), ``layout`` may only be ``strided``, and
    ``pin_memory=True`` fails without an accelerator.

    Example: ``hookgrad.rand(2, 3)``.
    """
    options = {"out": out, "dtype": dtype, "layout": layout, "device": device}
    like = _drawn_into("rand", size_args(args, size), options | {"pin_memory": pin_memory})
    return leaf_or_out(sample_uniform(like, generator=generator), out, requires_grad)


def randn(
    *args: Any,
    size: Any = None,
    generator: Generator | None = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """Standard normal samples of the given size (varargs or a tuple); the options as for
    :func:`rand`.

    Example: ``hookgrad.randn(2, 3, dtype=hookgrad.float64)``.
    """
    options = {"out": out, "dtype": dtype, "layout": layout, "device": device}
    like = _drawn_into("randn", size_args(args, size), options | {"pin_memory": pin_memory})
    array = sample_normal(like, generator=generator)
    return leaf_or_out(array, out, requires_grad, resize_counts=True)


def _check_int(value: Any, name: str, position: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"randint(): argument '{name}' (position {position}) must be int, not "
            f"{type(value).__name__}"
        )
    return int(value)


def randint(
    low: Any = None,
    high: Any = None,
    size: Any = None,
    *,
    generator: Generator | None = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """Integers uniform in ``[low, high)`` of shape ``size`` (a tuple); int64 unless
    ``dtype`` (or ``out``'s) says otherwise. ``randint(high, size)`` draws from
    ``[0, high)``. The options as for :func:`rand`.

    Example: ``hookgrad.randint(0, 10, (2, 3))``.
    """
    check_options("randint", layout, pin_memory)
    check_device(factory_device(device))
    dtype = out_dtype("randint", dtype, out)
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
    array = sample_integers(out_like(shape, target.np, out), low, high, generator)
    return leaf_or_out(array, out, requires_grad)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype``, or ``out``'s, says
    otherwise). The options as for :func:`rand`.

    Example: ``hookgrad.randperm(4)`` could be ``tensor([2, 0, 3, 1])``.
    """
    check_options("randperm", layout, pin_memory)
    check_device(factory_device(device))
    dtype = out_dtype("randperm", dtype, out)
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
    if target.is_floating_point:
        most = 1 << random_kernels.digits(target.np)
        if count > most + 1:
            name = dtypes.legacy_name(target)
            raise RuntimeError(f"n cannot be greater than {most + 1} for {name} type.")
    order = random_kernels.randperm(engine_of(generator), count)
    return leaf_or_out(order.astype(target.np), out, requires_grad)


def empty_like(data: np.ndarray, np_dtype: Any = None) -> np.ndarray:
    """An uninitialised array of ``data``'s shape and, when ``data`` is dense, its memory
    order (torch's ``empty_like`` with ``preserve_format``), of ``np_dtype`` (default:
    ``data``'s dtype)."""
    np_dtype = data.dtype if np_dtype is None else np_dtype
    if data.flags.c_contiguous or data.ndim < 2:
        return np.empty(data.shape, np_dtype)
    axes = _memory_axes(data)
    return np.empty([data.shape[axis] for axis in axes], np_dtype).transpose(np.argsort(axes))


def _like(name: str, input: Any, options: dict[str, Any]) -> np.ndarray:
    """The array a random ``*_like`` function fills, after the checks of its ``options``
    (``dtype``, ``layout``, ``device``, ``pin_memory``, ``memory_format``)."""
    check_options(name, options["layout"], options["pin_memory"])
    check_device(options["device"])
    np_dtype = like_dtype(input, options["dtype"])
    return like_array(name, input, np_dtype, options["memory_format"])


def rand_like(
    input: Any,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = None,
) -> Any:
    """Uniform ``[0, 1)`` samples with the shape (and, unless given, dtype) of ``input``,
    laid out as ``input`` unless ``memory_format`` says otherwise.

    Example: ``hookgrad.rand_like(hookgrad.zeros(2, 3)).shape`` is ``(2, 3)``.
    """
    options = {"dtype": dtype, "layout": layout, "device": device, "pin_memory": pin_memory}
    like = _like("rand_like", input, options | {"memory_format": memory_format})
    return new_leaf(sample_uniform(like, generator=generator), requires_grad)


def randn_like(
    input: Any,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = None,
) -> Any:
    """Standard normal samples with the shape (and, unless given, dtype) of ``input``;
    the options as for :func:`rand_like`."""
    options = {"dtype": dtype, "layout": layout, "device": device, "pin_memory": pin_memory}
    like = _like("randn_like", input, options | {"memory_format": memory_format})
    return new_leaf(sample_normal(like, generator=generator), requires_grad)


def randint_like(
    input: Any,
    low: int = 0,
    high: int | None = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = None,
) -> Any:
    """Integers in ``[low, high)`` (``randint_like(x, high)``: ``[0, high)``) with the
    shape (and, unless given, dtype) of ``input``; the options as for :func:`rand_like`."""
    options = {"dtype": dtype, "layout": layout, "device": device, "pin_memory": pin_memory}
    like = _like("randint_like", input, options | {"memory_format": memory_format})
    if high is None:
        low, high = 0, low
    array = sample_integers(like, int(low), int(high), generator)
    return new_leaf(array, requires_grad)


# -- poisson and binomial ---------------------------------------------------------------------
def sample_poisson(rates: np.ndarray, generator: Generator | None = None) -> np.ndarray:
    """Poisson counts for the rates ``rates`` (a floating array), in its dtype: torch's
    ``poisson``, one element after another in C order."""
    engine = engine_of(generator)
    flat = np.ascontiguousarray(rates).ravel()
    return random_kernels.poisson(engine, flat).reshape(rates.shape).astype(rates.dtype)


def sample_binomial(
    counts: np.ndarray, probs: np.ndarray, generator: Generator | None = None
) -> np.ndarray:
    """Binomial draws for the trial counts ``counts`` and the probabilities ``probs``
    (broadcast to ``counts``' shape; one floating dtype): torch's ``binomial``."""
    engine = engine_of(generator)
    flat_counts = np.ascontiguousarray(counts).ravel()
    flat_probs = np.ascontiguousarray(np.broadcast_to(probs, counts.shape)).ravel()
    return random_kernels.binomial(engine, flat_counts, flat_probs).reshape(counts.shape)


# -- gamma and Dirichlet ------------------------------------------------------------------------
def sample_standard_gamma(alpha: np.ndarray, generator: Generator | None = None) -> np.ndarray:
    """A standard gamma draw per concentration in ``alpha`` (a float32 or float64 array),
    in its dtype and shape: torch's ``_standard_gamma``, element after element in C
    order, each result at least the dtype's smallest normal number."""
    engine = engine_of(generator)
    flat = np.ascontiguousarray(alpha).ravel().astype(np.float64)
    values = random_kernels.standard_gamma(engine, flat, alpha.dtype).astype(alpha.dtype)
    return np.maximum(values, np.finfo(alpha.dtype).tiny).reshape(alpha.shape)


def sample_dirichlet(alpha: np.ndarray, generator: Generator | None = None) -> np.ndarray:
    """A Dirichlet draw per row (last axis) of the concentrations ``alpha`` (a float32 or
    float64 array), in its dtype: torch's ``_sample_dirichlet``."""
    return random_kernels.dirichlet(engine_of(generator), alpha)
