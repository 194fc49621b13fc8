"""The nodes derivative-table entries build, against torch's: the node's class name, its
``_saved_*`` attributes and their values, the order default pack hooks see the saved
tensors in, and the node names of the graph a ``create_graph=True`` gradient records
(torch's double-backward nodes, ``LeakyReluBackwardBackward0`` ...).

Each row is ``(name, fn, values)``: ``fn(t, x)`` runs the op in library ``t`` on a leaf
``x`` made of ``values``; other operands are made inside ``fn`` (``_leaf``). Add a row per
converted op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, node_names, packed_arrays, saved_values

SIGNED = [-1.5, -0.3, 0.4, 2.0]
UNIT = [0.1, 0.3, 0.6, 0.9]
POSITIVE = [0.3, 1.5, 2.5, 4.0]
COMPLEX = [1 + 1j, -2 + 0.5j, 0.3 - 1j, -0.5 - 0.5j]


def _leaf(t: Any, values: list[Any]) -> Any:
    dtype = t.complex128 if isinstance(values[0], complex) else t.float64
    return t.tensor(values, dtype=dtype, requires_grad=True)


def _other(t: Any) -> Any:
    return _leaf(t, [0.5, -1.0, 2.0, 3.0])


def _weight(t: Any) -> Any:
    return _leaf(t, [0.2, 0.7, 0.4, 0.9])


def _constant(t: Any) -> Any:
    """An operand that needs no gradient (torch has no derivative for it)."""
    return t.tensor([1.5, 0.5, 2.0, 3.0], dtype=t.float64)


def _f(t: Any) -> Any:
    return t.nn.functional


Row = tuple[str, Callable[[Any, Any], Any], list[Any]]

ROWS: list[Row] = [
    # activations
    ("leaky_relu", lambda t, x: _f(t).leaky_relu(x, 0.2), SIGNED),
    ("leaky_relu_", lambda t, x: _f(t).leaky_relu_(x * 1, 0.2), SIGNED),
    ("elu", lambda t, x: _f(t).elu(x, 0.7), SIGNED),
    ("elu_", lambda t, x: _f(t).elu_(x * 1, 0.7), SIGNED),
    ("gelu", lambda t, x: _f(t).gelu(x), SIGNED),
    ("gelu_tanh", lambda t, x: _f(t).gelu(x, approximate="tanh"), SIGNED),
    ("silu", lambda t, x: _f(t).silu(x), SIGNED),
    ("softplus", lambda t, x: _f(t).softplus(x, 2.0, 1.0), SIGNED),
    # special functions
    ("erf", lambda t, x: t.erf(x), SIGNED),
    ("erfc", lambda t, x: t.erfc(x), SIGNED),
    ("erfinv", lambda t, x: t.erfinv(x), UNIT),
    ("logit", lambda t, x: t.logit(x), UNIT),
    ("logit_eps", lambda t, x: t.logit(x, 0.2), UNIT),
    ("sgn", lambda t, x: t.sgn(x), SIGNED),
    ("sgn_complex", lambda t, x: t.sgn(x), COMPLEX),
    ("angle", lambda t, x: t.angle(x), SIGNED),
    ("angle_complex", lambda t, x: t.angle(x), COMPLEX),
    # binary
    ("atan2", lambda t, x: t.atan2(x, _other(t)), SIGNED),
    ("xlogy", lambda t, x: t.xlogy(x, _weight(t)), SIGNED),
    ("xlogy_number_self", lambda t, x: t.xlogy(2.0, x), UNIT),
    ("xlogy_number_other", lambda t, x: t.xlogy(x, 2.0), SIGNED),
    ("lerp", lambda t, x: t.lerp(x, _other(t), 0.3), SIGNED),
    ("lerp_tensor", lambda t, x: t.lerp(x, _other(t), _weight(t)), SIGNED),
    # clamping with tensor bounds
    ("clamp_tensor", lambda t, x: t.clamp(x, _other(t) * 0.1, _other(t) + 1), SIGNED),
    ("clamp_tensor_min", lambda t, x: t.clamp(x, min=_other(t)), SIGNED),
    ("clamp_tensor_max", lambda t, x: t.clamp(x, max=_other(t)), SIGNED),
    ("clamp_min_tensor", lambda t, x: t.clamp_min(x, _other(t)), SIGNED),
    ("clamp_max_tensor", lambda t, x: t.clamp_max(x, _other(t)), SIGNED),
    # the gamma family, Bessel functions, the normal distribution (hookgrad.special)
    ("lgamma", lambda t, x: t.lgamma(x), POSITIVE),
    ("digamma", lambda t, x: t.special.digamma(x), POSITIVE),
    ("polygamma", lambda t, x: t.polygamma(2, x), POSITIVE),
    ("polygamma_", lambda t, x: (x * 1).polygamma_(2), POSITIVE),
    ("mvlgamma", lambda t, x: t.mvlgamma(x + 1, 3), POSITIVE),
    ("i0", lambda t, x: t.i0(x), SIGNED),
    ("i0e", lambda t, x: t.special.i0e(x), SIGNED),
    ("i1", lambda t, x: t.special.i1(x), SIGNED),
    ("i1e", lambda t, x: t.special.i1e(x), SIGNED),
    ("ndtr", lambda t, x: t.special.ndtr(x), SIGNED),
    ("ndtri", lambda t, x: t.special.ndtri(x), UNIT),
    ("log_ndtr", lambda t, x: t.special.log_ndtr(x), SIGNED),
    ("erfcx", lambda t, x: t.special.erfcx(x), SIGNED),
    ("entr", lambda t, x: t.special.entr(x), POSITIVE),
    ("sinc", lambda t, x: t.sinc(x), SIGNED),
    ("sinc_complex", lambda t, x: t.special.sinc(x), COMPLEX),
    ("xlog1py", lambda t, x: t.special.xlog1py(x, _weight(t)), SIGNED),
    ("xlog1py_number_self", lambda t, x: t.special.xlog1py(2.0, x), UNIT),
    ("xlog1py_number_other", lambda t, x: t.special.xlog1py(x, 2.0), SIGNED),
    ("igamma", lambda t, x: t.igamma(_constant(t), x), POSITIVE),
    ("igammac", lambda t, x: t.special.gammaincc(_constant(t), x), POSITIVE),
    ("zeta", lambda t, x: t.special.zeta(_constant(t) + 1, x), POSITIVE),
    ("zeta_number_self", lambda t, x: t.special.zeta(3.0, x), POSITIVE),
    # pointwise binary functions and angles
    ("fmod", lambda t, x: t.fmod(x, _other(t)), SIGNED),
    ("fmod_scalar", lambda t, x: x.fmod(0.7), SIGNED),
    ("fmax", lambda t, x: t.fmax(x, _other(t)), SIGNED),
    ("fmin", lambda t, x: t.fmin(x, _other(t)), SIGNED),
    ("logaddexp", lambda t, x: t.logaddexp(x, _other(t)), SIGNED),
    ("logaddexp2", lambda t, x: t.logaddexp2(x, _other(t)), SIGNED),
    ("hypot", lambda t, x: t.hypot(x, _other(t)), SIGNED),
    ("copysign", lambda t, x: t.copysign(x, _other(t)), SIGNED),
    ("copysign_scalar", lambda t, x: t.copysign(x, -2.0), SIGNED),
    ("nextafter", lambda t, x: t.nextafter(x, _other(t)), SIGNED),
    ("ldexp", lambda t, x: t.ldexp(x, _other(t)), SIGNED),
    ("deg2rad", lambda t, x: t.deg2rad(x), SIGNED),
    ("rad2deg", lambda t, x: t.rad2deg(x), SIGNED),
    # torch has no derivative in zeta's first argument: the node is only recorded
    (
        "zeta_number_other",
        lambda t, x: x * t.special.zeta(x.detach().requires_grad_() + 1, 2.0),
        POSITIVE,
    ),
]

IDS = [row[0] for row in ROWS]


def _run(t: Any, fn: Callable[[Any, Any], Any], values: list[Any]) -> tuple[Any, Any]:
    x = _leaf(t, values)
    return x, fn(t, x)


@pytest.mark.parametrize("fn, values", [row[1:] for row in ROWS], ids=IDS)
def test_node_and_saved_values_match_torch(fn, values, torch):
    _, ours = _run(hookgrad, fn, values)
    _, theirs = _run(torch, fn, values)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    saved, expected = saved_values(ours.grad_fn), saved_values(theirs.grad_fn)
    assert sorted(saved) == sorted(expected)
    for name, value in expected.items():
        if isinstance(value, np.ndarray):
            assert_close(saved[name], value, rtol=1e-12, atol=0)
        else:
            assert saved[name] == value, name


@pytest.mark.parametrize("fn, values", [row[1:] for row in ROWS], ids=IDS)
def test_pack_order_matches_torch(fn, values, torch):
    """Default pack hooks see the op's saved tensors in torch's order."""

    def packed(t: Any) -> list[Any]:
        x = _leaf(t, values)
        return packed_arrays(t, lambda lib: fn(lib, x))

    ours, theirs = packed(hookgrad), packed(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert_close(a, b, rtol=1e-12, atol=0)


@pytest.mark.parametrize("fn, values", [row[1:] for row in ROWS], ids=IDS)
def test_double_backward_graph_matches_torch(fn, values, torch):
    """The nodes a ``create_graph=True`` gradient records, and its values."""

    def gradient(t: Any) -> Any:
        x, y = _run(t, fn, values)
        seed = t.linspace(0.5, 1.5, y.numel(), dtype=y.dtype).reshape(y.shape)
        (g,) = t.autograd.grad(y, x, seed, create_graph=True)
        return g

    ours, theirs = gradient(hookgrad), gradient(torch)
    assert node_names(ours.grad_fn) == node_names(theirs.grad_fn)
    assert_close(ours, theirs.detach().numpy(force=True), rtol=1e-12, atol=1e-15)
