"""The in-place variants of the pointwise math functions that are not generated from the
derivative table (``floor_``, ``round_``, ``hypot_``, ``xlogy_``, ``lerp_``, ``<<=`` ...),
and ``frexp``.

Each in-place function runs its out-of-place function through the machinery of
``hookgrad.tensor.functions.inplace``: torch's checks (a leaf that requires grad, an
integer tensor that cannot take a float result, overlapping memory), the version bump, and
the node torch records (``hypot_`` records ``HypotBackward0``); a node that saves ``self``
gets a copy of the old value, and one that saves its result saves the tensor itself.

Example::

    x = hookgrad.tensor([1.25, -2.5])
    x.round_(decimals=1)          # tensor([ 1.2000, -2.5000])
    hookgrad.frexp(hookgrad.tensor([8.0]))   # mantissa=tensor([0.5000]), exponent=tensor([4])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookgrad.ops import arithmetic as arithmetic_ops
from hookgrad.ops import special as special_ops
from hookgrad.ops import unary as unary_ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply_arrays, write_inplace
from hookgrad.tensor.functions import arithmetic, unary
from hookgrad.tensor.functions.inplace import (
    inplace_variant,
    prepare_inplace,
    run_inplace,
    run_inplace_op,
)
from hookgrad.tensor.named_tuples import return_type
from hookgrad.tensor.promotion import binary_arrays, float_arrays, is_scalar
from hookgrad.tensor.tensor import Tensor

# The ones torch also has as functions (``torch.floor_(x)``).
__all__ = [
    "ceil_",
    "fix_",
    "floor_",
    "frac_",
    "frexp",
    "gcd_",
    "lcm_",
    "ldexp_",
    "nan_to_num_",
    "round_",
    "square_",
    "trunc_",
    "xlogy_",
]

_FREXP = return_type("frexp", ("mantissa", "exponent"))


def frexp(input: Tensor) -> Any:
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, the mantissa in
    [0.5, 1) in magnitude (0, inf and NaN as they are, exponent 0) and the exponent int32.
    The mantissa's gradient is ``grad / 2 ** exponent``.

    Example: ``hookgrad.frexp(hookgrad.tensor([8.0, -0.75]))`` gives
    ``mantissa=tensor([ 0.5000, -0.7500])``, ``exponent=tensor([4, 0], dtype=torch.int32)``.
    """
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return _FREXP(apply_arrays(arithmetic_ops.Frexp(), (input,), (input._data,)))


# ---------------------------------------------------------------- unary


def _variant(function: Callable[..., Any], copy: bool = False) -> Callable[..., Any]:
    """The in-place variant of ``function(input, *args, **kwargs)``; ``copy``: its node
    saves ``self`` (it gets the old value)."""

    def inplace(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return run_inplace(input, lambda x: function(x, *args, **kwargs), (), copy)

    name = f"{function.__name__}_"
    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = f"``input = {function.__name__}(input)`` in place; returns ``input``."
    return inplace


floor_ = _variant(unary.floor)
ceil_ = _variant(unary.ceil)
trunc_ = _variant(unary.trunc)
fix_ = trunc_
frac_ = _variant(unary.frac)
round_ = _variant(unary.round)
sign_ = _variant(unary.sign)
nan_to_num_ = _variant(unary.nan_to_num, copy=True)
square_ = _variant(unary.square, copy=True)


polygamma_ = inplace_variant(special_ops.PolygammaInplace)
polygamma_.__name__ = polygamma_.__qualname__ = "polygamma_"


def sgn_(input: Tensor) -> Tensor:
    """``input = sgn(input)`` in place (its node saves the tensor as its result)."""
    unary.sgn(input)  # torch's checks first
    return run_inplace_op(input, unary_ops.Sgn(), copy=True)


# ---------------------------------------------------------------- binary


def _binary(
    function: Callable[..., Any], name: str, copy: bool = True
) -> Callable[[Tensor, Any], Tensor]:
    """The in-place variant of a binary ``function(input, other)`` whose node saves its
    operands (``copy``) but not its result."""

    def inplace(input: Tensor, other: Any) -> Tensor:
        return run_inplace(input, function, (other,), copy)

    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = f"``input = {name[:-1]}(input, other)`` in place; returns ``input``."
    return inplace


fmod_ = _binary(arithmetic.fmod, "fmod_", copy=False)
nextafter_ = _binary(arithmetic.nextafter, "nextafter_")
xlogy_ = _binary(unary.xlogy, "xlogy_")
igamma_ = _binary(unary.igamma, "igamma_")
igammac_ = _binary(unary.igammac, "igammac_")
atan2_ = _binary(unary.atan2, "atan2_")


def _saving_result(op: Any, input: Tensor, other: Any, arrays: tuple[Any, Any]) -> Tensor:
    """``input`` updated to ``op`` of ``(input, other)``: the node saves ``self`` (a copy)
    and its result (the tensor itself), as torch's do."""
    return run_inplace_op(input, op, (other,), arrays, copy=True)


def hypot_(input: Tensor, other: Tensor) -> Tensor:
    """``input = hypot(input, other)`` in place; returns ``input``."""
    arithmetic.hypot(input.detach(), other.detach())  # torch's checks first
    return _saving_result(arithmetic_ops.Hypot(), input, other, binary_arrays(input, other))


def copysign_(input: Tensor, other: Any) -> Tensor:
    """``input = copysign(input, other)`` in place; returns ``input``."""
    arithmetic.copysign(input.detach(), other.detach() if isinstance(other, Tensor) else other)
    a, b = float_arrays(input, other)
    if is_scalar(other):
        return run_inplace_op(input, arithmetic_ops.CopysignScalar(b), (), (a,), copy=True)
    return _saving_result(arithmetic_ops.Copysign(), input, other, (a, b))


def ldexp_(input: Tensor, other: Tensor) -> Tensor:
    """``input = ldexp(input, other)`` in place; returns ``input``."""
    return run_inplace(input, arithmetic.ldexp, (other,))


def lerp_(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input = lerp(input, end, weight)`` in place; returns ``input``."""
    return run_inplace(input, unary.lerp, (end, weight))


def float_power_(input: Tensor, exponent: Any) -> Tensor:
    """``input = float_power(input, exponent)`` in place: ``input`` must already have the
    result's dtype (float64, or complex128 for a complex operand)."""
    dtype = arithmetic._float_power_dtype(input, exponent)
    if input.dtype is not dtype:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {dtypes.legacy_name(input.dtype)} but "
            f"the operation's result requires dtype {dtypes.legacy_name(dtype)}"
        )
    return run_inplace(input, arithmetic.float_power, (exponent,), copy=True)


def untracked(function: Callable[..., Any], name: str) -> Callable[[Tensor, Any], Tensor]:
    """The in-place variant of a function torch has no derivative for (integer ops): it
    records nothing."""

    def inplace(input: Tensor, other: Any) -> Tensor:
        prepare_inplace(input, (other,))
        write_inplace(input, function(input, other)._data)
        return input

    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = f"``input = {name[:-1]}(input, other)`` in place; returns ``input``."
    return inplace


gcd_ = untracked(arithmetic.gcd, "gcd_")
lcm_ = untracked(arithmetic.lcm, "lcm_")
bitwise_left_shift_ = untracked(arithmetic.bitwise_left_shift, "bitwise_left_shift_")
bitwise_right_shift_ = untracked(arithmetic.bitwise_right_shift, "bitwise_right_shift_")


def heaviside_(input: Tensor, values: Tensor) -> Tensor:
    """``input = heaviside(input, values)`` in place (torch records its
    ``NotImplemented`` node, for ``aten::heaviside_``)."""
    arithmetic.heaviside(input.detach(), values.detach())  # torch's checks first
    op = arithmetic_ops.Heaviside("heaviside_").edges_for((input, values))
    return run_inplace_op(input, op, (values,), (input._data, values._data))


class PointwiseMethods:
    """In-place pointwise methods of ``Tensor`` (``x.floor_()``, ``x.hypot_(y)``,
    ``x <<= 2``) and ``frexp``."""

    frexp = frexp
    floor_ = floor_
    ceil_ = ceil_
    trunc_ = trunc_
    fix_ = fix_
    frac_ = frac_
    round_ = round_
    sign_ = sign_
    sgn_ = sgn_
    polygamma_ = polygamma_
    nan_to_num_ = nan_to_num_
    square_ = square_
    fmod_ = fmod_
    nextafter_ = nextafter_
    xlogy_ = xlogy_
    igamma_ = igamma_
    igammac_ = igammac_
    atan2_ = atan2_
    arctan2_ = atan2_
    hypot_ = hypot_
    copysign_ = copysign_
    ldexp_ = ldexp_
    lerp_ = lerp_
    float_power_ = float_power_
    gcd_ = gcd_
    lcm_ = lcm_
    bitwise_left_shift_ = bitwise_left_shift_
    bitwise_right_shift_ = bitwise_right_shift_
    __ilshift__ = bitwise_left_shift_
    __irshift__ = bitwise_right_shift_
    heaviside_ = heaviside_
