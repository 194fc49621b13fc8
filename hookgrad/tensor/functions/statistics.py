"""Statistics: ``quantile``/``nanquantile``, ``cov``, ``corrcoef``, and the counting
functions ``histc``, ``histogram``, ``histogramdd`` and ``bincount``, with their Tensor
methods (``diff``, ``gradient`` and the ``trapezoid`` family are in ``differences.py``).

The differentiable ones are torch's composites, step for step (``quantile`` sorts, gathers
and interpolates with ``lerp``; ``cov`` centres and multiplies ...), so their gradients and
the nodes they record are torch's. The counting functions are not differentiable.

Example::

    x = hookgrad.tensor([[1.0, 2.0, 4.0], [2.0, 1.0, 0.0]])
    hookgrad.cov(x)                         # tensor([[ 2.3333, -1.5000], [-1.5000,  1.0000]])
    hookgrad.quantile(x, 0.5, dim=1)        # tensor([2., 1.])
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.grad_mode import is_grad_enabled
from hookgrad.ops import unary as unary_ops
from hookgrad.ops.shape import SqueezeDimInplace
from hookgrad.ops.statistics import TransposeInplace, UnsqueezeInplace
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.scalar_steps import mul_number
from hookgrad.tensor.named_tuples import RETURN_TYPES
from hookgrad.tensor.ranges import linspace
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "bincount",
    "corrcoef",
    "cov",
    "histc",
    "histogram",
    "histogramdd",
    "nanquantile",
    "quantile",
]


# ---------------------------------------------------------------- quantile

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(
    input: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool
) -> Tensor:
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if not isinstance(q, Tensor):
        q = float(q)
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
        q = wrap_constant(np.asarray(q, input._data.dtype))
    data = input._data
    if data.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q._data.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if data.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._data.dtype != data.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    wrapped = wrap_dim(0 if dim is None else operator.index(dim), data.ndim)
    if not np.all((q._data >= 0) & (q._data <= 1)):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    out_shape: list[int] = []
    if dim is not None and data.ndim > 0:
        out_shape = list(data.shape)
        if keepdim:
            out_shape[wrapped] = 1
        else:
            del out_shape[wrapped]
    elif keepdim:
        out_shape = [1] * data.ndim
    out_shape.insert(0, q._data.size)
    if dim is None:
        ordered = input.flatten().sort().values
    elif wrapped == data.ndim - 1:
        ordered = input.sort().values
    else:
        ordered = input.unsqueeze(-1).transpose(wrapped, -1).sort().values
    in_shape = out_shape[1:] + [ordered.shape[-1]]
    ordered = ordered.view(in_shape)
    ranks = _ranks(ordered._data, q._data, interpolation, ignore_nan)
    below = ranks.astype(np.int64)
    values = ordered.gather(-1, wrap_constant(below))
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = wrap_constant(np.full_like(ranks, 0.5))
        elif q.requires_grad and is_grad_enabled():
            weights = _rank_weights(ordered, q, ranks, below, ignore_nan)
        else:
            weights = wrap_constant((ranks - below).astype(ranks.dtype))
        above = ordered.gather(-1, wrap_constant(np.ceil(ranks).astype(np.int64)))
        values = values.lerp(above, weights)
    if q._data.ndim == 0:
        return apply(SqueezeDimInplace((values.ndim - 1,), -1), values)
    values = apply(UnsqueezeInplace(0), values)
    values = apply(TransposeInplace(0, -1), values)
    return apply(SqueezeDimInplace((values.ndim - 1,), -1), values)


def _rank_weights(
    ordered: Tensor, q: Tensor, ranks: np.ndarray, below: np.ndarray, ignore_nan: bool
) -> Tensor:
    """The interpolation weights ``ranks - floor(ranks)`` as a tensor that carries ``q``'s
    gradient (torch computes its ranks from ``q``, so ``q`` gets one through ``lerp``).
    NOTE: the weights' values are the ones ``_ranks`` computed; the graph is hookgrad's
    (torch builds it from ``broadcast_tensors``, ``masked_fill`` and in-place ops)."""
    nan = np.isnan(ordered._data)
    if ignore_nan:
        factor = wrap_constant((np.sum(~nan, axis=-1, keepdims=True) - 1).astype(ranks.dtype))
        fixed = np.broadcast_to(ranks <= 0, ranks.shape)
    else:
        factor = ordered.shape[-1] - 1
        fixed = np.broadcast_to(nan.any(axis=-1, keepdims=True), ranks.shape)
    scaled = (q * factor).expand(ranks.shape)
    scaled = scaled.masked_fill(wrap_constant(np.ascontiguousarray(fixed)), 0.0)
    offsets = np.where(fixed, ranks, 0).astype(ranks.dtype) - below.astype(ranks.dtype)
    return scaled + wrap_constant(offsets)


def _ranks(ordered: np.ndarray, q: np.ndarray, interpolation: str, ignore_nan: bool) -> Any:
    """The (fractional) positions of the quantiles ``q`` in each sorted row of
    ``ordered``: torch's ranks, in the input's dtype, rounded as ``interpolation`` says."""
    nan = np.isnan(ordered)
    if ignore_nan:
        count = np.sum(~nan, axis=-1, keepdims=True)
        ranks = q * (count - 1).astype(ordered.dtype)
        ranks = np.where(ranks < 0, np.zeros((), ranks.dtype), ranks)
    else:
        last = ordered.shape[-1] - 1
        ranks = q * ordered.dtype.type(last)
        ranks, has_nan = np.broadcast_arrays(ranks, nan.any(axis=-1, keepdims=True))
        ranks = np.where(has_nan, ordered.dtype.type(last), ranks)
    ranks = np.asarray(ranks, ordered.dtype)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # half to even, as torch's round
    return ranks


def quantile(
    input: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    """The ``q``-th quantiles (a number, or a 1-D tensor of them, in [0, 1]) of ``input``
    along ``dim`` (of all elements when None). Between two data points the quantile is
    ``interpolation``: ``"linear"``, ``"lower"``, ``"higher"``, ``"midpoint"`` or
    ``"nearest"``. A slice holding NaN has NaN quantiles. For a tensor ``q`` the quantiles
    make the first dim of the result.

    Example::

        hookgrad.quantile(hookgrad.tensor([1.0, 2.0, 3.0, 4.0]), 0.5)    # tensor(2.5000)
    """
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(
    input: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    """:func:`quantile` of the elements that are not NaN (NaN where a slice is all NaN).

    Example::

        hookgrad.nanquantile(hookgrad.tensor([1.0, float("nan"), 3.0]), 0.5)   # tensor(2.)
    """
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


# ---------------------------------------------------------------- cov / corrcoef


def _check_weights(weights: Tensor, name: str, kind: str, observations: int) -> None:
    data = weights._data
    if data.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{data.ndim} dimensions"
        )
    wanted = "integral" if kind == "i" else "floating point"
    if (kind == "i" and data.dtype.kind not in "iu") or (kind == "f" and data.dtype.kind != "f"):
        raise RuntimeError(
            f"cov(): expected {name} to have {wanted} dtype but got {name} with "
            f"{dtypes.legacy_name(weights.dtype)} dtype"
        )
    if data.size != observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {data.size} != {observations}"
        )
    if observations and data.min() < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(
    input: Tensor,
    *,
    correction: int = 1,
    fweights: Tensor | None = None,
    aweights: Tensor | None = None,
) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (its columns are the
    observations; a 1-D input is one variable), dividing by ``N - correction``;
    ``fweights`` (integer repeat counts) and ``aweights`` (floating weights) weight the
    observations. A single variable gives a 0-dim tensor.

    Example::

        hookgrad.cov(hookgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
        # tensor([[ 1., -1.], [-1.,  1.]])
    """
    data = input._data
    if data.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{data.ndim} dimensions"
        )
    if data.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if data.ndim < 2 else input
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", "i", observations)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", "f", observations)
        if observations:
            aweights.min()  # NOTE: torch's check records this node (it saves aweights)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = wrap_constant(np.asarray(observations, np.int64))
    else:
        w_sum = w.sum()
        if not bool(w_sum._data != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    average = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and correction != 0 and aweights is not None:
        norm_factor = w_sum - mul_number(correction, (w * aweights).sum()) / w_sum
    else:
        norm_factor = w_sum - correction
    if bool(norm_factor._data <= 0):
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm_factor = norm_factor.detach() * 0
    centred = x - average.unsqueeze(1)
    product = centred.mm((centred if w is None else centred * w).t().conj())
    return product.true_divide(norm_factor).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in the rows of ``input``: the
    covariance matrix scaled to unit diagonal, clipped to [-1, 1].

    Example::

        hookgrad.corrcoef(hookgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
        # tensor([[ 1., -1.], [-1.,  1.]])
    """
    if input._data.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    stddev = (d.real if d.is_complex() else d).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.is_complex():
        raise NotImplementedError("hookgrad: corrcoef of a complex tensor is not supported")
    # NOTE: the bounds stay the ints torch's C++ passes (``_saved_min`` is -1, not -1.0).
    return apply(unary_ops.Clamp(-1, 1), c)


# ---------------------------------------------------------------- histograms


def _check_floating(name: str, input: Tensor) -> None:
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{name}\" not implemented for '{dtypes.legacy_name(input.dtype)}'"
        )


def _cpp_number(value: float) -> str:
    """A double as torch's C++ message prints it (a NaN from a reduction as ``-nan``)."""
    return "-nan" if value != value else f"{value:g}"


def _linear_bins(values: np.ndarray, low: Any, high: Any, bins: int) -> np.ndarray:
    """torch's bin of each value for ``bins`` equal bins on ``[low, high]``, computed in
    the values' dtype (``(x - low) * bins / (high - low)``, truncated; the top edge
    belongs to the last bin); -1 outside and for NaN."""
    inside = (values >= low) & (values <= high)
    scaled = (values - low) * values.dtype.type(bins) / values.dtype.type(high - low)
    with np.errstate(invalid="ignore"):
        positions = np.where(inside, scaled, 0).astype(np.int64)
    positions = np.minimum(positions, bins - 1)
    return np.where(inside, positions, -1)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """A histogram of ``input`` with ``bins`` equal bins between ``min`` and ``max``
    (both 0: the data's minimum and maximum); elements outside are ignored. Floating
    input only; not differentiable.

    Example::

        hookgrad.histc(hookgrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
        # tensor([0., 2., 1., 0.])
    """
    _check_floating("histogram_cpu", input)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    data = input._data.reshape(-1)
    low, high = float(min), float(max)
    if low == high and data.size:
        low, high = float(data.min()), float(data.max())
    if low == high:
        low, high = low - 1, high + 1
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(
            f"torch.histc: range of [{_cpp_number(low)}, {_cpp_number(high)}] is not finite"
        )
    if not low < high:
        raise RuntimeError("torch.histc: max must be larger than min")
    dtype = data.dtype.type
    positions = _linear_bins(data, dtype(low), dtype(high), bins)
    counts = np.bincount(positions[positions >= 0], minlength=bins)
    return wrap_constant(counts.astype(data.dtype))


def _edges_of(values: np.ndarray, bins: Any, bin_range: Any, dim: int) -> np.ndarray:
    """The bin edges of column ``dim``: ``bins`` given as a tensor, or ``bins`` equal bins
    over ``bin_range`` (default: the data's extremes, widened by 0.5 if they are equal)."""
    if isinstance(bins, Tensor):
        return bins._data
    if bins <= 0:
        raise RuntimeError(
            f"torch.histogramdd(): bins must be > 0, but got {bins} for dimension {dim}"
        )
    if bin_range is not None:
        low, high = float(bin_range[0]), float(bin_range[1])
    elif values.size:
        low, high = float(values.min()), float(values.max())
    else:
        low, high = 0.0, 0.0
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(
            f"torch.histogramdd: dimension {dim}'s range [{low:g}, {high:g}] is not finite"
        )
    if low > high:
        raise RuntimeError(
            f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} "
            f"for dimension {dim}"
        )
    if low == high:
        low, high = low - 0.5, high + 0.5
    return linspace(low, high, bins + 1, dtype=dtypes.from_numpy_dtype(values.dtype))._data


def _histogramdd(
    samples: np.ndarray, bins: Sequence[Any], bin_range: Any, weight: Any, density: bool
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The counts (or weights, or densities) of the rows of ``samples`` (N, D) in the bins
    of each of the D columns, and the bin edges."""
    columns = samples.shape[1]
    edges = []
    for dim in range(columns):
        column_range = None if bin_range is None else bin_range[2 * dim : 2 * dim + 2]
        edges.append(_edges_of(samples[:, dim], bins[dim], column_range, dim))
    inside = np.ones(samples.shape[0], bool)
    positions = []
    for dim, edge in enumerate(edges):
        values = samples[:, dim]
        inside &= (values >= edge[0]) & (values <= edge[-1])
        position = np.searchsorted(edge, values, side="right") - 1
        positions.append(np.clip(position, 0, edge.size - 2))
    shape = tuple(edge.size - 1 for edge in edges)
    flat = np.ravel_multi_index(tuple(p[inside] for p in positions), shape) if shape else None
    weights = None if weight is None else weight._data.reshape(-1)[inside]
    size = int(np.prod(shape))
    hist = np.bincount(flat, weights=weights, minlength=size).astype(samples.dtype)
    hist = hist.reshape(shape)
    if density:
        total = hist.sum()
        for dim, edge in enumerate(edges):
            widths = np.diff(edge).reshape([-1 if d == dim else 1 for d in range(columns)])
            hist = hist / widths
        hist = hist / total
    return hist.astype(samples.dtype), edges


def histogram(
    input: Tensor,
    bins: Any = 100,
    *,
    range: Any = None,  # noqa: A002 (torch's name)
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """``(hist, bin_edges)``: a histogram of ``input`` with ``bins`` equal bins over
    ``range`` (default: the data's extremes), or with the edges ``bins`` (a 1-D tensor);
    ``weight`` weighs each element, ``density`` normalises the histogram to integrate to 1.

    Example::

        hookgrad.histogram(hookgrad.tensor([1.0, 2.0, 1.0]), bins=2)
        # hist=tensor([2., 1.]), bin_edges=tensor([1.0000, 1.5000, 2.0000])
    """
    _check_floating("histogram_cpu", input)
    samples = input._data.reshape(-1, 1)
    hist, edges = _histogramdd(samples, [bins], range, weight, density)
    return RETURN_TYPES["histogram"]((wrap_constant(hist), wrap_constant(edges[0].copy())))


def histogramdd(
    input: Tensor,
    bins: Any = 10,
    *,
    range: Any = None,  # noqa: A002 (torch's name)
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """``(hist, bin_edges)``: the D-dimensional histogram of the points in the rows of
    ``input`` (its last dim is D); ``bins`` is one int for every dim, one per dim, or one
    tensor of edges per dim; ``range`` is ``[min0, max0, min1, max1, ...]``.

    Example::

        hookgrad.histogramdd(hookgrad.tensor([[0.0, 1.0], [1.0, 0.0]]), bins=[2, 2]).hist
        # tensor([[0., 1.], [1., 0.]])
    """
    _check_floating("histogramdd", input)
    columns = input.shape[-1]
    samples = input._data.reshape(-1, columns)
    if isinstance(bins, int):
        bins = [bins] * columns
    hist, edges = _histogramdd(samples, list(bins), range, weight, density)
    bin_edges = tuple(wrap_constant(edge.copy()) for edge in edges)
    return RETURN_TYPES["histogramdd"]((wrap_constant(hist), bin_edges))


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value ``0 .. max(input)`` occurs in the 1-D non-negative integer
    ``input`` (at least ``minlength`` counts); with ``weights``, the sum of the weights of
    its occurrences (float64, or the weights' floating dtype). Not differentiable.

    Example::

        hookgrad.bincount(hookgrad.tensor([1, 1, 3]))    # tensor([0, 2, 0, 1])
    """
    data = input._data
    if data.dtype.kind not in "iu":
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{dtypes.legacy_name(input.dtype)}'"
        )
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return wrap_constant(np.bincount(data, minlength=minlength).astype(np.int64))
    if weights._data.ndim != 1 or weights._data.shape[0] != data.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = weights._data.dtype if weights._data.dtype.kind == "f" else np.float64
    counts = np.bincount(data, weights=weights._data.astype(np.float64), minlength=minlength)
    return wrap_constant(counts.astype(dtype))


class StatisticsMethods:
    """Statistics methods of ``Tensor``."""

    quantile = quantile
    nanquantile = nanquantile
    cov = cov
    corrcoef = corrcoef
    histc = histc
    histogram = histogram
    bincount = bincount
