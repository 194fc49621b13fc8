"""``hookgrad.special``: torch's ``torch.special``, the special functions.

The gamma family (``gammaln``, ``digamma``/``psi``, ``polygamma``, ``multigammaln``,
``gammainc``, ``gammaincc``), the error functions and the normal distribution (``erf``,
``erfc``, ``erfcx``, ``erfinv``, ``ndtr``, ``ndtri``, ``log_ndtr``), Bessel functions
(``i0``, ``i0e``, ``i1``, ``i1e``, ``bessel_j0`` ... ``airy_ai``), the orthogonal
polynomials (``chebyshev_polynomial_t`` ...), and ``entr``, ``expit``, ``logit``, ``exp2``,
``expm1``, ``log1p``, ``sinc``, ``round``, ``softmax``, ``log_softmax``, ``logsumexp``,
``xlogy``, ``xlog1py``, ``zeta``.

Each function takes torch's arguments (``out=`` included), computes integer tensors in the
default float dtype, and gives torch's values (torch's algorithms, ``hookgrad.ops.kernels``),
gradients and errors. Where a function is also in ``hookgrad`` (``gammaln`` is
``hookgrad.lgamma``) it records the same node. Example::

    import hookgrad as torch

    x = torch.tensor([0.5, 2.0], requires_grad=True)
    y = torch.special.gammaln(x)          # tensor([0.5724, 0.0000], grad_fn=<LgammaBackward0>)
    y.sum().backward()
    print(x.grad)                         # digamma: tensor([-1.9635,  0.4228])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.ops import arithmetic as arithmetic_ops
from hookgrad.ops import special as ops
from hookgrad.ops.kernels import bessel, modified_bessel, polynomials
from hookgrad.ops.strides import elementwise_layout
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply_arrays, wrap_constant
from hookgrad.tensor.functions import generated, reduction, unary
from hookgrad.tensor.functions.generated import check_out, write_out
from hookgrad.tensor.promotion import float_arrays, is_scalar
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]


def _check_tensor(value: Any, name: str, argument: str = "input", position: int = 1) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"special_{name}(): argument '{argument}' (position {position}) must be Tensor, "
            f"not {type(value).__name__}"
        )


def _with_out(result: Any, out: Any, name: str, inputs: tuple[Any, ...]) -> Any:
    if out is None:
        return result
    check_out(f"special_{name}", inputs, out)
    return write_out(result, out)


def _unary(name: str, implementation: Callable[..., Any], doc: str) -> Callable[..., Any]:
    """``torch.special.<name>(input, *, out=None)`` computed by ``implementation`` (a
    hookgrad function that takes ``out=``), with torch's ``special_<name>`` errors."""

    def function(input: Any, *, out: Any = None) -> Any:
        _check_tensor(input, name)
        return implementation(input, out=out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _entry(name: str, cls: Any, doc: str) -> Callable[..., Any]:
    """``torch.special.<name>`` for a one-tensor entry of the table (``special_entr`` ...)."""
    return _unary(name, generated.public(cls), doc)


# ---------------------------------------------------------------- the gamma family

gammaln = _unary(
    "gammaln",
    generated.FUNCTIONS["lgamma"],
    """``log|Gamma(input)|``, elementwise (``hookgrad.lgamma``).

    Example: ``special.gammaln(hookgrad.tensor([0.5, 3.0]))`` is ``tensor([0.5724, 0.6931])``.
    """,
)
digamma = _unary(
    "digamma",
    generated.FUNCTIONS["digamma"],
    """The digamma function ``d/dx log Gamma(x)``, elementwise (``hookgrad.digamma``):
    -inf at +0, NaN at the negative integers.

    Example: ``special.digamma(hookgrad.tensor([1.0]))`` is ``tensor([-0.5772])``.
    """,
)
psi = _unary(
    "psi",
    generated.FUNCTIONS["digamma"],
    """The digamma function, elementwise: another name for ``special.digamma``.

    Example: ``special.psi(hookgrad.tensor([1.0]))`` is ``tensor([-0.5772])``.
    """,
)


def polygamma(n: int, input: Any, *, out: Any = None) -> Any:
    """The ``n``-th derivative of the digamma function, elementwise (``n >= 0``), as
    ``hookgrad.polygamma``.

    Example: ``special.polygamma(1, hookgrad.tensor([1.0]))`` is ``pi^2/6``, ``tensor([1.6449])``.
    """
    _check_tensor(input, "polygamma", position=2)
    return unary.polygamma(n, input, out=out)


def multigammaln(input: Any, p: int, *, out: Any = None) -> Any:
    """The multivariate log-gamma function of dimension ``p`` (``p >= 1``), elementwise:
    ``p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(input - j / 2)`` (``hookgrad.mvlgamma``).

    Example: ``special.multigammaln(hookgrad.tensor([2.5]), 2)`` is ``tensor([1.2989])``.
    """
    _check_tensor(input, "multigammaln")
    if type(p) is not int:
        raise TypeError(
            f"special_multigammaln(): argument 'p' (position 2) must be int, not {type(p).__name__}"
        )
    return generated.FUNCTIONS["mvlgamma"](input, p, out=out)


def gammainc(input: Any, other: Any, *, out: Any = None) -> Any:
    """The regularised lower incomplete gamma function ``P(a, x)`` with ``a = input`` and
    ``x = other`` (broadcast), as ``hookgrad.igamma``; differentiable in ``other`` only.

    Example: ``special.gammainc(hookgrad.tensor([1.0]), hookgrad.tensor([2.0]))`` is
    ``1 - e^-2``, ``tensor([0.8647])``.
    """
    _check_tensor(input, "gammainc")
    _check_tensor(other, "gammainc", "other", 2)
    return unary.igamma(input, other, out=out)


def gammaincc(input: Any, other: Any, *, out: Any = None) -> Any:
    """The regularised upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``, as
    ``hookgrad.igammac``; differentiable in ``other`` only.

    Example: ``special.gammaincc(hookgrad.tensor([1.0]), hookgrad.tensor([2.0]))`` is
    ``e^-2``, ``tensor([0.1353])``.
    """
    _check_tensor(input, "gammaincc")
    _check_tensor(other, "gammaincc", "other", 2)
    return unary.igammac(input, other, out=out)


# ---------------------------------------------------------------- error functions

erf = _unary(
    "erf",
    generated.FUNCTIONS["erf"],
    """The error function ``2/sqrt(pi) integral_0^x exp(-t^2) dt``, elementwise.

    Example: ``special.erf(hookgrad.tensor([0.5]))`` is ``tensor([0.5205])``.
    """,
)
erfc = _unary(
    "erfc",
    generated.FUNCTIONS["erfc"],
    """The complementary error function ``1 - erf(x)``, elementwise.

    Example: ``special.erfc(hookgrad.tensor([0.5]))`` is ``tensor([0.4795])``.
    """,
)
erfinv = _unary(
    "erfinv",
    generated.FUNCTIONS["erfinv"],
    """The inverse error function, elementwise: ``±inf`` at ``±1``, NaN beyond.

    Example: ``special.erfinv(hookgrad.tensor([0.5]))`` is ``tensor([0.4769])``.
    """,
)
erfcx = _entry(
    "erfcx",
    ops.SpecialErfcx,
    """The scaled complementary error function ``exp(x^2) erfc(x)``, elementwise (finite
    where ``erfc`` underflows).

    Example: ``special.erfcx(hookgrad.tensor([0.0, 1.0]))`` is ``tensor([1.0000, 0.4276])``.
    """,
)
ndtri = _entry(
    "ndtri",
    ops.SpecialNdtri,
    """The inverse of the standard normal distribution function (its quantile function),
    elementwise: -inf at 0, inf at 1, NaN outside [0, 1].

    Example: ``special.ndtri(hookgrad.tensor([0.5, 0.975]))`` is ``tensor([0.0000, 1.9600])``.
    """,
)
log_ndtr = _entry(
    "log_ndtr",
    ops.SpecialLogNdtr,
    """The logarithm of the standard normal distribution function, elementwise, accurate
    far in the lower tail.

    Example: ``special.log_ndtr(hookgrad.tensor([0.0]))`` is ``log(1/2)``, ``tensor([-0.6931])``.
    """,
)


def ndtr(input: Any, *, out: Any = None) -> Any:
    """The standard normal distribution function ``(1 + erf(x / sqrt(2))) / 2``,
    elementwise (torch's composite: its nodes are ``MulBackward1``, ``ErfBackward0``,
    ``AddBackward1``, ``MulBackward1``).

    Example: ``special.ndtr(hookgrad.tensor([0.0, 1.0]))`` is ``tensor([0.5000, 0.8413])``.
    """
    _check_tensor(input, "ndtr")
    data = input._data
    if data.dtype.kind in "biu":
        data = data.astype(dtypes.get_default_dtype().np)
    scaled = apply_arrays(arithmetic_ops.MulScalar(math.sqrt(0.5)), (input,), (data,))
    shifted = _scalar_op(arithmetic_ops.AddScalar(1), generated.FUNCTIONS["erf"](scaled))
    result = _scalar_op(arithmetic_ops.MulScalar(0.5), shifted)
    return _with_out(result, out, "ndtr", (input,))


def _scalar_op(op: Any, tensor: Any) -> Any:
    return apply_arrays(op, (tensor,), (tensor._data,))


# ---------------------------------------------------------------- modified Bessel functions

i0 = _unary(
    "i0",
    generated.FUNCTIONS["i0"],
    """The modified Bessel function of the first kind of order 0, elementwise
    (``hookgrad.i0``).

    Example: ``special.i0(hookgrad.tensor([0.0, 1.0]))`` is ``tensor([1.0000, 1.2661])``.
    """,
)
i0e = _entry(
    "i0e",
    ops.SpecialI0E,
    """The exponentially scaled modified Bessel function of order 0,
    ``exp(-|x|) i0(x)``, elementwise.

    Example: ``special.i0e(hookgrad.tensor([1.0]))`` is ``tensor([0.4658])``.
    """,
)
i1 = _entry(
    "i1",
    ops.SpecialI1,
    """The modified Bessel function of the first kind of order 1, elementwise.

    Example: ``special.i1(hookgrad.tensor([1.0]))`` is ``tensor([0.5652])``.
    """,
)
i1e = _entry(
    "i1e",
    ops.SpecialI1E,
    """The exponentially scaled modified Bessel function of order 1,
    ``exp(-|x|) i1(x)``, elementwise.

    Example: ``special.i1e(hookgrad.tensor([1.0]))`` is ``tensor([0.2079])``.
    """,
)

# ---------------------------------------------------------------- elementary functions

entr = _entry(
    "entr",
    ops.SpecialEntr,
    """The elementwise entropy term ``-x log(x)``: 0 at 0, -inf below 0.

    Example: ``special.entr(hookgrad.tensor([0.5, 0.0]))`` is ``tensor([0.3466, 0.0000])``.
    """,
)
expit = _unary(
    "expit",
    generated.FUNCTIONS["sigmoid"],
    """The logistic function ``1 / (1 + exp(-x))``, elementwise (``hookgrad.sigmoid``).

    Example: ``special.expit(hookgrad.tensor([0.0]))`` is ``tensor([0.5000])``.
    """,
)
exp2 = _unary(
    "exp2",
    generated.FUNCTIONS["exp2"],
    """``2 ** x``, elementwise.

    Example: ``special.exp2(hookgrad.tensor([3.0]))`` is ``tensor([8.])``.
    """,
)
expm1 = _unary(
    "expm1",
    generated.FUNCTIONS["expm1"],
    """``exp(x) - 1``, elementwise, accurate near 0.

    Example: ``special.expm1(hookgrad.tensor([1e-10]))`` is ``tensor([1.0000e-10])``.
    """,
)
log1p = _unary(
    "log1p",
    generated.FUNCTIONS["log1p"],
    """``log(1 + x)``, elementwise, accurate near 0.

    Example: ``special.log1p(hookgrad.tensor([1e-10]))`` is ``tensor([1.0000e-10])``.
    """,
)
sinc = _unary(
    "sinc",
    generated.FUNCTIONS["sinc"],
    """The normalised sinc function ``sin(pi x) / (pi x)``, 1 at 0, elementwise.

    Example: ``special.sinc(hookgrad.tensor([0.0, 0.5]))`` is ``tensor([1.0000, 0.6366])``.
    """,
)


def logit(input: Any, eps: float | None = None, *, out: Any = None) -> Any:
    """``log(p / (1 - p))``, elementwise; with ``eps``, ``p`` is first clamped to
    ``[eps, 1 - eps]`` (``hookgrad.logit``).

    Example: ``special.logit(hookgrad.tensor([0.25]))`` is ``tensor([-1.0986])``.
    """
    _check_tensor(input, "logit")
    return generated.FUNCTIONS["logit"](input, eps, out=out)


def round(input: Any, *, decimals: int = 0, out: Any = None) -> Any:  # noqa: A001
    """Rounds to ``decimals`` digits after the point (halves to even), elementwise, as
    ``hookgrad.round(input, decimals=decimals)``; zero gradient (``RoundBackward1``).

    Example: ``special.round(hookgrad.tensor([1.25, 2.5]), decimals=1)`` is
    ``tensor([1.2000, 2.5000])``.
    """
    _check_tensor(input, "round")
    result = unary.round(input, decimals=decimals)
    return _with_out(result, out, "round", (input,))


def xlogy(input: Any, other: Any, *, out: Any = None) -> Any:
    """``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is NaN); either
    may be a Python number (``hookgrad.xlogy``).

    Example: ``special.xlogy(hookgrad.tensor([0.0, 2.0]), 0.0)`` is ``tensor([0., -inf])``.
    """
    return _with_out(unary.xlogy(input, other), out, "xlogy", (input, other))


def _binary(name: str, input: Any, other: Any) -> tuple[Any, Any]:
    """The two operands' arrays in their promoted floating dtype; one may be a number."""
    operands = (input, other)
    if not any(isinstance(v, Tensor) for v in operands) or not all(
        isinstance(v, Tensor) or is_scalar(v) for v in operands
    ):
        got = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in operands)
        raise TypeError(
            f"special_{name}() received an invalid combination of arguments - got ({got}), "
            "but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Number self, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)\n"
        )
    return float_arrays(input, other)


def xlog1py(input: Any, other: Any, *, out: Any = None) -> Any:
    """``input * log1p(other)``, 0 where ``input == 0`` (unless ``other`` is NaN); either
    may be a Python number. The gradient for ``input`` is 0 where ``input == 0`` and
    ``other <= -1``.

    Example: ``special.xlog1py(hookgrad.tensor([2.0]), hookgrad.tensor([1.0]))`` is
    ``2 log 2``, ``tensor([1.3863])``.
    """
    a, b = _binary("xlog1py", input, other)
    if is_scalar(input):
        result = apply_arrays(ops.SpecialXlog1pyNumberSelf(input), (other,), (b,))
    elif is_scalar(other):
        result = apply_arrays(ops.SpecialXlog1pyNumberOther(other), (input,), (a,))
    else:
        result = apply_arrays(ops.SpecialXlog1py(), (input, other), (a, b))
    return _with_out(result, out, "xlog1py", (input, other))


def zeta(input: Any, other: Any, *, out: Any = None) -> Any:
    """The Hurwitz zeta function ``sum_{k >= 0} (k + other)^-input``, elementwise and
    broadcast; either argument may be a Python number. Differentiable in ``other`` only.

    Example: ``special.zeta(hookgrad.tensor([2.0]), 1.0)`` is ``pi^2/6``, ``tensor([1.6449])``.
    """
    a, b = _binary("zeta", input, other)
    if is_scalar(input):
        result = apply_arrays(ops.SpecialZetaNumberSelf(input), (other,), (b,))
    elif is_scalar(other):
        result = apply_arrays(ops.SpecialZetaNumberOther(other), (input,), (a,))
    else:
        result = apply_arrays(ops.SpecialZeta(), (input, other), (a, b))
    return _with_out(result, out, "zeta", (input, other))


# ---------------------------------------------------------------- reductions


def logsumexp(input: Any, dim: Any, keepdim: bool = False, *, out: Any = None) -> Any:
    """``log(sum(exp(input), dim))``, computed stably (``hookgrad.logsumexp``).

    Example: ``special.logsumexp(hookgrad.tensor([0.0, 0.0]), 0)`` is ``log 2``,
    ``tensor(0.6931)``.
    """
    _check_tensor(input, "logsumexp")
    result = reduction.logsumexp(input, dim, keepdim)
    return _with_out(result, out, "logsumexp", (input,))


def softmax(input: Any, dim: int, dtype: Any = None) -> Any:
    """``exp(x) / sum(exp(x))`` along ``dim``, computed in ``dtype`` if given
    (``hookgrad.softmax``).

    Example: ``special.softmax(hookgrad.tensor([0.0, 0.0]), 0)`` is ``tensor([0.5000, 0.5000])``.
    """
    _check_tensor(input, "softmax")
    return reduction.softmax(input, dim, dtype)


def log_softmax(input: Any, dim: int, dtype: Any = None) -> Any:
    """``log(softmax(x))`` along ``dim``, computed in ``dtype`` if given
    (``hookgrad.log_softmax``).

    Example: ``special.log_softmax(hookgrad.tensor([0.0, 0.0]), 0)`` is
    ``tensor([-0.6931, -0.6931])``.
    """
    _check_tensor(input, "log_softmax")
    return reduction.log_softmax(input, dim, dtype)


# ---------------------------------------------------------------- Bessel and Airy functions
# torch has no derivative for these: the result never requires grad.


def _no_kernel(name: str, dtype: Any) -> NotImplementedError:
    type_name = dtypes.legacy_name(dtypes.from_numpy_dtype(dtype))
    return NotImplementedError(f"\"{name}_cpu\" not implemented for '{type_name}'")


def _floating(name: str, *arrays: Any) -> tuple[Any, ...]:
    """The arrays in their (promoted) float32 or float64 dtype; torch's kernels refuse
    complex and float16 ones."""
    dtype = arrays[0].dtype
    if dtype.kind != "f" or dtype.itemsize < 4:
        raise _no_kernel(name, dtype)
    return arrays


def _not_differentiable(name: str, kernel: Callable[..., Any], doc: str) -> Callable[..., Any]:
    """``torch.special.<name>(input, *, out=None)`` for a function torch does not
    differentiate, computed by ``kernel`` on float32 or float64 arrays."""

    def function(input: Any, *, out: Any = None) -> Any:
        _check_tensor(input, name)
        data = input._data
        if data.dtype.kind in "biu":
            data = data.astype(dtypes.get_default_dtype().np)
        (data,) = _floating(name, data)
        result = wrap_constant(elementwise_layout(kernel(data), (data,)))
        if out is None:
            return result
        return write_out(result, out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


bessel_j0 = _not_differentiable(
    "bessel_j0",
    bessel.bessel_j0,
    """The Bessel function of the first kind of order 0, elementwise (not differentiable).

    Example: ``special.bessel_j0(hookgrad.tensor([0.0, 1.0]))`` is ``tensor([1.0000, 0.7652])``.
    """,
)
bessel_j1 = _not_differentiable(
    "bessel_j1",
    bessel.bessel_j1,
    """The Bessel function of the first kind of order 1, elementwise (not differentiable).

    Example: ``special.bessel_j1(hookgrad.tensor([1.0]))`` is ``tensor([0.4401])``.
    """,
)
bessel_y0 = _not_differentiable(
    "bessel_y0",
    bessel.bessel_y0,
    """The Bessel function of the second kind of order 0, elementwise: -inf at 0, NaN for
    negative input (not differentiable).

    Example: ``special.bessel_y0(hookgrad.tensor([1.0]))`` is ``tensor([0.0883])``.
    """,
)
bessel_y1 = _not_differentiable(
    "bessel_y1",
    bessel.bessel_y1,
    """The Bessel function of the second kind of order 1, elementwise: -inf at 0, NaN for
    negative input (not differentiable).

    Example: ``special.bessel_y1(hookgrad.tensor([1.0]))`` is ``tensor([-0.7812])``.
    """,
)
modified_bessel_i0 = _not_differentiable(
    "modified_bessel_i0",
    modified_bessel.modified_bessel_i0,
    """The modified Bessel function of the first kind of order 0, elementwise (not
    differentiable; ``special.i0`` is).

    Example: ``special.modified_bessel_i0(hookgrad.tensor([1.0]))`` is ``tensor([1.2661])``.
    """,
)
modified_bessel_i1 = _not_differentiable(
    "modified_bessel_i1",
    modified_bessel.modified_bessel_i1,
    """The modified Bessel function of the first kind of order 1, elementwise (not
    differentiable; ``special.i1`` is).

    Example: ``special.modified_bessel_i1(hookgrad.tensor([1.0]))`` is ``tensor([0.5652])``.
    """,
)
modified_bessel_k0 = _not_differentiable(
    "modified_bessel_k0",
    modified_bessel.modified_bessel_k0,
    """The modified Bessel function of the second kind of order 0, elementwise: inf at 0,
    NaN for negative input (not differentiable).

    Example: ``special.modified_bessel_k0(hookgrad.tensor([1.0]))`` is ``tensor([0.4210])``.
    """,
)
modified_bessel_k1 = _not_differentiable(
    "modified_bessel_k1",
    modified_bessel.modified_bessel_k1,
    """The modified Bessel function of the second kind of order 1, elementwise: inf at 0,
    NaN for negative input (not differentiable).

    Example: ``special.modified_bessel_k1(hookgrad.tensor([1.0]))`` is ``tensor([0.6019])``.
    """,
)
scaled_modified_bessel_k0 = _not_differentiable(
    "scaled_modified_bessel_k0",
    modified_bessel.scaled_modified_bessel_k0,
    """``exp(x) modified_bessel_k0(x)``, elementwise (not differentiable).

    Example: ``special.scaled_modified_bessel_k0(hookgrad.tensor([1.0]))`` is
    ``tensor([1.1445])``.
    """,
)
scaled_modified_bessel_k1 = _not_differentiable(
    "scaled_modified_bessel_k1",
    modified_bessel.scaled_modified_bessel_k1,
    """``exp(x) modified_bessel_k1(x)``, elementwise (not differentiable).

    Example: ``special.scaled_modified_bessel_k1(hookgrad.tensor([1.0]))`` is
    ``tensor([1.6362])``.
    """,
)
spherical_bessel_j0 = _not_differentiable(
    "spherical_bessel_j0",
    bessel.spherical_bessel_j0,
    """The spherical Bessel function of the first kind of order 0, ``sin(x) / x``,
    elementwise (not differentiable).

    Example: ``special.spherical_bessel_j0(hookgrad.tensor([1.0]))`` is ``tensor([0.8415])``.
    """,
)
airy_ai = _not_differentiable(
    "airy_ai",
    bessel.airy_ai,
    """The Airy function ``Ai(x)``, elementwise (not differentiable).

    Example: ``special.airy_ai(hookgrad.tensor([0.0]))`` is ``tensor([0.3550])``.
    """,
)

# ---------------------------------------------------------------- orthogonal polynomials


def _polynomial(name: str, kernel: Callable[..., Any], doc: str) -> Callable[..., Any]:
    """``torch.special.<name>(input, n, *, out=None)``: the polynomial of degree ``n`` at
    ``input`` (either may be a number, not both), not differentiable."""
    full = f"special_{name}"

    def function(input: Any, n: Any, *, out: Any = None) -> Any:
        if not (isinstance(input, Tensor) or isinstance(n, Tensor)) or not all(
            isinstance(v, Tensor) or is_scalar(v) for v in (input, n)
        ):
            got = ", ".join(
                "Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in (input, n)
            )
            raise TypeError(
                f"{full}() received an invalid combination of arguments - got ({got}), but "
                "expected one of:\n * (Tensor input, Tensor n, *, Tensor out = None)\n"
                " * (Number x, Tensor n, *, Tensor out = None)\n"
                " * (Tensor input, Number n, *, Tensor out = None)\n"
            )
        x, degree = (np.asarray(v) for v in float_arrays(input, n))
        x, degree = _floating(name, *np.broadcast_arrays(x, degree.astype(x.dtype)))
        result = wrap_constant(elementwise_layout(kernel(x, degree), (x, degree)))
        if out is None:
            return result
        return write_out(result, out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


chebyshev_polynomial_t = _polynomial(
    "chebyshev_polynomial_t",
    polynomials.chebyshev_t,
    """Chebyshev's polynomial of the first kind ``T_n(input)`` (``cos(n acos x)`` on
    [-1, 1]), elementwise and broadcast; ``n`` is truncated to an integer (0 below 0).

    Example: ``special.chebyshev_polynomial_t(hookgrad.tensor([0.5]), 3)`` is ``tensor([-1.])``.
    """,
)
chebyshev_polynomial_u = _polynomial(
    "chebyshev_polynomial_u",
    polynomials.chebyshev_u,
    """Chebyshev's polynomial of the second kind ``U_n(input)``, elementwise.

    Example: ``special.chebyshev_polynomial_u(hookgrad.tensor([0.5]), 2)`` is ``tensor([0.])``.
    """,
)
chebyshev_polynomial_v = _polynomial(
    "chebyshev_polynomial_v",
    polynomials.chebyshev_v,
    """Chebyshev's polynomial of the third kind ``V_n(input)``, elementwise.

    Example: ``special.chebyshev_polynomial_v(hookgrad.tensor([0.5]), 2)`` is ``tensor([-1.])``.
    """,
)
chebyshev_polynomial_w = _polynomial(
    "chebyshev_polynomial_w",
    polynomials.chebyshev_w,
    """Chebyshev's polynomial of the fourth kind ``W_n(input)``, elementwise.

    Example: ``special.chebyshev_polynomial_w(hookgrad.tensor([0.5]), 2)`` is ``tensor([1.])``.
    """,
)
shifted_chebyshev_polynomial_t = _polynomial(
    "shifted_chebyshev_polynomial_t",
    polynomials.shifted_chebyshev_t,
    """``T_n(2 input - 1)``, Chebyshev's first kind on [0, 1], elementwise.

    Example: ``special.shifted_chebyshev_polynomial_t(hookgrad.tensor([0.25]), 2)`` is
    ``tensor([-0.5000])``.
    """,
)
shifted_chebyshev_polynomial_u = _polynomial(
    "shifted_chebyshev_polynomial_u",
    polynomials.shifted_chebyshev_u,
    """``U_n(2 input - 1)``, Chebyshev's second kind on [0, 1], elementwise.

    Example: ``special.shifted_chebyshev_polynomial_u(hookgrad.tensor([0.25]), 2)`` is
    ``tensor([0.])``.
    """,
)
shifted_chebyshev_polynomial_v = _polynomial(
    "shifted_chebyshev_polynomial_v",
    polynomials.shifted_chebyshev_v,
    """``V_n(2 input - 1)``, Chebyshev's third kind on [0, 1], elementwise.

    Example: ``special.shifted_chebyshev_polynomial_v(hookgrad.tensor([0.25]), 2)`` is
    ``tensor([1.])``.
    """,
)
shifted_chebyshev_polynomial_w = _polynomial(
    "shifted_chebyshev_polynomial_w",
    polynomials.shifted_chebyshev_w,
    """``W_n(2 input - 1)``, Chebyshev's fourth kind on [0, 1], elementwise.

    Example: ``special.shifted_chebyshev_polynomial_w(hookgrad.tensor([0.25]), 2)`` is
    ``tensor([-1.])``.
    """,
)
hermite_polynomial_h = _polynomial(
    "hermite_polynomial_h",
    polynomials.hermite_h,
    """The physicists' Hermite polynomial ``H_n(input)``, elementwise (NaN past degree 128
    in float32, 512 in float64).

    Example: ``special.hermite_polynomial_h(hookgrad.tensor([0.5]), 3)`` is ``tensor([-5.])``.
    """,
)
hermite_polynomial_he = _polynomial(
    "hermite_polynomial_he",
    polynomials.hermite_he,
    """The probabilists' Hermite polynomial ``He_n(input)``, elementwise.

    Example: ``special.hermite_polynomial_he(hookgrad.tensor([0.5]), 3)`` is
    ``tensor([-1.3750])``.
    """,
)
laguerre_polynomial_l = _polynomial(
    "laguerre_polynomial_l",
    polynomials.laguerre_l,
    """Laguerre's polynomial ``L_n(input)``, elementwise.

    Example: ``special.laguerre_polynomial_l(hookgrad.tensor([0.5]), 2)`` is
    ``tensor([0.1250])``.
    """,
)
legendre_polynomial_p = _polynomial(
    "legendre_polynomial_p",
    polynomials.legendre_p,
    """Legendre's polynomial ``P_n(input)``, elementwise.

    Example: ``special.legendre_polynomial_p(hookgrad.tensor([0.5]), 2)`` is
    ``tensor([-0.1250])``.
    """,
)
