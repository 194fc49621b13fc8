"""Shape and view ops: reshape, transpose, squeeze, cat, split, narrow, flip ...
(padding is in ``hookgrad.ops.padding``).

Where torch returns a view, the forward returns a NumPy view of its input, so the two
tensors share memory as torch's do. Dims and indices reach these classes as the caller
gave them (``-1`` ...; the tensor layer has checked them), because torch's nodes save
them so (``_saved_dim``); a forward wraps them where it needs a position (``wrapped``).
Each node shows torch's ``_saved_*`` attributes (``saved_attributes``), and its backward
is torch's formula, so a ``create_graph=True`` gradient records torch's graph.

NumPy strides are bytes, torch's are elements, and the two libraries choose different
strides for size-1 dims (and NumPy gives an empty array all-zero strides), which torch's
``view`` rules and ``stride()`` can see. So every view op here builds its output with the
strides torch's op gives (``torch_strides``, ``compute_stride``, ``as_view``): a NumPy
array's strides divided by its itemsize are then torch's ``stride()``.

A backward only uses methods of the gradient tensor. Putting a gradient back into a
larger tensor of zeros is ``new_zeros(...).slice_scatter(...)`` (or ``select_scatter`` /
``diagonal_scatter``), as torch's own formulas do, so double backward comes for free.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.strides import as_view, compute_stride, reshaped, torch_layout, torch_strides
from hookgrad.ops.table import call, entry, node_function


def _fill_missing(grads: tuple[Any, ...], shapes: list[tuple[int, ...]]) -> list[Any]:
    """The gradients of a multi-output op, with zeros for outputs that got none."""
    known = next(g for g in grads if g is not None)
    return [known.new_zeros(shape) if g is None else g for g, shape in zip(grads, shapes)]


def _index(dim: int, key: Any) -> tuple[Any, ...]:
    """An index tuple applying ``key`` (an int or a slice) to ``dim`` (non-negative) only.

    The trailing ``...`` makes NumPy return a 0-d view, not a scalar, for a 1-d array.
    """
    return (slice(None),) * dim + (key, Ellipsis)


def wrapped(dim: int, ndim: int) -> int:
    """A dim as given (``-1``: the last one; already checked) as a non-negative index
    into ``ndim`` dims; a 0-dim tensor's dims are ``0`` and ``-1``, as in torch."""
    return dim % ndim if ndim else 0


_INT64_MAX = 2**63 - 1

VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one "
    "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
)


# ---------------------------------------------------------------- reshape / expand


class Reshape(Op):
    """``view`` / ``reshape`` (when a view is possible): the same memory in a new shape,
    with the strides torch's ``computeStride`` gives; raises torch's error when no view
    of that shape exists (``reshape`` copies first then, see ``UnsafeView``)."""

    view = True
    node_name = "ViewBackward0"
    input_names = ("self",)
    saved_attributes = ("self_sym_sizes",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        shape = self.shape
        if a.size and 1 not in a.shape and 1 not in shape:
            # NOTE: without size-1 dims, a view's strides are fixed by where its elements
            # lie, so NumPy's view, when it finds one, has torch's strides (the fast path).
            try:
                return a.reshape(shape, copy=False)
            except ValueError:
                raise RuntimeError(VIEW_ERROR) from None
        strides = compute_stride(a.shape, torch_strides(a), shape)
        if strides is None:
            raise RuntimeError(VIEW_ERROR)
        return reshaped(a, shape, strides)

    def backward(self, grad: Any) -> Any:
        return grad.reshape(self.self_sym_sizes)


class ReshapeAlias(Reshape):
    """``reshape`` of a non-contiguous tensor that can still be a view (torch's
    ``_reshape_alias``)."""

    node_name = "ReshapeAliasBackward0"


class UnsafeView(Reshape):
    """The second half of a ``reshape`` that must copy: torch's ``_unsafe_view`` of the
    contiguous copy (not a view: nothing else sees the copy)."""

    view = False
    node_name = "UnsafeViewBackward0"


class ContiguousCopy(Op):
    """``contiguous()`` of a tensor laid out otherwise: a copy with ``strides`` (torch
    names its node ``CloneBackward0``); the gradient passes through unchanged."""

    node_name = "CloneBackward0"
    input_names = ("self",)

    def __init__(self, strides: tuple[int, ...] | None = None) -> None:
        self.strides = strides

    def forward(self, a: Any) -> Any:
        if self.strides is None:
            return np.array(a, order="C")
        shape = a.shape
        size = 1 + sum((n - 1) * s for n, s in zip(shape, self.strides)) if a.size else 0
        out = as_view(np.empty(size, a.dtype), shape, self.strides)
        np.copyto(out, a)
        return out

    def backward(self, grad: Any) -> Any:
        return grad


def expand_strides(
    shape: tuple[int, ...], strides: tuple[int, ...], target: tuple[int, ...]
) -> tuple[int, ...]:
    """torch's ``inferExpandGeometry``: an expanded dim gets stride 0; a new leading dim of
    size 1 gets the stride a contiguous dim there would have. Example: shape (3, 1),
    strides (1, 1) expanded to (1, 3, 4) -> (3, 1, 0)."""
    if not shape:
        return (0,) * len(target)
    out = [0] * len(target)
    lead = len(target) - len(shape)
    for i in range(len(target) - 1, -1, -1):
        if i >= lead:
            size, stride = shape[i - lead], strides[i - lead]
        else:
            size, stride = 1, target[i + 1] * out[i + 1]
        out[i] = stride if size == target[i] else 0
    return tuple(out)


class Expand(Op):
    """Broadcast to a larger shape without copying; the gradient is summed back.

    Elements may share memory (a stride 0); writing them in place raises torch's error
    except for the ops that give every element the same value (see ``Op.fills``).
    """

    view = True
    input_names = ("self",)
    saved_attributes = ("self_sym_sizes",)

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        strides = expand_strides(a.shape, torch_strides(a), self.shape)
        return reshaped(a, self.shape, strides)

    def backward(self, grad: Any) -> Any:
        return grad.sum_to_size(self.self_sym_sizes)


# ---------------------------------------------------------------- dim order


class Transpose(Op):
    """Swap two dims (a view); ``dim0``, ``dim1`` as given (saved so, as torch's)."""

    view = True
    input_names = ("self",)
    saved_attributes = ("dim0", "dim1")

    def __init__(self, dim0: int, dim1: int) -> None:
        self.dim0 = dim0
        self.dim1 = dim1

    def forward(self, a: Any) -> Any:
        return np.swapaxes(torch_layout(a), self.dim0, self.dim1) if a.ndim else a.view()

    def backward(self, grad: Any) -> Any:
        return grad.transpose(self.dim0, self.dim1)


class MatrixT(Op):
    """``t()``: transpose a matrix; a vector or a scalar is returned as is (a view)."""

    view = True
    node_name = "TBackward0"
    input_names = ("self",)

    def forward(self, a: Any) -> Any:
        return torch_layout(a).T if a.ndim == 2 else a.view()

    def backward(self, grad: Any) -> Any:
        return grad.t()


class Permute(Op):
    """Reorder the dims (a view); the gradient goes through the inverse permutation
    (torch's ``permute_backwards``)."""

    view = True
    input_names = ("self",)
    saved_attributes = ("dims",)

    def __init__(self, dims: tuple[int, ...]) -> None:
        self.dims = dims

    def forward(self, a: Any) -> Any:
        return np.transpose(torch_layout(a), self.dims)

    def backward(self, grad: Any) -> Any:
        ndim = len(self.dims)
        inverse = [0] * ndim
        for index, dim in enumerate(self.dims):
            inverse[wrapped(dim, ndim)] = index
        return grad.permute(tuple(inverse))


# ---------------------------------------------------------------- squeeze / unsqueeze


class Squeeze(Op):
    """Remove the size-1 dims among ``dims`` (non-negative; a view): ``squeeze()`` with no
    dim. The subclasses take a ``dim`` as given too, which torch saves."""

    view = True
    input_names = ("self",)
    saved_attributes: tuple[str, ...] = ("self_sym_sizes",)

    def __init__(self, dims: tuple[int, ...], dim: Any = None) -> None:
        self.dims = dims
        self.dim = dim

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        kept = [d for d, s in enumerate(a.shape) if not (d in self.dims and s == 1)]
        strides = torch_strides(a)
        shape = tuple(a.shape[d] for d in kept)
        return reshaped(a, shape, tuple(strides[d] for d in kept))

    def backward(self, grad: Any) -> Any:
        # torch's ``unsqueeze_to``: one unsqueeze per removed dim; none, the grad itself.
        for dim, size in enumerate(self.self_sym_sizes):
            if size == 1 and dim in self.dims:
                grad = grad.unsqueeze(dim)
        return grad


class SqueezeDim(Squeeze):
    """``squeeze(dim)`` with one dim."""

    node_name = "SqueezeBackward1"
    saved_attributes = ("dim", "self_sym_sizes")


class SqueezeDims(Squeeze):
    """``squeeze(dims)`` with a tuple of dims."""

    node_name = "SqueezeBackward2"
    saved_attributes = ("dim", "self_sym_sizes")


class SqueezeDimInplace(SqueezeDim):
    """``squeeze_(dim)`` of a fresh result no one else holds (``matmul``'s last step for
    a vector times a matrix): torch's in-place node, whose output is not a view."""

    view = False
    node_name = "SqueezeBackward4"

    def __init__(self, dims: tuple[int, ...], dim: Any = None) -> None:
        super().__init__(dims, dims[0] if dim is None else dim)


class Unsqueeze(Op):
    """Insert a size-1 dim at ``dim`` (as given: ``-1`` is the new last dim; a view)."""

    view = True
    input_names = ("self",)
    saved_attributes = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any) -> Any:
        dim = wrapped(self.dim, a.ndim + 1)
        shape, strides = list(a.shape), list(torch_strides(a))
        # NOTE: torch's stride for the new dim: that of a contiguous dim there.
        strides.insert(dim, 1 if dim >= a.ndim else shape[dim] * strides[dim])
        shape.insert(dim, 1)
        return reshaped(a, tuple(shape), tuple(strides))

    def backward(self, grad: Any) -> Any:
        return grad.squeeze(self.dim)


# ---------------------------------------------------------------- joining and splitting


class Cat(Op):
    """Concatenate along ``dim``; each input's gradient is its slice of ``grad``.

    ``skip`` marks legacy empty inputs (shape ``(0,)``) that torch leaves out. As torch's
    node, it computes the gradients of all inputs, those that do not require grad too.
    """

    input_names = ("tensors",)
    _list_input = True
    saved_attributes = ("dim",)

    def __init__(self, dim: int, skip: tuple[bool, ...]) -> None:
        self.dim = dim
        self.skip = skip

    def forward(self, *arrays: Any) -> Any:
        kept = [a for a, skip in zip(arrays, self.skip) if not skip]
        self.wrapped_dim = dim = wrapped(self.dim, kept[0].ndim)
        self.sizes = [0 if skip else a.shape[dim] for a, skip in zip(arrays, self.skip)]
        return np.concatenate(kept, axis=dim)

    def backward(self, grad: Any) -> Any:
        grads: list[Any] = []
        start = 0
        for size, skip in zip(self.sizes, self.skip):
            if skip:
                grads.append(grad.new_zeros((0,)))
            else:
                grads.append(grad.narrow(self.wrapped_dim, start, size))
            start += size
        return tuple(grads)


class Stack(Op):
    """Stack same-shaped tensors along a new dim; each input's gradient is its ``select``
    of the gradient (for every input, as in ``Cat``), as torch's ``stack_tensors_backward``."""

    input_names = ("tensors",)
    _list_input = True
    saved_attributes = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, *arrays: Any) -> Any:
        return np.stack(arrays, axis=self.dim)

    def backward(self, grad: Any) -> Any:
        return tuple(grad.select(self.dim, i) for i in range(grad.shape[self.dim]))


class Split(Op):
    """Split ``dim`` into pieces of ``split_size`` (the last may be smaller); views.
    The gradients (zeros for the pieces that got none) are joined again (``cat``)."""

    view = True
    input_names = ("self",)
    saved_attributes: tuple[str, ...] = ("dim", "self_sym_sizes", "split_size")

    def __init__(self, dim: int, sizes: tuple[int, ...], split_size: int) -> None:
        self.dim = dim
        self.sizes = sizes
        self.split_size = split_size

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        bounds = np.cumsum(self.sizes)[:-1]
        pieces = tuple(np.split(torch_layout(a), bounds, axis=self.dim))
        self.output_shapes = [p.shape for p in pieces]
        return pieces

    def backward(self, *grad_outputs: Any) -> Any:
        grads = _fill_missing(grad_outputs, self.output_shapes)
        return grads[0]._cat(grads, wrapped(self.dim, len(self.self_sym_sizes)))


class SplitWithSizes(Split):
    """Split ``dim`` into pieces of the given sizes (views)."""

    saved_attributes = ("dim", "self_sym_sizes", "split_sizes")

    def __init__(self, dim: int, sizes: tuple[int, ...]) -> None:
        self.dim = dim
        self.sizes = self.split_sizes = sizes


class Unbind(Op):
    """All slices along ``dim``, each without that dim (views)."""

    view = True
    input_names = ("self",)
    saved_attributes = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any) -> Any:
        a = torch_layout(a)
        dim = wrapped(self.dim, a.ndim)
        pieces = tuple(a[_index(dim, i)] for i in range(a.shape[dim]))
        shape = a.shape[:dim] + a.shape[dim + 1 :]
        self.output_shapes = [shape] * len(pieces)
        return pieces

    def backward(self, *grad_outputs: Any) -> Any:
        grads = _fill_missing(grad_outputs, self.output_shapes)
        return grads[0]._stack(grads, self.dim)


# ---------------------------------------------------------------- slices of one dim


class Slice(Op):
    """``start:end:step`` along ``dim`` (a view): ``narrow``, ``tensor_split``; the
    arguments as given (a negative ``dim`` or ``start``, ``end`` None ...), as torch
    saves them."""

    view = True
    node_name = "SliceBackward0"
    input_names = ("self",)

    saved_attributes = ("dim", "end", "self_sym_sizes", "start", "step")

    def __init__(self, dim: int, start: int, end: int, step: int = 1) -> None:
        self.dim = dim
        self.start = start
        self.end = end
        self.step = step

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        key = slice(self.start, self.end, self.step)
        return torch_layout(a)[_index(wrapped(self.dim, a.ndim), key)]

    def backward(self, grad: Any) -> Any:
        # torch's ``slice_backward_wrapper``: no start is 0, no end the largest int64.
        start = 0 if self.start is None else self.start
        end = _INT64_MAX if self.end is None else self.end
        sizes = self.self_sym_sizes
        return call("slice_backward", grad, sizes, self.dim, start, end, self.step)


class Select(Op):
    """Index ``index`` of ``dim``, which disappears (a view); both as given."""

    view = True
    input_names = ("self",)

    saved_attributes = ("dim", "index", "self_sym_sizes")

    def __init__(self, dim: int, index: int) -> None:
        self.dim = dim
        self.index = index

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        return torch_layout(a)[_index(wrapped(self.dim, a.ndim), self.index)]

    def backward(self, grad: Any) -> Any:
        return call("select_backward", grad, self.self_sym_sizes, self.dim, self.index)


class Alias(Op):
    """The whole tensor as a new view of it: ``x[...]``, ``x[:, :]``."""

    view = True
    input_names = ("self",)

    def forward(self, a: Any) -> Any:
        return a.view()

    def backward(self, grad: Any) -> Any:
        return grad


# The backwards of select and slice: entries, so that a second backward records torch's
# SelectBackwardBackward0 / SliceBackwardBackward0, whose own backward is the view again.
node_function("select", Select)
node_function("slice_symint", Slice)


def _into_zeros(grad_output: Any, input_sizes: tuple[int, ...], dim: int, key: Any) -> Any:
    """Zeros of ``input_sizes`` with ``grad_output`` written at ``key`` of ``dim``."""
    out = np.zeros(input_sizes, grad_output.dtype)
    out[_index(wrapped(dim, len(input_sizes)), key)] = grad_output
    return out


SelectBackward = entry(
    "select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor",
    lambda grad_output, sizes, dim, index: _into_zeros(grad_output, sizes, dim, index),
    grad_output="grad.select(dim, index)",
)
SliceBackward = entry(
    "slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, "
    "SymInt end, SymInt step) -> Tensor",
    lambda grad_output, sizes, dim, start, end, step: _into_zeros(
        grad_output, sizes, dim, slice(start, end, step)
    ),
    grad_output="slice_symint(grad, dim, start, end, step)",
)


class SliceScatter(Op):
    """A copy of ``self`` with ``src`` written into ``start:end:step`` of ``dim`` (the
    arguments as given: ``start``/``end`` may be None or negative, as torch saves them)."""

    input_names = ("self", "src")
    saved_attributes = ("dim", "end", "start", "step")

    def __init__(self, dim: int, start: int | None, end: int | None, step: int) -> None:
        self.dim = dim
        self.start = start
        self.end = end
        self.step = step

    def forward(self, a: Any, src: Any) -> Any:
        self.src_shape = src.shape
        out = a.copy()
        out[_index(wrapped(self.dim, a.ndim), slice(self.start, self.end, self.step))] = src
        return out

    def backward(self, grad: Any) -> Any:
        dim, start, end, step = self.dim, self.start, self.end, self.step
        grad_self = grad_src = None
        if self.needs_input_grad[0]:
            zeros = grad.new_zeros(self.src_shape)
            grad_self = grad.slice_scatter(zeros, dim, start, end, step)
        if self.needs_input_grad[1]:
            grad_src = call("slice_symint", grad, dim, start, end, step)
        return grad_self, grad_src


class SelectScatter(Op):
    """A copy of ``self`` with ``src`` written into index ``index`` of ``dim`` (as given)."""

    input_names = ("self", "src")
    saved_attributes = ("dim", "index")

    def __init__(self, dim: int, index: int) -> None:
        self.dim = dim
        self.index = index

    def forward(self, a: Any, src: Any) -> Any:
        self.src_shape = src.shape
        out = a.copy()
        out[_index(wrapped(self.dim, a.ndim), self.index)] = src
        return out

    def backward(self, grad: Any) -> Any:
        grad_self = grad_src = None
        if self.needs_input_grad[0]:
            zeros = grad.new_zeros(self.src_shape)
            grad_self = grad.select_scatter(zeros, self.dim, self.index)
        if self.needs_input_grad[1]:
            grad_src = grad.select(self.dim, self.index)
        return grad_self, grad_src


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


class UnsafeSplit(Split):
    """``unsafe_split`` / ``unsafe_chunk``: ``split`` whose pieces autograd does not track
    as views (they still share memory with the input)."""

    view = False
    node_name = "UnsafeSplitBackward0"


class UnsafeSplitWithSizes(SplitWithSizes):
    """``unsafe_split_with_sizes``: ``split_with_sizes`` not tracked as views."""

    view = False
    node_name = "UnsafeSplitWithSizesBackward0"


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
        return np.array(a[_index(dim, slice(self.first, self.first + self.length))], order="C")

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
        out[_index(dim, slice(start, start + size))] += windows[_index(dim, window)]
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
