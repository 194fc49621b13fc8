"""Every transform of ``hookgrad.distributions.transforms`` against torch: values,
inverses and log-det-Jacobians with their gradients, shapes, domains and codomains,
signs, equality, caching; and ``biject_to``/``transform_to`` for every constraint."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, outcome

RNG = np.random.default_rng(3)


def _t(lib: Any) -> Any:
    return lib.distributions.transforms


# name -> (build(lib), an input x)
TRANSFORMS: dict[str, tuple[Callable[[Any], Any], np.ndarray]] = {
    "exp": (lambda t: _t(t).ExpTransform(), RNG.standard_normal((2, 3))),
    "exp_inv": (lambda t: _t(t).ExpTransform().inv, RNG.random((2, 3)) + 0.5),
    "power": (lambda t: _t(t).PowerTransform(t.tensor([0.5, 2.0, -1.5])), RNG.random(3) + 0.2),
    "sigmoid": (lambda t: _t(t).SigmoidTransform(), RNG.standard_normal((2, 3))),
    "tanh": (lambda t: _t(t).TanhTransform(), RNG.standard_normal((2, 3))),
    "softplus": (lambda t: _t(t).SoftplusTransform(), RNG.standard_normal((2, 3))),
    "abs": (lambda t: _t(t).AbsTransform(), RNG.standard_normal((2, 3))),
    "affine_number": (lambda t: _t(t).AffineTransform(1.5, -2.0), RNG.standard_normal(3)),
    "affine_tensor_event": (
        lambda t: _t(t).AffineTransform(t.zeros(3), t.tensor([1.0, 2.0, 0.5]), event_dim=1),
        RNG.standard_normal((2, 3)),
    ),
    "softmax": (lambda t: _t(t).SoftmaxTransform(), RNG.standard_normal((2, 4))),
    "stick_breaking": (lambda t: _t(t).StickBreakingTransform(), RNG.standard_normal((2, 3))),
    "lower_cholesky": (lambda t: _t(t).LowerCholeskyTransform(), RNG.standard_normal((2, 3, 3))),
    "positive_definite": (
        lambda t: _t(t).PositiveDefiniteTransform(),
        RNG.standard_normal((3, 3)),
    ),
    "corr_cholesky": (lambda t: _t(t).CorrCholeskyTransform(), RNG.standard_normal((2, 6))),
    "reshape": (lambda t: _t(t).ReshapeTransform((2, 3), (6,)), RNG.standard_normal((4, 2, 3))),
    "compose": (
        lambda t: _t(t).ComposeTransform(
            [_t(t).StickBreakingTransform(), _t(t).ExpTransform().inv]
        ),
        RNG.standard_normal((2, 3)),
    ),
    "identity": (lambda t: _t(t).identity_transform, RNG.standard_normal(3)),
    "independent": (
        lambda t: _t(t).IndependentTransform(_t(t).SigmoidTransform(), 2),
        RNG.standard_normal((3, 2, 2)),
    ),
    "cat": (
        lambda t: _t(t).CatTransform(
            [_t(t).ExpTransform(), _t(t).AffineTransform(0.0, 3.0)], dim=1, lengths=[2, 1]
        ),
        RNG.standard_normal((2, 3)),
    ),
    "cat_event": (
        lambda t: _t(t).CatTransform(
            [
                _t(t).IndependentTransform(_t(t).ExpTransform(), 1),
                _t(t).AffineTransform(0.0, 2.0, event_dim=1),
            ],
            dim=0,
            lengths=[2, 1],
        ),
        RNG.standard_normal((3, 2)),
    ),
    "stack": (
        lambda t: _t(t).StackTransform([_t(t).ExpTransform(), _t(t).TanhTransform()], dim=-1),
        RNG.standard_normal((3, 2)),
    ),
    "cdf": (
        lambda t: _t(t).CumulativeDistributionTransform(
            t.distributions.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0]))
        ),
        RNG.standard_normal((3, 2)),
    ),
}


def _observe(lib: Any, name: str) -> dict[str, Any]:
    build, x_array = TRANSFORMS[name]
    t = build(lib)
    x = lib.tensor(x_array, requires_grad=True)
    y = t(x)
    out: dict[str, Any] = {"y": y}
    out["x_back"] = t.inv(y.detach())
    out["shapes"] = (t.forward_shape(x.shape), t.inverse_shape(y.shape))
    out["domains"] = (repr(t.domain), t.domain.event_dim, repr(t.codomain), t.codomain.event_dim)
    out["bijective"] = t.bijective
    out["repr"] = repr(t).replace("hookgrad", "torch")
    out["sign"] = outcome(lambda _: t.sign, lib)
    out["ladj"] = outcome(lambda _: t.log_abs_det_jacobian(x, y), lib)
    out["grads"] = _grad(lib, y, x)
    if out["ladj"][0] == "ok":
        out["ladj_grad"] = _grad(lib, t.log_abs_det_jacobian(x, y), x)
    return out


def _grad(lib: Any, value: Any, x: Any) -> Any:
    """The gradient of ``value.sum()`` in ``x`` (None where it does not depend on it)."""
    if not value.requires_grad:
        return None
    return lib.autograd.grad(value.sum(), x, retain_graph=True, allow_unused=True)[0]


@pytest.mark.parametrize("name", TRANSFORMS)
def test_transform_matches_torch(name, torch):
    ours, theirs = _observe(hookgrad, name), _observe(torch, name)
    assert ours.keys() == theirs.keys()
    for key in ("y", "x_back", "grads", "ladj_grad"):
        if key in theirs:
            assert_close(ours[key], theirs[key], 1e-5, 1e-6)
    for key in ("shapes", "domains", "bijective", "repr", "sign", "ladj"):
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("name", ["exp", "sigmoid", "tanh", "stick_breaking", "corr_cholesky"])
def test_log_abs_det_jacobian_is_the_jacobians(name):
    build, x_array = TRANSFORMS[name]
    t = build(hookgrad)
    x = hookgrad.tensor(x_array[0], dtype=hookgrad.float64)
    jacobian = hookgrad.autograd.functional.jacobian(t, x)
    if jacobian.dim() == 3:  # corr_cholesky: the lower triangle below the diagonal
        rows, columns = np.tril_indices(jacobian.shape[0], -1)
        jacobian = jacobian[rows, columns]
    elif name == "stick_breaking":  # the first K - 1 coordinates of the simplex
        jacobian = jacobian[:-1]
    if jacobian.dim() == 1:
        jacobian = hookgrad.diag(jacobian)
    expected = np.log(np.abs(np.linalg.det(np.atleast_2d(jacobian.numpy()))))
    ladj = t.log_abs_det_jacobian(x, t(x)).sum()
    np.testing.assert_allclose(ladj.item(), expected, rtol=1e-10)


def _cached(lib: Any) -> Any:
    t = _t(lib).ComposeTransform([_t(lib).TanhTransform(), _t(lib).ExpTransform()], cache_size=1)
    x = lib.tensor([0.5, 30.0])
    y = t(x)
    return t.inv(y) is x, t(x) is y, t.with_cache(1) is t, t.with_cache(0)._cache_size


def test_caching(torch):
    assert _cached(hookgrad) == _cached(torch) == (True, True, True, 0)


def _equalities(lib: Any) -> Any:
    tr = _t(lib)
    return [
        tr.ExpTransform() == tr.ExpTransform(),
        tr.ExpTransform().inv == tr.ExpTransform().inv,
        tr.ExpTransform() == tr.ExpTransform().inv,
        tr.AffineTransform(1.0, 2.0) == tr.AffineTransform(1.0, 2.0),
        tr.AffineTransform(lib.zeros(2), 2.0) == tr.AffineTransform(lib.zeros(2), 2.0),
        tr.AffineTransform(1.0, 2.0) == tr.AffineTransform(1.0, 3.0),
        tr.PowerTransform(lib.tensor(2.0)) == tr.PowerTransform(lib.tensor(2.0)),
        tr.ComposeTransform([tr.ExpTransform()]) == tr.ComposeTransform([tr.ExpTransform()]),
        tr.ExpTransform() != tr.SigmoidTransform(),
    ]


def test_equality(torch):
    assert _equalities(hookgrad) == _equalities(torch)


ERRORS = {
    "cache_size": lambda t: _t(t).ExpTransform(cache_size=2),
    "event_dim_differs": lambda t: _t(t).StickBreakingTransform().event_dim,
    "reshape_sizes": lambda t: _t(t).ReshapeTransform((2, 3), (5,)),
    "reshape_shape": lambda t: _t(t).ReshapeTransform((2, 3), (6,)).forward_shape((3, 2)),
    "corr_cholesky_shape": lambda t: _t(t).CorrCholeskyTransform().forward_shape((4,)),
    "independent_too_few_dims": lambda t: _t(t).IndependentTransform(_t(t).ExpTransform(), 2)(
        t.zeros(3)
    ),
    "cat_length": lambda t: _t(t).CatTransform([_t(t).ExpTransform()], lengths=[2])(t.zeros(3)),
    "abs_sign": lambda t: _t(t).AbsTransform().sign,
    "with_cache": lambda t: (
        _t(t)
        .CumulativeDistributionTransform(t.distributions.Normal(0.0, 1.0))
        .with_cache(1)
        ._cache_size
    ),
}


@pytest.mark.parametrize("fn", ERRORS.values(), ids=ERRORS.keys())
def test_errors_are_torchs(fn, torch):
    assert outcome(fn, hookgrad) == outcome(fn, torch)


def _c(lib: Any) -> Any:
    return lib.distributions.constraints


# constraint -> a point of the real (unconstrained) space of the right shape
CONSTRAINTS: dict[str, tuple[Callable[[Any], Any], np.ndarray]] = {
    "real": (lambda t: _c(t).real, RNG.standard_normal(3)),
    "real_vector": (lambda t: _c(t).real_vector, RNG.standard_normal((2, 3))),
    "positive": (lambda t: _c(t).positive, RNG.standard_normal(3)),
    "nonnegative": (lambda t: _c(t).nonnegative, RNG.standard_normal(3)),
    "greater_than": (lambda t: _c(t).greater_than(t.tensor(2.0)), RNG.standard_normal(3)),
    "greater_than_eq": (lambda t: _c(t).greater_than_eq(-1.0), RNG.standard_normal(3)),
    "less_than": (lambda t: _c(t).less_than(3.0), RNG.standard_normal(3)),
    "unit_interval": (lambda t: _c(t).unit_interval, RNG.standard_normal(3)),
    "interval": (lambda t: _c(t).interval(-2.0, 5.0), RNG.standard_normal(3)),
    "half_open_interval": (lambda t: _c(t).half_open_interval(0.0, 1.0), RNG.standard_normal(3)),
    "simplex": (lambda t: _c(t).simplex, RNG.standard_normal((2, 3))),
    "lower_cholesky": (lambda t: _c(t).lower_cholesky, RNG.standard_normal((3, 3))),
    "positive_definite": (lambda t: _c(t).positive_definite, RNG.standard_normal((3, 3))),
    "positive_semidefinite": (lambda t: _c(t).positive_semidefinite, RNG.standard_normal((3, 3))),
    "corr_cholesky": (lambda t: _c(t).corr_cholesky, RNG.standard_normal(3)),
    "independent": (lambda t: _c(t).independent(_c(t).positive, 1), RNG.standard_normal((2, 3))),
    "cat": (
        lambda t: _c(t).cat([_c(t).real, _c(t).positive], dim=0, lengths=[2, 1]),
        RNG.standard_normal(3),
    ),
    "stack": (
        lambda t: _c(t).stack([_c(t).unit_interval, _c(t).positive], dim=-1),
        RNG.standard_normal((3, 2)),
    ),
}


def _registry(lib: Any, name: str, registry: str) -> Any:
    build, x_array = CONSTRAINTS[name]
    constraint = build(lib)
    try:
        t = getattr(lib.distributions, registry)(constraint)
    except NotImplementedError as error:
        return ("error", str(error))
    x = lib.tensor(x_array)
    y = t(x)
    return repr(t), y, bool(constraint.check(y).all()), type(constraint).__name__


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", CONSTRAINTS)
def test_constraint_registries(name, registry, torch):
    ours, theirs = _registry(hookgrad, name, registry), _registry(torch, name, registry)
    if theirs[0] == "error":
        assert ours == theirs
        return
    assert ours[0] == theirs[0]
    assert_close(ours[1], theirs[1], 1e-5, 1e-6)
    assert ours[2:] == theirs[2:]
    assert ours[2]  # the transform lands in the constraint


def test_register_a_constraint(torch):
    def custom(lib: Any) -> Any:
        registry = lib.distributions.constraint_registry.ConstraintRegistry()
        registry.register(_c(lib).positive, lambda c: _t(lib).SoftplusTransform())
        return repr(registry(_c(lib).positive)), outcome(lambda _: registry(_c(lib).real), lib)

    assert custom(hookgrad) == custom(torch)
