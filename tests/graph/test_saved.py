"""Saved tensors: what ``grad_fn._saved_*`` returns, version checks, ``register_hooks``,
their errors, and freeing after backward (each compared with torch)."""

from __future__ import annotations

import contextlib
import gc
import weakref
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.graph import anomaly
from hookgrad.ops.base import Op
from hookgrad.tensor.dispatch import apply


def rounded(t: Any) -> list[float]:
    return [round(v, 4) for v in t.tolist()]


def error_of(fn: Any) -> tuple[type, str]:
    """The type and message of the exception ``fn()`` raises."""
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


# ---------------------------------------------------------------- what is saved


def test_saved_input_is_the_tensor_and_saved_output_an_equal_alias(torch: Any) -> None:
    for lib in (hookgrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        assert x.pow(2).grad_fn._saved_self is x
        y = x.exp()
        result = y.grad_fn._saved_result
        assert result is not y and result.equal(y)
        assert result.grad_fn is y.grad_fn and not result.is_leaf
        lib.autograd.graph.increment_version(y)
        assert result._version == y._version == 1


def test_saved_output_unpacks_into_the_graph_for_double_backward(torch: Any) -> None:
    grads = []
    for lib in (hookgrad, torch):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        (grad,) = lib.autograd.grad(y.grad_fn._saved_result.sum(), x)
        grads.append(grad.tolist())
    assert grads[0] == pytest.approx(grads[1])


# ---------------------------------------------------------------- version checks


def version_cases(lib: Any) -> list[Any]:
    """Ways to modify a saved tensor after it was saved; each returns the failing call."""
    bump = lib.autograd.graph.increment_version

    def saved_output() -> Any:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        bump(y)
        return lambda: y.sum().backward()

    def non_leaf_input_twice() -> Any:
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
        y = a.pow(2)
        bump(a)
        bump(a)
        return lambda: y.grad_fn._saved_self

    def leaf_float64_matrix() -> Any:
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        y = x.pow(2)
        bump(x)
        return lambda: y.sum().backward()

    def leaf_scalar_after_earlier_change() -> Any:
        x = lib.tensor(2.0, requires_grad=True)
        bump(x)
        y = x.pow(2)
        bump(x)
        return lambda: y.backward()

    def half() -> Any:
        x = lib.ones(2, dtype=lib.float16, requires_grad=True)
        y = x.pow(2)
        bump(x)
        return lambda: y.sum().backward()

    def long_index() -> Any:
        x = lib.ones(2, 3, requires_grad=True)
        index = lib.tensor([[0], [2]])
        y = x.gather(1, index)
        bump(index)
        return lambda: y.sum().backward()

    def bool_mask() -> Any:
        x = lib.ones(2, requires_grad=True)
        mask = lib.tensor([True, False])
        y = x.masked_fill(mask, 0.0)
        bump(mask)
        return lambda: y.sum().backward()

    return [
        saved_output,
        non_leaf_input_twice,
        leaf_float64_matrix,
        leaf_scalar_after_earlier_change,
        half,
        long_index,
        bool_mask,
    ]


@pytest.mark.parametrize("case", range(len(version_cases(hookgrad))))
def test_modified_saved_tensor_raises_torchs_error(torch: Any, case: int) -> None:
    ours = error_of(version_cases(hookgrad)[case]())
    theirs = error_of(version_cases(torch)[case]())
    assert ours == theirs
    assert ours[0] is RuntimeError and "modified by an inplace operation" in ours[1]


def test_version_error_names_the_custom_function(torch: Any) -> None:
    def failing(lib: Any, bump_output: bool) -> Any:
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                result = a * 2
                ctx.save_for_backward(a, result)
                return result

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                a, _ = ctx.saved_tensors
                return grad * 2

        a = lib.tensor([1.0, 2.0], requires_grad=True) * 1
        y = Twice.apply(a)
        lib.autograd.graph.increment_version(y if bump_output else a)
        return lambda: y.sum().backward()

    for bump_output in (True, False):
        assert error_of(failing(hookgrad, bump_output)) == error_of(failing(torch, bump_output))


def test_version_error_hint_under_anomaly_mode(torch: Any) -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    hookgrad.autograd.graph.increment_version(y)
    anomaly.state.enabled = True
    try:
        _, ours = error_of(lambda: y.grad_fn._saved_result)
    finally:
        anomaly.state.enabled = False
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    ty = tx.exp()
    torch.autograd.graph.increment_version(ty)
    with pytest.warns(UserWarning), torch.autograd.detect_anomaly():
        _, theirs = error_of(lambda: ty.sum().backward())
    assert ours == theirs
    assert ours.endswith("Good luck!")


def test_unchanged_version_after_earlier_changes_unpacks() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    hookgrad.autograd.graph.increment_version(x)
    y = x.pow(2)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


# ---------------------------------------------------------------- register_hooks


def events_of_register_hooks(lib: Any) -> list[Any]:
    log: list[Any] = []
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    z = y.pow(2)

    def pack(t: Any) -> Any:
        log.append(("pack", t.requires_grad, t.grad_fn is None, rounded(t)))
        return t.tolist()

    def unpack(values: Any) -> Any:
        log.append(("unpack", [round(v, 4) for v in values]))
        return lib.tensor(values)

    y.grad_fn._raw_saved_result.register_hooks(pack, unpack)
    z.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    log.append("registered")
    saved = y.grad_fn._saved_result
    log.append(("access", saved.requires_grad, saved.grad_fn is y.grad_fn))
    saved = z.grad_fn._saved_self
    log.append(("access", saved.requires_grad, saved.grad_fn is y.grad_fn))
    z.sum().backward(retain_graph=True)
    log.append(("backward", rounded(x.grad)))
    z.sum().backward()
    log.append(("backward", rounded(x.grad)))
    return log


def test_register_hooks_packs_at_once_and_unpacks_at_each_use(torch: Any) -> None:
    ours = events_of_register_hooks(hookgrad)
    assert ours == events_of_register_hooks(torch)
    assert [e[0] for e in ours if isinstance(e, tuple)].count("unpack") == 6


def register_errors(lib: Any) -> list[Any]:
    x = lib.tensor([1.0, 2.0], requires_grad=True)

    def twice() -> None:
        # NOTE: keep the node alive while its raw saved tensor is used (torch's raw
        # SavedTensor does not own its node: using it after the node died crashes).
        y = x.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)

    def after_backward() -> None:
        y = x.exp()
        y.sum().backward()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)

    def hooked_after_backward() -> None:
        y = x.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
        y.sum().backward()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)

    def unpack_returns_a_number() -> None:
        y = x.pow(2)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: 5)
        y.sum().backward()

    def pack_modifies_its_input() -> None:
        y = x.exp()
        bump = lib.autograd.graph.increment_version
        y.grad_fn._raw_saved_result.register_hooks(lambda t: bump(t), lambda t: t)

    return [twice, after_backward, hooked_after_backward, unpack_returns_a_number,
            pack_modifies_its_input]  # fmt: skip


@pytest.mark.parametrize("case", range(len(register_errors(hookgrad))))
def test_register_hooks_errors_as_torch(torch: Any, case: int) -> None:
    assert error_of(register_errors(hookgrad)[case]) == error_of(register_errors(torch)[case])


def test_register_hooks_rejects_non_callables(torch: Any) -> None:
    for lib in (hookgrad, torch):
        y = lib.tensor([1.0], requires_grad=True).exp()
        for hooks in ((1, abs), (abs, None)):
            saved = y.grad_fn._raw_saved_result  # y keeps its node alive
            kind, message = error_of(lambda s=saved, h=hooks: s.register_hooks(*h))
            assert kind is TypeError
            assert message.startswith("register_hooks(): incompatible function arguments.")


def test_hooked_saved_tensor_skips_the_version_check(torch: Any) -> None:
    grads = []
    for lib in (hookgrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.pow(2)
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda t: t)
        lib.autograd.graph.increment_version(x)
        y.sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == [2.0, 4.0]


# ---------------------------------------------------------------- saved only when needed


class ScaledProduct(Op):
    """``self * other``, saving (as torch's mul) each operand only for the other's grad."""

    saves = ("other", "self")
    saved_for = {"other": ("self",), "self": ("other",)}

    def forward(self, a: Any, b: Any) -> Any:
        return a * b

    def backward(self, grad: Any) -> Any:
        b, a = self.unpack()
        needs = self.needs_input_grad
        return (grad * b if needs[0] else None, grad * a if needs[1] else None)


def test_saved_for_skips_values_no_gradient_needs(torch: Any) -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    w = hookgrad.tensor([3.0, 4.0])
    packed: list[Any] = []
    with hookgrad.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = apply(ScaledProduct(), x, w)
    assert packed == [w]
    assert y.grad_fn._saved_self is None
    assert y.grad_fn._saved_other.equal(w)
    _, ours = error_of(lambda: y.grad_fn._raw_saved_self.register_hooks(abs, abs))
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    assert y.grad_fn._saved_self is None  # an empty slot stays empty after backward
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    ty = tx * torch.tensor([3.0, 4.0])
    assert ty.grad_fn._saved_self is None
    assert error_of(lambda: ty.grad_fn._raw_saved_self.register_hooks(abs, abs))[1] == ours


# ---------------------------------------------------------------- freeing


def test_saved_tensors_are_freed_by_backward_unless_retained(torch: Any) -> None:
    messages = []
    for lib in (hookgrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.sum().backward(retain_graph=True)
        assert y.grad_fn._saved_result.equal(x.exp())
        y.sum().backward()
        messages.append(error_of(lambda y=y: y.grad_fn._saved_result))
    assert messages[0] == messages[1]
    assert messages[0][1].startswith("Trying to backward through the graph a second time")


class Packed:
    """A packed value that a weak reference can watch."""

    def __init__(self, tensor: Any) -> None:
        self.values = tensor.tolist()


@pytest.mark.parametrize("hooked", [False, True])
def test_backward_releases_saved_tensors(hooked: bool) -> None:
    x = hookgrad.tensor(np.ones(1000), requires_grad=True)
    packed: list[weakref.ref] = []

    def pack(t: Any) -> Packed:
        value = Packed(t)
        packed.append(weakref.ref(value))
        return value

    hooks = hookgrad.autograd.graph.saved_tensors_hooks(pack, lambda p: hookgrad.tensor(p.values))
    with hooks if hooked else contextlib.nullcontext():
        hidden = x.sin()
        out = hidden.cos().exp()  # sin saves x, cos saves hidden, exp its result
    watched = weakref.ref(hidden)
    del hidden
    gc.collect()
    assert (watched() is None) == hooked  # with hooks only the packed form is kept
    out.sum().backward(retain_graph=True)
    assert len(packed) == (3 if hooked else 0)
    assert all(ref() is not None for ref in packed)
    out.sum().backward()
    gc.collect()
    assert watched() is None
    assert all(ref() is None for ref in packed)
