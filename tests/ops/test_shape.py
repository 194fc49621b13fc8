"""Shape and view ops beyond the op table: memory sharing, node names, errors, dtypes."""

import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.tensor.functions.padding import pad as hookgrad_pad
from tests.oracle import assert_close, outcome


def _pad(lib, *args, **kwargs):
    fn = hookgrad_pad if lib is hookgrad else lib.nn.functional.pad
    return fn(*args, **kwargs)


def _input(lib, shape=(2, 3, 4), requires_grad=False):
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    return lib.tensor(data, requires_grad=requires_grad)


def _first(result):
    return result[0] if isinstance(result, (tuple, list)) else result


# ---------------------------------------------------------------- memory sharing

SHARING = {
    "reshape": lambda t, a: a.reshape(6, 4),
    "reshape_copy": lambda t, a: a.transpose(0, 1).reshape(-1),
    "view": lambda t, a: a.view(-1),
    "view_as": lambda t, a: a.view_as(t.zeros(4, 6)),
    "flatten": lambda t, a: a.flatten(1),
    "flatten_copy": lambda t, a: a.transpose(1, 2).flatten(),
    "unflatten": lambda t, a: a.unflatten(2, (2, 2)),
    "transpose": lambda t, a: a.transpose(0, 2),
    "t": lambda t, a: a.select(0, 1).t(),
    "T": lambda t, a: a.select(0, 0).T,
    "mT": lambda t, a: a.mT,
    "permute": lambda t, a: a.permute(2, 0, 1),
    "movedim": lambda t, a: a.movedim(0, -1),
    "squeeze": lambda t, a: a.unsqueeze(1).squeeze(),
    "unsqueeze": lambda t, a: a.unsqueeze(-1),
    "expand": lambda t, a: a.unsqueeze(0).expand(3, -1, -1, -1),
    "narrow": lambda t, a: a.narrow(2, 1, 2),
    "select": lambda t, a: a.select(1, -1),
    "select_to_0d": lambda t, a: a.flatten().select(0, 5),
    "unbind_to_0d": lambda t, a: a.flatten().unbind()[3],
    "split": lambda t, a: a.split(2, -1)[1],
    "split_sizes": lambda t, a: a.split([1, 2], 1)[1],
    "chunk": lambda t, a: a.chunk(2, 2)[1],
    "unbind": lambda t, a: a.unbind(1)[2],
    "tensor_split": lambda t, a: a.tensor_split(2, 1)[1],
    "diagonal": lambda t, a: a.diagonal(1, 1, 2),
    "diag": lambda t, a: a.select(0, 0).diag(),
    "cat": lambda t, a: t.cat([a, a]),
    "stack": lambda t, a: t.stack([a, a]),
    "flip": lambda t, a: a.flip(0),
    "roll": lambda t, a: a.roll(1, 0),
    "repeat": lambda t, a: a.repeat(1, 1, 1),
    "tile": lambda t, a: a.tile((1,)),
    "tril": lambda t, a: a.tril(),
    "pad": lambda t, a: _pad(t, a, (0, 0)),
    "pad_reflect": lambda t, a: _pad(t, a, (0, 0), mode="reflect"),
    "slice_scatter": lambda t, a: a.slice_scatter(a.narrow(0, 0, 1), 0, 0, 1),
}


@pytest.mark.parametrize("name", SHARING)
def test_views_share_memory_as_in_torch(name, torch):
    fn = SHARING[name]
    x = _input(hookgrad)
    y = fn(hookgrad, x)
    x_torch = _input(torch)
    expected = fn(torch, x_torch)._is_view()
    assert np.shares_memory(y.detach().numpy(), x.detach().numpy()) == expected
    np.testing.assert_array_equal(y.numpy(), fn(torch, x_torch).numpy())


def test_writes_through_a_view_reach_the_base():
    x = hookgrad.zeros(2, 3)
    x.transpose(0, 1).numpy()[2, 1] = 5.0
    x.select(0, 0).numpy()[1] = 7.0
    x.diagonal().numpy()[1] = 3.0
    for piece in x.unbind(1):
        piece.numpy()[0] += 1.0
    np.testing.assert_array_equal(x.numpy(), [[1.0, 8.0, 1.0], [0.0, 3.0, 5.0]])


def test_flatten_without_merging_returns_the_input(torch):
    x = _input(hookgrad, requires_grad=True)
    assert x.flatten(1, 1) is x
    v = _input(hookgrad, (3,))
    assert v.flatten() is v
    assert _input(torch, (3,)).flatten().shape == v.flatten().shape


# ---------------------------------------------------------------- node names

NAMES = {
    "reshape": lambda t, a: a.reshape(6, 4),
    "reshape_copy": lambda t, a: a.transpose(0, 1).reshape(-1),
    "view": lambda t, a: a.view(-1),
    "flatten": lambda t, a: a.flatten(),
    "unflatten": lambda t, a: a.unflatten(-1, (2, -1)),
    "ravel": lambda t, a: a.ravel(),
    "transpose": lambda t, a: a.transpose(0, 1),
    "swapaxes": lambda t, a: a.swapaxes(0, 1),
    "t": lambda t, a: a.select(0, 0).t(),
    "t_1d": lambda t, a: a.select(0, 0).select(0, 0).t(),
    "T": lambda t, a: a.select(0, 0).T,
    "mT": lambda t, a: a.mT,
    "permute": lambda t, a: a.permute(1, 0, 2),
    "movedim": lambda t, a: a.movedim(0, 1),
    "squeeze": lambda t, a: a.squeeze(),
    "squeeze_dim": lambda t, a: a.squeeze(0),
    "squeeze_dims": lambda t, a: a.squeeze((0, 1)),
    "unsqueeze": lambda t, a: a.unsqueeze(0),
    "expand": lambda t, a: a.expand(2, 2, 3, 4),
    "expand_as": lambda t, a: a.expand_as(t.zeros(2, 2, 3, 4)),
    "cat": lambda t, a: t.cat([a, a]),
    "concat": lambda t, a: t.concat([a, a], 1),
    "stack": lambda t, a: t.stack([a, a]),
    "split": lambda t, a: a.split(2, 2),
    "split_sizes": lambda t, a: a.split([1, 3], 2),
    "chunk": lambda t, a: a.chunk(2, 2),
    "chunk_empty": lambda t, a: a.narrow(2, 0, 0).chunk(2, 2),
    "unbind": lambda t, a: a.unbind(1),
    "iter": lambda t, a: list(a),
    "tensor_split": lambda t, a: a.tensor_split(3, 2),
    "narrow": lambda t, a: a.narrow(2, 1, 2),
    "select": lambda t, a: a.select(1, 0),
    "slice_scatter": lambda t, a: a.slice_scatter(a.narrow(0, 0, 1), 0, 0, 1),
    "select_scatter": lambda t, a: a.select_scatter(a.select(0, 0), 0, 1),
    "diagonal_scatter": lambda t, a: a.diagonal_scatter(a.diagonal(), 0),
    "diagonal": lambda t, a: a.diagonal(),
    "diag_matrix": lambda t, a: a.select(0, 0).diag(),
    "diag_vector": lambda t, a: a.select(0, 0).select(0, 0).diag(),
    "diag_embed": lambda t, a: t.diag_embed(a),
    "tril": lambda t, a: a.tril(),
    "triu": lambda t, a: a.triu(),
    "flip": lambda t, a: a.flip(0),
    "roll": lambda t, a: a.roll(1),
    "repeat": lambda t, a: a.repeat(2, 1, 1),
    "tile": lambda t, a: a.tile((2,)),
    "pad": lambda t, a: _pad(t, a, (1, 1)),
    "pad_reflect_1d": lambda t, a: _pad(t, a, (1, 1), mode="reflect"),
    "pad_reflect_2d": lambda t, a: _pad(t, a, (1, 1, 1, 1), mode="reflect"),
    "pad_replicate_2d": lambda t, a: _pad(t, a, (1, 1, 1, 1), mode="replicate"),
    "pad_replicate_3d": lambda t, a: _pad(t, t.stack([a]), (1,) * 6, mode="replicate"),
    "pad_circular": lambda t, a: _pad(t, a, (1, 1), mode="circular"),
    "as_strided": lambda t, a: a.as_strided((2, 2), (1, 2), 1),
    "as_strided_copy": lambda t, a: t.as_strided_copy(a, (2, 2), (1, 2), 1),
    "as_strided_scatter": lambda t, a: a.as_strided_scatter(a[0, 0, :2] * 2, (2,), (3,)),
    "unfold": lambda t, a: a.unfold(1, 2, 1),
    "rot90": lambda t, a: a.rot90(1, (2, 0)),
    "block_diag": lambda t, a: t.block_diag(a[0], a[1, 0]),
    "narrow_copy": lambda t, a: a.narrow_copy(2, 1, 2),
    "view_copy": lambda t, a: t.view_copy(a.transpose(0, 1), (-1,)),
    "expand_copy": lambda t, a: t.expand_copy(a, (2, 2, 3, 4)),
    "alias_copy": lambda t, a: t.alias_copy(a),
    "detach_copy": lambda t, a: t.detach_copy(a),
    "unbind_copy": lambda t, a: t.unbind_copy(a, 1),
    "split_with_sizes_copy": lambda t, a: t.split_with_sizes_copy(a, [1, 3], 2),
    "diagonal_copy": lambda t, a: t.diagonal_copy(a, 1, 0, 2),
    "select_copy": lambda t, a: t.select_copy(a, 1, -1),
    "permute_copy": lambda t, a: t.permute_copy(a, (2, 0, 1)),
    "t_copy": lambda t, a: t.t_copy(a[0]),
    "unsqueeze_copy": lambda t, a: t.unsqueeze_copy(a, 0),
    "view_as_real_copy": lambda t, a: t.view_as_real_copy(a * 1j),
    "hstack": lambda t, a: t.hstack([a, a]),
    "meshgrid": lambda t, a: t.meshgrid(a[0, 0], a[0, 1], indexing="xy"),
    "cartesian_prod": lambda t, a: t.cartesian_prod(a[0, 0], a[0, 1]),
    "repeat_interleave": lambda t, a: a.repeat_interleave(2),
    "complex": lambda t, a: t.complex(a, a * 2),
    "polar": lambda t, a: t.polar(a, a * 2),
    "conj_physical": lambda t, a: t.conj_physical(a * 1j),
    "scatter_reduce_": lambda t, a: (a * 1).scatter_reduce_(
        0, t.zeros(1, 3, 4, dtype=t.int64), a[:1], "amax"
    ),
}


@pytest.mark.parametrize("name", NAMES)
def test_node_names_match_torch(name, torch):
    fn = NAMES[name]
    ours = fn(hookgrad, _input(hookgrad, requires_grad=True))
    theirs = fn(torch, _input(torch, requires_grad=True))
    ours = ours if isinstance(ours, (tuple, list)) else [ours]
    theirs = theirs if isinstance(theirs, (tuple, list)) else [theirs]
    assert [type(o.grad_fn).__name__ for o in ours] == [type(o.grad_fn).__name__ for o in theirs]
    assert [o.grad_fn.name() for o in ours] == [o.grad_fn.name() for o in theirs]
    assert [tuple(o.shape) for o in ours] == [tuple(o.shape) for o in theirs]


SAVED = {
    "view": (lambda t, a: a.view(4, 6), ["self_sym_sizes"]),
    "transpose": (lambda t, a: a.transpose(0, 2), ["dim0", "dim1"]),
    "permute": (lambda t, a: a.permute(2, 0, 1), ["dims"]),
    "split": (lambda t, a: a.split(3, 2), ["dim", "split_size", "self_sym_sizes"]),
    "split_sizes": (lambda t, a: a.split([1, 3], 2), ["dim", "split_sizes"]),
    "narrow": (lambda t, a: a.narrow(2, 1, 2), ["dim", "start", "end", "step"]),
    "select": (lambda t, a: a.select(1, 2), ["dim", "index", "self_sym_sizes"]),
    "repeat": (lambda t, a: a.repeat(1, 2, 1, 1), ["repeats", "self_sym_sizes"]),
    "diagonal": (lambda t, a: a.diagonal(1, 1, 2), ["offset", "dim1", "dim2"]),
    "roll": (lambda t, a: a.roll((1, 2), (0, 2)), ["shifts", "dims"]),
    "tril": (lambda t, a: a.tril(2), ["diagonal"]),
    "pad": (lambda t, a: _pad(t, a, (1, 2)), ["pad"]),
    "as_strided": (lambda t, a: a.as_strided((2, 2), (1, 2), 1), ["size", "stride"]),
    "as_strided_scatter": (
        lambda t, a: a.as_strided_scatter(a[0, 0, :2] * 2, (2,), (3,), 1),
        ["size", "stride", "storage_offset"],
    ),
    "unfold": (lambda t, a: a.unfold(1, 2, 1), ["dimension", "size", "step"]),
    "rot90": (lambda t, a: a.rot90(3, (2, 0)), ["k", "dims"]),
    "narrow_copy": (lambda t, a: a.narrow_copy(2, 1, 2), ["dim", "start", "length"]),
}


@pytest.mark.parametrize("name", SAVED)
def test_saved_attributes_match_torch(name, torch):
    fn, attributes = SAVED[name]
    ours = _first(fn(hookgrad, _input(hookgrad, requires_grad=True))).grad_fn
    theirs = _first(fn(torch, _input(torch, requires_grad=True))).grad_fn
    for attribute in attributes:
        expected = getattr(theirs, f"_saved_{attribute}")
        assert tuple(np.atleast_1d(getattr(ours, f"_saved_{attribute}"))) == tuple(
            np.atleast_1d(expected)
        )


def test_transpose_properties_warn_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert hookgrad.zeros(2, 3).T.shape == (3, 2)
    with pytest.warns(UserWarning, match="dimension other than 2"):
        assert hookgrad.zeros(2, 3, 4).T.shape == (4, 3, 2)
    with pytest.warns(UserWarning, match="0-D"):
        assert hookgrad.tensor(1.0).T.shape == ()


# ---------------------------------------------------------------- gradients


def test_multi_output_backward_fills_missing_gradients():
    x = hookgrad.arange(6.0).reshape(3, 2).requires_grad_()
    first, _, last = x.unbind()
    (first * 2 + last).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]])
    y = hookgrad.arange(5.0, requires_grad=True)
    (y.split(2)[1] * 3).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 0.0, 3.0, 3.0, 0.0])


def test_double_backward_through_pad_and_cat(torch):
    def run(lib):
        x = lib.tensor(np.linspace(-1, 1, 10).reshape(2, 5), requires_grad=True)
        y = _pad(lib, x, (2, 1), mode="reflect")
        y = lib.cat([y, x.narrow(1, 1, 2)], dim=1)
        (grad,) = lib.autograd.grad((y**3).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad((grad**2).sum(), x)
        return grad.detach().numpy(), second.numpy()

    for ours, theirs in zip(run(hookgrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_cat_and_stack_promote_dtypes(torch):
    for lib in (hookgrad, torch):
        ints = lib.tensor([1, 2])
        floats = lib.tensor([0.5], requires_grad=True)
        doubles = lib.tensor([0.25], dtype=lib.float64, requires_grad=True)
        assert lib.cat([ints, floats]).dtype == lib.float32
        out = lib.cat([floats, doubles])
        assert out.dtype == lib.float64
        out.sum().backward()
        assert floats.grad.dtype == lib.float32 and doubles.grad.dtype == lib.float64
        assert lib.stack([ints, ints]).dtype == lib.int64
        assert lib.stack([ints, ints]).grad_fn is None


def test_cat_skips_legacy_empty_tensors(torch):
    for lib in (hookgrad, torch):
        x = lib.ones(2, 3, requires_grad=True)
        empty = lib.zeros(0, requires_grad=True)
        out = lib.cat([empty, x, empty, x], 1)
        assert tuple(out.shape) == (2, 6)
        out.sum().backward()
        assert tuple(empty.grad.shape) == (0,)
        np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))
        assert tuple(lib.cat([lib.zeros(0), lib.zeros(0)]).shape) == (0,)


def test_shape_ops_keep_integer_dtypes():
    x = hookgrad.arange(12).reshape(3, 4)
    assert x.t().dtype == hookgrad.int64
    assert hookgrad_pad(x, (1, 1), value=1.5).tolist()[0] == [1, 0, 1, 2, 3, 1]
    assert [p.tolist() for p in x.unbind(1)][0] == [0, 4, 8]


# ---------------------------------------------------------------- errors

ERRORS = {
    "view_size": lambda t, a: a.view(5, 5),
    "view_two_inferred": lambda t, a: a.view(-1, -1),
    "view_negative": lambda t, a: a.view(-2, 12),
    "view_non_contiguous": lambda t, a: a.transpose(0, 1).view(-1),
    "view_empty_ambiguous": lambda t, a: a.narrow(0, 0, 0).view(0, -1),
    "reshape_size": lambda t, a: a.reshape(7, -1),
    "flatten_order": lambda t, a: a.flatten(2, 1),
    "flatten_range": lambda t, a: a.flatten(0, 3),
    "unflatten_sizes": lambda t, a: a.unflatten(1, (2, 2)),
    "unflatten_empty": lambda t, a: a.unflatten(1, ()),
    "expand_fewer": lambda t, a: a.expand(3, 4),
    "expand_mismatch": lambda t, a: a.expand(2, 5, 4),
    "expand_leading": lambda t, a: a.expand(-1, 2, 3, 4),
    "t_3d": lambda t, a: a.t(),
    "mT_1d": lambda t, a: a.select(0, 0).select(0, 0).mT,
    "transpose_range": lambda t, a: a.transpose(0, 3),
    "permute_length": lambda t, a: a.permute(0, 1),
    "permute_duplicate": lambda t, a: a.permute(0, 1, 1),
    "permute_range": lambda t, a: a.permute(0, 1, 3),
    "movedim_repeated": lambda t, a: a.movedim((0, 0), (1, 2)),
    "movedim_lengths": lambda t, a: a.movedim((0, 1), (1,)),
    "squeeze_range": lambda t, a: a.squeeze(3),
    "squeeze_repeated": lambda t, a: a.squeeze((0, 0)),
    "unsqueeze_range": lambda t, a: a.unsqueeze(4),
    "cat_sizes": lambda t, a: t.cat([a, t.zeros(2, 4, 4)]),
    "cat_ndim": lambda t, a: t.cat([a, t.zeros(2, 3)]),
    "cat_empty": lambda t, a: t.cat([]),
    "cat_0d": lambda t, a: t.cat([a.sum(), a.sum()]),
    "cat_not_tensor": lambda t, a: t.cat([a, 1]),
    "cat_tensor": lambda t, a: t.cat(a),
    "cat_dim": lambda t, a: t.cat([a, a], 3),
    "stack_sizes": lambda t, a: t.stack([a, t.zeros(2, 4, 4)]),
    "stack_empty": lambda t, a: t.stack([]),
    "stack_dim": lambda t, a: t.stack([a, a], 4),
    "split_zero": lambda t, a: a.split(0, 2),
    "split_negative": lambda t, a: a.split(-1, 2),
    "split_sizes_sum": lambda t, a: a.split([1, 2], 2),
    "split_0d": lambda t, a: a.sum().split(1),
    "chunk_zero": lambda t, a: a.chunk(0),
    "chunk_0d": lambda t, a: a.sum().chunk(1),
    "unbind_0d": lambda t, a: a.sum().unbind(),
    "unbind_range": lambda t, a: a.unbind(3),
    "iter_0d": lambda t, a: list(a.sum()),
    "tensor_split_zero": lambda t, a: a.tensor_split(0, 2),
    "tensor_split_0d": lambda t, a: a.sum().tensor_split(1),
    "narrow_exceeds": lambda t, a: a.narrow(2, 3, 2),
    "narrow_length": lambda t, a: a.narrow(2, 0, -1),
    "narrow_start": lambda t, a: a.narrow(2, 5, 0),
    "narrow_0d": lambda t, a: a.sum().narrow(0, 0, 1),
    "select_index": lambda t, a: a.select(2, 4),
    "select_negative": lambda t, a: a.select(2, -5),
    "select_0d": lambda t, a: a.sum().select(0, 0),
    "slice_scatter_size": lambda t, a: a.slice_scatter(a, 2, 1, 3),
    "slice_scatter_step": lambda t, a: a.slice_scatter(a, 2, 1, 3, 0),
    "select_scatter_size": lambda t, a: a.select_scatter(a.select(1, 0), 0, 1),
    "diagonal_same": lambda t, a: a.diagonal(0, 1, 1),
    "diagonal_scatter_size": lambda t, a: a.diagonal_scatter(a, 0),
    "diag_3d": lambda t, a: a.diag(),
    "diag_embed_same": lambda t, a: t.diag_embed(a, 0, 1, -3),
    "tril_1d": lambda t, a: a.select(0, 0).select(0, 0).tril(),
    "triu_1d": lambda t, a: a.select(0, 0).select(0, 0).triu(),
    "flip_repeated": lambda t, a: a.flip(0, 0),
    "roll_align": lambda t, a: a.roll((1, 2), (0,)),
    "roll_no_dims": lambda t, a: a.roll((1, 2)),
    "roll_0d_dim": lambda t, a: a.sum().roll(1, 0),
    "repeat_short": lambda t, a: a.repeat(2, 2),
    "repeat_negative": lambda t, a: a.repeat(2, 2, -1),
    "tile_negative": lambda t, a: a.tile((-1,)),
    "pad_odd": lambda t, a: _pad(t, a, (1,)),
    "pad_long": lambda t, a: _pad(t, a, (1,) * 8),
    "pad_crop": lambda t, a: _pad(t, a, (-3, -2)),
    "pad_mode": lambda t, a: _pad(t, a, (1, 1), mode="foo"),
    "pad_value": lambda t, a: _pad(t, a, (1, 1), mode="replicate", value=2.0),
    "pad_size": lambda t, a: _pad(t, a, (1,) * 6, mode="reflect"),
    "pad_size_1d": lambda t, a: _pad(a.select(0, 0).select(0, 0), (1, 1), mode="reflect"),
    "pad_reflect_width": lambda t, a: _pad(t, a, (4, 1), mode="reflect"),
    "pad_reflect_height": lambda t, a: _pad(t, a, (1, 1, 3, 0), mode="reflect"),
    "pad_reflect_small": lambda t, a: _pad(t, a, (-2, -2), mode="reflect"),
    "pad_replicate_small": lambda t, a: _pad(t, a, (-3, -1), mode="replicate"),
    "pad_replicate_negative": lambda t, a: _pad(t, a, (0, 0, -3, -1), mode="replicate"),
    "pad_circular_wrap": lambda t, a: _pad(t, a, (5, 0), mode="circular"),
    "pad_circular_empty": lambda t, a: _pad(t, a, (-3, -2), mode="circular"),
    "broadcast_to": lambda t, a: t.broadcast_to(a, (3, 3, 4)),
    "broadcast_tensors": lambda t, a: t.broadcast_tensors(a, t.zeros(2, 1, 5)),
    "broadcast_tensors_list": lambda t, a: t.broadcast_tensors([a]),
    "broadcast_shapes": lambda t, a: t.broadcast_shapes((2, 3), (3, 4)),
    "broadcast_shapes_negative": lambda t, a: t.broadcast_shapes(-1),
    "broadcast_shapes_float": lambda t, a: t.broadcast_shapes((2.0,)),
    "rot90_dims": lambda t, a: a.rot90(1, [0, 1, 2]),
    "rot90_1d": lambda t, a: a[0, 0].rot90(),
    "rot90_same": lambda t, a: a.rot90(1, [1, -2]),
    "rot90_range": lambda t, a: a.rot90(1, [0, 3]),
    "fliplr_1d": lambda t, a: a[0, 0].fliplr(),
    "flipud_0d": lambda t, a: a.sum().flipud(),
    "adjoint_1d": lambda t, a: a[0, 0].adjoint(),
    "mH_1d": lambda t, a: a[0, 0].mH,
    "H_3d": lambda t, a: a.H,
    "unfold_size": lambda t, a: a.unfold(1, 4, 1),
    "unfold_step": lambda t, a: a.unfold(1, 2, 0),
    "unfold_negative": lambda t, a: a.unfold(1, -1, 1),
    "unfold_0d": lambda t, a: a.sum().unfold(0, 2, 1),
    "hstack_empty": lambda t, a: t.hstack([]),
    "hstack_tensor": lambda t, a: t.hstack(a),
    "column_stack_empty": lambda t, a: t.column_stack(()),
    "hsplit_0d": lambda t, a: t.hsplit(a.sum(), 1),
    "hsplit_divisible": lambda t, a: a.hsplit(2),
    "vsplit_1d": lambda t, a: t.vsplit(a[0, 0], 2),
    "dsplit_divisible": lambda t, a: a.dsplit(3),
    "atleast_1d_number": lambda t, a: t.atleast_1d(3),
    "block_diag_3d": lambda t, a: t.block_diag(a),
    "cartesian_prod_2d": lambda t, a: t.cartesian_prod(a[0]),
    "cartesian_prod_none": lambda t, a: t.cartesian_prod(),
    "combinations_negative": lambda t, a: t.combinations(a[0, 0], -1),
    "combinations_2d": lambda t, a: t.combinations(a[0]),
    "meshgrid_dtype": lambda t, a: t.meshgrid(a[0, 0], a[0, 0].double(), indexing="ij"),
    "meshgrid_indexing": lambda t, a: t.meshgrid(a[0, 0], indexing="yx"),
    "meshgrid_empty": lambda t, a: t.meshgrid(indexing="ij"),
    "split_with_sizes_negative": lambda t, a: a.split_with_sizes([4, -1]),
    "split_with_sizes_int": lambda t, a: a.split_with_sizes(2),
    "split_with_sizes_0d": lambda t, a: t.split_with_sizes(a.sum(), [1]),
    "unsafe_chunk_zero": lambda t, a: t.unsafe_chunk(a, 0),
    "narrow_copy_exceeds": lambda t, a: t.narrow_copy(a, 2, 3, 2),
    "view_copy_size": lambda t, a: t.view_copy(a, (5,)),
    "slice_copy_step": lambda t, a: t.slice_copy(a, 1, 0, 2, 0),
    "detach_copy_backward": lambda t, a: t.detach_copy(a.requires_grad_()).sum().backward(),
    "view_as_complex_copy_grad": lambda t, a: t.view_as_complex_copy(
        a[..., :2].contiguous().requires_grad_()
    ),
    "tril__leaf": lambda t, a: a.requires_grad_().tril_(),
    "as_strided_lengths": lambda t, a: a.as_strided((2, 2), (1,)),
    "as_strided_negative_stride": lambda t, a: a.as_strided((2,), (-1,)),
    "as_strided_out_of_bounds": lambda t, a: a.as_strided((5, 5), (5, 1)),
    "as_strided_negative_size": lambda t, a: a.as_strided((-1,), (1,)),
    "as_strided_negative_offset": lambda t, a: a.as_strided((2,), (1,), -1),
    "as_strided_scatter_size": lambda t, a: t.as_strided_scatter(a, t.ones(2, 3), (2, 2), (1, 2)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name, torch):
    fn = ERRORS[name]
    with pytest.raises(Exception) as expected:
        fn(torch, _input(torch))
    with pytest.raises(type(expected.value)) as got:
        fn(hookgrad, _input(hookgrad))
    assert type(got.value) is type(expected.value)
    assert str(got.value) == str(expected.value)


def test_unflatten_two_inferred_sizes(torch):
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        _input(torch).unflatten(1, (-1, -1))
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        _input(hookgrad).unflatten(1, (-1, -1))


def test_non_integer_sizes_raise_type_error(torch):
    for lib in (hookgrad, torch):
        with pytest.raises(TypeError):
            _input(lib).view(2.0, 12)
        with pytest.raises(TypeError):
            _pad(lib, _input(lib), (1.0, 1))


# ---------------------------------------------------------------- flags, layouts, Python maps

MISC = {
    "conj_physical": lambda t: t.conj_physical(t.ones(2, requires_grad=True) * (1 + 2j)),
    "conj_physical_node": lambda t: t.conj_physical(t.ones(2, requires_grad=True) * 1j).grad_fn,
    "conj_physical_inplace": lambda t: (t.ones(2, requires_grad=True) * 1j).conj_physical_(),
    "conj_physical_real_is_input": lambda t: (lambda y: t.conj_physical(y) is y)(t.ones(2)),
    "resolve": lambda t: (lambda y: (t.resolve_conj(y) is y, t.resolve_neg(y) is y))(t.ones(2)),
    "flags": lambda t: (t.is_conj(t.ones(2)), t.ones(2).is_neg()),
    "detach": lambda t: t.detach(t.ones(2, requires_grad=True) * 2),
    "detach_": lambda t: t.detach_(t.ones(2, requires_grad=True) * 2),
    "dim_order": lambda t: t.zeros(2, 3, 4).transpose(0, 2).dim_order(),
    "dim_order_channels_last": lambda t: t.zeros(2, 3, 4, 5).permute(0, 2, 3, 1).dim_order(),
    "dim_order_mixed": lambda t: t.zeros(2, 3, 4, 5).permute(1, 3, 0, 2).dim_order(),
    "dim_order_expanded": lambda t: t.zeros(3)[None].expand(2, 3).dim_order(),
    "dim_order_ambiguous": lambda t: t.zeros(2, 1, 4).dim_order(ambiguity_check=True),
    "dim_order_formats": lambda t: t.zeros(2, 3, 1, 1).dim_order(
        ambiguity_check=[t.contiguous_format]
    ),
    "dim_order_bad_check": lambda t: t.zeros(2, 3).dim_order(ambiguity_check=3),
    "ndimension": lambda t: t.zeros(2, 3).ndimension(),
    "apply_": lambda t: t.tensor([1.0, 2.0]).apply_(lambda v: v * 2),
    "apply_int": lambda t: t.tensor([1, 2]).apply_(lambda v: v / 3),
    "apply_requires_grad": lambda t: t.ones(2, requires_grad=True).apply_(lambda v: v),
    "map_": lambda t: t.tensor([1.0, 2.0]).map_(t.tensor([3.0]), lambda a, b: a + b),
    "map_shape": lambda t: t.tensor([1.0, 2.0]).map_(t.ones(3), lambda a, b: a),
    "map_dtype": lambda t: t.tensor([1.0, 2.0]).map_(t.tensor([3]), lambda a, b: a),
    "map2_": lambda t: t.tensor([1.0, 2.0]).map2_(
        t.tensor([3.0]), t.tensor([1.0, 2.0]), lambda a, b, c: a + b * c
    ),
    "H": lambda t: (t.ones(2, 3, requires_grad=True) * 1j).H,
    "mH_real": lambda t: t.ones(2, 2, 3, requires_grad=True).mH,
    "H_0d": lambda t: (lambda y: y.H is y)(t.tensor(2.0)),
}


@pytest.mark.parametrize("fn", MISC.values(), ids=MISC.keys())
def test_flags_layouts_and_python_maps_match_torch(fn, torch):
    assert outcome(fn, hookgrad) == outcome(fn, torch)


def test_as_strided_views_the_memory_as_torch(torch):
    for lib in (hookgrad, torch):
        x = lib.arange(6.0)
        y = x[1:].as_strided((2, 2), (1, 2))
        assert y._is_view() and y.stride() == (1, 2) and y.storage_offset() == 1
        y[0, 0] = 9.0
        assert x[1].item() == 9.0
        assert x[2:].as_strided((2,), (1,), 0).tolist() == [0.0, 9.0]


def test_as_strided_scatter_values_and_gradients(torch):
    """Values and ``src``'s gradient are torch's. ``self``'s gradient is the gradient
    outside the written view (gradcheck); torch's backward gives it the view's part."""
    x = np.arange(6.0)

    def run(lib):
        a = lib.tensor(x, requires_grad=True)
        b = lib.tensor([5.0, 7.0], dtype=lib.float64, requires_grad=True)
        out = lib.as_strided_scatter(a, b, (2,), (2,), 1)
        return out, lib.autograd.grad((out * out).sum(), (a, b))

    ours, theirs = run(hookgrad), run(torch)
    assert_close(ours[0], theirs[0])
    assert_close(ours[1][1], theirs[1][1])
    assert ours[1][0].tolist() == [0.0, 0.0, 4.0, 0.0, 8.0, 10.0]
    a = hookgrad.tensor(x, requires_grad=True)
    b = hookgrad.tensor([5.0, 7.0], dtype=hookgrad.float64, requires_grad=True)
    fn = lambda a, b: hookgrad.as_strided_scatter(a, b, (2,), (2,), 1) ** 2  # noqa: E731
    assert hookgrad.autograd.gradgradcheck(fn, (a, b))
