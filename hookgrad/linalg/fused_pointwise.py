"""torch's fused pointwise products ``addcmul`` (``input + value * tensor1 * tensor2``) and
``addcdiv`` (``input + value * tensor1 / tensor2``) and their in-place forms, with
torch's broadcasting, dtype checks, node names (``AddcmulBackward0`` ...) and errors;
``hookgrad.tensor.functions.linalg`` exports them with their ``Tensor`` methods.

Example: ``hookgrad.addcmul(hookgrad.zeros(2), hookgrad.ones(2), hookgrad.ones(2),
value=3)`` is ``tensor([3., 3.])``.
"""

from __future__ import annotations

from typing import Any

from hookgrad.linalg.checks import (
    check_tensor,
    with_out,
)
from hookgrad.ops import linalg as linalg_ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, broadcast_shapes
from hookgrad.tensor.functions.inplace import run_inplace_op

__all__ = ["addcdiv", "addcmul"]


# ---------------------------------------------------------------- addcmul / addcdiv


def _addc(name: str, op_class: Any, input: Any, tensor1: Any, tensor2: Any, value: Any) -> Any:
    _check_addc(name, input, tensor1, tensor2)
    dtype = dtypes.result_type(input, tensor1, tensor2)
    tensors = [x if x.dtype is dtype else x.to(dtype) for x in (input, tensor1, tensor2)]
    return apply(op_class(value), *tensors)


def _check_addc(name: str, input: Any, tensor1: Any, tensor2: Any) -> None:
    for position, (arg, tensor) in enumerate(
        (("input", input), ("tensor1", tensor1), ("tensor2", tensor2))
    ):
        check_tensor(tensor, name, arg, position + 1)
    if name == "addcdiv":
        kinds = {tensor1._data.dtype.kind, tensor2._data.dtype.kind}
        if kinds <= set("biu"):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
    broadcast_shapes(input._data.shape, tensor1._data.shape, tensor2._data.shape)


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1, out: Any = None) -> Any:
    """``input + value * tensor1 * tensor2`` (broadcast), in one kernel.

    Example: ``hookgrad.addcmul(hookgrad.ones(2), hookgrad.tensor([2.0, 3.0]),
    hookgrad.tensor([4.0, 5.0]), value=0.5)`` is ``tensor([5.0000, 8.5000])``.
    """
    result = _addc("addcmul", linalg_ops.Addcmul, input, tensor1, tensor2, value)
    return with_out("addcmul", (input, tensor1, tensor2), result, out)


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1, out: Any = None) -> Any:
    """``input + value * tensor1 / tensor2`` (broadcast), in one kernel (as optimizers'
    ``p.addcdiv_(exp_avg, denom, value=-lr)``).

    Example: ``hookgrad.addcdiv(hookgrad.zeros(2), hookgrad.tensor([1.0, 4.0]),
    hookgrad.tensor([2.0, 2.0]))`` is ``tensor([0.5000, 2.0000])``.
    """
    result = _addc("addcdiv", linalg_ops.Addcdiv, input, tensor1, tensor2, value)
    return with_out("addcdiv", (input, tensor1, tensor2), result, out)


def _addc_(name: str, op_class: Any, input: Any, tensor1: Any, tensor2: Any, value: Any) -> Any:
    """``input`` updated in place, computed in the promoted dtype (then cast back, or
    refused as torch refuses a float result in an integer tensor)."""
    _check_addc(name, input, tensor1, tensor2)
    dtype = dtypes.result_type(input, tensor1, tensor2)
    others = tuple(x if x.dtype is dtype else x.to(dtype) for x in (tensor1, tensor2))
    arrays = (input._data.astype(dtype.np, copy=False), *(x._data for x in others))
    return run_inplace_op(input, op_class(value), others, arrays)


def addcmul_(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
    """:func:`addcmul` in place."""
    return _addc_("addcmul", linalg_ops.Addcmul, input, tensor1, tensor2, value)


def addcdiv_(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
    """:func:`addcdiv` in place."""
    return _addc_("addcdiv", linalg_ops.Addcdiv, input, tensor1, tensor2, value)
