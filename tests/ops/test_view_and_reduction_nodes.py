"""The hand-written view, joining, indexing, reduction and product nodes against torch's,
for each op and option set:

- the graph under the result (node classes with their edges, as positions in a depth-first
  walk; several outputs: the nodes under all of them and each output's ``output_nr``);
- every node's ``_saved_*`` and ``_raw_saved_*`` attributes in that graph (names and
  values: numbers and dims as torch shows them, negative dims as given; tensors close
  with the same dtype, ``requires_grad`` and ``grad_fn``; tuples of tensors alike);
- the order default pack hooks see the saved tensors in;
- the number of grads a node's pre- and post-hooks see;
- the graph a ``create_graph=True`` gradient records (torch's double-backward nodes, node
  by node with their edges and ``_saved_*`` attributes), and the order node pre-hooks
  fire in during a second backward through it, with its values.

Each row is ``(id, fn, leaves)``: ``fn(t, *leaves)`` runs the op in library ``t`` on
float64 leaves of the shapes ``leaves`` (``("pos", shape)``: values in (0.5, 1.5)); other
operands (indices, masks) are made inside ``fn``. ``fn`` may return a tuple: its outputs
that require grad are the results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.oracle import (
    assert_close,
    edge_positions,
    outcome,
    packed_arrays,
    reachable_nodes,
    signed,
)


def _long(t: Any, values: Any) -> Any:
    return t.tensor(np.asarray(values, dtype=np.int64))


GATHER_INDEX = np.random.default_rng(1).integers(0, 4, (3, 2, 5))
MASK = np.random.default_rng(2).uniform(size=(3, 4, 5)) > 0.5
ROW_MASK = np.array([True, False, True, True])


def _mask(t: Any) -> Any:
    return t.tensor(MASK)


Row = tuple[str, Callable[..., Any], list[Any]]
X = [(3, 4, 5)]

ROWS: list[Row] = [
    # reshape family
    ("view", lambda t, x: x.view(12, 5), X),
    ("view_minus_one", lambda t, x: x.view(-1), X),
    ("reshape_contiguous", lambda t, x: x.reshape(4, 15), X),
    ("reshape_alias", lambda t, x: x.transpose(0, 1)[:, :1].reshape(4, 5), X),
    ("reshape_copy", lambda t, x: x.transpose(0, 1).reshape(20, 3), X),
    ("view_as", lambda t, x, y: x.view_as(y), [(3, 4, 5), (12, 5)]),
    ("reshape_as", lambda t, x, y: x.reshape_as(y), [(3, 4, 5), (60,)]),
    ("flatten", lambda t, x: x.flatten(1), X),
    ("unflatten", lambda t, x: x.unflatten(-2, (2, 2)), X),
    ("ravel", lambda t, x: x.transpose(0, 2).ravel(), X),
    ("contiguous", lambda t, x: x.transpose(0, 1).contiguous(), X),
    ("expand", lambda t, x: x.expand(2, 3, 4, 5), X),
    ("expand_size_one", lambda t, x: x[:, :1].expand(3, -1, 5).expand(3, 4, 5), X),
    ("expand_as", lambda t, x, y: x.expand_as(y), [(4, 1), (2, 4, 3)]),
    ("sum_to_size", lambda t, x: x.sum_to_size(4, 1), X),
    # dim order
    ("transpose", lambda t, x: x.transpose(0, -1), X),
    ("swapaxes", lambda t, x: x.swapaxes(2, 1), X),
    ("t", lambda t, x: x.t(), [(3, 4)]),
    ("t_vector", lambda t, x: x.t(), [(3,)]),
    ("mT", lambda t, x: x.mT, X),
    ("T", lambda t, x: x.T, [(3, 4)]),
    ("permute", lambda t, x: x.permute(2, 0, 1), X),
    ("permute_negative", lambda t, x: x.permute(-1, 0, -2), X),
    ("movedim", lambda t, x: x.movedim(0, -1), X),
    # squeeze / unsqueeze
    ("squeeze", lambda t, x: x.squeeze(), [(3, 1, 5, 1)]),
    ("squeeze_dim", lambda t, x: x.squeeze(1), [(3, 1, 5)]),
    ("squeeze_dim_negative", lambda t, x: x.squeeze(-2), [(3, 1, 5)]),
    ("squeeze_dim_not_one", lambda t, x: x.squeeze(0), [(3, 1, 5)]),
    ("squeeze_dims", lambda t, x: x.squeeze((1, -1)), [(3, 1, 5, 1)]),
    ("unsqueeze", lambda t, x: x.unsqueeze(1), X),
    ("unsqueeze_negative", lambda t, x: x.unsqueeze(-1), X),
    # joining and splitting
    ("cat", lambda t, x, y: t.cat([x, y], 1), [(3, 4, 5), (3, 2, 5)]),
    ("cat_negative", lambda t, x, y: t.cat([x, y.tanh(), x], -1), [(3, 4, 5), (3, 4, 2)]),
    ("cat_constant", lambda t, x: t.cat([t.ones(3, 4, 5, dtype=t.float64), x]), X),
    ("stack", lambda t, x, y: t.stack([x, y]), [(3, 4), (3, 4)]),
    ("stack_negative", lambda t, x, y: t.stack([x, y], -1), [(3, 4), (3, 4)]),
    ("split", lambda t, x: x.split(2, 1), X),
    ("split_negative", lambda t, x: x.split(2, -1), X),
    ("split_one_piece", lambda t, x: x.split(2, 1)[1], X),
    ("split_with_sizes", lambda t, x: x.split([1, 3], 1), X),
    ("split_with_sizes_negative", lambda t, x: x.split([3, 2], -1)[0], X),
    ("chunk", lambda t, x: x.chunk(2, 1), X),
    ("chunk_negative", lambda t, x: x.chunk(3, -1), X),
    ("unbind", lambda t, x: x.unbind(1), X),
    ("unbind_negative", lambda t, x: x.unbind(-1)[2], X),
    ("tensor_split", lambda t, x: x.tensor_split(2, 1), X),
    ("tensor_split_indices", lambda t, x: x.tensor_split([1, 4], -1), X),
    ("narrow", lambda t, x: x.narrow(1, 1, 2), X),
    ("narrow_negative", lambda t, x: x.narrow(-1, -3, 2), X),
    ("select", lambda t, x: x.select(1, 2), X),
    ("select_negative", lambda t, x: x.select(-1, -2), X),
    ("slice_scatter", lambda t, x, y: x.slice_scatter(y, 1, 0, 4, 2), [(3, 4, 5), (3, 2, 5)]),
    ("slice_scatter_negative", lambda t, x, y: x.slice_scatter(y, -1, -2), [(3, 4), (3, 2)]),
    ("select_scatter", lambda t, x, y: x.select_scatter(y, 1, -1), [(3, 4, 5), (3, 5)]),
    ("diagonal", lambda t, x: x.diagonal(1, 0, 2), X),
    ("diagonal_negative", lambda t, x: x.diagonal(-1, -1, 0), X),
    ("diagonal_scatter", lambda t, x, y: x.diagonal_scatter(y, 1, -1, 0), [(3, 4, 5), (4, 2)]),
    ("diag_matrix", lambda t, x: x.diag(), [(4, 5)]),
    ("diag_matrix_offset", lambda t, x: x.diag(-1), [(4, 5)]),
    ("diag_vector", lambda t, x: x.diag(1), [(4,)]),
    ("diag_embed", lambda t, x: x.diag_embed(), [(3, 4)]),
    ("diag_embed_dims", lambda t, x: x.diag_embed(-1, 0, -1), [(3, 4)]),
    ("tril", lambda t, x: x.tril(1), X),
    ("triu", lambda t, x: x.triu(-1), X),
    # reordering copies
    ("flip", lambda t, x: x.flip(0, -1), X),
    ("flip_one", lambda t, x: x.flip(1), X),
    ("roll", lambda t, x: x.roll(1, 2), X),
    ("roll_dims", lambda t, x: x.roll((1, -2), (0, -1)), X),
    ("roll_flat", lambda t, x: x.roll(3), X),
    ("repeat", lambda t, x: x.repeat(2, 1, 1, 3), X),
    ("repeat_same", lambda t, x: x.repeat(1, 1, 1), X),
    ("repeat_zero", lambda t, x: x.repeat(0, 2), [(3,)]),
    ("tile", lambda t, x: x.tile((2,)), X),
    # indexing
    ("index_int", lambda t, x: x[1], X),
    ("index_negative_int", lambda t, x: x[:, -1], X),
    ("index_slice", lambda t, x: x[1:3], X),
    ("index_slice_negative", lambda t, x: x[:, -3:-1], X),
    ("index_step", lambda t, x: x[..., ::2], X),
    ("index_none", lambda t, x: x[None], X),
    ("index_alias", lambda t, x: x[...], X),
    ("index_mixed_basic", lambda t, x: x[0, None, 1:, ::2], X),
    ("index_list", lambda t, x: x[[0, 2]], X),
    ("index_tensor_2d", lambda t, x: x[:, _long(t, [[0, 1], [2, 3]])], X),
    ("index_after_slice", lambda t, x: x[:, [0, 2], 1:], X),
    ("index_two_tensors", lambda t, x: x[_long(t, [0, 2]), :, _long(t, [1, 4])], X),
    ("index_separated", lambda t, x: x[[0, 1], 1:, [1, 4]], X),
    ("index_int32", lambda t, x: x[t.tensor([2, 0], dtype=t.int32)], X),
    ("index_mask", lambda t, x: x[_mask(t)], X),
    ("index_row_mask", lambda t, x: x[:, t.tensor(ROW_MASK)], X),
    ("index_true", lambda t, x: x[True], X),
    ("index_put", lambda t, x, v: x.index_put((_long(t, [0, 1]),), v), [(3, 4, 5), (4, 5)]),
    (
        "index_put_accumulate",
        lambda t, x, v: x.index_put((_long(t, [0, 0]), _long(t, [1, 3])), v, accumulate=True),
        [(3, 4, 5), (5,)],
    ),
    (
        "index_put_mask",
        lambda t, x, v: t.index_put(x, (t.tensor(ROW_MASK),), v),
        [(4, 5), (5,)],
    ),
    ("setitem", lambda t, x, v: _setitem(x, v), [(3, 4, 5), (4,)]),
    ("gather", lambda t, x: x.gather(1, _long(t, GATHER_INDEX)), X),
    ("gather_negative", lambda t, x: x.gather(-2, _long(t, GATHER_INDEX)), X),
    (
        "take_along_dim",
        lambda t, x: x.take_along_dim(_long(t, GATHER_INDEX[:, :1]), 1),
        X,
    ),
    ("take_along_dim_flat", lambda t, x: x.take_along_dim(_long(t, [3, 0, 7])), X),
    (
        "scatter",
        lambda t, x, s: x.scatter(1, _long(t, GATHER_INDEX[:, :1]), s),
        [(3, 4, 5), (3, 1, 5)],
    ),
    ("scatter_value", lambda t, x: x.scatter(-2, _long(t, GATHER_INDEX), 1.5), X),
    (
        "scatter_add",
        lambda t, x, s: x.scatter_add(1, _long(t, GATHER_INDEX), s),
        [(3, 4, 5), (3, 2, 5)],
    ),
    ("index_select", lambda t, x: x.index_select(1, _long(t, [0, 2, 2])), X),
    ("index_select_negative", lambda t, x: x.index_select(-1, _long(t, [4, 0])), X),
    (
        "index_add",
        lambda t, x, s: x.index_add(1, _long(t, [0, 2]), s),
        [(3, 4, 5), (3, 2, 5)],
    ),
    (
        "index_add_alpha",
        lambda t, x, s: x.index_add(-2, _long(t, [3, 3]), s, alpha=2.0),
        [(3, 4, 5), (3, 2, 5)],
    ),
    ("masked_fill", lambda t, x: x.masked_fill(_mask(t), 2.0), X),
    ("masked_fill_broadcast", lambda t, x: x.masked_fill(t.tensor(ROW_MASK[:, None]), 2.0), X),
    (
        "masked_fill_tensor",
        lambda t, x, v: x.masked_fill(_mask(t), v),
        [(3, 4, 5), ()],
    ),
    ("masked_select", lambda t, x: x.masked_select(_mask(t)), X),
    ("take", lambda t, x: x.take(_long(t, [[0, 7], [-1, 7]])), X),
    ("put", lambda t, x, s: x.put(_long(t, [[0, 7], [-1, 3]]), s), [(3, 4, 5), (2, 2)]),
    (
        "put_accumulate",
        lambda t, x, s: t.put(x, _long(t, [0, 7, 7]), s, accumulate=True),
        [(3, 4, 5), (3,)],
    ),
    ("index_fill", lambda t, x: x.index_fill(1, _long(t, [0, 2, 2]), 1.5), X),
    (
        "index_fill_tensor",
        lambda t, x, v: x.index_fill(-1, _long(t, [4, 1, 4]), v),
        [(3, 4, 5), ()],
    ),
    (
        "masked_scatter",
        lambda t, x, s: x.masked_scatter(_mask(t), s),
        [(3, 4, 5), (8, 9)],
    ),
    (
        "masked_scatter_broadcast",
        lambda t, x, s: x.masked_scatter(t.tensor(MASK), s),
        [(4, 5), (70,)],
    ),
    # scatter_reduce / index_reduce / index_copy / repeat_interleave
    (
        "scatter_reduce_sum",
        lambda t, x, s: x.scatter_reduce(1, _long(t, GATHER_INDEX), s, "sum"),
        [(3, 4, 5), (3, 2, 5)],
    ),
    (
        "scatter_reduce_prod",
        lambda t, x, s: x.scatter_reduce(-2, _long(t, GATHER_INDEX), s, "prod"),
        [(3, 4, 5), (3, 2, 5)],
    ),
    (
        "scatter_reduce_mean_excl",
        lambda t, x, s: x.scatter_reduce(1, _long(t, GATHER_INDEX), s, "mean", include_self=False),
        [(3, 4, 5), (3, 2, 5)],
    ),
    (
        "scatter_reduce_amax",
        lambda t, x, s: x.scatter_reduce(1, _long(t, GATHER_INDEX), s, "amax"),
        [(3, 4, 5), (3, 2, 5)],
    ),
    (
        "index_reduce_prod_excl",
        lambda t, x, s: x.index_reduce(1, _long(t, [3, 0, 3]), s, "prod", include_self=False),
        [(3, 4, 5), (3, 3, 5)],
    ),
    (
        "index_reduce_amin",
        lambda t, x, s: x.index_reduce(-1, _long(t, [4, 4]), s, "amin"),
        [(3, 4, 5), (3, 4, 2)],
    ),
    (
        "index_reduce_mean",
        lambda t, x, s: x.index_reduce(0, _long(t, [2, 0]), s, "mean"),
        [(3, 4, 5), (2, 4, 5)],
    ),
    ("index_copy", lambda t, x, s: x.index_copy(-2, _long(t, [3, 1]), s), [(3, 4, 5), (3, 2, 5)]),
    ("repeat_interleave", lambda t, x: x.repeat_interleave(2, dim=-1), X),
    ("repeat_interleave_flat", lambda t, x: x.repeat_interleave(3), [(2, 3)]),
    (
        "repeat_interleave_tensor",
        lambda t, x: x.repeat_interleave(_long(t, [2, 0, 1, 1]), dim=-2),
        X,
    ),
    # rotations, windows, blocks, copies
    ("rot90", lambda t, x: x.rot90(1, (2, 0)), X),
    ("rot90_half", lambda t, x: x.rot90(-2), X),
    ("unfold", lambda t, x: x.unfold(-1, 3, 1), X),
    ("unfold_step", lambda t, x: x.unfold(1, 2, 2), X),
    ("block_diag", lambda t, x, y, z: t.block_diag(x, y, z), [(2, 3), (4,), ()]),
    ("narrow_copy", lambda t, x: t.narrow_copy(x, 2, 1, 3), X),
    ("unsafe_split", lambda t, x: t.unsafe_split(x, 2, -1), X),
    ("unsafe_split_with_sizes", lambda t, x: x.unsafe_split_with_sizes([3, 1], 1), X),
    ("transpose_copy", lambda t, x: t.transpose_copy(x, 0, -1), X),
    ("squeeze_copy", lambda t, x: t.squeeze_copy(x, -2), [(3, 1, 5)]),
    ("split_copy", lambda t, x: t.split_copy(x, 2, 1), X),
    ("unfold_copy", lambda t, x: t.unfold_copy(x, 0, 2, 1), X),
    ("combinations", lambda t, x: t.combinations(x), [(4,)]),
    # sum / mean / var / std
    ("sum", lambda t, x: x.sum(), X),
    ("sum_dim", lambda t, x: x.sum(1), X),
    ("sum_dims_negative", lambda t, x: x.sum((-1, 0)), X),
    ("sum_keepdim", lambda t, x: x.sum(-2, keepdim=True), X),
    ("sum_dim_none", lambda t, x: x.sum(dim=None), X),
    ("sum_empty_dims", lambda t, x: x.sum(()), X),
    ("sum_scalar_dim", lambda t, x: x.sum(-1), [()]),
    ("mean", lambda t, x: x.mean(), X),
    ("mean_dims_negative", lambda t, x: x.mean((-1, -2)), X),
    ("mean_dim_keepdim", lambda t, x: x.mean(-1, keepdim=True), X),
    ("mean_dim_none", lambda t, x: x.mean(dim=None), X),
    ("mean_list", lambda t, x: x.mean([2, 0]), X),
    ("var", lambda t, x: x.var(), X),
    ("var_dim", lambda t, x: x.var(1), X),
    ("var_dims", lambda t, x: x.var((-1, 0), keepdim=True, correction=0), X),
    ("std", lambda t, x: x.std(-1, unbiased=False), X),
    ("std_dims", lambda t, x: x.std((0, -1), keepdim=True, correction=2), X),
    ("var_mean", lambda t, x: t.var_mean(x), X),
    ("var_mean_dim", lambda t, x: t.var_mean(x, 1), X),
    ("var_mean_var_only", lambda t, x: t.var_mean(x, -1, correction=2)[0], X),
    ("var_mean_mean_only", lambda t, x: t.var_mean(x, -1)[1], X),
    ("var_mean_dims_keepdim", lambda t, x: t.var_mean(x, (0, -1), keepdim=True), X),
    ("var_mean_unbiased", lambda t, x: t.var_mean(x, unbiased=False), X),
    ("var_mean_empty_dims", lambda t, x: t.var_mean(x, ()), X),
    ("std_mean", lambda t, x: t.std_mean(x), X),
    ("std_mean_dim", lambda t, x: t.std_mean(x, 1), X),
    ("std_mean_dims", lambda t, x: t.std_mean(x, (0, -1), keepdim=True, correction=0), X),
    ("std_mean_std_only", lambda t, x: t.std_mean(x, -2)[0], X),
    # prod
    ("prod", lambda t, x: x.prod(), X),
    ("prod_zero", lambda t, x: (x * _zero_at(t, (1, 2, 3))).prod(), X),
    ("prod_dim", lambda t, x: x.prod(1), X),
    ("prod_dim_keepdim", lambda t, x: x.prod(-1, keepdim=True), X),
    ("prod_dim_zero", lambda t, x: (x * _zero_at(t, (1, 2, 3))).prod(1), X),
    ("prod_scalar", lambda t, x: x.prod(0), [()]),
    ("prod_dtype", lambda t, x: x.float().prod(dtype=t.float64), X),
    (
        "prod_dim_dtype",
        lambda t, x: (x * _zero_at(t, (3, 4, 5))).float().prod(1, dtype=t.float64),
        X,
    ),
    ("cumprod_dtype", lambda t, x: x.float().cumprod(1, dtype=t.float64), X),
    ("cumsum_dtype", lambda t, x: x.float().cumsum(-1, dtype=t.float64), X),
    ("sum_dtype", lambda t, x: x.float().sum((0, -1), dtype=t.float64), X),
    ("mean_dtype", lambda t, x: x.float().mean(-2, dtype=t.float64), X),
    # max / min / median
    ("max", lambda t, x: x.max(), X),
    ("min", lambda t, x: x.min(), X),
    ("median", lambda t, x: x.median(), X),
    ("max_dim", lambda t, x: x.max(1), X),
    ("max_dim_values", lambda t, x: x.max(1)[0], X),
    ("min_dim_keepdim", lambda t, x: x.min(-1, keepdim=True), X),
    ("median_dim", lambda t, x: x.median(1), X),
    ("median_dim_negative", lambda t, x: x.median(-1, keepdim=True)[0], X),
    ("max_dim_scalar", lambda t, x: x.max(0)[0], [()]),
    ("amax", lambda t, x: x.amax((0, -1)), X),
    ("amax_all", lambda t, x: x.amax(), X),
    ("amin_keepdim", lambda t, x: x.amin(1, keepdim=True), X),
    # logsumexp / norm
    ("logsumexp", lambda t, x: x.logsumexp(-1), X),
    ("logsumexp_dims", lambda t, x: x.logsumexp((0, -1), keepdim=True), X),
    ("norm", lambda t, x: x.norm(), X),
    ("norm_dim", lambda t, x: x.norm(dim=-1), X),
    ("norm_p1_dims", lambda t, x: x.norm(p=1, dim=(0, -1)), X),
    ("norm_inf", lambda t, x: x.norm(p=float("inf"), dim=1, keepdim=True), X),
    ("norm_p3", lambda t, x: x.norm(p=3, dim=(-2, -1)), X),
    # scans and softmax
    ("cumsum", lambda t, x: x.cumsum(1), X),
    ("cumsum_negative", lambda t, x: x.cumsum(-1), X),
    ("cumprod", lambda t, x: x.cumprod(1), X),
    ("cumprod_negative", lambda t, x: x.cumprod(-2), X),
    ("cumprod_zero", lambda t, x: (x * _zero_at(t, (1, 2, 3))).cumprod(-2), X),
    ("softmax", lambda t, x: x.softmax(-1), X),
    ("log_softmax", lambda t, x: x.log_softmax(1), X),
    # where and clamp with tensor bounds
    ("where", lambda t, x, y: t.where(x > 0, x, y), [(3, 4, 5), (4, 5)]),
    ("where_scalar", lambda t, x: t.where(x > 0, x, 2.0), X),
    (
        "clamp_tensors",
        lambda t, x, lo, hi: x.clamp(lo, hi + 1),
        [(3, 4, 5), (5,), (4, 5)],
    ),
    ("clamp_min_tensor", lambda t, x, lo: x.clamp(min=lo), [(3, 4, 5), (5,)]),
    ("clamp_max_tensor", lambda t, x, hi: x.clamp(max=hi), [(3, 4, 5), (4, 1)]),
    ("clamp_numbers", lambda t, x: x.clamp(-0.5, 0.5), X),
    # products
    ("matmul_batched", lambda t, a, b: a @ b, [(3, 4, 5), (3, 5, 2)]),
    ("matmul_folded", lambda t, a, b: a @ b, [(3, 4, 5), (5, 2)]),
    ("matmul_matrix_vector", lambda t, a, b: a @ b, [(4, 5), (5,)]),
    ("matmul_vector_matrix", lambda t, a, b: a @ b, [(4,), (4, 5)]),
    ("matmul_batch_vector", lambda t, a, b: a @ b, [(3, 4, 5), (5,)]),
    ("matmul_dot", lambda t, a, b: a.matmul(b), [(4,), (4,)]),
    ("mm", lambda t, a, b: t.mm(a, b), [(3, 4), (4, 2)]),
    ("mm_transposed", lambda t, a, b: t.mm(a, b.t()), [(3, 4), (2, 4)]),
    ("bmm", lambda t, a, b: t.bmm(a, b), [(3, 4, 5), (3, 5, 2)]),
    ("mv", lambda t, a, b: t.mv(a, b), [(4, 5), (5,)]),
    ("dot", lambda t, a, b: t.dot(a, b), [(4,), (4,)]),
    ("vdot", lambda t, a, b: t.vdot(a, b), [(4,), (4,)]),
    ("outer", lambda t, a, b: t.outer(a, b), [(4,), (3,)]),
    ("addmm", lambda t, c, a, b: t.addmm(c, a, b), [(3, 2), (3, 4), (4, 2)]),
    (
        "addmm_scaled",
        lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=2),
        [(3, 2), (3, 4), (4, 2)],
    ),
    ("addmv", lambda t, c, a, b: t.addmv(c, a, b, alpha=3), [(4,), (4, 5), (5,)]),
    ("baddbmm", lambda t, c, a, b: t.baddbmm(c, a, b), [(3, 4, 2), (3, 4, 5), (3, 5, 2)]),
    ("addbmm", lambda t, c, a, b: t.addbmm(c, a, b), [(4, 2), (3, 4, 5), (3, 5, 2)]),
    (
        "addbmm_scaled",
        lambda t, c, a, b: t.addbmm(c, a, b, beta=2, alpha=3),
        [(4, 2), (3, 4, 5), (3, 5, 2)],
    ),
    ("addr", lambda t, c, a, b: t.addr(c, a, b), [(4, 3), (4,), (3,)]),
    ("trace", lambda t, x: x.trace(), [(4, 5)]),
    # sorting, selection and running extremes
    ("sort", lambda t, x: x.sort(), X),
    ("sort_dim_descending", lambda t, x: x.sort(0, descending=True), X),
    ("sort_stable", lambda t, x: x.sort(dim=1, stable=True)[0], X),
    ("msort", lambda t, x: t.msort(x), X),
    ("topk", lambda t, x: x.topk(2, 1), X),
    ("topk_smallest", lambda t, x: x.topk(3, largest=False)[0], X),
    ("kthvalue", lambda t, x: x.kthvalue(2, 1), X),
    ("kthvalue_keepdim", lambda t, x: x.kthvalue(3, -1, keepdim=True)[0], X),
    ("mode", lambda t, x: x.mode(1), X),
    ("nanmedian", lambda t, x: x.nanmedian(), X),
    ("nanmedian_dim", lambda t, x: x.nanmedian(-1, keepdim=True), X),
    ("cummax", lambda t, x: x.cummax(1), X),
    ("cummin", lambda t, x: x.cummin(-1)[0], X),
    ("logcumsumexp", lambda t, x: x.logcumsumexp(1), X),
    ("cumsum_inplace", lambda t, x: x.clone().cumsum_(-1), X),
    ("cumprod_inplace", lambda t, x: x.clone().cumprod_(1), X),
    # nan-ignoring reductions, aminmax and statistics
    ("nansum", lambda t, x: x.nansum(), X),
    ("nansum_dims", lambda t, x: x.nansum((0, -1), keepdim=True), X),
    ("nanmean", lambda t, x: x.nanmean(1), X),
    ("aminmax", lambda t, x: x.aminmax(), X),
    ("aminmax_dim", lambda t, x: x.aminmax(dim=1), X),
    ("aminmax_max_only", lambda t, x: x.aminmax(dim=-1, keepdim=True).max, X),
    ("quantile", lambda t, x: x.quantile(0.3), X),
    ("quantile_dim", lambda t, x: x.quantile(0.6, 1, keepdim=True), X),
    (
        "quantile_vector",
        lambda t, x: x.quantile(t.tensor([0.2, 0.7], dtype=t.float64), 0),
        X,
    ),
    ("quantile_lower", lambda t, x: x.quantile(0.3, -1, interpolation="lower"), X),
    ("nanquantile_midpoint", lambda t, x: x.nanquantile(0.5, 1, interpolation="midpoint"), X),
    ("cov", lambda t, x: t.cov(x), [(3, 5)]),
    (
        "cov_weights",
        lambda t, x: t.cov(x, fweights=_long(t, [1, 2, 1, 3, 1]), aweights=x[0].abs()),
        [(3, 5)],
    ),
    ("corrcoef", lambda t, x: t.corrcoef(x), [(3, 5)]),
    ("diff", lambda t, x: x.diff(), X),
    ("diff_twice", lambda t, x: x.diff(2, 1), X),
    ("diff_prepend", lambda t, x, p: t.diff(x, dim=0, prepend=p), [(3, 4, 5), (2, 4, 5)]),
    ("gradient", lambda t, x: t.gradient(x), X),
    ("gradient_edge_order", lambda t, x: t.gradient(x, spacing=2.0, dim=1, edge_order=2), X),
    (
        "gradient_coordinates",
        lambda t, x: t.gradient(x, spacing=(t.tensor([0.0, 1.0, 3.0, 4.5]),), dim=1),
        X,
    ),
    ("trapezoid", lambda t, x: t.trapezoid(x), X),
    ("trapezoid_dx", lambda t, x: t.trapezoid(x, dx=0.5, dim=1), X),
    ("trapezoid_x", lambda t, y, x: t.trapezoid(y, x, dim=0), [(3, 4, 5), (3,)]),
    ("cumulative_trapezoid", lambda t, x: t.cumulative_trapezoid(x, dim=1), X),
    # in-place comparisons
    ("eq_scalar_inplace", lambda t, x: x.clone().eq_(0.5), X),
    ("lt_tensor_inplace", lambda t, x, y: x.clone().lt_(y), [(3, 4, 5), (4, 5)]),
    ("ge_tensor_inplace", lambda t, x, y: x.clone().ge_(y.tanh()), [(3, 4, 5), (5,)]),
    (
        "cumulative_trapezoid_x",
        lambda t, y, x: t.cumulative_trapezoid(y, x),
        [(3, 4, 5), (5,)],
    ),
]


def _setitem(x: Any, v: Any) -> Any:
    y = x.clone()
    y[1, :, 2] = v
    return y


def _zero_at(t: Any, shape: tuple[int, ...]) -> Any:
    """Ones of ``shape`` with a zero at [0, 1, 2] (broadcast over x's (3, 4, 5))."""
    ones = np.ones((3, 4, 5))
    ones[0, 1, 2] = 0.0
    ones[2, 3, 1] = 0.0
    return t.tensor(ones)


IDS = [row[0] for row in ROWS]

# Rows whose double-backward graph goes through a node owned elsewhere that does not show
# torch's ``_saved_*`` yet: ``x[i] = v`` regenerates its view's node as AsStridedBackward0
# (hookgrad/ops/inplace.py), without ``_saved_size``, ``_saved_stride`` and
# ``_saved_storage_offset``. The graph itself is compared; that node's attributes are not.
FOREIGN_SAVED = {"setitem": {"AsStridedBackward0"}}

# Rows whose double backward runs the formulas of a table entry with two differentiable
# inputs (mm, mul, addmm ...): torch's generated code computes the inputs' gradients in
# the alphabetical order of their names (``mat2`` before ``self``), the table in input
# order (hookgrad/ops/table.py), so a second backward runs some nodes in another order.
# The nodes that fire and the values are compared; their order is not.
TABLE_FORMULA_ORDER = {
    "matmul_folded",
    "matmul_vector_matrix",
    "mm_transposed",
    "outer",
    "addmm_scaled",
    "cov",
    "cov_weights",
    "corrcoef",
}


# -- helpers ---------------------------------------------------------------------------------


def _leaves(t: Any, specs: list[Any]) -> list[Any]:
    rng = np.random.default_rng(0)
    leaves = []
    for spec in specs:
        if spec and spec[0] == "pos":
            values = rng.uniform(0.5, 1.5, spec[1])
        else:
            values = rng.standard_normal(spec)
        leaves.append(t.tensor(values, dtype=t.float64, requires_grad=True))
    return leaves


def _outputs(result: Any) -> list[Any]:
    """The results that require grad (the differentiable outputs of a tuple)."""
    results = list(result) if isinstance(result, tuple) else [result]
    return [r for r in results if r.requires_grad]


def _run(t: Any, fn: Callable[..., Any], specs: list[Any]) -> tuple[list[Any], list[Any]]:
    leaves = _leaves(t, specs)
    return leaves, _outputs(fn(t, *leaves))


def _graph(tensors: list[Any]) -> Any:
    """The graph under ``tensors``: each output's node position and ``output_nr``, then
    each node (depth first) with its edges as positions: comparable across libraries."""
    roots = [tensor.grad_fn for tensor in tensors]
    nodes = reachable_nodes(roots)
    position = {id(node): k for k, node in enumerate(nodes)}
    outputs = [
        (None if root is None else position[id(root)], tensor.output_nr)
        for root, tensor in zip(roots, tensors)
    ]
    return outputs, [
        (type(node).__name__, node.name(), edges)
        for node, edges in zip(nodes, edge_positions(nodes))
    ]


def _observed(value: Any) -> Any:
    """A saved value as it compares: a tensor as (values, dtype, requires_grad, grad_fn
    name); a tuple of them alike; numbers and dims as torch shows them, made signed."""
    if isinstance(value, (tuple, list)):
        return tuple(_observed(v) for v in value)
    if hasattr(value, "grad_fn"):
        grad_fn = None if value.grad_fn is None else type(value.grad_fn).__name__
        return ("tensor", value.detach().numpy(), str(value.dtype), value.requires_grad, grad_fn)
    if isinstance(value, np.generic):
        value = value.item()  # hookgrad's clamp keeps its bounds as NumPy scalars
    return signed(value)


def _assert_close(mine: Any, expected: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    """``assert_close`` of (lists of) results, within float32 rounding for float32 ones
    (NumPy's and torch's kernels round differently in the last bit)."""
    if isinstance(expected, (list, tuple)):
        assert isinstance(mine, (list, tuple)) and len(mine) == len(expected)
        for a, b in zip(mine, expected):
            _assert_close(a, b, rtol, atol)
        return
    single = expected is not None and str(getattr(expected, "dtype", "")).endswith("float32")
    assert_close(mine, expected, *((1e-5, 1e-6) if single else (rtol, atol)))


# Rows that compute in float32 (``dtype=`` rows): their float64 gradients carry float32
# rounding.
SINGLE = {name for name, _, _ in ROWS if name.endswith("_dtype")}


def _assert_same(mine: Any, expected: Any, where: Any) -> None:
    if isinstance(expected, tuple) and expected and expected[0] == "tensor":
        assert isinstance(mine, tuple) and mine[0] == "tensor", (where, mine)
        assert mine[2:] == expected[2:], (where, mine[2:], expected[2:])
        _assert_close(mine[1], expected[1])
    elif isinstance(expected, tuple):
        assert isinstance(mine, tuple) and len(mine) == len(expected), (where, mine, expected)
        for a, b in zip(mine, expected):
            _assert_same(a, b, where)
    elif isinstance(expected, float):
        assert isinstance(mine, (int, float)) and mine == expected, (where, mine, expected)
    else:
        assert mine == expected and type(mine) is type(expected), (where, mine, expected)


def _assert_same_saved(ours: Any, theirs: Any, foreign: set[str] = frozenset()) -> None:
    """The ``_saved_*`` (names and values) and ``_raw_saved_*`` names of two nodes."""
    name = type(theirs).__name__
    if name in foreign:
        return
    mine = sorted(n for n in dir(ours) if n.startswith(("_saved_", "_raw_saved_")))
    expected = sorted(n for n in dir(theirs) if n.startswith(("_saved_", "_raw_saved_")))
    assert mine == expected, name
    for attribute in expected:
        if attribute.startswith("_saved_"):
            value = _observed(getattr(ours, attribute))
            _assert_same(value, _observed(getattr(theirs, attribute)), (name, attribute))


def _assert_same_graphs(
    ours: list[Any], theirs: list[Any], foreign: set[str] = frozenset()
) -> None:
    assert _graph(ours) == _graph(theirs)
    roots = [tensor.grad_fn for tensor in ours], [tensor.grad_fn for tensor in theirs]
    for a, b in zip(reachable_nodes(roots[0]), reachable_nodes(roots[1])):
        _assert_same_saved(a, b, foreign)


def _gradients(t: Any, fn: Callable[..., Any], specs: list[Any]) -> tuple[list, list]:
    """The leaves (and seeds) and their ``create_graph=True`` gradients, for seeds that
    require grad too (so even a linear op records its double-backward node)."""
    leaves, outputs = _run(t, fn, specs)
    seeds = [
        t.linspace(0.5, 1.5, y.numel(), dtype=y.dtype).reshape(y.shape).requires_grad_()
        for y in outputs
    ]
    grads = t.autograd.grad(outputs, leaves, seeds, create_graph=True, allow_unused=True)
    return leaves + seeds, list(grads)


# -- the node --------------------------------------------------------------------------------


@pytest.mark.parametrize("fn, specs", [row[1:] for row in ROWS], ids=IDS)
def test_graph_and_saved_values_match_torch(fn, specs, torch):
    _, ours = _run(hookgrad, fn, specs)
    _, theirs = _run(torch, fn, specs)
    assert len(ours) == len(theirs)
    _assert_close(ours, theirs)
    _assert_same_graphs(ours, theirs)


@pytest.mark.parametrize("fn, specs", [row[1:] for row in ROWS], ids=IDS)
def test_hooks_see_torch_grad_tuples(fn, specs, torch):
    """A node's pre-hook sees one grad per output of the node, its post-hook one per edge."""

    def arity(t: Any) -> list[list[bool]]:
        _, outputs = _run(t, fn, specs)
        node, seen = outputs[0].grad_fn, []
        node.register_prehook(lambda grads: seen.append([g is None for g in grads]))
        node.register_hook(lambda inputs, outputs: seen.append([g is None for g in inputs]))
        outputs[0].sum().backward()
        return seen

    assert arity(hookgrad) == arity(torch)


@pytest.mark.parametrize("fn, specs", [row[1:] for row in ROWS], ids=IDS)
def test_pack_order_matches_torch(fn, specs, torch):
    """Default pack hooks see the saved tensors (index tensors, indices, results ...) in
    torch's order."""

    def packed(t: Any) -> list[np.ndarray]:
        leaves = _leaves(t, specs)
        return packed_arrays(t, lambda lib: fn(lib, *leaves))

    ours, theirs = packed(hookgrad), packed(torch)
    assert [a.dtype for a in ours] == [b.dtype for b in theirs]
    for a, b in zip(ours, theirs):
        _assert_close(a, b)


# -- the double backward ---------------------------------------------------------------------


@pytest.mark.parametrize("name, fn, specs", ROWS, ids=IDS)
def test_double_backward_graph_matches_torch(name, fn, specs, torch):
    """The graph of each ``create_graph=True`` gradient, node by node with its edges and
    saved attributes."""
    _, ours = _gradients(hookgrad, fn, specs)
    _, theirs = _gradients(torch, fn, specs)
    assert len(ours) == len(theirs)
    for mine, expected in zip(ours, theirs):
        if expected is None or expected.grad_fn is None:
            assert mine is None or mine.grad_fn is None
            continue
        _assert_same_graphs([mine], [expected], FOREIGN_SAVED.get(name, set()))


def _forced(tensors: list[Any]) -> list[Any]:
    """torch's tensors as arrays (a ``ZeroTensor`` second derivative included)."""
    return [None if t is None else t.detach().numpy(force=True) for t in tensors]


@pytest.mark.parametrize("name, fn, specs", ROWS, ids=IDS)
def test_second_backward_matches_torch(name, fn, specs, torch):
    """A second backward through the gradients: node pre-hooks fire in torch's order, and
    the second derivatives are torch's."""

    def second(t: Any) -> tuple[list[str], list[Any], list[Any]]:
        leaves, grads = _gradients(t, fn, specs)
        used = [g for g in grads if g is not None and g.grad_fn is not None]
        fired: list[str] = []
        for node in reachable_nodes([g.grad_fn for g in used]):
            name = type(node).__name__
            node.register_prehook(lambda grads, name=name: fired.append(name))
        if used:
            sum((g * g).sum() for g in used).backward()
        return fired, grads, [leaf.grad for leaf in leaves]

    fired, grads, second_grads = second(hookgrad)
    expected_fired, expected_grads, expected_second = second(torch)
    if name in TABLE_FORMULA_ORDER:
        assert sorted(fired) == sorted(expected_fired)
    else:
        assert fired == expected_fired
    rtol, atol = (1e-5, 1e-6) if name in SINGLE else (1e-8, 1e-10)
    _assert_close(grads, _forced(expected_grads), rtol, atol)
    _assert_close(second_grads, _forced(expected_second), rtol, atol)


# -- saved index tensors ---------------------------------------------------------------------


def _index_changed(t: Any) -> Any:
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    index = _long(t, [2, 0])
    y = x[index]
    index.add_(1)
    y.sum().backward()
    return x.grad


def _indices_changed(t: Any) -> Any:
    x = t.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
    values, indices = x.max(1)
    indices.zero_()
    values.sum().backward()
    return x.grad


def _index_read_after_backward(t: Any) -> Any:
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x[_long(t, [2, 0])]
    y.sum().backward()
    return y.grad_fn._saved_indices


@pytest.mark.parametrize(
    "case", [_index_changed, _indices_changed, _index_read_after_backward], ids=lambda f: f.__name__
)
def test_saved_index_tensors_behave_as_torchs(case, torch):
    """An index tensor (``x[index]``'s, ``max``'s indices) is saved as torch saves it: an
    in-place change makes the backward fail, and a backward frees it."""
    assert outcome(case, hookgrad, first_line=True) == outcome(case, torch, first_line=True)
