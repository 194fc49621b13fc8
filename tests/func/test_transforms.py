"""``hookgrad.func``'s differentiation transforms against ``torch.func``: ``grad``,
``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``linearize``,
``functionalize`` (values in float32 and float64, ``argnums``, ``has_aux``, trees of
inputs, nesting, composition with ``vmap``, what requires grad afterwards, torch's
errors), and against float64 finite differences (``gradcheck`` through a transform)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hookgrad
from tests.oracle import assert_close, outcome

RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, (3,))
Y = RNG.uniform(-1, 1, (2, 3))
W = RNG.uniform(-1, 1, (4, 3))


def _tensors(lib, dtype):
    d = getattr(lib, dtype)
    return lib.tensor(X, dtype=d), lib.tensor(Y, dtype=d), lib.tensor(W, dtype=d)


def _f(lib):
    return lambda x: (x.sin() * x).sum()


def _mlp(lib, w):
    return lambda x: lib.tanh(w @ x).pow(2).sum()


# Each case: a program of (lib, x, y, w) whose result (a tree of tensors) both libraries
# must give alike.
CASES = {
    "grad": lambda t, x, y, w: t.func.grad(_f(t))(x),
    "grad_argnums_tuple": lambda t, x, y, w: t.func.grad(
        lambda a, b: (a * b).sum() + a.exp().sum(), argnums=(0, 1)
    )(x, y[0]),
    "grad_argnums_negative": lambda t, x, y, w: t.func.grad(lambda a, b: (a * b).sum(), -1)(x, y),
    "grad_has_aux": lambda t, x, y, w: t.func.grad(
        lambda a: (a.sum(), {"sq": a * a}), has_aux=True
    )(x),
    "grad_dict_input": lambda t, x, y, w: t.func.grad(lambda p: (p["w"] @ p["x"]).tanh().sum())(
        {"w": w, "x": x}
    ),
    "grad_unused_input": lambda t, x, y, w: t.func.grad(lambda a, b: a.sum(), argnums=(0, 1))(x, y),
    "grad_and_value": lambda t, x, y, w: t.func.grad_and_value(_mlp(t, w))(x),
    "grad_and_value_aux": lambda t, x, y, w: t.func.grad_and_value(
        lambda a: ((a**2).sum(), a.mean()), has_aux=True
    )(x),
    "grad_of_grad": lambda t, x, y, w: t.func.grad(lambda a: t.func.grad(_f(t))(a).sum())(x),
    "vjp": lambda t, x, y, w: t.func.vjp(lambda a: w @ a.exp(), x)[1](t.ones(4, dtype=x.dtype)),
    "vjp_value": lambda t, x, y, w: t.func.vjp(lambda a: w @ a.exp(), x)[0],
    "vjp_two_outputs": lambda t, x, y, w: t.func.vjp(lambda a, b: (a * b, b.sum(0)), x, y)[1](
        (y, x)
    ),
    "vjp_has_aux": lambda t, x, y, w: t.func.vjp(lambda a: (a.sin(), a.cos()), x, has_aux=True)[2],
    "jvp": lambda t, x, y, w: t.func.jvp(lambda a: w @ a.sin(), (x,), (x.cos(),)),
    "jvp_two_inputs": lambda t, x, y, w: t.func.jvp(lambda a, b: a * b, (x, y), (y[0], y)),
    "jvp_has_aux": lambda t, x, y, w: t.func.jvp(
        lambda a: (a.exp(), a.sum()), (x,), (t.ones_like(x),), has_aux=True
    ),
    "jacrev": lambda t, x, y, w: t.func.jacrev(lambda a: (w @ a).tanh())(x),
    "jacrev_argnums": lambda t, x, y, w: t.func.jacrev(lambda a, b: a * b, argnums=(0, 1))(x, y),
    "jacrev_two_outputs": lambda t, x, y, w: t.func.jacrev(lambda a: (a.sin(), a.sum()))(x),
    "jacrev_chunked": lambda t, x, y, w: t.func.jacrev(lambda a: (w @ a).exp(), chunk_size=3)(x),
    "jacrev_chunk_one": lambda t, x, y, w: t.func.jacrev(lambda a: a.outer(a), chunk_size=1)(x),
    "jacrev_has_aux": lambda t, x, y, w: t.func.jacrev(lambda a: (a * 2, a.max()), has_aux=True)(x),
    "jacfwd": lambda t, x, y, w: t.func.jacfwd(lambda a: (w @ a).tanh())(x),
    "jacfwd_argnums": lambda t, x, y, w: t.func.jacfwd(lambda a, b: a * b, argnums=(0, 1))(x, y),
    "jacfwd_has_aux": lambda t, x, y, w: t.func.jacfwd(lambda a: (a.exp(), a.sum()), has_aux=True)(
        x
    ),
    "hessian": lambda t, x, y, w: t.func.hessian(_mlp(t, w))(x),
    "hessian_two_args": lambda t, x, y, w: t.func.hessian(
        lambda a, b: (a * b).pow(3).sum(), argnums=(0, 1)
    )(x, y[0]),
    "hvp": lambda t, x, y, w: t.func.jvp(t.func.grad(_mlp(t, w)), (x,), (x.cos(),)),
    "vmap_grad": lambda t, x, y, w: t.func.vmap(t.func.grad(lambda a: (w @ a).sin().sum()))(y),
    "vmap_jacrev": lambda t, x, y, w: t.func.vmap(t.func.jacrev(lambda a: a.exp() * a.sum()))(y),
    "jacrev_of_vmap": lambda t, x, y, w: t.func.jacrev(t.func.vmap(lambda a: a.sin() @ a))(y),
    "vmap_hessian": lambda t, x, y, w: t.func.vmap(t.func.hessian(lambda a: a.pow(3).sum()))(y),
    "linearize": lambda t, x, y, w: t.func.linearize(lambda a: w @ a.exp(), x)[1](x.cos()),
    "functionalize": lambda t, x, y, w: t.func.functionalize(lambda a: a.clone().add_(1))(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_matches_torch(name: str, dtype: str) -> None:
    ours = CASES[name](hookgrad, *_tensors(hookgrad, dtype))
    theirs = CASES[name](torch, *_tensors(torch, dtype))
    rtol, atol = (1e-4, 1e-5) if dtype == "float32" else (1e-10, 1e-12)
    assert_close(_plain(ours), _plain(theirs), rtol, atol)


def _plain(tree):
    """A result tree as nested lists (dicts by sorted key) for ``assert_close``."""
    if isinstance(tree, dict):
        return [_plain(tree[k]) for k in sorted(tree)]
    if isinstance(tree, (tuple, list)):
        return [_plain(v) for v in tree]
    return tree


def test_results_do_not_require_grad_unless_tracked() -> None:
    x = hookgrad.tensor(X)
    g = hookgrad.func.grad(_f(hookgrad))(x)
    assert not g.requires_grad and g.grad_fn is None
    value = hookgrad.func.grad_and_value(_f(hookgrad))(x)[1]
    assert not value.requires_grad
    # An input the caller's autograd tracks: the gradient is differentiable (a second
    # derivative by the caller's backward), as torch's.
    for lib in (hookgrad, torch):
        xs = lib.tensor(X, requires_grad=True)
        g = lib.func.grad(_f(lib))(xs)
        assert g.requires_grad
        g.sum().backward()
    ours = hookgrad.tensor(X, requires_grad=True)
    hookgrad.func.grad(_f(hookgrad))(ours).sum().backward()
    theirs = torch.tensor(X, requires_grad=True)
    torch.func.grad(_f(torch))(theirs).sum().backward()
    assert_close(ours.grad, theirs.grad, 1e-10, 1e-12)


def test_closed_over_parameter_stays_differentiable() -> None:
    results = []
    for lib in (hookgrad, torch):
        w = lib.tensor(W, requires_grad=True)
        g = lib.func.grad(lambda a, w=w: (w @ a).tanh().sum())(lib.tensor(X))
        g.pow(2).sum().backward()
        results.append((g, w.grad))
    assert_close(results[0], results[1], 1e-10, 1e-12)


def test_gradcheck_through_grad_and_jacrev() -> None:
    """float64 finite differences of the transforms' results (second derivatives)."""
    x = hookgrad.tensor(X, requires_grad=True)
    w = hookgrad.tensor(W)
    assert hookgrad.autograd.gradcheck(lambda a: hookgrad.func.grad(_mlp(hookgrad, w))(a), (x,))
    assert hookgrad.autograd.gradcheck(
        lambda a: hookgrad.func.jacrev(lambda b: (w @ b).sin())(a), (x,)
    )
    assert hookgrad.autograd.gradcheck(
        lambda a: hookgrad.func.vmap(hookgrad.func.grad(lambda b: b.pow(3).sum()))(a),
        (hookgrad.tensor(Y, requires_grad=True),),
    )


ERRORS = {
    "grad_nonscalar": lambda t: t.func.grad(lambda a: a)(t.ones(3)),
    "grad_not_tensor": lambda t: t.func.grad(lambda a: 3.0)(t.ones(3)),
    "grad_argnum_range": lambda t: t.func.grad(lambda a: a.sum(), argnums=1)(t.ones(3)),
    "grad_argnums_type": lambda t: t.func.grad(lambda a: a.sum(), argnums=1.0)(t.ones(3)),
    "grad_argnums_empty": lambda t: t.func.grad(lambda a: a.sum(), argnums=())(t.ones(3)),
    "grad_argnums_repeat": lambda t: t.func.grad(lambda a: a.sum(), argnums=(0, 0))(t.ones(3)),
    "grad_non_tensor_input": lambda t: t.func.grad(lambda a, b: a.sum(), argnums=(0, 1))(
        t.ones(3), 2.0
    ),
    "grad_int_input": lambda t: t.func.grad(lambda a: a.sum())(t.tensor([1, 2])),
    "grad_aux_not_pair": lambda t: t.func.grad(lambda a: a.sum(), has_aux=True)(t.ones(3)),
    "grad_aux_not_tensor": lambda t: t.func.grad(lambda a: (a.sum(), 1), has_aux=True)(t.ones(3)),
    "vjp_not_tensor": lambda t: t.func.vjp(lambda a: (a * 2, 1), t.ones(3)),
    "vjp_aux_not_pair": lambda t: t.func.vjp(lambda a: a * 2, t.ones(3), has_aux=True),
    "vjp_int_output": lambda t: t.func.vjp(lambda a: a.long(), t.ones(3)),
    "vjp_cotangent_structure": lambda t: t.func.vjp(lambda a: a * 2, t.ones(3))[1](
        (t.ones(3), t.ones(3))
    ),
    "vjp_cotangent_shape": lambda t: t.func.vjp(lambda a: a * 2, t.ones(3))[1](t.ones(2)),
    "jvp_primals_not_tuple": lambda t: t.func.jvp(lambda a: a, t.ones(3), t.ones(3)),
    "jvp_structure": lambda t: t.func.jvp(lambda a: a, (t.ones(3),), (t.ones(3), t.ones(3))),
    "jvp_tangent_shape": lambda t: t.func.jvp(lambda a: a, (t.ones(3),), (t.ones(2),)),
    "jvp_not_tensor": lambda t: t.func.jvp(lambda a: a, (t.ones(3), 1.0), (t.ones(3), 1.0)),
    "jacrev_chunk_size": lambda t: t.func.jacrev(lambda a: a, chunk_size=0),
    "jacrev_complex": lambda t: t.func.jacrev(lambda a: a)(t.ones(2, dtype=t.complex64)),
    "functionalize_remove": lambda t: t.func.functionalize(lambda a: a, remove="views"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name: str) -> None:
    assert outcome(ERRORS[name], hookgrad) == outcome(ERRORS[name], torch)
    assert outcome(ERRORS[name], hookgrad)[0] == "error"
