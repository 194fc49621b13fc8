"""Indexing ops: ``[]``, index_put, gather/scatter, index_select/index_add, masks,
take/put. The reducing ones (``scatter_reduce``, ``index_reduce``, ``index_copy``) are in
``scatter_reduce.py``, ``as_strided`` and the storage helpers in ``as_strided.py``.

The tensor layer parses a Python index once into a ``Key``; the ops here only apply it.
An advanced index's tensors are inputs of its node (without edges), saved as torch saves
them (``_saved_indices``), so that changing one in place makes a later backward fail, as
in torch. Every backward is torch's formula, built from these same ops (a gradient is put
into zeros with ``IndexPut``, read back with ``Index`` / ``gather`` / ``index_select``),
so a ``create_graph=True`` gradient records torch's double-backward graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.graph.saved import FREED_MESSAGE
from hookgrad.ops.base import Op
from hookgrad.ops.dims import wrapped
from hookgrad.ops.strides import as_view, torch_strides
from hookgrad.ops.table import call


class Key:
    """A parsed index, applied in two steps as torch applies it.

    ``basic``: ints, slices and None (ending in ``...``), which NumPy applies as a view.
    ``advanced``: None, or a tuple of full slices and int arrays applied to that view
    (NumPy's placement rule for the advanced dims is torch's).
    ``node_name``: the name of the node torch records for this index.
    ``indices``: the advanced part as torch's ``Tensor?[] indices`` (None for a whole dim,
    a bool mask whole): arrays, or the caller's index tensors; by default read off
    ``advanced``.
    """

    __slots__ = ("basic", "advanced", "node_name", "indices")

    def __init__(
        self, basic: tuple, advanced: tuple | None, node_name: str, indices: tuple = ()
    ) -> None:
        self.basic = basic
        self.advanced = advanced
        self.node_name = node_name
        if advanced is not None and not indices:
            indices = tuple(None if type(item) is slice else item for item in advanced)
        self.indices = indices

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


class _IndexTensors(Op):
    """An op whose last inputs are torch's ``Tensor?[] indices`` (None for a whole dim):
    saved (no edges), shown as ``_saved_indices``. ``_differentiable`` inputs come first."""

    _differentiable: tuple[str, ...] = ()

    def _take_indices(self, count: int) -> None:
        names = _index_names(count)
        self.input_names = self._differentiable + names
        self.saves = names
        self.edge_inputs = tuple(range(len(self._differentiable)))

    @property
    def _saved_indices(self) -> tuple[Any, ...]:
        return tuple(saved.unpack(self, detached_ok=True) for saved in self._saved)

    @property
    def _raw_saved_indices(self) -> tuple[Any, ...]:
        return self._saved

    def __dir__(self) -> list[str]:
        names = set(super().__dir__())
        names.difference_update(
            f"{p}{name}" for p in ("_saved_", "_raw_saved_") for name in self.saves
        )
        if self.saves:
            names.update(("_saved_indices", "_raw_saved_indices"))
        return sorted(names)


def _index_names(count: int) -> tuple[str, ...]:
    return tuple(f"indices{i}" for i in range(count))


class Index(_IndexTensors):
    """``self[key]``; named after the last op torch records (Select, Slice, Index ...).

    A view of ``self`` unless the key has an advanced part; then a copy, whose node is
    torch's ``IndexBackward0`` (inputs: ``self`` and the index tensors).
    """

    input_names = ("self",)
    _differentiable = ("self",)
    view = True
    key: Key | None

    def __init__(self, key: Key) -> None:
        self.key = key
        self.node_name = key.node_name
        if key.advanced is not None:
            self.view = False
            self.saved_attributes = ("self_sym_sizes",)
            self._take_indices(len(key.indices))

    def forward(self, a: Any, *indices: Any) -> Any:
        self.self_sym_sizes = a.shape
        return _unfreed(self.key).get(a)

    def backward(self, grad: Any) -> Any:
        indices = self.unpack()
        key = _unfreed(self.key)
        zeros = grad.new_zeros(self.self_sym_sizes)
        # torch's index_backward: ``_index_put_impl_`` into zeros (IndexPutImplBackward0).
        advanced = key.advanced is not None
        return zeros._index_put_key(key, grad, advanced, "IndexPutImplBackward0", indices)

    def _release_variables(self) -> None:
        super()._release_variables()
        self.key = _released(self.key)


class IndexPut(_IndexTensors):
    """``self`` with ``values`` written at ``key`` (added there when ``accumulate``);
    inputs: ``self``, ``values`` and the index tensors."""

    input_names = ("self", "values")
    _differentiable = ("self", "values")
    saved_attributes = ("accumulate",)
    key: Key | None

    def __init__(self, key: Key, accumulate: bool) -> None:
        self.key = key
        self.accumulate = accumulate
        if key.advanced is not None:
            self._take_indices(len(key.indices))

    def forward(self, a: Any, values: Any, *indices: Any) -> Any:
        self.values_shape = values.shape
        return _unfreed(self.key).put(a, values, self.accumulate)

    def backward(self, grad: Any) -> Any:
        indices = self.unpack()
        key = _unfreed(self.key)
        needs = self.needs_input_grad
        grad_self = grad_values = None
        if needs[0]:
            grad_self = grad
            if not self.accumulate:
                zeros = grad.new_zeros(self.values_shape)
                grad_self = grad._index_put_key(key, zeros, False, None, indices)
        if needs[1]:
            grad_values = grad._index_key(key, indices)
        return grad_self, grad_values

    def _release_variables(self) -> None:
        super()._release_variables()
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


def leading(a: np.ndarray, shape: tuple[int, ...], dim: int) -> np.ndarray:
    """The view of ``a`` cut to ``shape`` in every dim but ``dim``."""
    return a[tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(shape))]


def along(index: np.ndarray, dim: int) -> tuple[np.ndarray, ...]:
    """Full NumPy indices for the positions ``index`` points at along ``dim``."""
    grid = list(np.ix_(*(np.arange(s) for s in index.shape)))
    grid[dim] = index
    return tuple(grid)


def at_least_1d(*arrays: np.ndarray) -> list[np.ndarray]:
    """Views of ``arrays`` with a 0-dim one as 1-dim (torch's scatter/gather treat a
    0-dim tensor as having one element along dim 0)."""
    return [a.reshape(a.shape or (1,)) for a in arrays]


def _pad_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """``grad`` (a leading block) placed into zeros of ``shape``."""
    if tuple(grad.shape) == shape:
        return grad
    block = Key(tuple(slice(0, s) for s in grad.shape) + (Ellipsis,), None, "SliceBackward0")
    return grad.new_zeros(shape)._index_put_key(block, grad, False)


class Gather(Op):
    """``out[i][j] = self[index[i][j]][j]`` (for ``dim=0``); torch's ``gather``, its
    backward ``gather_backward``: the gradient added into zeros (``scatter_add``)."""

    input_names = ("self", "index")
    non_differentiable = ("index",)
    saves = ("index", "self")
    saved_attributes = ("dim", "sparse_grad")

    def __init__(self, dim: int, sparse_grad: bool = False) -> None:
        self.dim = dim
        self.sparse_grad = sparse_grad

    def forward(self, a: Any, index: Any) -> Any:
        a1, index1 = at_least_1d(a, index)
        dim = wrapped(self.dim, a1.ndim)
        out = np.take_along_axis(leading(a1, index1.shape, dim), index1, axis=dim)
        return out.reshape(index.shape)

    def backward(self, grad: Any) -> Any:
        index, x = self.unpack()
        return grad.new_zeros(x.shape).scatter_add(self.dim, index, grad), None


class Scatter(Op):
    """``self`` with ``src[i][j]`` written at ``[index[i][j]][j]`` (for ``dim=0``)."""

    input_names = ("self", "index", "src")
    non_differentiable = ("index",)
    saves = ("index",)
    saved_attributes = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any, index: Any, src: Any) -> Any:
        self.src_shape = src.shape
        out = a.copy()
        out1, index1, src1 = at_least_1d(out, index, src)
        dim = wrapped(self.dim, out1.ndim)
        view = leading(out1, index1.shape, dim)
        np.put_along_axis(view, index1, leading(src1, index1.shape, -1), axis=dim)
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
    saved_attributes = ("dim",)

    def __init__(self, dim: int, value: Any) -> None:
        self.dim = dim
        self.value = value

    def forward(self, a: Any, index: Any) -> Any:
        out = a.copy()
        out1, index1 = at_least_1d(out, index)
        dim = wrapped(self.dim, out1.ndim)
        view = leading(out1, index1.shape, dim)
        np.put_along_axis(view, index1, np.asarray(self.value, a.dtype), axis=dim)
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
    saved_attributes = ("dim",)

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any, index: Any, src: Any) -> Any:
        self.src_shape = src.shape
        out = a.copy()
        out1, index1, src1 = at_least_1d(out, index, src)
        dim = wrapped(self.dim, out1.ndim)
        np.add.at(out1, along(index1, dim), leading(src1, index1.shape, -1))
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
    """The slices ``index`` (a vector of positions) picks along ``dim``; the backward is
    torch's ``index_select_backward``: the gradient added into zeros (``index_add``)."""

    input_names = ("self", "index")
    non_differentiable = ("index",)
    saves = ("index",)
    saved_attributes = ("dim", "self_sym_sizes")

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any, index: Any) -> Any:
        self.self_sym_sizes = a.shape
        out = np.take(a.reshape(a.shape or (1,)), index.reshape(-1), axis=self.dim)
        return out if a.ndim else out.reshape(())

    def backward(self, grad: Any) -> Any:
        (index,) = self.unpack()
        return grad.new_zeros(self.self_sym_sizes).index_add(self.dim, index, grad), None


class IndexAdd(Op):
    """``self`` with ``alpha * source`` added at the positions ``index`` picks along ``dim``."""

    input_names = ("self", "index", "source")
    non_differentiable = ("index",)
    saves = ("index", "source")
    saved_for = {"index": ("source",), "source": ("source",)}
    saved_attributes = ("alpha", "dim", "source_dim")

    def __init__(self, dim: int, alpha: Any) -> None:
        self.dim = dim
        self.alpha = alpha

    def forward(self, a: Any, index: Any, source: Any) -> Any:
        self.source_dim = source.ndim
        out = a.copy()
        where = (slice(None),) * wrapped(self.dim, a.ndim) + (index.reshape(-1),)
        source = source if self.alpha == 1 else source * self.alpha
        np.add.at(out.reshape(out.shape or (1,)), where, source.reshape(source.shape or (1,)))
        return out

    def backward(self, grad: Any) -> Any:
        index, source = self.unpack()
        needs = self.needs_input_grad
        grad_source = None
        if needs[2]:
            if self.source_dim > 0:
                grad_source = grad.index_select(self.dim, index).expand_as(source)
            else:
                grad_source = grad.index_select(self.dim, index.squeeze(0))
            grad_source = call("maybe_multiply", grad_source, self.alpha)
        return grad if needs[0] else None, None, grad_source


class IndexFill(Op):
    """``self`` with the number ``value`` at the positions ``index`` picks along ``dim``."""

    input_names: tuple[str, ...] = ("self", "index")
    non_differentiable = ("index",)
    saves = ("index",)
    saved_attributes = ("dim",)

    def __init__(self, dim: int, value: Any = None) -> None:
        self.dim = dim
        self.value = value

    def forward(self, a: Any, index: Any, value: Any = None) -> Any:
        out = a.copy()
        where = (slice(None),) * wrapped(self.dim, a.ndim) + (index.reshape(-1),)
        fill = self.value if value is None else value
        out.reshape(out.shape or (1,))[where] = np.asarray(fill).astype(a.dtype)
        return out

    def backward(self, grad: Any) -> Any:
        (index,) = self.unpack()
        return grad.index_fill(self.dim, index, 0), None


class IndexFillTensor(IndexFill):
    """``index_fill`` with a 0-dim tensor ``value``, which gets the sum of the gradient at
    the filled places (over the distinct positions)."""

    node_name = "IndexFillBackward1"
    input_names = ("self", "index", "value")
    non_differentiable = ("index",)

    def backward(self, grad: Any) -> Any:
        (index,) = self.unpack()
        needs = self.needs_input_grad
        grad_self = grad.index_fill(self.dim, index, 0) if needs[0] else None
        grad_value = None
        if needs[2]:
            distinct = index.new_tensor(np.unique(index.numpy()))
            grad_value = grad.index_select(self.dim, distinct).sum()
        return grad_self, None, grad_value


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
    """``masked_fill`` with a 0-dim tensor ``value``, which gets the filled places' grads
    (torch's ``masked_fill_backward``: ``grad.masked_select(mask).sum()``)."""

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
        grad_value = grad.masked_select(mask).sum() if needs[2] else None
        return grad_self, None, grad_value


class MaskedSelect(Op):
    """The elements of ``self`` where ``mask`` is true (both broadcast), as a vector; the
    backward is torch's ``masked_select_backward``: the gradient scattered into zeros of
    the broadcast shape (``masked_scatter``)."""

    input_names = ("self", "mask")
    non_differentiable = ("mask",)
    saves = ("mask", "self")

    def forward(self, a: Any, mask: Any) -> Any:
        a, mask = np.broadcast_arrays(a, mask)
        return a[mask]

    def backward(self, grad: Any) -> Any:
        mask, x = self.unpack()
        shape = np.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
        return grad.new_zeros(shape).masked_scatter(mask, grad), None


def _masked_scatter(a: Any, mask: Any, source: Any) -> Any:
    """``a`` (broadcast with ``mask``) with the elements where ``mask`` is true replaced,
    in order, by the first elements of ``source``."""
    shape = np.broadcast_shapes(a.shape, mask.shape)
    out = np.array(np.broadcast_to(a, shape))
    where = np.broadcast_to(mask, shape)
    out[where] = source.reshape(-1)[: int(np.count_nonzero(where))]
    return out


class MaskedScatter(Op):
    """``masked_scatter``: ``self`` with the elements where ``mask`` is true replaced, in
    order, by the elements of ``source``."""

    input_names = ("self", "mask", "source")
    non_differentiable = ("mask",)
    saves = ("mask",)
    saved_attributes = ("source_sym_sizes",)

    def forward(self, a: Any, mask: Any, source: Any) -> Any:
        self.source_sym_sizes = source.shape
        return _masked_scatter(a, mask, source)

    def backward(self, grad: Any) -> Any:
        (mask,) = self.unpack()
        needs = self.needs_input_grad
        grad_self = grad.masked_fill(mask, 0) if needs[0] else None
        grad_source = None
        if needs[2]:
            grad_source = grad._apply_op(MaskedScatterBackward(self.source_sym_sizes), mask)
        return grad_self, None, grad_source


class MaskedScatterBackward(Op):
    """torch's ``masked_scatter_backward``: the elements of ``grad_output`` where ``mask``
    is true, then zeros, in ``sizes`` (``source``'s shape). Its own backward scatters the
    gradient back into zeros (``masked_scatter``)."""

    node_name = "MaskedScatterBackwardBackward0"
    input_names = ("grad_output", "mask")
    non_differentiable = ("mask",)
    saves = ("mask",)

    def __init__(self, sizes: tuple[int, ...]) -> None:
        self.sizes = sizes

    def forward(self, grad_output: Any, mask: Any) -> Any:
        self.grad_output_shape = grad_output.shape
        grad_output, mask = np.broadcast_arrays(grad_output, mask)
        selected = grad_output[mask]
        out = np.zeros(int(np.prod(self.sizes)), grad_output.dtype)
        out[: selected.size] = selected
        return out.reshape(self.sizes)

    def backward(self, grad: Any) -> Any:
        (mask,) = self.unpack()
        return grad.new_zeros(self.grad_output_shape).masked_scatter(mask, grad), None


# ---------------------------------------------------------------- take / put


class Take(Op):
    """The elements of the flattened ``self`` at ``index``, in ``index``'s shape; the
    backward is torch's ``take_backward``: the gradient added into zeros (``put``)."""

    input_names = ("self", "index")
    non_differentiable = ("index",)
    saves = ("index", "self")

    def forward(self, a: Any, index: Any) -> Any:
        return np.take(a.reshape(-1), index)

    def backward(self, grad: Any) -> Any:
        index, x = self.unpack()
        return grad.new_zeros(x.shape).put(index, grad, True), None


class Put(Op):
    """``put``: ``self`` with ``source`` written (added, when ``accumulate``) at the
    positions ``index`` of the flattened tensor."""

    input_names = ("self", "index", "source")
    non_differentiable = ("index",)
    saves = ("index", "source")
    saved_for = {"source": ("source",)}
    saved_attributes = ("accumulate",)

    def __init__(self, accumulate: bool) -> None:
        self.accumulate = accumulate

    def forward(self, a: Any, index: Any, source: Any) -> Any:
        self.source_shape = source.shape
        out = np.array(a, order="C")
        flat = out.reshape(-1)
        if self.accumulate:
            np.add.at(flat, index.reshape(-1), source.reshape(-1))
        else:
            flat[index.reshape(-1)] = source.reshape(-1)
        return out

    def backward(self, grad: Any) -> Any:
        index, source = self.unpack()
        needs = self.needs_input_grad
        grad_self = grad_source = None
        if needs[0]:
            grad_self = (
                grad if self.accumulate else grad.put(index, grad.new_zeros(self.source_shape))
            )
        if needs[2]:
            grad_source = grad.take(index).reshape_as(source)
        return grad_self, None, grad_source
