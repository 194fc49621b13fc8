"""Indexing beyond the op table: views, node names, errors, and corner cases vs torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close

X = np.random.default_rng(0).standard_normal((3, 4, 5))


def _run(lib, fn, data=X):
    """``fn(lib, x)`` on a fresh leaf ``x``: (result, node name) or (error type, message)."""
    x = lib.tensor(data, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            y = fn(lib, x)
        except Exception as error:  # noqa: BLE001 (compared with torch's)
            return type(error).__name__, str(error)
    node = y.grad_fn
    name = None if node is None else (node.name() if lib is hookgrad else type(node).__name__)
    return y, name


def _same_as_torch(torch, fn, data=X):
    ours, theirs = _run(hookgrad, fn, data), _run(torch, fn, data)
    if isinstance(theirs[0], str):
        assert ours == theirs
        return
    assert not isinstance(ours[0], str), ours
    assert_close(ours[0], theirs[0], 0, 0)
    assert ours[1] == theirs[1]


def _bool(lib, *shape):
    return lib.ones(*shape, dtype=lib.bool)


# Indexes read like ``x[KEY]`` on a (3, 4, 5) tensor; each also names the node torch records.
KEYS = {
    "int": lambda t: 1,
    "neg_int": lambda t: -1,
    "slice": lambda t: slice(1, None),
    "full_slice": lambda t: slice(None),
    "step": lambda t: slice(None, None, 2),
    "huge_stop": lambda t: slice(0, 100),
    "slice_then_int": lambda t: (slice(1, None), 0),
    "int_then_slice": lambda t: (0, slice(1, None)),
    "int_then_full": lambda t: (0, slice(None)),
    "int_then_huge": lambda t: (0, slice(0, 100)),
    "int_then_neg_start": lambda t: (0, slice(-100, None)),
    "none": lambda t: None,
    "ellipsis": lambda t: Ellipsis,
    "empty_tuple": lambda t: (),
    "full_slices": lambda t: (slice(None), slice(None)),
    "ellipsis_int": lambda t: (Ellipsis, 0),
    "none_int": lambda t: (None, 0),
    "int_none": lambda t: (0, None),
    "int_ellipsis_none": lambda t: (1, Ellipsis, None),
    "two_ellipses": lambda t: (Ellipsis, 0, Ellipsis),
    "three_ints": lambda t: (0, 1, 2),
    "0dim_tensor": lambda t: t.tensor(1),
    "0dim_tensor_pair": lambda t: (t.tensor(1), 0),
    "tensor_bounds": lambda t: slice(t.tensor(1), t.tensor(2)),
    "numpy_int": lambda t: np.int64(1),
    "true": lambda t: True,
    "false": lambda t: False,
    "0dim_bool": lambda t: t.tensor(True),
    "slice_true": lambda t: (slice(1, None), True),
    "false_int": lambda t: (False, 1),
    "list_dup": lambda t: [0, 0, 2],
    "list_bools": lambda t: [True, False, True],
    "list_mixed_bool_int": lambda t: [True, 0],
    "empty_list": lambda t: [],
    "tensor": lambda t: t.tensor([2, 0]),
    "int32_tensor": lambda t: t.tensor([1, 0], dtype=t.int32),
    "empty_tensor": lambda t: t.tensor([], dtype=t.int64),
    "numpy_array": lambda t: np.array([[0, 1], [1, 2]]),
    "nested_tuple": lambda t: ((1, 0),),
    "mask": lambda t: t.tensor([True, False, True]),
    "mask_2d": lambda t: _bool(t, 3, 4),
    "mask_inner": lambda t: (slice(None), _bool(t, 4, 5)),
    "mask_and_int": lambda t: (t.tensor([True, False, True]), 0),
    "int_then_list": lambda t: (0, [0, 1]),
    "two_lists": lambda t: ([0, 1], [0, 1]),
    "broadcast_lists": lambda t: ([[0], [1]], [1, 2, 3]),
    "lists_split_by_slice": lambda t: ([0, 1], slice(None), [0, 1]),
    "lists_split_by_none": lambda t: ([0, 1], None, [0, 1]),
    "lists_around_int": lambda t: ([0, 1], 0, [0, 1]),
    "lists_around_ellipsis": lambda t: ([0], Ellipsis, [1]),
    "nones_around_list": lambda t: (None, [0, 1], None, [1]),
    "list_and_mask": lambda t: ([[0], [1]], t.tensor([True, False, True, False])),
    "list_true": lambda t: ([0, 1], True),
    "list_slice_true": lambda t: ([0, 1], slice(None), True),
    "step_then_lists": lambda t: (slice(None, None, 2), [[0, 1], [2, 3]], [1, 3]),
    "step_int_list": lambda t: (slice(None, None, 2), 1, [1, 3]),
    "slice_list_slice": lambda t: (slice(None), [[0, 1], [2, 3]], slice(1, 3)),
    "list_as_tuple": lambda t: [[0, 1], [1, 2]],
    "list_with_slice": lambda t: [0, slice(None)],
}


@pytest.mark.parametrize("key", KEYS.values(), ids=KEYS.keys())
def test_getitem_matches_torch(key, torch):
    _same_as_torch(torch, lambda t, x: x[key(t)])


BAD_KEYS = {
    "int_out_of_range": lambda t: 5,
    "neg_int_out_of_range": lambda t: -4,
    "second_int_out_of_range": lambda t: (0, 9),
    "after_none_out_of_range": lambda t: (None, 0, 9),
    "tensor_out_of_range": lambda t: t.tensor([5]),
    "list_out_of_range": lambda t: [0, 9],
    "neg_list_out_of_range": lambda t: [-4],
    "inner_list_out_of_range": lambda t: (slice(None), [7]),
    "first_bad_element": lambda t: ([0, 5], [9, 0]),
    "bad_after_true": lambda t: (True, [0, 1], [9, 0]),
    "too_many": lambda t: (0, 0, 0, 0),
    "too_many_slices": lambda t: (slice(None),) * 4,
    "float_tensor": lambda t: t.tensor([0.0, 1.0]),
    "float_0dim_tensor": lambda t: t.tensor(1.0),
    "float": lambda t: 1.0,
    "mask_shape": lambda t: t.tensor([True, False]),
    "mask_2d_shape": lambda t: _bool(t, 3, 5),
    "mask_after_none": lambda t: (None, _bool(t, 3, 5)),
    "mask_after_int": lambda t: (0, slice(None), _bool(t, 3)),
    "no_broadcast": lambda t: ([0, 1], [0, 1, 2]),
    "negative_step": lambda t: slice(None, None, -1),
    "zero_step": lambda t: slice(None, None, 0),
    "float_bound": lambda t: slice(1.5, None),
}


@pytest.mark.parametrize("key", BAD_KEYS.values(), ids=BAD_KEYS.keys())
def test_getitem_errors_match_torch(key, torch):
    _same_as_torch(torch, lambda t, x: x[key(t)])


ZERO_DIM_KEYS = {
    "int": lambda t: 0,
    "slice": lambda t: slice(None),
    "list": lambda t: [0],
    "0dim_tensor": lambda t: t.tensor(0),
    "ellipsis": lambda t: Ellipsis,
    "ellipsis_none": lambda t: (Ellipsis, None),
    "nones": lambda t: (None, None, Ellipsis),
    "true": lambda t: True,
    "false_tensor": lambda t: t.tensor(False),
}


@pytest.mark.parametrize("key", ZERO_DIM_KEYS.values(), ids=ZERO_DIM_KEYS.keys())
def test_getitem_of_0dim_tensor(key, torch):
    _same_as_torch(torch, lambda t, x: x[key(t)], np.array(1.5))


GRAD_KEYS = ["int_then_slice", "none_int", "list_dup", "mask_2d", "broadcast_lists"]
GRAD_KEYS += ["lists_split_by_slice", "step_then_lists", "list_slice_true", "false_int"]


@pytest.mark.parametrize("name", GRAD_KEYS)
def test_getitem_gradients_match_torch(name, torch):
    grads = []
    for lib in (hookgrad, torch):
        x = lib.tensor(X, requires_grad=True)
        y = x[KEYS[name](lib)]
        weight = lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)))
        (grad,) = lib.autograd.grad((y * weight).sum(), x)
        grads.append(grad)
    assert_close(*grads)


def test_duplicate_indices_accumulate_and_double_backward(torch):
    results = []
    for lib in (hookgrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (x[[0, 0, 1]] ** 3).sum()
        (grad,) = lib.autograd.grad(y, x, create_graph=True)
        (grad2,) = lib.autograd.grad((grad * lib.tensor([1.0, 10.0, 100.0])).sum(), x)
        results.append((grad, grad2))
    assert_close(*results)
    assert results[0][0].tolist() == [6.0, 12.0, 0.0]


def test_changing_the_index_later_does_not_change_the_backward():
    x = hookgrad.zeros(3, requires_grad=True)
    index = hookgrad.tensor([0, 0])
    y = x[index]
    index.numpy()[:] = 2
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 0.0]


@pytest.mark.parametrize("key", [(slice(1, None), 0), [2, 0, 2], (None, Ellipsis, [1, 1])])
def test_getitem_gradgradcheck(key):
    x = hookgrad.tensor(X[:, :2, :3], requires_grad=True)
    assert hookgrad.autograd.gradgradcheck(lambda x: x[key] ** 2, (x,))


# ---------------------------------------------------------------- views


def test_basic_indexing_returns_views():
    x = hookgrad.arange(24.0).reshape(2, 3, 4)
    for key in [1, (slice(None), 0), (None, Ellipsis, slice(1, None, 2)), (0, 1, 2), ()]:
        assert np.shares_memory(x[key].numpy(), x.numpy()), key
    x.numpy()[1, 2, 3] = 100.0
    assert x[1, 2:][0, 3].item() == 100.0
    assert x[1][2][3].item() == 100.0


def test_advanced_indexing_copies():
    x = hookgrad.arange(6.0).reshape(2, 3)
    for key in [[0, 1], hookgrad.tensor([True, False]), (slice(None), [2]), True]:
        assert not np.shares_memory(x[key].numpy(), x.numpy()), key


def test_iterating_rows_stops_at_the_end():
    rows = list(hookgrad.arange(6.0).reshape(3, 2))
    assert [row.tolist() for row in rows] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]


def test_list_holding_slices_warns_like_torch(torch):
    for lib in (hookgrad, torch):
        x = lib.zeros(3, 4)
        with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing"):
            assert tuple(x[[0, slice(None)]].shape) == (4,)


# ---------------------------------------------------------------- index_put


def test_index_put_is_functional_and_accumulates(torch):
    results = []
    for lib in (hookgrad, torch):
        x = lib.zeros(4)
        out = lib.index_put(x, (lib.tensor([1, 1, 3]),), lib.tensor(2.0), accumulate=True)
        results.append((out, x))
    assert_close(*results)
    assert results[0][0].tolist() == [0.0, 4.0, 0.0, 2.0]


def test_index_put_node_and_gradients(torch):
    results = []
    for lib in (hookgrad, torch):
        x = lib.tensor(X[0], requires_grad=True)
        v = lib.tensor(X[1, 0], requires_grad=True)
        out = x.index_put((lib.tensor([2, 0]),), v)
        name = out.grad_fn.name() if lib is hookgrad else type(out.grad_fn).__name__
        grads = lib.autograd.grad((out * lib.tensor(X[2])).sum(), (x, v))
        results.append((out, grads, name))
    assert results[0][2] == results[1][2] == "IndexPutBackward0"
    assert_close(results[0][:2], results[1][:2])


INDEX_PUT_ERRORS = {
    "none_index": lambda t, x: t.index_put(x, (None, t.tensor([0])), t.tensor(1.0)),
    "values_dtype": lambda t, x: t.index_put(x, (t.tensor([0]),), t.tensor(1.0, dtype=t.float32)),
    "values_shape": lambda t, x: t.index_put(x, (t.tensor([0, 0]),), t.ones(3, dtype=t.float64)),
    "float_index": lambda t, x: t.index_put(x, (t.tensor([0.0]),), t.tensor(1.0, dtype=t.float64)),
    "out_of_range": lambda t, x: t.index_put(x, (t.tensor([5]),), t.tensor(1.0, dtype=t.float64)),
    "too_many": lambda t, x: t.index_put(x, (t.tensor([0]),) * 4, t.tensor(1.0, dtype=t.float64)),
    "number_values": lambda t, x: t.index_put(x, (t.tensor([0]),), 1.0),
}


@pytest.mark.parametrize("fn", INDEX_PUT_ERRORS.values(), ids=INDEX_PUT_ERRORS.keys())
def test_index_put_errors_match_torch(fn, torch):
    _same_as_torch(torch, fn)


# ---------------------------------------------------------------- the other ops vs torch

A = X[0]  # (4, 5)


def _long(t, *rows):
    return t.tensor(rows[0] if len(rows) == 1 else rows, dtype=t.int64)


OPS = {
    "gather": lambda t, x: x.gather(1, _long(t, [0, 0], [4, 1])),
    "gather_int32": lambda t, x: x.gather(0, t.tensor([[1]], dtype=t.int32)),
    "gather_0dim_index": lambda t, x: x[0].gather(0, t.tensor(3)),
    "scatter": lambda t, x: x.scatter(1, _long(t, [[0, 2]]), x[1:2, :2] * 2),
    "scatter_value": lambda t, x: x.scatter(0, _long(t, [[3, 0]]), 7.0),
    "scatter_value_kw": lambda t, x: t.scatter(x, 0, _long(t, [[3, 0]]), value=7.0),
    "scatter_add": lambda t, x: x.scatter_add(0, _long(t, [[3, 3]]), x[:1, :2]),
    "index_select": lambda t, x: x.index_select(1, _long(t, [4, 4, 0])),
    "index_select_0dim_index": lambda t, x: x.index_select(1, t.tensor(2)),
    "index_add": lambda t, x: x.index_add(1, _long(t, [0, 0]), x[:, :2], alpha=2),
    "index_add_0dim": lambda t, x: x[0, 0].index_add(0, _long(t, [0]), x[1, 1]),
    "masked_fill": lambda t, x: x.masked_fill(_bool(t, 5), 2.0),
    "masked_fill_0dim_value": lambda t, x: x.masked_fill(_bool(t, 4, 1), t.tensor(3.0)),
    "masked_select": lambda t, x: x.masked_select(x > 0),
    "take": lambda t, x: x.take(_long(t, [[0, -1], [19, 19]])),
    "take_0dim": lambda t, x: x.take(t.tensor(3)),
    "take_along_dim": lambda t, x: x.take_along_dim(_long(t, [[1, -1]]), dim=1),
    "take_along_dim_flat": lambda t, x: t.take_along_dim(x, _long(t, [19, 0])),
}


OPS.update(
    {
        "scatter_reduce_prod": lambda t, x: x.scatter_reduce(
            0, _long(t, [[3, 3, 0]]), x[1:2, :3] * 0, "prod", include_self=False
        ),
        "scatter_reduce_int_mean": lambda t, x: (
            (x * 10)
            .long()
            .scatter_reduce(1, _long(t, [[0, 0, 1]] * 4), (x[:, :3] * 10).long(), "mean")
        ),
        "index_reduce_int_amax": lambda t, x: (
            (x * 10)
            .long()
            .index_reduce(1, _long(t, [4, 4]), (x[:, :2] * 10).long(), "amax", include_self=False)
        ),
        "index_copy_0dim": lambda t, x: x[0, 0].index_copy(0, t.tensor(0), x[1, 1]),
        "repeat_interleave_counts": lambda t, x: t.repeat_interleave(_i32(t, [2, 0, 1])),
        "repeat_interleave_0dim": lambda t, x: x[0, 0].repeat_interleave(3),
        "repeat_interleave_output_size": lambda t, x: x.repeat_interleave(
            _long(t, [1, 0, 2, 1]), dim=0, output_size=4
        ),
        "nonzero_static_padded": lambda t, x: t.nonzero_static(x > 0, size=25, fill_value=9),
        "nonzero_static_cut": lambda t, x: t.nonzero_static(x > 0, size=2),
        "unravel_index": lambda t, x: t.stack(
            t.unravel_index(_long(t, [[7, -1], [25, 3]]), (4, 5))
        ),
        "unravel_index_int": lambda t, x: t.stack(t.unravel_index(_i32(t, 13), 20)),
    }
)


@pytest.mark.parametrize("fn", OPS.values(), ids=OPS.keys())
def test_ops_match_torch(fn, torch):
    _same_as_torch(torch, fn, A)


def _i32(t, *rows):
    return t.tensor(rows[0] if len(rows) == 1 else rows, dtype=t.int32)


OP_ERRORS = {
    "gather_float_index": lambda t, x: x.gather(1, t.tensor([[0.0]])),
    "gather_ndim": lambda t, x: x.gather(1, _long(t, [0])),
    "gather_size": lambda t, x: x.gather(0, t.zeros(2, 6, dtype=t.int64)),
    "gather_out_of_range": lambda t, x: x.gather(1, _long(t, [[7]])),
    "gather_negative": lambda t, x: x.gather(1, _long(t, [[-1]])),
    "gather_dim": lambda t, x: x.gather(2, _long(t, [[0]])),
    "scatter_src_dtype": lambda t, x: x.scatter(1, _long(t, [[0]]), t.ones(1, 1)),
    "scatter_src_small": lambda t, x: x.scatter(1, _long(t, [[0, 1]]), x[:1, :1]),
    "scatter_index_big": lambda t, x: x.scatter(1, t.zeros(5, 1, dtype=t.int64), x),
    "scatter_ndim_self": lambda t, x: x.scatter(1, _long(t, [0]), x),
    "scatter_ndim_src": lambda t, x: x.scatter(1, _long(t, [[0]]), x[0, 0]),
    "scatter_out_of_range": lambda t, x: x.scatter(1, _long(t, [[9]]), 1.0),
    "scatter_float_index": lambda t, x: x.scatter(1, t.tensor([[0.0]]), 1.0),
    "scatter_add_number": lambda t, x: x.scatter_add(1, _long(t, [[0]]), 1.0),
    "scatter_add_out_of_range": lambda t, x: x.scatter_add(1, _long(t, [[-1]]), x),
    "index_select_2d": lambda t, x: x.index_select(1, _long(t, [[2]])),
    "index_select_float": lambda t, x: x.index_select(1, t.tensor([2.0])),
    "index_select_out_of_range": lambda t, x: x.index_select(1, _long(t, [1, 5])),
    "index_select_0dim_two": lambda t, x: x[0, 0].index_select(0, _long(t, [0, 0])),
    "index_select_0dim_out": lambda t, x: x[0, 0].index_select(0, _long(t, [1])),
    "index_add_count": lambda t, x: x.index_add(1, _long(t, [0, 0]), x[:, :3]),
    "index_add_shape": lambda t, x: x.index_add(1, _long(t, [0, 0]), x[:2, :2]),
    "index_add_dtype": lambda t, x: x.index_add(1, _long(t, [0]), t.ones(4, 1)),
    "index_add_out_of_range": lambda t, x: x.index_add(1, _i32(t, [0, 9]), x[:, :2]),
    "index_add_float": lambda t, x: x.index_add(1, t.tensor([0.0]), x[:, :1]),
    "index_add_2d_index": lambda t, x: x.index_add(0, _long(t, [[1]]), x[:1]),
    "masked_fill_long_mask": lambda t, x: x.masked_fill(_long(t, [1]), 2.0),
    "masked_fill_int_mask": lambda t, x: x.masked_fill(_i32(t, [1]), 2.0),
    "masked_fill_float_mask": lambda t, x: x.masked_fill(x > 5, 2.0).masked_fill(x, 1.0),
    "masked_fill_1dim_value": lambda t, x: x.masked_fill(x > 0, t.tensor([2.0])),
    "masked_fill_shape": lambda t, x: x.masked_fill(_bool(t, 2), 2.0),
    "masked_select_long_mask": lambda t, x: x.masked_select(_long(t, [1])),
    "masked_select_shape": lambda t, x: x.masked_select(_bool(t, 3, 1)),
    "take_int32": lambda t, x: x.take(_i32(t, [1])),
    "take_out_of_range": lambda t, x: x.take(_long(t, [3, 20])),
    "take_neg_out_of_range": lambda t, x: x.take(_long(t, [-21])),
    "take_from_empty": lambda t, x: x[:0].take(_long(t, [0])),
    "take_along_dim_int32": lambda t, x: x.take_along_dim(_i32(t, [[0]]), dim=1),
    "take_along_dim_ndim": lambda t, x: x.take_along_dim(_long(t, [0]), dim=1),
    "scatter_reduce_name": lambda t, x: x.scatter_reduce(0, _long(t, [[0]]), x[:1, :1], "add"),
    "scatter_reduce_include_self": lambda t, x: x.scatter_reduce(
        0, _long(t, [[0]]), x[:1, :1], "sum", include_self=0
    ),
    "scatter_reduce_dtype": lambda t, x: x.scatter_reduce(0, _long(t, [[0]]), t.ones(1, 1), "sum"),
    "scatter_reduce_legacy_name_backward": lambda t, x: (
        x.scatter_reduce(0, _long(t, [[0]]), x[:1, :1], "max").sum().backward()
    ),
    "scatter_reduce_bool_mean": lambda t, x: (x > 0).scatter_reduce(
        0, _long(t, [[0]]), (x > 0)[:1, :1], "mean"
    ),
    "scatter_reduce_complex_grad": lambda t, x: (x * 1j).scatter_reduce(
        0, _long(t, [[0]]), x[:1, :1] * 1j, "sum"
    ),
    "index_reduce_sum": lambda t, x: x.index_reduce(0, _long(t, [0]), x[:1], "sum"),
    "index_reduce_2d_index": lambda t, x: x.index_reduce(0, _long(t, [[0]]), x[:1], "prod"),
    "index_reduce_float_index": lambda t, x: x.index_reduce(0, t.tensor([0.0]), x[:1], "prod"),
    "index_reduce_count": lambda t, x: x.index_reduce(0, _long(t, [0, 1]), x[:1], "amax"),
    "index_reduce_dtype": lambda t, x: x.index_reduce(0, _long(t, [0]), t.ones(1, 5), "amin"),
    "index_reduce_shape": lambda t, x: x.index_reduce(0, _long(t, [0]), x[:1, :2], "mean"),
    "index_reduce_out_of_range": lambda t, x: x.index_reduce(0, _long(t, [-1]), x[:1], "prod"),
    "index_copy_int32": lambda t, x: x.index_copy(0, _i32(t, [0]), x[:1]),
    "index_copy_2d_index": lambda t, x: x.index_copy(0, _long(t, [[0]]), x[:1]),
    "index_copy_count": lambda t, x: x.index_copy(0, _long(t, [0, 1]), x[:1]),
    "index_copy_slices": lambda t, x: x.index_copy(0, _long(t, [0]), x[:1, :2]),
    "index_copy_ndim": lambda t, x: x.index_copy(0, _long(t, [0]), x[0]),
    "index_copy_scalar_source": lambda t, x: x.index_copy(0, _long(t, [0, 1]), x[0, 0]),
    "index_copy_dtype": lambda t, x: x.index_copy(0, _long(t, [0]), t.ones(1, 5)),
    "index_copy_out_of_range": lambda t, x: x.index_copy(1, _long(t, [5]), x[:, :1]),
    "repeat_interleave_negative": lambda t, x: x.repeat_interleave(-1),
    "repeat_interleave_size": lambda t, x: x.repeat_interleave(_long(t, [1, 2]), dim=0),
    "repeat_interleave_2d": lambda t, x: x.repeat_interleave(_long(t, [[1]]), dim=0),
    "repeat_interleave_float": lambda t, x: t.repeat_interleave(t.tensor([1.0])),
    "repeat_interleave_negative_counts": lambda t, x: t.repeat_interleave(_long(t, [1, -1])),
    "repeat_interleave_output_size": lambda t, x: x.repeat_interleave(2, 0, output_size=5),
    "repeat_interleave_counts_size": lambda t, x: t.repeat_interleave(_long(t, [1]), output_size=2),
    "repeat_interleave_bool": lambda t, x: x.repeat_interleave(True),
    "unravel_index_float": lambda t, x: t.unravel_index(x, (2, 3)),
    "unravel_index_negative_shape": lambda t, x: t.unravel_index(_long(t, [1]), (-1, 3)),
    "unravel_index_shape_type": lambda t, x: t.unravel_index(_long(t, [1]), 2.0),
    "nonzero_static_size": lambda t, x: t.nonzero_static(x, size=-1),
    "masked_scatter__ndim": lambda t, x: x.detach().masked_scatter_(_bool(t, 1, 4, 5), x),
}


@pytest.mark.parametrize("fn", OP_ERRORS.values(), ids=OP_ERRORS.keys())
def test_op_errors_match_torch(fn, torch):
    _same_as_torch(torch, fn, A)


def test_masked_fill_tensor_value_gets_gradient(torch):
    results = []
    for lib in (hookgrad, torch):
        x = lib.tensor(A, requires_grad=True)
        value = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        y = x.masked_fill(x > 0, value)
        results.append((y, lib.autograd.grad((y * y).sum(), (x, value))))
    assert_close(*results)


def test_scatter_src_larger_than_index_gets_zero_gradient_elsewhere():
    # torch's backward fails for this; hookgrad pads the gradient of the unused part.
    x = hookgrad.tensor(A[:3], requires_grad=True)
    src = hookgrad.tensor(X[1], requires_grad=True)
    index = hookgrad.tensor([[1, 0], [4, 2]])
    (grad,) = hookgrad.autograd.grad(x.scatter(1, index, src).sum(), src)
    assert grad.tolist()[:2] == [[1.0, 1.0, 0.0, 0.0, 0.0]] * 2
    assert grad[2:].sum().item() == 0.0
    for op in ("scatter", "scatter_add"):
        fn = lambda x, src: getattr(x, op)(1, index, src) ** 2  # noqa: E731, B023
        assert hookgrad.autograd.gradgradcheck(fn, (x, src))


@pytest.mark.parametrize("as_tuple", [False, True])
@pytest.mark.parametrize("data", [A > 0, np.array(2.0), np.array(0), np.zeros((2, 0))])
def test_nonzero_matches_torch(data, as_tuple, torch):
    ours = hookgrad.nonzero(hookgrad.tensor(data), as_tuple=as_tuple)
    theirs = torch.nonzero(torch.tensor(data), as_tuple=as_tuple)
    assert_close(ours, theirs, 0, 0)
    if not as_tuple:
        assert_close(hookgrad.tensor(data).argwhere(), torch.argwhere(torch.tensor(data)), 0, 0)


def test_nonzero_is_not_differentiable():
    x = hookgrad.tensor([0.0, 2.0], requires_grad=True)
    assert not x.nonzero().requires_grad


def test_masked_fill_zero_fast_path_matches_torch_with_signs_and_infinities(torch):
    data = [[-1.5, 2.0, float("inf")], [float("-inf"), float("nan"), -0.0]]
    masks = [[True, False, True], [False, True, True]]
    ours = hookgrad.tensor(data).masked_fill(hookgrad.tensor(masks), 0)
    theirs = torch.tensor(data).masked_fill(torch.tensor(masks), 0)
    assert repr(ours) == repr(theirs)
    assert np.array_equal(np.signbit(ours.numpy()), np.signbit(theirs.numpy()))
