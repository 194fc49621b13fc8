"""The ``*_copy`` functions: torch's out-of-place forms of its view ops (``view_copy``,
``permute_copy``, ``select_copy``, ``narrow_copy`` ...), each the view's result as a new
tensor with its own memory, recorded under the view's node (as torch's ``_copy`` ops are).

Example: ``hookgrad.t_copy(x)`` equals ``x.t()`` but shares no memory with ``x``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from hookgrad.grad_mode import is_grad_enabled
from hookgrad.ops import conversion as conversion_ops
from hookgrad.ops import diagonal as diagonal_ops
from hookgrad.ops import shape as ops
from hookgrad.ops import shape_copies as copy_ops
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.arguments import (
    infer_shape,
    varargs,
)
from hookgrad.tensor.functions.conversion import view_as_complex, view_as_real
from hookgrad.tensor.functions.joining import (
    diagonal,
    run_split,
    run_split_with_sizes,
    select,
    unbind,
)
from hookgrad.tensor.functions.shape import (
    expand,
    permute,
    squeeze_op,
    t,
    transpose,
    unfold,
    unsqueeze,
)

__all__ = [
    "alias_copy",
    "detach_copy",
    "diagonal_copy",
    "expand_copy",
    "permute_copy",
    "select_copy",
    "slice_copy",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsqueeze_copy",
    "view_as_complex_copy",
    "view_as_real_copy",
    "view_copy",
]


def _copied(op: Any, input: Any) -> Any:
    """The view op ``op`` run as a ``*_copy`` op: new contiguous tensors, recorded as
    torch's ``<view node>_copy`` (the caller has made torch's checks)."""
    return apply(copy_ops.ViewCopy(op), input)


def view_copy(input: Any, size: Sequence[int]) -> Any:
    """``view`` as a new tensor (any layout; torch's ``ViewBackward0_copy``)."""
    target = infer_shape(varargs((size,), "view_copy", "size"), input._data.size)
    return _copied(ops.Reshape(target), input)


def permute_copy(input: Any, dims: Sequence[int]) -> Any:
    """``permute`` as a new contiguous tensor."""
    permute(input.detach(), dims)
    return _copied(ops.Permute(tuple(dims) if input._data.ndim else ()), input)


def expand_copy(input: Any, size: Sequence[int], *, implicit: bool = False) -> Any:
    """``expand`` as a new tensor (every element in its own memory)."""
    target = expand(input.detach(), size)._data.shape
    return _copied(ops.Expand(target), input)


def t_copy(input: Any) -> Any:
    """``t`` as a new contiguous tensor."""
    t(input.detach())
    return _copied(ops.MatrixT(), input)


def transpose_copy(input: Any, dim0: int, dim1: int) -> Any:
    """``transpose`` as a new contiguous tensor."""
    transpose(input.detach(), dim0, dim1)
    return _copied(ops.Transpose(operator.index(dim0), operator.index(dim1)), input)


def squeeze_copy(input: Any, dim: Any = None) -> Any:
    """``squeeze`` as a new tensor."""
    return _copied(squeeze_op(input._data.ndim, dim), input)


def unsqueeze_copy(input: Any, dim: int) -> Any:
    """``unsqueeze`` as a new tensor."""
    unsqueeze(input.detach(), dim)
    return _copied(ops.Unsqueeze(operator.index(dim)), input)


def select_copy(input: Any, dim: int, index: int) -> Any:
    """``select`` as a new tensor."""
    select(input.detach(), dim, index)
    return _copied(ops.Select(operator.index(dim), operator.index(index)), input)


def slice_copy(
    input: Any, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Any:
    """``input`` sliced ``start:end:step`` along ``dim``, as a new tensor (the bounds as
    Python's slices take them: None, negative or past the end)."""
    if input._data.ndim == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    dim = operator.index(dim)
    wrap_dim(dim, input._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _copied(ops.Slice(dim, start, end, step), input)


def split_copy(tensor: Any, split_size: int, dim: int = 0) -> tuple[Any, ...]:
    """``split`` into pieces of ``split_size``, as new tensors."""
    return run_split(tensor, split_size, dim, lambda *args: copy_ops.ViewCopy(ops.Split(*args)))


def split_with_sizes_copy(input: Any, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """``split_with_sizes`` as new tensors."""
    copy = lambda *args: copy_ops.ViewCopy(ops.SplitWithSizes(*args))  # noqa: E731
    return run_split_with_sizes(input, split_sizes, dim, copy)


def unbind_copy(input: Any, dim: int = 0) -> tuple[Any, ...]:
    """``unbind`` as new tensors."""
    unbind(input.detach(), dim)
    return _copied(ops.Unbind(operator.index(dim)), input)


def unfold_copy(input: Any, dimension: int, size: int, step: int) -> Any:
    """``Tensor.unfold`` as a new tensor (windows in their own memory)."""
    unfold(input.detach(), dimension, size, step)
    return _copied(copy_ops.Unfold(operator.index(dimension), size, step), input)


def alias_copy(input: Any) -> Any:
    """A copy of ``input`` recorded as torch's ``AliasBackward0_copy``."""
    return _copied(ops.Alias(), input)


def diagonal_copy(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """``diagonal`` as a new tensor."""
    diagonal(input.detach(), offset, dim1, dim2)
    return apply(
        diagonal_ops.DiagonalCopy(offset, operator.index(dim1), operator.index(dim2)), input
    )


def view_as_real_copy(input: Any) -> Any:
    """``view_as_real`` as a new tensor."""
    view_as_real(input.detach())
    return _copied(conversion_ops.ViewAsReal(), input)


def view_as_complex_copy(input: Any) -> Any:
    """``view_as_complex`` as a new tensor (not differentiable, as in torch)."""
    view_as_complex(input.detach())
    if input.requires_grad and is_grad_enabled():
        raise RuntimeError(
            "view_as_complex_copy does not support automatic differentiation for outputs with "
            "complex dtype."
        )
    return _copied(conversion_ops.ViewAsComplex(), input)


def detach_copy(input: Any) -> Any:
    """A copy of ``input`` without its history. As torch's, a copy of a tensor that
    requires grad does too, through a node whose backward fails (torch's
    ``NotImplemented``: "derivative for aten::detach_copy is not implemented")."""
    return apply(copy_ops.NotImplementedCopy("aten::detach_copy"), input)
