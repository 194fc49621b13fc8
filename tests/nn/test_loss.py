"""Losses: values, gradients and node names against torch (float32 and float64), float64
gradcheck/gradgradcheck, torch's errors for bad targets; the loss and distance modules
and the torch-level forms (``torch.kl_div`` ...) against torch."""

import warnings

import numpy as np
import pytest

import hookgrad
import hookgrad.nn as hnn
import hookgrad.nn.functional as HF
from hookgrad.autograd import gradcheck, gradgradcheck
from tests.oracle import assert_close, outcome

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


# ---------------------------------------------------------------- the other losses of nn

SIGNS = np.sign(Y)
ROW_SIGNS = np.array([1.0, -1.0, -1.0, 1.0])
LABELS = np.array([[0, 2, -1], [1, -1, 0], [2, 1, 0], [-1, 0, 0]])

# (module name, constructor kwargs, call arguments as arrays: the float ones require grad,
# but a SoftMarginLoss target, which torch refuses to differentiate; indices stay integers)
MODULES = [
    ("KLDivLoss", {"reduction": "batchmean"}, (X, P)),
    ("KLDivLoss", {"reduction": "sum", "log_target": True}, (X, Y)),
    ("PoissonNLLLoss", {"log_input": False, "full": True}, (P, Q * 4)),
    ("GaussianNLLLoss", {"eps": 1e-3, "reduction": "none"}, (X, Y, P)),
    ("HingeEmbeddingLoss", {"margin": 0.5}, (X, SIGNS)),
    ("SoftMarginLoss", {"reduction": "sum"}, (X, SIGNS)),
    ("MultiLabelSoftMarginLoss", {"weight": W3}, (X, (Q > 0.5) * 1.0)),
    ("MultiLabelMarginLoss", {}, (X, LABELS)),
    ("MultiMarginLoss", {"p": 2, "margin": 0.7, "weight": W3}, (X, IDX)),
    ("CosineEmbeddingLoss", {"margin": 0.2}, (X, Y, ROW_SIGNS)),
    ("MarginRankingLoss", {"margin": 0.1, "reduction": "none"}, (X[:, 0], Y[:, 0], SIGNS[:, 0])),
    ("TripletMarginLoss", {"p": 1.0, "swap": True}, (X, Y, P)),
    ("TripletMarginWithDistanceLoss", {"margin": 0.5, "swap": True}, (X, Y, P)),
    ("NLLLoss2d", {"ignore_index": 1}, (X4, IDX4)),
    ("PairwiseDistance", {"p": 3.0, "keepdim": True}, (X, Y)),
    ("CosineSimilarity", {"dim": 0}, (X, Y)),
]


def _module_args(lib, name, arrays, dtype):
    tensors = []
    for position, a in enumerate(arrays):
        if np.asarray(a).dtype.kind != "f":
            tensors.append(lib.tensor(a))
            continue
        grad = name != "SoftMarginLoss" or position == 0
        tensors.append(lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=grad))
    return tensors


def _as(lib, kwargs, dtype):
    return {
        k: lib.tensor(v, dtype=getattr(lib, dtype)) if isinstance(v, np.ndarray) else v
        for k, v in kwargs.items()
    }


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs, arrays", MODULES, ids=[m[0] for m in MODULES])
def test_loss_modules_match_torch(torch, name, kwargs, arrays, dtype):
    def run(lib):
        module = getattr(lib.nn, name)(**_as(lib, kwargs, dtype))
        inputs = _module_args(lib, name, arrays, dtype)
        out = module(*inputs)
        wanted = [x for x in inputs if x.requires_grad]
        grads = lib.autograd.grad(out.sum(), wanted, allow_unused=True)
        return repr(module), type(out.grad_fn).__name__, out, grads

    ours, theirs = run(hookgrad), run(torch)
    assert ours[:2] == theirs[:2]
    tolerance = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12}
    assert_close(ours[2:], theirs[2:], **tolerance)


TORCH_LEVEL = [
    lambda t, x, y: t.kl_div(x, y.exp(), 1),
    lambda t, x, y: t.kl_div(x, y, 0, log_target=True),
    lambda t, x, y: t.poisson_nll_loss(x, y.abs(), True, False, 1e-8, 2),
    lambda t, x, y: t.margin_ranking_loss(x, y, y.sign(), 0.1, 1),
    lambda t, x, y: t.hinge_embedding_loss(x, y.sign(), 1.0, 2),
    lambda t, x, y: t.cosine_embedding_loss(x, y, y[:, 0].sign(), 0.0, 1),
    lambda t, x, y: t.triplet_margin_loss(x, y, y * 2, 1.0, 2.0, 1e-6, False, 0),
    lambda t, x, y: t.cosine_similarity(x, y, 0),
    lambda t, x, y: t.pairwise_distance(x, y),
    lambda t, x, y: t.binary_cross_entropy_with_logits(x, y.sigmoid(), None, None, 2),
]


@pytest.mark.parametrize("fn", TORCH_LEVEL)
def test_torch_level_losses_match_torch(torch, fn):
    def run(lib):
        x, y = lib.tensor(X, requires_grad=True), lib.tensor(Y)
        out = fn(lib, x, y)
        return out, lib.autograd.grad(out.sum(), x)

    assert_close(run(hookgrad), run(torch), rtol=1e-12, atol=1e-14)


LOSS_ERRORS = [
    ("kl_div_reduction", lambda t: t.nn.functional.kl_div(t.zeros(2), t.zeros(2), reduction="x")),
    ("kl_div_integral", lambda t: t.kl_div(t.zeros(2), t.zeros(2).long())),
    (
        "poisson_reduction",
        lambda t: t.nn.functional.poisson_nll_loss(t.zeros(2), t.zeros(2), reduction="x"),
    ),
    (
        "gaussian_negative_var",
        lambda t: t.nn.functional.gaussian_nll_loss(t.zeros(2), t.zeros(2), -1.0),
    ),
    (
        "gaussian_var_size",
        lambda t: t.nn.functional.gaussian_nll_loss(t.zeros(2, 3), t.zeros(2, 3), t.ones(3, 2)),
    ),
    (
        "gaussian_reduction",
        lambda t: t.nn.functional.gaussian_nll_loss(
            t.zeros(2), t.zeros(2), t.ones(2), reduction="x"
        ),
    ),
    (
        "margin_ranking_dims",
        lambda t: t.nn.functional.margin_ranking_loss(t.zeros(2), t.zeros(2, 1), t.zeros(2)),
    ),
    (
        "cosine_embedding_target",
        lambda t: t.nn.functional.cosine_embedding_loss(
            t.zeros(2, 3), t.zeros(2, 3), t.zeros(2, 2)
        ),
    ),
    (
        "cosine_embedding_1d",
        lambda t: t.nn.functional.cosine_embedding_loss(t.zeros(3), t.zeros(3), t.zeros(2)),
    ),
    (
        "cosine_embedding_0d",
        lambda t: t.nn.functional.cosine_embedding_loss(
            t.zeros(2, 3), t.zeros(2, 3), t.tensor(1.0)
        ),
    ),
    (
        "multi_margin_p",
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(2, 3), t.zeros(2).long(), p=3),
    ),
    (
        "multi_margin_weight",
        lambda t: t.nn.functional.multi_margin_loss(
            t.zeros(2, 3), t.zeros(2).long(), weight=t.ones(3, 1)
        ),
    ),
    (
        "multi_margin_weight_size",
        lambda t: t.nn.functional.multi_margin_loss(
            t.zeros(2, 3), t.zeros(2).long(), weight=t.ones(4)
        ),
    ),
    (
        "multi_margin_target_size",
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(2, 3), t.zeros(3).long()),
    ),
    (
        "multi_margin_target_range",
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(2, 3), t.tensor([0, 3])),
    ),
    (
        "multi_margin_empty",
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(2, 0), t.zeros(2).long()),
    ),
    (
        "multilabel_margin_size",
        lambda t: t.nn.functional.multilabel_margin_loss(t.zeros(2, 3), t.zeros(2, 2).long()),
    ),
    (
        "multi_margin_target_dtype",
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(2, 3), t.zeros(2)),
    ),
    (
        "soft_margin_target_grad",
        lambda t: t.nn.functional.soft_margin_loss(t.zeros(2), t.zeros(2, requires_grad=True)),
    ),
    (
        "multilabel_margin_range",
        lambda t: t.nn.functional.multilabel_margin_loss(
            t.zeros(2, 3), t.tensor([[0, 3, -1], [0, 0, 0]])
        ),
    ),
    (
        "triplet_margin",
        lambda t: t.nn.functional.triplet_margin_loss(
            t.zeros(2), t.zeros(2), t.zeros(2), margin=0.0
        ),
    ),
    (
        "triplet_dims",
        lambda t: t.nn.functional.triplet_margin_loss(t.zeros(2), t.zeros(1, 2), t.zeros(2)),
    ),
    (
        "triplet_distance_reduction",
        lambda t: t.nn.functional.triplet_margin_with_distance_loss(
            t.zeros(2), t.zeros(2), t.zeros(2), reduction="x"
        ),
    ),
    ("TripletMarginLoss_margin", lambda t: t.nn.TripletMarginLoss(margin=-1.0)),
    ("MultiMarginLoss_p", lambda t: t.nn.MultiMarginLoss(p=0)),
    ("MultiMarginLoss_weight", lambda t: t.nn.MultiMarginLoss(weight=t.ones(2, 2))),
    (
        "cosine_similarity_ints",
        lambda t: t.nn.functional.cosine_similarity(t.ones(2, 2).long(), t.ones(2, 2).long()),
    ),
]


@pytest.mark.parametrize("case", [c for _, c in LOSS_ERRORS], ids=[n for n, _ in LOSS_ERRORS])
def test_loss_errors_match_torch(torch, case):
    ours, theirs = outcome(case, hookgrad), outcome(case, torch)
    assert ours[0] == "error"
    assert ours == theirs


def test_adaptive_log_softmax_matches_torch(torch):
    def run(lib):
        lib.manual_seed(0)
        asm = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[4, 10], div_value=2.0)
        x = lib.randn(6, 8, requires_grad=True)
        out, loss = asm(x, lib.tensor([0, 5, 12, 19, 3, 9]))
        loss.backward()
        single = asm(x[0], lib.tensor(12))
        grads = [p.grad for p in asm.parameters()]
        return (
            repr(asm),
            asm.predict(x).tolist(),
            (out, loss, x.grad, asm.log_prob(x), *single, *grads),
        )

    ours, theirs = run(hookgrad), run(torch)
    assert ours[:2] == theirs[:2]
    assert_close(ours[2], theirs[2], rtol=1e-5, atol=1e-6)
    errors = [
        outcome(lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs=[10, 4]), lib)
        for lib in (hookgrad, torch)
    ]
    assert errors[0] == errors[1] and errors[0][0] == "error"


def test_pdist_is_torchs(torch):
    x = np.random.default_rng(3).standard_normal((4, 3))
    ours = HF.pdist(hookgrad.tensor(x, requires_grad=True), 1.5)
    theirs = torch.nn.functional.pdist(torch.tensor(x, requires_grad=True), 1.5)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    assert_close(ours, theirs, rtol=1e-12)
