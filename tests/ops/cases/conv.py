"""Op cases: convolution, pooling, upsampling, vision and normalization ops (through
``nn.functional``)."""

from tests.ops.cases.spec import OpCase


def _f(lib):
    return lib.nn.functional


CASES = [
    OpCase("conv2d", lambda t, x, w, b: _f(t).conv2d(x, w, b), ((2, 3, 5, 5), (4, 3, 3, 3), (4,))),
    OpCase(
        "conv2d_strided_grouped",
        lambda t, x, w: _f(t).conv2d(x, w, stride=2, padding=(1, 0), dilation=(1, 2), groups=2),
        ((2, 4, 6, 7), (4, 2, 3, 2)),
    ),
    OpCase("conv1d", lambda t, x, w: _f(t).conv1d(x, w, padding=1), ((2, 3, 6), (2, 3, 3))),
    OpCase(
        "conv_transpose2d",
        lambda t, x, w, b: _f(t).conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        ((1, 3, 3, 4), (3, 2, 3, 3), (2,)),
    ),
    OpCase(
        "max_pool2d",
        lambda t, x: _f(t).max_pool2d(x, 3, 2, padding=1, ceil_mode=True),
        ((2, 2, 6, 5),),
        distinct=True,
    ),
    OpCase("avg_pool2d", lambda t, x: _f(t).avg_pool2d(x, 3, 2, padding=1), ((2, 2, 6, 5),)),
    OpCase("adaptive_avg_pool2d", lambda t, x: _f(t).adaptive_avg_pool2d(x, (2, 3)), ((2, 5, 7),)),
    # 1-d and 3-d convolutions, pooling, upsampling and vision ops: float32 and float64
    # against torch (their nodes and second derivatives: tests/ops/test_handwritten_nodes.py)
    OpCase(
        "conv3d",
        lambda t, x, w, b: _f(t).conv3d(x, w, b, padding=(0, 1, 1), groups=2),
        ((1, 4, 3, 3, 2), (2, 2, 2, 2, 2), (2,)),
        gradgrad=False,
    ),
    OpCase(
        "conv_transpose1d",
        lambda t, x, w: _f(t).conv_transpose1d(x, w, stride=3, padding=1, dilation=2),
        ((2, 3, 4), (3, 2, 3)),
        gradgrad=False,
    ),
    OpCase(
        "conv_transpose3d",
        lambda t, x, w, b: _f(t).conv_transpose3d(x, w, b, stride=2, output_padding=(1, 0, 1)),
        ((1, 2, 2, 2, 3), (2, 3, 2, 1, 2), (3,)),
        gradgrad=False,
    ),
    OpCase(
        "max_pool3d",
        lambda t, x: _f(t).max_pool3d(x, 2, (1, 2, 1), ceil_mode=True),
        ((1, 2, 3, 5, 4),),
        distinct=True,
        gradgrad=False,
    ),
    OpCase(
        "avg_pool3d",
        lambda t, x: _f(t).avg_pool3d(x, 3, 2, 1, count_include_pad=False),
        ((1, 2, 4, 5, 3),),
        gradgrad=False,
    ),
    OpCase(
        "adaptive_max_pool2d",
        lambda t, x: _f(t).adaptive_max_pool2d(x, (2, 3)),
        ((2, 5, 7),),
        distinct=True,
        gradgrad=False,
    ),
    OpCase(
        "interpolate_bicubic",
        lambda t, x: _f(t).interpolate(x, scale_factor=1.5, mode="bicubic"),
        ((1, 2, 3, 4),),
        gradgrad=False,
    ),
    OpCase(
        "interpolate_trilinear",
        lambda t, x: _f(t).interpolate(x, size=(3, 2, 5), mode="trilinear", align_corners=True),
        ((1, 1, 2, 3, 3),),
        gradgrad=False,
    ),
    OpCase(
        "grid_sample",
        lambda t, x, g: _f(t).grid_sample(x, g, padding_mode="border", align_corners=False),
        ((2, 2, 3, 4), (2, 3, 2, 2)),
        low=-1.2,
        high=1.2,
        gradgrad=False,
    ),
    OpCase(
        "unfold_fold",
        lambda t, x: _f(t).fold(_f(t).unfold(x, 2, padding=1), (3, 4), 2, padding=1) * 0.5,
        ((2, 3, 3, 4),),
        gradgrad=False,
    ),
    OpCase(
        "batch_norm",
        lambda t, x, w, b: _f(t).batch_norm(x, None, None, w, b, training=True),
        ((4, 3, 2, 2), (3,), (3,)),
    ),
    OpCase("layer_norm", lambda t, x, w, b: _f(t).layer_norm(x, (4,), w, b), ((3, 4), (4,), (4,))),
    OpCase("group_norm", lambda t, x, w, b: _f(t).group_norm(x, 2, w, b), ((2, 4, 3), (4,), (4,))),
]
