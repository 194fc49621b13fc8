"""The activations torch also gives ``Tensor`` as methods: ``x.hardshrink(lambd)`` and
``x.prelu(weight)`` (the nodes of ``hookgrad.ops.activation``; torch's checks)."""

from __future__ import annotations

from typing import Any

from hookgrad.ops import activation as ops
from hookgrad.tensor.dispatch import apply


def hardshrink(input: Any, lambd: float = 0.5) -> Any:
    """``input`` where ``|input| > lambd``, else 0 (``HardshrinkBackward0``).

    Example: ``hookgrad.tensor([0.3, -0.7]).hardshrink()`` is ``tensor([ 0.0000, -0.7000])``.
    """
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"hardshrink_cpu\" not implemented for '{input.dtype.type_name[3:-4]}'"
        )
    return apply(ops.Hardshrink(lambd), input)


def prelu(input: Any, weight: Any) -> Any:
    """``input`` where positive, else ``weight * input``: one slope per channel (dim 1,
    ``weight`` of size ``C``) or one for all (size 1).

    Example: ``hookgrad.tensor([[-1.0, 2.0]]).prelu(hookgrad.tensor([0.25]))`` is
    ``tensor([[-0.2500,  2.0000]])``.
    """
    if input.dtype != weight.dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{input.dtype.type_name[3:-4]} and {weight.dtype.type_name[3:-4]}"
        )
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return apply(ops.PreluKernel(), input, weight)


class ActivationMethods:
    """``Tensor.hardshrink`` and ``Tensor.prelu``."""

    hardshrink = hardshrink
    prelu = prelu
