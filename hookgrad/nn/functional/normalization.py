"""nn.functional: normalization (``batch_norm``, ``layer_norm``, ``group_norm``).

Each is one op (torch's ``NativeBatchNormBackward0``, ``NativeLayerNormBackward0``,
``NativeGroupNormBackward0``); ``batch_norm`` in training also updates the running
statistics in place (without a version bump, as torch's kernel).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookgrad.ops.normalization import NativeBatchNorm, NativeGroupNorm, NativeLayerNorm
from hookgrad.tensor.dispatch import apply

__all__ = ["batch_norm", "group_norm", "layer_norm"]


def batch_norm(
    input: Any,
    running_mean: Any,
    running_var: Any,
    weight: Any = None,
    bias: Any = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Any:
    """Normalize each channel (dim 1) of ``input`` ``(N, C, *)`` over the batch and spatial
    dims, then scale by ``weight`` and shift by ``bias`` (both ``(C,)``, optional).

    In training the batch statistics are used, and ``running_mean`` / ``running_var``
    (if given) move toward them: ``running = (1 - momentum) * running + momentum * batch``
    with the unbiased batch variance. Otherwise the running statistics are used.

    Example: ``batch_norm(x, None, None, training=True)`` standardizes each channel.
    """
    channels = input.shape[1] if input.dim() > 1 else 0
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is not None and stat.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {stat.numel()}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and param.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {param.numel()}")
    if training:
        per_channel = input.numel() // max(channels, 1)
        if per_channel <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
    elif running_mean is None or running_var is None:
        name = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{name} must be defined in evaluation mode")
    op = NativeBatchNorm(training, momentum, eps)
    return apply(op, input, weight, bias, running_mean, running_var)[0]


def layer_norm(
    input: Any,
    normalized_shape: int | Sequence[int],
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
) -> Any:
    """Normalize ``input`` over its last dims (``normalized_shape``), then apply the
    elementwise ``weight`` and ``bias`` (of that shape, optional).

    Example: ``layer_norm(x, x.shape[-1:])`` standardizes each row of ``x``.
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized = [int(n) for n in normalized_shape]
    shape = list(input.shape)
    if not normalized or shape[len(shape) - len(normalized) :] != normalized:
        raise RuntimeError(
            f"Given normalized_shape={normalized}, expected input with shape "
            f"[*, {', '.join(map(str, normalized))}], but got input of size{list(input.shape)}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and list(param.shape) != normalized:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(param.shape)} and normalized_shape = {normalized}"
            )
    return apply(NativeLayerNorm(tuple(normalized), eps), input, weight, bias)[0]


def group_norm(
    input: Any, num_groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Any:
    """Normalize ``input`` ``(N, C, *)`` over each of ``num_groups`` groups of channels
    (with all their spatial positions), then apply per-channel ``weight`` and ``bias``.

    Example: ``group_norm(hookgrad.randn(8, 32, 5, 5), 4)``.
    """
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    channels = input.shape[1]
    if channels % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and (param.dim() != 1 or param.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(param.shape)} and input of shape "
                f"{list(input.shape)}"
            )
    return apply(NativeGroupNorm(num_groups, eps), input, weight, bias)[0]
