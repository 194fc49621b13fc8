"""Custom ``autograd.Function``: recording, ctx, saved tensors, errors, double backward.

Most tests define the same Function on hookgrad and on torch (``lib.autograd.Function``)
and compare values, gradients and error messages.
"""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import Function
from hookgrad.autograd.function import once_differentiable
from tests.oracle import assert_close


def make_mul(lib):
    """``x * y * k`` with a non-tensor ``k``; saves both tensor inputs."""

    class MyMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.save_for_backward(x, y)
            ctx.k = k
            return x * y * k

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad * y * ctx.k, None, grad * x * ctx.k

    return MyMul


def make_exp(lib):
    """``exp`` saving its own output; its backward is differentiable."""

    class MyExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return grad * result

    return MyExp


def make_cube(lib):
    """``x ** 3`` saving its input; backward ``3 x^2 g`` is differentiable."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    return Cube


def leaf(lib, values, dtype="float64", requires_grad=True):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=requires_grad)


X = [0.5, -1.25, 2.0]
Y = [1.5, 0.25, -0.75]


# -- recording --------------------------------------------------------------------------
def test_forward_backward_matches_torch(torch):
    results = []
    for lib in (hookgrad, torch):
        x, y = leaf(lib, X), leaf(lib, Y, requires_grad=False)
        out = make_mul(lib).apply(x, 2.0, y)
        out.sum().backward()
        results.append((out, x.grad))
    assert_close(results[0], results[1])


def test_node_is_the_ctx_and_named_like_torch(torch):
    seen = []

    class MyMul(Function):
        @staticmethod
        def forward(ctx, x, k, y):
            seen.append(ctx)
            return x * y * k

        @staticmethod
        def backward(ctx, grad):
            return grad, None, grad

    x, y = leaf(hookgrad, X), leaf(hookgrad, Y, requires_grad=False)
    out = MyMul.apply(x, 2.0, y)
    assert out.grad_fn is seen[0]
    assert type(out.grad_fn).__name__ == "MyMulBackward" == out.grad_fn.name()
    assert "grad_fn=<MyMulBackward>" in repr(out)
    expected = make_mul(torch).apply(leaf(torch, X), 2.0, leaf(torch, Y, requires_grad=False))
    assert type(expected.grad_fn).__name__ == "MyMulBackward"


def test_next_functions_and_needs_input_grad():
    needs = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x, k, y, z):
            needs.append(ctx.needs_input_grad)
            return x * k + y + z

        @staticmethod
        def backward(ctx, grad):
            return grad * 3, None, grad, grad

    x, z = leaf(hookgrad, X), leaf(hookgrad, Y)
    y = leaf(hookgrad, Y, requires_grad=False)
    w = z * 2
    out = Probe.apply(x, 3.0, y, w)
    assert needs == [(True, False, False, True)]
    edges = out.grad_fn.next_functions
    assert type(edges[0][0]).__name__ == "AccumulateGrad" and edges[0][0].variable is x
    assert edges[1] == (None, 0) and edges[2] == (None, 0)
    assert edges[3] == (w.grad_fn, 0)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0] * 3)
    np.testing.assert_allclose(z.grad.numpy(), [2.0] * 3)


def test_engine_order_uses_the_sequence_number(torch):
    def run(lib):
        order = []
        x = leaf(lib, X)
        a = x * 2
        b = make_cube(lib).apply(x)
        c = x * 3
        for name, t in (("a", a), ("b", b), ("c", c)):
            t.register_hook(lambda g, name=name: order.append(name))
        (a + b + c).sum().backward()
        return order

    assert run(hookgrad) == run(torch) == ["c", "b", "a"]


def test_grad_modes_inside_forward_and_backward():
    modes = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            modes["forward"] = hookgrad.is_grad_enabled()
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            modes.setdefault("backward", []).append(hookgrad.is_grad_enabled())
            return grad * 2

    x = leaf(hookgrad, X)
    Probe.apply(x).sum().backward()
    hookgrad.autograd.grad(Probe.apply(x).sum(), x, create_graph=True)
    assert modes == {"forward": False, "backward": [False, True]}


def test_nothing_recorded_without_grad():
    x, y = leaf(hookgrad, X), leaf(hookgrad, Y, requires_grad=False)
    MyMul = make_mul(hookgrad)
    out = MyMul.apply(y, 1.0, y)
    assert out.grad_fn is None and not out.requires_grad
    with hookgrad.no_grad():
        out = MyMul.apply(x, 1.0, y)
    assert out.grad_fn is None and not out.requires_grad


def test_forward_kwargs_are_passed_but_get_no_edge():
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, scale=2.0):
            ctx.scale = scale
            return x * scale

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.scale

    x = leaf(hookgrad, X)
    out = Scale.apply(x, scale=3.0)
    assert len(out.grad_fn.next_functions) == 1
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0] * 3)


def test_setup_context_style(torch):
    def make(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k=2.0):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                ctx.k = k
                ctx.save_for_backward(x, output)

            @staticmethod
            def backward(ctx, grad):
                x, output = ctx.saved_tensors
                return grad * ctx.k + output * 0, None

        return Scale

    results = []
    for lib in (hookgrad, torch):
        x = leaf(lib, X)
        a = make(lib).apply(x)
        b = make(lib).apply(x, k=5.0)
        (a + b).sum().backward()
        results.append((a, b, x.grad))
    assert_close(results[0], results[1])


# -- saved tensors ----------------------------------------------------------------------
def test_saved_tensors_are_freed_after_backward(torch):
    messages = []
    for lib in (hookgrad, torch):
        out = make_mul(lib).apply(leaf(lib, X), 2.0, leaf(lib, Y))
        out.sum().backward()
        with pytest.raises(RuntimeError) as info:
            _ = out.grad_fn.saved_tensors
        messages.append(str(info.value))
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            out.sum().backward()
    assert messages[0] == messages[1]


def test_freed_even_when_nothing_was_saved():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    out = Double.apply(leaf(hookgrad, X))
    assert out.grad_fn.saved_tensors == ()
    out.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = out.grad_fn.saved_tensors


def test_retain_graph_keeps_saved_tensors():
    x = leaf(hookgrad, X)
    out = make_mul(hookgrad).apply(x, 2.0, leaf(hookgrad, Y))
    out.sum().backward(retain_graph=True)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2.0 * np.array(Y))


def test_saved_input_and_output_identity():
    x = leaf(hookgrad, X)
    out = make_exp(hookgrad).apply(x)
    (saved,) = out.grad_fn.saved_tensors
    assert saved.grad_fn is out.grad_fn and saved is not out
    np.testing.assert_array_equal(saved.numpy(force=True), out.numpy(force=True))
    y = leaf(hookgrad, Y)
    mul = make_mul(hookgrad).apply(x, 1.0, y)
    saved_x, saved_y = mul.grad_fn.saved_tensors
    assert saved_x is x and saved_y is y


def test_save_for_backward_rejects_non_tensors(torch):
    messages = []
    for lib in (hookgrad, torch):

        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad

        with pytest.raises(TypeError) as info:
            Bad.apply(leaf(lib, X))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_save_none():
    class SaveNone(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(None, x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            none, x = ctx.saved_tensors
            assert none is None
            return grad * 2

    x = leaf(hookgrad, X)
    SaveNone.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0] * 3)


def test_saving_an_inference_tensor_fails_like_torch(torch):
    messages = []
    for lib in (hookgrad, torch):
        with lib.inference_mode():
            frozen = lib.tensor(Y)
        with pytest.raises(RuntimeError) as info:
            make_mul(lib).apply(leaf(lib, X, "float32"), 1.0, frozen)
        messages.append(str(info.value))
        # Not recorded (nothing requires grad): saving it is fine.
        assert not make_mul(lib).apply(frozen, 1.0, frozen).requires_grad
    assert messages[0] == messages[1]


# -- what backward returns ------------------------------------------------------------
def _backward_error(lib, grads_fn, n_inputs=1, k=None):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, *rest):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grads_fn(grad)

    args = (
        (leaf(lib, X),) + ((leaf(lib, Y),) if n_inputs == 2 else ()) + (() if k is None else (k,))
    )
    out = Bad.apply(*args)
    with pytest.raises(RuntimeError) as info:
        out.sum().backward()
    return str(info.value)


@pytest.mark.parametrize(
    "grads_fn, n_inputs, k",
    [
        (lambda g: g, 2, None),  # too few
        (lambda g: (g, g), 1, None),  # too many, not None
        (lambda g: (g, g), 1, 2.0),  # a gradient for a non-tensor input
        (lambda g: 3, 1, None),  # not a tensor
    ],
    ids=["too-few", "too-many", "non-tensor-input", "not-a-tensor"],
)
def test_bad_backward_results_fail_like_torch(grads_fn, n_inputs, k, torch):
    got = _backward_error(hookgrad, grads_fn, n_inputs, k)
    expected = _backward_error(torch, grads_fn, n_inputs, k)
    assert got == expected
    if n_inputs == 2:
        assert (
            got
            == "function BadBackward returned an incorrect number of gradients (expected 2, got 1)"
        )


def test_wrong_gradient_shape_fails_like_torch(torch):
    messages = [
        _backward_error(lib, lambda g, lib=lib: lib.ones(4, dtype=lib.float64))
        for lib in (hookgrad, torch)
    ]
    assert messages[0] == messages[1]


def test_extra_trailing_nones_and_dtype_cast():
    class Loose(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.double() * 2, None, None

    x = leaf(hookgrad, X, "float32")
    Loose.apply(x).sum().backward()
    assert x.grad.dtype == hookgrad.float32
    np.testing.assert_allclose(x.grad.numpy(), [2.0] * 3)


# -- outputs ----------------------------------------------------------------------------
def test_non_differentiable_outputs_and_materialized_grads(torch):
    def run(lib, materialize):
        seen = []

        class Split(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                marked = x * 3
                ctx.mark_non_differentiable(marked)
                return x * 2, marked, (x > 0).long(), 5

            @staticmethod
            def backward(ctx, g_double, g_marked, g_int, g_other):
                seen.append((g_double, g_marked, g_int, g_other))
                return g_double * 2

        x = leaf(lib, X)
        double, marked, ints, other = Split.apply(x)
        assert other == 5
        assert double.requires_grad
        assert not marked.requires_grad and marked.grad_fn is None
        assert not ints.requires_grad and ints.grad_fn is None
        double.sum().backward()
        return seen[0], x.grad

    for materialize in (True, False):
        got, expected = run(hookgrad, materialize), run(torch, materialize)
        assert_close(got, expected)


def test_input_returned_as_is(torch):
    def run(lib):
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 5

        x = leaf(lib, X)
        out = Identity.apply(x)
        assert out is not x and not out.is_leaf
        assert type(out.grad_fn).__name__ == "IdentityBackward"
        out.sum().backward()
        plain = lib.tensor(Y)
        passed = Identity.apply(plain)
        assert passed is not plain and not passed.requires_grad
        return x.grad

    assert_close(run(hookgrad), run(torch))
    x = leaf(hookgrad, X)

    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    out = Identity.apply(x)
    out.numpy(force=True)[0] = 42.0  # shares the input's data
    assert x.numpy(force=True)[0] == 42.0


def test_multiple_outputs(torch):
    def run(lib):
        seen = []

        class SumAndProduct(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return x + y, x * y

            @staticmethod
            def backward(ctx, g_sum, g_prod):
                x, y = ctx.saved_tensors
                seen.append(g_sum)
                return g_sum + g_prod * y, g_sum + g_prod * x

        x, y = leaf(lib, X), leaf(lib, Y)
        total, product = SumAndProduct.apply(x, y)
        assert total.grad_fn is product.grad_fn
        assert (total.output_nr, product.output_nr) == (0, 1)
        (product * 2).sum().backward()  # ``total`` gets no gradient: zeros
        return seen[0], x.grad, y.grad

    assert_close(run(hookgrad), run(torch))


def test_tuple_and_list_outputs():
    class Pair(Function):
        @staticmethod
        def forward(ctx, x):
            return [x * 2, x * 3]

        @staticmethod
        def backward(ctx, grad):
            return grad

    class Single(Function):
        @staticmethod
        def forward(ctx, x):
            return (x * 2,)

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = leaf(hookgrad, X)
    as_list = Pair.apply(x)  # a list is one non-tensor output, as in torch
    assert isinstance(as_list, list) and as_list[0].grad_fn is None
    (out,) = Single.apply(x)
    assert out.grad_fn.name() == "SingleBackward"


# -- hooks ------------------------------------------------------------------------------
def test_hooks_on_the_node_and_its_outputs():
    calls = []
    x = leaf(hookgrad, X)
    out = make_cube(hookgrad).apply(x)
    out.register_hook(lambda g: calls.append("tensor") or g * 2)
    out.grad_fn.register_prehook(lambda go: calls.append("pre"))
    out.grad_fn.register_hook(lambda gi, go: calls.append("post") or (gi[0] + 1,))
    out.sum().backward()
    assert calls == ["tensor", "pre", "post"]
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.array(X) ** 2 * 2 + 1)


# -- higher order -----------------------------------------------------------------------
@pytest.mark.parametrize("make", [make_exp, make_cube], ids=["saved-output", "saved-input"])
def test_double_backward_matches_torch(make, torch):
    results = []
    for lib in (hookgrad, torch):
        x = leaf(lib, X)
        out = make(lib).apply(x)
        (gx,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        (ggx,) = lib.autograd.grad((gx * gx).sum(), x)
        results.append((gx, ggx))
    assert_close(results[0], results[1])


@pytest.mark.parametrize("make", [make_exp, make_cube, make_mul], ids=["exp", "cube", "mul"])
def test_gradcheck_and_gradgradcheck(make):
    fn = make(hookgrad)
    if make is make_mul:
        args = (leaf(hookgrad, X), 1.5, leaf(hookgrad, Y))
    else:
        args = (leaf(hookgrad, X),)
    assert hookgrad.autograd.gradcheck(fn.apply, args)
    assert hookgrad.autograd.gradgradcheck(fn.apply, args)


def test_once_differentiable(torch):
    def make(lib, decorator):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @decorator
            def backward(ctx, grad):
                assert not lib.is_grad_enabled()
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        return Square

    from torch.autograd.function import once_differentiable as torch_once

    messages = []
    for lib, decorator in ((hookgrad, once_differentiable), (torch, torch_once)):
        x = leaf(lib, X)
        out = make(lib, decorator).apply(x) * x  # the grad_output depends on x
        (gx,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        assert gx.requires_grad
        np.testing.assert_allclose(gx.detach().numpy(), 3 * np.array(X) ** 2)
        with pytest.raises(RuntimeError) as info:
            gx.sum().backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# -- the class API ----------------------------------------------------------------------
def test_vjp_is_another_name_for_backward(torch):
    messages = []
    for lib in (hookgrad, torch):

        class ViaVjp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, grad):
                return grad * 7

        class Both(ViaVjp):
            @staticmethod
            def backward(ctx, grad):
                return grad

        class Neither(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        x = leaf(lib, X)
        ViaVjp.apply(x).sum().backward()
        np.testing.assert_allclose(x.grad.detach().numpy(), [7.0] * 3)
        with pytest.raises(RuntimeError) as both:
            Both.apply(x).sum().backward()
        with pytest.raises(NotImplementedError) as neither:
            Neither.apply(x).sum().backward()
        messages.append((str(both.value), str(neither.value)))
    assert messages[0] == messages[1]


def test_legacy_instance_use_warns_then_fails(torch):
    messages = []
    for lib in (hookgrad, torch):
        MyMul = make_mul(lib)
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            instance = MyMul()
        with pytest.raises(RuntimeError) as info:
            instance(leaf(lib, X), 1.0, leaf(lib, Y))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
