"""``hookgrad.utils.attribution``: which input pixels a prediction depends on, computed with
module hooks: :func:`saliency`, :func:`guided_backprop` and :func:`grad_cam`.

Conventions shared by the three functions:

* ``model`` maps a batch ``inputs`` (a Tensor, or an array-like turned into one) to class
  scores of shape ``(N, classes)``. ``target`` picks the explained class per sample: an
  int (the same class for every sample), a sequence or 1-D Tensor of ``N`` ints, or None
  (each sample's highest-scoring class). The score explained is ``output[i, target[i]]``
  (the raw output, no softmax).
* The model runs in eval mode (dropout off, batch norm on its running statistics, so the
  samples do not interact); afterwards every module is back in its own train/eval mode
  and every hook attached here is removed, even when the model raised.
* The results are NumPy float64 arrays (pictures to look at, not part of any graph); the
  parameters' ``.grad`` are not touched (the gradients come from ``autograd.grad``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from hookgrad.autograd import grad
from hookgrad.nn.modules.activation import ReLU
from hookgrad.tensor import Tensor
from hookgrad.tensor.creation import tensor

__all__ = ["grad_cam", "guided_backprop", "resize", "saliency"]

Target = int | Sequence[int] | Tensor | np.ndarray | None


def saliency(model: Any, inputs: Any, target: Target = None) -> np.ndarray:
    """The vanilla-gradient saliency map ``|d score / d input|`` (Simonyan et al., 2014).

    For image batches ``(N, C, H, W)`` the result is the maximum over the channels, of
    shape ``(N, H, W)`` (as in the paper; Captum's ``Saliency`` keeps the channels);
    for any other input it has the input's shape. Example::

        heat = saliency(model, images, target=labels)   # (N, H, W)
    """
    gradient = _input_gradient(model, inputs, target)
    magnitude = np.abs(gradient)
    return magnitude.max(axis=1) if magnitude.ndim == 4 else magnitude


def guided_backprop(model: Any, inputs: Any, target: Target = None) -> np.ndarray:
    """The guided-backpropagation gradient of the score w.r.t. ``inputs`` (Springenberg et
    al., 2015), of the input's shape and signed (as Captum's ``GuidedBackprop``).

    A full backward hook on every ``nn.ReLU`` module (``inplace=True`` too) clamps the
    gradient it passes back to its input at zero, so only positive evidence flows:
    ``grad_input = clamp(relu'(x) * grad_output, min=0)``. ReLUs applied as functions
    (``F.relu`` inside a ``forward``) are not hooked. Example::

        picture = guided_backprop(model, images, target=3)
    """
    relus = [module for module in model.modules() if isinstance(module, ReLU)]
    handles = [relu.register_full_backward_hook(_clamp_negative_gradients) for relu in relus]
    try:
        return _input_gradient(model, inputs, target)
    finally:
        for handle in handles:
            handle.remove()


def grad_cam(
    model: Any,
    layer: Any,
    inputs: Any,
    target: Target = None,
    *,
    interpolation: str = "bilinear",
) -> np.ndarray:
    """The Grad-CAM map of ``layer`` (Selvaraju et al., 2017), of shape ``(N, H, W)``
    for ``inputs`` of shape ``(N, C, H, W)``, each map scaled to [0, 1].

    ``layer`` is a module of ``model`` called once per forward pass whose output ``A`` has
    shape ``(N, K, h, w)``. A forward hook keeps ``A``, a full backward hook its gradient;
    the channel weights are the spatial means of the gradient, ``w_k = mean(dscore/dA_k)``,
    and ``cam = relu(sum_k w_k A_k)``. The map is resized to ``(H, W)`` in NumPy with
    ``interpolation="bilinear"`` or ``"nearest"`` (the same sampling as
    ``F.interpolate(..., mode=..., align_corners=False)``), then divided into [0, 1] per
    sample by ``(cam - min) / (max - min)`` (a constant map becomes zeros). Example::

        heat = grad_cam(model, model.conv2, images, target=labels)
    """
    if interpolation not in ("bilinear", "nearest"):
        raise ValueError(f"interpolation must be 'bilinear' or 'nearest', got {interpolation!r}")
    activations: list[np.ndarray] = []
    gradients: list[np.ndarray] = []

    def keep_activation(module: Any, args: Any, output: Any) -> None:
        # NOTE: a copy, as a later in-place op (ReLU(inplace=True)) overwrites the output.
        activations.append(np.array(output.detach().numpy(), dtype=np.float64))

    def keep_gradient(module: Any, grad_input: Any, grad_output: Any) -> None:
        gradients.append(grad_output[0].detach().numpy().astype(np.float64))

    handles = [
        layer.register_forward_hook(keep_activation),
        layer.register_full_backward_hook(keep_gradient),
    ]
    try:
        input_tensor = _as_input(inputs)
        if input_tensor.ndim != 4:
            raise ValueError(f"grad_cam expects inputs of shape (N, C, H, W), got {inputs.shape}")
        _input_gradient(model, input_tensor, target)
    finally:
        for handle in handles:
            handle.remove()
    if len(activations) != 1 or len(gradients) != 1:
        raise RuntimeError(
            f"grad_cam needs a layer called once per forward pass, but it ran {len(activations)} "
            f"time(s) forward and {len(gradients)} time(s) backward"
        )
    activation, gradient = activations[0], gradients[0]
    if activation.ndim != 4:
        raise ValueError(
            f"grad_cam needs a layer output of shape (N, K, h, w), got {activation.shape}"
        )
    weights = gradient.mean(axis=(2, 3), keepdims=True)
    cam = np.maximum((weights * activation).sum(axis=1), 0.0)
    cam = resize(cam, input_tensor.shape[-2:], interpolation)
    low = cam.min(axis=(1, 2), keepdims=True)
    span = cam.max(axis=(1, 2), keepdims=True) - low
    return np.where(span > 0, (cam - low) / np.where(span > 0, span, 1.0), 0.0)


def resize(maps: np.ndarray, size: Sequence[int], interpolation: str = "bilinear") -> np.ndarray:
    """Resize the last two axes of ``maps`` to ``size`` with ``"bilinear"`` or
    ``"nearest"`` sampling, as ``F.interpolate(..., align_corners=False)`` samples.

    Example: ``resize(np.eye(2)[None], (4, 4)).shape == (1, 4, 4)``.
    """
    for axis, out_size in zip((-2, -1), size):
        maps = _resize_axis(maps, axis, int(out_size), interpolation)
    return maps


def _resize_axis(maps: np.ndarray, axis: int, out_size: int, interpolation: str) -> np.ndarray:
    in_size = maps.shape[axis]
    scale = in_size / out_size
    positions = np.arange(out_size, dtype=np.float64)
    if interpolation == "nearest":
        index = np.minimum(np.floor(positions * scale).astype(np.int64), in_size - 1)
        return np.take(maps, index, axis=axis)
    source = np.maximum((positions + 0.5) * scale - 0.5, 0.0)
    low = np.minimum(np.floor(source).astype(np.int64), in_size - 1)
    high = np.minimum(low + 1, in_size - 1)
    weight_shape = [1] * maps.ndim
    weight_shape[axis] = out_size
    weight = (source - low).reshape(weight_shape)
    return np.take(maps, low, axis=axis) * (1 - weight) + np.take(maps, high, axis=axis) * weight


# ---------------------------------------------------------------------------- helpers


def _clamp_negative_gradients(module: Any, grad_input: Any, grad_output: Any) -> tuple[Any, ...]:
    """The guided-backprop ReLU rule: let only positive gradients through."""
    return tuple(None if g is None else g.clamp(min=0) for g in grad_input)


def _as_input(inputs: Any) -> Tensor:
    """A fresh leaf that requires grad, holding a copy of ``inputs``."""
    source = inputs.detach() if isinstance(inputs, Tensor) else tensor(inputs)
    return source.clone().requires_grad_(True)


def _input_gradient(model: Any, inputs: Any, target: Target) -> np.ndarray:
    """``d output[i, target[i]] / d inputs`` summed over the batch, with ``model`` in eval
    mode."""
    leaf = _as_input(inputs)
    with _eval_mode(model):
        output = model(leaf)
        score = (output * _one_hot(output, target)).sum()
        (gradient,) = grad(score, leaf)
    return gradient.detach().numpy().astype(np.float64)


def _one_hot(output: Tensor, target: Target) -> Tensor:
    """A constant ``(N, classes)`` mask with a one at each sample's target class."""
    if output.ndim != 2:
        raise ValueError(f"the model must return scores of shape (N, classes), got {output.shape}")
    count, classes = output.shape
    if target is None:
        labels = output.detach().numpy().argmax(axis=1)
    else:
        raw = target.detach().numpy() if isinstance(target, Tensor) else target
        labels = np.broadcast_to(np.asarray(raw, dtype=np.int64), (count,))
    if labels.min() < 0 or labels.max() >= classes:
        raise IndexError(f"target out of range for {classes} classes: {labels.tolist()}")
    mask = np.zeros((count, classes))
    mask[np.arange(count), labels] = 1.0
    return tensor(mask, dtype=output.dtype)


@contextmanager
def _eval_mode(model: Any) -> Iterator[None]:
    """Put every module of ``model`` in eval mode; restore each one's own mode after."""
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        yield
    finally:
        for module, training in modes:
            module.training = training
