"""``hookgrad.utils.data.collate``: how a list of samples becomes a batch
(``default_collate``) and how a single sample's NumPy values become tensors
(``default_convert``), with torch's rules for every container type.

``collate`` walks containers (mappings, named tuples, sequences) and hands each leaf type
to a function found in a ``collate_fn_map``; ``default_collate_fn_map`` is the one
``default_collate`` uses, and may be extended in place for custom types.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, MutableMapping, MutableSequence, Sequence
from typing import Any

import numpy as np

from hookgrad.tensor import Tensor, dtypes
from hookgrad.tensor.creation import as_tensor, tensor
from hookgrad.tensor.functions.joining import stack

__all__ = [
    "collate",
    "collate_float_fn",
    "collate_int_fn",
    "collate_numpy_array_fn",
    "collate_numpy_scalar_fn",
    "collate_str_fn",
    "collate_tensor_fn",
    "default_collate",
    "default_collate_fn_map",
    "default_convert",
]

CollateFnMap = dict[type | tuple[type, ...], Callable[..., Any]]

# NumPy dtypes of bytes, strings and objects: not convertible to a tensor.
_NON_NUMERIC_DTYPE = re.compile(r"[SaUO]")

_ERROR_FORMAT = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _rebuild_mapping(data: Mapping[Any, Any], values: dict[Any, Any]) -> Any:
    """A mapping of ``data``'s type holding ``values``: a shallow copy for a mutable one
    (keeps extra attributes such as a ``defaultdict``'s factory), a plain dict if the type
    cannot be built from a dict."""
    try:
        if isinstance(data, MutableMapping):
            clone = copy.copy(data)
            clone.update(values)
            return clone
        return type(data)(values)  # type: ignore[call-arg]
    except TypeError:
        return values


def _rebuild_sequence(data: Sequence[Any], values: list[Any]) -> Any:
    """A sequence of ``data``'s type holding ``values`` (a list if it cannot be built)."""
    try:
        if isinstance(data, MutableSequence):
            clone = copy.copy(data)
            for i, value in enumerate(values):
                clone[i] = value
            return clone
        return type(data)(values)  # type: ignore[call-arg]
    except TypeError:
        return values


def default_convert(data: Any) -> Any:
    """``data`` with every NumPy array and NumPy scalar in it made a tensor, through
    mappings, named tuples and sequences; a tuple becomes a list. Anything else (and
    arrays of strings or objects) is returned unchanged. The ``DataLoader`` applies it
    to each sample when automatic batching is off (``batch_size=None``).

    Example::

        default_convert({"x": np.array([1.0, 2.0]), "label": 3})
        # {'x': tensor([1., 2.], dtype=torch.float64), 'label': 3}
    """
    data_type = type(data)
    if isinstance(data, Tensor):
        return data
    if data_type.__module__ == "numpy" and data_type.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and _NON_NUMERIC_DTYPE.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return data_type(*(default_convert(item) for item in data))
    if isinstance(data, tuple):
        return [default_convert(item) for item in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(item) for item in data])
    return data


def _leaf_collate_fn(elem: Any, collate_fn_map: CollateFnMap | None) -> Callable[..., Any] | None:
    """The function of ``collate_fn_map`` for ``elem``: its exact type's, else the first
    key (in insertion order) it is an instance of."""
    if collate_fn_map is None:
        return None
    if type(elem) in collate_fn_map:
        return collate_fn_map[type(elem)]
    for key, fn in collate_fn_map.items():
        if isinstance(elem, key):
            return fn
    return None


def collate(batch: Sequence[Any], *, collate_fn_map: CollateFnMap | None = None) -> Any:
    """Collate ``batch`` (a list of samples of one structure) into one sample of batches:
    leaves go to the ``collate_fn_map`` function of their type (called as
    ``fn(batch, collate_fn_map=collate_fn_map)``), mappings are collated key by key,
    named tuples and sequences position by position (a tuple gives a list).

    Example::

        def collate_tensor(batch, *, collate_fn_map=None):
            return hookgrad.cat(batch)

        collate([hookgrad.ones(2), hookgrad.zeros(1)], collate_fn_map={Tensor: collate_tensor})
        # tensor([1., 1., 0.])
    """
    elem = batch[0]
    leaf_fn = _leaf_collate_fn(elem, collate_fn_map)
    if leaf_fn is not None:
        return leaf_fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, Mapping):
        values = {
            key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem
        }
        return _rebuild_mapping(elem, values)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(
            *(collate(column, collate_fn_map=collate_fn_map) for column in zip(*batch))
        )
    if isinstance(elem, Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(column, collate_fn_map=collate_fn_map) for column in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(_ERROR_FORMAT.format(type(elem)))


def collate_tensor_fn(
    batch: Sequence[Tensor], *, collate_fn_map: CollateFnMap | None = None
) -> Tensor:
    """Tensors of one shape stacked along a new first dimension."""
    return stack(list(batch), 0)


def collate_numpy_array_fn(
    batch: Sequence[np.ndarray], *, collate_fn_map: CollateFnMap | None = None
) -> Any:
    """NumPy arrays made tensors, then collated as tensors."""
    if _NON_NUMERIC_DTYPE.search(batch[0].dtype.str):
        raise TypeError(_ERROR_FORMAT.format(batch[0].dtype))
    return collate([as_tensor(array) for array in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(
    batch: Sequence[Any], *, collate_fn_map: CollateFnMap | None = None
) -> Tensor:
    """NumPy scalars as one tensor of their dtype."""
    return as_tensor(batch)


def collate_float_fn(
    batch: Sequence[float], *, collate_fn_map: CollateFnMap | None = None
) -> Tensor:
    """Python floats as a float64 tensor."""
    return tensor(batch, dtype=dtypes.float64)


def collate_int_fn(batch: Sequence[int], *, collate_fn_map: CollateFnMap | None = None) -> Tensor:
    """Python ints as an int64 tensor (bools as a bool tensor)."""
    return tensor(batch)


def collate_str_fn(
    batch: Sequence[Any], *, collate_fn_map: CollateFnMap | None = None
) -> Sequence[Any]:
    """Strings and bytes unchanged: the batch is their list."""
    return batch


default_collate_fn_map: CollateFnMap = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: Sequence[Any]) -> Any:
    """Put a list of samples together as one batch, with a new first dimension of size
    ``len(batch)``: tensors are stacked; NumPy arrays and scalars, Python floats (as
    float64) and ints (as int64) become tensors; strings and bytes stay a list; mappings,
    named tuples and sequences are collated field by field (a tuple gives a list). The
    ``DataLoader``'s default ``collate_fn`` when batching.

    Example::

        default_collate([(hookgrad.zeros(2), 0), (hookgrad.ones(2), 1)])
        # [tensor([[0., 0.], [1., 1.]]), tensor([0, 1])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
