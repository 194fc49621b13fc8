"""Per-example gradients of the convolutions (``Conv1d/2d/3d``) and transposed
convolutions (``ConvTranspose1d/2d/3d``), with groups, stride, dilation, padding and every
padding mode: a convolution is a linear layer applied to each window of its (padded)
input, so its weight's per-example gradient is :class:`Factored` over the window
positions (im2col), per group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.ops.conv import windows
from hookgrad.utils.per_sample.call import Call, Factored, flat_rows
from hookgrad.utils.per_sample.linear import require_batch

__all__ = ["conv", "conv_transpose", "unfold"]

# nn's padding modes as NumPy's
_NUMPY_PAD: dict[str, Any] = {
    "zeros": "constant",
    "reflect": "reflect",
    "replicate": "edge",
    "circular": "wrap",
}


def unfold(
    x: np.ndarray,
    kernel: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    positions: Sequence[int] | None = None,
) -> np.ndarray:
    """Every window of the padded ``x (batch, C, *spatial)`` as ``(batch, groups, T,
    C/groups * prod(kernel))``, columns ordered (channel, kernel position); ``positions``
    keeps only the first window positions along each spatial dim."""
    view = windows(x, kernel, stride, dilation)  # (n, C, *out, *kernel)
    nd = len(kernel)
    if positions is not None:
        view = view[(slice(None), slice(None)) + tuple(slice(p) for p in positions)]
    n, channels = view.shape[:2]
    order = (0,) + tuple(range(2, 2 + nd)) + (1,) + tuple(range(2 + nd, 2 + 2 * nd))
    count = int(np.prod(view.shape[2 : 2 + nd]))
    width = (channels // groups) * int(np.prod(kernel))
    columns = view.transpose(order).reshape(n, count, groups, width)
    return np.ascontiguousarray(columns.transpose(0, 2, 1, 3))


def _padding(module: Any) -> list[tuple[int, int]]:
    """``(before, after)`` per spatial dim, as the module pads (``"same"``: the extra
    element after)."""
    padding = module.padding
    if padding == "valid":
        return [(0, 0)] * len(module.kernel_size)
    if padding == "same":
        totals = [d * (k - 1) for d, k in zip(module.dilation, module.kernel_size)]
        return [(t // 2, t - t // 2) for t in totals]
    return [(p, p) for p in padding]


def _per_group(grad: np.ndarray, groups: int) -> np.ndarray:
    """``(batch, C, *spatial)`` as ``(batch, groups, T, C/groups)`` (a view)."""
    n, channels = grad.shape[:2]
    flat = flat_rows(grad, 2)
    return flat.reshape(n, groups, channels // groups, flat.shape[2]).swapaxes(2, 3)


def _bias(grad: np.ndarray) -> np.ndarray:
    return flat_rows(grad, 2).sum(axis=2)


def conv(module: Any, call: Call) -> dict[str, Any]:
    """``Conv1d/2d/3d``: the input's windows against the output gradient, per group."""
    nd = len(module.kernel_size)
    x, grad = call.input(0), call.grad(0)
    require_batch(module, x, nd + 2)
    pairs = _padding(module)
    if any(before or after for before, after in pairs):
        x = np.pad(x, [(0, 0), (0, 0)] + pairs, mode=_NUMPY_PAD[module.padding_mode])
    columns = unfold(x, module.kernel_size, module.stride, module.dilation, module.groups)
    weight = Factored(columns, _per_group(grad, module.groups), tuple(module.weight.shape))
    result: dict[str, Any] = {"weight": weight}
    if module.bias is not None:
        result["bias"] = _bias(grad)
    return result


def conv_transpose(module: Any, call: Call) -> dict[str, Any]:
    """``ConvTranspose1d/2d/3d``: the adjoint of a convolution, so the roles swap: the
    input against the windows of the output gradient (padded as the convolution would
    pad), per group."""
    nd = len(module.kernel_size)
    x, grad = call.input(0), call.grad(0)
    require_batch(module, x, nd + 2)
    padded = np.pad(grad, [(0, 0), (0, 0)] + [(p, p) for p in module.padding])
    columns = unfold(
        padded, module.kernel_size, module.stride, module.dilation, module.groups, x.shape[2:]
    )
    weight = Factored(columns, _per_group(x, module.groups), tuple(module.weight.shape))
    result: dict[str, Any] = {"weight": weight}
    if module.bias is not None:
        result["bias"] = _bias(grad)
    return result
