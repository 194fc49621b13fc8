"""In-place ops: values, gradients, node names, version counters, hooks and errors,
each compared with torch 2.13 (and gradients with finite differences).

Every case in ``CASES`` is one in-place call ``case(y, env)`` written once for both
libraries; ``env`` holds the other operands (some require grad). The harness runs it on
a non-leaf ``y``, on two kinds of views ``y`` of a larger base, and under ``no_grad``,
and compares what torch and hookgrad report.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close

Env = types.SimpleNamespace
X = np.array([[0.2, 0.5, 0.9], [0.4, 0.7, 0.3]])


def make_env(lib: Any) -> Env:
    """The operands the cases use (float64; the ``req`` ones require grad)."""

    def req(data: Any) -> Any:
        return lib.tensor(data, dtype=lib.float64, requires_grad=True)

    return Env(
        o=req([[0.6, 1.2, 0.8], [1.4, 0.9, 1.1]]),
        row=req([0.5, 1.5, 2.0]),
        s=req(0.75),
        lo=req([[0.3, 0.3, 0.3], [0.1, 0.1, 0.1]]),
        hi=req([[0.6, 0.6, 0.6], [0.5, 0.5, 0.5]]),
        src=req([[1.0, 2.0], [3.0, 4.0]]),
        vals=req([5.0, 6.0]),
        mask=lib.tensor([[True, False, True], [False, False, True]]),
        idx=lib.tensor([2, 0]),
        sidx=lib.tensor([[2, 0], [1, 2]]),
        rows=lib.tensor([0, 1]),
        cols=lib.tensor([2, 0]),
    )


def _setitem(key: Callable[[Env], Any], value: Callable[[Env], Any]) -> Callable[..., None]:
    def case(y: Any, e: Env) -> None:
        y[key(e)] = value(e)

    return case


def _iadd(y: Any, e: Env) -> None:
    y += e.o


def _isub(y: Any, e: Env) -> None:
    y -= 0.25


def _imul(y: Any, e: Env) -> None:
    y *= e.row


def _itruediv(y: Any, e: Env) -> None:
    y /= e.o


def _ipow(y: Any, e: Env) -> None:
    y **= 2


def _imod(y: Any, e: Env) -> None:
    y %= 0.35


CASES: dict[str, Callable[[Any, Env], Any]] = {
    "add_": lambda y, e: y.add_(e.o),
    "add_alpha": lambda y, e: y.add_(e.o, alpha=2),
    "add_number": lambda y, e: y.add_(2),
    "add_broadcast": lambda y, e: y.add_(e.row),
    "sub_": lambda y, e: y.sub_(e.o, alpha=0.5),
    "mul_": lambda y, e: y.mul_(e.o),
    "mul_number": lambda y, e: y.mul_(3),
    "mul_0dim": lambda y, e: y.mul_(e.s),
    "div_": lambda y, e: y.div_(e.o),
    "div_number": lambda y, e: y.div_(4),
    "div_floor": lambda y, e: y.div_(e.o, rounding_mode="floor"),
    "pow_number": lambda y, e: y.pow_(2),
    "pow_tensor": lambda y, e: y.pow_(e.o),
    "neg_": lambda y, e: y.neg_(),
    "exp_": lambda y, e: y.exp_(),
    "log_": lambda y, e: y.log_(),
    "sqrt_": lambda y, e: y.sqrt_(),
    "sigmoid_": lambda y, e: y.sigmoid_(),
    "tanh_": lambda y, e: y.tanh_(),
    "relu_": lambda y, e: y.sub_(0.5).relu_(),
    "abs_": lambda y, e: y.sub_(0.5).abs_(),
    "clamp_": lambda y, e: y.clamp_(0.3, 0.8),
    "clamp_tensor": lambda y, e: y.clamp_(e.lo, e.hi),
    "clamp_min_": lambda y, e: y.clamp_min_(0.35),
    "clamp_max_": lambda y, e: y.clamp_max_(0.45),
    "zero_": lambda y, e: y.zero_(),
    "fill_": lambda y, e: y.fill_(2.5),
    "fill_tensor": lambda y, e: y.fill_(e.s),
    "copy_": lambda y, e: y.copy_(e.o),
    "copy_broadcast": lambda y, e: y.copy_(e.row),
    "copy_float32": lambda y, e: y.copy_(e.o.float()),
    "masked_fill_": lambda y, e: y.masked_fill_(e.mask, 0.5),
    "masked_fill_tensor": lambda y, e: y.masked_fill_(e.mask, e.s),
    "index_add_": lambda y, e: y.index_add_(1, e.idx, e.src, alpha=2),
    "scatter_": lambda y, e: y.scatter_(1, e.sidx, e.src),
    "scatter_value": lambda y, e: y.scatter_(1, e.sidx, 1.5),
    "scatter_add_": lambda y, e: y.scatter_add_(1, e.sidx, e.src),
    "index_put_": lambda y, e: y.index_put_((e.rows, e.cols), e.vals),
    "index_put_accumulate": lambda y, e: y.index_put_((e.rows, e.rows), e.vals, True),
    "setitem_int": _setitem(lambda e: 0, lambda e: 1.5),
    "setitem_row": _setitem(lambda e: 1, lambda e: e.row),
    "setitem_element": _setitem(lambda e: (0, 1), lambda e: e.s),
    "setitem_slice": _setitem(lambda e: (slice(None), slice(1, None)), lambda e: e.src),
    "setitem_full_slice": _setitem(lambda e: slice(None), lambda e: e.o),
    "setitem_broadcast": _setitem(lambda e: slice(0, 1), lambda e: e.row),
    "setitem_ellipsis": _setitem(lambda e: Ellipsis, lambda e: e.s),
    "setitem_advanced": _setitem(lambda e: e.rows.flip(0), lambda e: e.o),
    "setitem_mixed": _setitem(lambda e: (1, e.idx), lambda e: e.vals),
    "setitem_mask": _setitem(lambda e: e.mask, lambda e: 0.0),
    "iadd": _iadd,
    "isub": _isub,
    "imul": _imul,
    "itruediv": _itruediv,
    "ipow": _ipow,
    "imod": _imod,
    "chain": lambda y, e: y.mul_(2).add_(e.o).exp_(),
}

WEIGHTS = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])


def names(node: Any) -> Any:
    """A node's name and the names of its inputs that get gradients (torch's ``name()``).

    NOTE: torch leaves integer inputs (index, mask) out of ``next_functions``, hookgrad's
    ops give them a ``(None, 0)`` edge; edges to no node are not compared.
    """
    if node is None:
        return None
    return node.name(), [n.name() for n, _ in node.next_functions if n is not None]


def run_case(lib: Any, case: Callable[..., Any], layout: str) -> dict[str, Any]:
    """Apply ``case`` to ``y``: a non-leaf (``plain``) or a view of a larger non-leaf
    base (``select``: a slice of the first dim, ``strided``: every other element).
    Returns what there is to compare."""
    e = make_env(lib)
    if layout == "plain":
        x = lib.tensor(X, requires_grad=True)
        base = y = x * 1
    elif layout == "select":
        x = lib.tensor(np.stack([X + 1, X]), requires_grad=True)
        base = x * 1
        y = base[1]
    else:
        x = lib.tensor(np.stack([X + 1, X], -1), requires_grad=True)
        base = x * 1
        y = base[..., 1]
    result = case(y, e)
    out: dict[str, Any] = {
        "returns_self": result is None or result is y,
        "value": y.detach().clone(),
        "version": (y._version, base._version),
        "y": names(y.grad_fn),
        "base": names(base.grad_fn),
    }
    weights = lib.tensor(np.ones(base.shape))
    if layout == "plain":
        weights = lib.tensor(WEIGHTS)
    loss = (base * weights).sum() + (y * lib.tensor(WEIGHTS)).sum()
    loss.backward()
    out["grads"] = [t.grad for t in (x, *vars(e).values()) if t.requires_grad]
    return out


@pytest.mark.parametrize("layout", ["plain", "select", "strided"])
@pytest.mark.parametrize("name", CASES)
def test_inplace_matches_torch(torch: Any, name: str, layout: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = run_case(torch, CASES[name], layout)
        actual = run_case(hookgrad, CASES[name], layout)
    for key in ("returns_self", "version", "y", "base"):
        assert actual[key] == expected[key], key
    assert_close(actual["value"], expected["value"], rtol=1e-12, atol=1e-12)
    assert_close(actual["grads"], expected["grads"], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_inplace_under_no_grad_matches_torch(torch: Any, name: str) -> None:
    """No graph change, but the same values and version bumps (also on a leaf that
    requires grad, as optimizers update parameters)."""

    def run(lib: Any) -> tuple[Any, ...]:
        e = make_env(lib)
        x = lib.tensor(X, requires_grad=True)
        with lib.no_grad():
            CASES[name](x, e)
        return x.detach().clone(), x._version, x.grad_fn, x.is_leaf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, actual = run(torch), run(hookgrad)
    assert actual[1:] == expected[1:]
    assert_close(actual[0], expected[0], rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- finite differences

GRADCHECK_CASES = [
    "mul_",
    "div_",
    "pow_tensor",
    "exp_",
    "sigmoid_",
    "clamp_tensor",
    "copy_broadcast",
    "fill_tensor",
    "masked_fill_tensor",
    "index_add_",
    "scatter_",
    "index_put_accumulate",
    "setitem_row",
    "setitem_mixed",
    "chain",
]


@pytest.mark.parametrize("layout", ["plain", "select", "strided"])
@pytest.mark.parametrize("name", GRADCHECK_CASES)
def test_inplace_gradcheck(name: str, layout: str) -> None:
    """First and second derivatives of ``case`` (on a clone, or on a view of one) with
    respect to the tensor and every operand that requires grad."""
    e = make_env(hookgrad)
    names_ = [k for k, v in vars(e).items() if v.requires_grad]

    def f(x: Any, *operands: Any) -> Any:
        env = Env(**{**vars(e), **dict(zip(names_, operands))})
        if layout == "plain":
            base = y = x * 1
        elif layout == "select":
            base = hookgrad.stack([x * 2, x * 1])
            y = base[1]
        else:
            base = hookgrad.stack([x * 2, x * 1], -1)
            y = base[..., 1]
        CASES[name](y, env)
        return base

    inputs = (hookgrad.tensor(X, requires_grad=True), *(getattr(e, k) for k in names_))
    assert hookgrad.autograd.gradcheck(f, inputs)
    assert hookgrad.autograd.gradgradcheck(f, inputs)


# ---------------------------------------------------------------- version counters


def test_version_counts_match_torch(torch: Any) -> None:
    """Bumps through a tensor, its views, a detached alias and ``.data`` (not shared)."""

    def run(lib: Any) -> list[Any]:
        log = []
        x = lib.zeros(2, 3)
        v, d, data = x[1], x.detach(), x.data
        w = v[1:]
        steps = [
            lambda: x.add_(1),
            lambda: v.mul_(2),
            lambda: w.zero_(),
            lambda: d.fill_(3),
            lambda: data.sub_(1),
            lambda: x.__setitem__(0, 5.0),
            lambda: x.__setitem__((slice(None), 0), lib.ones(2)),
            lambda: x.index_put_((lib.tensor([0]),), lib.tensor(2.0)),
        ]
        for step in steps:
            step()
            log.append([t._version for t in (x, v, w, d, data)])
        with lib.no_grad():
            x.mul_(2)
        log.append([x._version, x.detach()._version, lib.zeros(1)._version])
        return log

    assert run(hookgrad) == run(torch)


def test_result_saving_ops_save_the_tensor_itself(torch: Any) -> None:
    """``exp_`` saves the new value of the tensor (its version after the op), so a later
    in-place change is caught; ``mul_`` saves a copy of the original ``self``."""

    def run(lib: Any) -> list[Any]:
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y = x * 1
        y.exp_()
        result = y.grad_fn._saved_result
        z = x * 1
        z.mul_(x)
        original = z.grad_fn._saved_self
        return [
            result.tolist(),
            result._version,
            result is y,
            original.tolist(),
            original._version,
            original is z,
        ]

    assert run(hookgrad) == run(torch)


def _modified_after_save(lib: Any, inplace_first: bool) -> Any:
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    y = x * 1
    if inplace_first:
        y.exp_()
    else:
        y = x.exp()
    y.mul_(2)
    y.sum().backward()


@pytest.mark.parametrize("inplace_first", [False, True])
def test_modifying_a_saved_result_raises_torchs_error(torch: Any, inplace_first: bool) -> None:
    with pytest.raises(RuntimeError) as expected:
        _modified_after_save(torch, inplace_first)
    with pytest.raises(RuntimeError) as actual:
        _modified_after_save(hookgrad, inplace_first)
    assert str(actual.value) == str(expected.value)
    assert "modified by an inplace operation" in str(actual.value)


def test_modifying_a_saved_input_raises_torchs_error(torch: Any) -> None:
    def run(lib: Any) -> None:
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y = x * 1
        z = y.sin()
        y.add_(1)
        z.sum().backward()

    with pytest.raises(RuntimeError) as expected:
        run(torch)
    with pytest.raises(RuntimeError) as actual:
        run(hookgrad)
    assert str(actual.value) == str(expected.value)


# ---------------------------------------------------------------- errors


def _leaf(lib: Any) -> Any:
    return lib.tensor([1.0, 2.0, 3.0], requires_grad=True)


def _inference(lib: Any) -> Any:
    with lib.inference_mode():
        return lib.ones(3)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "leaf": lambda lib: _leaf(lib).mul_(2),
    "leaf_iadd": lambda lib: _leaf(lib).__iadd__(1),
    "leaf_setitem_advanced": lambda lib: _leaf(lib).__setitem__(lib.tensor([0]), 1.0),
    "view_of_leaf": lambda lib: _leaf(lib)[1:].mul_(2),
    "view_of_leaf_setitem": lambda lib: _leaf(lib).__setitem__(0, 1.0),
    "inference": lambda lib: _inference(lib).add_(1),
    "inference_no_grad": lambda lib: _no_grad(lib, lambda: _inference(lib).zero_()),
    "inference_version": lambda lib: _inference(lib)._version,
    "expanded": lambda lib: lib.zeros(3).expand(2, 3).add_(1),
    "float_into_long": lambda lib: lib.zeros(3, dtype=lib.long).add_(1.5),
    "exp_of_long": lambda lib: lib.zeros(3, dtype=lib.long).exp_(),
    "complex_into_float": lambda lib: lib.zeros(3).mul_(lib.tensor([1j, 1j, 1j])),
    "broadcast_bigger": lambda lib: lib.zeros(3).add_(lib.ones(2, 3)),
    "copy_bigger": lambda lib: lib.zeros(3).copy_(lib.ones(2, 3)),
    "copy_mismatch": lambda lib: lib.zeros(3).copy_(lib.ones(2)),
    "copy_string": lambda lib: lib.zeros(3).copy_("a"),
    "fill_1d": lambda lib: lib.zeros(3).fill_(lib.ones(2)),
    "masked_fill_bigger": lambda lib: lib.zeros(3).masked_fill_(lib.ones(2, 3).bool(), 1.0),
    "setitem_list": lambda lib: lib.zeros(3).__setitem__(slice(None), [1.0, 2.0, 3.0]),
    "setitem_dtype": lambda lib: lib.zeros(3).__setitem__(
        lib.tensor([0]), lib.ones(1, dtype=lib.float64)
    ),
    "setitem_shape": lambda lib: lib.zeros(3).__setitem__(lib.tensor([0, 1]), lib.ones(3)),
    "normal_std": lambda lib: lib.zeros(3).normal_(0, -1),
    "uniform_range": lambda lib: lib.zeros(3).uniform_(1, 0),
    "uniform_long": lambda lib: lib.zeros(3, dtype=lib.long).uniform_(),
    "relu_bool": lambda lib: lib.zeros(3, dtype=lib.bool).relu_(),
    "detach_view": lambda lib: lib.zeros(3)[1:].detach_(),
    "partial_overlap": lambda lib: _overlapping(lib, lambda x: x[1:3].add_(x[:2])),
    "partial_overlap_copy": lambda lib: _overlapping(lib, lambda x: x[1:3].copy_(x[:2])),
    "transposed_overlap": lambda lib: _overlapping(
        lib, lambda x: x[:4].view(2, 2).mul_(x[:4].view(2, 2).t())
    ),
}


def _overlapping(lib: Any, change: Callable[[Any], Any]) -> Any:
    return change(lib.arange(6.0))


def test_allowed_overlaps_match_torch(torch: Any) -> None:
    """The same memory in the same layout, or layouts too hard to compare, are allowed."""

    def run(lib: Any) -> list[Any]:
        x = lib.arange(6.0)
        x.add_(x)
        x[::2].add_(x[1::2])
        x.view(2, 3).t().mul_(x.view(2, 3).t())
        x[:3].sub_(x[3:])
        return x.tolist()

    assert run(hookgrad) == run(torch)


def _no_grad(lib: Any, fn: Callable[[], Any]) -> Any:
    with lib.no_grad():
        return fn()


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(torch: Any, name: str) -> None:
    with pytest.raises(Exception) as expected:
        ERRORS[name](torch)
    with pytest.raises(type(expected.value)) as actual:
        ERRORS[name](hookgrad)
    assert type(actual.value) is type(expected.value)
    assert str(actual.value) == str(expected.value)


def test_floor_divide_and_remainder_in_place_match_torch(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.tensor([5.0, -7.5, 3.25])
        x //= 2
        y = lib.tensor([5.0, -7.5, 3.25])
        y %= 2
        return [x.tolist(), y.tolist(), x._version, y._version]

    assert run(hookgrad) == run(torch)


def test_copy_of_a_number_matches_torch(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.zeros(3, dtype=lib.long).copy_(2.7)
        y = lib.zeros(2, requires_grad=True) * 1
        y.copy_(4.0)
        return [x.tolist(), y.tolist(), names(y.grad_fn)]

    assert run(hookgrad) == run(torch)


def test_inplace_on_a_leaf_under_no_grad_and_through_data() -> None:
    """What optimizers do: both allowed; ``.data`` changes do not bump the version."""
    p = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    with hookgrad.no_grad():
        p.sub_(hookgrad.tensor([0.5, 0.5]), alpha=2)
    p.data.mul_(10)
    p.data = hookgrad.tensor([7.0, 8.0])
    assert p.tolist() == [7.0, 8.0]
    assert (p._version, p.is_leaf, p.requires_grad) == (1, True, True)


def test_complex_into_real_copy_warns_like_torch(torch: Any) -> None:
    def run(lib: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.zeros(2).copy_(lib.tensor([1 + 2j, 3 - 1j]))
        return out.tolist(), [str(w.message) for w in caught]

    # NOTE: torch warns once per process, so only its values are compared.
    (values, messages), (expected_values, _) = run(hookgrad), run(torch)
    assert values == expected_values
    assert messages == ["Casting complex values to real discards the imaginary part"]


# ---------------------------------------------------------------- hooks


def test_hooks_before_and_after_an_inplace_op_match_torch(torch: Any) -> None:
    """Hooks registered before stay with the old grad_fn (they see the gradient of the
    old value); ``retain_grad`` moves to the new one (SPEC.md section 3)."""

    def run(lib: Any) -> list[Any]:
        log: list[Any] = []
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: log.append(("before", g.tolist())))
        y.retain_grad()
        y.mul_(3)
        y.register_hook(lambda g: log.append(("after", g.tolist())))
        y.exp_()
        y.register_hook(lambda g: log.append(("last", g.tolist())))
        y.sum().backward()
        log.append(("grads", y.grad.tolist(), x.grad.tolist(), y.grad_fn.name()))
        return log

    assert run(hookgrad) == run(torch)


def test_node_hooks_of_an_inplace_node_match_torch(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        log: list[Any] = []
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        o = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True)
        y = x.sin()
        y.add_(o, alpha=2)
        node = y.grad_fn
        node.register_prehook(lambda go: log.append(("pre", node.name(), go[0].tolist())))
        node.register_hook(
            lambda gi, go: log.append(("post", [g.tolist() for g in gi], go[0].tolist()))
        )
        (y * y).sum().backward()
        log.append((x.grad.tolist(), o.grad.tolist()))
        return log

    assert run(hookgrad) == run(torch)


# ---------------------------------------------------------------- random fills


def test_random_fills_follow_the_seed_and_their_range() -> None:
    hookgrad.manual_seed(3)
    a = hookgrad.empty(1000).uniform_(-2, 3)
    b = hookgrad.empty(1000).normal_(4, 0.5)
    hookgrad.manual_seed(3)
    assert hookgrad.equal(a, hookgrad.empty(1000).uniform_(-2, 3))
    assert hookgrad.equal(b, hookgrad.empty(1000).normal_(4, 0.5))
    assert -2 <= a.min().item() and a.max().item() < 3
    assert abs(a.mean().item() - 0.5) < 0.2
    assert abs(b.mean().item() - 4) < 0.1 and abs(b.std().item() - 0.5) < 0.1
    g = hookgrad.Generator().manual_seed(1)
    c = hookgrad.empty(5, dtype=hookgrad.float64).uniform_(generator=g)
    assert c.dtype is hookgrad.float64 and c._version == 1


def test_random_fills_record_nodes_without_gradient(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y, z = x * 1, x * 1
        y.uniform_()
        z.normal_()
        (y + z + x).sum().backward()
        return [y.grad_fn.name(), z.grad_fn.name(), x.grad.tolist(), y._version]

    assert run(hookgrad) == run(torch)


def test_top_level_inplace_functions() -> None:
    from hookgrad.tensor.functions import inplace

    x = hookgrad.tensor([-1.0, 4.0])
    for name in inplace.__all__:
        assert callable(getattr(inplace, name))
    assert inplace.relu_(x) is x and x.tolist() == [0.0, 4.0]
    assert inplace.sqrt_(x).tolist() == [0.0, 2.0]
    assert inplace.clamp_(x, 1, 1.5).tolist() == [1.0, 1.5]
    assert x._version == 3


# ---------------------------------------------------------------- ctx.mark_dirty


def _dirty_functions(lib: Any) -> Env:
    """Custom Functions that modify an input in place (written once for both libraries)."""

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

    class AddInto(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any) -> Any:
            x.add_(y)
            ctx.mark_dirty(x)
            return x, y * 2

        @staticmethod
        def backward(ctx: Any, grad_x: Any, grad_y: Any) -> Any:
            return grad_x, grad_x + 2 * grad_y

    class ExpSaved(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.exp_()
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (result,) = ctx.saved_tensors
            return grad * result

    class NotReturned(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            return x.clone()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

    class ViewTwoOutputs(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x * 3

        @staticmethod
        def backward(ctx: Any, grad: Any, other: Any) -> Any:
            return grad * 2 + other * 6

    return Env(
        **{cls.__name__: cls for cls in (Double, AddInto, ExpSaved, NotReturned, ViewTwoOutputs)}
    )


def test_mark_dirty_matches_torch(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        fns = _dirty_functions(lib)
        log: list[Any] = []
        a = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        b = a * 1
        out = fns.Double.apply(b)
        log += [out is b, b._version, b.grad_fn.next_functions[0][0].name()]
        b.sum().backward()
        log.append(a.grad.tolist())
        c = lib.zeros(3)
        log += [fns.Double.apply(c) is c, c._version, c.grad_fn]
        a.grad = None
        c = a.clone()
        v = c[:2]
        log += [fns.Double.apply(v) is v, v.grad_fn.name(), c.grad_fn.name(), c._version]
        c.sum().backward()
        log.append(a.grad.tolist())
        x = a * 1
        x.register_hook(lambda g: log.append(("before", g.tolist())))
        x.retain_grad()
        o, _ = fns.AddInto.apply(x, lib.ones(3, dtype=lib.float64, requires_grad=True))
        x.register_hook(lambda g: log.append(("after", g.tolist())))
        (x * 3).sum().backward()
        log += [o is x, x._version, x.grad.tolist()]
        with lib.no_grad():
            d = a.clone()
            log += [fns.Double.apply(d) is d, d._version]
        return log

    assert run(hookgrad) == run(torch)


def test_mark_dirty_saved_output_is_checked_like_torch(torch: Any) -> None:
    def run(lib: Any) -> list[Any]:
        fns = _dirty_functions(lib)
        a = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        x = a * 1
        out = fns.ExpSaved.apply(x)
        out.sum().backward(retain_graph=True)
        log: list[Any] = [x._version, a.grad.tolist()]
        x.mul_(2)
        try:
            out.sum().backward()
        except RuntimeError as error:
            log.append(str(error))
        return log

    assert run(hookgrad) == run(torch)


MARK_DIRTY_ERRORS: dict[str, Callable[[Any], Any]] = {
    "leaf": lambda lib: _dirty_functions(lib).Double.apply(_leaf(lib)),
    "not_returned": lambda lib: _dirty_functions(lib).NotReturned.apply(_leaf(lib) * 1),
    "view_of_leaf": lambda lib: _dirty_functions(lib).Double.apply(_leaf(lib)[1:]),
    "view_two_outputs": lambda lib: _dirty_functions(lib).ViewTwoOutputs.apply(
        (_leaf(lib) * 1)[1:]
    ),
}


@pytest.mark.parametrize("name", MARK_DIRTY_ERRORS)
def test_mark_dirty_errors_match_torch(torch: Any, name: str) -> None:
    with pytest.raises(Exception) as expected:
        MARK_DIRTY_ERRORS[name](torch)
    with pytest.raises(type(expected.value)) as actual:
        MARK_DIRTY_ERRORS[name](hookgrad)
    assert str(actual.value) == str(expected.value)


def test_mark_dirty_gradcheck() -> None:
    fns = _dirty_functions(hookgrad)

    def f(x: Any, y: Any) -> Any:
        base = x * 1
        fns.Double.apply(base[1:])
        z, w = fns.AddInto.apply(base, y)
        return fns.ExpSaved.apply(z * 1), w

    x = hookgrad.tensor([0.1, 0.2, 0.3], dtype=hookgrad.float64, requires_grad=True)
    y = hookgrad.tensor([0.4, -0.5, 0.6], dtype=hookgrad.float64, requires_grad=True)
    assert hookgrad.autograd.gradcheck(f, (x, y))


# ---------------------------------------------------------------- [] = on constants

SETITEM: dict[str, tuple[Any, ...]] = {
    "slice_too_long": (lambda lib: slice(0, 2), lambda lib: lib.ones(3), (3,)),
    "row_column": (lambda lib: 0, lambda lib: lib.ones(3, 1), (3, 3)),
    "leading_ones": (lambda lib: lib.tensor([0, 1]), lambda lib: lib.tensor([[1.0, 2.0]]), (3,)),
    "true": (lambda lib: True, lambda lib: 5.0, (3,)),
    "false": (lambda lib: False, lambda lib: 5.0, (3,)),
    "none": (lambda lib: None, lambda lib: lib.ones(1, 3), (3,)),
    "int_none": (lambda lib: (0, None), lambda lib: 2.0, (2, 3)),
    "mask_values": (
        lambda lib: lib.tensor([True, False, True]),
        lambda lib: lib.tensor([7.0, 8.0]),
        (3,),
    ),
    "ellipsis_row": (lambda lib: Ellipsis, lambda lib: lib.ones(1, 3), (3,)),
    "0dim_index": (lambda lib: lib.tensor(1), lambda lib: 4.0, (3,)),
    "long_values": (lambda lib: slice(1, None), lambda lib: lib.tensor([1, 2]), (3,)),
    "complex_number": (lambda lib: 0, lambda lib: 2j, (3,)),
    "complex_tensor": (lambda lib: 0, lambda lib: lib.tensor(1 + 1j), (3,)),
}


@pytest.mark.parametrize("name", SETITEM)
def test_setitem_matches_torch(torch: Any, name: str) -> None:
    key, value, shape = SETITEM[name]

    def run(lib: Any) -> Any:
        y = lib.zeros(*shape)
        try:
            y[key(lib)] = value(lib)
        except Exception as error:  # noqa: BLE001  (the error is the result compared)
            return type(error), str(error)
        return y.tolist(), y._version

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(hookgrad) == run(torch)
