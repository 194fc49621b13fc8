"""nn.functional: dropout (``dropout``, ``dropout1d/2d/3d``, ``alpha_dropout``,
``feature_alpha_dropout``), and the torch-level forms ``torch.dropout``,
``torch.feature_dropout``, ``torch.alpha_dropout`` ... (``torch_*`` here, with their
in-place variants) and ``torch.native_dropout``.

In training mode dropout multiplies the input by a random mask, so the node is
``MulBackward0`` (as torch's CPU kernel) and the gradient is the same mask times the
incoming gradient. The mask is torch's: ``bernoulli_(1 - p)`` on a tensor like the input
(one value per channel for the feature variants) from the default generator, divided by
``1 - p``; after the same ``manual_seed`` the zeros fall where torch puts them.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from hookgrad.ops.dropout import NativeDropout
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.random import empty_like, sample_bernoulli

__all__ = [
    "alpha_dropout",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
]

_ALPHA = 1.7580993408473766  # SELU's alpha times its scale: the value a dropped unit takes


def _check_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input: Tensor, feature: bool, keep: float) -> np.ndarray:
    """torch's noise: ones with probability ``keep`` (else zeros) in an array like
    ``input``, or of shape ``(N, C, 1, ...)`` for feature dropout."""
    data = input._data
    if feature:
        if data.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        like = np.empty(data.shape[:2] + (1,) * (data.ndim - 2), data.dtype)
    else:
        like = empty_like(data)
    return sample_bernoulli(like, keep)


def _divided(noise: np.ndarray, divisor: float) -> np.ndarray:
    """``noise.div_(divisor)`` as torch computes it: in the noise's dtype (float for
    float16)."""
    compute = np.float32 if noise.dtype == np.float16 else noise.dtype.type
    return (noise.astype(compute) / compute(divisor)).astype(noise.dtype)


def _dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    """torch's ``_dropout_impl`` without the alpha variant."""
    _check_probability(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    data = input._data
    if data.dtype.kind not in "fc":
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type "
            f"{input.dtype.type_name[3:-4]}"
        )
    if p == 1.0:
        mask = wrap_constant(np.zeros((), data.dtype))
    else:
        mask = wrap_constant(_divided(_noise(input, feature, 1 - p), 1 - p))
    return input.mul_(mask) if inplace else input * mask


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    """torch's ``_dropout_impl`` for alpha dropout: kept units scaled by ``a``, dropped
    ones set to ``-alpha * a`` shifted by ``alpha * a * p``."""
    _check_probability(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    data = input._data
    if p == 1.0:
        mask = wrap_constant(np.zeros((), data.dtype))
        return input.mul_(mask) if inplace else input * mask
    noise = _noise(input, feature, 1 - p)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    dtype = noise.dtype.type
    shift = ((noise - dtype(1)) * dtype(_ALPHA * a) + dtype(_ALPHA * a * p)).astype(noise.dtype)
    scaled = (noise * dtype(a)).astype(noise.dtype)
    out = input.mul_(wrap_constant(scaled)) if inplace else input * wrap_constant(scaled)
    return out.add_(wrap_constant(shift)) if inplace else out + wrap_constant(shift)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``;
    outside ``training`` (or with ``p == 0``) ``input`` itself is returned.

    Example::

        y = F.dropout(hookgrad.ones(4, 4), p=0.25)   # entries 0 or 1.3333
    """
    return _dropout(input, p, training, inplace, feature=False)


def _channel_dropout(
    input: Tensor, p: float, training: bool, inplace: bool, batched: bool
) -> Tensor:
    """Feature dropout of a batched input, or of an unbatched one seen as a batch of one
    (in place through that view)."""
    if batched:
        return _dropout(input, p, training, inplace, feature=True)
    result = _dropout(input.unsqueeze(0), p, training, inplace, feature=True)
    return input if inplace else result.squeeze(0)


def _warn_rank(name: str, rank: int, spatial: int) -> None:
    warnings.warn(
        f"{name}: Received a {rank}-D input to {name}, which is deprecated and will result "
        "in an error in a future release. To retain the behavior and silence this warning, "
        f"please use dropout instead. Note that {name} exists to provide channel-wise "
        f"dropout on inputs with {spatial} spatial dimensions, a channel dimension, and an "
        f"optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        stacklevel=3,
    )


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of a ``(N, C, L)`` or ``(C, L)`` input with probability ``p``
    (the others scaled by ``1 / (1 - p)``).

    Example: ``F.dropout1d(hookgrad.ones(2, 3, 5), 0.5)``.
    """
    _check_probability(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    return _channel_dropout(input, p, training, inplace, batched=input.ndim == 3)


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of a ``(N, C, H, W)`` input with probability ``p`` (the others
    scaled by ``1 / (1 - p)``). As torch's, a 3-D input is taken as ``(N, C, L)``, with a
    warning.

    Example: ``F.dropout2d(hookgrad.ones(2, 3, 4, 4), 0.5)``.
    """
    _check_probability(p)
    if input.ndim not in (3, 4):
        _warn_rank("dropout2d", input.ndim, 2)
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret "
            "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with
    probability ``p`` (the others scaled by ``1 / (1 - p)``).

    Example: ``F.dropout3d(hookgrad.ones(2, 3, 2, 4, 4), 0.5)``.
    """
    _check_probability(p)
    if input.ndim not in (4, 5):
        _warn_rank("dropout3d", input.ndim, 3)
    return _channel_dropout(input, p, training, inplace, batched=input.ndim == 5)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout for SELU networks: keeps mean and variance of a standard normal input
    (dropped units take SELU's negative saturation value, then an affine correction).

    Example: ``F.alpha_dropout(hookgrad.randn(8), 0.2, training=True)``.
    """
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """``alpha_dropout`` of whole channels (one draw per ``(N, C)`` pair).

    Example: ``F.feature_alpha_dropout(hookgrad.randn(2, 3, 4), 0.2, training=True)``.
    """
    return _alpha_dropout(input, p, training, inplace, feature=True)


# ---------------------------------------------------------------- torch-level forms


def _checked(p: float) -> float:
    """torch's ATen check of a dropout probability (a RuntimeError at this level)."""
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return p


def torch_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.dropout(input, p, train)``: ``F.dropout`` with torch's positional arguments.

    Example: ``torch.dropout(x, 0.5, True)``.
    """
    return _dropout(input, _checked(p), train, False, feature=False)


def torch_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.dropout_``: ``torch.dropout`` in place.

    Example: ``torch.dropout_(x, 0.5, True)``.
    """
    return _dropout(input, _checked(p), train, True, feature=False)


def torch_feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_dropout``: whole channels (dim 1) of an input of 2 or more dims.

    Example: ``torch.feature_dropout(x, 0.5, True)``.
    """
    return _dropout(input, _checked(p), train, False, feature=True)


def torch_feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_dropout_``: ``torch.feature_dropout`` in place.

    Example: ``torch.feature_dropout_(x, 0.5, True)``.
    """
    return _dropout(input, _checked(p), train, True, feature=True)


def torch_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.alpha_dropout``: ``F.alpha_dropout`` with torch's positional arguments.

    Example: ``torch.alpha_dropout(x, 0.2, True)``.
    """
    return _alpha_dropout(input, _checked(p), train, False, feature=False)


def torch_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.alpha_dropout_``: ``torch.alpha_dropout`` in place.

    Example: ``torch.alpha_dropout_(x, 0.2, True)``.
    """
    return _alpha_dropout(input, _checked(p), train, True, feature=False)


def torch_feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_alpha_dropout``: alpha dropout of whole channels.

    Example: ``torch.feature_alpha_dropout(x, 0.2, True)``.
    """
    return _alpha_dropout(input, _checked(p), train, False, feature=True)


def torch_feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_alpha_dropout_``: ``torch.feature_alpha_dropout`` in place.

    Example: ``torch.feature_alpha_dropout_(x, 0.2, True)``.
    """
    return _alpha_dropout(input, _checked(p), train, True, feature=True)


def torch_native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """``torch.native_dropout``: the dropped-out input and the boolean keep-mask
    (``NativeDropoutBackward0``); the mask is drawn as ``dropout``'s, so the same seed keeps
    the same elements. ``train`` False: the input's copy and a mask of ones.

    Example: ``out, mask = torch.native_dropout(x, 0.5, True)``.
    """
    data = input._data
    if input.numel() == 0:
        return input, Tensor._make(np.empty(data.shape, bool))
    if train is None or train:
        keep = 1.0 - p
        scale = 0.0 if keep == 0 else 1.0 / keep
        noise = _noise(input, False, keep)
    else:
        scale = 1.0
        noise = np.ones(data.shape, data.dtype)
    grad_scale = scale if train else 1.0
    return apply(NativeDropout(p, scale, grad_scale), input, wrap_constant(noise))
