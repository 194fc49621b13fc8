"""Padding ops: ``F.pad``'s constant mode (negative pads crop) and its reflect and
replicate modes, which gather along each padded dim (their backward adds the gradient
back to the positions each output element came from); its circular mode is torch's
composite of copies into slices (``pad_circular``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class ConstantPad(Op):
    """Pad with ``value`` (``pad`` as in torch: last dim first; negative pads crop).

    Its backward is the same op with the pads negated (torch's
    ``constant_pad_nd_backward``), so a ``create_graph=True`` gradient records
    ``ConstantPadNdBackward0`` again.
    """

    node_name = "ConstantPadNdBackward0"
    input_names = ("self",)
    saved_attributes = ("pad",)

    def __init__(self, pad: Sequence[int], value: Any) -> None:
        self.pad = tuple(pad)
        self.value = value

    def _widths(self, ndim: int) -> list[tuple[int, int]]:
        """``(before, after)`` for every dim, first dim first."""
        widths = [(0, 0)] * ndim
        for k in range(len(self.pad) // 2):
            widths[ndim - 1 - k] = (self.pad[2 * k], self.pad[2 * k + 1])
        return widths

    def forward(self, a: Any) -> Any:
        widths = self._widths(a.ndim)
        shape = tuple(size + before + after for size, (before, after) in zip(a.shape, widths))
        kept = tuple(
            slice(max(-before, 0), size - max(-after, 0))
            for size, (before, after) in zip(a.shape, widths)
        )
        inner = tuple(
            slice(max(before, 0), size - max(after, 0))
            for size, (before, after) in zip(shape, widths)
        )
        out = np.full(shape, self.value, a.dtype)
        out[inner] = a[kept]
        return out

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(ConstantPad([-p for p in self.pad], 0))


def _pad_index(mode: str, size: int, before: int, after: int) -> np.ndarray:
    """For each output position of a padded dim, the input position it copies."""
    position = np.arange(size + before + after) - before
    if mode == "reflect":
        return np.where(position < 0, -position, np.minimum(position, 2 * (size - 1) - position))
    return np.clip(position, 0, size - 1)


def _runs(index: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Split an index map into runs ``(start, length, first, step)``, step in -1, 0, 1."""
    runs = []
    start = 0
    while start < len(index):
        step = int(index[start + 1] - index[start]) if start + 1 < len(index) else 1
        if step not in (-1, 0, 1):
            step = 1
        end = start + 1
        while end < len(index) and index[end] - index[end - 1] == step:
            end += 1
        runs.append((start, end - start, int(index[start]), step))
        start = end
    return runs


def _take_backward(grad: np.ndarray, axis: int, index: np.ndarray, size: int) -> np.ndarray:
    """The gradient of ``np.take(x, index, axis)``: each run of ``index`` adds its slice of
    ``grad`` (flipped for a descending run, summed for a constant one) into zeros."""
    shape = list(grad.shape)
    shape[axis] = size
    out = np.zeros(shape, grad.dtype)
    lead = (slice(None),) * axis
    for start, length, first, step in _runs(index):
        piece = grad[lead + (slice(start, start + length),)]
        low = first
        if step == -1:
            piece = np.flip(piece, axis)
            low = first - length + 1
        elif step == 0:
            piece = piece.sum(axis, keepdims=True)
        out[lead + (slice(low, low + piece.shape[axis]),)] += piece
    return out


def _pad_name(mode: str, padding: Sequence[int]) -> str:
    """torch's forward name of a non-constant pad: ``reflection_pad2d`` ..."""
    kind = "Reflection" if mode == "reflect" else "Replication"
    return f"{kind}Pad{len(padding) // 2}D"


class IndexPad(Op):
    """``reflect`` or ``replicate`` padding: every output element copies one input
    element, so the gradient sums the copies back (``IndexPadBackward``)."""

    input_names = ("self",)
    saves = ("self",)
    saved_attributes = ("padding",)

    def __init__(self, mode: str, padding: Sequence[int]) -> None:
        self.mode = mode
        self.padding = tuple(padding)
        self.node_name = f"{_pad_name(mode, padding)}Backward0"

    def forward(self, a: Any) -> Any:
        for axis, index, _ in _steps(self.mode, self.padding, a.shape):
            a = np.take(a, index, axis=axis)
        return a.copy() if not any(self.padding) else a

    def backward(self, grad: Any) -> Any:
        (x,) = self.unpack()
        return grad._apply_op(IndexPadBackward(self.mode, self.padding), x)


class IndexPadBackward(Op):
    """torch's ``reflection_pad2d_backward`` ... : ``grad_output`` summed back onto
    ``self``'s shape. Its own gradient pads again; ``self`` gets zeros."""

    input_names = ("grad_output", "self")
    saved_attributes = ("padding",)

    def __init__(self, mode: str, padding: tuple[int, ...]) -> None:
        self.mode = mode
        self.padding = padding
        self.node_name = f"{_pad_name(mode, padding)}BackwardBackward0"

    def forward(self, grad: Any, a: Any) -> Any:
        self.self_shape = a.shape
        for axis, index, size in reversed(_steps(self.mode, self.padding, a.shape)):
            grad = _take_backward(grad, axis, index, size)
        return grad

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_grad = grad._apply_op(IndexPad(self.mode, self.padding)) if needs[0] else None
        return grad_grad, grad.new_zeros(self.self_shape) if needs[1] else None


def _steps(
    mode: str, padding: Sequence[int], shape: Sequence[int]
) -> list[tuple[int, np.ndarray, int]]:
    """``(axis, index, size)`` for each padded dim, last dim first: the output of that
    step is ``np.take(previous, index, axis)`` (``size``: the dim's size before)."""
    steps = []
    sizes = list(shape)
    for k in range(len(padding) // 2):
        before, after = padding[2 * k], padding[2 * k + 1]
        if before == 0 and after == 0:
            continue
        axis = len(shape) - 1 - k
        index = _pad_index(mode, sizes[axis], before, after)
        steps.append((axis, index, sizes[axis]))
        sizes[axis] = len(index)
    return steps


def pad_circular(x: Any, padding: Sequence[int]) -> Any:
    """``F.pad(x, padding, "circular")`` as torch's ``_pad_circular`` does it, on tensors:
    copies into slices of a new tensor (so the graph is torch's ``CopySlices`` chain).
    The kept part of ``x`` first (negative pads crop), then each padded dim's left and
    right wrap-around, copied from the padded tensor itself."""
    in_shape = tuple(x.shape)
    padded = len(padding) // 2
    kept = len(in_shape) - padded
    out_shape = list(in_shape)
    for k in range(padded):
        before, after = padding[2 * (padded - k - 1)], padding[2 * (padded - k - 1) + 1]
        out_shape[kept + k] += before + after
    out = x.new_empty(out_shape)
    target, source = out, x
    for k in range(padded):
        dim = len(in_shape) - 1 - k
        before, after = padding[2 * k], padding[2 * k + 1]
        length = out_shape[dim] - max(before, 0) - max(after, 0)
        target = target.narrow(dim, max(before, 0), length)
        source = source.narrow(dim, max(-before, 0), length)
    target.copy_(source)
    for k in range(padded):
        dim = len(in_shape) - 1 - k
        before, after = padding[2 * k], padding[2 * k + 1]
        size = out_shape[dim]
        if before > 0:
            out.narrow(dim, 0, before).copy_(out.narrow(dim, size - before - max(after, 0), before))
        if after > 0:
            out.narrow(dim, size - after, after).copy_(out.narrow(dim, max(before, 0), after))
    return out
