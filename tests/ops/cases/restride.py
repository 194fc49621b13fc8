"""Op cases: in-place view ops (``squeeze_``, ``t_``, ``as_strided_`` ...), the in-place
matrix products (``addmm_`` ...), ``fill_diagonal_``, ``slice_inverse``, ``fill``, the
``Tensor.hardshrink``/``Tensor.prelu`` methods, and the functions built on other ops:
``linear_cross_entropy`` and ``nn.grad``'s convolution gradients."""

import numpy as np

from tests.ops.cases.spec import Const, OpCase


def _view_then_inplace(t, a):
    """An in-place view op on a view, then an in-place op through it (``CopySlices``)."""
    base = a * 1
    view = base[0]
    view.t_()
    view.mul_(view.new_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    return base


def _restrided_twice(t, a):
    b = a * 2
    b.unsqueeze_(0)
    b.transpose_(0, 2)
    return b.squeeze_()


def _fill_diagonal(t, a, wrap):
    b = a * 1
    b.fill_diagonal_(0.5, wrap=wrap)
    return b


def _slice_inverse(t, a, src):
    """``base[1:5:2]`` (holding ``a``) viewed back as ``src`` lies in ``base``: only the
    slice is ``a``'s (``src``'s values are not read, so it takes no gradient here)."""
    base = t.zeros(5, 3, dtype=a.dtype)
    base[1:5:2] = a
    return t.slice_inverse(base[1:5:2], src.to(a.dtype), 0, 1, 5, 2)


def _product_(name, *, beta=1, alpha=1):
    def run(t, c, x, y):
        out = c * 1
        getattr(out, name)(x, y, beta=beta, alpha=alpha)
        return out

    return run


def _labels(high, shape):
    return Const(lambda rng: rng.integers(0, high, shape))


def _nn_grad(name, shape, **kwargs):
    """``nn.grad.<name>``: the input's or weight's shape, the other operand, grad_output."""

    def run(t, other, grad_output):
        return getattr(t.nn.grad, name)(shape, other, grad_output, **kwargs)

    return run


def _nn_grad_weight(name, shape, **kwargs):
    def run(t, input, grad_output):
        return getattr(t.nn.grad, name)(input, shape, grad_output, **kwargs)

    return run


CASES: list[OpCase] = [
    # in-place view ops
    OpCase("squeeze_", lambda t, a: (a * 1).squeeze_(), ((2, 1, 3),)),
    OpCase("squeeze_dim_", lambda t, a: (a * 1).squeeze_(-2), ((2, 1, 3),)),
    OpCase("squeeze_dims_", lambda t, a: (a * 1).squeeze_((0, 1)), ((1, 1, 3),)),
    OpCase("unsqueeze_", lambda t, a: (a * 1).unsqueeze_(1), ((2, 3),)),
    OpCase("t_", lambda t, a: (a * 1).t_(), ((2, 3),)),
    OpCase("transpose_", lambda t, a: (a * 1).transpose_(0, -1), ((2, 3, 2),)),
    OpCase("swapaxes_", lambda t, a: (a * 1).swapaxes_(0, 1), ((2, 3),)),
    OpCase("swapdims_", lambda t, a: (a * 1).swapdims_(1, 0), ((2, 3),)),
    OpCase("as_strided_", lambda t, a: (a * 1).as_strided_((2, 2), (1, 2), 1), ((6,),)),
    OpCase("as_strided_torch", lambda t, a: t.as_strided_(a * 1, (3,), (2,)), ((6,),)),
    OpCase("restride_view_then_inplace", _view_then_inplace, ((2, 2, 3),)),
    OpCase("restride_twice", _restrided_twice, ((2, 3),)),
    # on a tensor's memory
    OpCase("fill_diagonal_", lambda t, a: _fill_diagonal(t, a, False), ((3, 3),)),
    OpCase("fill_diagonal_wrap", lambda t, a: _fill_diagonal(t, a, True), ((7, 2),)),
    OpCase("fill_diagonal_3d", lambda t, a: _fill_diagonal(t, a, False), ((2, 2, 2),)),
    OpCase(
        "slice_inverse", _slice_inverse, ((2, 3), Const(lambda rng: rng.standard_normal((5, 3))))
    ),
    OpCase("fill_scalar", lambda t, a: t.fill(a, 1.5) * a, ((2, 3),)),
    OpCase("fill_tensor", lambda t, a, v: t.fill(a, v), ((2, 3), ())),
    # activation methods
    OpCase("tensor_hardshrink", lambda t, a: a.hardshrink(0.6), ((2, 3),), distinct=True),
    OpCase("tensor_prelu", lambda t, a, w: a.prelu(w), ((2, 3, 2), (3,))),
    # in-place matrix products
    OpCase("addmm_", _product_("addmm_", beta=0.5, alpha=2), ((2, 4), (2, 3), (3, 4))),
    OpCase("addmv_", _product_("addmv_", alpha=-1), ((2,), (2, 3), (3,))),
    OpCase("addmv_torch", lambda t, c, m, v: t.addmv_(c * 1, m, v, beta=2), ((2,), (2, 3), (3,))),
    OpCase("addr_", _product_("addr_", beta=2), ((2, 3), (2,), (3,))),
    OpCase("baddbmm_", _product_("baddbmm_", alpha=0.5), ((2, 2, 4), (2, 2, 3), (2, 3, 4))),
    OpCase("addbmm_", _product_("addbmm_", beta=-1), ((2, 4), (3, 2, 3), (3, 3, 4))),
    # linear_cross_entropy: cross_entropy of a linear layer's logits
    OpCase(
        "linear_cross_entropy",
        lambda t, x, w, y: t.nn.functional.linear_cross_entropy(x, w, y),
        ((4, 3), (5, 3), _labels(5, (4,))),
    ),
    OpCase(
        "linear_cross_entropy_kdim_bias",
        lambda t, x, w, b, y: t.nn.functional.linear_cross_entropy(
            x, w, y, linear_bias=b, reduction="sum", label_smoothing=0.2
        ),
        ((3, 2), (4, 2, 2), (4, 2), _labels(4, (3, 2))),
    ),
    OpCase(
        "linear_cross_entropy_probabilities",
        lambda t, x, w, p: t.nn.functional.linear_cross_entropy(x, w, p.softmax(-1)),
        ((3, 2), (4, 2), (3, 4)),
    ),
    OpCase(
        "linear_cross_entropy_unbatched_options",
        lambda t, x, w, y: t.nn.functional.linear_cross_entropy(
            x, w, y, reduction="none", options=t.nn.LinearCrossEntropyOptions()
        ),
        ((3,), (4, 3), Const(lambda rng: np.array(2))),
    ),
    # nn.grad: a convolution's input and weight gradients
    OpCase(
        "nn_grad_conv1d_input",
        _nn_grad("conv1d_input", (2, 2, 6), stride=2),
        ((3, 2, 2), (2, 3, 3)),
    ),
    OpCase(
        "nn_grad_conv1d_weight",
        _nn_grad_weight("conv1d_weight", (4, 1, 3), padding=1, groups=2),
        ((2, 2, 5), (2, 4, 5)),
    ),
    OpCase(
        "nn_grad_conv2d_input",
        _nn_grad("conv2d_input", (1, 2, 4, 4), padding=1, dilation=2),
        ((3, 2, 2, 2), (1, 3, 4, 4)),
    ),
    OpCase(
        "nn_grad_conv2d_weight",
        _nn_grad_weight("conv2d_weight", (3, 2, 2, 2), stride=(1, 2)),
        ((1, 2, 3, 4), (1, 3, 2, 2)),
    ),
    OpCase(
        "nn_grad_conv3d_input",
        _nn_grad("conv3d_input", (1, 1, 3, 3, 3)),
        ((2, 1, 2, 2, 2), (1, 2, 2, 2, 2)),
    ),
    OpCase(
        "nn_grad_conv3d_weight",
        _nn_grad_weight("conv3d_weight", (2, 1, 2, 2, 2)),
        ((1, 1, 3, 3, 3), (1, 2, 2, 2, 2)),
    ),
]
