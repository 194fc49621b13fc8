"""Op cases: convolution, pooling and normalization ops (through ``nn.functional``)."""

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
    OpCase(
        "batch_norm",
        lambda t, x, w, b: _f(t).batch_norm(x, None, None, w, b, training=True),
        ((4, 3, 2, 2), (3,), (3,)),
    ),
    OpCase("layer_norm", lambda t, x, w, b: _f(t).layer_norm(x, (4,), w, b), ((3, 4), (4,), (4,))),
    OpCase("group_norm", lambda t, x, w, b: _f(t).group_norm(x, 2, w, b), ((2, 4, 3), (4,), (4,))),
]
