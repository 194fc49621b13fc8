"""The hand-written nodes whose backward is an algorithm (convolution, pooling,
normalization, embedding, padding, nll loss, bilinear) against torch's, for each layer
and option set:

- the node: class and ``name()``, its ``_saved_*`` and ``_raw_saved_*`` attributes (names
  and values: numbers equal, tensors close with the same dtype, ``requires_grad`` and
  ``grad_fn``), its edges, and the number of grads its hooks see;
- the order default pack hooks see the saved tensors in;
- the graph a ``create_graph=True`` gradient records (torch's double-backward nodes,
  ``ConvolutionBackwardBackward0`` ..., node by node with their edges), the saved
  attributes of those nodes, and the order node pre-hooks fire in during a second
  backward, with its values;
- ``gradcheck`` and ``gradgradcheck`` in float64.

Each row is ``(id, fn, leaves)``: ``fn(t, *leaves)`` runs the layer in library ``t`` on
float64 leaves made from ``leaves`` (shapes; ``("unit", shape)`` for values in (0, 1));
other operands (indices, targets, running statistics) are made inside ``fn``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, edge_positions, packed_arrays, reachable_nodes, signed


def _f(t: Any) -> Any:
    return t.nn.functional


def _const(t: Any, values: Any, dtype: Any = None) -> Any:
    return t.tensor(np.asarray(values), dtype=dtype)


_RNG = np.random.default_rng(7)
RUNNING_MEAN = _RNG.standard_normal(4)
RUNNING_VAR = _RNG.uniform(0.5, 1.5, 4)
INDICES = np.array([[0, 2, 2], [5, 1, 0]])
TARGET = np.array([0, 3, 1, 1, 2])
TARGET_4D = _RNG.integers(0, 4, (2, 3, 3))
CLASS_WEIGHT = _RNG.uniform(0.5, 2.0, 4)
PROBABILITIES = _RNG.uniform(0.05, 0.95, (3, 4))
SAMPLES = _RNG.uniform(0.0, 1.0, (2, 3, 3))
UNPOOL_2D = np.array([[[[0, 6], [9, 19]], [[5, 2], [12, 15]]]])
UNPOOL_3D = np.array([[[[[1], [6]], [[9], [14]]]]])


def _bn(t: Any, x: Any, training: bool, affine: tuple[Any, Any] = (None, None)) -> Any:
    running_mean = _const(t, RUNNING_MEAN, t.float64)
    running_var = _const(t, RUNNING_VAR, t.float64)
    return _f(t).batch_norm(x, running_mean, running_var, *affine, training=training)


def _module(t: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """A layer of library ``t`` in float64, its parameters filled from a seeded RNG."""
    module = getattr(t.nn, name)(*args, **kwargs).double()
    rng = np.random.default_rng(3)
    with t.no_grad():
        for parameter in module.parameters():
            parameter.copy_(_const(t, rng.standard_normal(tuple(parameter.shape))))
    return module


Row = tuple[str, Callable[..., Any], list[Any]]

ROWS: list[Row] = [
    # convolution
    ("conv2d", lambda t, x, w, b: _f(t).conv2d(x, w, b), [(2, 4, 5, 5), (3, 4, 3, 3), (3,)]),
    ("conv2d_no_bias", lambda t, x, w: _f(t).conv2d(x, w), [(2, 4, 5, 5), (3, 4, 3, 3)]),
    (
        "conv2d_stride_padding_dilation",
        lambda t, x, w, b: _f(t).conv2d(x, w, b, stride=2, padding=1, dilation=2),
        [(2, 4, 6, 5), (3, 4, 3, 2), (3,)],
    ),
    (
        "conv2d_groups",
        lambda t, x, w: _f(t).conv2d(x, w, groups=2, stride=(1, 2)),
        [(2, 4, 5, 5), (6, 2, 2, 2)],
    ),
    (
        "conv2d_same",
        lambda t, x, w: _f(t).conv2d(x, w, padding="same"),
        [(1, 2, 5, 5), (3, 2, 3, 3)],
    ),
    (
        "conv2d_same_even_kernel",
        lambda t, x, w: _f(t).conv2d(x, w, padding="same"),
        [(1, 2, 5, 5), (3, 2, 2, 2)],
    ),
    ("conv2d_unbatched", lambda t, x, w: _f(t).conv2d(x, w, padding=1), [(2, 4, 4), (3, 2, 3, 3)]),
    (
        "conv2d_weight_only",
        lambda t, w: _f(t).conv2d(_const(t, np.ones((1, 2, 4, 4))), w),
        [(3, 2, 2, 2)],
    ),
    (
        "conv1d",
        lambda t, x, w, b: _f(t).conv1d(x, w, b, stride=2, padding=1),
        [(2, 4, 7), (3, 4, 3), (3,)],
    ),
    (
        "conv1d_groups",
        lambda t, x, w: _f(t).conv1d(x, w, groups=2, dilation=2),
        [(2, 4, 7), (4, 2, 3)],
    ),
    (
        "conv_transpose2d",
        lambda t, x, w, b: _f(t).conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [(2, 4, 3, 3), (4, 3, 3, 3), (3,)],
    ),
    (
        "conv_transpose2d_groups",
        lambda t, x, w: _f(t).conv_transpose2d(x, w, groups=2, dilation=2),
        [(2, 4, 3, 3), (4, 2, 2, 2)],
    ),
    (
        "conv2d_module",
        lambda t, x: _module(t, "Conv2d", 2, 3, 3, stride=2, padding=1)(x),
        [(2, 2, 5, 5)],
    ),
    (
        "conv_transpose2d_module_output_size",
        lambda t, x: _module(t, "ConvTranspose2d", 2, 3, 3, stride=2, padding=1)(x, [8, 8]),
        [(1, 2, 4, 4)],
    ),
    # max pooling
    ("max_pool2d", lambda t, x: _f(t).max_pool2d(x, 2), [(2, 3, 5, 5)]),
    (
        "max_pool2d_stride_padding_ceil",
        lambda t, x: _f(t).max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
        [(2, 3, 5, 6)],
    ),
    (
        "max_pool2d_dilation",
        lambda t, x: _f(t).max_pool2d(x, (2, 3), stride=(1, 2), dilation=2),
        [(2, 3, 5, 7)],
    ),
    (
        "max_pool2d_indices",
        lambda t, x: _f(t).max_pool2d(x, 2, return_indices=True)[0],
        [(3, 4, 4)],
    ),
    ("max_pool2d_module", lambda t, x: t.nn.MaxPool2d(2, padding=1)(x), [(2, 3, 4, 4)]),
    ("max_pool1d", lambda t, x: _f(t).max_pool1d(x, 2), [(2, 3, 7)]),
    # average pooling
    ("avg_pool2d", lambda t, x: _f(t).avg_pool2d(x, 2), [(2, 3, 5, 5)]),
    (
        "avg_pool2d_exclude_pad_ceil",
        lambda t, x: _f(t).avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        [(2, 3, 5, 6)],
    ),
    (
        "avg_pool2d_divisor",
        lambda t, x: _f(t).avg_pool2d(x, (2, 3), stride=1, divisor_override=4),
        [(2, 3, 4, 5)],
    ),
    ("avg_pool2d_module", lambda t, x: t.nn.AvgPool2d(2, padding=1)(x), [(3, 4, 4)]),
    ("adaptive_avg_pool2d", lambda t, x: _f(t).adaptive_avg_pool2d(x, (2, 3)), [(2, 3, 5, 7)]),
    ("adaptive_avg_pool2d_one", lambda t, x: _f(t).adaptive_avg_pool2d(x, 1), [(2, 3, 4, 4)]),
    ("adaptive_avg_pool2d_module", lambda t, x: t.nn.AdaptiveAvgPool2d((3, None))(x), [(3, 5, 4)]),
    # batch norm
    (
        "batch_norm_train",
        lambda t, x, w, b: _bn(t, x, True, (w, b)),
        [(3, 4, 2, 3), (4,), (4,)],
    ),
    (
        "batch_norm_train_no_stats",
        lambda t, x: _f(t).batch_norm(x, None, None, training=True),
        [(3, 4, 2, 3)],
    ),
    ("batch_norm_eval", lambda t, x, w, b: _bn(t, x, False, (w, b)), [(3, 4, 2, 3), (4,), (4,)]),
    ("batch_norm_eval_no_affine", lambda t, x: _bn(t, x, False), [(3, 4, 2, 3)]),
    ("batch_norm_1d", lambda t, x, w: _bn(t, x, True, (w, None)), [(5, 4), (4,)]),
    ("batch_norm_module", lambda t, x: _module(t, "BatchNorm1d", 4)(x), [(3, 4, 5)]),
    (
        "batch_norm_module_eval",
        lambda t, x: _module(t, "BatchNorm2d", 4).eval()(x),
        [(2, 4, 3, 3)],
    ),
    # layer and group norm
    (
        "layer_norm",
        lambda t, x, w, b: _f(t).layer_norm(x, (2, 3), w, b),
        [(3, 4, 2, 3), (2, 3), (2, 3)],
    ),
    ("layer_norm_no_affine", lambda t, x: _f(t).layer_norm(x, (3,)), [(3, 4, 3)]),
    ("layer_norm_module", lambda t, x: _module(t, "LayerNorm", 5)(x), [(2, 3, 5)]),
    (
        "group_norm",
        lambda t, x, w, b: _f(t).group_norm(x, 2, w, b),
        [(3, 4, 2, 3), (4,), (4,)],
    ),
    ("group_norm_no_affine", lambda t, x: _f(t).group_norm(x, 4), [(2, 4, 3)]),
    ("group_norm_module", lambda t, x: _module(t, "GroupNorm", 3, 6)(x), [(2, 6, 2, 2)]),
    # embedding
    ("embedding", lambda t, w: _f(t).embedding(_const(t, INDICES), w), [(6, 3)]),
    (
        "embedding_padding_idx",
        lambda t, w: _f(t).embedding(_const(t, INDICES), w, padding_idx=2),
        [(6, 3)],
    ),
    (
        "embedding_negative_padding_idx",
        lambda t, w: _f(t).embedding(_const(t, INDICES), w, padding_idx=-1),
        [(6, 3)],
    ),
    (
        "embedding_scale_grad_by_freq",
        lambda t, w: _f(t).embedding(_const(t, INDICES), w, scale_grad_by_freq=True),
        [(6, 3)],
    ),
    (
        "embedding_module",
        lambda t: _module(t, "Embedding", 6, 3, padding_idx=0)(_const(t, INDICES)),
        [],
    ),
    # padding
    ("pad_constant", lambda t, x: _f(t).pad(x, (1, 2, 0, 1)), [(2, 3, 4)]),
    ("pad_constant_negative", lambda t, x: _f(t).pad(x, (-1, 2), value=3.0), [(2, 3, 4)]),
    ("pad_reflect_1d", lambda t, x: _f(t).pad(x, (2, 1), mode="reflect"), [(2, 3, 4)]),
    ("pad_reflect_2d", lambda t, x: _f(t).pad(x, (2, 1, 1, 2), mode="reflect"), [(2, 3, 4, 4)]),
    (
        "pad_reflect_3d",
        lambda t, x: _f(t).pad(x, (1, 1, 0, 2, 1, 0), mode="reflect"),
        [(1, 2, 3, 4, 3)],
    ),
    ("pad_replicate_1d", lambda t, x: _f(t).pad(x, (2, 1), mode="replicate"), [(3, 4)]),
    ("pad_replicate_2d", lambda t, x: _f(t).pad(x, (2, 1, 1, 2), mode="replicate"), [(2, 3, 3, 4)]),
    (
        "pad_replicate_3d",
        lambda t, x: _f(t).pad(x, (1, 1, 1, 0, 1, 1), mode="replicate"),
        [(2, 3, 3, 4)],
    ),
    ("pad_circular_1d", lambda t, x: _f(t).pad(x, (2, 1), mode="circular"), [(2, 3, 4)]),
    ("pad_circular_2d", lambda t, x: _f(t).pad(x, (1, 2, 2, 0), mode="circular"), [(2, 3, 4, 5)]),
    (
        "pad_circular_crop",
        lambda t, x: _f(t).pad(x, (1, -1, -1, 2), mode="circular"),
        [(1, 2, 4, 5)],
    ),
    # convolution, pooling, padding, upsampling and vision layers of 1-3 spatial dims
    (
        "conv3d",
        lambda t, x, w, b: _f(t).conv3d(x, w, b, stride=(1, 2, 1), padding=1),
        [(1, 2, 3, 4, 3), (2, 2, 2, 2, 2), (2,)],
    ),
    (
        "conv_transpose1d",
        lambda t, x, w, b: _f(t).conv_transpose1d(x, w, b, stride=2, output_padding=1),
        [(2, 3, 4), (3, 2, 3), (2,)],
    ),
    (
        "conv_transpose3d_groups",
        lambda t, x, w: _f(t).conv_transpose3d(x, w, groups=2, dilation=(1, 2, 1)),
        [(1, 4, 2, 3, 2), (4, 1, 2, 2, 2)],
    ),
    (
        "conv3d_module",
        lambda t, x: _module(t, "Conv3d", 2, 2, 2, padding="same")(x),
        [(1, 2, 3, 3, 3)],
    ),
    ("max_pool3d", lambda t, x: _f(t).max_pool3d(x, 2, stride=1, padding=1), [(1, 2, 3, 3, 4)]),
    (
        "max_pool3d_module_indices",
        lambda t, x: t.nn.MaxPool3d((2, 1, 2), return_indices=True, ceil_mode=True)(x)[0],
        [(2, 3, 3, 5)],
    ),
    ("avg_pool1d", lambda t, x: _f(t).avg_pool1d(x, 3, 2, 1), [(2, 3, 7)]),
    (
        "avg_pool3d",
        lambda t, x: _f(t).avg_pool3d(x, 2, 1, 1, ceil_mode=True, count_include_pad=False),
        [(1, 2, 3, 3, 4)],
    ),
    ("avg_pool3d_divisor", lambda t, x: _f(t).avg_pool3d(x, 2, divisor_override=3), [(2, 4, 4, 4)]),
    ("adaptive_avg_pool1d", lambda t, x: _f(t).adaptive_avg_pool1d(x, 3), [(2, 3, 7)]),
    (
        "adaptive_avg_pool3d",
        lambda t, x: _f(t).adaptive_avg_pool3d(x, (2, None, 3)),
        [(1, 2, 3, 4, 5)],
    ),
    ("adaptive_avg_pool3d_one", lambda t, x: t.nn.AdaptiveAvgPool3d(1)(x), [(2, 2, 3, 2)]),
    ("adaptive_max_pool1d", lambda t, x: _f(t).adaptive_max_pool1d(x, 3), [(2, 3, 7)]),
    ("adaptive_max_pool2d", lambda t, x: _f(t).adaptive_max_pool2d(x, (3, 2)), [(2, 3, 5, 5)]),
    (
        "adaptive_max_pool3d",
        lambda t, x: t.nn.AdaptiveMaxPool3d(2, return_indices=True)(x)[0],
        [(1, 2, 3, 4, 5)],
    ),
    (
        "fractional_max_pool2d",
        lambda t, x: _f(t).fractional_max_pool2d(
            x, 2, output_size=(3, 4), _random_samples=_const(t, SAMPLES[:, :, :2], t.float64)
        ),
        [(2, 3, 5, 6)],
    ),
    (
        "fractional_max_pool3d",
        lambda t, x: t.nn.FractionalMaxPool3d(
            2, output_ratio=0.5, _random_samples=_const(t, SAMPLES[:1, :1], t.float64)
        )(x),
        [(1, 1, 4, 4, 5)],
    ),
    (
        "max_unpool2d",
        lambda t, x: _f(t).max_unpool2d(x, _const(t, UNPOOL_2D), 2, output_size=(5, 4)),
        [(1, 2, 2, 2)],
    ),
    ("max_unpool3d", lambda t, x: t.nn.MaxUnpool3d(2)(x, _const(t, UNPOOL_3D)), [(1, 1, 2, 2, 1)]),
    ("lp_pool2d", lambda t, x: _f(t).lp_pool2d(x, 3, 2, ceil_mode=True), [("unit", (2, 3, 5))]),
    (
        "reflection_pad3d_module",
        lambda t, x: t.nn.ReflectionPad3d((1, 0, 2, 1, 0, 1))(x),
        [(1, 2, 3, 3, 4)],
    ),
    ("zero_pad2d_module", lambda t, x: t.nn.ZeroPad2d((1, -1, 2, 0))(x), [(2, 3, 4)]),
    ("circular_pad3d_module", lambda t, x: t.nn.CircularPad3d(1)(x), [(1, 1, 2, 2, 2)]),
    ("interpolate_nearest1d", lambda t, x: _f(t).interpolate(x, scale_factor=1.7), [(2, 3, 4)]),
    ("interpolate_nearest2d", lambda t, x: _f(t).interpolate(x, size=(5, 3)), [(1, 2, 3, 4)]),
    (
        "interpolate_nearest3d_exact",
        lambda t, x: _f(t).interpolate(x, scale_factor=(2, 1, 0.5), mode="nearest-exact"),
        [(1, 2, 2, 3, 4)],
    ),
    (
        "interpolate_linear",
        lambda t, x: _f(t).interpolate(x, size=7, mode="linear", align_corners=True),
        [(2, 3, 4)],
    ),
    (
        "interpolate_bilinear",
        lambda t, x: t.nn.Upsample(scale_factor=2, mode="bilinear")(x),
        [(1, 2, 3, 4)],
    ),
    (
        "interpolate_bicubic",
        lambda t, x: _f(t).interpolate(x, size=(5, 3), mode="bicubic", align_corners=False),
        [(1, 2, 3, 4)],
    ),
    (
        "interpolate_trilinear",
        lambda t, x: _f(t).interpolate(x, scale_factor=(1.5, 2, 1), mode="trilinear"),
        [(1, 2, 2, 3, 2)],
    ),
    (
        "interpolate_bilinear_antialias",
        lambda t, x: _f(t).interpolate(x, size=(3, 2), mode="bilinear", antialias=True),
        [(1, 2, 5, 6)],
    ),
    (
        "interpolate_bicubic_antialias",
        lambda t, x: _f(t).interpolate(x, scale_factor=0.6, mode="bicubic", antialias=True),
        [(1, 2, 5, 6)],
    ),
    ("pixel_shuffle", lambda t, x: t.nn.PixelShuffle(2)(x), [(2, 8, 2, 3)]),
    ("pixel_unshuffle", lambda t, x: t.pixel_unshuffle(x, 2), [(2, 2, 4, 2)]),
    ("channel_shuffle", lambda t, x: t.nn.ChannelShuffle(2)(x), [(2, 6, 3)]),
    ("unfold", lambda t, x: _f(t).unfold(x, (2, 3), padding=1, stride=(2, 1)), [(2, 2, 4, 5)]),
    ("fold", lambda t, x: t.nn.Fold((3, 4), 2, dilation=(1, 2))(x), [(1, 8, 4)]),
    (
        "affine_grid",
        lambda t, x: _f(t).affine_grid(x, (2, 3, 3, 4), align_corners=False),
        [(2, 2, 3)],
    ),
    (
        "affine_grid_3d",
        lambda t, x: _f(t).affine_grid(x, (1, 2, 2, 3, 2), align_corners=True),
        [(1, 3, 4)],
    ),
    (
        "grid_sample",
        lambda t, x, g: _f(t).grid_sample(x, g, align_corners=False),
        [(2, 2, 3, 4), (2, 3, 2, 2)],
    ),
    (
        "grid_sample_bicubic_border",
        lambda t, x, g: _f(t).grid_sample(
            x, g, mode="bicubic", padding_mode="border", align_corners=True
        ),
        [(1, 2, 3, 4), (1, 2, 2, 2)],
    ),
    (
        "grid_sample_nearest_reflection",
        lambda t, x, g: _f(t).grid_sample(
            x, g, mode="nearest", padding_mode="reflection", align_corners=False
        ),
        [(1, 2, 3, 4), (1, 2, 2, 2)],
    ),
    (
        "grid_sample_3d",
        lambda t, x, g: _f(t).grid_sample(x, g, padding_mode="reflection", align_corners=True),
        [(1, 2, 2, 3, 2), (1, 2, 1, 2, 3)],
    ),
    # negative log-likelihood
    ("nll_loss", lambda t, x: _f(t).nll_loss(x, _const(t, TARGET)), [(5, 4)]),
    (
        "nll_loss_weight_ignore_sum",
        lambda t, x: _f(t).nll_loss(
            x, _const(t, TARGET), _const(t, CLASS_WEIGHT), ignore_index=1, reduction="sum"
        ),
        [(5, 4)],
    ),
    (
        "nll_loss_none",
        lambda t, x: _f(t).nll_loss(x, _const(t, TARGET), reduction="none"),
        [(5, 4)],
    ),
    ("nll_loss_1d", lambda t, x: _f(t).nll_loss(x, _const(t, TARGET[0])), [(4,)]),
    ("nll_loss_2d", lambda t, x: _f(t).nll_loss(x, _const(t, TARGET_4D)), [(2, 4, 3, 3)]),
    (
        "nll_loss_2d_weight_none",
        lambda t, x: _f(t).nll_loss(
            x, _const(t, TARGET_4D), _const(t, CLASS_WEIGHT), reduction="none"
        ),
        [(2, 4, 3, 3)],
    ),
    (
        "nll_loss_3d",
        lambda t, x: _f(t).nll_loss(x, _const(t, TARGET_4D[:, 0]), reduction="none"),
        [(2, 4, 3)],
    ),
    ("cross_entropy", lambda t, x: _f(t).cross_entropy(x, _const(t, TARGET)), [(5, 4)]),
    (
        "cross_entropy_probabilities",
        lambda t, x: _f(t).cross_entropy(x, _const(t, PROBABILITIES), label_smoothing=0.2),
        [(3, 4)],
    ),
    (
        "cross_entropy_label_smoothing",
        lambda t, x: _f(t).cross_entropy(x, _const(t, TARGET), label_smoothing=0.1),
        [(5, 4)],
    ),
    # the losses of the derivative table, through their modules
    ("mse_loss", lambda t, x: t.nn.MSELoss()(x, _const(t, PROBABILITIES)), [(3, 4)]),
    ("l1_loss", lambda t, x: t.nn.L1Loss(reduction="sum")(x, _const(t, PROBABILITIES)), [(3, 4)]),
    (
        "smooth_l1_loss",
        lambda t, x: t.nn.SmoothL1Loss(beta=0.5)(x, _const(t, PROBABILITIES)),
        [(3, 4)],
    ),
    ("huber_loss", lambda t, x: t.nn.HuberLoss(delta=0.3)(x, _const(t, PROBABILITIES)), [(3, 4)]),
    ("bce_loss", lambda t, x: t.nn.BCELoss()(x, _const(t, PROBABILITIES)), [("unit", (3, 4))]),
    (
        "bce_loss_weight",
        lambda t, x: _f(t).binary_cross_entropy(
            x, _const(t, PROBABILITIES), _const(t, PROBABILITIES + 0.5), reduction="sum"
        ),
        [("unit", (3, 4))],
    ),
    (
        "mse_loss_weight",
        lambda t, x: _f(t).mse_loss(x, _const(t, PROBABILITIES), weight=_const(t, PROBABILITIES)),
        [(3, 4)],
    ),
    (
        "bce_with_logits_loss",
        lambda t, x: t.nn.BCEWithLogitsLoss(pos_weight=_const(t, [1.0, 2.0, 0.5, 1.5]))(
            x, _const(t, PROBABILITIES)
        ),
        [(3, 4)],
    ),
    # bilinear
    (
        "bilinear",
        lambda t, a, b, w, c: _f(t).bilinear(a, b, w, c),
        [(5, 3), (5, 4), (2, 3, 4), (2,)],
    ),
    (
        "bilinear_batched",
        lambda t, a, b, w: _f(t).bilinear(a, b, w),
        [(2, 3, 3), (2, 3, 4), (2, 3, 4)],
    ),
]

IDS = [row[0] for row in ROWS]

# The layers whose gradient is not the derivative of their forward, by torch's design
# (``padding_idx`` rows get none, ``scale_grad_by_freq`` divides): no first-order gradcheck.
NOT_A_DERIVATIVE = {
    "embedding_padding_idx",
    "embedding_negative_padding_idx",
    "embedding_scale_grad_by_freq",
    "embedding_module",
}
# torch's ``embedding_dense_double_backward`` leaves out the ``scale_grad_by_freq``
# division (its own gradgradcheck fails there); hookgrad's second derivatives are the
# derivative of its first ones, so they are compared with gradgradcheck only.
TORCH_DOUBLE_BACKWARD_WRONG = {"embedding_scale_grad_by_freq"}

# The nodes of this family: their ``_saved_*`` values are compared wherever they appear.
NODES = {
    "ConvolutionBackward0",
    "ConvolutionBackwardBackward0",
    "MaxPool2DWithIndicesBackward0",
    "MaxPool2DWithIndicesBackwardBackward0",
    "AvgPool2DBackward0",
    "AvgPool2DBackwardBackward0",
    "AdaptiveAvgPool2DBackward0",
    "AdaptiveAvgPool2DBackwardBackward0",
    "NativeBatchNormBackward0",
    "NativeBatchNormBackwardBackward0",
    "NativeLayerNormBackward0",
    "NativeLayerNormBackwardBackward0",
    "NativeGroupNormBackward0",
    "UnsqueezeBackward1",
    "EmbeddingBackward0",
    "EmbeddingDenseBackwardBackward0",
    "ConstantPadNdBackward0",
    "ReflectionPad1DBackward0",
    "ReflectionPad2DBackward0",
    "ReflectionPad3DBackward0",
    "ReflectionPad1DBackwardBackward0",
    "ReflectionPad2DBackwardBackward0",
    "ReflectionPad3DBackwardBackward0",
    "ReplicationPad1DBackward0",
    "ReplicationPad2DBackward0",
    "ReplicationPad3DBackward0",
    "ReplicationPad1DBackwardBackward0",
    "ReplicationPad2DBackwardBackward0",
    "ReplicationPad3DBackwardBackward0",
    "MaxPool3DWithIndicesBackward0",
    "MaxPool3DWithIndicesBackwardBackward0",
    "AvgPool3DBackward0",
    "AvgPool3DBackwardBackward0",
    "AdaptiveAvgPool3DBackward0",
    "AdaptiveAvgPool3DBackwardBackward0",
    "AdaptiveMaxPool2DBackward0",
    "AdaptiveMaxPool2DBackwardBackward0",
    "AdaptiveMaxPool3DBackward0",
    "AdaptiveMaxPool3DBackwardBackward0",
    "FractionalMaxPool2DBackward0",
    "FractionalMaxPool2DBackwardBackward0",
    "FractionalMaxPool3DBackward0",
    "FractionalMaxPool3DBackwardBackward0",
    "MaxUnpool2DBackward0",
    "MaxUnpool3DBackward0",
    "UpsampleNearest1DBackward0",
    "UpsampleNearest1DBackwardBackward0",
    "UpsampleNearest2DBackward0",
    "UpsampleNearest2DBackwardBackward0",
    "UpsampleNearestExact3DBackward0",
    "UpsampleNearestExact3DBackwardBackward0",
    "UpsampleLinear1DBackward0",
    "UpsampleLinear1DBackwardBackward0",
    "UpsampleBilinear2DBackward0",
    "UpsampleBilinear2DBackwardBackward0",
    "UpsampleBicubic2DBackward0",
    "UpsampleBicubic2DBackwardBackward0",
    "UpsampleTrilinear3DBackward0",
    "UpsampleTrilinear3DBackwardBackward0",
    "UpsampleBilinear2DAaBackward0",
    "UpsampleBilinear2DAaBackwardBackward0",
    "UpsampleBicubic2DAaBackward0",
    "UpsampleBicubic2DAaBackwardBackward0",
    "PixelShuffleBackward0",
    "PixelUnshuffleBackward0",
    "ChannelShuffleBackward0",
    "Im2ColBackward0",
    "Col2ImBackward0",
    "AffineGridGeneratorBackward0",
    "GridSampler2DBackward0",
    "GridSampler2DBackwardBackward0",
    "GridSampler3DBackward0",
    "GridSampler3DBackwardBackward0",
    "NllLossBackward0",
    "NllLoss2DBackward0",
    "NllLossBackwardBackward0",
    "NllLoss2DBackwardBackward0",
    "TrilinearBackward0",
    # the losses of the derivative table (hookgrad/ops/loss.py)
    "MseLossBackward0",
    "MseLossBackwardBackward0",
    "SmoothL1LossBackward0",
    "SmoothL1LossBackwardBackward0",
    "HuberLossBackward0",
    "HuberLossBackwardBackward0",
    "BinaryCrossEntropyBackward0",
    "BinaryCrossEntropyBackwardBackward0",
    "BinaryCrossEntropyWithLogitsBackward0",
}


# -- helpers ---------------------------------------------------------------------------------


def _leaves(t: Any, specs: list[Any]) -> list[Any]:
    rng = np.random.default_rng(0)
    leaves = []
    for spec in specs:
        if spec[0] == "unit":
            values = rng.uniform(0.05, 0.95, spec[1])
        else:
            values = rng.standard_normal(spec)
        leaves.append(t.tensor(values, dtype=t.float64, requires_grad=True))
    return leaves


def _run(t: Any, fn: Callable[..., Any], specs: list[Any]) -> tuple[list[Any], Any]:
    leaves = _leaves(t, specs)
    return leaves, fn(t, *leaves)


def _parameters(y: Any) -> list[Any]:
    """The leaves that require grad in ``y``'s graph (a module's parameters included), in
    the order a walk meets them."""
    found = []
    for node in _nodes(y.grad_fn):
        variable = getattr(node, "variable", None)
        if variable is not None:
            found.append(variable)
    return found


def _nodes(root: Any) -> list[Any]:
    return reachable_nodes([root])


def _graph(root: Any) -> list[tuple[str, list[tuple[int | None, int]]]]:
    """Each node reachable from ``root`` (depth first) with its edges as positions."""
    nodes = _nodes(root)
    return [(type(node).__name__, edges) for node, edges in zip(nodes, edge_positions(nodes))]


def _saved(node: Any) -> dict[str, Any]:
    """A node's ``_saved_*`` attributes by name: tensors as (values, dtype, requires_grad,
    grad_fn name), other values as they compare."""
    saved = {}
    for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
        value = getattr(node, name)
        if hasattr(value, "grad_fn"):
            grad_fn = None if value.grad_fn is None else type(value.grad_fn).__name__
            value = (
                np.asarray(value.detach().numpy()),
                str(value.dtype),
                value.requires_grad,
                grad_fn,
            )
        saved[name] = signed(value)
    return saved


def _assert_same_saved(ours: Any, theirs: Any) -> None:
    name = type(theirs).__name__
    mine, expected = _saved(ours), _saved(theirs)
    assert sorted(mine) == sorted(expected), name
    assert sorted(n for n in dir(ours) if n.startswith("_raw_saved_")) == sorted(
        n for n in dir(theirs) if n.startswith("_raw_saved_")
    ), name
    for key, value in expected.items():
        if isinstance(value, tuple) and value and isinstance(value[0], np.ndarray):
            assert mine[key][1:] == value[1:], (name, key)
            assert_close(mine[key][0], value[0], rtol=1e-10, atol=1e-12)
        else:
            assert mine[key] == value, (name, key)


def _family_node(y: Any) -> Any:
    """The first node of this family in ``y``'s graph (the one the row is about), or its
    root where the layer is a composite of other nodes (``l1_loss``, a mean)."""
    nodes = _nodes(y.grad_fn)
    return next((node for node in nodes if type(node).__name__ in NODES), nodes[0])


def _gradients(t: Any, fn: Callable[..., Any], specs: list[Any]) -> tuple[Any, list, list]:
    """``y``, the leaves that require grad, and their ``create_graph=True`` gradients for
    a seed that requires grad too (its gradient is the last leaf): so the backward of
    even a linear layer records its double-backward node."""
    leaves, y = _run(t, fn, specs)
    leaves = leaves + [p for p in _parameters(y) if all(p is not leaf for leaf in leaves)]
    seed = t.linspace(0.5, 1.5, y.numel(), dtype=y.dtype).reshape(y.shape).requires_grad_()
    grads = t.autograd.grad(y, leaves, seed, create_graph=True, allow_unused=True)
    return y, leaves + [seed], list(grads)


# -- the node --------------------------------------------------------------------------------


@pytest.mark.parametrize("fn, specs", [row[1:] for row in ROWS], ids=IDS)
def test_node_matches_torch(fn, specs, torch):
    _, ours = _run(hookgrad, fn, specs)
    _, theirs = _run(torch, fn, specs)
    assert_close(ours, theirs, rtol=1e-10, atol=1e-12)
    assert _graph(ours.grad_fn) == _graph(theirs.grad_fn)
    ours, theirs = _family_node(ours), _family_node(theirs)
    assert type(ours).__name__ == type(theirs).__name__
    assert ours.name() == theirs.name()
    if type(theirs).__name__ in NODES:
        _assert_same_saved(ours, theirs)


@pytest.mark.parametrize("fn, specs", [row[1:] for row in ROWS], ids=IDS)
def test_hooks_see_torch_grad_tuples(fn, specs, torch):
    """A node's pre-hook sees one grad per output of the node, its post-hook one per edge
    (torch's ``NativeGroupNormBackward0`` has three outputs, batch norm's one)."""

    def arity(t: Any) -> list[tuple[int, list[bool], list[bool]]]:
        _, y = _run(t, fn, specs)
        node, seen = _family_node(y), []
        node.register_prehook(lambda grads: seen.append([g is None for g in grads]))
        node.register_hook(lambda inputs, outputs: seen.append([g is None for g in inputs]))
        y.sum().backward()
        return seen

    assert arity(hookgrad) == arity(torch)


@pytest.mark.parametrize("fn, specs", [row[1:] for row in ROWS], ids=IDS)
def test_pack_order_matches_torch(fn, specs, torch):
    """Default pack hooks see the saved tensors (torch's ``result1`` ... included) in
    torch's order."""

    def packed(t: Any) -> list[np.ndarray]:
        leaves = _leaves(t, specs)
        return packed_arrays(t, lambda lib: fn(lib, *leaves))

    ours, theirs = packed(hookgrad), packed(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert_close(a, b, rtol=1e-10, atol=1e-12)


# -- the double backward ---------------------------------------------------------------------


@pytest.mark.parametrize("fn, specs", [row[1:] for row in ROWS], ids=IDS)
def test_double_backward_graph_matches_torch(fn, specs, torch):
    """The graph of each ``create_graph=True`` gradient, node by node with its edges, and
    the saved attributes of this family's nodes in it."""
    _, _, ours = _gradients(hookgrad, fn, specs)
    _, _, theirs = _gradients(torch, fn, specs)
    assert len(ours) == len(theirs)
    for mine, expected in zip(ours, theirs):
        if expected is None or expected.grad_fn is None:
            assert mine is None or mine.grad_fn is None
            continue
        assert _graph(mine.grad_fn) == _graph(expected.grad_fn)
        for a, b in zip(_nodes(mine.grad_fn), _nodes(expected.grad_fn)):
            if type(b).__name__ in NODES:
                _assert_same_saved(a, b)


@pytest.mark.parametrize("name, fn, specs", ROWS, ids=IDS)
def test_second_backward_matches_torch(name, fn, specs, torch):
    """A second backward through the gradients: node pre-hooks fire in torch's order, and
    the second derivatives are torch's."""

    def second(t: Any) -> tuple[list[str], list[Any], list[Any]]:
        _, leaves, grads = _gradients(t, fn, specs)
        used = [g for g in grads if g is not None and g.grad_fn is not None]
        fired: list[str] = []
        for g in used:
            for node in _nodes(g.grad_fn):
                name = type(node).__name__
                node.register_prehook(lambda grads, name=name: fired.append(name))
        total = sum((g * g).sum() for g in used)
        total.backward()
        return fired, grads, [leaf.grad for leaf in leaves]

    fired, grads, second_grads = second(hookgrad)
    expected_fired, expected_grads, expected_second = second(torch)
    assert fired == expected_fired
    assert_close(grads, _forced(expected_grads), rtol=1e-10, atol=1e-12)
    if name not in TORCH_DOUBLE_BACKWARD_WRONG:
        assert_close(second_grads, _forced(expected_second), rtol=1e-8, atol=1e-10)


def _forced(tensors: list[Any]) -> list[Any]:
    """torch's tensors as arrays (a ``ZeroTensor`` gradient included)."""
    return [None if t is None else t.detach().numpy(force=True) for t in tensors]


# -- gradients against finite differences ----------------------------------------------------


def _checked(fn: Callable[..., Any], specs: list[Any]) -> tuple[Callable[..., Any], list[Any]]:
    leaves, _ = _run(hookgrad, fn, specs)
    return (lambda *xs: fn(hookgrad, *xs)), leaves


@pytest.mark.parametrize(
    "fn, specs",
    [row[1:] for row in ROWS if row[0] not in NOT_A_DERIVATIVE and row[2]],
    ids=[row[0] for row in ROWS if row[0] not in NOT_A_DERIVATIVE and row[2]],
)
def test_gradcheck(fn, specs):
    function, leaves = _checked(fn, specs)
    assert hookgrad.autograd.gradcheck(function, tuple(leaves))


@pytest.mark.parametrize(
    "fn, specs", [row[1:] for row in ROWS if row[2]], ids=[row[0] for row in ROWS if row[2]]
)
def test_gradgradcheck(fn, specs):
    function, leaves = _checked(fn, specs)
    assert hookgrad.autograd.gradgradcheck(function, tuple(leaves))


def test_embedding_double_backward_divides_by_frequency(torch):
    """Where torch's double backward leaves out ``scale_grad_by_freq``, hookgrad's is the
    derivative of its backward: the picked rows divided by their index's count."""
    weight = hookgrad.zeros(6, 3, dtype=hookgrad.float64, requires_grad=True)
    y = hookgrad.nn.functional.embedding(_const(hookgrad, INDICES), weight, scale_grad_by_freq=True)
    grad_output = hookgrad.ones(2, 3, 3, dtype=hookgrad.float64, requires_grad=True)
    (grad_weight,) = hookgrad.autograd.grad(y, weight, grad_output, create_graph=True)
    seed = hookgrad.arange(6, dtype=hookgrad.float64).reshape(6, 1).expand(6, 3)
    (result,) = hookgrad.autograd.grad(grad_weight, grad_output, seed)
    counts = np.bincount(INDICES.reshape(-1), minlength=6)[INDICES]
    expected = (INDICES / counts)[..., None].repeat(3, -1)
    assert_close(result, expected, rtol=1e-12, atol=0)


# -- running statistics ------------------------------------------------------------------------


def test_batch_norm_updates_running_statistics_without_a_version_bump(torch):
    """As torch's kernel: the running statistics move in place, their version unchanged
    (the node saved them, and backward still unpacks them)."""
    seen = []
    for t in (hookgrad, torch):
        (x,) = _leaves(t, [(3, 4, 2, 2)])
        running_mean = _const(t, RUNNING_MEAN, t.float64)
        running_var = _const(t, RUNNING_VAR, t.float64)
        y = _f(t).batch_norm(x, running_mean, running_var, training=True, momentum=0.3)
        versions = (running_mean._version, running_var._version)
        y.pow(2).sum().backward()
        seen.append((running_mean.numpy().copy(), running_var.numpy().copy(), versions, x.grad))
    assert seen[0][2] == seen[1][2] == (0, 0)
    assert_close(seen[0][:2], seen[1][:2], rtol=1e-12, atol=1e-14)
    assert_close(seen[0][3], seen[1][3], rtol=1e-10, atol=1e-12)
