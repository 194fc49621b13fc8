"""Batching rules of elementwise ops and losses.

An elementwise kernel broadcasts its operands, so the batch needs no loop at all: each
batched operand gets its logical dims padded (after the batch dim) to the most any
operand has, and the kernel runs once on the whole batch. A loss with a reduction is its
elementwise loss, then that reduced over each example's dims; a loss's backward kernel
(which divides by ``input.numel()`` for a mean) runs on the batched arrays themselves,
NumPy doing the batching (``hookgrad.func.numpy_api``), so that the count is each
example's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookgrad.func.batched import top_level, unwrap
from hookgrad.func.batching.core import (
    aligned,
    forward,
    plain,
    register,
    register_entries,
    with_params,
)
from hookgrad.ops import activation, table
from hookgrad.ops.loss import REDUCTIONS


def pointwise(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """An elementwise op: the kernel once, on operands aligned for broadcasting."""
    return forward(op, aligned(values, flags, arrays)), True


def through_numpy(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """The kernel on the batched arrays themselves: for kernels made of ufuncs (and
    ``size``/``shape``, which are then each example's), NumPy does the batching."""
    level = top_level(arrays)
    result = plain(op, arrays)
    if type(result) is tuple:
        return tuple(unwrap(r, level)[0] for r in result), tuple(
            unwrap(r, level)[1] for r in result
        )
    return unwrap(result, level)


register_entries(
    """add.Tensor sub.Tensor rsub.Scalar neg add.Scalar sub.Scalar mul.Scalar div.Scalar
    mul.Tensor div.Tensor div.Tensor_mode remainder.Tensor remainder.Scalar maximum minimum
    pow.Tensor_Scalar pow.Tensor_Tensor pow.Scalar where.self fmod.Tensor fmod.Scalar fmax
    fmin logaddexp logaddexp2 hypot copysign.Tensor copysign.Scalar nextafter ldexp.Tensor
    erf erfc erfinv lgamma digamma polygamma polygamma_ mvlgamma i0 special_i0e special_i1
    special_i1e special_ndtri special_log_ndtr special_erfcx igamma igammac special_zeta
    special_zeta.self_scalar special_zeta.other_scalar special_entr sinc atan2 xlogy.Tensor
    xlogy.Scalar_Self xlogy.Scalar_Other special_xlog1py special_xlog1py.self_scalar
    special_xlog1py.other_scalar lerp.Scalar lerp.Tensor exp exp2 expm1 log log2 log10 log1p
    sqrt rsqrt reciprocal abs sign sgn angle deg2rad rad2deg sin cos tan asin acos atan sinh
    cosh tanh asinh acosh atanh tanh_backward sigmoid sigmoid_backward relu
    threshold_backward logit clamp clamp_min clamp_max clamp.Tensor clamp_min.Tensor
    clamp_max.Tensor floor ceil trunc round round.decimals frac nan_to_num addcmul addcdiv
    leaky_relu leaky_relu_ leaky_relu_backward elu elu_ elu_backward gelu gelu_backward silu
    softplus softplus_backward hardtanh hardtanh_backward hardsigmoid hardswish
    hardswish_backward mish celu celu_ softshrink softshrink_backward hardshrink
    hardshrink_backward threshold threshold_ log_sigmoid_backward rrelu_with_noise_backward
    conj_physical""",
    pointwise,
)

register(activation.PreluKernel, activation.PreluKernelBackward)(pointwise)

# ---------------------------------------------------------------- losses

_NONE, _MEAN, _SUM = REDUCTIONS["none"], REDUCTIONS["mean"], REDUCTIONS["sum"]


def reduced_loss(op: Any, values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> Any:
    """A loss: elementwise without reduction, then each example's mean or sum (over its
    flattened dims, as torch's batching rule reduces)."""
    values = aligned(values, flags, arrays)
    if op.reduction == _NONE:
        return forward(op, values), True
    loss = forward(with_params(op, reduction=_NONE), values)
    size = next(v.shape[0] for v, f in zip(values, flags) if f)
    rows = loss.reshape(size, -1)
    name = "mean.dim" if op.reduction == _MEAN else "sum.dim_IntList"
    return forward(table.ENTRIES[name](dim=(1,), keepdim=False, dtype=None), [rows]), True


register_entries(
    """mse_loss smooth_l1_loss huber_loss binary_cross_entropy binary_cross_entropy_with_logits
    soft_margin_loss""",
    reduced_loss,
)
register_entries(
    """mse_loss_backward smooth_l1_loss_backward huber_loss_backward
    binary_cross_entropy_backward soft_margin_loss_backward""",
    through_numpy,
)
