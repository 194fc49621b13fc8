"""BatchNorm1d/2d/3d and SyncBatchNorm (running statistics, momentum, train/eval),
InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, CrossMapLRN2d and
their functional and torch-level forms against torch (float32 and float64), gradcheck /
gradgradcheck, errors and repr."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from hookgrad.nn import modules as nn
from tests.oracle import assert_close

DTYPES = ["float32", "float64"]


def _tol(dtype: str) -> dict:
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-11}


def _randomize(module, torch_module, seed: int = 0) -> None:
    """The same random affine parameters in both modules."""
    rng = np.random.default_rng(seed)
    import torch

    with hookgrad.no_grad(), torch.no_grad():
        for (_, ours), (_, theirs) in zip(
            module.named_parameters(), torch_module.named_parameters()
        ):
            value = rng.standard_normal(tuple(theirs.shape))
            theirs.copy_(torch.tensor(value))
            ours.copy_(hookgrad.tensor(value))


def _step(module, lib, x, dtype, seed):
    xt = lib.tensor(x, requires_grad=True)
    out = module(xt)
    grad = np.random.default_rng(seed).standard_normal(tuple(out.shape)).astype(dtype)
    out.backward(lib.tensor(grad))
    grads = [p.grad for _, p in module.named_parameters()]
    for _, p in module.named_parameters():
        p.grad = None
    return out, xt.grad, grads


BATCH_NORM = [
    ("bn2d", lambda nn: nn.BatchNorm2d(3), (4, 3, 5, 5)),
    ("bn1d", lambda nn: nn.BatchNorm1d(3, momentum=0.3), (6, 3)),
    ("bn1d_3d", lambda nn: nn.BatchNorm1d(3), (4, 3, 7)),
    ("cumulative", lambda nn: nn.BatchNorm2d(3, momentum=None), (4, 3, 2, 2)),
    ("no_affine", lambda nn: nn.BatchNorm2d(3, affine=False), (4, 3, 2, 3)),
    ("no_bias", lambda nn: nn.BatchNorm2d(3, bias=False), (4, 3, 2, 3)),
    ("untracked", lambda nn: nn.BatchNorm2d(3, track_running_stats=False), (4, 3, 2, 3)),
    ("bn3d", lambda nn: nn.BatchNorm3d(2), (3, 2, 2, 2, 3)),
    ("sync", lambda nn: nn.SyncBatchNorm(3, momentum=0.2), (4, 3, 5)),
    ("instance1d_tracked", lambda nn: nn.InstanceNorm1d(3, track_running_stats=True), (4, 3, 5)),
    (
        "instance2d_affine_tracked",
        lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=None),
        (2, 3, 2, 3),
    ),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", BATCH_NORM, ids=lambda c: c[0])
def test_batch_norm_train_then_eval_matches_torch(torch, dtype, case):
    _, make, shape = case
    module = make(nn).to(getattr(hookgrad, dtype))
    torch_module = make(torch.nn).to(getattr(torch, dtype))
    _randomize(module, torch_module)
    rng = np.random.default_rng(0)
    for step in range(3):  # running statistics move over several batches
        x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
        ours = _step(module, hookgrad, x, dtype, step)
        theirs = _step(torch_module, torch, x, dtype, step)
        assert_close(ours, theirs, **_tol(dtype))
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        assert_close(getattr(module, name), getattr(torch_module, name), **_tol(dtype))
    module.eval()
    torch_module.eval()
    x = rng.standard_normal(shape).astype(dtype)
    assert_close(
        _step(module, hookgrad, x, dtype, 9), _step(torch_module, torch, x, dtype, 9), **_tol(dtype)
    )
    assert module.extra_repr() == torch_module.extra_repr()


def test_batch_norm_eval_uses_running_stats(torch):
    eps = 1e-5
    expected = [(1 - 1) / np.sqrt(4 + eps), (1 + 1) / np.sqrt(0.25 + eps)]
    for lib in (hookgrad, torch):
        bn = lib.nn.BatchNorm2d(2)
        with lib.no_grad():
            bn.running_mean.copy_(lib.tensor([1.0, -1.0]))
            bn.running_var.copy_(lib.tensor([4.0, 0.25]))
        bn.eval()
        out = bn(lib.ones(1, 2, 1, 1))
        assert np.allclose(out.detach().numpy().ravel(), expected)
        assert bn.num_batches_tracked.item() == 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "case",
    [
        ("ln_last", lambda nn: nn.LayerNorm(6), (4, 3, 6)),
        ("ln_two", lambda nn: nn.LayerNorm((5, 6), eps=1e-3), (2, 3, 5, 6)),
        ("ln_no_affine", lambda nn: nn.LayerNorm(6, elementwise_affine=False), (4, 6)),
        ("ln_no_bias", lambda nn: nn.LayerNorm(6, bias=False), (4, 6)),
        ("gn", lambda nn: nn.GroupNorm(2, 6), (4, 6, 5, 3)),
        ("gn_1d", lambda nn: nn.GroupNorm(3, 6, eps=1e-3), (2, 6, 7)),
        ("gn_instance", lambda nn: nn.GroupNorm(6, 6, affine=False), (2, 6, 4)),
        ("in1d", lambda nn: nn.InstanceNorm1d(3), (2, 3, 5)),
        ("in1d_unbatched", lambda nn: nn.InstanceNorm1d(3, affine=True), (3, 5)),
        ("in2d_affine", lambda nn: nn.InstanceNorm2d(3, affine=True), (2, 3, 2, 3)),
        ("in3d", lambda nn: nn.InstanceNorm3d(2, eps=1e-3), (2, 2, 2, 3, 2)),
        ("rms", lambda nn: nn.RMSNorm(6), (4, 3, 6)),
        ("rms_two_eps", lambda nn: nn.RMSNorm((3, 6), eps=1e-3), (2, 3, 6)),
        ("rms_no_affine", lambda nn: nn.RMSNorm(6, elementwise_affine=False), (4, 6)),
        ("lrn_3d", lambda nn: nn.LocalResponseNorm(2), (2, 5, 3)),
        ("lrn_4d", lambda nn: nn.LocalResponseNorm(3, alpha=0.3, beta=0.6, k=2.0), (2, 5, 2, 3)),
        # torch's legacy backward, which finite differences do not confirm: torch only
        ("cross_map_lrn", lambda nn: nn.CrossMapLRN2d(3, alpha=0.3), (2, 5, 2, 3)),
        ("cross_map_lrn_wide", lambda nn: nn.CrossMapLRN2d(6, 0.2, 0.5, 2.0), (2, 4, 2, 2)),
    ],
    ids=lambda c: c[0],
)
def test_layer_and_group_norm_match_torch(torch, dtype, case):
    _, make, shape = case
    module = make(nn).to(getattr(hookgrad, dtype))
    torch_module = make(torch.nn).to(getattr(torch, dtype))
    _randomize(module, torch_module)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    ours, theirs = _step(module, hookgrad, x, dtype, 1), _step(torch_module, torch, x, dtype, 1)
    assert_close(ours, theirs, **_tol(dtype))
    assert module.extra_repr() == torch_module.extra_repr()


def _double(*shapes):
    rng = np.random.default_rng(0)
    return [hookgrad.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]


GRADCHECK = {
    "batch_norm": (
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        ((4, 3, 2, 2), (3,), (3,)),
    ),
    "batch_norm_eval": (
        lambda x, w, b: F.batch_norm(
            x,
            hookgrad.tensor([0.1, -0.2, 0.3], dtype=hookgrad.float64),
            hookgrad.tensor([1.5, 0.5, 2.0], dtype=hookgrad.float64),
            w,
            b,
        ),
        ((4, 3, 2), (3,), (3,)),
    ),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b), ((3, 4), (4,), (4,))),
    "layer_norm_plain": (lambda x: F.layer_norm(x, (2, 3)), ((2, 2, 3),)),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, w, b), ((2, 4, 3), (4,), (4,))),
    "instance_norm": (
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        ((2, 3, 4), (3,), (3,)),
    ),
    "instance_norm_eval": (
        lambda x: F.instance_norm(
            x,
            hookgrad.tensor([0.1, -0.2, 0.3], dtype=hookgrad.float64),
            hookgrad.tensor([1.5, 0.5, 2.0], dtype=hookgrad.float64),
            use_input_stats=False,
        ),
        ((2, 3, 2),),
    ),
    "rms_norm": (lambda x, w: F.rms_norm(x, (4,), w), ((3, 4), (4,))),
    "local_response_norm": (lambda x: F.local_response_norm(x, 3, 0.5), ((2, 4, 3),)),
    "local_response_norm_4d": (lambda x: F.local_response_norm(x, 2, 0.5), ((1, 3, 2, 2),)),
    "normalize": (lambda x: F.normalize(x, dim=0), ((3, 4),)),
    "normalize_p3": (lambda x: F.normalize(x, 3.0, -1), ((2, 4),)),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = GRADCHECK[name]
    inputs = _double(*shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda F, x, lib: F.batch_norm(x, lib.zeros(3), lib.ones(3)), RuntimeError),
        (lambda F, x, lib: F.batch_norm(x[:1, :, :1, :1], None, None, training=True), ValueError),
        (lambda F, x, lib: F.batch_norm(x, None, None), RuntimeError),
        (lambda F, x, lib: F.layer_norm(x, (5,)), RuntimeError),
        (lambda F, x, lib: F.group_norm(x, 3), RuntimeError),
        (lambda F, x, lib: F.group_norm(x[:1, :, :1, :1], 4), ValueError),
        (lambda F, x, lib: F.batch_norm(x, None, None, training=True, eps=0.0), ValueError),
        (lambda F, x, lib: F.batch_norm(x, lib.zeros(4), lib.ones(4), eps=-1.0), ValueError),
        (lambda F, x, lib: F.instance_norm(x[:, :, :1, :1]), ValueError),
        (
            lambda F, x, lib: F.instance_norm(x, lib.zeros(4), None, use_input_stats=False),
            RuntimeError,
        ),
        (lambda F, x, lib: F.rms_norm(x, (5,)), RuntimeError),
        (lambda F, x, lib: F.rms_norm(x, (6,), lib.ones(5)), RuntimeError),
        (lambda F, x, lib: F.local_response_norm(x[0, 0], 2), ValueError),
        (lambda F, x, lib: lib.nn.CrossMapLRN2d(3)(x[0]), ValueError),
        (lambda F, x, lib: lib.nn.BatchNorm3d(4)(x), ValueError),
        (lambda F, x, lib: lib.nn.SyncBatchNorm(4)(x[0, 0, 0]), ValueError),
        (lambda F, x, lib: lib.nn.SyncBatchNorm(4)(x[:, :0]), ValueError),
        (lambda F, x, lib: lib.nn.InstanceNorm2d(4)(x[0, 0]), ValueError),
        (lambda F, x, lib: lib.nn.InstanceNorm2d(3, affine=True)(x), ValueError),
    ],
)
def test_errors_match_torch(torch, call, error):
    x = np.zeros((2, 4, 6, 6), np.float32)
    messages = []
    for lib, functional in ((hookgrad, F), (torch, torch.nn.functional)):
        with pytest.raises(error) as info:
            call(functional, lib.tensor(x), lib)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_module_input_checks():
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(hookgrad.zeros(2, 3, 4))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        nn.BatchNorm1d(3)(hookgrad.zeros(2, 3, 4, 4))
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)


def test_parameters_and_buffers_registered():
    bn = nn.BatchNorm2d(4)
    assert [name for name, _ in bn.named_parameters()] == ["weight", "bias"]
    assert list(bn._buffers) == ["running_mean", "running_var", "num_batches_tracked"]
    assert bn.num_batches_tracked.dtype == hookgrad.int64
    assert nn.BatchNorm2d(4, track_running_stats=False).running_mean is None
    assert list(dict(nn.LayerNorm((2, 3)).named_parameters())) == ["weight", "bias"]
    assert nn.LayerNorm((2, 3)).weight.shape == (2, 3)


REPRS = [
    lambda nn: nn.BatchNorm3d(4),
    lambda nn: nn.SyncBatchNorm(4, momentum=None, affine=False),
    lambda nn: nn.InstanceNorm1d(3),
    lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
    lambda nn: nn.InstanceNorm3d(3, eps=1e-3),
    lambda nn: nn.RMSNorm((2, 3)),
    lambda nn: nn.RMSNorm(4, eps=1e-6, elementwise_affine=False),
    lambda nn: nn.LocalResponseNorm(2),
    lambda nn: nn.CrossMapLRN2d(3, 0.5, 0.1, 2),
]


@pytest.mark.parametrize("make", REPRS)
def test_repr_and_state_match_torch(torch, make):
    module, torch_module = make(nn), make(torch.nn)
    assert repr(module) == repr(torch_module)
    assert list(module.state_dict()) == list(torch_module.state_dict())


def test_instance_norm_warns_when_num_features_is_unused(torch):
    for lib in (hookgrad, torch):
        with pytest.warns(UserWarning, match="does not match num_features"):
            lib.nn.InstanceNorm1d(4)(lib.zeros(2, 3, 5))


def test_convert_sync_batchnorm_shares_parameters(torch):
    for lib in (hookgrad, torch):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4, momentum=0.3))
        batch_norm = model[1].eval()
        converted = lib.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        layer = converted[1]
        assert converted is model and type(layer).__name__ == "SyncBatchNorm"
        assert layer.weight is batch_norm.weight and layer.running_var is batch_norm.running_var
        assert layer.training is False and layer.momentum == 0.3
        assert repr(layer) == repr(batch_norm).replace("BatchNorm1d", "SyncBatchNorm")


TORCH_LEVEL = [
    lambda t, x, w, b: t.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    lambda t, x, w, b: t.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)[0],
    lambda t, x, w, b: t.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    lambda t, x, w, b: t.layer_norm(x, (5,)),
    lambda t, x, w, b: t.native_layer_norm(x, (5,), None, None, 1e-5)[0],
    lambda t, x, w, b: t.group_norm(x, 3, w, b),
    lambda t, x, w, b: t.native_group_norm(x, w, b, 2, 3, 5, 3, 1e-5)[1],
    lambda t, x, w, b: t.rms_norm(x, (3, 5)),
]


@pytest.mark.parametrize("fn", TORCH_LEVEL)
def test_torch_level_forms_match_torch(torch, fn):
    rng = np.random.default_rng(2)
    values = [rng.standard_normal(s) for s in ((2, 3, 5), (3,), (3,))]

    def run(lib):
        tensors = [lib.tensor(v, requires_grad=True) for v in values]
        out = fn(lib, *tensors)
        grads = lib.autograd.grad(out.sum(), tensors, allow_unused=True)
        return out, [None if g is None else g for g in grads]

    assert_close(run(hookgrad), run(torch), rtol=1e-10, atol=1e-12)
