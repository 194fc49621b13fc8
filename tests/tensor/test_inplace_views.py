"""In-place view ops, storage ops and the in-place matrix products against torch: node
names, saved values, edges, versions, views and hooks, and torch's errors. (Values and
gradients are rows of ``tests/ops/cases/restride.py``.)"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hookgrad
from tests.oracle import node_names, outcome, saved_values, signed


def _graph(lib, make):
    """``make(lib, a)`` on a leaf ``a``: the result's node, its saved values, its edges'
    node names, shape, strides, version and whether it is a view."""
    a = lib.arange(6.0, requires_grad=True).reshape(2, 1, 3)
    out = make(lib, a)
    node = out.grad_fn
    return (
        type(node).__name__,
        node.name(),
        {name: _plain(value) for name, value in saved_values(node).items()},
        [None if n is None else type(n).__name__ for n, _ in node.next_functions],
        tuple(out.shape),
        out.stride(),
        out._version,
        out._base is not None,
        node_names(node),
    )


def _plain(value):
    """A saved value comparable with ``==``: arrays as lists, torch's unsigned ints as
    the signed ints given."""
    return value.tolist() if isinstance(value, np.ndarray) else signed(value)


RESTRIDES = {
    "squeeze_": lambda t, a: (a * 1).squeeze_(),
    "squeeze_dim": lambda t, a: (a * 1).squeeze_(1),
    "squeeze_dims": lambda t, a: (a * 1).squeeze_((1, -1)),
    "unsqueeze_": lambda t, a: (a * 1).unsqueeze_(-1),
    "t_": lambda t, a: (a * 1).squeeze().t_(),
    "transpose_": lambda t, a: (a * 1).transpose_(0, 2),
    "swapaxes_": lambda t, a: (a * 1).swapaxes_(2, 0),
    "swapdims_": lambda t, a: (a * 1).swapdims_(0, 1),
    "as_strided_": lambda t, a: (a * 1).as_strided_((2, 2), (1, 2), 1),
    "as_strided_no_offset": lambda t, a: (a * 1)[1].as_strided_((2,), (2,)),
    "on_a_view": lambda t, a: (a * 1)[0].t_(),
    "twice": lambda t, a: (a * 1).unsqueeze_(0).squeeze_(2),
    "fill_diagonal_": lambda t, a: (a.squeeze(1) * 1).fill_diagonal_(3.0),
    "fill_diagonal_wrap": lambda t, a: (a.reshape(6, 1) * 1).fill_diagonal_(3.0, wrap=True),
    "addmm_": lambda t, a: t.zeros(2, 2).addmm_(a.reshape(2, 3), a.reshape(3, 2), beta=2),
    "addr_": lambda t, a: t.ones(2, 3).addr_(a[:, 0, 0], a[0, 0]),
    "addbmm_": lambda t, a: t.ones(3, 3).addbmm_(a.reshape(2, 3, 1), a.reshape(2, 1, 3)),
    "set_": lambda t, a: t.zeros(2).set_(a * 2),
    "fill": lambda t, a: t.fill(a, t.tensor(2.0, requires_grad=True)),
    "as_subclass": lambda t, a: (a * 1).as_subclass(t.Tensor),
}


@pytest.mark.parametrize("name", RESTRIDES)
def test_nodes_match_torch(name, torch):
    make = RESTRIDES[name]
    assert _graph(hookgrad, make) == _graph(torch, make)


def _slice_inverse_grads(lib):
    base = lib.arange(10.0, requires_grad=True)
    src = lib.arange(10.0, 20.0, requires_grad=True)
    out = lib.slice_inverse((base * 1)[2:8:2], src * 1, 0, 2, 8, 2)
    node = out.grad_fn
    (out * lib.arange(10.0)).sum().backward()
    return base.grad, src.grad, node.name(), saved_values(node)


def test_slice_inverse_gives_the_slice_and_the_rest(torch):
    ours, theirs = _slice_inverse_grads(hookgrad), _slice_inverse_grads(torch)
    np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    assert ours[2:] == theirs[2:]


def _hooks(lib):
    """Hooks and retain_grad before and after an in-place view op stay with the old node
    (torch's ``set_history``): they all see the unsqueezed shape."""
    seen = []
    a = lib.ones(2, 1, 3, requires_grad=True)
    b = a * 1
    b.register_hook(lambda g: seen.append(("before", tuple(g.shape))))
    b.retain_grad()
    b.squeeze_(1)
    b.register_hook(lambda g: seen.append(("after", tuple(g.shape))))
    (b * lib.arange(6.0).view(2, 3)).sum().backward()
    c = (a * 1).squeeze_()
    c.register_hook(lambda g: seen.append(("first after", tuple(g.shape))))
    c.sum().backward()
    return seen, tuple(b.grad.shape), a.grad.tolist()


def test_hooks_stay_with_the_old_node(torch):
    assert _hooks(hookgrad) == _hooks(torch)


def _view_history(lib):
    """An in-place view op on a view leaves the base's history; changing the base later
    regenerates the view's (``AsStridedBackward0``) from its new layout."""
    a = lib.arange(6.0, requires_grad=True)
    b = a.reshape(2, 1, 3) * 1
    v = b[:, 0]
    v.t_()
    first = (type(v.grad_fn).__name__, type(b.grad_fn).__name__, v._version, b._version)
    b.mul_(2)
    regenerated = node_names(v.grad_fn)
    v.mul_(lib.arange(6.0).view(3, 2))
    b.sum().backward()
    return first, regenerated, node_names(b.grad_fn), a.grad.tolist(), tuple(v.stride())


def test_view_history_matches_torch(torch):
    assert _view_history(hookgrad) == _view_history(torch)


def _no_grad_restride(lib):
    """Under no_grad the shape changes and the node stays: backward then fails on the
    gradient's shape, as in torch."""
    a = lib.ones(2, 1, 3, requires_grad=True)
    b = a * 1
    with lib.no_grad():
        b.squeeze_()
    return type(b.grad_fn).__name__, tuple(b.shape), b._version


def test_no_grad_keeps_the_node(torch):
    assert _no_grad_restride(hookgrad) == _no_grad_restride(torch)


def _leaf_without_grad(lib):
    x = lib.arange(6).view(2, 3)
    x.t_()
    y = lib.zeros(3, requires_grad=True)
    with lib.no_grad():
        y.unsqueeze_(0)
    return x.tolist(), x.stride(), tuple(y.shape), y.is_leaf, y.requires_grad


def test_tensors_without_history(torch):
    assert _leaf_without_grad(hookgrad) == _leaf_without_grad(torch)


def _inference_view(lib):
    with lib.inference_mode():
        x = lib.ones(2, 1)
    x.squeeze_()


def _no_grad_view(lib):
    b = lib.ones(2, 1, requires_grad=True) * 1
    with lib.no_grad():
        v = b[0]
    v.unsqueeze_(0)


ERRORS = {
    "leaf": lambda t: t.ones(2, 1, requires_grad=True).squeeze_(),
    "view_of_leaf": lambda t: t.ones(2, 1, requires_grad=True)[0].t_(),
    "no_grad_view": _no_grad_view,
    "inference": _inference_view,
    "t_3d": lambda t: t.zeros(2, 2, 2).t_(),
    "transpose_dim": lambda t: t.zeros(2, 3).transpose_(0, 5),
    "unsqueeze_dim": lambda t: t.zeros(2, 3).unsqueeze_(4),
    "squeeze_repeated": lambda t: t.zeros(1, 3).squeeze_((0, 0)),
    "as_strided_offset": lambda t: t.zeros(6).as_strided_((2,), (1,), -1),
    "as_strided_bounds": lambda t: t.zeros(6).as_strided_((20,), (1,)),
    "fill_diagonal_1d": lambda t: t.zeros(3).fill_diagonal_(1),
    "fill_diagonal_unequal": lambda t: t.zeros(3, 4, 3).fill_diagonal_(1),
    "fill_diagonal_tensor": lambda t: t.zeros(3, 3).fill_diagonal_(t.tensor([1.0])),
    "addmm_broadcast": lambda t: t.zeros(4).addmm_(t.ones(2, 3), t.ones(3, 4)),
    "addmv_broadcast": lambda t: t.zeros(1).addmv_(t.ones(2, 3), t.ones(3)),
    "addr_1d": lambda t: t.zeros(3).addr_(t.ones(2), t.ones(3)),
    "baddbmm_broadcast": lambda t: t.zeros(2, 1, 4).baddbmm_(t.ones(2, 2, 3), t.ones(2, 3, 4)),
    "addr_cast": lambda t: t.zeros(2, 3, dtype=t.int64).addr_(t.ones(2), t.ones(3)),
    "addmm_dtype": lambda t: t.zeros(2, 4, dtype=t.int64).addmm_(t.ones(2, 3), t.ones(3, 4)),
    "addmm_leaf": lambda t: t.zeros(2, 4, requires_grad=True).addmm_(t.ones(2, 3), t.ones(3, 4)),
    "set_dtype": lambda t: t.zeros(2, dtype=t.int64).set_(t.zeros(2)),
    "set_leaf": lambda t: t.zeros(2, requires_grad=True).set_(t.zeros(3)),
    "set_backward": lambda t: t.zeros(3).set_(t.ones(3, requires_grad=True) * 2).sum().backward(),
    "resize_requires_grad": lambda t: (t.ones(3, requires_grad=True) * 1).resize_(3),
    "resize_negative": lambda t: t.zeros(2).resize_(2, -1),
    "resize_preserve": lambda t: t.zeros(2).resize_(2, memory_format=t.preserve_format),
    "resize_rank": lambda t: t.zeros(2).resize_(2, 3, memory_format=t.channels_last),
    "resize_text": lambda t: t.zeros(2).resize_("a"),
    "resize_inference": lambda t: t.inference_mode()(lambda: t.zeros(2))().resize_(3),
    "legacy_resize_numel": lambda t: t.zeros(2).resize(3),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name, torch):
    expected = outcome(ERRORS[name], torch)
    assert expected[0] == "error"
    assert outcome(ERRORS[name], hookgrad) == expected


# ---------------------------------------------------------------- storage


def _set_forms(lib):
    z = lib.arange(6.0)
    empty = lib.zeros(2).set_()
    whole = lib.zeros(2).set_(z.untyped_storage())
    laid = lib.zeros(2).set_(z.untyped_storage(), 1, (2, 2), (1, 2))
    contiguous = lib.zeros(2).set_(z.untyped_storage(), 2, (2,))
    same = lib.zeros(2).set_(z)
    laid.add_(1)
    return (
        tuple(empty.shape),
        empty._version,
        whole.tolist(),
        laid.tolist(),
        laid.storage_offset(),
        laid.data_ptr() - z.data_ptr(),
        contiguous.tolist(),
        contiguous.stride(),
        z.tolist(),
        same.is_set_to(z),
        z.is_set_to(same),
        laid.is_set_to(z),
        lib.zeros(2).is_set_to(lib.zeros(2)),
    )


def test_set_forms_share_memory(torch):
    assert _set_forms(hookgrad) == _set_forms(torch)


def _set_history(lib):
    a = lib.ones(3, requires_grad=True)
    x = lib.zeros(3)
    x.set_(a * 2)
    b = lib.zeros(3, requires_grad=True) * 1
    b.set_(lib.arange(3.0))
    return (
        x.grad_fn.name(),
        len(x.grad_fn.next_functions),
        x.requires_grad,
        b.grad_fn.name(),
        [n is None for n, _ in b.grad_fn.next_functions],
    )


def test_set_records_torchs_not_implemented_node(torch):
    assert _set_history(hookgrad) == _set_history(torch)


def _resizes(lib):
    x = lib.arange(6.0)
    y = x[:4]
    y.resize_(2, 2)
    same_storage = y.data_ptr() == x.data_ptr()
    kept = lib.zeros(2, 3).t()
    kept.resize_(3, 2)
    changed = lib.zeros(2, 3).t()
    changed.resize_(2, 3)
    channels = lib.zeros(1, 2, 3, 3)
    channels.resize_(1, 2, 3, 3, memory_format=lib.channels_last)
    offset = lib.arange(6.0)[2:]
    offset.resize_(2)
    grown = lib.arange(4.0)
    grown.resize_(3, 2)
    template = lib.zeros(2, 3)
    lib.resize_as_(template, lib.zeros(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        legacy = lib.arange(6.0, requires_grad=True).resize(3, 2)
        legacy_as = lib.arange(6.0).t().resize_as(lib.zeros(2, 3))
    legacy.sum().backward()
    return (
        y.tolist(),
        y._version,
        same_storage,
        kept.stride(),
        changed.stride(),
        channels.stride(),
        offset.tolist(),
        offset.storage_offset(),
        grown[:2].tolist(),
        tuple(grown.shape),
        tuple(template.shape),
        type(legacy.grad_fn).__name__,
        legacy.tolist(),
        legacy_as.tolist(),
    )


def test_resize_relays_memory(torch):
    assert _resizes(hookgrad) == _resizes(torch)


def _typed_storage(lib):
    x = lib.arange(6.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        storage = x[2:].storage()
    storage[0] = 5.0
    return (
        len(caught),
        storage.size(),
        len(storage),
        storage.element_size(),
        storage.nbytes(),
        storage.data_ptr() == x.data_ptr(),
        storage[1],
        storage.tolist(),
        storage.type(),
        x.tolist(),
        x.storage_type().__name__,
        x.int().storage_type().__name__,
        x.const_data_ptr() == x.data_ptr(),
        x.is_shared(),
        x.is_nested,
        x.layout is lib.strided,
        repr(x.layout),
    )


def test_storage_methods_match_torch(torch):
    assert _typed_storage(hookgrad) == _typed_storage(torch)


def test_share_memory_moves_the_storage_into_shared_memory():
    x = hookgrad.arange(6.0)[2:]
    assert not x.is_shared()
    assert x.share_memory_() is x
    assert x.is_shared() and x.untyped_storage().is_shared()
    assert x.tolist() == [2.0, 3.0, 4.0, 5.0] and x.storage_offset() == 2
    pointer = x.data_ptr()
    x.share_memory_()  # already shared: nothing moves
    assert x.data_ptr() == pointer


# ---------------------------------------------------------------- conversions


def test_dlpack_shares_memory_with_torch_and_numpy(torch):
    x = hookgrad.arange(4.0)
    torch.from_dlpack(x)[0] = 9.0
    torch.from_dlpack(hookgrad.to_dlpack(x))[1] = 8.0
    assert x.tolist() == [9.0, 8.0, 2.0, 3.0]
    theirs = torch.arange(3, dtype=torch.int32)
    hookgrad.from_dlpack(theirs)[0] = 5
    hookgrad.from_dlpack(torch.to_dlpack(theirs))[2] = 7
    assert theirs.tolist() == [5, 1, 7]
    array = np.arange(3.0)
    hookgrad.from_dlpack(array)[1] = 4.0
    assert array.tolist() == [0.0, 4.0, 2.0]
    copied = hookgrad.from_dlpack(array, copy=True)
    copied[0] = 1.0
    assert array[0] == 0.0
    assert hookgrad.from_dlpack(torch.tensor([1 + 2j])).dtype == hookgrad.complex64
    assert x.__dlpack_device__() == (1, 0)


def _dlpack_errors(lib):
    def run(case):
        try:
            case()
        except Exception as error:  # noqa: BLE001
            return type(error).__name__, str(error)
        return None

    return (
        run(lambda: lib.from_dlpack(3)),
        run(lambda: lib.ones(2, requires_grad=True).__dlpack__()),
    )


def test_dlpack_errors_match_torch(torch):
    assert _dlpack_errors(hookgrad) == _dlpack_errors(torch)


def _subclass(lib):
    class Tagged(lib.Tensor):
        pass

    a = lib.ones(2, requires_grad=True)
    x = a * 2
    tagged = x.as_subclass(Tagged)
    tagged.sum().backward()
    plain = lib.nn.Parameter(lib.ones(1)).as_subclass(lib.Tensor)
    target = lib.zeros(2)
    loaded = target.module_load(lib.ones(2))
    assigned = target.module_load(lib.full((2,), 3.0), assign=True)
    return (
        type(tagged).__name__,
        tagged._base is x,
        a.grad.tolist(),
        type(plain).__name__,
        target.tolist(),
        loaded.tolist(),
        loaded is target,
        assigned.tolist(),
        outcome(lambda t: x.as_subclass(int), lib),
    )


def test_as_subclass_and_module_load(torch):
    assert _subclass(hookgrad) == _subclass(torch)
