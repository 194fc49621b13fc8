"""Parsing a ``tensor[index]`` index: ints, slices, None, ``...``, int / bool tensors and
lists become an ``ops.indexing.Key``, with torch's checks, errors and warnings.

torch applies the basic part first and then the advanced part to that view, with NumPy's
rule for where the advanced dims go (in front when a slice separates them);
``parse_index`` builds the ``Key`` that does the same.
"""

from __future__ import annotations

import warnings
from operator import index as _as_int
from typing import Any

import numpy as np

from hookgrad.ops import indexing as ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.tensor import Tensor

_INT_KINDS = "iu"
_SEQUENCE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will "
    "be interpreted as tensor index, x[torch.tensor(seq)], which will result either in an "
    "error or a different result"
)


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a hookgrad ``Tensor``."""
    return isinstance(value, Tensor)


def scalar_type_name(dtype: dtypes.dtype) -> str:
    """torch's scalar type name: ``Float``, ``Long``, ``ComplexDouble`` ..."""
    return dtype.type_name[3:-4]


def _index_array(item: Any) -> np.ndarray:
    """A tensor, array or (nested) list used as an index, as a NumPy int or bool array."""
    if is_tensor(item) or isinstance(item, np.ndarray):
        # NOTE: a copy, so that changing the index tensor later cannot change the backward.
        array = np.array(item._data if is_tensor(item) else item)
    else:
        array = np.array(item)
        if array.dtype != np.bool_:
            array = array.astype(np.int64)  # torch reads a list index as a long tensor
    if array.dtype == np.uint8:
        warnings.warn(
            "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
            "instead.",
            UserWarning,
            stacklevel=4,
        )
        return array.astype(np.bool_)  # torch reads a byte index as a mask
    if array.dtype != np.bool_ and (
        array.dtype.kind not in _INT_KINDS or array.dtype in (np.int8, np.int16)
    ):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return array


def _sequence_as_tuple(index: Any) -> bool:
    """torch's legacy rule: a short list holding slices, lists, tensors ... is a tuple."""
    if type(index) is not list or len(index) >= 32:
        return False
    return any(
        item is None
        or item is Ellipsis
        or isinstance(item, (list, tuple, slice, Tensor, np.ndarray))
        for item in index
    )


def _items(index: Any, ndim: int) -> tuple[list[Any], list[Any], int]:
    """The entries of ``index`` as ints, slices, None, ``...`` or arrays; for each, the
    index tensor it came from (torch saves that tensor) or None; the dims they use."""
    items: list[Any] = []
    sources: list[Any] = []
    consumed = 0
    for item in index:
        sources.append(item if is_tensor(item) and item._data.ndim else None)
        if item is None or item is Ellipsis:
            items.append(item)
            continue
        if isinstance(item, slice):
            if ndim == 0:
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            items.append(_int_slice(item))
            consumed += 1
            continue
        if isinstance(item, (bool, np.bool_)):
            items.append(np.asarray(item))
            continue
        if isinstance(item, (int, np.integer)):
            item = int(item)
            if ndim == 0:
                raise IndexError(
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                )
        elif is_tensor(item) or isinstance(item, (list, tuple, range, np.ndarray)):
            item = _index_array(item)
            if item.ndim == 0 and item.dtype != np.bool_:
                item = int(item)  # a 0-dim int tensor selects like an int
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {type(item).__name__})"
            )
        items.append(item)
        is_mask = isinstance(item, np.ndarray) and item.dtype == np.bool_
        consumed += item.ndim if is_mask else 1
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    return items, sources, consumed


def _int_slice(item: slice) -> slice:
    """``item`` with int bounds, checking the step as torch does."""
    try:
        start, stop, step = (
            None if v is None else _as_int(v) for v in (item.start, item.stop, item.step)
        )
    except TypeError:
        raise TypeError(
            "slice indices must be integers or None or have an __index__ method"
        ) from None
    if step is not None and step <= 0:
        raise ValueError(
            "slice step cannot be zero" if step == 0 else "step must be greater than zero"
        )
    return slice(start, stop, step)


def is_full_slice(item: slice, size: int) -> bool:
    """Whether torch skips this slice inside a tuple (it keeps the whole dim)."""
    return (
        item.start in (None, 0)
        and (item.stop is None or item.stop >= size)
        and item.step in (None, 1)
    )


def parse_index(index: Any, shape: tuple[int, ...]) -> ops.Key:
    """Turn a Python index for a tensor of ``shape`` into a ``Key``, with torch's errors."""
    bare_slice = type(index) is slice
    if type(index) is not tuple:
        if _sequence_as_tuple(index):
            warnings.warn(_SEQUENCE_WARNING, UserWarning, stacklevel=4)
            index = tuple(index)
        else:
            index = (index,)
    ndim = len(shape)
    items, sources, consumed = _items(index, ndim)
    basic: list[Any] = []
    advanced: list[tuple[int, np.ndarray, int]] = []  # (dim of the view, indices, size)
    masks: list[tuple[np.ndarray, int]] = []
    given: list[Any] = []  # torch's ``indices``: None for each whole dim, then each index
    src = out = inserted = 0  # dims used of the input, dims made in the view, Nones
    node_name = "AliasBackward0"
    for item, source in zip(items, sources):
        if item is None:
            basic.append(None)
            out += 1
            inserted += 1
            node_name = "UnsqueezeBackward0"
        elif item is Ellipsis:
            skip = max(0, min(ndim - consumed, ndim - src))
            basic.extend((slice(None),) * skip)
            src += skip
            out += skip
        elif type(item) is int:
            size = shape[src]
            if not -size <= item < size:
                raise IndexError(
                    f"index {item} is out of bounds for dimension {src + inserted} with size {size}"
                )
            basic.append(item)
            src += 1
            node_name = "SelectBackward0"
        elif type(item) is slice:
            basic.append(item)
            if bare_slice or not is_full_slice(item, shape[src]):
                node_name = "SliceBackward0"
            src += 1
            out += 1
        elif item.ndim == 0:  # a bool: a new dim of length 1, kept (True) or not (False)
            basic.append(None)
            positions = np.zeros(int(item), np.int64)
            _give(given, out, positions)
            advanced.append((out, positions, 1))
            out += 1
        elif item.dtype == np.bool_:
            masks.append((item, out))
            _give(given, out, item if source is None else source)
            basic.extend((slice(None),) * item.ndim)
            sizes = shape[src : src + item.ndim]
            advanced.extend(zip(range(out, out + item.ndim), np.nonzero(item), sizes))
            src += item.ndim
            out += item.ndim
        else:
            _give(given, out, item if source is None else source)
            basic.append(slice(None))
            advanced.append((out, item, shape[src]))
            src += 1
            out += 1
    basic.append(Ellipsis)
    if not advanced:
        return ops.Key(tuple(basic), None, node_name)
    _check_masks(masks, shape, tuple(basic))
    _check_advanced(advanced)
    key: list[Any] = [slice(None)] * (advanced[-1][0] + 1)
    for dim, array, _ in advanced:
        key[dim] = array
    return ops.Key(tuple(basic), tuple(key), "IndexBackward0", tuple(given))


def _give(given: list[Any], dim: int, index: Any) -> None:
    """Add ``index``, applied at ``dim`` of the view, to torch's ``indices`` (a None for
    each whole dim before it; a mask takes as many dims as it has)."""
    taken = sum(_dims_taken(item) for item in given)
    given.extend([None] * (dim - taken))
    given.append(index)


def _dims_taken(index: Any) -> int:
    """How many dims an entry of torch's ``indices`` indexes: a mask its own, else one."""
    if index is None:
        return 1
    array = index._data if is_tensor(index) else index
    return array.ndim if array.dtype == np.bool_ else 1


def _check_masks(masks: list[tuple[np.ndarray, int]], shape: tuple, basic: tuple) -> None:
    for mask, dim in masks:
        view_shape = np.broadcast_to(np.empty((), np.bool_), shape)[basic].shape
        for j, size in enumerate(mask.shape):
            if view_shape[dim + j] != size:
                raise IndexError(
                    f"The shape of the mask {list(mask.shape)} at index {j} does not match "
                    f"the shape of the indexed tensor {list(view_shape)} at index {dim + j}"
                )


def _check_advanced(advanced: list[tuple[int, np.ndarray, int]]) -> None:
    """Index tensors must broadcast together and stay in bounds (torch's messages)."""
    arrays = [array for _, array, _ in advanced]
    try:
        if len(arrays) > 1:
            np.broadcast_shapes(*(array.shape for array in arrays))
    except ValueError:
        shapes = ", ".join(str(list(array.shape)) for array in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    if all(
        array.size == 0 or (-size <= array.min() and array.max() < size)
        for _, array, size in advanced
    ):
        return
    # torch reports the first element (in broadcast order) whose index is out of range.
    broadcast = np.broadcast_arrays(*arrays)
    bad = [(array < -size) | (array >= size) for array, (_, _, size) in zip(broadcast, advanced)]
    first = int(np.argmax(np.any(bad, axis=0)))
    position = next(i for i, b in enumerate(bad) if b.flat[first])
    raise IndexError(
        f"index {broadcast[position].flat[first]} is out of bounds for dimension {position} "
        f"with size {advanced[position][2]}"
    )
