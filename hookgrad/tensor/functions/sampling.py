"""Random sampling on tensors: the in-place random fills (``uniform_``, ``normal_``,
``random_``, ``exponential_``, ``bernoulli_``, ``cauchy_``, ``log_normal_``,
``geometric_``), ``bernoulli``, ``multinomial``, ``normal``, ``poisson`` and ``binomial``,
and their Tensor methods.

Every draw comes from a ``Generator`` (the default one unless ``generator=`` is given)
through the samplers of ``hookgrad.tensor.random``, so the numbers are torch's. An
in-place fill records torch's node (``UniformBackward0``, ``RandomBackward1`` ...) when
autograd tracks the tensor; its gradient is zero.

Example::

    hookgrad.manual_seed(0)
    hookgrad.empty(3).exponential_()       # the same values as torch's
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hookgrad.ops import random as ops
from hookgrad.tensor import dtypes, random, random_kernels
from hookgrad.tensor.creation import new_leaf, parse_size, resolve_dtype
from hookgrad.tensor.dispatch import apply, broadcast_shapes
from hookgrad.tensor.functions.generated import RESIZE_WARNING
from hookgrad.tensor.functions.inplace import run_inplace_op
from hookgrad.tensor.tensor import Tensor

__all__ = ["bernoulli", "binomial", "multinomial", "normal", "poisson"]


def _number(value: float) -> str:
    """A number as torch's C++ messages print a double (``1``, ``0.5``, ``1e-07``)."""
    return f"{value:g}"


def _check_continuous(input: Tensor, distribution: str, type_name: str) -> None:
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"{distribution} distribution is a continuous probability distribution. dtype "
            f"must be a floating point but you specified {type_name}"
        )


# -- in-place fills -------------------------------------------------------------------------
def uniform_(
    input: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None
) -> Tensor:
    """Fill with numbers drawn uniformly from ``[from_, to)``.

    Example: ``hookgrad.empty(3).uniform_(-1, 1)``.
    """
    if from_ > to:
        raise RuntimeError(
            "uniform_ expects to return a [from, to) range, but found "
            f"from={_number(from_)} > to={_number(to)}"
        )
    return run_inplace_op(
        input, ops.Uniform(lambda a: random.sample_uniform(a, from_, to, generator))
    )


def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with numbers drawn from the normal distribution ``N(mean, std**2)``.

    Example: ``hookgrad.empty(3).normal_(0, 0.02)``.
    """
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_number(std)}")
    return run_inplace_op(
        input, ops.Normal(lambda a: random.sample_normal(a, mean, std, generator))
    )


_UNSET: Any = object()


def random_(
    input: Tensor, from_: int | None = None, to: int | None = _UNSET, *, generator: Any = None
) -> Tensor:
    """Fill with integers: ``random_()`` from ``[0, max]`` of the dtype (``[0, 2**mantissa]``
    for a floating one), ``random_(to)`` from ``[0, to)``, ``random_(from, to)`` from
    ``[from, to)`` and ``random_(from, None)`` from ``from`` up to the dtype's maximum.

    Example: ``hookgrad.empty(5, dtype=hookgrad.int64).random_(0, 10)``.
    """
    op: Any
    if from_ is None and to is _UNSET:
        op = ops.Random(lambda a: random.sample_bits(a, generator))
    elif to is _UNSET or from_ is None:
        bound: Any = from_ if to is _UNSET else to
        op = ops.RandomTo(lambda a: random.sample_integers(a, 0, int(bound), generator))
    else:
        low, high = int(from_), None if to is None else int(to)
        op = ops.RandomFromTo(lambda a: random.sample_integers(a, low, high, generator))
    return run_inplace_op(input, op)


def exponential_(input: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with numbers from the exponential distribution of rate ``lambd``."""
    if not 0 < lambd < float("inf"):
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_number(lambd)}")

    def sample(a: np.ndarray) -> np.ndarray:
        _check_continuous(input, "Exponential", dtypes.legacy_name(input.dtype))
        return random.sample_exponential(a, lambd, generator)

    return run_inplace_op(input, ops.Exponential(sample))


def cauchy_(
    input: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None
) -> Tensor:
    """Fill with numbers from the Cauchy distribution of ``median`` and scale ``sigma``."""

    def sample(a: np.ndarray) -> np.ndarray:
        _check_continuous(input, "Cauchy", dtypes.cpp_name(input.dtype))
        return random.sample_cauchy(a, median, sigma, generator)

    return run_inplace_op(input, ops.Cauchy(sample))


def log_normal_(
    input: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None
) -> Tensor:
    """Fill with numbers whose logarithm is normal with ``mean`` and ``std``."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_number(std)}")

    def sample(a: np.ndarray) -> np.ndarray:
        if a.dtype.kind != "f":
            name = dtypes.legacy_name(input.dtype)
            raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{name}'")
        return random.sample_log_normal(a, mean, std, generator)

    return run_inplace_op(input, ops.LogNormal(sample))


def geometric_(input: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Fill with the number of Bernoulli(``p``) trials up to the first success."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_number(p)}")
    return run_inplace_op(input, ops.Geometric(lambda a: random.sample_geometric(a, p, generator)))


def _check_probabilities(p: Tensor) -> None:
    if not p.dtype.is_floating_point:
        name = dtypes.legacy_name(p.dtype)
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{name}'")


def bernoulli_(input: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Set each element to 1 with probability ``p`` (a number, or a tensor broadcast to
    ``input``'s shape), else 0.

    Example: ``hookgrad.empty(4).bernoulli_(0.3)``.
    """
    if isinstance(p, Tensor):
        _check_probabilities(p)
        sample = ops.BernoulliTensor(lambda a, q: random.sample_bernoulli(a, q, generator))
        return run_inplace_op(input, sample, (p,))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_number(p)}")
    fill = ops.BernoulliFloat(lambda a: random.sample_bernoulli(a, float(p), generator))
    return run_inplace_op(input, fill)


# -- new tensors ----------------------------------------------------------------------------
def bernoulli(input: Tensor, p: float | None = None, *, generator: Any = None) -> Tensor:
    """1 with probability ``input`` (or the number ``p``) per element, else 0; the dtype and
    shape of ``input``.

    Example::

        hookgrad.bernoulli(hookgrad.full((3,), 0.5))    # e.g. tensor([1., 0., 1.])
    """
    if p is not None:
        return bernoulli_(Tensor._make(random.empty_like(input._data)), p, generator=generator)
    _check_probabilities(input)
    # NOTE: torch's result is contiguous whatever the layout of ``input``
    sample = ops.Bernoulli(
        lambda q: random.sample_bernoulli(np.empty(q.shape, q.dtype), q, generator)
    )
    return apply(sample, input)


def _multinomial_with_replacement(rows: np.ndarray, count: int, engine: Any) -> np.ndarray:
    """torch's sampling with replacement: per row, the normalised running sum of the
    probabilities (in the input's precision, at least float32) and a binary search for
    a double uniform per sample."""
    precision = np.float64 if rows.dtype == np.float64 else np.float32
    out = np.empty((rows.shape[0], count), np.int64)
    for index, row in enumerate(rows.astype(precision)):
        if (row < 0).any() or np.isnan(row).any():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry < 0)"
            )
        if not np.isfinite(row).all():
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity "
                "or NaN)"
            )
        running = np.cumsum(row)  # NOTE: sequential, as torch's loop (not pairwise)
        total = running[-1]
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        running = running / total
        running[-1] = 1
        uniforms = random_kernels.uniform_float64(engine, count)
        out[index] = np.searchsorted(running.astype(np.float64), uniforms, side="left")
    return out


def multinomial(
    input: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None
) -> Tensor:
    """Indices of categories drawn from the rows of ``input`` (non-negative weights, 1-D or
    2-D): ``num_samples`` per row, with or without ``replacement``.

    Without replacement (or for one sample) torch takes the largest ``input / q`` for
    exponential ``q``; with replacement it searches a double uniform in the normalised
    cumulative weights. Example::

        hookgrad.multinomial(hookgrad.tensor([0.1, 0.9]), 4, replacement=True)
    """
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{dtypes.legacy_name(input.dtype)}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    data = input._data
    categories = data.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if categories > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = data.reshape(-1, categories)
    if replacement and num_samples > 1:
        picks = _multinomial_with_replacement(rows, num_samples, random.engine_of(generator))
    else:
        if not (np.all(data < np.inf) and np.all(data >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (rows.sum(axis=1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        q = random.sample_exponential(random.empty_like(data), 1.0, generator)
        keys = (data / q).reshape(-1, categories)
        # NOTE: equal keys (zero weights drawn once the others are used up) are taken in
        # index order here; torch's std::nth_element may order them otherwise.
        picks = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    shape = (num_samples,) if input.ndim == 1 else (data.shape[0], num_samples)
    return new_leaf(np.ascontiguousarray(picks).reshape(shape))


def _shape_of(value: Any) -> tuple[int, ...]:
    return value._data.shape if isinstance(value, Tensor) else ()


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Normal samples with ``mean`` and ``std`` (each a tensor or a number, broadcast
    together; two numbers need ``size``). Drawn as torch does: standard (or ``std``-scaled)
    samples of the result's shape, then scaled and shifted. A ``mean`` or ``std`` that
    requires grad records torch's node (``NormalBackward1``, ``2`` or ``3``), whose gradient
    is zero.

    Example::

        hookgrad.normal(hookgrad.zeros(3), 2.0)
        hookgrad.normal(0.0, 1.0, size=(2, 2))
    """
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if std_is_tensor and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not std_is_tensor and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_number(std)}")
    if not (mean_is_tensor or std_is_tensor):
        if size is None:
            raise TypeError('normal() missing 1 required positional argument: "size"')
        like = np.empty(parse_size((size,), "normal"), resolve_dtype(dtype).np)
        values = random.sample_normal(like, float(mean), float(std), generator)
        return new_leaf(values, requires_grad)
    template = (mean if mean_is_tensor else std)._data
    shape = np.broadcast_shapes(_shape_of(mean), _shape_of(std))
    like = np.empty(shape, template.dtype)
    if mean_is_tensor and not std_is_tensor:
        values = random.sample_normal(like, 0.0, float(std), generator) + mean._data
    else:
        values = random.sample_normal(like, 0.0, 1.0, generator)
        values = values * (std._data if std_is_tensor else std)
        values = values + (mean._data if mean_is_tensor else mean)
    values = values.astype(template.dtype, copy=False)
    # torch's node: the gradients of ``mean`` and ``std`` are zero.
    if mean_is_tensor and std_is_tensor:
        return apply(ops.NormalTensorTensor(values), mean, std)
    if mean_is_tensor:
        return apply(ops.NormalTensorFloat(values), mean)
    return apply(ops.NormalFloatTensor(values), std)


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """A Poisson count for each rate in ``input`` (non-negative, floating), in its dtype,
    drawn as torch's sampler draws it (Hoermann's transformed rejection from rate 10 on,
    Knuth's method below), so that a seeded program gets torch's numbers. The gradient is
    zero (``PoissonBackward0``).

    Example::

        hookgrad.manual_seed(0)
        hookgrad.poisson(hookgrad.tensor([0.5, 3.0, 12.0]))
    """
    if input._data.dtype.kind != "f":
        name = dtypes.legacy_name(input.dtype)
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{name}'")
    return apply(ops.Poisson(lambda rates: random.sample_poisson(rates, generator)), input)


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """The number of successes in ``count`` trials of probability ``prob`` (floating
    tensors of one dtype; ``prob`` broadcast to ``count``'s shape), drawn as torch's
    sampler draws it (BTRS rejection where the mean is at least 10, inversion below).
    torch has no derivative for it.

    Example::

        hookgrad.manual_seed(0)
        hookgrad.binomial(hookgrad.tensor([5.0, 100.0]), hookgrad.tensor([0.3, 0.9]))
    """
    for name, value in (("count", count), ("prob", prob)):
        if value._data.dtype.kind != "f":
            raise ValueError(
                f"binomial only supports floating-point dtypes for {name}, got: "
                f"{dtypes.legacy_name(value.dtype)}"
            )
    if prob._data.dtype != count._data.dtype:
        found = dtypes.legacy_name(prob.dtype)
        expected = dtypes.legacy_name(count.dtype)
        raise RuntimeError(f"Found dtype {found} but expected {expected}")
    shape = broadcast_shapes(count._data.shape, prob._data.shape)
    if shape != count._data.shape:
        # NOTE: torch's output has count's shape, then is resized to the broadcast one.
        old = list(count._data.shape)
        warnings.warn(RESIZE_WARNING.format(old=old, new=list(shape)), UserWarning, stacklevel=2)

    def sample(counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
        counts = np.broadcast_to(counts, shape)
        return random.sample_binomial(counts, probs, generator)

    return apply(ops.Binomial(sample), count, prob)


class SamplingMethods:
    """Random methods of ``Tensor`` (``x.uniform_()``, ``x.bernoulli()`` ...)."""

    uniform_ = uniform_
    normal_ = normal_
    random_ = random_
    exponential_ = exponential_
    cauchy_ = cauchy_
    log_normal_ = log_normal_
    geometric_ = geometric_
    bernoulli_ = bernoulli_
    bernoulli = bernoulli
    multinomial = multinomial
