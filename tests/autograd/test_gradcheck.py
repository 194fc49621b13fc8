"""``gradcheck`` / ``gradgradcheck``: what they accept, what they catch, torch's messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import GradcheckError, gradcheck, gradgradcheck


def leaf(lib, values, dtype="float64"):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)


def make_wrong_mul(lib):
    """``(x * y, x + y)`` whose backward doubles the gradient of ``y`` by mistake."""

    class WrongMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.save_for_backward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            x, y = ctx.saved_tensors
            return g_prod * y + g_sum, None, g_prod * x * 2 + g_sum

    return WrongMul


def make_cube(lib, detach_in_backward=False):
    """``x ** 3``; with ``detach_in_backward`` its first derivative is right and its
    second derivative wrong."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            first = x.detach() if detach_in_backward else x
            return 3 * first * x * grad

    return Cube


def failure(lib, check, *args, **kwargs):
    """The message of the ``GradcheckError`` that ``check`` raises."""
    check = getattr(lib.autograd, check)
    with pytest.raises(RuntimeError) as info:
        check(*args, **kwargs)
    assert type(info.value).__name__ == "GradcheckError"
    return str(info.value)


# -- passing ----------------------------------------------------------------------------
def test_passes_for_correct_gradients():
    x, y = leaf(hookgrad, [0.5, -1.0, 2.0]), leaf(hookgrad, [[1.5], [0.25]])
    assert gradcheck(lambda a, b: (a * b, (a - b).sum(), a.exp()), (x, y))
    assert gradcheck(hookgrad.sin, x)  # a single tensor is accepted as inputs
    assert gradgradcheck(lambda a, b: (a * b * a).sum(), (x, y))


def test_non_tensor_inputs_and_inputs_without_grad():
    x = leaf(hookgrad, [0.5, -1.0])
    constant = hookgrad.tensor([2.0, 3.0], dtype=hookgrad.float64)
    assert gradcheck(lambda a, k, c: a * k * c, (x, 3.0, constant))


def test_output_independent_of_an_input_and_none_gradients():
    x, y = leaf(hookgrad, [0.5, -1.0]), leaf(hookgrad, [2.0, 3.0])
    assert gradcheck(lambda a, b: (a * 2, b.exp()), (x, y))
    assert gradcheck(lambda a, b: a * 2, (x, y))  # ``b`` gets a None gradient
    assert gradgradcheck(lambda a, b: (a * 2, b * b), (x, y))


def test_outputs_not_requiring_grad():
    x = leaf(hookgrad, [0.5, 1.5])
    assert gradcheck(lambda a: (a.detach() * 2, a * 3), (x,))  # ignored beside others
    assert gradcheck(lambda a: a.detach() * 0, (x,))  # none requires grad, all constant
    assert gradcheck(lambda a: (a > 1).long(), (x,))  # integer outputs are not compared
    message = failure(hookgrad, "gradcheck", lambda a: a.detach() * 2, (x,))
    assert message == "Numerical gradient for function expected to be zero"


def test_strided_input_is_perturbed_in_place():
    data = hookgrad.from_numpy(np.arange(6.0).reshape(3, 2).T).requires_grad_()
    assert not data.numpy(force=True).flags.c_contiguous
    assert gradcheck(lambda a: a * a, (data,))


def test_fast_mode_runs_the_same_check():
    x = leaf(hookgrad, [0.5, 1.5])
    assert gradcheck(lambda a: a.exp(), (x,), fast_mode=True)
    assert not gradcheck(
        make_wrong_mul(hookgrad).apply, (x, 1, x), fast_mode=True, raise_exception=False
    )


# -- catching mistakes ------------------------------------------------------------------
def test_wrong_custom_backward_fails_like_torch(torch):
    messages = [
        failure(
            lib,
            "gradcheck",
            make_wrong_mul(lib).apply,
            (leaf(lib, [1.0, 2.0]), 2, leaf(lib, [3.0, 4.0])),
        )
        for lib in (hookgrad, torch)
    ]
    assert messages[0] == messages[1]
    assert messages[0].startswith("Jacobian mismatch for output 0 with respect to input 1,")
    assert "numerical:" in messages[0] and "analytical:" in messages[0]


def test_raise_exception_false_returns_false():
    x, y = leaf(hookgrad, [1.0, 2.0]), leaf(hookgrad, [3.0, 4.0])
    assert gradcheck(make_wrong_mul(hookgrad).apply, (x, 2, y), raise_exception=False) is False
    assert issubclass(GradcheckError, RuntimeError)


def test_missing_graph_is_a_mismatch(torch):
    messages = [
        failure(lib, "gradcheck", lambda a: a.detach() * 2 + a, (leaf(lib, [1.0, 2.0]),))
        for lib in (hookgrad, torch)
    ]
    assert messages[0] == messages[1]


def test_backward_not_multiplied_by_grad_output(torch):
    def make(lib):
        class Total(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.shape = x.shape
                return x.sum()

            @staticmethod
            def backward(ctx, grad):
                return lib.ones(ctx.shape, dtype=lib.float64)

        return Total

    messages = [
        failure(lib, "gradcheck", make(lib).apply, (leaf(lib, [1.0, 2.0]),))
        for lib in (hookgrad, torch)
    ]
    assert messages == ["backward not multiplied by grad_output"] * 2


def test_nondeterministic_backward(torch):
    def make(lib):
        calls = []

        class Noisy(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                calls.append(1)
                return grad * (2 + 1e-9 * len(calls))

        return Noisy

    messages = [
        failure(lib, "gradcheck", make(lib).apply, (leaf(lib, [1.0, 2.0]),))
        for lib in (hookgrad, torch)
    ]
    assert messages[0].startswith("Backward is not reentrant")
    assert messages[1].startswith(messages[0])  # torch appends a long note
    assert gradcheck(make(hookgrad).apply, (leaf(hookgrad, [1.0, 2.0]),), nondet_tol=1e-6)


def test_undefined_output_gradients(torch):
    def make(lib):
        class Careless(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return lib.ones(2, dtype=lib.float64) if grad is None else grad * 2

        return Careless

    messages = [
        failure(lib, "gradcheck", make(lib).apply, (leaf(lib, [1.0, 2.0]),))
        for lib in (hookgrad, torch)
    ]
    assert messages[0] == messages[1]
    assert messages[0].startswith("Expected all input grads to be undefined or zero")


def test_complex_inputs_and_outputs(torch):
    def make(lib):
        class WrongSquare(lib.autograd.Function):
            @staticmethod
            def forward(ctx, c):
                ctx.save_for_backward(c)
                return c * c

            @staticmethod
            def backward(ctx, grad):
                (c,) = ctx.saved_tensors
                return grad * c  # should be grad * conj(2 c)

        return WrongSquare

    values = [1 + 2j, 3 - 1j]
    messages = [
        failure(lib, "gradcheck", make(lib).apply, (leaf(lib, values, "complex128"),))
        for lib in (hookgrad, torch)
    ]
    assert messages[0] == messages[1]
    assert messages[0].startswith("While considering the imaginary part of complex outputs")
    c = leaf(hookgrad, values, "complex128")
    assert gradcheck(lambda z: (z * z, (z * z).abs()), (c,))


# -- gradgradcheck ----------------------------------------------------------------------
def test_gradgradcheck_catches_a_wrong_double_backward(torch):
    for lib in (hookgrad, torch):
        x = leaf(lib, [0.5, -1.5, 2.0])
        assert lib.autograd.gradcheck(make_cube(lib, detach_in_backward=True).apply, (x,))
        assert lib.autograd.gradgradcheck(make_cube(lib).apply, (x,))
        message = failure(lib, "gradgradcheck", make_cube(lib, True).apply, (x,))
        assert message.startswith("Jacobian mismatch for output 0 with respect to input 0")


def test_gradgradcheck_grad_outputs():
    x = leaf(hookgrad, [0.5, -1.5, 2.0])
    seed = leaf(hookgrad, [1.0, 2.0, -1.0])
    assert gradgradcheck(lambda a: a * a * a, (x,), (seed,))
    assert gradgradcheck(lambda a: a.exp() * a, (x,), gen_non_contig_grad_outputs=True)


# -- bad arguments ----------------------------------------------------------------------
def test_bad_arguments(torch):
    x = hookgrad.tensor([1.0, 2.0], dtype=hookgrad.float64)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (x,))
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        gradcheck(lambda a: a * 2, (leaf(hookgrad, [1.0, 2.0], "float32"),), eps=1e-2, atol=1e-2)
    messages = []
    for lib in (hookgrad, torch):
        expanded = lib.tensor([1.0], dtype=lib.float64).expand(3).requires_grad_()
        with pytest.raises(RuntimeError) as info:
            lib.autograd.gradcheck(lambda a: a * 2, (expanded,))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    with pytest.raises(NotImplementedError):
        gradcheck(lambda a: a * 2, (leaf(hookgrad, [1.0]),), check_batched_grad=True)


def test_double_inputs_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gradcheck(lambda a: a * 2, (leaf(hookgrad, [1.0, 2.0]),))
