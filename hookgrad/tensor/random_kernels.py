"""torch's CPU transforms from generator words to random values, per dtype and size.

Each function draws from an ``Engine`` (``hookgrad.tensor.mersenne``) exactly the words
torch's kernel draws, in the same order, and returns the values it would write, as a flat
array in the order the kernel visits the elements. What torch does, kernel by kernel:

- uniform: float32 (and float16, through float32) takes the low 24 bits of one 32-bit
  word, float64 the low 53 bits of a 64-bit word; ``x * (to - from) + from`` is fused, and
  a value that rounds up to ``to`` becomes ``from``.
- normal: a tensor of 16 or more contiguous elements is filled with uniforms and
  transformed 16 at a time by Box-Muller (``u[j]``, ``u[j + 8]`` give outputs ``j`` and
  ``j + 8``); a tail of fewer than 16 redraws and redoes the last 16 elements. float32
  uses the AVX2 polynomials (``cpu_math``). Smaller or strided tensors draw one double
  Box-Muller pair per two values and keep the spare one in the generator.
- integers: ``word % range + from``, on 32-bit words when the range is below 2**28,
  64-bit words otherwise; ``random_()`` without bounds takes the word modulo the dtype's
  range (``2**digits + 1`` for floating dtypes).
- bernoulli, exponential, cauchy, log-normal, geometric: double uniforms (float ones for
  a float32 probability tensor) through the textbook transforms.
- randperm: a Fisher-Yates shuffle on 32-bit words for ``n`` below ``2**32 / 20``, the
  "inside-out" shuffle on 64-bit words above.

Example::

    uniform(Engine(0), 2, np.dtype(np.float32), 0.0, 1.0)   # array([0.4962566, 0.7682218])
"""

from __future__ import annotations

import math

import numpy as np

from hookgrad.ops.kernels.fma import fma32, fma64
from hookgrad.tensor.cpu_math import avx_log, avx_sincos, libm
from hookgrad.tensor.mersenne import Engine

_F32 = np.float32
_MASK24 = np.uint64((1 << 24) - 1)
_MASK53 = np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi
_WIDE_RANGE = 1 << 28  # from here on integers are drawn from 64-bit words
_SMALL_PERMUTATION = 0xFFFFFFFF // 20


def digits(np_dtype: np.dtype) -> int:
    """``std::numeric_limits<T>::digits``: significand bits of a floating dtype, value bits
    of an integer one."""
    if np_dtype.kind == "f":
        return int(np.finfo(np_dtype).nmant) + 1
    return int(np.iinfo(np_dtype).bits) - (np_dtype.kind == "i")


def cast(values: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """``static_cast`` of float64 (or int64) values to ``np_dtype``: C++ has no
    double-to-half conversion, so float16 goes through float32 as in torch."""
    if np_dtype == np.float16:
        values = values.astype(_F32)
    return values.astype(np_dtype)


# -- uniform --------------------------------------------------------------------------------
def uniform_float32(engine: Engine, count: int) -> np.ndarray:
    """``count`` float32 uniforms in ``[0, 1)`` (24 bits of a 32-bit word each)."""
    return ((engine.random32(count) & _MASK24) * 2.0**-24).astype(_F32)


def uniform_float64(engine: Engine, count: int) -> np.ndarray:
    """``count`` float64 uniforms in ``[0, 1)`` (53 bits of a 64-bit word each)."""
    return (engine.random64(count) & _MASK53) * 2.0**-53


def uniform(engine: Engine, count: int, np_dtype: np.dtype, low: float, high: float) -> np.ndarray:
    """``uniform_(low, high)`` of a real floating dtype: ``count`` values."""
    if np_dtype == np.float64:
        values = fma64(uniform_float64(engine, count), high - low, low)
    elif low == 0 and high == 1:
        values = uniform_float32(engine, count)  # x * 1 + 0 is x
    else:
        low32, high32 = _F32(low), _F32(high)
        values = fma32(uniform_float32(engine, count), high32 - low32, low32)
    values = values.astype(np_dtype)
    # NOTE: torch turns a value that rounded up to ``high`` into ``low``.
    top, bottom = cast(np.array([high, low]), np_dtype)
    return np.where(values == top, bottom, values)


# -- normal ---------------------------------------------------------------------------------
def _box_muller_16(block: np.ndarray, mean: float, std: float) -> np.ndarray:
    """torch's ``NormalFill16`` on rows of 16 uniforms: row ``[u0 .. u15]`` becomes
    ``r_j cos(t_j), r_j sin(t_j)`` with ``r_j = sqrt(-2 log(1 - u_j))``, ``t_j = 2 pi
    u_(j+8)``, scaled by ``std`` and shifted by ``mean`` in one fused step."""
    if block.dtype == np.float64:
        radius = np.sqrt(-2.0 * libm(math.log, 1.0 - block[:, :8]))
        theta = _TWO_PI * block[:, 8:]
        pairs = (radius * libm(math.cos, theta), radius * libm(math.sin, theta))
        return fma64(np.concatenate(pairs, axis=1), std, mean)
    radius = np.sqrt(_F32(-2) * avx_log(_F32(1) - block[:, :8]))
    sine, cosine = avx_sincos(_F32(_TWO_PI) * block[:, 8:])
    pairs = (radius * cosine, radius * sine)
    return fma32(np.concatenate(pairs, axis=1), _F32(std), _F32(mean))


def _normal_vectorised(
    engine: Engine, count: int, np_dtype: np.dtype, mean: float, std: float
) -> np.ndarray:
    """torch's ``normal_fill``: ``count >= 16`` contiguous elements."""
    draw = uniform_float64 if np_dtype == np.float64 else uniform_float32
    full, tail = divmod(count, 16)
    if np_dtype.itemsize >= 4:
        uniforms = draw(engine, count)[: full * 16]  # all of them, then the blocks
    else:
        uniforms = draw(engine, full * 16)  # float16: block by block (no partial block)
    out = np.empty(count, uniforms.dtype)
    out[: full * 16] = _box_muller_16(uniforms.reshape(full, 16), mean, std).ravel()
    if tail:
        out[count - 16 :] = _box_muller_16(draw(engine, 16).reshape(1, 16), mean, std).ravel()
    return cast(out, np_dtype)


def standard_normal_pairs(engine: Engine, count: int) -> np.ndarray:
    """``count`` float64 standard normals as torch's ``normal_distribution<double>``
    makes them one by one: a cached spare first, then Box-Muller pairs whose second
    (sine) value becomes the new spare."""
    out = np.empty(count)
    start = 0
    if count and engine.next_double_normal is not None:
        out[0] = engine.next_double_normal
        engine.next_double_normal = None
        start = 1
    pairs = (count - start + 1) // 2
    uniforms = uniform_float64(engine, 2 * pairs).reshape(pairs, 2)
    radius = np.sqrt(-2.0 * libm(math.log1p, -uniforms[:, 1]))
    theta = _TWO_PI * uniforms[:, 0]
    cosine, sine = radius * libm(math.cos, theta), radius * libm(math.sin, theta)
    pairs_flat = np.stack([cosine, sine], axis=1).ravel()
    out[start:] = pairs_flat[: count - start]
    if (count - start) % 2:
        engine.next_double_normal = float(sine[-1])
    return out


def normal(
    engine: Engine, count: int, np_dtype: np.dtype, mean: float, std: float, contiguous: bool
) -> np.ndarray:
    """``normal_(mean, std)`` of a real floating dtype: ``count`` values."""
    if count >= 16 and contiguous:
        return _normal_vectorised(engine, count, np_dtype, mean, std)
    return cast(fma64(standard_normal_pairs(engine, count), std, mean), np_dtype)


# -- integers -------------------------------------------------------------------------------
def random_from_to(
    engine: Engine, count: int, np_dtype: np.dtype, span: int, low: int
) -> np.ndarray:
    """``random_(low, low + span)``: ``word % span + low`` (wrapping in 64 bits)."""
    words = engine.random64(count) if span >= _WIDE_RANGE else engine.random32(count)
    values = ((words % np.uint64(span)) + np.uint64(low & 0xFFFFFFFFFFFFFFFF)).view(np.int64)
    return cast(values, np_dtype)


def random_full_range(engine: Engine, count: int, np_dtype: np.dtype) -> np.ndarray:
    """``random_(-2**63, None)``: a 64-bit word per value, read as int64."""
    return cast(engine.random64(count).view(np.int64), np_dtype)


def random_bits(engine: Engine, count: int, np_dtype: np.dtype) -> np.ndarray:
    """``random_()`` without bounds: the word modulo the dtype's range (``[0, 2**digits]``
    for floating dtypes, ``[0, max]`` for integers, the low bit for bool)."""
    if np_dtype == np.bool_:
        return (engine.random32(count) & np.uint64(1)).astype(np.bool_)
    wide = np_dtype in (np.float64, np.int64)
    words = engine.random64(count) if wide else engine.random32(count)
    bits = digits(np_dtype)
    modulus = (1 << bits) + 1 if np_dtype.kind == "f" else 1 << bits
    return cast((words % np.uint64(modulus)).astype(np.int64), np_dtype)


# -- other distributions --------------------------------------------------------------------
def bernoulli(engine: Engine, probability: np.ndarray) -> np.ndarray:
    """A draw per element of ``probability`` (a float array; a float64 one is compared with
    double uniforms, any other with float32 uniforms): ``uniform < p``."""
    if probability.dtype == np.float64:
        return uniform_float64(engine, probability.size) < probability
    return uniform_float32(engine, probability.size) < probability.astype(_F32)


def exponential(engine: Engine, count: int, rate: float) -> np.ndarray:
    """``exponential_(rate)`` in float64: ``-1 / rate * log1p(-u)``."""
    return (-1.0 / rate) * libm(math.log1p, -uniform_float64(engine, count))


def cauchy(engine: Engine, count: int, median: float, sigma: float) -> np.ndarray:
    """``cauchy_(median, sigma)`` in float64: ``median + sigma * tan(pi (u - 1/2))``."""
    tangent = libm(math.tan, math.pi * (uniform_float64(engine, count) - 0.5))
    return fma64(sigma, tangent, median)


def log_normal(engine: Engine, count: int, mean: float, std: float) -> np.ndarray:
    """``log_normal_(mean, std)`` in float64: ``exp`` of one normal sample each."""
    return libm(math.exp, fma64(standard_normal_pairs(engine, count), std, mean))


def geometric(engine: Engine, count: int, p: float) -> np.ndarray:
    """``geometric_(p)`` in float64: ``ceil(log(u) / log1p(-p))``."""
    return np.ceil(libm(math.log, uniform_float64(engine, count)) / math.log1p(-p))


def randperm(engine: Engine, n: int) -> np.ndarray:
    """torch's ``randperm(n)`` as int64."""
    if n < _SMALL_PERMUTATION:
        # Fisher-Yates: swap each position with a later one (or itself)
        offsets = (engine.random32(max(n - 1, 0)) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        order = list(range(n))
        for position, offset in enumerate(offsets):
            other = position + offset
            order[position], order[other] = order[other], order[position]
        return np.array(order, np.int64)
    # "inside-out" Fisher-Yates on 64-bit words
    picks = (engine.random64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
    inside_out: list[int] = []
    for position, pick in enumerate(picks):
        inside_out.append(position)
        inside_out[position] = inside_out[pick]
        inside_out[pick] = position
    return np.array(inside_out, np.int64)
