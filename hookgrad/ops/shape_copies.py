"""The shape ops that make new tensors rather than views of their input, with torch's
node names and backward formulas: ``flip``, ``roll``, ``repeat``, ``rot90``,
``narrow_copy`` and the other ``*_copy`` ops (``ViewCopy``), ``block_diag``, complex
tensors from parts (``complex``, ``polar``) and ``conj_physical``; and ``unfold`` (a view
of sliding windows) with its backward ``unfold_backward``.

Example: ``hookgrad.arange(3.0).flip(0)`` runs ``Flip`` (node ``FlipBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.dims import index_along, wrapped
from hookgrad.ops.strides import reshaped, torch_strides
from hookgrad.ops.table import call, entry, node_function

# ---------------------------------------------------------------- reordering copies


class Flip(Op):
    """Reverse the order along ``dims`` (a copy, as torch)."""

    input_names = ("self",)
    saved_attributes = ("dims",)

    def __init__(self, dims: tuple[int, ...]) -> None:
        self.dims = dims

    def forward(self, a: Any) -> Any:
        return np.flip(a, self.dims).copy() if a.ndim else a.copy()

    def backward(self, grad: Any) -> Any:
        return grad.flip(self.dims)


class Roll(Op):
    """Shift elements cyclically along ``dims``; no dims: along the flattened tensor."""

    input_names = ("self",)
    saved_attributes = ("dims", "shifts")

    def __init__(self, shifts: tuple[int, ...], dims: tuple[int, ...]) -> None:
        self.shifts = shifts
        self.dims = dims

    def forward(self, a: Any) -> Any:
        if not self.dims:
            return np.roll(a, self.shifts[0])
        return np.roll(a, self.shifts, self.dims)

    def backward(self, grad: Any) -> Any:
        # torch's formula: the opposite shifts, both lists reversed.
        return grad.roll(tuple(-shift for shift in reversed(self.shifts)), self.dims[::-1])


class Repeat(Op):
    """Tile the tensor ``repeats[i]`` times along each dim (leading 1s added)."""

    input_names = ("self",)
    saved_attributes = ("repeats", "self_sym_sizes")

    def __init__(self, repeats: tuple[int, ...]) -> None:
        self.repeats = repeats

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        return np.tile(a, self.repeats)

    def backward(self, grad: Any) -> Any:
        # torch's repeat_backward: the leading dims repeat added are summed away; each
        # other dim repeated r > 1 times splits into (r, size), and the r dims are summed.
        sizes = self.self_sym_sizes
        if 0 in self.repeats:
            return grad.new_zeros(sizes)
        added = len(self.repeats) - len(sizes)
        for _ in range(added):
            grad = grad.sum(0)
        split: list[int] = []
        summed: list[int] = []
        for repeat, size in zip(self.repeats[added:], sizes):
            if repeat != 1:
                split.append(repeat)
                summed.append(len(split) - 1)
            split.append(size)
        if summed:
            grad = grad.reshape(split).sum(tuple(summed))
        return grad


class NarrowCopy(Op):
    """``narrow_copy``: ``length`` elements of ``dim`` from ``start``, as a new tensor;
    the gradient goes back into zeros (torch's ``slice_backward``). ``start`` is saved as
    given; a negative one counts from the end (where torch's backward fails)."""

    input_names = ("self",)
    saved_attributes = ("dim", "length", "self_sym_sizes", "start")

    def __init__(self, dim: int, start: int, length: int) -> None:
        self.dim = dim
        self.start = start
        self.length = length

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        dim = wrapped(self.dim, a.ndim)
        self.first = self.start + a.shape[dim] if self.start < 0 else self.start
        return np.array(a[index_along(dim, slice(self.first, self.first + self.length))], order="C")

    def backward(self, grad: Any) -> Any:
        end = self.first + self.length
        sizes = self.self_sym_sizes
        return call("slice_backward", grad, sizes, self.dim, self.first, end, 1)


class ViewCopy(Op):
    """A ``*_copy`` op (``transpose_copy`` ...): what the view op ``op`` gives, as new
    contiguous tensors; its node is the view's, named with ``_copy`` as torch names it,
    with the view's saved attributes and backward."""

    def __init__(self, op: Op) -> None:
        self.op = op
        self.node_name = f"{op.node_name}_copy"
        self.input_names = op.input_names
        self.saved_attributes = op.saved_attributes

    def forward(self, a: Any) -> Any:
        # NOTE: from a contiguous copy, so that ``view_copy`` takes any layout, as torch's.
        out = self.op.forward(np.ascontiguousarray(a))
        if type(out) is tuple:
            return tuple(np.array(piece, order="C") for piece in out)
        return np.array(out, order="C")

    def backward(self, *grad_outputs: Any) -> Any:
        return self.op.backward(*grad_outputs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_saved_") and name[7:] in self.saved_attributes:
            return getattr(self.op, name[7:])
        return super().__getattr__(name)


# ---------------------------------------------------------------- rotations and windows


def _rot90(a: np.ndarray, k: int, dims: Any) -> np.ndarray:
    """torch's ``rot90``: a flip then a transposed view (k = 1, 3), a flip (k = 2), a
    contiguous copy (k = 0); ``k`` counts quarter turns from ``dims[0]`` to ``dims[1]``."""
    first, second = (wrapped(d, a.ndim) for d in dims)
    k %= 4
    if k == 1:
        return np.swapaxes(np.flip(a, second).copy(), first, second)
    if k == 2:
        return np.flip(a, (first, second)).copy()
    if k == 3:
        return np.swapaxes(np.flip(a, first).copy(), first, second)
    return np.array(a, order="C")


Rot90 = entry(
    "rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor",
    _rot90,
    self="grad.rot90(-k, dims)",
)


class Unfold(Op):
    """``unfold(dimension, size, step)``: every window of ``size`` elements of
    ``dimension``, ``step`` apart, as a new last dim (a view: windows overlap when
    ``step < size``)."""

    view = True
    input_names = ("self",)
    saved_attributes = ("dimension", "self_sym_sizes", "size", "step")

    def __init__(self, dimension: int, size: int, step: int) -> None:
        self.dimension = dimension
        self.size = size
        self.step = step

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        if not a.ndim:
            return reshaped(a, (self.size,), (1,))
        dim = wrapped(self.dimension, a.ndim)
        strides = torch_strides(a)
        count = (a.shape[dim] - self.size) // self.step + 1
        shape = a.shape[:dim] + (count,) + a.shape[dim + 1 :] + (self.size,)
        new = strides[:dim] + (strides[dim] * self.step,) + strides[dim + 1 :] + (strides[dim],)
        return reshaped(a, shape, new)

    def backward(self, grad: Any) -> Any:
        sizes = self.self_sym_sizes
        return call("unfold_backward", grad, sizes, self.dimension, self.size, self.step)


def _unfold_backward(grad_in: Any, input_sizes: Any, dim: int, size: int, step: int) -> Any:
    """Each window's gradient added back into zeros of ``input_sizes``."""
    out = np.zeros(input_sizes, grad_in.dtype)
    if not out.ndim:
        out[...] = grad_in.sum()
        return out
    dim = wrapped(dim, out.ndim)
    windows = np.moveaxis(grad_in, -1, dim + 1)
    for window in range(windows.shape[dim]):
        start = window * step
        out[index_along(dim, slice(start, start + size))] += windows[index_along(dim, window)]
    return out


node_function("unfold", Unfold)
UnfoldBackward = entry(
    "unfold_backward(Tensor grad_in, SymInt[] input_sizes, int dim, int size, int step) -> Tensor",
    _unfold_backward,
    grad_in="grad.unfold(dim, size, step)",
)


# ---------------------------------------------------------------- block_diag


class BlockDiag(Op):
    """``block_diag``: the inputs (0-, 1- or 2-dim; a vector is one row) as the blocks
    along the diagonal of a matrix, zeros elsewhere. The gradient of each is its block
    (torch's ``block_diag_backward``: two slices, squeezed for a scalar or a vector)."""

    input_names = ("tensors",)
    _list_input = True

    def forward(self, *arrays: Any) -> Any:
        self.shapes = [a.shape for a in arrays]
        blocks = [a.reshape(_block_shape(a.shape)) for a in arrays]
        rows = sum(b.shape[0] for b in blocks)
        columns = sum(b.shape[1] for b in blocks)
        out = np.zeros((rows, columns), arrays[0].dtype if arrays else np.float32)
        row = column = 0
        for block in blocks:
            out[row : row + block.shape[0], column : column + block.shape[1]] = block
            row += block.shape[0]
            column += block.shape[1]
        return out

    def backward(self, grad: Any) -> Any:
        grads: list[Any] = []
        row = column = 0
        for shape in self.shapes:
            if shape == (0,):
                grads.append(grad.new_zeros((0,)))
                continue
            height, width = _block_shape(shape)
            block = grad.narrow(0, row, height).narrow(1, column, width)
            if len(shape) == 1:
                block = block.squeeze(-1)
            elif not shape:
                block = block.squeeze(-1).squeeze(-1)
            grads.append(block)
            row += height
            column += width
        return tuple(grads)


def _block_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    """The (rows, columns) a ``block_diag`` input takes: a scalar 1 x 1, a vector one row."""
    if len(shape) == 2:
        return shape[0], shape[1]
    return (1, shape[0]) if shape else (1, 1)


class NotImplementedCopy(Op):
    """A copy whose derivative torch does not implement (``detach_copy`` of a tensor that
    requires grad): torch's ``NotImplemented`` node, whose backward fails."""

    node_name = "torch::autograd::NotImplemented"
    input_names = ("self",)

    def __init__(self, op_name: str) -> None:
        self.op_name = op_name

    def forward(self, a: Any) -> Any:
        return np.array(a, order="C")

    def backward(self, grad: Any) -> Any:
        raise RuntimeError(f"derivative for {self.op_name} is not implemented")


# ---------------------------------------------------------------- complex tensors from parts


def _from_parts(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    """The complex array ``real + i imag`` (broadcast), without ``inf * i`` making NaNs."""
    shape = np.broadcast_shapes(real.shape, imag.shape)
    out = np.empty(shape, np.result_type(real.dtype, np.complex64))
    out.real = real
    out.imag = imag
    return out


class Complex(Op):
    """``complex(real, imag)``: each input gets its part of the gradient (torch saves
    both inputs, as its node shows)."""

    input_names = ("real", "imag")
    saves = ("imag", "real")

    def forward(self, real: Any, imag: Any) -> Any:
        return _from_parts(real, imag)

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        return (grad.real if needs[0] else None, grad.imag if needs[1] else None)


class Polar(Op):
    """``polar(abs, angle)``: ``abs * (cos(angle) + i sin(angle))``; its backward is
    torch's ``polar_backward`` on the saved result."""

    input_names = ("abs", "angle")
    saves = ("result",)

    def forward(self, magnitude: Any, angle: Any) -> Any:
        return _from_parts(magnitude * np.cos(angle), magnitude * np.sin(angle))

    def backward(self, grad: Any) -> Any:
        (result,) = self.unpack()
        needs = self.needs_input_grad
        grad_conj = grad.conj()
        grad_abs = (grad_conj * result.sgn()).real if needs[0] else None
        grad_angle = None
        if needs[1]:
            grad_angle = (grad_conj * call("_mul", result, 1j)).real
        return grad_abs, grad_angle


class ConjPhysical(Op):
    """``conj_physical``: the complex conjugate as a new tensor; the gradient is
    conjugated too."""

    input_names = ("self",)

    def forward(self, a: Any) -> Any:
        return np.conjugate(a)

    def backward(self, grad: Any) -> Any:
        return grad.conj_physical()


class ConjPhysicalInplace(ConjPhysical):
    """``conj_physical_``: torch names its in-place node ``ConjPhysicalBackward1``."""

    node_name = "ConjPhysicalBackward1"
