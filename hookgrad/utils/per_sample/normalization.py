"""Per-example gradients of the normalization layers with an affine ``weight`` and
``bias``: ``LayerNorm``, ``GroupNorm``, ``InstanceNorm1d/2d/3d``, ``RMSNorm`` and
``BatchNorm*`` in eval mode (training-mode batch norm mixes the examples of a batch and is
refused, see ``registry.py``). Each is ``y = x_hat * weight + bias`` with ``x_hat`` the
input normalized per example, recomputed here, so the weight's per-example gradient is
``grad * x_hat`` and the bias's ``grad``, summed over the positions that share an element."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.utils.per_sample.call import Call, flat_rows
from hookgrad.utils.per_sample.linear import require_batch

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "rms_norm"]


def _standardize(x: np.ndarray, axes: Sequence[int], eps: float) -> np.ndarray:
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (biased variance)."""
    axes = tuple(axes)
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    return centered / np.sqrt(var + eps)


def _affine(
    module: Any, grad: np.ndarray, x_hat: np.ndarray, keep: Sequence[int]
) -> dict[str, Any]:
    """The per-example gradients of ``weight``/``bias`` for ``y = x_hat * weight + bias``:
    summed over every axis of ``grad`` but the batch and those in ``keep``."""
    summed = tuple(axis for axis in range(1, grad.ndim) if axis not in keep)
    result: dict[str, Any] = {}
    if getattr(module, "weight", None) is not None:
        result["weight"] = (
            (grad * x_hat).sum(axis=summed).reshape((grad.shape[0],) + tuple(module.weight.shape))
        )
    if getattr(module, "bias", None) is not None:
        result["bias"] = grad.sum(axis=summed).reshape((grad.shape[0],) + tuple(module.bias.shape))
    return result


def layer_norm(module: Any, call: Call) -> dict[str, Any]:
    """``LayerNorm``: each example normalized over its last ``len(normalized_shape)`` dims."""
    x, grad = call.input(0), call.grad(0)
    k = len(module.normalized_shape)
    require_batch(module, x, k + 1)
    last = tuple(range(x.ndim - k, x.ndim))
    return _affine(module, grad, _standardize(x, last, module.eps), last)


def rms_norm(module: Any, call: Call) -> dict[str, Any]:
    """``RMSNorm``: ``x / sqrt(mean(x^2) + eps)`` over the last dims (``eps`` None: the
    dtype's machine epsilon)."""
    x, grad = call.input(0), call.grad(0)
    k = len(module.normalized_shape)
    require_batch(module, x, k + 1)
    last = tuple(range(x.ndim - k, x.ndim))
    eps = module.eps if module.eps is not None else float(np.finfo(x.dtype).eps)
    x_hat = x / np.sqrt((x * x).mean(axis=last, keepdims=True) + eps)
    return _affine(module, grad, x_hat, last)


def group_norm(module: Any, call: Call) -> dict[str, Any]:
    """``GroupNorm``: each example's channel groups normalized; one weight per channel."""
    x, grad = call.input(0), call.grad(0)
    require_batch(module, x, 2)
    n, channels = x.shape[:2]
    grouped = flat_rows(x, 1).reshape(
        n, module.num_groups, (x.size // max(n, 1)) // module.num_groups
    )
    x_hat = _standardize(grouped, (2,), module.eps).reshape(x.shape)
    return _affine(module, grad, x_hat, (1,))


def instance_norm(module: Any, call: Call) -> dict[str, Any]:
    """``InstanceNorm1d/2d/3d``: each example's channels normalized over their spatial
    dims (by the running statistics in eval mode, when it tracks them)."""
    x, grad = call.input(0), call.grad(0)
    require_batch(module, x, module._batch_ndim)
    if module.training or not module.track_running_stats:
        x_hat = _standardize(x, tuple(range(2, x.ndim)), module.eps)
    else:
        x_hat = _by_running_stats(module, x)
    return _affine(module, grad, x_hat, (1,))


def batch_norm(module: Any, call: Call) -> dict[str, Any]:
    """``BatchNorm1d/2d/3d`` in eval mode: normalized by the running statistics, so each
    example's output depends on that example only."""
    x, grad = call.input(0), call.grad(0)
    require_batch(module, x, 2)
    return _affine(module, grad, _by_running_stats(module, x), (1,))


def _by_running_stats(module: Any, x: np.ndarray) -> np.ndarray:
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean = module.running_mean._data.reshape(shape)
    var = module.running_var._data.reshape(shape)
    return (x - mean) / np.sqrt(var + module.eps)
