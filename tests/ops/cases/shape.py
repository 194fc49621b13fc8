"""Op cases: shape, view and joining ops (and ``pad``)."""

import hookgrad
from hookgrad.tensor.functions.shape import pad as hookgrad_pad
from tests.ops.cases.spec import OpCase


def _pad(lib, *args, **kwargs):
    """``nn.functional.pad`` of either library."""
    fn = hookgrad_pad if lib is hookgrad else lib.nn.functional.pad
    return fn(*args, **kwargs)


CASES: list[OpCase] = [
    # reshape family
    OpCase("reshape", lambda t, a: a.reshape(4, -1), ((2, 3, 2),)),
    OpCase("reshape_0d", lambda t, a: a.reshape(1, 1), ((),)),
    OpCase("reshape_copy", lambda t, a: a.transpose(0, 1).reshape(-1), ((2, 3, 2),)),
    OpCase("view", lambda t, a: a.view(-1), ((2, 3),)),
    OpCase("view_tuple", lambda t, a: t.reshape(a, (3, 1, 2)), ((6,),)),
    OpCase("view_as", lambda t, a, b: a.view_as(b) * b, ((2, 3), (3, 2))),
    OpCase("reshape_as", lambda t, a, b: a.reshape_as(b) + b, ((4,), (2, 2))),
    OpCase("flatten", lambda t, a: a.flatten(), ((2, 3, 2),)),
    OpCase("flatten_range", lambda t, a: t.flatten(a, 1, -1), ((2, 3, 2, 2),)),
    OpCase("flatten_neg", lambda t, a: a.flatten(-3, -2), ((2, 3, 2),)),
    OpCase("flatten_0d", lambda t, a: a.flatten(), ((),)),
    OpCase("ravel", lambda t, a: a.ravel(), ((3, 2),)),
    OpCase("unflatten", lambda t, a: a.unflatten(-1, (3, -1)), ((2, 6),)),
    OpCase("unflatten_first", lambda t, a: t.unflatten(a, 0, (2, 2)), ((4, 3),)),
    OpCase("expand", lambda t, a: a.expand(2, 3, 4) * 1.5, ((3, 1),)),
    OpCase("expand_keep", lambda t, a: a.expand(2, -1, 3), ((4, 1),)),
    OpCase("expand_0d", lambda t, a: a.expand(3, 2), ((),)),
    OpCase("expand_as", lambda t, a, b: a.expand_as(b) * b, ((3, 1), (2, 3, 4))),
    # dim order
    OpCase("transpose", lambda t, a: a.transpose(0, -1), ((2, 3, 4),)),
    OpCase("transpose_0d", lambda t, a: a.transpose(0, -1), ((),)),
    OpCase("swapaxes", lambda t, a: t.swapaxes(a, 1, 2), ((2, 3, 4),)),
    OpCase("swapdims", lambda t, a: a.swapdims(-1, 0), ((2, 3),)),
    OpCase("t", lambda t, a: a.t(), ((2, 3),)),
    OpCase("t_1d", lambda t, a: t.t(a), ((3,),)),
    OpCase("T", lambda t, a: a.T, ((2, 3),)),
    OpCase("mT", lambda t, a: a.mT, ((2, 3, 4),)),
    OpCase("permute", lambda t, a: a.permute(-1, 0, 1), ((2, 3, 4),)),
    OpCase("permute_tuple", lambda t, a: t.permute(a, (1, 0)), ((2, 3),)),
    OpCase("movedim", lambda t, a: a.movedim(0, -1), ((2, 3, 4),)),
    OpCase("movedim_many", lambda t, a: t.movedim(a, (0, 1), (2, 0)), ((2, 3, 4),)),
    # squeeze / unsqueeze
    OpCase("squeeze", lambda t, a: a.squeeze(), ((1, 3, 1, 2),)),
    OpCase("squeeze_dim", lambda t, a: a.squeeze(-2), ((3, 1, 2),)),
    OpCase("squeeze_dim_noop", lambda t, a: a.squeeze(0), ((3, 1, 2),)),
    OpCase("squeeze_dims", lambda t, a: t.squeeze(a, (0, -1, 1)), ((1, 3, 1),)),
    OpCase("squeeze_0d", lambda t, a: a.squeeze(), ((),)),
    OpCase("unsqueeze", lambda t, a: a.unsqueeze(-1), ((2, 3),)),
    OpCase("unsqueeze_mid", lambda t, a: t.unsqueeze(a, 1), ((2, 3),)),
    OpCase("unsqueeze_0d", lambda t, a: a.unsqueeze(0), ((),)),
    # joining
    OpCase("cat", lambda t, a, b: t.cat([a, b]), ((2, 3), (1, 3))),
    OpCase("cat_neg_dim", lambda t, a, b, c: t.cat((a, b, c), -1), ((2, 1), (2, 3), (2, 2))),
    OpCase("cat_same_input", lambda t, a: t.concat([a, a * 2], dim=1), ((2, 3),)),
    OpCase("stack", lambda t, a, b: t.stack([a, b]), ((2, 3), (2, 3))),
    OpCase("stack_last", lambda t, a, b: t.stack((a, b), -1), ((2, 3), (2, 3))),
    OpCase("stack_0d", lambda t, a, b: t.stack([a, b, a]), ((), ())),
    # splitting
    OpCase("split", lambda t, a: a.split(2), ((5, 3),)),
    OpCase("split_dim", lambda t, a: t.split(a, 2, dim=-1), ((2, 4),)),
    OpCase("split_one_used", lambda t, a: a.split(2)[1] * 3, ((5, 3),)),
    OpCase("split_sizes", lambda t, a: a.split([1, 3], -1), ((2, 4),)),
    OpCase("split_sizes_some", lambda t, a: a.split([2, 0, 1])[2], ((3, 2),)),
    OpCase("chunk", lambda t, a: a.chunk(3, -1), ((2, 5),)),
    OpCase("chunk_last_used", lambda t, a: t.chunk(a, 2)[-1], ((3, 2),)),
    OpCase("unbind", lambda t, a: a.unbind(), ((3, 2),)),
    OpCase("unbind_dim", lambda t, a: t.unbind(a, -1)[1:], ((2, 4),)),
    OpCase("iter", lambda t, a: t.stack(list(a)[::-1]), ((3, 2),)),
    OpCase("tensor_split", lambda t, a: a.tensor_split(3, -1), ((2, 7),)),
    OpCase("tensor_split_idx", lambda t, a: t.tensor_split(a, [1, -1]), ((5, 2),)),
    OpCase("narrow", lambda t, a: a.narrow(-1, 1, 2), ((2, 4),)),
    OpCase("narrow_neg_start", lambda t, a: t.narrow(a, 0, -2, 2), ((4, 3),)),
    OpCase("select", lambda t, a: a.select(1, -1), ((2, 3, 4),)),
    OpCase("select_1d", lambda t, a: t.select(a, 0, 2), ((4,),)),
    OpCase("slice_scatter", lambda t, a, b: a.slice_scatter(b, 1, 1, 3), ((2, 4), (2, 2))),
    OpCase(
        "slice_scatter_step",
        lambda t, a, b: t.slice_scatter(a, b, -1, 1, None, 2),
        ((2, 6), (2, 3)),
    ),
    OpCase(
        "slice_scatter_step_short",
        lambda t, a, b: a.slice_scatter(b, 0, 0, 5, 3),
        ((5, 2), (2, 2)),
    ),
    OpCase("select_scatter", lambda t, a, b: a.select_scatter(b, 0, -1), ((3, 2), (2,))),
    OpCase(
        "diagonal_scatter",
        lambda t, a, b: t.diagonal_scatter(a, b, -1, -1, 0),
        ((2, 3, 4), (3, 2)),
    ),
    # diagonals and triangles
    OpCase("diagonal", lambda t, a: a.diagonal(), ((3, 4),)),
    OpCase("diagonal_offset", lambda t, a: t.diagonal(a, -1, 0, 2), ((2, 3, 4),)),
    OpCase("diagonal_swapped", lambda t, a: a.diagonal(1, -1, 1), ((2, 3, 4),)),
    OpCase("diagonal_empty", lambda t, a: a.diagonal(5) + 1, ((3, 4),)),
    OpCase("diag_matrix", lambda t, a: a.diag(1), ((3, 4),)),
    OpCase("diag_vector", lambda t, a: t.diag(a, -1), ((3,),)),
    OpCase("diag_embed", lambda t, a: t.diag_embed(a), ((2, 3),)),
    OpCase("diag_embed_dims", lambda t, a: a.diag_embed(1, 0, 2), ((2, 3),)),
    OpCase("tril", lambda t, a: a.tril(), ((3, 4),)),
    OpCase("tril_batch", lambda t, a: t.tril(a, -1), ((2, 3, 3),)),
    OpCase("triu", lambda t, a: a.triu(1), ((4, 3),)),
    OpCase("triu_neg", lambda t, a: t.triu(a, -2), ((2, 3, 4),)),
    # reordering copies
    OpCase("flip", lambda t, a: a.flip(0, -1), ((2, 3, 4),)),
    OpCase("flip_list", lambda t, a: t.flip(a, [1]), ((2, 3),)),
    OpCase("flip_0d", lambda t, a: a.flip(0), ((),)),
    OpCase("roll", lambda t, a: a.roll(1, 0), ((3, 2),)),
    OpCase("roll_dims", lambda t, a: t.roll(a, (1, -4), (-1, 0)), ((3, 4),)),
    OpCase("roll_flat", lambda t, a: a.roll(4), ((2, 3),)),
    OpCase("repeat", lambda t, a: a.repeat(2, 3), ((2, 3),)),
    OpCase("repeat_more_dims", lambda t, a: a.repeat(2, 1, 3), ((3, 2),)),
    OpCase("repeat_0d", lambda t, a: a.repeat(3), ((),)),
    OpCase("tile", lambda t, a: a.tile((2,)), ((2, 3),)),
    OpCase("tile_more_dims", lambda t, a: t.tile(a, (2, 1, 2)), ((3,),)),
    # pad (torch.nn.functional.pad)
    OpCase("pad", lambda t, a: _pad(t, a, (1, 2)), ((2, 3),)),
    OpCase("pad_value", lambda t, a: _pad(t, a, (1, 0, 0, 2), value=1.5), ((2, 3),)),
    OpCase("pad_0d", lambda t, a: _pad(t, a, ()), ((),)),
    OpCase("pad_crop", lambda t, a: _pad(t, a, (-1, 2, 1, -1)), ((2, 3, 4),)),
    OpCase("pad_all_dims", lambda t, a: _pad(t, a, (1, 1, 2, 0, 0, 1)), ((2, 2, 3),)),
    OpCase("pad_reflect", lambda t, a: _pad(t, a, (2, 3), mode="reflect"), ((2, 5),)),
    OpCase(
        "pad_reflect_2d",
        lambda t, a: _pad(t, a, (1, 2, 2, 1), mode="reflect"),
        ((1, 2, 3, 4),),
    ),
    OpCase(
        "pad_reflect_3d",
        lambda t, a: _pad(t, a, (1, 0, 0, 2, 1, 1), mode="reflect"),
        ((2, 2, 3, 3),),
    ),
    OpCase("pad_reflect_crop", lambda t, a: _pad(t, a, (-2, 3), mode="reflect"), ((2, 6),)),
    OpCase("pad_replicate", lambda t, a: _pad(t, a, (3, 1), mode="replicate"), ((2, 2, 3),)),
    OpCase(
        "pad_replicate_2d",
        lambda t, a: _pad(t, a, (1, -1, 2, 3), mode="replicate"),
        ((2, 3, 4),),
    ),
    OpCase("pad_replicate_1", lambda t, a: _pad(t, a, (2, 2), mode="replicate"), ((2, 1),)),
    OpCase("pad_circular", lambda t, a: _pad(t, a, (2, 1), mode="circular"), ((2, 4),)),
    OpCase(
        "pad_circular_2d",
        lambda t, a: _pad(t, a, (3, 2, 1, 1), mode="circular"),
        ((1, 2, 3, 3),),
    ),
    OpCase("pad_circular_crop", lambda t, a: _pad(t, a, (1, -2), mode="circular"), ((2, 5),)),
]
