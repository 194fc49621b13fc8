"""Every constraint of ``hookgrad.distributions.constraints`` against torch: ``check`` on
valid and invalid values, ``repr``, ``event_dim``, ``is_discrete``, and the errors of
dependent and malformed constraints."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import hookgrad
from tests.oracle import outcome


def _c(lib: Any) -> Any:
    return lib.distributions.constraints


_NAN = float("nan")
_INF = float("inf")
_SQRT_HALF = 0.5**0.5

# name -> (constraint(lib), values to check: valid and invalid ones)
CONSTRAINTS: dict[str, tuple[Callable[[Any], Any], list[Any]]] = {
    "real": (lambda t: _c(t).real, [[0.0, _INF, _NAN]]),
    "real_vector": (lambda t: _c(t).real_vector, [[[0.0, 1.0], [_NAN, 1.0]]]),
    "boolean": (lambda t: _c(t).boolean, [[0.0, 1.0, 0.5, 2.0]]),
    "one_hot": (lambda t: _c(t).one_hot, [[[0.0, 1.0], [1.0, 1.0], [0.5, 0.5]]]),
    "nonnegative_integer": (lambda t: _c(t).nonnegative_integer, [[0.0, 3.0, 1.5, -1.0]]),
    "positive_integer": (lambda t: _c(t).positive_integer, [[1.0, 3.0, 0.0, 2.5]]),
    "integer_interval": (lambda t: _c(t).integer_interval(0, 4), [[0.0, 4.0, 5.0, 2.5]]),
    "positive": (lambda t: _c(t).positive, [[1.0, 0.0, -1.0, _INF]]),
    "nonnegative": (lambda t: _c(t).nonnegative, [[1.0, 0.0, -1.0]]),
    "greater_than": (lambda t: _c(t).greater_than(1.5), [[1.0, 1.5, 2.0]]),
    "greater_than_eq": (lambda t: _c(t).greater_than_eq(1.5), [[1.0, 1.5, 2.0]]),
    "less_than": (lambda t: _c(t).less_than(1.5), [[1.0, 1.5, 2.0]]),
    "unit_interval": (lambda t: _c(t).unit_interval, [[0.0, 1.0, 1.5, -0.1]]),
    "interval": (lambda t: _c(t).interval(-1.0, 2.0), [[-1.0, 2.0, 2.5]]),
    "half_open_interval": (lambda t: _c(t).half_open_interval(0.0, 1.0), [[0.0, 1.0, 0.5]]),
    "simplex": (lambda t: _c(t).simplex, [[[0.2, 0.8], [0.5, 0.6], [1.2, -0.2]]]),
    "multinomial": (lambda t: _c(t).multinomial(4), [[[1.0, 3.0], [3.0, 3.0], [-1.0, 2.0]]]),
    "lower_triangular": (
        lambda t: _c(t).lower_triangular,
        [[[[1.0, 0.0], [2.0, -1.0]], [[1.0, 1.0], [0.0, 1.0]]]],
    ),
    "lower_cholesky": (
        lambda t: _c(t).lower_cholesky,
        [[[[1.0, 0.0], [2.0, 3.0]], [[1.0, 0.0], [2.0, -1.0]]]],
    ),
    "corr_cholesky": (
        lambda t: _c(t).corr_cholesky,
        [[[[1.0, 0.0], [_SQRT_HALF, _SQRT_HALF]], [[1.0, 0.0], [0.5, 0.5]]]],
    ),
    "square": (lambda t: _c(t).square, [[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0, 3.0]]]),
    "symmetric": (
        lambda t: _c(t).symmetric,
        [[[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [3.0, 1.0]]], [[1.0, 2.0, 3.0]]],
    ),
    "positive_semidefinite": (
        lambda t: _c(t).positive_semidefinite,
        [[[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]], [[1.0, 2.0], [0.0, 1.0]]],
    ),
    "positive_definite": (
        lambda t: _c(t).positive_definite,
        [[[[2.0, 1.0], [1.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]]]],
    ),
    "independent": (
        lambda t: _c(t).independent(_c(t).positive, 1),
        [[[1.0, 2.0], [1.0, -2.0]]],
    ),
    "cat": (
        lambda t: _c(t).cat([_c(t).positive, _c(t).unit_interval], dim=-1, lengths=[1, 2]),
        [[[1.0, 0.5, 0.5], [-1.0, 0.5, 2.0]]],
    ),
    "stack": (
        lambda t: _c(t).stack([_c(t).positive, _c(t).boolean], dim=0),
        [[[1.0, -2.0], [1.0, 0.5]]],
    ),
    "mixture": (
        lambda t: _c(t).MixtureSameFamilyConstraint(_c(t).positive),
        [[1.0, -1.0]],
    ),
}


def _observe(lib: Any, name: str) -> Any:
    build, values = CONSTRAINTS[name]
    constraint = build(lib)
    checks = [outcome(lambda t, v=v: constraint.check(t.tensor(v)), lib) for v in values]
    return repr(constraint), constraint.event_dim, constraint.is_discrete, checks


@pytest.mark.parametrize("name", CONSTRAINTS)
def test_constraint_matches_torch(name, torch):
    assert _observe(hookgrad, name) == _observe(torch, name)


def test_every_constraint_is_covered(torch):
    names = set(torch.distributions.constraints.__all__)
    functors = {"Constraint", "dependent", "dependent_property", "is_dependent"}
    covered = set(CONSTRAINTS) | {"MixtureSameFamilyConstraint"}
    assert names - functors - covered == set()


ERRORS = {
    "dependent_check": lambda t: _c(t).dependent.check(t.zeros(1)),
    "dependent_is_discrete": lambda t: _c(t).dependent.is_discrete,
    "dependent_event_dim": lambda t: _c(t).dependent.event_dim,
    "dependent_called": lambda t: (
        _c(t).dependent(is_discrete=True, event_dim=2).is_discrete,
        _c(t).dependent(is_discrete=True, event_dim=2).event_dim,
    ),
    "is_dependent": lambda t: (
        _c(t).is_dependent(_c(t).dependent),
        _c(t).is_dependent(_c(t).real),
        _c(t).is_dependent(t.distributions.Uniform.support),
    ),
    "dependent_property_attributes": lambda t: (
        t.distributions.Uniform.support.is_discrete,
        t.distributions.Uniform.support.event_dim,
    ),
    "independent_not_constraint": lambda t: _c(t).independent(1.0, 1),
    "independent_negative": lambda t: _c(t).independent(_c(t).real, -1),
    "independent_too_few_dims": lambda t: _c(t).independent(_c(t).real, 2).check(t.zeros(3)),
    "cat_lengths": lambda t: _c(t).cat([_c(t).real], lengths=[1, 2]),
    "cat_dim": lambda t: _c(t).cat([_c(t).real], dim=3).check(t.zeros(2)),
    "stack_not_constraints": lambda t: _c(t).stack([1.0]),
    "constraint_check": lambda t: _c(t).Constraint().check(t.zeros(1)),
}


@pytest.mark.parametrize("fn", ERRORS.values(), ids=ERRORS.keys())
def test_errors_are_torchs(fn, torch):
    assert outcome(fn, hookgrad) == outcome(fn, torch)
