"""Diagonal and triangular ops: ``diagonal`` (a view), ``diagonal_copy``,
``diagonal_scatter``, ``diag_embed``, ``tril`` and ``triu``.

As the shape ops (``hookgrad.ops.shape``), their nodes show torch's ``_saved_*``
attributes and their backwards are torch's formulas: a gradient goes back into zeros with
``diagonal_scatter``, so double backward records torch's graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.dims import wrapped
from hookgrad.ops.strides import torch_layout
from hookgrad.ops.table import call, entry, node_function


def _diagonal_view(a: Any, offset: int, dim1: int, dim2: int) -> Any:
    """A (writable) view of a diagonal of ``a``: the other dims, then the diagonal.

    Its stride is the sum of the two dims'; it starts at the diagonal's first element
    (at ``a``'s first element when the diagonal is empty, as torch). The dims may be
    given negative.
    """
    dim1, dim2 = wrapped(dim1, a.ndim), wrapped(dim2, a.ndim)
    row, col = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(a.shape[dim1] - row, a.shape[dim2] - col))
    corner = a
    if length:
        index = [slice(None)] * a.ndim
        index[dim1] = slice(row, None)
        index[dim2] = slice(col, None)
        corner = a[tuple(index)]
    keep = [d for d in range(a.ndim) if d not in (dim1, dim2)]
    shape = tuple(a.shape[d] for d in keep) + (length,)
    strides = tuple(a.strides[d] for d in keep) + (a.strides[dim1] + a.strides[dim2],)
    return np.lib.stride_tricks.as_strided(corner, shape, strides)


class Diagonal(Op):
    """The diagonal ``offset`` of the matrices over ``dim1``, ``dim2`` (a view)."""

    view = True
    input_names = ("self",)

    saved_attributes = ("dim1", "dim2", "offset", "self_sym_sizes")

    def __init__(self, offset: int, dim1: int, dim2: int) -> None:
        self.offset = offset
        self.dim1 = dim1
        self.dim2 = dim2

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        return _diagonal_view(torch_layout(a), self.offset, self.dim1, self.dim2)

    def backward(self, grad: Any) -> Any:
        sizes = self.self_sym_sizes
        return call("diagonal_backward", grad, sizes, self.offset, self.dim1, self.dim2)


class DiagonalCopy(Diagonal):
    """``diag`` of a matrix: like ``diagonal`` but a copy (torch's node name)."""

    view = False
    node_name = "DiagonalBackward0_copy"

    def forward(self, a: Any) -> Any:
        return super().forward(a).copy()


def _diagonal_into_zeros(
    grad_output: Any, input_sizes: tuple[int, ...], offset: int, dim1: int, dim2: int
) -> Any:
    out = np.zeros(input_sizes, grad_output.dtype)
    _diagonal_view(out, offset, dim1, dim2)[...] = grad_output
    return out


# diagonal's backward: an entry, so that a second backward records torch's
# DiagonalBackwardBackward0, whose own backward is the diagonal again.
node_function("diagonal", Diagonal)
DiagonalBackward = entry(
    "diagonal_backward(Tensor grad_output, SymInt[] input_sizes, int offset, int dim1, "
    "int dim2) -> Tensor",
    _diagonal_into_zeros,
    grad_output="grad.diagonal(offset, dim1, dim2)",
)


class DiagonalScatter(Op):
    """A copy of ``self`` with ``src`` written into a diagonal."""

    input_names = ("self", "src")
    saved_attributes = ("dim1", "dim2", "offset")

    def __init__(self, offset: int, dim1: int, dim2: int) -> None:
        self.offset = offset
        self.dim1 = dim1
        self.dim2 = dim2

    def forward(self, a: Any, src: Any) -> Any:
        self.src_shape = src.shape
        out = a.copy()
        _diagonal_view(out, self.offset, self.dim1, self.dim2)[...] = src
        return out

    def backward(self, grad: Any) -> Any:
        offset, dim1, dim2 = self.offset, self.dim1, self.dim2
        grad_self = grad_src = None
        if self.needs_input_grad[0]:
            zeros = grad.new_zeros(self.src_shape)
            grad_self = grad.diagonal_scatter(zeros, offset, dim1, dim2)
        if self.needs_input_grad[1]:
            grad_src = grad.diagonal(offset, dim1, dim2)
        return grad_self, grad_src


class DiagEmbed(Op):
    """Matrices (over new dims ``dim1``, ``dim2``) with the last dim as diagonal ``offset``."""

    input_names = ("self",)
    saved_attributes = ("dim1", "dim2", "offset")

    def __init__(self, offset: int, dim1: int, dim2: int) -> None:
        self.offset = offset
        self.dim1 = dim1
        self.dim2 = dim2

    def forward(self, a: Any) -> Any:
        size = a.shape[-1] + abs(self.offset)
        shape = list(a.shape[:-1])
        ndim = a.ndim + 1
        for dim in sorted((wrapped(self.dim1, ndim), wrapped(self.dim2, ndim))):
            shape.insert(dim, size)
        out = np.zeros(shape, a.dtype)
        _diagonal_view(out, self.offset, self.dim1, self.dim2)[...] = a
        return out

    def backward(self, grad: Any) -> Any:
        return grad.diagonal(self.offset, self.dim1, self.dim2)


class Tril(Op):
    """The lower triangle (at and below diagonal ``diagonal``) of the last two dims."""

    input_names = ("self",)
    saved_attributes = ("diagonal",)

    def __init__(self, diagonal: int) -> None:
        self.diagonal = diagonal

    def forward(self, a: Any) -> Any:
        return np.tril(a, self.diagonal)

    def backward(self, grad: Any) -> Any:
        return grad.tril(self.diagonal)


class Triu(Op):
    """The upper triangle (at and above diagonal ``diagonal``) of the last two dims."""

    input_names = ("self",)
    saved_attributes = ("diagonal",)

    def __init__(self, diagonal: int) -> None:
        self.diagonal = diagonal

    def forward(self, a: Any) -> Any:
        return np.triu(a, self.diagonal)

    def backward(self, grad: Any) -> Any:
        return grad.triu(self.diagonal)
