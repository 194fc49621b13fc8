"""Padding ops: ``F.pad``'s constant mode (negative pads crop) and its reflect,
replicate and circular modes, which gather along each padded dim (their backward adds
the gradient back to the positions each output element came from)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op


class ConstantPad(Op):
    """Pad with ``value`` (``pad`` as in torch: last dim first; negative pads crop)."""

    node_name = "ConstantPadNdBackward0"
    input_names = ("self",)

    def __init__(self, pad: tuple[int, ...], value: Any) -> None:
        self.pad = pad
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
        for dim, (before, after) in enumerate(self._widths(grad.ndim)):
            if before or after:
                grad = _unpad(grad, dim, before, after)
        return grad


def _unpad(grad: Any, dim: int, before: int, after: int) -> Any:
    """Undo a constant pad of ``dim``: drop what was added, put zeros where it cropped."""
    size = grad.shape[dim]
    start = max(before, 0)
    grad = grad.narrow(dim, start, size - start - max(after, 0))
    if before < 0 or after < 0:
        shape = list(grad.shape)
        shape[dim] += max(-before, 0) + max(-after, 0)
        start = max(-before, 0)
        grad = grad.new_zeros(shape).slice_scatter(grad, dim, start, start + grad.shape[dim])
    return grad


def _pad_index(mode: str, size: int, before: int, after: int) -> np.ndarray:
    """For each output position of a padded dim, the input position it copies."""
    if mode == "circular":
        # torch crops first, then wraps around what is left.
        start = max(-before, 0)
        kept = size - start - max(-after, 0)
        out = np.arange(kept + max(before, 0) + max(after, 0))
        return start + (out - max(before, 0)) % max(kept, 1)
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


def _take_backward(grad: Any, dim: int, index: np.ndarray, size: int) -> Any:
    """The gradient of ``take(x, index, dim)``: each run of ``index`` adds its slice of
    ``grad`` (flipped for a descending run, summed for a constant one) into zeros."""
    shape = list(grad.shape)
    shape[dim] = size
    total = None
    for start, length, first, step in _runs(index):
        piece = grad.narrow(dim, start, length)
        low = first
        if step == -1:
            piece = piece.flip(dim)
            low = first - length + 1
        elif step == 0:
            piece = piece.sum(dim, keepdim=True)
        part = grad.new_zeros(shape).slice_scatter(piece, dim, low, low + piece.shape[dim])
        total = part if total is None else total + part
    return grad.new_zeros(shape) if total is None else total


class IndexPad(Op):
    """``reflect``, ``replicate`` or ``circular`` padding: every output element copies
    one input element, so the gradient sums the copies back."""

    input_names = ("self",)

    def __init__(self, mode: str, padding: tuple[int, ...]) -> None:
        self.mode = mode
        self.padding = padding
        dims = len(padding) // 2
        if mode == "circular":
            self.node_name = "CopySlices"  # torch pads circularly with in-place copies
        else:
            kind = "Reflection" if mode == "reflect" else "Replication"
            self.node_name = f"{kind}Pad{dims}DBackward0"

    def forward(self, a: Any) -> Any:
        self.steps = []
        for k in range(len(self.padding) // 2):
            before, after = self.padding[2 * k], self.padding[2 * k + 1]
            if before == 0 and after == 0:
                continue
            dim = a.ndim - 1 - k
            index = _pad_index(self.mode, a.shape[dim], before, after)
            self.steps.append((dim, index, a.shape[dim]))
            a = np.take(a, index, axis=dim)
        return a if self.steps else a.copy()

    def backward(self, grad: Any) -> Any:
        for dim, index, size in reversed(self.steps):
            grad = _take_backward(grad, dim, index, size)
        return grad
