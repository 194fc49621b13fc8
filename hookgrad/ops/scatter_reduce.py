"""The reducing indexing ops: ``scatter_reduce`` and ``index_reduce`` (``sum``, ``prod``,
``mean``, ``amax``, ``amin`` into a copy of the input, with or without its own values),
and ``index_copy``; with torch's node names, saved values and backward formulas.

Where torch's backward cannot run (``scatter_reduce``'s ``prod`` gradient through a
``create_graph=True`` pass with zeros ...), the node records a ``DelayedError`` as torch
does, which raises only when that gradient is used.

Example: ``hookgrad.zeros(3).scatter_reduce(0, idx, src, "amax")`` runs ``ScatterReduce``
(node ``ScatterReduceBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.dims import wrapped
from hookgrad.ops.indexing import along, at_least_1d, leading

# ---------------------------------------------------------------- scatter_reduce / index_reduce


# The value a reduction starts from where ``include_self=False`` leaves ``self`` out.
def _identity(reduce: str, dtype: np.dtype) -> Any:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce != "amax"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


# torch's kernels propagate NaN through amax / amin, as NumPy's maximum / minimum do.
_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum}
_UFUNCS["amin"] = np.minimum


def reduce_at(out: np.ndarray, where: Any, values: Any, reduce: str, include_self: bool) -> None:
    """Reduce ``values`` into ``out[where]`` (repeated places too) in place, as torch's
    ``scatter_reduce`` / ``index_reduce`` kernels: in index order; ``mean`` divides by the
    count (``self`` included when ``include_self``), rounding down for integers."""
    if not include_self:
        out[where] = _identity(reduce, out.dtype)
    _UFUNCS[reduce].at(out, where, values)
    if reduce == "mean":
        count = np.full(out.shape, 1 if include_self else 0, np.int64)
        np.add.at(count, where, 1)
        count[count == 0] = 1
        if out.dtype.kind in "fc":
            out[...] = out / count
        else:
            out[...] = np.floor_divide(out, count)


def _reduce_name(reduce: str) -> str:
    """torch's kernels take the legacy names ``max`` / ``min`` too."""
    return {"max": "amax", "min": "amin"}.get(reduce, reduce)


class DelayedError(Op):
    """torch's ``DelayedError``: passes its input on, and fails when a backward reaches
    it (a second derivative torch does not support in that case)."""

    node_name = "DelayedError"
    input_names = ("self",)

    def __init__(self, message: str) -> None:
        self.message = message

    def name(self) -> str:
        return "torch::autograd::DelayedError"

    def forward(self, a: Any) -> Any:
        return a

    def backward(self, grad: Any) -> Any:
        raise RuntimeError(self.message)


def _delayed(grad_src: Any, zeros: Any, message: str) -> Any:
    """``grad_src`` behind a ``DelayedError`` when a graph is being recorded and some
    place got more than one zero (torch's ``prod`` rule)."""
    if grad_src.requires_grad and bool((zeros > 1).any()):
        return grad_src._apply_op(DelayedError(message))
    return grad_src


class _Reduction(Op):
    """What ``scatter_reduce`` and ``index_reduce`` share: inputs ``self``, ``index``,
    ``source``; the saved tensors and arguments of torch's nodes; torch's backward
    (``scatter_reduce_backward`` / ``index_reduce_backward``), written once with the
    op-specific steps (``_spread``: add into zeros; ``_read``: read at the index;
    ``_clear``: zero the places written) as methods."""

    saved_attributes = ("dim", "include_self", "reduce")
    _names = ""  # the choices torch's backward error lists

    def __init__(self, dim: int, reduce: str, include_self: bool) -> None:
        self.dim = dim
        self.reduce = reduce
        self.include_self = include_self

    def backward(self, grad: Any) -> Any:
        index, x, source, result = self.unpack()
        reduce = self.reduce
        if reduce == "sum":
            grad_self, grad_source = grad, self._read(grad, index)
        elif reduce == "prod":
            grad_self, grad_source = self._prod(grad, x, index, source, result)
        elif reduce == "mean":
            count = grad.new_ones(grad.shape) if self.include_self else grad.new_zeros(grad.shape)
            count = self._spread(count, index, source.new_ones(source.shape))
            count = count.masked_fill(count == 0, 1)
            grad_self = grad / count
            grad_source = self._read(grad, index) / self._read(count, index)
        elif reduce in ("amax", "amin"):
            value = self._read(result, index)
            self_is_result = (x == result).to(x.dtype)
            source_is_result = (source == value).to(x.dtype)
            distributed = grad / self._spread(self_is_result, index, source_is_result)
            grad_self = self._mask(x == result, self_is_result) * distributed
            grad_source = self._mask(source == value, source_is_result) * self._read(
                distributed, index
            )
        else:
            raise RuntimeError(f"Expected 'reduce' to be one of {self._names} but got {reduce}.")
        if not self.include_self:
            grad_self = self._clear(grad_self, index)
        needs = self.needs_input_grad
        return (grad_self if needs[0] else None, None, grad_source if needs[2] else None)

    def _prod(self, grad: Any, x: Any, index: Any, source: Any, result: Any) -> Any:
        masked_self = x.masked_fill(x == 0, 1)
        masked_self_result = self._again(masked_self, index, source)
        grad_self = grad * masked_self_result / masked_self
        source_zero = source == 0
        zeros = self._read(
            self._spread(x.new_zeros(x.shape), index, source_zero.to(x.dtype)), index
        )
        single_zero = source_zero & (zeros == 1)
        masked_source_result = self._again(x, index, source.masked_fill(single_zero, 1))
        # NOTE: torch's C++ builds ``where``'s arguments last to first (and a quotient's
        # divisor first): its nodes' order, which a second backward follows.
        divisor = source.masked_fill(source_zero, 1)
        otherwise = self._read(grad * result, index) / divisor
        grad_source = self._read(grad * masked_source_result, index).where(single_zero, otherwise)
        return grad_self, _delayed(grad_source, zeros, self._double_backward_error)


class ScatterReduce(_Reduction):
    """``self`` with ``src[i][j]`` reduced (``sum``, ``prod``, ``mean``, ``amax``,
    ``amin``) into ``[index[i][j]][j]`` (for ``dim=0``); ``include_self``: whether the
    places written start from ``self``'s values."""

    input_names = ("self", "index", "src")
    non_differentiable = ("index",)
    saves = ("index", "self", "src", "result")
    _names = "'sum', 'prod', 'mean', 'amax', 'amin'"
    _double_backward_error = (
        "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
        "scattered to the same position in self"
    )

    def forward(self, a: Any, index: Any, src: Any) -> Any:
        out = a.copy()
        out1, index1, src1 = at_least_1d(out, index, src)
        where = along(index1, wrapped(self.dim, out1.ndim))
        values = leading(src1, index1.shape, -1)
        reduce_at(out1, where, values, _reduce_name(self.reduce), self.include_self)
        return out

    def _spread(self, target: Any, index: Any, values: Any) -> Any:
        return target.scatter_add(self.dim, index, values)

    def _read(self, values: Any, index: Any) -> Any:
        return values.gather(self.dim, index)

    def _clear(self, values: Any, index: Any) -> Any:
        return values.scatter(self.dim, index, 0)

    def _again(self, target: Any, index: Any, values: Any) -> Any:
        return target.scatter_reduce(
            self.dim, index, values, self.reduce, include_self=self.include_self
        )

    @staticmethod
    def _mask(equal: Any, equal_as_values: Any) -> Any:
        return equal


class IndexReduce(_Reduction):
    """``self`` with the slices of ``source`` reduced (``prod``, ``mean``, ``amax``,
    ``amin``) into the positions ``index`` picks along ``dim``."""

    input_names = ("self", "index", "source")
    non_differentiable = ("index",)
    saves = ("index", "self", "source", "result")
    _names = "'prod', 'amax', 'amin' or 'mean'"
    _double_backward_error = (
        "index_reduce(): Double backward is unsupported for source when >1 zeros in source "
        "are scattered to the same position in self"
    )

    def forward(self, a: Any, index: Any, source: Any) -> Any:
        out = a.copy()
        where = (slice(None),) * wrapped(self.dim, a.ndim) + (index.reshape(-1),)
        out1, source1 = at_least_1d(out, source)
        reduce_at(out1, where, source1, self.reduce, self.include_self)
        return out

    def _spread(self, target: Any, index: Any, values: Any) -> Any:
        return target.index_add(self.dim, index, values)

    def _read(self, values: Any, index: Any) -> Any:
        return values.index_select(self.dim, index)

    def _clear(self, values: Any, index: Any) -> Any:
        return values.index_fill(self.dim, index, 0)

    def _again(self, target: Any, index: Any, values: Any) -> Any:
        return target.index_reduce(
            self.dim, index, values, self.reduce, include_self=self.include_self
        )

    @staticmethod
    def _mask(equal: Any, equal_as_values: Any) -> Any:
        return equal_as_values


class IndexCopy(Op):
    """``self`` with the slices of ``source`` written at the positions ``index`` picks
    along ``dim`` (the last one written stays where ``index`` repeats)."""

    input_names = ("self", "index", "source")
    non_differentiable = ("index",)
    saves = ("index", "source")
    saved_for = {"source": ("source",)}
    saved_attributes = ("dim", "source_dim")

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any, index: Any, source: Any) -> Any:
        self.source_dim = source.ndim
        out = a.copy()
        where = (slice(None),) * wrapped(self.dim, a.ndim) + (index.reshape(-1),)
        out1, source1 = at_least_1d(out, source)
        out1[where] = source1
        return out

    def backward(self, grad: Any) -> Any:
        index, source = self.unpack()
        needs = self.needs_input_grad
        grad_self = grad.index_fill(self.dim, index, 0) if needs[0] else None
        grad_source = None
        if needs[2]:
            if self.source_dim > 0:
                grad_source = grad.index_select(self.dim, index).expand_as(source)
            else:
                grad_source = grad.index_select(self.dim, index.squeeze(0))
        return grad_self, None, grad_source
