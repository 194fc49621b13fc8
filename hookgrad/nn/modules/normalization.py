"""nn modules: ``BatchNorm1d``, ``BatchNorm2d``, ``LayerNorm`` and ``GroupNorm``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import hookgrad
from hookgrad import grad_mode
from hookgrad.nn import functional as F
from hookgrad.nn.modules.module import Module
from hookgrad.nn.parameter import Parameter
from hookgrad.tensor import Tensor

__all__ = ["BatchNorm1d", "BatchNorm2d", "GroupNorm", "LayerNorm"]


def _affine_parameters(
    module: Module, size: int, affine: bool, bias: bool, device: Any, dtype: Any
) -> None:
    """Register ``weight`` (ones) and ``bias`` (zeros) of ``size``, or None where absent
    (torch: ``bias=False`` drops only the bias; ``affine=False`` both)."""
    if affine:
        module.weight = Parameter(hookgrad.ones(size, device=device, dtype=dtype))
    else:
        module.register_parameter("weight", None)
    if affine and bias:
        module.bias = Parameter(hookgrad.zeros(size, device=device, dtype=dtype))
    else:
        module.register_parameter("bias", None)


class _BatchNorm(Module):
    """Batch normalization over channel dim 1, with running statistics.

    In training mode each batch is normalized with its own mean and (biased) variance, and
    the buffers ``running_mean`` / ``running_var`` move toward them by ``momentum``
    (``None``: a cumulative average over ``num_batches_tracked`` batches). In eval mode
    the running statistics normalize instead, unless ``track_running_stats=False``.
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, num_features, affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer(
                "running_mean", hookgrad.zeros(num_features, device=device, dtype=dtype)
            )
            self.register_buffer(
                "running_var", hookgrad.ones(num_features, device=device, dtype=dtype)
            )
            self.register_buffer("num_batches_tracked", hookgrad.tensor(0, dtype=hookgrad.long))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches tracked."""
        if self.track_running_stats:
            with grad_mode.no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Reset the running statistics, and the affine parameters to weight 1, bias 0."""
        self.reset_running_stats()
        with grad_mode.no_grad():
            if self.weight is not None:
                self.weight.fill_(1)
            if self.bias is not None:
                self.bias.zero_()

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with grad_mode.no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` inputs per channel ``C``.

    Example::

        bn = nn.BatchNorm1d(16)
        bn(hookgrad.randn(32, 16))   # each column now has mean 0, variance 1
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` inputs per channel ``C``.

    Example::

        bn = nn.BatchNorm2d(32)
        bn(hookgrad.randn(8, 32, 14, 14)).shape   # hookgrad.Size([8, 32, 14, 14])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class LayerNorm(Module):
    """Normalizes over the last dims (``normalized_shape``) of each sample, then applies an
    elementwise ``weight`` (ones) and ``bias`` (zeros) of that shape.

    Example::

        ln = nn.LayerNorm(64)
        ln(hookgrad.randn(8, 10, 64)).shape   # hookgrad.Size([8, 10, 64])
    """

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(n) for n in normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(
                hookgrad.ones(self.normalized_shape, device=device, dtype=dtype)
            )
            if bias:
                self.bias = Parameter(
                    hookgrad.zeros(self.normalized_shape, device=device, dtype=dtype)
                )
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Normalizes each of ``num_groups`` groups of channels of ``(N, C, *)`` inputs, then
    applies a per-channel ``weight`` (ones) and ``bias`` (zeros).

    Example::

        gn = nn.GroupNorm(4, 32)
        gn(hookgrad.randn(8, 32, 5, 5)).shape   # hookgrad.Size([8, 32, 5, 5])
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, num_channels, affine, bias, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )
