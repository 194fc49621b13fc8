"""Batching rules of shape ops: views (reshape, expand, transpose, permute, squeeze,
unsqueeze, select, slice, split, unbind, diagonal, basic indexing), joining, flips,
repeats, gathers and scatters along a dim.

A view of the batch is a view of each example: the op runs once on the unwrapped array
with its dims shifted past the batch dim (a target shape gets the batch size in front),
so the result shares memory with the input as torch's does. What the node keeps for its
backward (the input's sizes, split sizes ...) must be each example's: the op's own
forward runs once more on the first example's arrays, a view for a view op
(``_logical_pass``). Inputs that must all have the batch dim (``cat``, ``stack``, a
scatter's index and source) get it broadcast when they lack it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hookgrad.func.batched import BatchedArray, _resolve_shape, batch_dims, top_level, unwrap
from hookgrad.func.batching.core import (
    aligned,
    all_batched,
    batch_size,
    each_example,
    forward,
    logical_dim,
    register,
    stacked,
    with_params,
)
from hookgrad.func.numpy_api import _advanced_position
from hookgrad.ops import as_strided, diagonal, indexing, shape
from hookgrad.ops.indexing import Key
from hookgrad.ops.strides import torch_strides


def _first(value: Any) -> Any:
    """The first example of a logical array as a plain array (shapes only)."""
    return np.asarray(value) if isinstance(value, BatchedArray) else value


def _logical_pass(op: Any, arrays: Sequence[Any]) -> None:
    """Run ``op``'s forward on the first example, for the sizes its backward reads."""
    op.forward(*[_first(a) for a in arrays])


def _shape_rule(transform: Callable[..., Any]) -> Callable[..., Any]:
    """A rule from ``transform(op, values, flags, arrays) -> (op, values)``: the op to run
    on the unwrapped values and those values; then the logical pass."""

    def rule(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
        batched_op, batched_values = transform(op, values, flags, arrays)
        result = forward(batched_op, batched_values)
        _logical_pass(op, arrays)
        return result, True

    return rule


def _shifted(dims: Sequence[int], ndim: int) -> tuple[int, ...]:
    return tuple(logical_dim(d, ndim) + 1 for d in dims)


def _dim_rule(*params: str) -> Callable[..., Any]:
    """The rule of an op on one array whose dim arguments ``params`` shift (a 0-dim
    example, whose dims are all itself, goes example by example)."""

    def transform(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
        ndim = arrays[0].ndim
        changed: dict[str, Any] = {}
        for name in params:
            value = getattr(op, name)
            if isinstance(value, (tuple, list)):
                changed[name] = _shifted(value, ndim)
            else:
                changed[name] = logical_dim(value, ndim) + 1
        return with_params(op, **changed), values

    shifted = _shape_rule(transform)

    def rule(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
        if arrays[0].ndim == 0:
            return each_example(op, values, flags)
        return shifted(op, values, flags, arrays)

    return rule


# ---------------------------------------------------------------- views


def _reshape(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    (value,) = values
    target = (value.shape[0],) + _resolve_shape(op.shape, arrays[0].size)
    try:
        result = forward(with_params(op, shape=target), values)
    except RuntimeError:
        # NOTE: the batch's layout may allow no view where each example's does; the
        # values are then a copy.
        result = value.reshape(target)
    _logical_pass(op, arrays)
    return result, True


register(shape.Reshape)(_reshape)


def _expand(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    (value,) = values
    target = tuple(op.shape)
    value = batch_dims(value, len(target) - arrays[0].ndim)
    return with_params(op, shape=(value.shape[0],) + target), [value]


register(shape.Expand)(_shape_rule(_expand))


def _transpose(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    ndim = arrays[0].ndim
    if ndim == 0:
        return with_params(op, dim0=0, dim1=0), values
    return with_params(
        op, dim0=logical_dim(op.dim0, ndim) + 1, dim1=logical_dim(op.dim1, ndim) + 1
    ), values


register(shape.Transpose)(_shape_rule(_transpose))


def _matrix_t(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    if arrays[0].ndim < 2:
        return shape.Alias(), values
    return shape.Transpose(1, 2), values


register(shape.MatrixT)(_shape_rule(_matrix_t))


def _permute(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    return with_params(op, dims=(0,) + _shifted(op.dims, arrays[0].ndim)), values


register(shape.Permute)(_shape_rule(_permute))


def _squeeze(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    return with_params(op, dims=tuple(d + 1 for d in op.dims)), values


register(shape.Squeeze)(_shape_rule(_squeeze))


def _unsqueeze(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    return with_params(op, dim=logical_dim(op.dim, arrays[0].ndim + 1) + 1), values


register(shape.Unsqueeze)(_shape_rule(_unsqueeze))
register(shape.Alias, shape.ConjPhysical, shape.Complex, shape.Polar)(
    lambda op, values, flags, arrays: (forward(op, aligned(values, flags, arrays)), True)
)
register(shape.Select, shape.Slice, shape.NarrowCopy, shape.Unbind, shape.Split)(_dim_rule("dim"))
register(shape.Flip)(_dim_rule("dims"))
register(shape.Unfold)(_dim_rule("dimension"))
register(diagonal.Diagonal)(_dim_rule("dim1", "dim2"))


def _contiguous(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    if op.strides is None:
        return op, values
    logical = arrays[0]
    extent = 1 + sum((n - 1) * s for n, s in zip(logical.shape, op.strides))
    return with_params(op, strides=(extent,) + tuple(op.strides)), values


register(shape.ContiguousCopy)(_shape_rule(_contiguous))


def _roll(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    if not op.dims:
        return each_example(op, values, flags)
    return _dim_rule("dims")(op, values, flags, arrays)


register(shape.Roll)(_roll)


def _repeat(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    (value,) = values
    value = batch_dims(value, len(op.repeats) - arrays[0].ndim)
    return with_params(op, repeats=(1,) + tuple(op.repeats)), [value]


register(shape.Repeat)(_shape_rule(_repeat))


def _tri(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    return op, values


register(diagonal.Tril, diagonal.Triu)(_shape_rule(_tri))


# ---------------------------------------------------------------- joining


def _joined(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """``cat`` and ``stack``: every input batched, the dim shifted."""
    size = batch_size(values, flags)
    values = all_batched(values, flags, size)
    kept = [a for a, skip in zip(arrays, getattr(op, "skip", (False,) * len(arrays))) if not skip]
    ndim = kept[0].ndim + (1 if isinstance(op, shape.Stack) else 0)
    return with_params(op, dim=logical_dim(op.dim, ndim) + 1), values


register(shape.Cat, shape.Stack)(_shape_rule(_joined))


def _scatter_like(*params: str) -> Callable[..., Any]:
    """Ops of several same-ranked arrays along a dim (``gather``, ``scatter``,
    ``slice_scatter`` ...): all batched, the dims shifted."""
    dim_rule = _dim_rule(*params)

    def rule(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
        size = batch_size(values, flags)
        return dim_rule(op, all_batched(values, flags, size), flags, arrays)

    return rule


register(
    shape.SliceScatter,
    shape.SelectScatter,
    indexing.Gather,
    indexing.Scatter,
    indexing.ScatterValue,
    indexing.ScatterAdd,
)(_scatter_like("dim"))
register(diagonal.DiagonalScatter)(_scatter_like("dim1", "dim2"))


def _index_select(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """``index_select`` with an unbatched index; a batched one goes example by example."""
    if flags[1]:
        return each_example(op, values, flags)
    return _dim_rule("dim")(op, values, flags, arrays)


register(indexing.IndexSelect)(_index_select)


def _masked_fill(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """``masked_fill``: the mask (and a tensor value) broadcast as elementwise operands."""
    result = forward(op, aligned(values, flags, arrays))
    return result, True


register(indexing.MaskedFill, indexing.MaskedFillTensor)(_masked_fill)


def _key_example(key: Key, level: int, index: int) -> Key:
    """``key`` with each batched index array replaced by its example ``index``."""

    def example(item: Any) -> Any:
        value, flag = unwrap(item, level)
        return value[index] if flag else value

    advanced = None if key.advanced is None else tuple(example(k) for k in key.advanced)
    indices = tuple(example(k) for k in key.indices)
    return Key(key.basic, advanced, key.node_name, indices)


def _batched_key(key: Key) -> bool:
    return any(isinstance(k, BatchedArray) for k in (*(key.advanced or ()), *key.indices))


def _each_key(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """An indexing op example by example, each with its own index arrays."""
    key = op.key
    level = top_level((*arrays, *(key.advanced or ()), *key.indices))
    results = []
    for index in range(batch_size(values, flags)):
        example = with_params(op, key=_key_example(key, level, index))
        results.append(forward(example, [v[index] if f else v for v, f in zip(values, flags)]))
    _logical_pass_shapes(op, arrays)
    return stacked(results), True


def _logical_pass_shapes(op: Any, arrays: Sequence[Any]) -> None:
    """The sizes an indexing node's backward reads, from the logical arrays."""
    if isinstance(op, indexing.IndexPut):
        op.values_shape = arrays[1].shape
    else:
        op.self_sym_sizes = arrays[0].shape


def _index(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """``self[key]`` with unbatched index arrays: the key applied after the batch dim;
    NumPy moves the indexed dims first where the advanced indices are apart, and the
    batch goes back in front. Batched index arrays: example by example."""
    key = op.key
    if any(flags[1:]) or _batched_key(key):
        return _each_key(op, values, flags, arrays)
    lead = (slice(None),)
    advanced = None if key.advanced is None else lead + tuple(key.advanced)
    batched_key = Key(lead + tuple(key.basic), advanced, key.node_name, key.indices)
    result = forward(with_params(op, key=batched_key), values)
    if key.advanced is not None:
        position = _advanced_position(tuple(key.advanced))
        if position:
            result = np.moveaxis(result, position, 0)
    _logical_pass_shapes(op, arrays)
    return result, True


register(indexing.Index)(_index)
register(indexing.IndexPut)(_each_key)


def _as_strided(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """``as_strided`` of each example's memory: the layout given for the first example,
    with the batch dim's stride in front (each example's memory starts that far on)."""
    (value,) = values
    batch_stride = value.strides[0] // value.itemsize
    batched = with_params(
        op, size=(value.shape[0],) + tuple(op.size), stride=(batch_stride,) + tuple(op.stride)
    )
    result = forward(batched, values)
    logical = arrays[0]
    op.input_geometry = (logical.shape, torch_strides(logical), op.input_offset)
    return result, True


register(as_strided.AsStridedView)(_as_strided)
