"""Op cases: indexing (``[]``, index_put, gather, scatter, index_select, masks, take ...).

Index tensors and masks are ``Const`` inputs; several cases repeat an index on purpose,
since the backward must add up the gradients of repeated positions.
"""

import numpy as np

from tests.ops.cases.spec import Const, OpCase


def _ints(*rows):
    """A fixed int64 index array."""
    return Const(lambda r: np.array(rows[0] if len(rows) == 1 else rows, dtype=np.int64))


def _mask(shape):
    """A random bool mask with at least one true and one false element."""

    def make(rng):
        mask = rng.random(shape) > 0.5
        mask.flat[0], mask.flat[-1] = True, False
        return mask

    return Const(make)


def _permutations(rows, n, k):
    """``rows`` index rows, each ``k`` distinct positions out of ``n`` (no repeats)."""
    return Const(lambda r: np.stack([r.permutation(n)[:k] for _ in range(rows)]))


GETITEM = [
    OpCase("getitem_int", lambda t, a: a[1], ((3, 4),)),
    OpCase("getitem_neg_int_slice", lambda t, a: a[-1, 1:], ((3, 4),)),
    OpCase("getitem_step", lambda t, a: a[::2, 1::2], ((5, 4),)),
    OpCase("getitem_none_ellipsis", lambda t, a: a[None, ..., 0], ((2, 3, 4),)),
    OpCase("getitem_scalar", lambda t, a: a[1, 2], ((3, 4),)),
    OpCase("getitem_list_dup", lambda t, a: a[[0, 0, 2]], ((3, 4),)),
    OpCase("getitem_tensor_dup", lambda t, a, i: a[i], ((3, 4), _ints([0, 2], [2, 2]))),
    OpCase("getitem_0dim_tensor", lambda t, a, i: a[i], ((3, 4), Const(lambda r: np.array(1)))),
    OpCase(
        "getitem_broadcast",
        lambda t, a, i, j: a[i, j],
        ((3, 4), _ints([0], [2], [2]), _ints(3, 0, 3)),
    ),
    OpCase(
        "getitem_split_by_slice",
        lambda t, a, i, j: a[i, :, j],
        ((3, 4, 5), _ints(0, 2, 2), _ints(4, 1, 4)),
    ),
    OpCase("getitem_int_then_index", lambda t, a, i: a[i, 1:, 0], ((3, 4, 5), _ints(2, 0, 2))),
    OpCase("getitem_slice_index_none", lambda t, a, i: a[1:, i, None], ((3, 4, 2), _ints(3, 3))),
    OpCase("getitem_mask", lambda t, a, m: a[m], ((3, 4, 2), _mask((3, 4)))),
    OpCase("getitem_mask_inner", lambda t, a, m: a[:, m], ((2, 5), _mask((5,)))),
    OpCase("getitem_python_bool", lambda t, a: a[True] * a[1:, True], ((3, 2),)),
]

INDEX_PUT = [
    OpCase(
        "index_put_accumulate_dup",
        lambda t, a, i, v: t.index_put(a, (i,), v, accumulate=True),
        ((4, 3), _ints(1, 3, 1), (3, 3)),
    ),
    OpCase(
        "index_put_broadcast_values",
        lambda t, a, i, j, v: a.index_put((i, j), v),
        ((4, 3), _ints(0, 3, 2), _ints(1, 1, 2), ()),
    ),
    OpCase(
        "index_put_mask", lambda t, a, m, v: t.index_put(a, (m,), v), ((3, 4), _mask((3,)), (4,))
    ),
]

GATHER_SCATTER = [
    OpCase("gather_dup", lambda t, a, i: a.gather(1, i), ((3, 4), _ints([0, 0, 3], [1, 1, 1]))),
    OpCase("gather_dim0_small", lambda t, a, i: t.gather(a, 0, i), ((3, 4), _ints([2, 0], [1, 2]))),
    OpCase(
        "scatter_src",
        lambda t, a, i, s: a.scatter(1, i, s),
        ((3, 5), _permutations(3, 5, 2), (3, 2)),
    ),
    OpCase(
        "scatter_src_dim0",
        lambda t, a, i, s: t.scatter(a, 0, i, s),
        ((4, 2), Const(lambda r: np.array([[3, 0], [1, 3]])), (2, 2)),
    ),
    OpCase("scatter_value", lambda t, a, i: a.scatter(1, i, 1.5), ((3, 5), _permutations(3, 5, 2))),
    OpCase(
        "scatter_add_dup",
        lambda t, a, i, s: a.scatter_add(1, i, s),
        ((2, 4), _ints([0, 0, 3], [2, 2, 2]), (2, 3)),
    ),
    OpCase(
        "scatter_add_small_index",
        lambda t, a, i, s: t.scatter_add(a, 0, i, s),
        ((3, 4), _ints([[0, 2]]), (1, 2)),
    ),
]

INDEX_SELECT_ADD = [
    OpCase("index_select_dup", lambda t, a, i: a.index_select(1, i), ((3, 4), _ints(3, 0, 3))),
    OpCase("index_select_dim0", lambda t, a, i: t.index_select(a, 0, i), ((3, 2, 2), _ints(2, 2))),
    OpCase(
        "index_add_dup",
        lambda t, a, i, s: a.index_add(0, i, s),
        ((3, 4), _ints(2, 0, 2), (3, 4)),
    ),
    OpCase(
        "index_add_alpha",
        lambda t, a, i, s: t.index_add(a, 1, i, s, alpha=-2.5),
        ((2, 4), _ints(1, 1), (2, 2)),
    ),
]

MASKS_TAKE = [
    OpCase(
        "masked_fill_tensor_value",
        lambda t, a, m, v: a.masked_fill(m, v),
        ((3, 4), _mask((3, 4)), ()),
    ),
    OpCase("masked_fill_bcast_self", lambda t, a, m: a.masked_fill(m, -1.0), ((4,), _mask((3, 4)))),
    OpCase("masked_select", lambda t, a, m: a.masked_select(m), ((3, 4), _mask((3, 4)))),
    OpCase("masked_select_bcast", lambda t, a, m: t.masked_select(a, m), ((3, 1), _mask((3, 4)))),
    OpCase("take_dup_neg", lambda t, a, i: a.take(i), ((3, 4), _ints([0, -1], [11, 0]))),
    OpCase(
        "take_along_dim", lambda t, a, i: a.take_along_dim(i, dim=1), ((3, 4), _ints([0], [3], [3]))
    ),
    OpCase(
        "take_along_dim_bcast",
        lambda t, a, i: t.take_along_dim(a, i, 0),
        ((3, 1), _ints([2, 2, 0, 1], [0, 1, 1, 2])),
    ),
    OpCase("take_along_dim_flat", lambda t, a, i: a.take_along_dim(i), ((2, 3), _ints(5, 0, 5))),
]

REDUCTIONS = [
    OpCase(
        "scatter_reduce_sum_excl",
        lambda t, a, i, s: a.scatter_reduce(1, i, s, "sum", include_self=False),
        ((3, 5), _ints([0, 0, 3], [2, 2, 2], [4, 1, 0]), (3, 3)),
    ),
    OpCase(
        "scatter_reduce_prod",
        lambda t, a, i, s: t.scatter_reduce(a, 0, i, s, "prod"),
        ((3, 2), _ints([0, 2], [0, 0]), (2, 2)),
    ),
    OpCase(
        "scatter_reduce_mean_excl",
        lambda t, a, i, s: a.scatter_reduce(-1, i, s, "mean", include_self=False),
        ((2, 4), _ints([1, 1, 3], [0, 2, 0]), (2, 3)),
    ),
    OpCase(
        "scatter_reduce_amax",
        lambda t, a, i, s: a.scatter_reduce(1, i, s, "amax"),
        ((2, 4), _ints([1, 1, 3], [0, 2, 0]), (2, 3)),
        distinct=True,
    ),
    OpCase(
        "scatter_reduce_amin_excl",
        lambda t, a, i, s: a.scatter_reduce(0, i, s, "amin", include_self=False),
        ((3, 2), _ints([2, 0], [2, 0]), (2, 2)),
        distinct=True,
    ),
    OpCase(
        "index_reduce_prod",
        lambda t, a, i, s: a.index_reduce(1, i, s, "prod"),
        ((2, 4), _ints(3, 0, 3), (2, 3)),
    ),
    OpCase(
        "index_reduce_mean_excl",
        lambda t, a, i, s: t.index_reduce(a, 0, i, s, "mean", include_self=False),
        ((3, 2), _ints(2, 2), (2, 2)),
    ),
    OpCase(
        "index_reduce_amax_excl",
        lambda t, a, i, s: a.index_reduce(-1, i, s, "amax", include_self=False),
        ((2, 3), _ints(0, 2, 0), (2, 3)),
        distinct=True,
    ),
    OpCase(
        "index_reduce_amin",
        lambda t, a, i, s: a.index_reduce(0, i, s, "amin"),
        ((3, 2), _ints(1, 1), (2, 2)),
        distinct=True,
    ),
    OpCase("index_copy", lambda t, a, i, s: a.index_copy(1, i, s), ((2, 4), _ints(3, 0), (2, 2))),
    OpCase(
        "index_copy_0dim_source",
        lambda t, a, i, s: t.index_copy(a, 0, i, s),
        ((3,), Const(lambda r: np.array(1)), ()),
    ),
    OpCase("repeat_interleave", lambda t, a: a.repeat_interleave(2), ((2, 3),)),
    OpCase("repeat_interleave_dim", lambda t, a: t.repeat_interleave(a, 3, dim=-1), ((2, 2),)),
    OpCase(
        "repeat_interleave_tensor",
        lambda t, a, r: a.repeat_interleave(r, dim=0),
        ((3, 2), _ints(2, 0, 1)),
    ),
    OpCase(
        "inplace_indexing",
        lambda t, a, s, v: (
            (a * 1)
            .index_copy_(0, t.tensor([2]), s)
            .index_fill_(1, t.tensor([1]), v)
            .masked_scatter_(t.tensor([True, False, False]), s * 2)
            .put_(t.tensor([0, 8]), v.expand(2), accumulate=True)
        ),
        ((3, 3), (1, 3), ()),
    ),
    OpCase(
        "inplace_reductions",
        lambda t, a, s: (
            (a * 1).scatter_reduce_(1, t.tensor([[0, 0], [2, 1]]), s, "prod", include_self=False)
            * 2
        ).index_reduce_(1, t.tensor([2, 2]), s, "mean"),
        ((2, 3), (2, 2)),
    ),
]

CASES: list[OpCase] = [
    *GETITEM,
    *INDEX_PUT,
    *GATHER_SCATTER,
    *INDEX_SELECT_ADD,
    *MASKS_TAKE,
    *REDUCTIONS,
]
