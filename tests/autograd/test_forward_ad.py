"""Forward-mode AD (``hookgrad.autograd.forward_ad``) against torch's and finite differences:
every op of the op-case table, small networks, views and in-place ops on dual tensors,
custom Functions with ``jvp``, forward-mode jacobians and hessians, and the errors."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import hookgrad
import hookgrad.autograd.forward_ad as fwAD
from hookgrad.tensor import dispatch
from tests.ops.cases import ALL_CASES
from tests.ops.cases.spec import Const
from tests.oracle import outcome

# Where torch's own tangent is not the derivative (finite differences agree with ours).
TORCH_DIFFERS = {
    # torch's jvp differentiates the whole matrix; the kernels read one triangle of it.
    "triangular_solve[3x2-3x3]",
    "cholesky_inverse[3x3]",
    # torch's logcumsumexp_jvp loses the terms 600 below the maximum (its values ~1e-261).
    "logcumsumexp_large[4x2]",
}
# Functions that take a path autograd does not record when no input requires grad
# (``hookgrad.linalg`` tests ``requires_grad`` first): forward AD sees no op on that path,
# so these run with inputs that require grad only.
RECORDED_PATH_ONLY = {
    "linalg.eigvals[3x3]",
    "linalg.eigvalsh[2x3x3]",
    "linalg.svdvals[2x3]",
    "linalg.norm_nuc[2x3]",
    "linalg.matrix_norm_2[2x3x3]",
    "linalg.cond[3x3]",
    "nuclear_norm[3x2]",
}


def _tangents(case):
    rng = np.random.default_rng(zlib.crc32(case.id.encode()) + 7)
    return [rng.standard_normal(spec) for spec in case.inputs if not isinstance(spec, Const)]


def _float_outputs(result):
    outs = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in outs if o.dtype.is_floating_point or o.dtype.is_complex]


def _forward_mode(lib, case, tangents, requires_grad):
    """The case's outputs and their tangents, computed in a dual level of ``lib``."""
    fw = lib.autograd.forward_ad
    tangents = iter(tangents)
    with fw.dual_level():
        tensors = []
        for spec, array in zip(case.inputs, case.arrays()):
            if isinstance(spec, Const):
                tensors.append(lib.from_numpy(np.array(array)))
                continue
            primal = lib.tensor(array, dtype=lib.float64, requires_grad=requires_grad)
            tensors.append(fw.make_dual(primal, lib.tensor(next(tangents))))
        unpacked = [fw.unpack_dual(out) for out in _float_outputs(case.fn(lib, *tensors))]
    return [
        (primal.detach().numpy(), None if tangent is None else tangent.detach().numpy(force=True))
        for primal, tangent in unpacked
    ]


def _finite_differences(case, tangents, eps=1e-6):
    """``(f(x + eps v) - f(x - eps v)) / 2 eps`` for every floating output."""

    def outputs(sign):
        tensors, position = [], 0
        for spec, array in zip(case.inputs, case.arrays()):
            if isinstance(spec, Const):
                tensors.append(hookgrad.from_numpy(np.array(array)))
                continue
            moved = array + sign * eps * tangents[position]
            tensors.append(hookgrad.tensor(moved, dtype=hookgrad.float64))
            position += 1
        return [o.numpy() for o in _float_outputs(case.fn(hookgrad, *tensors))]

    return [(plus - minus) / (2 * eps) for plus, minus in zip(outputs(1), outputs(-1))]


def _check_case(torch, case, requires_grad):
    tangents = _tangents(case)
    try:
        expected = _forward_mode(torch, case, tangents, requires_grad)
    except (NotImplementedError, RuntimeError):
        # torch has no forward formula (or fails in it: view_copy, the in-place reductions
        # of index_reduce_): hookgrad refuses with torch's error where its backward is not
        # differentiable either, else its tangents are the derivative.
        try:
            ours = _forward_mode(hookgrad, case, tangents, requires_grad)
        except NotImplementedError as error:
            assert str(error).startswith("Trying to use forward AD with")
            return
        expected = [(primal, None) for primal, _ in ours]
        requires_grad = True
    ours = _forward_mode(hookgrad, case, tangents, requires_grad)
    assert len(ours) == len(expected)
    finite = _finite_differences(case, tangents) if requires_grad else None
    for index, ((primal, tangent), (_, torch_tangent)) in enumerate(zip(ours, expected)):
        assert tangent is not None, "no tangent"
        assert tangent.shape == primal.shape
        if finite is not None:
            np.testing.assert_allclose(tangent, finite[index], rtol=1e-4, atol=1e-5)
        if torch_tangent is None or case.id in TORCH_DIFFERS:
            # torch computes none (scatter_reduce "prod") or another value: the finite
            # differences above are the oracle.
            continue
        np.testing.assert_allclose(tangent, torch_tangent, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_op_table_tangents(torch, case):
    """Inputs that do not require grad (tangent rules on arrays), then inputs that do
    (rules on tensors, differentiable tangents; finite differences too)."""
    if case.id not in RECORDED_PATH_ONLY:
        _check_case(torch, case, requires_grad=False)
    _check_case(torch, case, requires_grad=True)


def test_torch_differs_where_listed(torch):
    """The listed cases really differ from torch (else they belong back in the table)."""
    for case in ALL_CASES:
        if case.id in TORCH_DIFFERS:
            tangents = _tangents(case)
            ours = _forward_mode(hookgrad, case, tangents, False)
            theirs = _forward_mode(torch, case, tangents, False)
            assert not np.allclose(ours[0][1], theirs[0][1], rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- networks


def _mlp(nn):
    return nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 3), nn.Tanh())


def _cnn(nn):
    return nn.Sequential(
        nn.Conv2d(2, 3, 3, padding=1),
        nn.BatchNorm2d(3),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.5),
        nn.Linear(12, 2),
    )


def _lstm(nn):
    return nn.LSTM(3, 4, batch_first=True)


@pytest.mark.parametrize(
    "build, shape, train",
    [(_mlp, (5, 4), True), (_cnn, (2, 2, 4, 4), False), (_cnn, (2, 2, 4, 4), True)]
    + [(_lstm, (2, 3, 3), True)],
    ids=["mlp", "cnn-eval", "cnn-train", "lstm"],
)
def test_network_tangents_match_torch(torch, build, shape, train):
    """A jvp through a network whose parameters require grad, and the gradient of that jvp
    with respect to the parameters (reverse over forward)."""

    def run(lib, model):
        model.train(train)
        rng = np.random.default_rng(3)
        x = lib.tensor(rng.standard_normal(shape))
        v = lib.tensor(rng.standard_normal(shape))
        with lib.autograd.forward_ad.dual_level():
            out = model(lib.autograd.forward_ad.make_dual(x, v))
            out = out[0] if isinstance(out, tuple) else out
            primal, tangent = lib.autograd.forward_ad.unpack_dual(out)
        weight = next(model.parameters())
        (grad,) = lib.autograd.grad((tangent**2).sum(), weight)
        return primal.detach().numpy(), tangent.detach().numpy(), grad.numpy()

    hookgrad.manual_seed(0)
    ours = build(hookgrad.nn).double()
    theirs = build(torch.nn).double()
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in ours.state_dict().items()})
    hookgrad.manual_seed(1)
    torch.manual_seed(1)
    for mine, expected in zip(run(hookgrad, ours), run(torch, theirs)):
        np.testing.assert_allclose(mine, expected, rtol=1e-7, atol=1e-9)


def test_forward_over_reverse_gives_hessian_vector_products(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        x = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([[0.2, 0.1, -0.3], [0.5, -0.4, 0.6]], dtype=lib.float64)
        with fw.dual_level():
            dual = fw.make_dual(x, lib.tensor([1.0, 0.5, -2.0], dtype=lib.float64))
            y = (w @ dual.tanh()).exp().sum() + (dual * dual.sin()).sum()
            (grad,) = lib.autograd.grad(y, dual, create_graph=True)
            return fw.unpack_dual(grad).tangent.detach().numpy()

    np.testing.assert_allclose(run(hookgrad), run(torch), rtol=1e-12)


# ---------------------------------------------------------------- views and in-place ops


def _views_and_inplace(lib):
    fw = lib.autograd.forward_ad
    seen = []

    def tangent(x):
        value = fw.unpack_dual(x).tangent
        return None if value is None else value.clone()

    t = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    with fw.dual_level():
        dual = fw.make_dual(lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64), t)
        seen.append(fw.unpack_dual(dual).tangent is t)
        with lib.no_grad():
            seen.append(tangent(dual.sin()))  # no_grad does not stop forward AD
        seen += [tangent(dual.detach()), tangent(dual.data), tangent(dual.clone())]
        y = dual * 2
        y.mul_(3)
        y += dual
        seen.append(tangent(y))
        dual.mul_(2)
        seen.append(t.clone())  # the tangent given to make_dual changed in place
        base = lib.zeros(2, 3, dtype=lib.float64)
        base[0].copy_(dual)
        seen.append(tangent(base))
        view = base[1]
        view.add_(dual)
        seen += [tangent(base), tangent(base[1]), tangent(view)]
        base.t()[2].zero_()
        seen.append(tangent(base))
        base[:, 1] = 5.0
        seen.append(tangent(base))
        z = lib.zeros(3, dtype=lib.float64)
        z.copy_(dual.exp())
        z.relu_()
        seen.append(tangent(z))
        weight = lib.tensor([2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True)
        leaf = fw.make_dual(lib.ones(3, dtype=lib.float64), lib.tensor([1.0, 5.0, 2.0]))
        leaf.mul_(weight)  # tracked: computed from a stand-in for the old value
        leaf.clamp_(max=3.0)
        seen.append(fw.unpack_dual(leaf).tangent)
        transposed = fw.make_dual(lib.ones(2, 3).t(), lib.ones(3, 2))
        seen.append(fw.unpack_dual(transposed).tangent.stride())
        primal = fw.unpack_dual(dual).primal
        seen += [primal._base is not None, tangent(primal)]
    seen.append(fw.unpack_dual(dual).tangent)
    return seen


def test_views_and_inplace_ops_share_tangents_as_in_torch(torch):
    assert outcome(lambda _: _views_and_inplace(hookgrad), hookgrad) == outcome(
        lambda _: _views_and_inplace(torch), torch
    )


def test_dual_tensors_carry_torch_nodes(torch):
    def nodes(lib):
        fw = lib.autograd.forward_ad
        x = lib.ones(2, requires_grad=True)
        with fw.dual_level():
            dual = fw.make_dual(x, lib.ones(2))
            primal = fw.unpack_dual(dual).primal
            tangent = fw.unpack_dual(dual * x).tangent
            return [dual.grad_fn.name(), primal.grad_fn.name(), tangent.grad_fn.name()]

    assert nodes(hookgrad) == nodes(torch)


# ---------------------------------------------------------------- custom Functions


def _functions(lib):
    fw = lib.autograd.forward_ad
    calls = []

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, k):
            calls.append(fw.unpack_dual(a).tangent)
            ctx.k = k
            return a * k

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None

        @staticmethod
        def jvp(ctx, a_t, k_t):
            calls.append(k_t)
            return a_t * ctx.k

    class Pair(lib.autograd.Function):
        @staticmethod
        def forward(a, b):
            return a * b, a + b

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(*inputs)

        @staticmethod
        def jvp(ctx, a_t, b_t):
            a, b = ctx.saved_tensors
            return a_t * b + a * b_t, a_t + b_t

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.exp()

    class WrongCount(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone(), a.clone()

        @staticmethod
        def jvp(ctx, a_t):
            return a_t

    class WrongSize(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def jvp(ctx, a_t):
            return a_t[:2]

    class Doubles(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def jvp(ctx, a_t):
            a_t.mul_(2)
            return a_t

    x = lib.tensor([0.5, 1.0, -2.0], dtype=lib.float64)
    results = []
    with fw.dual_level():
        dual = fw.make_dual(x, lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))
        results.append(fw.unpack_dual(Scale.apply(dual, 3.0)).tangent)
        results.append(fw.unpack_dual(Scale.apply(x, 3.0)).tangent)
        results.append([fw.unpack_dual(o).tangent for o in Pair.apply(dual, x)])
        inplace = dual.clone()
        results.append(fw.unpack_dual(Doubles.apply(inplace)).tangent)
        results.append(fw.unpack_dual(inplace).tangent)
        for fn in (NoJvp, WrongCount, WrongSize):
            results.append(outcome(lambda _, fn=fn: fn.apply(dual), lib))
    return results, calls


def test_custom_function_jvp_as_torch(torch):
    assert outcome(lambda _: _functions(hookgrad), hookgrad) == outcome(
        lambda _: _functions(torch), torch
    )


# ---------------------------------------------------------------- functional


def _jacobians(lib):
    F = lib.autograd.functional
    x = lib.tensor([[0.3, -0.7], [1.1, 0.2]], dtype=lib.float64)
    y = lib.tensor([0.5, -0.1, 0.9], dtype=lib.float64)

    def two(a, b):
        return (a.exp() @ a).sum(0) * b[:2], (a * b.sum()).tanh()

    def scalar(a, b):
        return (a.sin() * b[1:].sum()).sum() + b.pow(3).sum()

    forward = {"strategy": "forward-mode", "vectorize": True}
    outer = {"outer_jacobian_strategy": "forward-mode", "vectorize": True}
    return [
        F.jacobian(two, (x, y), **forward),
        F.jacobian(lambda a: a.sin(), x, **forward),
        F.jacobian(lambda a: (a.sin(), a.sum()), x, **forward),
        F.jacobian(lambda a, b: a * b[0], (x, y), **forward),
        F.hessian(scalar, (x, y), **outer),
        F.hessian(lambda a: a.exp().prod(), x, **outer),
    ]


def test_forward_mode_jacobian_and_hessian_as_torch(torch):
    assert outcome(lambda _: _jacobians(hookgrad), hookgrad) == outcome(
        lambda _: _jacobians(torch), torch
    )


def test_forward_mode_jacobian_needs_vectorize(torch):
    def call(lib):
        return lib.autograd.functional.jacobian(lambda a: a, lib.ones(2), strategy="forward-mode")

    assert outcome(lambda _: call(hookgrad), hookgrad) == outcome(lambda _: call(torch), torch)


# ---------------------------------------------------------------- levels and errors


def _levels(lib):
    fw = lib.autograd.forward_ad
    x = lib.ones(2)
    results = [fw.unpack_dual(x), outcome(lambda _: fw.make_dual(x, x), lib)]
    results.append(outcome(lambda _: fw.exit_dual_level(), lib))
    with fw.dual_level() as level:
        results.append(level)
        results.append(outcome(lambda _: fw.enter_dual_level(), lib))
        results.append(outcome(lambda _: fw.make_dual(x, lib.ones(3)), lib))
        results.append(outcome(lambda _: fw.make_dual(lib.ones(2, dtype=lib.long), x), lib))
        results.append(outcome(lambda _: fw.make_dual(x, lib.ones(2, dtype=lib.long)), lib))
        dual = fw.make_dual(x, lib.ones(2, dtype=lib.float64))
        results.append(outcome(lambda _: fw.make_dual(dual, x), lib))
        results.append(outcome(lambda _: fw.make_dual(x, x, level=3), lib))
        results.append(outcome(lambda _: fw.unpack_dual(dual, level=3), lib))
        results.append(outcome(lambda _: fw.exit_dual_level(level=5), lib))
        results.append(str(fw.unpack_dual(dual).tangent.dtype))
        results.append([fw.unpack_dual(t).tangent for t in (dual.argmax(), dual > 0, dual.long())])
    results.append(fw.unpack_dual(dual))
    level = fw.enter_dual_level()
    fw.exit_dual_level(level=level)
    results.append(level)

    @fw.dual_level()
    def decorated():
        return fw.unpack_dual(fw.make_dual(x, x)).tangent

    results.append(decorated())
    return results


def test_levels_and_errors_as_torch(torch):
    assert outcome(lambda _: _levels(hookgrad), hookgrad) == outcome(
        lambda _: _levels(torch), torch
    )


def test_no_cost_outside_a_level():
    """Outside a dual level dispatch watches nothing; inside it does, and leaving stops it."""
    assert dispatch._observer is None
    with fwAD.dual_level():
        assert dispatch._observer is not None
    assert dispatch._observer is None
