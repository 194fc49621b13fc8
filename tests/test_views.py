"""Views: which ops return views (``_base``, ``_is_view()``), the version counter they
share, and what in-place changes do to them and to their base (``CopySlices``,
regenerated ``AsStridedBackward0``, the errors of multi-output and no-grad views), each
compared with torch 2.13 and gradients also with finite differences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close

X = np.arange(1.0, 7.0).reshape(2, 3) / 4

VIEW_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "select": lambda lib, x: x[0],
    "slice": lambda lib, x: x[1:],
    "step": lambda lib, x: x[:, ::2],
    "ellipsis": lambda lib, x: x[..., 1],
    "none": lambda lib, x: x[None],
    "full_slice": lambda lib, x: x[:],
    "view": lambda lib, x: x.view(6),
    "reshape": lambda lib, x: x.reshape(3, 2),
    "reshape_copy": lambda lib, x: x.t().reshape(6),
    "t": lambda lib, x: x.t(),
    "T": lambda lib, x: x.T,
    "mT": lambda lib, x: x.mT,
    "transpose": lambda lib, x: x.transpose(0, 1),
    "permute": lambda lib, x: x.permute(1, 0),
    "movedim": lambda lib, x: x.movedim(0, 1),
    "squeeze": lambda lib, x: x[None].squeeze(0),
    "unsqueeze": lambda lib, x: x.unsqueeze(0),
    "expand": lambda lib, x: x[None].expand(2, 2, 3),
    "expand_as": lambda lib, x: x.expand_as(x),
    "view_as": lambda lib, x: x.view_as(x),
    "narrow": lambda lib, x: x.narrow(1, 0, 2),
    "select_method": lambda lib, x: x.select(1, 2),
    "split": lambda lib, x: x.split(1)[1],
    "split_with_sizes": lambda lib, x: x.split([1, 2], 1)[1],
    "chunk": lambda lib, x: x.chunk(2, 1)[1],
    "unbind": lambda lib, x: x.unbind(1)[1],
    "tensor_split": lambda lib, x: x.tensor_split(2, 1)[1],
    "diagonal": lambda lib, x: x.diagonal(),
    "diag": lambda lib, x: x.diag(),
    "flatten": lambda lib, x: x.flatten(),
    "unflatten": lambda lib, x: x.unflatten(1, (3, 1)),
    "view_of_view": lambda lib, x: x[1:][0],
    "chain": lambda lib, x: x[1].unsqueeze(0).t()[1:],
    "detach": lambda lib, x: x.detach(),
    "data": lambda lib, x: x.data,
    "advanced": lambda lib, x: x[lib.tensor([1, 0])],
    "mask": lambda lib, x: x[x > 0.5],
    "clone": lambda lib, x: x.clone(),
    "contiguous": lambda lib, x: x.contiguous(),
    "real": lambda lib, x: (x * (1 - 1j)).real,
    "imag": lambda lib, x: (x * (1 - 1j)).imag,
    "view_as_real": lambda lib, x: lib.view_as_real(x * (1 - 1j)),
}


def describe_view(lib: Any, name: str) -> tuple[Any, ...]:
    x = lib.tensor(X)
    out = VIEW_OPS[name](lib, x)
    base = out._base
    shares_memory = np.shares_memory(out.numpy(), x.numpy())
    before = out._version
    x.add_(1) if base is x or base is None else base.add_(1)
    return (
        out._is_view(),
        base is x,
        base is not None and base._is_view(),
        shares_memory,
        (
            before,
            out._version,
        ),
    )


@pytest.mark.parametrize("name", VIEW_OPS)
def test_which_ops_return_views_matches_torch(torch: Any, name: str) -> None:
    """``_is_view()``, ``_base`` (the root, never a view), shared memory and version."""
    assert describe_view(hookgrad, name) == describe_view(torch, name)


# ---------------------------------------------------------------- in-place on a view

INPLACE_ON_VIEW: dict[str, Callable[[Any, Any, Any], Any]] = {
    "select_mul": lambda lib, b, o: b[0].mul_(2),
    "select_mul_tensor": lambda lib, b, o: b[0].mul_(o[0]),
    "slice_step_add": lambda lib, b, o: b[:, ::2].add_(o[:, :2]),
    "transpose_copy": lambda lib, b, o: b.t()[1:].copy_(o.t()[1:] * 3),
    "diagonal_exp": lambda lib, b, o: b.diagonal().exp_(),
    "view_zero": lambda lib, b, o: b.view(6)[2:4].zero_(),
    "unsqueeze_sigmoid": lambda lib, b, o: b[1].unsqueeze(0).sigmoid_(),
    "twice": lambda lib, b, o: (b[0].mul_(o[1]), b[:, 1].add_(o[0, 1])),
    "setitem": lambda lib, b, o: b.__setitem__((1, slice(0, 2)), o[0, 1:]),
    "view_then_base": lambda lib, b, o: (b[1].mul_(3), b.pow_(2)),
    "base_then_view": lambda lib, b, o: (b.mul_(o), b[1].tanh_()),
}


def run_inplace_on_view(lib: Any, name: str) -> dict[str, Any]:
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    o = lib.tensor(X[::-1].copy() + 0.5, dtype=lib.float64, requires_grad=True)
    b = x * 1
    INPLACE_ON_VIEW[name](lib, b, o)
    out = {"base": b.grad_fn.name(), "version": b._version, "value": b.detach().clone()}
    out["next"] = [n.name() for n, _ in b.grad_fn.next_functions if n is not None]
    (b * lib.tensor(X[::-1].copy(), dtype=lib.float64)).sum().backward()
    out["grads"] = (x.grad, o.grad)
    return out


@pytest.mark.parametrize("name", INPLACE_ON_VIEW)
def test_inplace_on_a_view_updates_the_base_as_torch(torch: Any, name: str) -> None:
    expected, actual = run_inplace_on_view(torch, name), run_inplace_on_view(hookgrad, name)
    for key in ("base", "version", "next"):
        assert actual[key] == expected[key], key
    assert_close(actual["value"], expected["value"], rtol=1e-12, atol=1e-12)
    assert_close(actual["grads"], expected["grads"], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", INPLACE_ON_VIEW)
def test_inplace_on_a_view_gradcheck(name: str) -> None:
    def f(x: Any, o: Any) -> Any:
        b = x * 1
        INPLACE_ON_VIEW[name](hookgrad, b, o)
        return b

    x = hookgrad.tensor(X, dtype=hookgrad.float64, requires_grad=True)
    o = hookgrad.tensor(X[::-1].copy() + 0.5, dtype=hookgrad.float64, requires_grad=True)
    assert hookgrad.autograd.gradcheck(f, (x, o))
    assert hookgrad.autograd.gradgradcheck(f, (x, o))


def test_the_example_of_the_issue(torch: Any) -> None:
    """``b = a.clone(); b[0].mul_(2); b.sum().backward()``."""

    def run(lib: Any) -> list[Any]:
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = a.clone()
        b[0].mul_(2)
        b.sum().backward()
        return [a.grad.tolist(), b.tolist(), repr(b.grad_fn).split(" ")[0]]

    assert (
        run(hookgrad)
        == run(torch)
        == [
            [[2.0, 2.0], [1.0, 1.0]],
            [[2.0, 4.0], [3.0, 4.0]],
            "<CopySlices",
        ]
    )


def test_complex_views_modified_in_place_match_torch(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        z = x * (1 + 2j)
        z.real.mul_(3)
        z.imag.add_(x)
        lib.view_as_real(z)[1].mul_(x[0])
        (z.abs() ** 2).sum().backward()
        return [z.grad_fn.name(), x.grad.tolist(), lib.view_as_real(z).tolist()]

    assert run(hookgrad) == run(torch)


# ---------------------------------------------------------------- regenerated grad_fn


def test_views_regenerate_their_grad_fn_after_the_base_changed(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        b = x * 1
        v, w = b[0], b[:, 1]
        before = v.grad_fn
        log = [v.grad_fn.name(), w.grad_fn.name()]
        b.mul_(2)
        node = v.grad_fn
        log += [node.name(), node is not before, node is v.grad_fn]
        log += [node.next_functions[0][0].name(), v._version, v.requires_grad, v.is_leaf]
        w.add_(1)
        log += [v.grad_fn.name(), v.grad_fn.next_functions[0][0].name()]
        log += [b.grad_fn.name(), w.grad_fn.name()]
        (v * 3 + w.sum()).sum().backward()
        log.append(x.grad.tolist())
        return log

    assert run(hookgrad) == run(torch)


def test_a_view_of_a_base_that_starts_to_require_grad(torch: Any) -> None:
    """The view was made before its base required grad; an in-place op with an operand
    that requires grad changes that (``v.requires_grad`` follows its base)."""

    def run(lib: Any) -> list[Any]:
        x = lib.zeros(3)
        v = x[1:]
        log = [v.requires_grad, v.grad_fn]
        o = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x.add_(o)
        log += [v.requires_grad, v.is_leaf, v.grad_fn.name(), x.grad_fn.name()]
        (v * v).sum().backward()
        log.append(o.grad.tolist())
        b = lib.zeros(3)
        b[1:].mul_(o[1:])
        log += [b.grad_fn.name(), b.grad_fn.next_functions[0][0], b.requires_grad]
        return log

    assert run(hookgrad) == run(torch)


def test_hooks_on_a_view_across_in_place_changes_match_torch(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        b = x * 1
        v = b[1]
        v.register_hook(lambda g: log.append(("view_before", g.tolist())))
        b.register_hook(lambda g: log.append(("base_before", g.tolist())))
        v.retain_grad()
        b.retain_grad()
        v.mul_(2)
        v.register_hook(lambda g: log.append(("view_after", g.tolist())))
        b.register_hook(lambda g: log.append(("base_after", g.tolist())))
        b.add_(1)
        v.register_hook(lambda g: log.append(("view_last", g.tolist())))
        (b.sum() + (v * 3).sum()).backward()
        log.append(("grads", x.grad.tolist(), v.grad.tolist(), b.grad.tolist()))
        return log

    assert run(hookgrad) == run(torch)


# ---------------------------------------------------------------- forbidden cases


def _split_view(lib: Any, requires_grad: bool = True) -> Any:
    x = lib.tensor(X, requires_grad=requires_grad)
    return (x * 1 if requires_grad else x).split(1)


def _modified_split(lib: Any) -> Any:
    pieces = (lib.tensor(X, requires_grad=True) * 1).split([1, 2], 1)
    pieces[0]._base.mul_(2)
    return pieces


def _no_grad_view(lib: Any, base_requires_grad: bool = True) -> Any:
    b = lib.tensor(X, requires_grad=True) * 1 if base_requires_grad else lib.zeros(2, 3)
    with lib.no_grad():
        return b, b[0]


def _inference_view(lib: Any) -> Any:
    b = lib.tensor(X, requires_grad=True) * 1
    with lib.inference_mode():
        return b[0]


def _after(lib: Any, make: Callable[[], Any], change: Callable[[Any], Any]) -> Any:
    b, view = make()
    change(b)
    return view


FORBIDDEN: dict[str, Callable[[Any], Any]] = {
    "split": lambda lib: _split_view(lib)[1].mul_(2),
    "unbind": lambda lib: (lib.tensor(X, requires_grad=True) * 1).unbind(1)[2].add_(1),
    "chunk": lambda lib: (lib.tensor(X, requires_grad=True) * 1).chunk(3, 1)[1].zero_(),
    "split_with_sizes": lambda lib: (
        (lib.tensor(X, requires_grad=True) * 1).split([1, 2], 1)[1].exp_()
    ),
    "view_of_split": lambda lib: _split_view(lib)[0][0].mul_(2),
    "reshape_of_unbind": lambda lib: (
        (lib.tensor(X, requires_grad=True) * 1).unbind()[1].view(3, 1).mul_(2)
    ),
    "split_setitem": lambda lib: _split_view(lib)[0].__setitem__(0, 1.0),
    "split_of_constant": lambda lib: _split_view(lib, False)[0].mul_(
        lib.tensor(2.0, requires_grad=True)
    ),
    "split_after_base_changed": lambda lib: _modified_split(lib)[0] * 2,
    "split_grad_fn_after_base_changed": lambda lib: _modified_split(lib)[1].grad_fn,
    "no_grad_view": lambda lib: _no_grad_view(lib)[1].mul_(2),
    "no_grad_view_constant": lambda lib: _no_grad_view(lib, False)[1].mul_(
        lib.tensor(2.0, requires_grad=True)
    ),
    "no_grad_view_after_base_changed": lambda lib: (
        _after(lib, lambda: _no_grad_view(lib), lambda b: b.add_(1)).grad_fn
    ),
    "inference_view": lambda lib: _inference_view(lib).add_(1),
}


@pytest.mark.parametrize("name", FORBIDDEN)
def test_forbidden_view_inplace_errors_match_torch(torch: Any, name: str) -> None:
    with pytest.raises(Exception) as expected:
        FORBIDDEN[name](torch)
    with pytest.raises(type(expected.value)) as actual:
        FORBIDDEN[name](hookgrad)
    assert str(actual.value) == str(expected.value)


def test_multi_output_views_may_change_without_autograd(torch: Any) -> None:
    """Allowed: under no_grad, or when nothing requires grad."""

    def run(lib: Any) -> list[Any]:
        x = lib.zeros(4)
        a, b = x.split(2)
        a.add_(1)
        y = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True) * 1
        c, d = y.unbind(0)[:2]
        with lib.no_grad():
            d.mul_(10)
        return [x.tolist(), y.tolist(), x._version, y._version]

    assert run(hookgrad) == run(torch)


def test_no_grad_view_requires_grad_like_its_base(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        b, view = _no_grad_view(lib)
        return [view.requires_grad, view.is_leaf, view.grad_fn, view._is_view()]

    assert run(hookgrad) == run(torch)
