"""``hookgrad.nn.init``: parameter initialisation schemes (uniform, normal, Xavier/Glorot,
Kaiming/He, orthogonal ...), with torch's fan and gain computations.

The un-suffixed spellings (``uniform``, ``xavier_normal`` ...) are torch's deprecated
aliases: the same initialisers, with a ``FutureWarning``.

Every initialiser fills its tensor in place under ``no_grad`` (so a parameter stays a leaf
that requires grad) and returns it. Random numbers come from the default generator (or a
given ``Generator``) and are drawn as torch draws them: after the same ``manual_seed`` an
initialiser gives torch's values (``orthogonal_`` up to the last bits of the QR
decomposition, which comes from a different LAPACK).

Example::

    w = nn.Parameter(hookgrad.empty(4, 3))
    nn.init.kaiming_uniform_(w, a=math.sqrt(5))
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import hookgrad
from hookgrad.tensor import Tensor

__all__ = [
    "calculate_gain",
    "constant",
    "constant_",
    "dirac",
    "dirac_",
    "eye",
    "eye_",
    "kaiming_normal",
    "kaiming_normal_",
    "kaiming_uniform",
    "kaiming_uniform_",
    "normal",
    "normal_",
    "ones_",
    "orthogonal",
    "orthogonal_",
    "sparse",
    "sparse_",
    "trunc_normal_",
    "uniform",
    "uniform_",
    "xavier_normal",
    "xavier_normal_",
    "xavier_uniform",
    "xavier_uniform_",
    "zeros_",
]

_LINEAR_GAIN_NAMES = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "sigmoid",
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity``: 1 for linear/conv/sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for leaky_relu (``param`` the slope, 0.01 by
    default), 3/4 for selu.

    Example::

        nn.init.calculate_gain("relu")   # 1.4142135623730951
    """
    if nonlinearity in _LINEAR_GAIN_NAMES:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight: ``size(1)`` and ``size(0)`` times the product of
    the remaining (receptive-field) dims."""
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    """``fan_in`` or ``fan_out`` of ``tensor`` as ``mode`` says (case-insensitive)."""
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with samples of the uniform distribution on ``[a, b)``."""
    with hookgrad.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with samples of the normal distribution ``N(mean, std^2)``."""
    with hookgrad.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """Fill ``tensor`` with samples of ``N(mean, std^2)`` restricted to ``[a, b]``.

    As torch's: when ``[a, b]`` holds more than 30% of the mass, normal samples outside it
    are redrawn (a whole new normal sample each round, kept where needed); otherwise
    uniform samples on ``[a, b]`` are accepted with the normal density (rejection
    sampling).

    Example::

        nn.init.trunc_normal_(w, std=0.02)
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with hookgrad.no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            _redrawn_normal(tensor, mean, std, a, b, generator)
        else:
            _accepted_uniform(tensor, mean, std, a, b, generator)
    return tensor


def _redrawn_normal(
    tensor: Tensor, mean: float, std: float, a: float, b: float, generator: Any
) -> None:
    low, high = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < low) | (result > high)
        if not outside.any():
            break
        redrawn = hookgrad.empty_like(result).normal_(mean, std, generator=generator)
        result = hookgrad.where(outside, redrawn, result)
    if result is not tensor:
        tensor.copy_(result)


def _accepted_uniform(
    tensor: Tensor, mean: float, std: float, a: float, b: float, generator: Any
) -> None:
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates = hookgrad.empty_like(tensor)
    accept = hookgrad.empty_like(tensor)

    def rejected() -> Tensor:
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        return accept.uniform_(generator=generator).log_().gt(candidates)

    tensor.uniform_(a, b, generator=generator)
    candidates.copy_(tensor)
    pending = rejected()
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = hookgrad.where(pending, candidates, result)
        pending = hookgrad.where(pending, rejected(), pending)
        if not pending.any():
            break
    tensor.copy_(result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with ``val``."""
    with hookgrad.no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with zeros."""
    with hookgrad.no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill the 2-D ``tensor`` with the identity matrix (ones on the diagonal)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with hookgrad.no_grad():
        return tensor.copy_(hookgrad.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill the 3-, 4- or 5-D convolution weight ``tensor`` with the Dirac delta, so that
    the convolution is the identity on as many channels as it can keep, per group."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels = tensor.shape[0]
    if out_channels % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_channels // groups
    kept = min(per_group, tensor.shape[1])
    delta = np.zeros(tensor.shape, tensor._data.dtype)
    centre = tuple(size // 2 for size in tensor.shape[2:])
    channels = np.arange(kept)
    for group in range(groups):
        delta[(group * per_group + channels, channels) + centre] = 1
    with hookgrad.no_grad():
        return tensor.copy_(hookgrad.from_numpy(delta))


def _uniform_with_std(tensor: Tensor, std: float, generator: Any) -> Tensor:
    bound = math.sqrt(3.0) * std  # a uniform on [-bound, bound] has standard deviation std
    with hookgrad.no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot uniform: ``U(-bound, bound)`` with
    ``bound = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return _uniform_with_std(tensor, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot normal: ``N(0, std^2)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    """He's standard deviation ``gain / sqrt(fan)``; None (after torch's warning) for a
    tensor without elements."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He uniform: ``U(-bound, bound)`` with ``bound = gain * sqrt(3 / fan)``, ``gain``
    from ``calculate_gain(nonlinearity, a)`` and ``fan`` the ``mode`` fan.

    Example::

        nn.init.kaiming_uniform_(w, mode="fan_in", nonlinearity="relu")
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else _uniform_with_std(tensor, std, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He normal: ``N(0, std^2)`` with ``std = gain / sqrt(fan)`` (see ``kaiming_uniform_``)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """Fill ``tensor`` (2-D or more; trailing dims flattened) with a random (semi-)
    orthogonal matrix times ``gain``: the Q of the QR decomposition of a normal sample,
    its columns' signs fixed by R's diagonal.

    The normal sample is torch's; the decomposition is NumPy's LAPACK in the tensor's
    dtype, which may differ from torch's in the last bits.
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    sample = hookgrad.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
    matrix = sample._data if rows >= cols else sample._data.T
    q, r = np.linalg.qr(matrix)
    q = q * np.sign(np.diag(r)).astype(q.dtype)
    if rows < cols:
        q = q.T
    values = hookgrad.from_numpy(np.ascontiguousarray(q).astype(tensor._data.dtype))
    with hookgrad.no_grad():
        tensor.copy_(values.view(tensor.shape))
        return tensor.mul_(gain)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fill the 2-D ``tensor`` with ``N(0, std^2)`` samples and zero
    ``ceil(sparsity * rows)`` of each column (the first rows of a ``randperm``, drawn from
    the default generator as torch draws them).

    Example::

        nn.init.sparse_(hookgrad.empty(5, 3), sparsity=0.4)
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros_per_column = math.ceil(sparsity * rows)
    with hookgrad.no_grad():
        tensor.normal_(0, std, generator=generator)
        for column in range(cols):
            chosen = hookgrad.randperm(rows)[:zeros_per_column]
            tensor[chosen, column] = 0
    return tensor


# ---------------------------------------------------------------- deprecated spellings


def _make_deprecate(method: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """torch's old spelling of ``method`` without the trailing underscore: the same
    initialiser, with torch's ``FutureWarning``."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return method(*args, **kwargs)

    deprecated_init.__doc__ = (
        f"``{old_name}(...)``: deprecated; calls ``nn.init.{new_name}`` (see it for details).\n"
        f"\nExample: ``nn.init.{new_name}(w)`` is the current spelling."
    )
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
