"""Views and in-place changes: the checks torch makes before an in-place op, and how the
graph is rewritten after one.

A view op makes its output a view of the input's root ``_base`` (``dispatch`` does it):
it shares the base's memory and version counter. After an in-place op:

- on a tensor that is not a view, the tensor's ``grad_fn`` becomes the op's node;
- on a view, the base's ``grad_fn`` becomes a ``CopySlices`` node wrapping the op's node,
  so gradients through the base see the change, and the view's ``grad_fn`` is
  regenerated from the base's (``AsStridedBackward0``);
- any other view of the same base regenerates its ``grad_fn`` the same way the next time
  it is read (its version no longer matches the one its ``grad_fn`` was made at).

A ``ViewGeometry`` says where a view's elements lie in its base, found from their
memory addresses, so every view op (and a chain of them) is handled alike. Under
``create_graph=True`` the backwards of ``CopySlices`` and ``AsStridedBackward0`` take
torch's steps (a copy into a tensor laid out as the base, ``as_strided`` views of it), so
that the graph they record has torch's nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.graph import anomaly, history
from hookgrad.graph.history import CreationMeta
from hookgrad.graph.saved import _forward_name
from hookgrad.ops.indexing import Key
from hookgrad.ops.inplace import OVERLAP_ERROR, AsStrided, CopySlices, has_internal_overlap
from hookgrad.ops.shape import ContiguousCopy
from hookgrad.ops.strides import as_view, torch_strides
from hookgrad.tensor import dispatch
from hookgrad.tensor.functions.joining import stack
from hookgrad.tensor.tensor import Tensor

INFERENCE_INPLACE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
_FORBIDDEN = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the {} block (if "
    "you don't want the inplace to be tracked) or both outside (if you want the inplace to "
    "be tracked)."
)
_MULTI_OUTPUT = (
    " This view is the output of a function that returns multiple views. Such functions do "
    "not allow the output views to be modified inplace. You should replace the inplace "
    "operation by an out-of-place one."
)

_state = grad_mode._state


# ---------------------------------------------------------------- checks


def check_inplace(tensor: Any, requires_grad: bool) -> None:
    """torch's checks before an in-place op on ``tensor``; ``requires_grad``: whether the
    op's inputs need gradients (then the graph will be rewritten)."""
    if tensor._is_inference and not _state.inference:
        raise RuntimeError(INFERENCE_INPLACE_MESSAGE)
    if not (requires_grad and _state.grad_enabled):
        return
    base = tensor._base
    if base is not None:
        if tensor._creation_meta != CreationMeta.DEFAULT:
            raise RuntimeError(view_error(tensor, tensor._grad_fn, False))
        if tensor.requires_grad and base.grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF_INPLACE_MESSAGE)
    # NOTE: the stored grad_fn, as torch's C++ ``is_leaf``: a view made before its base
    # came to require grad (through another view's in-place op) has none until read.
    if tensor.requires_grad and tensor._grad_fn is None:
        raise RuntimeError(LEAF_INPLACE_MESSAGE)


def view_error(view: Any, node: Any, indirect: bool) -> str:
    """torch's message for a view that may not be modified in place (``indirect``: its
    base or another view was); ``node`` is the view's ``grad_fn`` as stored."""
    meta = view._creation_meta
    modified = "its base or another view of its base has been" if indirect else "is being"
    if node is not None:
        head = (
            f"Output {view._output_nr} of {_forward_name(node.name())} is a view and "
            f"{modified} modified inplace."
        )
    elif meta == CreationMeta.INFERENCE_MODE:
        head = (
            f"A view was created in inference mode and {modified} modified inplace in normal mode."
        )
    else:
        head = (
            f"A view was created in no_grad mode and {modified} modified inplace with grad "
            "mode enabled."
        )
    if meta == CreationMeta.MULTI_OUTPUT_NODE:
        return head + _MULTI_OUTPUT
    if meta == CreationMeta.INFERENCE_MODE:
        return head + _FORBIDDEN.format("inference_mode")
    return head + _FORBIDDEN.format("no_grad")


# ---------------------------------------------------------------- rewriting the graph


def rebase_inplace(tensor: Any, node: Any, output_nr: int = 0) -> None:
    """Make ``node`` (an in-place op's node) the new history of ``tensor``.

    For a view, ``node`` is wrapped in a ``CopySlices`` that becomes the base's
    ``grad_fn``, and the view's own ``grad_fn`` is regenerated from it.
    """
    base = tensor._base
    if base is None:
        history.rebase_history(tensor, node, output_nr)
        return
    edge, meta = (None, 0), None
    if base.requires_grad:
        edge, meta = base._gradient_edge(), (base._data.shape, base._data.dtype)
    copy_slices = CopySlices(ViewGeometry(base._data, tensor._data), edge, meta, node)
    if anomaly.state.enabled:
        anomaly.record_creation(copy_slices)
    history.rebase_history(base, copy_slices, 0)
    # NOTE: regenerated now, as torch does, even when reading an operand's grad_fn (the
    # view itself: ``v.copy_(v)``) already did so on the base's old history.
    refresh_grad_fn(tensor, tensor._grad_fn)


def refresh_grad_fn(view: Any, node: Any) -> Any:
    """The ``grad_fn`` of ``view`` once its memory changed in place since ``node`` (its
    stored ``grad_fn``) was made: a new ``AsStridedBackward0`` on the base's history."""
    base = view._base
    if node is None and not base.requires_grad:
        return None
    if view._creation_meta != CreationMeta.DEFAULT:
        raise RuntimeError(view_error(view, node, True))
    op = AsStrided(ViewGeometry(base._data, view._data))
    dispatch.record(op, (base,), Tensor._make(view._data))
    history.refresh_view(view, op)
    return op


# ---------------------------------------------------------------- where a view lies


class ViewGeometry:
    """Where the elements of a view lie in its base's memory.

    Both are read as arrays of real scalars (a complex number is two: real, imaginary),
    so ``real``, ``imag`` and ``view_as_real`` views are handled like any other. For each
    real scalar of the view (C order) the geometry keeps the index of the same memory
    among the base's real scalars (C order). Three maps follow, written with
    differentiable ops as torch's ``as_strided`` gradients are: ``take`` (base-shaped to
    view-shaped), ``put`` (view-shaped to base-shaped: zeros elsewhere, overlaps summed)
    and ``replace`` (a base-shaped tensor with the view's part replaced).
    """

    def __init__(self, base: np.ndarray, view: np.ndarray) -> None:
        self.base_complex = base.dtype.kind == "c"
        self.view_complex = view.dtype.kind == "c"
        self.base_shape = base.shape + ((2,) if self.base_complex else ())
        self.view_shape = view.shape + ((2,) if self.view_complex else ())
        self._key = Key((Ellipsis,), (_positions(base, view),), "IndexBackward0")
        self.overlapping = has_internal_overlap(view)
        # The layouts of both (strides and the view's offset in elements), for
        # ``copy_slices``; a view of another dtype (``real``) takes the other path there.
        self.same_dtype = base.dtype == view.dtype
        item = base.itemsize
        self._base_layout = (base.shape, torch_strides(base))
        start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        self._view_layout = (view.shape, torch_strides(view), start // item)

    def take(self, grad: Any) -> Any:
        """The view's part of a base-shaped ``grad``."""
        picked = _as_scalars(grad).reshape(-1)._index_key(self._key)
        return _from_scalars(picked.reshape(self.view_shape), self.view_complex)

    def put(self, values: Any) -> Any:
        """A base-shaped tensor of zeros with view-shaped ``values`` added in place."""
        if _state.grad_enabled and self.same_dtype and not self._maybe_overlapping():
            return self._as_strided_backward(values)
        flat = _as_scalars(values).reshape(-1)
        size = int(np.prod(self.base_shape))
        out = flat.new_zeros(size)._index_put_key(self._key, flat, True)
        return _from_scalars(out.reshape(self.base_shape), self.base_complex)

    def replace(self, grad: Any, values: Any) -> Any:
        """Base-shaped ``grad`` with the view's part replaced by view-shaped ``values``."""
        flat = _as_scalars(grad).reshape(-1)
        new = _as_scalars(values).reshape(-1)
        if new.dtype is not flat.dtype:
            new = new.to(flat.dtype)
        out = flat._index_put_key(self._key, new, False)
        return _from_scalars(out.reshape(self.base_shape), self.base_complex)

    def part_of(self, a: np.ndarray, squeezed: bool = False) -> np.ndarray:
        """The view's part of ``a``, an array laid out as the base: a view of its memory
        (``squeezed``: without the view's size-1 dims)."""
        shape, strides, start = self._view_layout
        if squeezed:
            kept = [(n, s) for n, s in zip(shape, strides) if n != 1]
            shape, strides = tuple(n for n, _ in kept), tuple(s for _, s in kept)
        return as_view(_memory_from(a, start), shape, strides)

    def _maybe_overlapping(self) -> bool:
        """torch's ``_maybe_overlapping_memory`` test of the view's dims of size > 1 (it
        then scatters with index_add_ instead: that case takes the array path here)."""
        shape, strides, _ = self._view_layout
        reach = 0
        for stride, size in sorted((s, n) for s, n in zip(strides, shape) if n > 1):
            if stride <= reach:
                return True
            reach += stride * (size - 1)
        return False

    def _as_strided_backward(self, values: Any) -> Any:
        """``put`` as torch's ``as_strided_backward`` records it (``create_graph=True``):
        ``values`` without their size-1 dims (a ``squeeze`` each) copied into the view's
        part of zeros laid out as the base (a ``CopySlices``), returned as an
        ``as_strided`` view of the whole; zeros for an empty view."""
        shape = self._view_layout[0]
        if 0 in shape:
            return values.new_zeros(self.base_shape)
        for dim in range(len(shape) - 1, -1, -1):
            if shape[dim] == 1:
                values = values.squeeze(dim)
        storage = Tensor._make(self._like_base(values._data.dtype, np.zeros))
        dispatch.apply(AsStrided(self, squeezed=True), storage).copy_(values)
        whole = ViewGeometry(storage._data, storage._data)
        return dispatch.apply(AsStrided(whole), storage)

    def _like_base(self, dtype: np.dtype, allocate: Any = np.empty) -> np.ndarray:
        """A new array of ``dtype`` laid out as the base."""
        shape, strides = self._base_layout
        size = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
        return as_view(allocate(size, dtype), shape, strides)

    def copy_slices(self, grad: Any, fn: Any, base_needed: bool) -> tuple[Any, ...]:
        """torch's ``CopySlices`` backward as tensor ops, to record its graph under
        ``create_graph=True``: ``grad`` is copied into a new tensor laid out as the base;
        ``fn`` runs on a contiguous clone (``CloneBackward0``) of the view's part of it (an
        ``as_strided`` view), and its first result is copied back into that part."""
        result = Tensor._make(self._like_base(grad._data.dtype))
        result.copy_(grad)
        part = dispatch.apply(AsStrided(self), result)
        grads = fn._apply([dispatch.apply(ContiguousCopy(), part)])
        if type(grads) is not tuple:
            grads = (grads,)
        if not base_needed:
            return (None, *grads[1:])
        if self.overlapping:
            # NOTE: torch copies into the view's part, whose elements share memory: an
            # in-place copy_ it refuses.
            raise RuntimeError(OVERLAP_ERROR)
        part.copy_(self.view_zeros(grad) if grads[0] is None else grads[0])
        return (result, *grads[1:])

    def view_zeros(self, like: Any) -> Any:
        """Zeros of the view's shape, in the real or complex dtype of ``like``'s kind."""
        zeros = _as_scalars(like).new_zeros(self.view_shape)
        return _from_scalars(zeros, self.view_complex)


def _memory_from(a: np.ndarray, start: int) -> np.ndarray:
    """The memory of ``a`` from its element ``start`` on (in memory order), as a vector
    reaching as far as ``a``'s elements do."""
    count = 1 + sum((n - 1) * s for n, s in zip(a.shape, torch_strides(a))) if a.size else 0
    return as_view(a, (count,), (1,))[start:]


def _as_scalars(t: Any) -> Any:
    """A complex tensor as its real scalars (a trailing dim: real, imaginary)."""
    if t._data.dtype.kind != "c":
        return t
    return stack((t.real, t.imag), -1)


def _from_scalars(t: Any, complex_: bool) -> Any:
    """Undo ``_as_scalars`` when ``complex_``."""
    return t.select(-1, 0) + t.select(-1, 1) * 1j if complex_ else t


def _scalar_addresses(array: np.ndarray) -> np.ndarray:
    """The memory address of each real scalar of ``array``, flat in C order."""
    shape, strides = array.shape, array.strides
    if array.dtype.kind == "c":
        shape += (2,)
        strides += (array.itemsize // 2,)
    addresses = np.asarray(array.__array_interface__["data"][0], np.int64)
    for size, stride in zip(shape, strides):
        addresses = addresses[..., None] + np.arange(size, dtype=np.int64) * stride
    return addresses.reshape(-1)


def _positions(base: np.ndarray, view: np.ndarray) -> np.ndarray:
    """For each real scalar of ``view``, the index of the same memory among ``base``'s."""
    parts = 2 if base.dtype.kind == "c" else 1
    scalar = base.itemsize // parts
    wanted = _scalar_addresses(view)
    if base.flags.c_contiguous:
        offsets = wanted - base.__array_interface__["data"][0]
        positions = offsets // scalar
        found = (offsets % scalar == 0) & (positions >= 0) & (positions < base.size * parts)
    else:
        have = _scalar_addresses(base)
        order = np.argsort(have, kind="stable")
        index = np.searchsorted(have[order], wanted).clip(max=max(len(have) - 1, 0))
        positions = order[index] if len(have) else index
        found = have[positions] == wanted if len(have) else positions < 0
    if not found.all():
        raise RuntimeError("a view no longer lies in the memory of its base (was .data set?)")
    return positions
