"""Indexing ops: ``[]``, index_put, gather/scatter, index_select/index_add, masks, take.

The tensor layer parses a Python index once into a ``Key``; the ops here only apply it.
Every backward is built from these same ops (a gradient is put into zeros with
``IndexPut``, read back with ``Index`` / ``gather`` / ``index_select``), so gradients of
gradients come for free.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.graph.saved import FREED_MESSAGE
from hookgrad.ops.base import Op
from hookgrad.ops.strides import as_view, torch_strides


class Key:
    """A parsed index, applied in two steps as torch applies it.

    ``basic``: ints, slices and None (ending in ``...``), which NumPy applies as a view.
    ``advanced``: None, or a tuple of full slices and int arrays applied to that view
    (NumPy's placement rule for the advanced dims is torch's).
    ``node_name``: the name of the node torch records for this index.
    """

    __slots__ = ("basic", "advanced", "node_name")

    def __init__(self, basic: tuple, advanced: tuple | None, node_name: str) -> None:
        self.basic = basic
        self.advanced = advanced
        self.node_name = node_name

    def get(self, a: np.ndarray) -> np.ndarray:
        """``a`` indexed by the key: a view (with torch's strides) when there is no
        advanced part."""
        if self.advanced is None:
            return basic_view(a, self.basic)
        return a[self.basic][self.advanced]

    def put(self, a: np.ndarray, values: Any, accumulate: bool) -> np.ndarray:
        """A copy of ``a`` with ``values`` written (or added) where the key points."""
        out = a.copy()
        self.put_into(out, values, accumulate)
        return out

    def put_into(self, a: np.ndarray, values: Any, accumulate: bool) -> None:
        """Write (or add) ``values`` where the key points, in ``a``'s memory.

        Only those elements are written: in an expanded ``a`` (elements sharing memory)
        the last value written to a place stays, and added values all add up there.
        """
        view = a[self.basic]
        if self.advanced is None:
            if accumulate:
                view += values
            else:
                view[...] = values
        elif accumulate:
            np.add.at(view, self.advanced, values)
        else:
            view[self.advanced] = values


def basic_view(a: np.ndarray, basic: tuple) -> np.ndarray:
    """``a[basic]`` (ints, slices, None, a final ``...``) with the strides torch's chain of
    select / slice / unsqueeze gives it.

    NumPy gives a dim made by None stride 0; torch's ``unsqueeze`` gives it the stride of
    a contiguous dim there: size times stride of the next dim of ``a`` not yet indexed (1
    after the last). ``x[None, 0] = x`` copies ``x`` onto itself only with torch's.
    """
    view = a[basic]
    if not any(item is None for item in basic):
        return view
    shape, old = a.shape, torch_strides(a)
    strides: list[int] = []
    src = 0  # the next dim of ``a``
    for item in basic:
        if item is None:
            strides.append(shape[src] * old[src] if src < len(shape) else 1)
        elif item is Ellipsis:
            strides.extend(old[src:])
            break
        elif type(item) is slice:
            strides.append(old[src] * (1 if item.step is None else item.step))
            src += 1
        else:
            src += 1
    return as_view(view, view.shape, tuple(strides))


# ---------------------------------------------------------------- [] / index_put


class Index(Op):
    """``self[key]``; named after the last op torch records (Select, Slice, Index ...).

    A view of ``self`` unless the key has an advanced part (then a copy).
    """

    input_names = ("self",)
    view = True

    def __init__(self, key: Key) -> None:
        self.key = key
        self.node_name = key.node_name
        if key.advanced is not None:
            self.view = False

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        return self.key.get(a)

    def backward(self, grad: Any) -> Any:
        key = _unfreed(self.key)
        zeros = grad.new_zeros(self.self_sym_sizes)
        # torch's index_backward: ``_index_put_impl_`` into zeros (IndexPutImplBackward0).
        return zeros._index_put_key(key, grad, key.advanced is not None, "IndexPutImplBackward0")

    def _release_variables(self) -> None:
        self.key = _released(self.key)


class IndexPut(Op):
    """``self`` with ``values`` written at ``key`` (added there when ``accumulate``)."""

    input_names = ("self", "values")

    def __init__(self, key: Key, accumulate: bool) -> None:
        self.key = key
        self.accumulate = accumulate

    def forward(self, a: Any, values: Any) -> Any:
        return self.key.put(a, values, self.accumulate)

    def backward(self, grad: Any) -> Any:
        key = _unfreed(self.key)
        needs = self.needs_input_grad
        grad_self = grad_values = None
        if needs[0]:
            grad_self = grad
            if not self.accumulate:
                grad_self = grad._index_put_key(key, grad.new_zeros(()), False)
        if needs[1]:
            grad_values = grad._index_key(key)
        return grad_self, grad_values

    def _release_variables(self) -> None:
        self.key = _released(self.key)


def _released(key: Key | None) -> Key | None:
    """What an index node keeps of ``key`` after a backward without ``retain_graph``:
    nothing when it has index tensors (torch saves and frees those as saved tensors)."""
    return None if key is None or key.advanced is not None else key


def _unfreed(key: Key | None) -> Key:
    """``key``, or torch's error for a second backward through a freed index node."""
    if key is None:
        raise RuntimeError(FREED_MESSAGE)
    return key


# ---------------------------------------------------------------- gather / scatter


def _leading(a: np.ndarray, shape: tuple[int, ...], dim: int) -> np.ndarray:
    """The view of ``a`` cut to ``shape`` in every dim but ``dim``."""
    return a[tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(shape))]


def _along(index: np.ndarray, dim: int) -> tuple[np.ndarray, ...]:
    """Full NumPy indices for the positions ``index`` points at along ``dim``."""
    grid = list(np.ix_(*(np.arange(s) for s in index.shape)))
    grid[dim] = index
    return tuple(grid)


def _pad_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """``grad`` (a leading block) placed into zeros of ``shape``."""
    if tuple(grad.shape) == shape:
        return grad
    block = Key(tuple(slice(0, s) for s in grad.shape) + (Ellipsis,), None, "SliceBackward0")
    return grad.new_zeros(shape)._index_put_key(block, grad, False)


class Gather(Op):
    """``out[i][j] = self[index[i][j]][j]`` (for ``dim=0``); torch's ``gather``."""

    input_names = ("self", "index")
    non_differentiable = ("index",)
    saves = ("index", "self")

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any, index: Any) -> Any:
        a1, index1 = a.reshape(a.shape or (1,)), index.reshape(index.shape or (1,))
        out = np.take_along_axis(_leading(a1, index1.shape, self.dim), index1, axis=self.dim)
        return out.reshape(index.shape)

    def backward(self, grad: Any) -> Any:
        index, x = self.unpack()
        return grad.new_zeros(x.shape).scatter_add(self.dim, index, grad), None


class Scatter(Op):
    """``self`` with ``src[i][j]`` written at ``[index[i][j]][j]`` (for ``dim=0``)."""

    input_names = ("self", "index", "src")
    non_differentiable = ("index",)
    saves = ("index",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any, index: Any, src: Any) -> Any:
        self.src_shape = src.shape
        out = a.copy()
        view = _leading(out.reshape(out.shape or (1,)), index.shape or (1,), self.dim)
        src_view = _leading(src.reshape(src.shape or (1,)), index.shape or (1,), -1)
        np.put_along_axis(view, index.reshape(index.shape or (1,)), src_view, axis=self.dim)
        return out

    def backward(self, grad: Any) -> Any:
        (index,) = self.unpack()
        needs = self.needs_input_grad
        grad_self = grad.scatter(self.dim, index, 0) if needs[0] else None
        grad_src = None
        if needs[2]:
            # NOTE: src may be larger than index; its unused part gets zeros (torch fails).
            grad_src = _pad_to(grad.gather(self.dim, index), self.src_shape)
        return grad_self, None, grad_src


class ScatterValue(Op):
    """``self`` with the number ``value`` written where ``index`` points."""

    node_name = "ScatterBackward1"
    input_names = ("self", "index")
    non_differentiable = ("index",)
    saves = ("index",)

    def __init__(self, dim: int, value: Any) -> None:
        self.dim = dim
        self.value = value

    def forward(self, a: Any, index: Any) -> Any:
        out = a.copy()
        view = _leading(out.reshape(out.shape or (1,)), index.shape or (1,), self.dim)
        index1 = index.reshape(index.shape or (1,))
        np.put_along_axis(view, index1, np.asarray(self.value, a.dtype), axis=self.dim)
        return out

    def backward(self, grad: Any) -> Any:
        (index,) = self.unpack()
        return grad.scatter(self.dim, index, 0), None


class ScatterAdd(Op):
    """``self`` plus ``src[i][j]`` added at ``[index[i][j]][j]`` (for ``dim=0``)."""

    input_names = ("self", "index", "src")
    non_differentiable = ("index",)
    saves = ("index",)
    saved_for = {"index": ("src",)}

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any, index: Any, src: Any) -> Any:
        self.src_shape = src.shape
        out = a.copy()
        index1 = index.reshape(index.shape or (1,))
        src_view = _leading(src.reshape(src.shape or (1,)), index1.shape, -1)
        np.add.at(out.reshape(out.shape or (1,)), _along(index1, self.dim), src_view)
        return out

    def backward(self, grad: Any) -> Any:
        (index,) = self.unpack()
        needs = self.needs_input_grad
        grad_src = None
        if needs[2]:
            grad_src = _pad_to(grad.gather(self.dim, index), self.src_shape)
        return grad if needs[0] else None, None, grad_src


# ---------------------------------------------------------------- index_select / index_add


class IndexSelect(Op):
    """The slices ``index`` (a vector of positions) picks along ``dim``."""

    input_names = ("self", "index")
    non_differentiable = ("index",)
    saves = ("index",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any, index: Any) -> Any:
        self.input_shape = a.shape
        out = np.take(a.reshape(a.shape or (1,)), index.reshape(-1), axis=self.dim)
        return out if a.ndim else out.reshape(())

    def backward(self, grad: Any) -> Any:
        (index,) = self.unpack()
        return grad.new_zeros(self.input_shape).index_add(self.dim, index, grad), None


class IndexAdd(Op):
    """``self`` with ``alpha * source`` added at the positions ``index`` picks along ``dim``."""

    input_names = ("self", "index", "source")
    non_differentiable = ("index",)
    saves = ("index", "source")
    saved_for = {"index": ("source",), "source": ("source",)}

    def __init__(self, dim: int, alpha: Any) -> None:
        self.dim = dim
        self.alpha = alpha

    def forward(self, a: Any, index: Any, source: Any) -> Any:
        out = a.copy()
        where = (slice(None),) * self.dim + (index.reshape(-1),)
        source = source if self.alpha == 1 else source * self.alpha
        np.add.at(out.reshape(out.shape or (1,)), where, source.reshape(source.shape or (1,)))
        return out

    def backward(self, grad: Any) -> Any:
        index, _ = self.unpack()  # torch saves ``source`` too (for its shape)
        needs = self.needs_input_grad
        grad_source = None
        if needs[2]:
            grad_source = grad.index_select(self.dim, index)
            if self.alpha != 1:
                grad_source = grad_source * self.alpha.conjugate()
        return grad if needs[0] else None, None, grad_source


# ---------------------------------------------------------------- masks


class MaskedFill(Op):
    """``self`` with ``value`` where ``mask`` is true; no gradient at filled places."""

    input_names = ("self", "mask")
    non_differentiable = ("mask",)
    saves = ("mask",)
    quiet = True  # inf * False in the fast path below

    def __init__(self, value: Any) -> None:
        self.value = value

    def forward(self, a: Any, mask: Any) -> Any:
        if self.value == 0 and a.dtype.kind in "fc":
            # NOTE: ``np.where`` on a random mask is ~15x slower than a branch-free product;
            # the product is exact unless ``a`` holds inf/nan (then nan shows up: redo).
            # Adding 0 turns the -0.0 of ``negative * False`` into torch's 0.0.
            out = a * ~mask
            if not np.isnan(out).any():
                out += 0
                return out
        return np.where(mask, np.asarray(self.value, a.dtype), a)

    def backward(self, grad: Any) -> Any:
        (mask,) = self.unpack()
        return grad.masked_fill(mask, 0), None


class MaskedFillTensor(Op):
    """``masked_fill`` with a 0-dim tensor ``value``, which gets the filled places' grads."""

    node_name = "MaskedFillBackward1"
    input_names = ("self", "mask", "value")
    non_differentiable = ("mask",)
    saves = ("mask",)

    def forward(self, a: Any, mask: Any, value: Any) -> Any:
        return np.where(mask, value.astype(a.dtype), a)

    def backward(self, grad: Any) -> Any:
        (mask,) = self.unpack()
        needs = self.needs_input_grad
        grad_self = grad.masked_fill(mask, 0) if needs[0] else None
        grad_value = grad.where(mask, grad.new_zeros(())).sum() if needs[2] else None
        return grad_self, None, grad_value


class MaskedSelect(Op):
    """The elements of ``self`` where ``mask`` is true (both broadcast), as a vector."""

    input_names = ("self", "mask")
    non_differentiable = ("mask",)
    saves = ("mask", "self")

    def forward(self, a: Any, mask: Any) -> Any:
        a, mask = np.broadcast_arrays(a, mask)
        return a[mask]

    def backward(self, grad: Any) -> Any:
        mask, x = self.unpack()
        shape = np.broadcast_shapes(x.shape, mask.shape)
        key = Key((Ellipsis,), np.nonzero(np.broadcast_to(mask._data, shape)), "IndexBackward0")
        return grad.new_zeros(shape)._index_put_key(key, grad, False), None


# ---------------------------------------------------------------- take


class Take(Op):
    """The elements of the flattened ``self`` at ``index``, in ``index``'s shape."""

    input_names = ("self", "index")
    non_differentiable = ("index",)
    saves = ("index", "self")

    def forward(self, a: Any, index: Any) -> Any:
        return np.take(a.reshape(-1), index)

    def backward(self, grad: Any) -> Any:
        index, x = self.unpack()
        key = Key((Ellipsis,), (index._data,), "IndexBackward0")
        return grad.new_zeros(x.numel())._index_put_key(key, grad, True).reshape(x.shape), None
