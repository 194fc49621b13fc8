"""Ops that read a tensor's memory with another tensor's layout: ``slice_inverse`` (a
view of ``self``'s memory laid out as ``src``) and the legacy out-of-place ``resize``.

The in-place view ops (``squeeze_``, ``t_``, ``as_strided_`` ...) need no class of their
own: they record the node of the out-of-place view under torch's in-place name
(``SqueezeBackward3``, ``TBackward1`` ...; see ``hookgrad.tensor.functions.restride``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.as_strided import memory_owner, storage_view
from hookgrad.ops.base import Op
from hookgrad.ops.strides import torch_strides
from hookgrad.ops.table import call


def storage_bytes_needed(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> int:
    """How many elements of storage a layout reaches (0 for an empty tensor), as torch's
    ``computeStorageNbytes`` counts them."""
    if 0 in shape:
        return 0
    return offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides))


def out_of_bounds_message(
    shape: tuple[int, ...], strides: tuple[int, ...], offset: int, itemsize: int, available: int
) -> str:
    """torch's ``setStorage`` error for a layout reaching past its storage (in bytes)."""
    needed = storage_bytes_needed(shape, strides, offset) * itemsize
    return (
        f"setStorage: sizes {list(shape)}, strides {list(strides)}, storage offset {offset}, "
        f"and itemsize {itemsize} requiring a storage size of {needed} are out of bounds for "
        f"storage of size {available}"
    )


class SliceInverse(Op):
    """``slice_inverse(self, src, dim, start, end, step)``: ``self``'s memory viewed with
    ``src``'s sizes, strides and storage offset (the inverse of ``src[start:end:step]``
    along ``dim`` being ``self``). ``self`` gets the gradient of that slice, ``src`` the
    rest (torch's formulas)."""

    view = True
    input_names = ("self", "src")
    saved_attributes = ("dim", "end", "start", "step")

    def __init__(self, dim: int, start: int | None, end: int | None, step: int) -> None:
        self.dim = dim
        self.start = start
        self.end = end
        self.step = step

    def forward(self, a: np.ndarray, src: np.ndarray) -> np.ndarray:
        self.self_shape = a.shape
        root = memory_owner(a)
        src_root = memory_owner(src)
        offset = (
            src.__array_interface__["data"][0] - src_root.__array_interface__["data"][0]
        ) // src.itemsize
        shape, strides = src.shape, torch_strides(src)
        available = root.nbytes
        if storage_bytes_needed(shape, strides, offset) * a.itemsize > available:
            raise RuntimeError(out_of_bounds_message(shape, strides, offset, a.itemsize, available))
        return storage_view(root, a.dtype, shape, strides, offset)

    def backward(self, grad: Any) -> tuple[Any, Any]:
        needs = self.needs_input_grad
        grad_self = grad_src = None
        if needs[0]:
            grad_self = call("slice_symint", grad, self.dim, self.start, self.end, self.step)
        if needs[1]:
            zeros = grad.new_zeros(self.self_shape)
            grad_src = grad.slice_scatter(zeros, self.dim, self.start, self.end, self.step)
        return grad_self, grad_src


class Resize(Op):
    """The legacy ``Tensor.resize(*sizes)``: the elements in C order with another shape
    of the same number of elements (torch's Python ``Resize`` function: memory shared with
    a contiguous input, else a contiguous copy); the gradient is viewed back."""

    node_name = "ResizeBackward"
    input_names = ("self",)

    def __init__(self, sizes: tuple[int, ...]) -> None:
        self.sizes = sizes

    def forward(self, a: np.ndarray) -> np.ndarray:
        self.input_sizes = a.shape
        return np.ascontiguousarray(a).reshape(self.sizes)

    def backward(self, grad: Any) -> Any:
        return grad.contiguous().view(self.input_sizes)


class SetStorage(Op):
    """``set_``: the tensor on other memory. torch gives it no derivative: its node is
    ``NotImplemented``, and a backward through it raises."""

    node_name = "torch::autograd::NotImplemented"
    input_names = ("self", "source")

    def backward(self, *grads: Any) -> Any:
        raise RuntimeError("derivative for set_ is not implemented")
