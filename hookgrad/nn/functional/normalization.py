"""nn.functional: normalization (``batch_norm``, ``instance_norm``, ``layer_norm``,
``group_norm``, ``rms_norm``, ``local_response_norm``, ``normalize``), and the torch-level
forms ``torch.batch_norm``, ``torch.native_batch_norm`` ... (``torch_*`` here, exported
by ``hookgrad`` under torch's names).

Batch, layer and group norm are one op each (torch's ``NativeBatchNormBackward0``,
``NativeLayerNormBackward0``, ``NativeGroupNormBackward0``); ``batch_norm`` in training
also updates the running statistics in place (without a version bump, as torch's kernel).
``instance_norm`` is torch's composite: a batch norm of the ``(1, N * C, ...)`` view, with
the parameters and running statistics repeated per sample. ``rms_norm``,
``local_response_norm`` and ``normalize`` are composites of tensor ops, as in torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import hookgrad
from hookgrad.autograd import Function
from hookgrad.ops.arithmetic import AddScalar
from hookgrad.ops.normalization import (
    NativeBatchNorm,
    NativeGroupNorm,
    NativeLayerNorm,
    NormScalar,
    WeightNormInterface,
)
from hookgrad.ops.table import ENTRIES
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.generated import check_out, write_out

__all__ = [
    "batch_norm",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "local_response_norm",
    "normalize",
    "rms_norm",
]


# ---------------------------------------------------------------- batch and instance norm


def _verify_batch_size(size: Sequence[int]) -> None:
    """torch's check that each channel has more than one value (``size`` printed as
    given: a ``Size`` or a list)."""
    if int(np.prod([size[0], *size[2:]], dtype=np.int64)) == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel (dim 1) of ``input`` ``(N, C, *)`` over the batch and spatial
    dims, then scale by ``weight`` and shift by ``bias`` (both ``(C,)``, optional).

    In training the batch statistics are used, and ``running_mean`` / ``running_var``
    (if given) move toward them: ``running = (1 - momentum) * running + momentum * batch``
    with the unbiased batch variance. Otherwise the running statistics are used.

    Example: ``batch_norm(x, None, None, training=True)`` standardizes each channel.
    """
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def torch_native_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.native_batch_norm``: the result, and the batch mean and ``1 / std`` (empty
    outside training).

    Example: ``out, mean, invstd = torch.native_batch_norm(x, None, None, None, None,
    True, 0.1, 1e-5)``.
    """
    channels = input.shape[1] if input.dim() > 1 else 0
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is not None and stat.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {stat.numel()}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and param.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {param.numel()}")
    if not training and (running_mean is None or running_var is None):
        name = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{name} must be defined in evaluation mode")
    op = NativeBatchNorm(training, momentum, eps)
    return apply(op, input, weight, bias, running_mean, running_var)


def torch_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = True,
) -> Tensor:
    """``torch.batch_norm``: ``F.batch_norm`` with torch's argument order and without its
    Python checks.

    Example: ``torch.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False)``.
    """
    return torch_native_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )[0]


def _repeated(t: Tensor | None, count: int) -> Tensor | None:
    return None if t is None else t.repeat(count)


def torch_instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = True,
) -> Tensor:
    """``torch.instance_norm``: a batch norm of ``input`` viewed as ``(1, N * C, ...)``;
    the running statistics (if given) get the mean of the per-sample updates.

    Example: ``torch.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)``.
    """
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    n, c = input.shape[0], input.shape[1]
    shape = (1, n * c, *input.shape[2:])
    running_mean_ = _repeated(running_mean, n)
    running_var_ = _repeated(running_var, n)
    out = torch_batch_norm(
        input.contiguous().view(shape),
        _repeated(weight, n),
        _repeated(bias, n),
        running_mean_,
        running_var_,
        use_input_stats,
        momentum,
        eps,
    )
    with hookgrad.no_grad():
        if running_mean is not None:
            running_mean.copy_(running_mean_.view(n, c).mean(0))
        if running_var is not None:
            running_var.copy_(running_var_.view(n, c).mean(0))
    return out.view(input.shape)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel of each sample of ``input`` ``(N, C, *)`` over its spatial
    dims, then apply per-channel ``weight`` and ``bias``. With ``use_input_stats`` the
    sample's statistics are used (and ``running_mean`` / ``running_var``, if given, move
    toward their mean over the batch); otherwise the running ones.

    Example: ``F.instance_norm(hookgrad.randn(2, 3, 8))``.
    """
    if use_input_stats:
        spatial = int(np.prod(input.shape[2:], dtype=np.int64))
        if spatial == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {input.size()}"
            )
    return torch_instance_norm(
        input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps
    )


# ---------------------------------------------------------------- layer and group norm


def _normalized(normalized_shape: int | Sequence[int]) -> list[int]:
    if isinstance(normalized_shape, int):
        return [normalized_shape]
    return [int(n) for n in normalized_shape]


def _check_normalized_shape(
    input: Tensor, normalized: list[int], params: tuple[tuple[str, Any], ...], star: str
) -> None:
    shape = list(input.shape)
    if not normalized or shape[len(shape) - len(normalized) :] != normalized:
        raise RuntimeError(
            f"Given normalized_shape={normalized}, expected input with shape "
            f"[{star}{', '.join(map(str, normalized))}], but got input of size{shape}"
        )
    for name, param in params:
        if param is not None and list(param.shape) != normalized:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(param.shape)} and normalized_shape = {normalized}"
            )


def torch_native_layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.native_layer_norm``: the result, and the mean and ``1 / std`` (of size 1 in
    the normalized dims).

    Example: ``out, mean, rstd = torch.native_layer_norm(x, (4,), None, None, 1e-5)``.
    """
    normalized = _normalized(normalized_shape)
    _check_normalized_shape(input, normalized, (("weight", weight), ("bias", bias)), "*, ")
    return apply(NativeLayerNorm(tuple(normalized), eps), input, weight, bias)


def layer_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize ``input`` over its last dims (``normalized_shape``), then apply the
    elementwise ``weight`` and ``bias`` (of that shape, optional).

    Example: ``layer_norm(x, x.shape[-1:])`` standardizes each row of ``x``.
    """
    return torch_native_layer_norm(input, _normalized(normalized_shape), weight, bias, eps)[0]


def torch_layer_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> Tensor:
    """``torch.layer_norm``: ``F.layer_norm`` (``cudnn_enable`` is ignored).

    Example: ``torch.layer_norm(x, (4,))``.
    """
    return layer_norm(input, normalized_shape, weight, bias, eps)


def torch_native_group_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    N: int,  # noqa: N803 (torch's name)
    C: int,  # noqa: N803 (torch's name)
    HxW: int,  # noqa: N803 (torch's name)
    group: int,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.native_group_norm``: the result, and each group's mean and ``1 / std``,
    of shape ``(N, group)``.

    Example: ``out, mean, rstd = torch.native_group_norm(x, None, None, 2, 4, 9, 2, 1e-5)``.
    """
    return apply(NativeGroupNorm(group, eps), input, weight, bias)


def torch_group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> Tensor:
    """``torch.group_norm``: ``F.group_norm`` without its batch-size check.

    Example: ``torch.group_norm(x, 2)``.
    """
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


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize ``input`` ``(N, C, *)`` over each of ``num_groups`` groups of channels
    (with all their spatial positions), then apply per-channel ``weight`` and ``bias``.

    Example: ``group_norm(hookgrad.randn(8, 32, 5, 5), 4)``.
    """
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    _verify_batch_size(
        [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
    )
    return torch_group_norm(input, num_groups, weight, bias, eps)


# ---------------------------------------------------------------- composites


def rms_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Root-mean-square normalization over the last dims (``normalized_shape``):
    ``input * rsqrt(mean(input ** 2) + eps)``, times ``weight`` (of that shape) if given;
    ``eps`` defaults to the machine epsilon of ``input``'s dtype.

    Example: ``F.rms_norm(hookgrad.randn(2, 8), (8,))``.
    """
    normalized = _normalized(normalized_shape)
    _check_normalized_shape(input, normalized, (("weight", weight),), "*")
    compute = input.float() if input.dtype == hookgrad.float16 else input
    if eps is None:
        eps = float(np.finfo(compute._data.dtype).eps)
    dims = tuple(input.dim() - 1 - i for i in range(len(normalized)))
    # torch adds ``eps`` in place: its Scalar overload (``AddBackward1``)
    rsqrt = apply(AddScalar(eps, 1), compute.pow(2).mean(dims, keepdim=True)).rsqrt()
    result = compute.mul(rsqrt).type_as(input)
    return result if weight is None else result.mul(weight)


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Local response normalization across channels: each value divided by
    ``(k + alpha * mean of the squares of its `size` neighbouring channels) ** beta``.

    Example: ``F.local_response_norm(hookgrad.randn(2, 8, 5, 5), size=3)``.
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    functional = hookgrad.nn.functional
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = functional.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = functional.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = functional.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = functional.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``).

    Example::

        F.normalize(hookgrad.tensor([[3.0, 4.0]]))   # tensor([[0.6000, 0.8000]])
    """
    if out is not None:
        check_out("div", (input,), out)
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return write_out(input / denom, out)


# ---------------------------------------------------------------- legacy


class CrossMapLRN2d(Function):
    """torch's legacy ``CrossMapLRN2d`` function of ``nn.CrossMapLRN2d`` (node
    ``CrossMapLRN2dBackward``): its running-sum forward and its backward, loop for loop.

    Example: ``CrossMapLRN2d.apply(x, 3, 1e-4, 0.75, 1.0)``.
    """

    @staticmethod
    def forward(ctx: Any, input: Tensor, size: int, alpha: float, beta: float, k: float) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        x = input._data
        channels = x.shape[1]
        square = x * x
        pre_pad = int((size - 1) / 2 + 1)
        scale = np.zeros_like(x)
        for c in range(min(pre_pad, channels)):
            scale[:, 0] += square[:, c]
        for c in range(1, channels):
            scale[:, c] = scale[:, c - 1]
            if c < channels - pre_pad + 1:
                scale[:, c] += square[:, c + pre_pad - 1]
            if c > pre_pad:
                scale[:, c] += -square[:, c - pre_pad]
        scale = scale * x.dtype.type(alpha / size) + x.dtype.type(k)
        output = np.power(scale, x.dtype.type(-beta)) * x
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        result = hookgrad.from_numpy(output)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> Any:
        input, output = ctx.saved_tensors
        x, y, g, scale = input._data, output._data, grad_output._data, ctx.scale
        size = ctx.size
        channels = x.shape[1]
        dtype = x.dtype.type
        cache_ratio = dtype(2 * ctx.alpha * ctx.beta / size)
        inverse_pre_pad = int(size - (size - 1) / 2)
        grad_input = np.power(scale, dtype(-ctx.beta)) * g
        padded = np.zeros((channels + size - 1, *x.shape[2:]), x.dtype)
        for n in range(x.shape[0]):
            padded[inverse_pre_pad : inverse_pre_pad + channels] = g[n] * y[n] / scale[n]
            accum = padded[: size - 1].sum(0)
            for c in range(channels):
                accum = accum + padded[c + size - 1]
                grad_input[n, c] += -cache_ratio * x[n, c] * accum
                accum = accum - padded[c]
        return hookgrad.from_numpy(grad_input), None, None, None, None


# ---------------------------------------------------------------- weight norm


def torch_norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """``torch.norm_except_dim``: the ``pow``-norm of ``v`` over every dim but ``dim``
    (size 1 there; ``dim=-1``: over all elements).

    Example: ``torch.norm_except_dim(w, 2, 0)`` is ``(out_features, 1)`` for a Linear weight.
    """
    if dim == -1:
        return apply(NormScalar(pow), v)
    ndim = v.dim()
    if dim not in (0, ndim - 1):
        return torch_norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)
    shape = [1] * ndim
    shape[dim] = v.shape[dim]
    rows = v.contiguous().view(v.shape[0], -1) if dim == 0 else v.contiguous().view(-1, v.shape[-1])
    norm = apply(ENTRIES["norm.ScalarOpt_dim"](pow, (1 - min(dim, 1),), False), rows)
    return norm.view(shape)


def torch_weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``torch._weight_norm``: ``v * (g / norm_except_dim(v, 2, dim))``, one fused op
    (``WeightNormInterfaceBackward0``) when ``dim`` is the first or the last dim.

    Example: ``torch._weight_norm(v, g, 0)``.
    """
    v, g = v.contiguous(), g.contiguous()
    if dim in (0, v.dim() - 1):
        return apply(WeightNormInterface(dim), v, g)[0]
    return v * (g / torch_norm_except_dim(v, 2, dim))
