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
- poisson, binomial: torch's own rejection samplers, one element at a time, each drawing
  as many double uniforms as its loop needs.
- gamma, Dirichlet: Marsaglia and Tsang's rejection method on double normals and
  uniforms, element after element; evaluated here a window of elements at a time on
  the guess that each accepts its first attempt (see ``standard_gamma``).

Example::

    uniform(Engine(0), 2, np.dtype(np.float32), 0.0, 1.0)   # array([0.4962566, 0.7682218])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.ops.array_api import sum as array_sum
from hookgrad.ops.kernels.fma import fma32, fma64
from hookgrad.ops.kernels.libm import pow as c_pow
from hookgrad.ops.kernels.parallel import for_row_blocks
from hookgrad.tensor.cpu_math import avx_log, avx_sincos, libm
from hookgrad.tensor.mersenne import Engine

_F32 = np.float32
_MASK24 = np.uint64((1 << 24) - 1)
_MASK53 = np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi
_WIDE_RANGE = 1 << 28  # from here on integers are drawn from 64-bit words
_SMALL_PERMUTATION = 0xFFFFFFFF // 20
_ROWS_PER_BLOCK = 4096  # Box-Muller rows of 16 values: 256 KiB of float32, in L2


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
    # NOTE: a 24-bit integer and its scaling by a power of two are exact in float32
    return (engine.random32(count) & _MASK24).astype(_F32) * _F32(2.0**-24)


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
    u_(j+8)``, scaled by ``std`` and shifted by ``mean`` in one fused step. Long inputs
    go in cache-sized row blocks, on the intra-op threads."""
    out = np.empty_like(block)

    def rows(part: slice) -> None:
        out[part] = _box_muller_rows(block[part], mean, std)

    for_row_blocks(len(block), _ROWS_PER_BLOCK, rows)
    return out


def _box_muller_rows(block: np.ndarray, mean: float, std: float) -> np.ndarray:
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


# -- poisson and binomial (aten/src/ATen/native/Distributions.{h,cpp}) -----------------------
# torch samples these one element at a time, in the output's order, with rejection loops
# that draw a data-dependent number of double uniforms; the arithmetic is plain double
# (and, for binomial, partly the tensor's own dtype: ``scalar_t``), without fused
# multiply-adds (Distributions.cpp is built for the baseline instruction set).
_STIRLING_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _uniform_double(engine: Engine) -> float:
    """One ``uniform_real_distribution<double>(0, 1)`` draw."""
    return float(uniform_float64(engine, 1)[0])


def _poisson_one(engine: Engine, lam: float) -> int:
    """torch's ``sample_poisson``: Hoermann's transformed rejection for ``lam >= 10``,
    Knuth's multiplication method below."""
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _uniform_double(engine) - 0.5
            v = _uniform_double(engine)
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            bound = -lam + k * loglam - math.lgamma(k + 1.0)
            if math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b) <= bound:
                return k
    if lam == 0:
        return 0
    enlam, count, product = math.exp(-lam), 0, 1.0
    while True:
        product *= _uniform_double(engine)
        if product > enlam:
            count += 1
        else:
            return count


def poisson(engine: Engine, rates: np.ndarray) -> np.ndarray:
    """One Poisson draw per rate (a flat float array, in the order torch visits it), as
    float64 counts; torch's error at the first negative rate (the draws before it made)."""
    out = np.empty(rates.size)
    for index, rate in enumerate(rates.astype(np.float64).tolist()):
        if not rate >= 0:
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        out[index] = _poisson_one(engine, rate)
    return out


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(engine: Engine, count: Any, prob: Any) -> Any:
    """Geometric waiting times until they pass ``count`` (``count``, ``prob``: NumPy
    scalars of the tensor's dtype, as torch's ``scalar_t``)."""
    scalar = type(count)
    logprob = float(np.log1p(-prob))  # NOTE: log1p in the tensor's dtype, as C++'s overload
    total, successes = 0.0, scalar(0)
    while True:
        total += math.ceil(math.log(_uniform_double(engine)) / logprob)
        if total > count:
            return successes
        successes = scalar(successes + 1)


def _btrs(engine: Engine, count: Any, prob: Any) -> Any:
    """Hoermann's BTRS transformed rejection (torch's ``btrs``), ``count`` and ``prob``
    NumPy scalars of the tensor's dtype, the rest in double as torch computes it."""
    scalar = type(count)
    one = scalar(1)
    stddev = float(np.sqrt(count * prob * (one - prob)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (one - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(np.floor((count + one) * prob))
    n = float(count)
    while True:
        u = _uniform_double(engine) - 0.5
        v = _uniform_double(engine)
        us = 0.5 - abs(u)
        k = scalar(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        rest = float(count - k + one)
        bound = (
            (m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
            + float(count + one) * math.log((n - m + 1) / rest)
            + (float(k) + 0.5) * math.log(r * rest / float(k + one))
            + _stirling_tail(m)
            + _stirling_tail(n - m)
            - _stirling_tail(float(k))
            - _stirling_tail(float(count - k))
        )
        if v <= bound:
            return k


def _binomial_one(engine: Engine, count: Any, prob: Any) -> Any:
    """torch's ``sample_binomial`` of one (``count``, ``prob``) pair."""
    if count <= 0.0 or prob <= 0.0:
        return 0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if count * prob >= 10.0:
            return _btrs(engine, count, prob)
        return _binomial_inversion(engine, count, prob)
    if prob > 0.5:
        qprob = type(count)(1.0 - float(prob))
        if count * qprob >= 10.0:
            return count - _btrs(engine, count, qprob)
        return count - _binomial_inversion(engine, count, qprob)
    return math.nan


def binomial(engine: Engine, counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """One binomial draw per (count, probability) pair (flat arrays of one floating
    dtype, in the order torch visits them), in that dtype."""
    out = np.empty(counts.size, counts.dtype)
    for index, (count, prob) in enumerate(zip(counts, probs)):
        out[index] = _binomial_one(engine, count, prob)
    return out


# -- gamma and Dirichlet (Distributions.h ``sample_gamma``, Distributions.cpp) ----------------
# torch draws a gamma variate per element, in C order, by Marsaglia and Tsang's rejection
# method: for ``alpha < 1`` a uniform first (the boost ``(1 - u) ** (1 / alpha)``), then
# attempts of one double normal (``normal_distribution<double>``: a Box-Muller pair whose
# sine half the generator keeps for the next normal) and one double uniform until one is
# accepted. Every draw is a 64-bit word, so the words form one stream: the sampler guesses
# that each element takes its first attempt, lays the stream out for a window of elements
# on that guess, evaluates them together, keeps those before the first rejection and
# starts the next window there. Words drawn for a guess are all used in the end: a
# rejection only inserts draws, and the cost of a run of normals grows with its length.
_FLOAT_THIRD = float(_F32(1.0) / _F32(3.0))  # ``1.0f / 3.0f``, a float constant in torch
_SQUEEZE = float(_F32(0.0331))  # ``0.0331f``
_FIRST_WINDOW = 64
_LARGEST_WINDOW = 1 << 16


class _DoubleStream:
    """The double uniforms a kernel draws, read ahead: ``take(count)`` returns the next
    ``count`` (drawing those missing), ``advance(count, kept)`` uses up ``count`` of them
    and sets the normal the generator keeps (None: none); ``close`` hands it back."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.ahead = np.empty(0)
        self.kept = engine.next_double_normal
        engine.next_double_normal = None

    def take(self, count: int) -> np.ndarray:
        missing = count - self.ahead.size
        if missing > 0:
            self.ahead = np.concatenate([self.ahead, uniform_float64(self.engine, missing)])
        return self.ahead[:count]

    def advance(self, count: int, kept: float | None) -> None:
        self.ahead = self.ahead[count:]
        self.kept = kept

    def close(self) -> None:
        self.engine.next_double_normal = self.kept


def _gamma_constants(alpha: np.ndarray, np_dtype: np.dtype) -> tuple[np.ndarray, ...]:
    """Per element: whether the boost applies, its exponent ``1 / alpha``, and
    Marsaglia and Tsang's ``d`` and ``c``, with the float arithmetic torch does in the
    tensor's dtype (``scalar_t``) for a float32 tensor."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if np_dtype == np.float32:
            alpha32 = alpha.astype(_F32)
            boost = alpha32 < 1
            exponent = (_F32(1) / alpha32).astype(np.float64)
            d = (np.where(boost, alpha32 + _F32(1), alpha32) - _F32(_FLOAT_THIRD)).astype(
                np.float64
            )
        else:
            boost = alpha < 1
            exponent = 1.0 / alpha
            d = np.where(boost, alpha + 1.0, alpha) - _FLOAT_THIRD
        c = 1.0 / np.sqrt(9.0 * d)
    return boost, exponent, d, c


class _Normals:
    """A run of double normals as torch's generator makes them: normal ``j`` makes a new
    Box-Muller pair when ``draws[j]`` (its cosine half; the sine half is kept), else it
    takes the half kept before it (``kept``, for the first)."""

    def __init__(self, pairs: np.ndarray, draws: np.ndarray, kept: float | None) -> None:
        radius = np.sqrt(-2.0 * libm(math.log1p, -pairs[:, 1]))
        theta = _TWO_PI * pairs[:, 0]
        cosine = radius * libm(math.cos, theta)
        self.sine = radius * libm(math.sin, theta)
        self.draws = draws
        self.pair = np.cumsum(draws) - 1  # the pair each normal reads
        # indexed by pair + 1: the half kept before the run is "pair -1"
        earlier = np.concatenate([[np.nan if kept is None else kept], self.sine])
        cosine = np.concatenate([[np.nan], cosine])
        self.values = np.where(draws, cosine[self.pair + 1], earlier[self.pair + 1])

    def kept_after(self, j: int) -> float | None:
        """The half the generator keeps once normal ``j`` is drawn."""
        return float(self.sine[self.pair[j]]) if self.draws[j] else None


def standard_gamma(engine: Engine, alpha: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """One standard gamma draw per concentration in ``alpha`` (a flat float64 array of
    values of ``np_dtype``, in the order torch visits them), in float64 before torch's
    final cast. ``alpha == 0`` gives 0 without a draw; NaN, or a value at most ``-2/3``
    (where torch's loop never ends), gives NaN without a draw."""
    boost, exponent, d, c = _gamma_constants(alpha, np_dtype)
    out = np.where(alpha == 0, 0.0, np.nan)
    active = np.flatnonzero((alpha != 0) & (d > 0))
    scale = np.ones(alpha.size)
    pending_boost = boost.copy()
    stream = _DoubleStream(engine)
    window = _FIRST_WINDOW
    start = 0
    while start < active.size:
        elements = active[start : start + window]
        size = elements.size
        pre = pending_boost[elements]
        draws = (np.arange(size) + (stream.kept is not None)) % 2 == 0
        offsets = np.concatenate([[0], np.cumsum(pre + 2 * draws + 1)])
        doubles = stream.take(int(offsets[-1]))
        at_normal = offsets[:-1] + pre
        pairs = doubles[at_normal[draws, None] + np.arange(2)]
        normals = _Normals(pairs, draws, stream.kept)
        x = normals.values
        element_scale = scale[elements]
        if pre.any():
            base = 1.0 - doubles[offsets[:-1][pre]]
            element_scale[pre] = c_pow(base, exponent[elements[pre]])
        u = 1.0 - doubles[at_normal + 2 * draws]
        y = 1.0 + c[elements] * x
        positive = y > 0
        v = y * y * y
        xx = x * x
        dd = d[elements]
        log_v = libm(math.log, np.where(positive, v, 1.0))
        with np.errstate(invalid="ignore"):
            squeeze = u < 1.0 - _SQUEEZE * xx * xx
            log_test = libm(math.log, u) < 0.5 * xx + dd * (1.0 - v + log_v)
        accepted = positive & (squeeze | log_test)
        kept = size if accepted.all() else int(np.argmin(accepted))
        out[elements[:kept]] = element_scale[:kept] * dd[:kept] * v[:kept]
        if kept == size:
            stream.advance(int(offsets[-1]), normals.kept_after(size - 1))
            start += size
            window = min(2 * window, _LARGEST_WINDOW)
            continue
        # the rejected element drew its boost (if due) and a normal, and a uniform if y > 0
        rejected = elements[kept]
        scale[rejected] = element_scale[kept]
        pending_boost[rejected] = False
        used = int(at_normal[kept]) + 2 * int(draws[kept]) + int(positive[kept])
        stream.advance(used, normals.kept_after(kept))
        start += kept
        window = max(_FIRST_WINDOW, 2 * kept)
    stream.close()
    return out


def dirichlet(engine: Engine, alpha: np.ndarray) -> np.ndarray:
    """torch's ``_sample_dirichlet`` of ``alpha`` (a float array, the last axis the event),
    in its dtype: a double gamma draw per element in C order (at least the smallest normal
    double), divided by their sum over the last axis (summed as torch sums), cast to the
    dtype and kept within ``[tiny, largest value below 1]``."""
    np_dtype = alpha.dtype
    flat = np.ascontiguousarray(alpha, np.float64).ravel()
    gamma = standard_gamma(engine, flat, np.dtype(np.float64)).reshape(alpha.shape)
    gamma = np.maximum(gamma, np.finfo(np.float64).tiny)
    ratio = (gamma / array_sum(gamma, -1, keepdim=True)).astype(np_dtype)
    largest = np.nextafter(np_dtype.type(1), np_dtype.type(0))
    return np.minimum(np.maximum(ratio, np.finfo(np_dtype).tiny), largest)
