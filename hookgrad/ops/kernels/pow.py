"""torch's CPU ``pow`` on float16, float32 and float64 arrays, bit for bit: which element
torch computes how, and with what.

torch's ``TensorIterator`` walks the result in memory order, one row of its innermost
(coalesced) dimension at a time. Where every operand is contiguous along that row (one
input may instead be broadcast along it), ``vectorized_loop`` takes the row two vectors at
a time (32 float32, 16 float64 or 64 float16 on AVX-512, half as many on AVX2) through
Sleef's pow (``hookgrad.ops.kernels.sleef``; float16 through float32) and leaves the
shorter rest to a scalar lambda that calls the C library's ``pow`` or ``powf``. Other rows
go through the scalar lambda whole. Past 32768 elements, with more than one thread,
``at::parallel_for`` first cuts the walk into one piece per thread, and each piece ends in
a tail of its own. Without AVX2 the vector lanes call the C library too.

With a number exponent, float32's vector lanes see it as a float32 and its scalar lambda
as a double (``pow(double, double)``, rounded to float); float16 rounds it to float16 for
both. Exponents 0 and 1 fill ones and copy; for float32 and float64, 0.5, -0.5, -1, 2, 3
and -2 go to ``sqrt``, ``rsqrt``, ``reciprocal`` or products, the same in every lane.
NOTE: torch's ``sqrt`` is MKL's ``vsSqrt``/``vdSqrt``, which rounds about 0.6% of results
one ulp low; ``x ** 0.5`` here is the correctly rounded square root.

Example::

    pow_tensor_scalar(np.arange(40, dtype=np.float32), 1.7)  # torch.pow(x, 1.7)
    pow_tensor_tensor(x, y)  # torch.pow(x, y) for arrays of the result's dtype
    pow_scalar_tensor(2.0, y)  # torch.pow(2.0, y)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from collections.abc import Callable

import numpy as np

from hookgrad.ops.kernels import cpu
from hookgrad.ops.kernels.sleef import powd_u10, powf_u10
from hookgrad.ops.kernels.tensor_iterator import GRAIN_SIZE, coalesce, thread_ranges
from hookgrad.ops.strides import cast, contiguous_strides, iterator_strides

_F16, _F32, _F64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
FLOATING = (_F16, _F32, _F64)  # the dtypes these kernels take

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]


def pow_tensor_scalar(base: np.ndarray, exponent: float) -> np.ndarray:
    """``torch.pow(base, exponent)`` for a float16, float32 or float64 array ``base`` and
    a Python number. ``base``'s strides are torch's: they decide which elements go through
    torch's vector lanes. Returns the result with the strides torch gives it.

    Example: ``pow_tensor_scalar(np.float32([1.5, 2.0]), 4)``."""
    base = _float_array(base)
    exponent = float(exponent)
    special = _special_exponent(base, exponent)
    if special is not None:
        return special
    with np.errstate(over="ignore"):
        wrapped = np.array(exponent, base.dtype)  # beyond float32's range: infinite, as in C
    if base.dtype == _F32:
        # The vector lanes get the exponent as a float32, the scalar lambda as a double.
        scalar_lambda = functools.partial(_pow_double_exponent, exponent=exponent)
        return _run([base], (base, wrapped), scalar_lambda)
    return _run([base], (base, wrapped), _scalar_lambda(base.dtype))


def pow_tensor_tensor(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """``torch.pow(base, exponent)`` for two arrays: ``base`` of the result's dtype
    (float16, float32 or float64), ``exponent`` of it too or cast to it as torch casts it.
    They broadcast; torch reads a broadcast dimension with stride 0, as ``expand`` gives.
    Both arrays' strides are torch's. Returns the result with the strides torch gives it.

    Example: ``pow_tensor_tensor(np.float32([2.0, 3.0]), np.float32([0.5, -1.5]))``."""
    base = _float_array(base)
    exponent = np.asarray(exponent)
    if exponent.dtype != base.dtype:
        exponent = cast(exponent, base.dtype)
    return _run([base, exponent], (base, exponent), _scalar_lambda(base.dtype))


def pow_scalar_tensor(base: float, exponent: np.ndarray) -> np.ndarray:
    """``torch.pow(base, exponent)`` for a Python number ``base`` and a float16, float32
    or float64 array ``exponent``: ones for a base of 1, else ``pow_tensor_tensor`` with the
    base as a 0-dim array of the exponent's dtype (torch's wrapped number).

    NOTE: torch allocates this result C-contiguous before its iterator runs, so the walk
    follows C order: a transposed ``exponent`` goes through the scalar lambda whole.

    Example: ``pow_scalar_tensor(2.0, np.float32([0.5, 10.0]))``."""
    exponent = _float_array(exponent)
    if base == 1:
        return np.ones(exponent.shape, exponent.dtype)
    wrapped = np.array(base, exponent.dtype)
    layout = contiguous_strides(exponent.shape)
    return _run([wrapped, exponent], (wrapped, exponent), _scalar_lambda(exponent.dtype), layout)


def _float_array(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype not in (_F16, _F32, _F64):
        raise TypeError(f"pow kernel: float16, float32 or float64 expected, got {a.dtype}")
    return a


def _special_exponent(base: np.ndarray, exponent: float) -> np.ndarray | None:
    """torch's result for the exponents ``pow`` hands to other kernels, else None."""
    if exponent == 0:
        return np.ones(base.shape, base.dtype)
    if exponent == 1:
        return base.copy()
    if base.dtype == _F16:
        return None
    one = base.dtype.type(1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if exponent == 0.5:
            # MKL's square root of a negative number is a positive NaN.
            return np.where(base < 0, base.dtype.type(np.nan), np.sqrt(base))
        if exponent == -0.5:
            return one / np.sqrt(base)
        if exponent == -1:
            return one / base
        if exponent == 2:
            return base * base
        if exponent == 3:
            return base * base * base
        if exponent == -2:
            return one / (base * base)
    return None


# ---------------------------------------------------------------- TensorIterator's walk


def _run(
    inputs: list[np.ndarray],
    arguments: tuple[np.ndarray, np.ndarray],
    scalar_lambda: Kernel,
    out_strides: tuple[int, ...] | None = None,
) -> np.ndarray:
    """``pow`` over ``arguments`` (base and exponent arrays) as torch computes it: walk the
    result as ``TensorIterator`` walks it for the operands ``inputs``, give the vector lanes
    ``_vector_lanes`` and the other elements ``scalar_lambda``. The result gets
    ``out_strides`` (in elements) when given, else the iterator's; the walk follows them."""
    shape = np.broadcast_shapes(*(a.shape for a in inputs))
    dtype = inputs[0].dtype
    if out_strides is None:
        out_strides = iterator_strides(shape, inputs) or contiguous_strides(shape)
    numel = math.prod(shape)
    if numel == 0:
        return np.empty(shape, dtype)
    # The walk visits the dims innermost first: it is the result's memory order.
    order = sorted(range(len(shape)), key=lambda dim: out_strides[dim])
    axes = tuple(reversed(order))
    base, exponent = (np.broadcast_to(a, shape).transpose(axes).ravel() for a in arguments)
    scalar = scalar_lanes(shape, [dim for dim in order if shape[dim] > 1], inputs)
    if scalar.size == numel:
        flat = scalar_lambda(base, exponent)
    else:
        flat = _vector_lanes(dtype)(base, exponent)
        if scalar.size:
            flat[scalar] = scalar_lambda(base[scalar], exponent[scalar])
    item = dtype.itemsize
    return np.lib.stride_tricks.as_strided(flat, shape, tuple(s * item for s in out_strides))


def scalar_lanes(shape: tuple[int, ...], walk: list[int], inputs: list[np.ndarray]) -> np.ndarray:
    """The positions in the walk (in the result's memory) of the elements torch computes
    with its scalar lambda. ``walk``: the dims longer than 1, innermost first.

    The result is dense in the walk's order, so only the inputs' strides can stop a dim
    from merging into the one inside it, or the innermost one from being vectorised."""
    itemsize = inputs[0].itemsize
    numel = math.prod(shape)
    strides = [[s // itemsize for s in np.broadcast_to(a, shape).strides] for a in inputs]
    sizes, strides = coalesce(
        [shape[dim] for dim in walk] or [1], [[s[dim] for dim in walk] or [0] for s in strides]
    )
    if not _vectorizable([s[0] for s in strides]):
        return np.arange(numel)
    step = 2 * cpu.vector_bytes() // itemsize
    starts, stops = _segments(numel, sizes[0])
    return _ranges(stops - (stops - starts) % step, stops)


def _vectorizable(inputs: list[int]) -> bool:
    """``VectorizedLoop2d``'s test on the inputs' innermost strides (the result's is 1):
    all contiguous, or all contiguous but one, broadcast (stride 0)."""
    if all(s == 1 for s in inputs):
        return True
    return any(
        s == 0 and all(t == 1 for j, t in enumerate(inputs) if j != k) for k, s in enumerate(inputs)
    )


def _segments(numel: int, row: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and stop of each run one ``vectorized_loop`` call covers: the rows of the
    walk, cut where ``at::parallel_for`` cuts the walk into one piece per thread."""
    pieces = thread_ranges(0, numel, GRAIN_SIZE, cpu.num_threads())
    cuts = np.union1d(np.arange(0, numel + 1, row), [0, *(stop for _, stop in pieces)])
    return cuts[:-1], cuts[1:]


def _ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """The integers of the half-open ranges ``[starts[i], stops[i])``, concatenated."""
    lengths = stops - starts
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return np.arange(lengths.sum()) + offsets


# ---------------------------------------------------------------- the lanes' functions


def _vector_lanes(dtype: np.dtype) -> Kernel:
    """What ``Vectorized<T>::pow`` computes: Sleef's pow (float16 through float32), or
    without AVX2 ``std::pow`` lane by lane."""
    if cpu.capability() == "DEFAULT":
        return _scalar_lambda(dtype)
    if dtype == _F64:
        return powd_u10
    if dtype == _F32:
        return powf_u10
    return _powf_u10_half


def _powf_u10_half(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return powf_u10(x, y).astype(_F16)


def _scalar_lambda(dtype: np.dtype) -> Kernel:
    """``std::pow(T, T)``: ``pow`` for float64, ``powf`` for float32 and float16 (whose
    ``std::pow`` overload computes in float)."""
    if dtype == _F64:
        return _libm_pow
    return functools.partial(_libm_powf, dtype=dtype.type)


@functools.cache
def _libm() -> tuple[Callable[[float, float], float], Callable[[float, float], float]]:
    """The C library's ``pow`` and ``powf`` (from the process's own symbols where there is
    no separate libm). Where neither loads, Python's ``pow`` serves for both: then a
    float32 ``powf`` is a double result rounded, which may differ in the last bit."""
    try:
        library = ctypes.CDLL(ctypes.util.find_library("m"))
        functions = library.pow, library.powf
    except (OSError, AttributeError, TypeError):
        return _python_pow, _python_pow
    for function, c_type in zip(functions, (ctypes.c_double, ctypes.c_float)):
        function.argtypes = [c_type, c_type]
        function.restype = c_type
    return functions


def _python_pow(x: float, y: float) -> float:
    """C's ``pow`` from ``math.pow``, which raises where C returns NaN or infinity."""
    try:
        return math.pow(x, y)
    except (ValueError, OverflowError):
        pass
    if x < 0 and y != math.floor(y):
        return math.nan
    # A zero base with a negative exponent, or an overflow: odd exponents keep the sign.
    odd = y == math.floor(y) and math.fmod(y, 2) != 0
    return math.copysign(math.inf, x) if odd else math.inf


def _map(function: Callable, x: np.ndarray, y: np.ndarray, dtype: type) -> np.ndarray:
    """``function`` of each pair of elements, rounded to ``dtype`` (as C converts)."""
    with np.errstate(over="ignore"):
        return np.array([function(a, b) for a, b in zip(x.tolist(), y.tolist())], dtype)


def _libm_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return _map(_libm()[0], x, y, np.float64)


def _libm_powf(x: np.ndarray, y: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    return _map(_libm()[1], x, y, dtype)


def _pow_double_exponent(x: np.ndarray, y: np.ndarray, exponent: float) -> np.ndarray:
    """``std::pow(float, double)``: ``pow`` of the float widened, rounded back to float
    (``y``, the exponent as a float32, is not used)."""
    return _map(_libm()[0], x, np.full(x.shape, exponent), np.float32)
