"""nn modules: normalization layers (``BatchNorm1d/2d/3d``, ``SyncBatchNorm``,
``InstanceNorm1d/2d/3d``, ``LayerNorm``, ``GroupNorm``, ``RMSNorm``,
``LocalResponseNorm``, ``CrossMapLRN2d``)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import hookgrad
from hookgrad import grad_mode
from hookgrad.nn import functional as F
from hookgrad.nn import init
from hookgrad.nn.functional.normalization import CrossMapLRN2d as _cross_map_lrn2d
from hookgrad.nn.modules.module import Module
from hookgrad.nn.parameter import Parameter
from hookgrad.tensor import Tensor

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "CrossMapLRN2d",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LayerNorm",
    "LocalResponseNorm",
    "RMSNorm",
    "SyncBatchNorm",
]


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


class _NormBase(Module):
    """What batch and instance norm share: ``num_features`` channels, ``eps``,
    ``momentum``, optional affine ``weight`` (ones) and ``bias`` (zeros), and optional
    running statistics (buffers ``running_mean``, ``running_var``, ``num_batches_tracked``).
    """

    _version = 2

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

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    """Batch normalization over channel dim 1, with running statistics.

    In training mode each batch is normalized with its own mean and (biased) variance, and
    the buffers ``running_mean`` / ``running_var`` move toward them by ``momentum``
    (``None``: a cumulative average over ``num_batches_tracked`` batches). In eval mode
    the running statistics normalize instead, unless ``track_running_stats=False``.
    """

    def _average_factor(self) -> float:
        """Counts the batch (training with running statistics) and returns the factor the
        running statistics move by."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with grad_mode.no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        return factor

    def _batch_norm(self, input: Tensor, factor: float) -> Tensor:
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

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        return self._batch_norm(input, self._average_factor())


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


class BatchNorm3d(_BatchNorm):
    """Batch normalization of ``(N, C, D, H, W)`` inputs per channel ``C``.

    Example::

        bn = nn.BatchNorm3d(4)
        bn(hookgrad.randn(2, 4, 3, 5, 5)).shape   # hookgrad.Size([2, 4, 3, 5, 5])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of ``(N, C, *)`` inputs, synchronised across processes in
    torch's distributed training; in one process (hookgrad's case) it is ``BatchNorm``.
    ``process_group`` is kept for torch's API.

    Example::

        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features,
            eps,
            momentum,
            affine,
            track_running_stats,
            device,
            dtype,
            bias=bias,
        )
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return self._batch_norm(input, self._average_factor())

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every ``BatchNorm*d`` layer replaced by a ``SyncBatchNorm``
        sharing its parameters and running statistics (a ``BatchNorm*d`` itself gives a
        new layer).

        Example::

            model = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm1d(4)))
        """
        output = module
        if isinstance(module, _BatchNorm):
            output = SyncBatchNorm(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=module.bias is not None,
            )
            if module.affine:
                with grad_mode.no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return output


class _InstanceNorm(_NormBase):
    """Instance normalization: each channel of each sample over its spatial dims. By
    default without affine parameters and without running statistics."""

    _batch_ndim: int  # the input dims of a batch (one less: an unbatched input)

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (self._batch_ndim - 1, self._batch_ndim):
            raise ValueError(
                f"expected {self._batch_ndim - 1}D or {self._batch_ndim}D input (got "
                f"{input.dim()}D input)"
            )

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - (self._batch_ndim - 1)
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        if input.dim() == self._batch_ndim - 1:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` or ``(C, L)`` inputs.

    Example::

        nn.InstanceNorm1d(4, affine=True)(hookgrad.randn(2, 4, 10)).shape
    """

    _batch_ndim = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` or ``(C, H, W)`` inputs.

    Example::

        nn.InstanceNorm2d(3)(hookgrad.randn(2, 3, 8, 8)).shape
    """

    _batch_ndim = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs.

    Example::

        nn.InstanceNorm3d(3)(hookgrad.randn(2, 3, 4, 4, 4)).shape
    """

    _batch_ndim = 5


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


class RMSNorm(Module):
    """Root-mean-square normalization over the last dims (``normalized_shape``), times an
    elementwise ``weight`` (ones); ``eps`` None: the dtype's machine epsilon.

    Example::

        nn.RMSNorm(64)(hookgrad.randn(8, 64)).shape   # hookgrad.Size([8, 64])
    """

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(
                hookgrad.ones(self.normalized_shape, device=device, dtype=dtype)
            )
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        """The weight back to ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class LocalResponseNorm(Module):
    """Normalization across channels: each value divided by
    ``(k + alpha * mean of the squares over `size` neighbouring channels) ** beta``.

    Example::

        nn.LocalResponseNorm(2)(hookgrad.randn(2, 8, 5, 5)).shape
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """torch's legacy cross-map local response normalization of 4-D inputs (its own
    running-sum algorithm and backward, node ``CrossMapLRN2dBackward``).

    Example::

        nn.CrossMapLRN2d(3)(hookgrad.randn(2, 4, 5, 5)).shape
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return _cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
