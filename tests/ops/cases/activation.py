"""Op cases: the activations of ``nn.functional`` (hardtanh, relu6, hardsigmoid, hardswish,
mish, selu, celu, glu, logsigmoid, the shrinkages, threshold, prelu, rrelu, softsign ...)
and their in-place forms.

Random inputs land on a kink (hardtanh's bounds, the shrinkages' ``lambd``) with
probability 0; ``hardsigmoid`` has no second derivative in torch (its backward's node is
``NotImplemented``), so it is not gradgradchecked.
"""

from tests.ops.cases.spec import Const, OpCase


def _f(lib):
    return lib.nn.functional


def _slopes(rng):
    return rng.uniform(0.1, 0.4, (3,))


CASES = [
    OpCase("hardtanh", lambda t, x: _f(t).hardtanh(x, -0.8, 1.1), ((3, 4),)),
    OpCase("hardtanh_", lambda t, x: _f(t).hardtanh_(x * 1, -0.8, 1.1), ((3, 4),)),
    OpCase("relu6", lambda t, x: _f(t).relu6(x * 4), ((3, 4),)),
    OpCase("hardsigmoid", lambda t, x: _f(t).hardsigmoid(x * 2), ((3, 4),), gradgrad=False),
    OpCase("hardswish", lambda t, x: _f(t).hardswish(x * 2), ((3, 4),)),
    OpCase("hardswish_", lambda t, x: _f(t).hardswish(x * 2, inplace=True), ((3, 4),)),
    OpCase("mish", lambda t, x: _f(t).mish(x), ((3, 4),)),
    OpCase("mish_", lambda t, x: _f(t).mish(x * 1, inplace=True), ((2, 3),)),
    OpCase("selu", lambda t, x: _f(t).selu(x), ((3, 4),)),
    OpCase("selu_", lambda t, x: _f(t).selu(x * 1, inplace=True), ((3, 4),)),
    OpCase("celu", lambda t, x: _f(t).celu(x, 0.7), ((3, 4),)),
    OpCase("celu_", lambda t, x: _f(t).celu_(x * 1, 1.5), ((3, 4),)),
    OpCase("glu", lambda t, x: _f(t).glu(x), ((3, 4),)),
    OpCase("glu_dim0", lambda t, x: _f(t).glu(x, 0), ((4, 3),)),
    OpCase("logsigmoid", lambda t, x: _f(t).logsigmoid(x * 3), ((3, 4),)),
    OpCase("softshrink", lambda t, x: _f(t).softshrink(x, 0.3), ((3, 4),)),
    OpCase("hardshrink", lambda t, x: _f(t).hardshrink(x, 0.3), ((3, 4),)),
    OpCase("threshold", lambda t, x: _f(t).threshold(x, 0.2, -3.0), ((3, 4),)),
    OpCase("threshold_", lambda t, x: _f(t).threshold(x * 1, 0.2, 5.0, True), ((3, 4),)),
    OpCase("prelu", lambda t, x, w: _f(t).prelu(x, w), ((2, 3, 4), (3,))),
    OpCase("prelu_one", lambda t, x, w: t.prelu(x, w), ((3, 4), (1,))),
    OpCase("prelu_const", lambda t, x, w: _f(t).prelu(x, w.to(x.dtype)), ((4, 3), Const(_slopes))),
    OpCase("rrelu_eval", lambda t, x: _f(t).rrelu(x, 0.1, 0.3), ((3, 4),)),
    OpCase("rrelu_", lambda t, x: t.rrelu_(x * 1, 0.2, 0.4), ((3, 4),)),
    OpCase("softsign", lambda t, x: _f(t).softsign(x), ((3, 4),)),
    OpCase("tanhshrink", lambda t, x: _f(t).tanhshrink(x), ((3, 4),)),
]

__all__ = ["CASES"]
