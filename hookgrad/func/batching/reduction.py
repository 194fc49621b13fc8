"""Batching rules of ops with dims: reductions, scans, softmaxes, and the backward ops
that put a gradient back into a tensor of given sizes.

The batch is dim 0 of every unwrapped array, so a logical dim ``d`` is dim ``d + 1``
(negative dims wrapped against the logical number of dims first); "every dim" becomes
every dim but the batch. A 0-dim example gets a size-1 dim to work along, removed again.
Inputs that must have the same shape (a softmax's gradient and output) are broadcast
along the batch when one is not batched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hookgrad.func.batching.core import (
    aligned,
    all_batched,
    batch_size,
    forward,
    logical_dim,
    register_entries,
    with_params,
)
from hookgrad.ops import table


def _shifted_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """Logical ``dim`` (None or empty: every dim; an int or a sequence) past the batch."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return tuple(range(1, ndim + 1))
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(logical_dim(d, ndim) + 1 for d in dim)


def _over_dims(param: str = "dim") -> Callable[..., Any]:
    """The rule of a reduction whose dims are the argument ``param``."""

    def rule(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
        value = values[0]
        ndim = arrays[0].ndim
        if ndim == 0:
            example = with_params(op, **{param: (1,)})
            if "keepdim" in op.params:
                example.keepdim = False
            return forward(example, [value.reshape(value.shape[0], 1)]), True
        return forward(
            with_params(op, **{param: _shifted_dims(getattr(op, param), ndim)}), [value]
        ), True

    return rule


register_entries(
    """sum.dim_IntList mean.dim var.correction std.correction amax amin nansum logsumexp
    linalg_vector_norm norm.ScalarOpt_dim""",
    _over_dims(),
)
register_entries("_fft_r2c _fft_c2r", _over_dims())


def _over_everything(name: str, **params: Any) -> Callable[..., Any]:
    """The rule of a reduction of every element: entry ``name``'s kernel over every dim
    of each example (``sum`` as ``sum.dim_IntList`` ...)."""

    def rule(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
        value = values[0]
        ndim = arrays[0].ndim
        if ndim == 0:
            value, ndim = value.reshape(value.shape[0], 1), 1
        arguments = {p: getattr(op, p) for p in op.params}
        arguments.update(params)
        arguments["dim"] = tuple(range(1, ndim + 1))
        return forward(table.ENTRIES[name](**arguments), [value]), True

    return rule


register_entries("sum", _over_everything("sum.dim_IntList", keepdim=False))
register_entries("mean", _over_everything("mean.dim", keepdim=False))
register_entries("max", _over_everything("amax", keepdim=False))
register_entries("min", _over_everything("amin", keepdim=False))
register_entries("norm.Scalar", _over_everything("norm.ScalarOpt_dim", keepdim=False))


def along_dim(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """An op along one ``dim`` (a scan, a softmax and its backward, ``glu``, a cross
    product): its operands aligned and all batched, the dim shifted."""
    ndim = max(a.ndim for a in arrays if hasattr(a, "ndim"))
    values = all_batched(aligned(values, flags, arrays), flags, batch_size(values, flags))
    if ndim == 0:
        values = [v.reshape(v.shape[0], 1) if hasattr(v, "shape") else v for v in values]
        result = forward(with_params(op, dim=1), values)
        return result.reshape(result.shape[0]), True
    return forward(with_params(op, dim=logical_dim(op.dim, ndim) + 1), values), True


register_entries(
    """cumsum logcumsumexp _softmax _log_softmax _softmax_backward_data
    _log_softmax_backward_data glu glu_backward linalg_cross""",
    along_dim,
)


def _rot90(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    ndim = arrays[0].ndim
    return forward(with_params(op, dims=_shifted_dims(op.dims, ndim)), values), True


register_entries("rot90", _rot90)


def into_sizes(*dim_params: str) -> Callable[..., Any]:
    """The rule of a backward op that puts a gradient into a tensor of ``input_sizes``
    along the dims named ``dim_params`` (``select_backward`` ...)."""

    def rule(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
        sizes = tuple(op.input_sizes)
        value = values[0]
        params: dict[str, Any] = {"input_sizes": (value.shape[0],) + sizes}
        for name in dim_params:
            params[name] = logical_dim(getattr(op, name), len(sizes)) + 1
        return forward(with_params(op, **params), [value]), True

    return rule


register_entries("select_backward slice_backward unfold_backward", into_sizes("dim"))
register_entries("diagonal_backward", into_sizes("dim1", "dim2"))
