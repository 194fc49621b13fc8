"""``hookgrad.special`` and the special functions of ``hookgrad`` against torch: values to
the last bit (torch's algorithms, float32 and float64, across every branch of each
algorithm, in vector lanes and scalar tails), dtypes, the conventions at poles and
infinities, gradients where torch has no closed formula (``i1`` at 0) or none at all,
and the errors torch raises.

The op table (``tests/ops/cases/special.py``) checks gradients and second derivatives
against torch and finite differences; the node tests (``tests/ops/test_table_nodes.py``)
check node names, saved values and double-backward graphs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import hookgrad
from tests.oracle import outcome
from tests.special.helpers import same

NAN, INF = math.nan, math.inf


def _bits(value: np.ndarray) -> np.ndarray:
    """The bit patterns of a float array (NaNs all one pattern)."""
    value = np.where(np.isnan(value), np.nan, value).astype(value.dtype)
    return value.view(np.int32 if value.dtype == np.float32 else np.int64)


def _assert_same_bits(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.dtype == theirs.dtype
    mismatched = np.flatnonzero(_bits(ours) != _bits(theirs))
    assert mismatched.size == 0, (mismatched[:5], ours.ravel()[mismatched[:5]])


def _samples(rng: np.random.Generator, low: float, high: float, count: int = 1500) -> np.ndarray:
    """Uniform samples, log-uniform magnitudes of both signs, and the special points."""
    magnitudes = 10 ** rng.uniform(-4, 2, count // 3)
    special = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 8.0, -8.0, 10.0, INF, -INF, NAN]
    return np.concatenate([rng.uniform(low, high, count), magnitudes, -magnitudes, special])


# One row per function: (name in torch.special, how hookgrad and torch call it, range).
UNARY = [
    ("gammaln", -12.0, 12.0),
    ("digamma", -12.0, 25.0),
    ("i0", -20.0, 20.0),
    ("i0e", -20.0, 20.0),
    ("i1", -20.0, 20.0),
    ("i1e", -20.0, 20.0),
    ("ndtri", -0.1, 1.1),
    ("log_ndtr", -40.0, 10.0),
    ("erfcx", -30.0, 60.0),
    ("entr", -1.0, 5.0),
    ("sinc", -5.0, 5.0),
    ("bessel_j0", -30.0, 30.0),
    ("bessel_j1", -30.0, 30.0),
    ("bessel_y0", -1.0, 30.0),
    ("bessel_y1", -1.0, 30.0),
    ("modified_bessel_i0", -20.0, 20.0),
    ("modified_bessel_i1", -20.0, 20.0),
    ("modified_bessel_k0", -1.0, 20.0),
    ("modified_bessel_k1", -1.0, 20.0),
    ("scaled_modified_bessel_k0", -1.0, 20.0),
    ("scaled_modified_bessel_k1", -1.0, 20.0),
    ("spherical_bessel_j0", -20.0, 20.0),
    ("airy_ai", -30.0, 110.0),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, low, high", UNARY, ids=[row[0] for row in UNARY])
def test_unary_values_are_torchs_bits(name, low, high, dtype, torch):
    values = _samples(np.random.default_rng(len(name)), low, high).astype(dtype)
    ours = getattr(hookgrad.special, name)(hookgrad.tensor(values))
    theirs = getattr(torch.special, name)(torch.tensor(values))
    _assert_same_bits(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_polygamma_values_are_torchs_bits(n, dtype, torch):
    values = _samples(np.random.default_rng(n), -6.0, 12.0, 600).astype(dtype)
    ours = hookgrad.polygamma(n, hookgrad.tensor(values))
    _assert_same_bits(ours.numpy(), torch.polygamma(n, torch.tensor(values)).numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mvlgamma_and_zeta_are_torchs_bits(dtype, torch):
    rng = np.random.default_rng(3)
    x = rng.uniform(1.6, 30.0, (40, 7)).astype(dtype)
    for p in (1, 2, 4):
        ours = hookgrad.mvlgamma(hookgrad.tensor(x), p)
        _assert_same_bits(ours.numpy(), torch.mvlgamma(torch.tensor(x), p).numpy())
    s = rng.uniform(1.0, 8.0, 300).astype(dtype)
    q = rng.uniform(-6.0, 20.0, 300).astype(dtype)
    s[:40], q[40:80] = np.round(s[:40]), np.round(q[40:80])  # the integers' branches
    ours = hookgrad.special.zeta(hookgrad.tensor(s), hookgrad.tensor(q))
    theirs = torch.special.zeta(torch.tensor(s), torch.tensor(q))
    _assert_same_bits(ours.numpy(), theirs.numpy())


def _incomplete_gamma_arguments(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """``(a, x)`` covering each method: both series, the continued fraction, Temme's
    expansion (moderate and large ``a``), and the boundary values."""
    rng = np.random.default_rng(7)
    a = np.concatenate(
        [10 ** rng.uniform(-3, 3, 600), rng.uniform(0, 30, 600), rng.uniform(20, 250, 300)]
    )
    x = np.concatenate(
        [
            10 ** rng.uniform(-3, 3, 600),
            rng.uniform(0, 30, 600),
            a[1200:] * rng.uniform(0.7, 1.3, 300),
        ]
    )
    edges_a = [0.0, 0.0, 1.0, INF, INF, -1.0, 2.0, NAN, 1e5]
    edges_x = [1.0, 0.0, 0.0, 1.0, INF, 1.0, INF, 1.0, 1e5 + 100]
    return (np.concatenate([a, edges_a]).astype(dtype), np.concatenate([x, edges_x]).astype(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_incomplete_gamma_is_torchs_bits(dtype, torch):
    a, x = _incomplete_gamma_arguments(dtype)
    for name in ("gammainc", "gammaincc"):
        ours = getattr(hookgrad.special, name)(hookgrad.tensor(a), hookgrad.tensor(x))
        theirs = getattr(torch.special, name)(torch.tensor(a), torch.tensor(x))
        _assert_same_bits(ours.numpy(), theirs.numpy())


def test_igamma_scalar_tail_and_layouts_are_torchs_bits(torch):
    """torch's vector lanes and its scalar loop run differently compiled copies of
    ``calc_igamma``: a short tensor (all scalar), a row's tail, a transposed layout and a
    broadcast operand take the path torch takes for each element."""
    a, x = _incomplete_gamma_arguments("float32")
    a, x = a[:1200].reshape(40, 30), x[:1200].reshape(40, 30)
    for make in (
        lambda t, v: t.tensor(v[0, :3]),
        lambda t, v: t.tensor(v[:, :37]),
        lambda t, v: t.tensor(v).t(),
    ):
        ours = hookgrad.igamma(make(hookgrad, a), make(hookgrad, x))
        theirs = torch.igamma(make(torch, a), make(torch, x))
        _assert_same_bits(ours.numpy(), theirs.numpy())
    ours = hookgrad.igamma(hookgrad.tensor(a[:, :1]), hookgrad.tensor(x[0, :19]))
    _assert_same_bits(
        ours.numpy(), torch.igamma(torch.tensor(a[:, :1]), torch.tensor(x[0, :19])).numpy()
    )


POLYNOMIALS = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_are_torchs_bits(name, dtype, torch):
    """Every degree up to the trigonometric forms and beyond, the interval's ends, the
    shifted ones' 0 and 1, negative, fractional and non-finite degrees (NaN ``x`` is left
    out: torch returns an uninitialised value there)."""
    rng = np.random.default_rng(len(name))
    x = np.concatenate([rng.uniform(-1.2, 1.2, 300), [-1.0, 0.0, 0.5, 1.0, 3.0, INF]])
    n = np.concatenate([rng.integers(-2, 15, 300), [12, 3, 9, 7, 5, 2]]).astype(float)
    n[:8] = [NAN, INF, -INF, 2.7, 600.0, 130.0, -0.5, 9.99]
    x, n = x.astype(dtype), n.astype(dtype)
    ours = getattr(hookgrad.special, name)(hookgrad.tensor(x), hookgrad.tensor(n))
    theirs = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n))
    _assert_same_bits(ours.numpy(), theirs.numpy())


def test_xlogy_family_and_entr_at_zero_and_nan(torch):
    a = [0.0, 0.0, 0.0, 2.0, NAN, -1.0]
    b = [0.0, -1.0, NAN, 0.0, 1.0, -0.5]

    def run(t):
        x, y = t.tensor(a), t.tensor(b)
        return (
            t.special.xlogy(x, y),
            t.special.xlog1py(x, y),
            t.special.xlog1py(2.0, y),
            t.special.xlog1py(x, 0.5),
            t.special.entr(y),
        )

    same(run, torch)


# ---------------------------------------------------------------- dtypes


@pytest.mark.parametrize(
    "call",
    [
        lambda t, x: t.lgamma(x),
        lambda t, x: t.digamma(x),
        lambda t, x: t.polygamma(2, x),
        lambda t, x: t.mvlgamma(x + 2, 2),
        lambda t, x: t.i0(x),
        lambda t, x: t.sinc(x),
        lambda t, x: t.special.i1e(x),
        lambda t, x: t.special.ndtr(x),
        lambda t, x: t.special.ndtri(x),
        lambda t, x: t.special.log_ndtr(x),
        lambda t, x: t.special.erfcx(x),
        lambda t, x: t.special.entr(x),
        lambda t, x: t.special.bessel_j0(x),
        lambda t, x: t.special.airy_ai(x),
        lambda t, x: t.special.chebyshev_polynomial_t(x, 3),
        lambda t, x: t.special.gammainc(x, x),
        lambda t, x: t.special.zeta(x + 1, x),
        lambda t, x: t.special.xlog1py(x, x),
    ],
)
@pytest.mark.parametrize("dtype", ["int64", "bool", "float16", "complex64"])
def test_dtypes_and_refusals_as_torch(call, dtype, torch):
    """Integers and bools in the default float dtype (but ``igamma``'s), float16 through
    float32 (or refused), complex refused: each with torch's error."""

    def run(t):
        values = [1, 0, 3] if dtype != "complex64" else [1 + 1j]
        return call(t, t.tensor(values, dtype=getattr(t, dtype)))

    same(run, torch)


# ---------------------------------------------------------------- gradients


def test_gradients_at_special_points(torch):
    """``i1``'s and ``i1e``'s gradient is 1/2 at 0 (torch's special case), ``sinc``'s 0;
    ``lgamma``'s is ``digamma``, NaN at the poles."""
    values = [0.0, -0.0, 1e-20, 1.0, -2.0, 3.5]

    def run(t):
        x = t.tensor(values, dtype=t.float64, requires_grad=True)
        outputs = [t.special.i1(x), t.special.i1e(x), t.sinc(x), t.lgamma(x), t.special.i0e(x)]
        return [t.autograd.grad(y.sum(), x)[0] for y in outputs]

    same(run, torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda t, a, x: t.igamma(a, x),
        lambda t, a, x: t.special.gammaincc(a, x),
        lambda t, a, x: t.special.zeta(a + 1, x),
        lambda t, a, x: t.special.zeta(a + 1, 2.0),
    ],
)
def test_no_derivative_in_the_first_argument(call, torch):
    """torch has none: the backward raises its error; the second argument's runs."""

    def run(t):
        a = t.tensor([1.5, 2.5], requires_grad=True)
        x = t.tensor([0.5, 3.0], requires_grad=True)
        return t.autograd.grad(call(t, a, x).sum(), a)

    assert outcome(run, hookgrad) == outcome(run, torch)


def test_functions_without_derivative_give_no_history(torch):
    def run(t):
        x = t.tensor([0.5, 2.0], requires_grad=True)
        return [
            t.special.bessel_y1(x),
            t.special.modified_bessel_k1(x),
            t.special.spherical_bessel_j0(x),
            t.special.hermite_polynomial_he(x, 3),
            t.special.legendre_polynomial_p(0.5, x),
        ]

    assert outcome(run, hookgrad) == outcome(run, torch)


# ---------------------------------------------------------------- arguments and errors


@pytest.mark.parametrize(
    "call",
    [
        lambda t, x: t.polygamma(-1, x),
        lambda t, x: t.polygamma(1.0, x),
        lambda t, x: t.polygamma(x, 1),
        lambda t, x: t.mvlgamma(x, 0),
        lambda t, x: t.special.multigammaln(x, 2.0),
        lambda t, x: t.special.gammaln([1.0]),
        lambda t, x: t.special.i0e([1.0]),
        lambda t, x: t.special.gammainc(x, 2.0),
        lambda t, x: t.igamma(2.0, x),
        lambda t, x: t.special.zeta(2.0, 3.0),
        lambda t, x: t.special.xlog1py([1.0], x),
        lambda t, x: t.special.chebyshev_polynomial_t(0.5, 2),
        lambda t, x: t.special.bessel_j0([1.0]),
        lambda t, x: t.special.round(x, decimals=1),
        lambda t, x: t.special.logit(x, 0.25),
        lambda t, x: t.special.polygamma(0, x),
        lambda t, x: t.special.multigammaln(x + 2, 3),
        lambda t, x: t.special.logsumexp(x, 0, keepdim=True),
        lambda t, x: t.special.expit(x),
        lambda t, x: t.special.exp2(x),
    ],
)
def test_arguments_and_errors_as_torch(call, torch):
    def run(t):
        return call(t, t.tensor([0.25, 1.5]))

    assert outcome(run, hookgrad, first_line=True) == outcome(run, torch, first_line=True)


def test_out_argument_as_torch(torch):
    def run(t):
        x = t.tensor([0.25, 1.5])
        results = []
        for call in (
            lambda out: t.special.gammaln(x, out=out),
            lambda out: t.special.i1(x, out=out),
            lambda out: t.special.ndtr(x, out=out),
            lambda out: t.special.zeta(x + 1, x, out=out),
            lambda out: t.special.bessel_j0(x, out=out),
            lambda out: t.special.legendre_polynomial_p(x, 3, out=out),
            lambda out: t.polygamma(1, x, out=out),
            lambda out: t.igammac(x, x, out=out),
        ):
            out = t.empty(2, dtype=t.float64)
            assert call(out) is out
            results.append(out)
        return results

    assert outcome(run, hookgrad) == outcome(run, torch)
    for lib in (hookgrad, torch):
        x = lib.tensor([0.25, 1.5], requires_grad=True)
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            lib.special.i0e(x, out=lib.empty(2))


def test_same_nodes_as_the_torch_names(torch):
    """``torch.special``'s other names record the same nodes as ``torch``'s functions."""

    def run(t):
        x = t.tensor([0.5, 2.0], requires_grad=True)
        calls = (
            t.special.gammaln(x),
            t.special.psi(x),
            t.special.multigammaln(x + 1, 2),
            t.special.gammainc(x.detach(), x),
            t.special.expit(x),
            t.special.round(x),
            t.special.sinc(x),
            t.special.erfinv(x / 4),
            t.special.ndtr(x),
        )
        return [y.grad_fn.name() for y in calls]

    assert outcome(run, hookgrad) == outcome(run, torch)
