"""Every distribution against torch (the cases of ``tests/distributions/cases.py``), in
float32 and float64: its statistics and scores with their gradients and nodes, its
seeded samples and reparameterised gradients, ``expand``, and ``gradcheck`` of
``log_prob``."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.distributions.cases import CASES, DistCase
from tests.oracle import assert_close

STATISTICS = ("mean", "mode", "variance", "stddev", "entropy")
SCORES = ("log_prob", "cdf", "icdf", "enumerate_support")
TOLERANCES = {"float32": (2e-5, 2e-6), "float64": (1e-9, 1e-11)}


def _leaves(lib: Any, arrays: tuple[np.ndarray, ...], dtype: str) -> list[Any]:
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


@contextlib.contextmanager
def _quietly(lib: Any, case: DistCase, dtype: str) -> Iterator[None]:
    """Warnings off, and the default dtype set to ``dtype`` where the case needs it."""
    previous = lib.get_default_dtype()
    if case.default_dtype:
        lib.set_default_dtype(getattr(lib, dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        lib.set_default_dtype(previous)


def _evaluate(lib: Any, case: DistCase, dtype: str, what: str) -> Any:
    """``what`` of the case's distribution: its value, node name and the gradients of
    its finite entries' sum in the parameters (and the scored value), or the error."""
    params = _leaves(lib, case.params, dtype)
    value = lib.tensor(case.value, dtype=getattr(lib, dtype))
    if not case.discrete:
        value.requires_grad_()
    d = case.build(lib, *params)
    try:
        with _quietly(lib, case, dtype):
            if what in ("log_prob", "cdf"):
                result = getattr(d, what)(value)
            elif what == "icdf":
                result = d.icdf(lib.full(d.batch_shape + d.event_shape, 0.3, dtype=value.dtype))
            elif what in ("entropy", "enumerate_support"):
                result = getattr(d, what)()
            else:
                result = getattr(d, what)
        node = type(result.grad_fn).__name__ if result.grad_fn is not None else None
        grads = None
        if result.requires_grad:
            leaves = params + ([value] if value.requires_grad else [])
            finite = lib.where(lib.isfinite(result), result, lib.zeros_like(result))
            grads = lib.autograd.grad(finite.sum(), leaves, allow_unused=True)
    except (NotImplementedError, ValueError) as error:
        message = str(error).replace("hookgrad.", "torch.").split("\n")[0]
        return ("error", type(error).__name__, message)
    return result, node, grads


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("what", STATISTICS + SCORES)
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_statistics_and_scores_match_torch(case, what, dtype, torch):
    ours = _evaluate(hookgrad, case, dtype, what)
    theirs = _evaluate(torch, case, dtype, what)
    if isinstance(theirs[0], str):
        assert ours == theirs
        return
    rtol, atol = TOLERANCES[dtype]
    assert_close(ours[0], theirs[0], rtol, atol)
    assert ours[1] == theirs[1]  # the node torch records
    assert (ours[2] is None) == (theirs[2] is None)
    if theirs[2] is not None:
        for a, b in zip(ours[2], theirs[2]):
            assert (a is None) == (b is None)
            assert_close(a, b, 10 * rtol, 10 * atol)


def _samples(lib: Any, case: DistCase, dtype: str) -> dict[str, Any]:
    """Seeded ``sample`` and ``rsample`` (with its gradients) of the case, and the next
    numbers the generator gives."""
    params = _leaves(lib, case.params, dtype)
    d = case.build(lib, *params)
    out: dict[str, Any] = {}
    with _quietly(lib, case, dtype):
        lib.manual_seed(7)
        out["sample"] = d.sample((2,))
        if d.has_rsample:
            x = d.rsample((3,))
            out["rsample"] = x
            if x.requires_grad and case.rsample_grads:
                out["grads"] = lib.autograd.grad(x.sum(), params, allow_unused=True)
    out["next"] = lib.rand(3)
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_seeded_samples_are_torchs(case, dtype, torch):
    ours, theirs = _samples(hookgrad, case, dtype), _samples(torch, case, dtype)
    assert ours.keys() == theirs.keys()
    np.testing.assert_array_equal(ours["next"].numpy(), theirs["next"].numpy())
    for key in ("sample", "rsample"):
        if key not in theirs:
            continue
        assert ours[key].dtype == getattr(hookgrad, str(theirs[key].dtype).split(".")[1])
        if case.exact:
            np.testing.assert_array_equal(ours[key].detach().numpy(), theirs[key].detach().numpy())
        else:
            rtol = 1e-6 if dtype == "float32" else 1e-13
            assert_close(ours[key], theirs[key], rtol, rtol)
    if "grads" in theirs:
        rtol, atol = TOLERANCES[dtype]
        for a, b in zip(ours["grads"], theirs["grads"]):
            assert (a is None) == (b is None)
            assert_close(a, b, 100 * rtol, 100 * atol)


def _expanded(lib: Any, case: DistCase) -> Any:
    d = case.build(lib, *_leaves(lib, case.params, "float64"))
    e = d.expand((2,) + tuple(d.batch_shape))
    value = case.value
    while value.ndim > len(d.batch_shape + d.event_shape):
        value = value[-1]  # one value per batch entry, broadcast over the new dim
    with _quietly(lib, case, "float64"):
        lib.manual_seed(3)
        shape = e.sample().shape
        log_prob = e.log_prob(lib.tensor(value, dtype=lib.float64))
    return e.batch_shape, e.event_shape, shape, log_prob, type(e).__name__


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_expand(case, torch):
    ours, theirs = _expanded(hookgrad, case), _expanded(torch, case)
    assert ours[:3] == theirs[:3]
    assert_close(ours[3], theirs[3], 1e-9, 1e-11)
    assert ours[4] == theirs[4]


@pytest.mark.parametrize("case", [c for c in CASES if not c.discrete], ids=repr)
def test_log_prob_gradcheck(case):
    value = hookgrad.tensor(case.value, dtype=hookgrad.float64, requires_grad=True)
    params = _leaves(hookgrad, case.params, "float64")

    def log_prob(value: Any, *params: Any) -> Any:
        params = tuple(
            (p + p.mT) / 2 if index in case.symmetric else p for index, p in enumerate(params)
        )
        return case.build(hookgrad, *params).log_prob(value)

    # the perturbed parameters and values leave the constraints (a triangular factor's
    # upper triangle, a simplex): not validated here
    Distribution = hookgrad.distributions.Distribution
    Distribution.set_default_validate_args(False)
    try:
        assert hookgrad.autograd.gradcheck(log_prob, (value, *params))
    finally:
        Distribution.set_default_validate_args(True)
