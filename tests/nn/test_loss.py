"""Losses: values, gradients and node names against torch (float32 and float64), float64
gradcheck/gradgradcheck, and torch's errors for bad targets."""

import warnings

import numpy as np
import pytest

import hookgrad
import hookgrad.nn as hnn
import hookgrad.nn.functional as HF
from hookgrad.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 3))
Y = rng.standard_normal((4, 3))
P = rng.uniform(0.05, 0.95, (4, 3))
Q = rng.uniform(0.0, 1.0, (4, 3))
SOFT = rng.dirichlet(np.ones(3), 4)
X4 = rng.standard_normal((2, 3, 4, 2))
X3 = rng.standard_normal((2, 3, 5))
IDX = np.array([0, 2, 1, 2])
IDX_IGNORED = np.array([0, -1, 1, 2])
IDX4 = rng.integers(0, 3, (2, 4, 2))
IDX3 = np.array([[0, 1, 2, -1, 1], [2, 2, 0, 1, -1]])
W3 = np.array([0.5, 2.0, 1.5])
X_BIG = X * 40

# (name, functional, input array, target array, differentiable target, kwargs)
CASES = []
for reduction in ("mean", "sum", "none"):
    r = {"reduction": reduction}
    CASES += [
        ("mse_loss", X, Y, True, r),
        ("l1_loss", X, Y, True, r),
        ("smooth_l1_loss", X, Y, True, r),
        ("smooth_l1_loss", X, Y, True, {**r, "beta": 0.3}),
        ("smooth_l1_loss", X, Y, True, {**r, "beta": 0.0}),
        ("huber_loss", X, Y, True, {**r, "delta": 0.7}),
        ("nll_loss", X, IDX, False, r),
        ("nll_loss", X, IDX_IGNORED, False, {**r, "ignore_index": -1, "weight": W3}),
        ("nll_loss", X4, IDX4, False, {**r, "weight": W3}),
        ("nll_loss", X[0], IDX[1], False, r),
        ("nll_loss", X3, IDX3, False, {**r, "ignore_index": -1}),
        ("cross_entropy", X, IDX, False, r),
        ("cross_entropy", X, IDX_IGNORED, False, {**r, "ignore_index": -1}),
        ("cross_entropy", X, IDX, False, {**r, "weight": W3}),
        ("cross_entropy", X, IDX_IGNORED, False, {**r, "label_smoothing": 0.2, "ignore_index": -1}),
        (
            "cross_entropy",
            X,
            IDX_IGNORED,
            False,
            {**r, "label_smoothing": 0.3, "weight": W3, "ignore_index": -1},
        ),
        ("cross_entropy", X3, IDX3, False, {**r, "ignore_index": -1, "label_smoothing": 0.1}),
        ("cross_entropy", X4, IDX4, False, {**r, "weight": W3}),
        ("cross_entropy", X, SOFT, True, r),
        ("cross_entropy", X, SOFT, True, {**r, "weight": W3, "label_smoothing": 0.25}),
        ("cross_entropy", X4, X4 * 0.1, True, r),
        ("binary_cross_entropy", P, Q, True, r),
        ("binary_cross_entropy", P, Q, True, {**r, "weight": W3}),
        ("binary_cross_entropy_with_logits", X, Q, True, r),
        ("binary_cross_entropy_with_logits", X_BIG, Q, True, {**r, "weight": W3}),
        ("binary_cross_entropy_with_logits", X, Q, True, {**r, "pos_weight": W3}),
        (
            "binary_cross_entropy_with_logits",
            X_BIG,
            Q,
            True,
            {**r, "pos_weight": W3, "weight": W3[::-1].copy()},
        ),
    ]

PER_REDUCTION = len(CASES) // 3  # the "mean" cases
IDS = [f"{name}-{i}" for i, (name, *_) in enumerate(CASES)]


def _args(lib, x, t, t_grad, kwargs, dtype):
    float_type = getattr(lib, dtype)
    xt = lib.tensor(x, dtype=float_type, requires_grad=True)
    if np.issubdtype(np.asarray(t).dtype, np.integer):
        tt = lib.tensor(t)
    else:
        tt = lib.tensor(t, dtype=float_type, requires_grad=t_grad)
    kw = dict(kwargs)
    for key in ("weight", "pos_weight"):
        if key in kw:
            kw[key] = lib.tensor(kw[key], dtype=float_type)
    return xt, tt, kw


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, x, t, t_grad, kwargs", CASES, ids=IDS)
def test_matches_torch(torch, name, x, t, t_grad, kwargs, dtype):
    xh, th, kh = _args(hookgrad, x, t, t_grad, kwargs, dtype)
    xt, tt, kt = _args(torch, x, t, t_grad, kwargs, dtype)
    out_h = getattr(HF, name)(xh, th, **kh)
    out_t = getattr(torch.nn.functional, name)(xt, tt, **kt)
    assert out_h.dtype == getattr(hookgrad, dtype)
    assert out_h.shape == tuple(out_t.shape)
    assert out_h.grad_fn.name() == out_t.grad_fn.name()
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out_h.detach().numpy(), out_t.detach().numpy(), rtol=tol, atol=tol)
    weights = rng.standard_normal(out_t.shape)
    (out_h * hookgrad.tensor(weights, dtype=out_h.dtype)).sum().backward()
    (out_t * torch.tensor(weights, dtype=out_t.dtype)).sum().backward()
    np.testing.assert_allclose(xh.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol)
    if t_grad:
        np.testing.assert_allclose(th.grad.numpy(), tt.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "name, x, t, t_grad, kwargs", CASES[:PER_REDUCTION], ids=IDS[:PER_REDUCTION]
)
def test_gradcheck(name, x, t, t_grad, kwargs):
    if name == "binary_cross_entropy_with_logits" and np.abs(x).max() > 10:
        x = x / 20  # finite differences of saturated logits are all rounding
    xh, th, kh = _args(hookgrad, x, t, t_grad, kwargs, "float64")
    inputs = (xh, th) if t_grad else (xh,)

    def fn(*args):
        target = args[1] if t_grad else th
        return getattr(HF, name)(args[0], target, **kh)

    assert gradcheck(fn, inputs)
    if name not in ("l1_loss", "smooth_l1_loss") or kwargs.get("beta", 1.0) > 0:
        assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize(
    "module, functional, kwargs, x, t",
    [
        (hnn.MSELoss, "mse_loss", {"reduction": "sum"}, X, Y),
        (hnn.L1Loss, "l1_loss", {}, X, Y),
        (hnn.SmoothL1Loss, "smooth_l1_loss", {"beta": 0.5}, X, Y),
        (hnn.HuberLoss, "huber_loss", {"delta": 0.5}, X, Y),
        (hnn.NLLLoss, "nll_loss", {"ignore_index": -1}, X, IDX_IGNORED),
        (hnn.CrossEntropyLoss, "cross_entropy", {"label_smoothing": 0.1}, X, IDX),
        (hnn.BCELoss, "binary_cross_entropy", {"reduction": "none"}, P, Q),
        (hnn.BCEWithLogitsLoss, "binary_cross_entropy_with_logits", {}, X, Q),
    ],
)
def test_modules_match_functional(torch, module, functional, kwargs, x, t):
    xh, th, _ = _args(hookgrad, x, t, False, {}, "float64")
    xt, tt, _ = _args(torch, x, t, False, {}, "float64")
    loss = module(**kwargs)
    assert isinstance(loss, hnn.Module)
    assert loss.reduction == kwargs.get("reduction", "mean")
    expected = getattr(torch.nn, module.__name__)(**kwargs)(xt, tt)
    np.testing.assert_allclose(loss(xh, th).detach().numpy(), expected.detach().numpy())


def test_weight_is_a_buffer():
    weight = hookgrad.tensor(W3)
    loss = hnn.CrossEntropyLoss(weight=weight)
    assert loss.weight is weight
    assert loss._buffers["weight"] is weight
    assert hnn.BCEWithLogitsLoss()._buffers == {"weight": None, "pos_weight": None}


def test_legacy_flags():
    xh, yh, _ = _args(hookgrad, X, Y, False, {}, "float64")
    with pytest.warns(UserWarning, match="size_average and reduce"):
        out = HF.mse_loss(xh, yh, size_average=False)
    np.testing.assert_allclose(out.item(), ((X - Y) ** 2).sum())
    assert hnn.MSELoss(reduce=False).reduction == "none"


def test_logits_loss_is_stable():
    x = hookgrad.tensor([1000.0, -1000.0], requires_grad=True)
    t = hookgrad.tensor([0.0, 1.0])
    loss = HF.binary_cross_entropy_with_logits(x, t, reduction="sum")
    assert loss.item() == pytest.approx(2000.0)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, -1.0])


def test_nll_mean_of_all_ignored_is_nan(torch):
    for lib in (hookgrad, torch):
        x = lib.zeros(2, 3, requires_grad=True)
        nll_loss = lib.nn.functional.nll_loss
        out = nll_loss(x, lib.tensor([-100, -100]))
        assert np.isnan(out.item())
        out.backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))  # not nan
        assert nll_loss(x, lib.tensor([-100, -100]), reduction="sum").item() == 0.0


def _error(torch, name, x, t, **kwargs):
    """The (type, message) torch raises for this call; hookgrad must raise the same."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(torch.nn.functional, name)(torch.tensor(x), torch.tensor(t), **kwargs)
        except Exception as error:  # noqa: BLE001
            return type(error), str(error)
    raise AssertionError("torch raised nothing")


@pytest.mark.parametrize(
    "name, x, t, kwargs",
    [
        ("cross_entropy", X, np.array([0, 1, 5, 0]), {}),
        ("cross_entropy", X, np.array([0, 1, -3, 0]), {}),
        ("nll_loss", X, np.array([0, 1, 3, 0]), {}),
        ("cross_entropy", X, np.array([0.0, 1.0, 2.0, 0.0]), {}),
        ("cross_entropy", X, np.array([0, 1]), {}),
        ("cross_entropy", X, rng.random((4, 5)), {}),
        ("cross_entropy", X, SOFT, {"ignore_index": 1}),
        ("cross_entropy", X, np.ones((4, 3), np.int64), {}),
        ("cross_entropy", X, IDX, {"label_smoothing": 1.5}),
        ("cross_entropy", X, IDX, {"reduction": "foo"}),
        ("nll_loss", X3, np.zeros((2, 4), np.int64), {}),
        ("nll_loss", X, np.zeros((4, 2), np.int64), {}),
        ("nll_loss", np.float64(1.0), np.int64(0), {}),
        ("binary_cross_entropy", P, Q[:, :2], {}),
        ("binary_cross_entropy", X, Q, {}),
        ("binary_cross_entropy", P, Q * 3, {}),
        ("binary_cross_entropy_with_logits", X, Q[:, :2], {}),
        ("mse_loss", X, Y[:, :2], {}),
    ],
)
def test_errors_match_torch(torch, name, x, t, kwargs):
    error_type, message = _error(torch, name, x, t, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error_type) as info:
            getattr(HF, name)(hookgrad.tensor(x), hookgrad.tensor(t), **kwargs)
    assert str(info.value) == message


def test_class_weight_errors(torch):
    for lib in (hookgrad, torch):
        x, t = lib.tensor(X), lib.tensor(IDX)
        functional = lib.nn.functional
        with pytest.raises(RuntimeError, match="for all 3 classes or no classes"):
            functional.cross_entropy(x, t, weight=lib.ones(4, dtype=lib.float64))
        with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
            functional.nll_loss(x, t, weight=lib.ones(3))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("target_dtype", ["int64", "float64"])
def test_mixed_dtypes_promote_as_torch(torch, name, target_dtype):
    target = np.array([[0, 1, 2]] * 4)
    xh = hookgrad.tensor(X, dtype=hookgrad.float32, requires_grad=True)
    xt = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    out_h = getattr(HF, name)(xh, hookgrad.tensor(target, dtype=getattr(hookgrad, target_dtype)))
    out_t = getattr(torch.nn.functional, name)(
        xt, torch.tensor(target, dtype=getattr(torch, target_dtype))
    )
    assert str(out_h.dtype) == str(out_t.dtype)
    np.testing.assert_allclose(out_h.item(), out_t.item(), rtol=1e-6)
    if name == "huber_loss":
        return  # torch's own backward raises "Found dtype Long but expected Float" here
    out_h.backward()
    out_t.backward()
    assert xh.grad.dtype == hookgrad.float32
    np.testing.assert_allclose(xh.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-7)
