"""Shape and view ops: reshape, expand, transpose, permute, squeeze, cat, stack, split,
narrow, select, slice ... The ops that copy (flip, roll, repeat, rot90, the ``*_copy``
ops, block_diag, complex from parts) and ``unfold`` are in ``shape_copies.py``, padding in
``padding.py``, the dim helpers in ``dims.py``.

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

Example: ``x.transpose(0, 1)`` runs ``Transpose`` (node ``TransposeBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.dims import index_along, wrapped

# NOTE: ``hookgrad.func.batching`` reads these nodes as
# ``hookgrad.ops.shape.<Node>``; they live in ``shape_copies.py``.
from hookgrad.ops.shape_copies import Complex as Complex
from hookgrad.ops.shape_copies import ConjPhysical as ConjPhysical
from hookgrad.ops.shape_copies import Flip as Flip
from hookgrad.ops.shape_copies import NarrowCopy as NarrowCopy
from hookgrad.ops.shape_copies import Polar as Polar
from hookgrad.ops.shape_copies import Repeat as Repeat
from hookgrad.ops.shape_copies import Roll as Roll
from hookgrad.ops.shape_copies import Unfold as Unfold
from hookgrad.ops.strides import as_view, compute_stride, reshaped, torch_layout, torch_strides
from hookgrad.ops.table import call, entry, node_function


def _fill_missing(grads: tuple[Any, ...], shapes: list[tuple[int, ...]]) -> list[Any]:
    """The gradients of a multi-output op, with zeros for outputs that got none."""
    known = next(g for g in grads if g is not None)
    return [known.new_zeros(shape) if g is None else g for g, shape in zip(grads, shapes)]


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
        pieces = tuple(a[index_along(dim, i)] for i in range(a.shape[dim]))
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
        return torch_layout(a)[index_along(wrapped(self.dim, a.ndim), key)]

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
        return torch_layout(a)[index_along(wrapped(self.dim, a.ndim), self.index)]

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
    out[index_along(wrapped(dim, len(input_sizes)), key)] = grad_output
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
        out[index_along(wrapped(self.dim, a.ndim), slice(self.start, self.end, self.step))] = src
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
        out[index_along(wrapped(self.dim, a.ndim), self.index)] = src
        return out

    def backward(self, grad: Any) -> Any:
        grad_self = grad_src = None
        if self.needs_input_grad[0]:
            zeros = grad.new_zeros(self.src_shape)
            grad_self = grad.select_scatter(zeros, self.dim, self.index)
        if self.needs_input_grad[1]:
            grad_src = grad.select(self.dim, self.index)
        return grad_self, grad_src


class UnsafeSplit(Split):
    """``unsafe_split`` / ``unsafe_chunk``: ``split`` whose pieces autograd does not track
    as views (they still share memory with the input)."""

    view = False
    node_name = "UnsafeSplitBackward0"


class UnsafeSplitWithSizes(SplitWithSizes):
    """``unsafe_split_with_sizes``: ``split_with_sizes`` not tracked as views."""

    view = False
    node_name = "UnsafeSplitWithSizesBackward0"
