"""The table's softmax, var/std, vector norm and loss nodes against torch's: the node
class, its ``_saved_*`` attributes (names and values), the order default pack hooks see
the saved tensors in, and the graph of a ``create_graph=True`` gradient (the
double-backward nodes torch's formulas make: ``SoftmaxBackwardDataBackward0``,
``MseLossBackwardBackward0`` ...) with its values.

Each row is ``(id, fn, inputs)``: ``fn(t, *tensors)`` runs the op in library ``t``;
``inputs`` are ``(values, requires_grad)`` pairs made into float64 tensors.
"""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, node_names, packed_arrays, saved_values

_RNG = np.random.default_rng(0)
SIGNED = _RNG.standard_normal((2, 3))
SIGNED_3D = _RNG.standard_normal((2, 3, 2))
OTHER = _RNG.standard_normal((2, 3))
PROBABILITIES = _RNG.uniform(0.1, 0.9, (2, 3))
TARGETS = _RNG.uniform(0.0, 1.0, (2, 3))
WEIGHT = _RNG.uniform(0.5, 1.5, (2, 3))
CLASS_WEIGHT = _RNG.uniform(0.5, 1.5, (3,))
TIES = np.array([[1.0, -3.0, 3.0], [0.5, -0.5, 0.0]])
INF = float("inf")


def _f(t):
    return t.nn.functional


def _const(t, values):
    return t.tensor(values, dtype=t.float64)


ROWS = [
    # softmax and log_softmax
    ("softmax", lambda t, x: x.softmax(1), [(SIGNED, True)]),
    ("softmax_dim0", lambda t, x: t.softmax(x, 0), [(SIGNED, True)]),
    ("softmax_3d", lambda t, x: _f(t).softmax(x, dim=2), [(SIGNED_3D, True)]),
    ("log_softmax", lambda t, x: _f(t).log_softmax(x, 1), [(SIGNED, True)]),
    ("log_softmax_3d", lambda t, x: x.log_softmax(2), [(SIGNED_3D, True)]),
    # var and std
    ("var", lambda t, x: x.var(), [(SIGNED, True)]),
    ("var_dim", lambda t, x: x.var(1), [(SIGNED, True)]),
    ("var_dims", lambda t, x: t.var(x, (0, 2)), [(SIGNED_3D, True)]),
    ("var_keepdim", lambda t, x: x.var(1, keepdim=True, correction=0), [(SIGNED, True)]),
    ("var_all_keepdim", lambda t, x: x.var(keepdim=True), [(SIGNED, True)]),
    ("var_unbiased", lambda t, x: x.var(unbiased=False), [(SIGNED, True)]),
    ("var_vector", lambda t, x: x[0].var(0), [(SIGNED, True)]),
    ("std", lambda t, x: x.std(), [(SIGNED, True)]),
    ("std_dim", lambda t, x: x.std(1), [(SIGNED, True)]),
    ("std_keepdim", lambda t, x: t.std(x, 0, keepdim=True, correction=2), [(SIGNED, True)]),
    # vector norms
    ("norm", lambda t, x: x.norm(), [(SIGNED, True)]),
    ("norm_dim", lambda t, x: x.norm(dim=1), [(SIGNED, True)]),
    ("norm_keepdim", lambda t, x: x.norm(2, 1, True), [(SIGNED, True)]),
    ("norm_1", lambda t, x: x.norm(p=1, dim=1), [(SIGNED, True)]),
    ("norm_3", lambda t, x: x.norm(p=3, dim=(0, 2)), [(SIGNED_3D, True)]),
    ("norm_1_5", lambda t, x: x.norm(p=1.5), [(SIGNED, True)]),
    ("norm_0_5", lambda t, x: x.norm(p=0.5, dim=1), [(SIGNED, True)]),
    ("norm_inf", lambda t, x: x.norm(p=INF, dim=1), [(TIES, True)]),
    ("norm_minus_inf", lambda t, x: x.norm(p=-INF), [(TIES, True)]),
    ("norm_0", lambda t, x: x.norm(p=0, dim=1), [(SIGNED, True)]),
    # regression losses
    ("mse", lambda t, x, y: _f(t).mse_loss(x, y), [(SIGNED, True), (OTHER, True)]),
    (
        "mse_none",
        lambda t, x, y: _f(t).mse_loss(x, y, reduction="none"),
        [(SIGNED, True), (OTHER, True)],
    ),
    (
        "mse_sum",
        lambda t, x, y: _f(t).mse_loss(x, y, reduction="sum"),
        [(SIGNED, True), (OTHER, False)],
    ),
    (
        "smooth_l1",
        lambda t, x, y: _f(t).smooth_l1_loss(x, y, beta=0.5),
        [(SIGNED, True), (OTHER, True)],
    ),
    (
        "smooth_l1_sum",
        lambda t, x, y: _f(t).smooth_l1_loss(x, y, reduction="sum"),
        [(SIGNED, True), (OTHER, True)],
    ),
    ("huber", lambda t, x, y: _f(t).huber_loss(x, y, delta=0.5), [(SIGNED, True), (OTHER, True)]),
    (
        "huber_none",
        lambda t, x, y: _f(t).huber_loss(x, y, reduction="none", delta=0.8),
        [(SIGNED, True), (OTHER, True)],
    ),
    # binary cross-entropy
    (
        "bce",
        lambda t, x, y: _f(t).binary_cross_entropy(x, y),
        [(PROBABILITIES, True), (TARGETS, True)],
    ),
    (
        "bce_weight_sum",
        lambda t, x, y: _f(t).binary_cross_entropy(x, y, _const(t, WEIGHT), reduction="sum"),
        [(PROBABILITIES, True), (TARGETS, True)],
    ),
    (
        "bce_none",
        lambda t, x, y: _f(t).binary_cross_entropy(x, y, reduction="none"),
        [(PROBABILITIES, True), (TARGETS, False)],
    ),
    (
        "bce_logits",
        lambda t, x, y: _f(t).binary_cross_entropy_with_logits(x, y),
        [(SIGNED, True), (TARGETS, True)],
    ),
    (
        "bce_logits_weights",
        lambda t, x, y: _f(t).binary_cross_entropy_with_logits(
            x, y, _const(t, CLASS_WEIGHT), pos_weight=_const(t, CLASS_WEIGHT[::-1].copy())
        ),
        [(SIGNED, True), (TARGETS, False)],
    ),
]


def _rrelu(t, x, inplace=False):
    t.manual_seed(0)
    return t.rrelu_(x * 1, 0.1, 0.3, True) if inplace else _f(t).rrelu(x, 0.1, 0.3, True)


# activations of nn (leaky_relu, elu, gelu ... are in test_table_nodes.py)
ROWS += [
    ("hardtanh", lambda t, x: _f(t).hardtanh(x, -0.5, 0.8), [(SIGNED, True)]),
    ("hardtanh_", lambda t, x: _f(t).hardtanh_(x * 1, -0.5, 0.8), [(SIGNED, True)]),
    ("relu6", lambda t, x: _f(t).relu6(x * 5), [(SIGNED, True)]),
    ("hardsigmoid", lambda t, x: _f(t).hardsigmoid(x * 3), [(SIGNED, True)]),
    ("hardswish", lambda t, x: _f(t).hardswish(x * 3), [(SIGNED, True)]),
    ("mish", lambda t, x: _f(t).mish(x), [(SIGNED, True)]),
    ("mish_", lambda t, x: _f(t).mish(x * 1, inplace=True), [(SIGNED, True)]),
    ("selu", lambda t, x: _f(t).selu(x), [(SIGNED, True)]),
    ("celu", lambda t, x: _f(t).celu(x, 0.6), [(SIGNED, True)]),
    ("celu_", lambda t, x: t.celu_(x * 1, 0.6), [(SIGNED, True)]),
    ("softshrink", lambda t, x: _f(t).softshrink(x, 0.4), [(SIGNED, True)]),
    ("hardshrink", lambda t, x: t.hardshrink(x, 0.4), [(SIGNED, True)]),
    ("threshold", lambda t, x: _f(t).threshold(x, 0.1, -2.0), [(SIGNED, True)]),
    ("threshold_", lambda t, x: t.threshold_(x * 1, 0.1, -2.0), [(SIGNED, True)]),
    ("glu", lambda t, x: _f(t).glu(x, 0), [(SIGNED, True)]),
    ("glu_3d", lambda t, x: _f(t).glu(x, 2), [(SIGNED_3D, True)]),
    ("logsigmoid", lambda t, x: _f(t).logsigmoid(x), [(SIGNED, True)]),
    ("prelu", lambda t, x, w: _f(t).prelu(x, w), [(SIGNED, True), (CLASS_WEIGHT, True)]),
    ("rrelu", lambda t, x: _rrelu(t, x), [(SIGNED, True)]),
    ("rrelu_", lambda t, x: _rrelu(t, x, inplace=True), [(SIGNED, True)]),
]

SIGNS = np.sign(OTHER)
ROW_SIGNS = np.array([1.0, -1.0])
CLASSES = np.array([2, 0])
LABELS = np.array([[2, 0, -1], [1, -1, 0]])

# losses of nn beyond regression and cross-entropy, and distances: the soft margin entry,
# the hand-written multi-class margins, and torch's composites (their graphs node by node)
ROWS += [
    ("soft_margin", lambda t, x: _f(t).soft_margin_loss(x, _const(t, SIGNS)), [(SIGNED, True)]),
    (
        "soft_margin_none",
        lambda t, x: _f(t).soft_margin_loss(x, _const(t, SIGNS), reduction="none"),
        [(SIGNED, True)],
    ),
    (
        "soft_margin_sum",
        lambda t, x: _f(t).soft_margin_loss(x, _const(t, SIGNS), reduction="sum"),
        [(SIGNED, True)],
    ),
    ("multi_margin", lambda t, x: _f(t).multi_margin_loss(x, t.tensor(CLASSES)), [(SIGNED, True)]),
    (
        "multi_margin_weight",
        lambda t, x: _f(t).multi_margin_loss(
            x, t.tensor(CLASSES), 2, 0.5, _const(t, CLASS_WEIGHT), reduction="none"
        ),
        [(SIGNED, True)],
    ),
    (
        "multilabel_margin",
        lambda t, x: _f(t).multilabel_margin_loss(x, t.tensor(LABELS)),
        [(SIGNED, True)],
    ),
    (
        "kl_div",
        lambda t, x: _f(t).kl_div(x, _const(t, PROBABILITIES), reduction="batchmean"),
        [(SIGNED, True)],
    ),
    (
        "kl_div_log_target",
        lambda t, x, y: _f(t).kl_div(x, y, reduction="none", log_target=True),
        [(SIGNED, True), (OTHER, True)],
    ),
    (
        "poisson_nll",
        lambda t, x: _f(t).poisson_nll_loss(x, _const(t, TARGETS * 3), reduction="sum"),
        [(SIGNED, True)],
    ),
    (
        "poisson_nll_full",
        lambda t, x: _f(t).poisson_nll_loss(x, _const(t, TARGETS * 3), False, True),
        [(PROBABILITIES, True)],
    ),
    (
        "gaussian_nll",
        lambda t, x, v: _f(t).gaussian_nll_loss(x, _const(t, OTHER), v, full=True),
        [(SIGNED, True), (PROBABILITIES, True)],
    ),
    (
        "hinge_embedding",
        lambda t, x: _f(t).hinge_embedding_loss(x, _const(t, SIGNS), 0.5),
        [(SIGNED, True)],
    ),
    (
        "margin_ranking",
        lambda t, x, y: _f(t).margin_ranking_loss(x, y, _const(t, SIGNS), 0.2),
        [(SIGNED, True), (OTHER, True)],
    ),
    (
        "cosine_embedding",
        lambda t, x, y: _f(t).cosine_embedding_loss(x, y, _const(t, ROW_SIGNS), 0.1),
        [(SIGNED, True), (OTHER, True)],
    ),
    (
        "multilabel_soft_margin",
        lambda t, x: _f(t).multilabel_soft_margin_loss(x, _const(t, (TARGETS > 0.5) * 1.0)),
        [(SIGNED, True)],
    ),
    (
        "triplet_margin",
        lambda t, x, y, z: _f(t).triplet_margin_loss(x, y, z, swap=True),
        [(SIGNED, True), (OTHER, True), (TARGETS, True)],
    ),
    (
        "pairwise_distance",
        lambda t, x, y: _f(t).pairwise_distance(x, y, 3.0),
        [(SIGNED, True), (OTHER, True)],
    ),
    (
        "cosine_similarity",
        lambda t, x, y: _f(t).cosine_similarity(x, y),
        [(SIGNED, True), (OTHER, True)],
    ),
    # weight normalization: the fused node, and the norms it is built from
    ("norm_except_dim_all", lambda t, x: t.norm_except_dim(x, 2, -1), [(SIGNED, True)]),
    ("norm_except_dim_0", lambda t, x: t.norm_except_dim(x, 3, 0), [(SIGNED, True)]),
    (
        "weight_norm",
        lambda t, v, g: t._weight_norm(v, g.reshape(2, 1), 0),
        [(SIGNED, True), (CLASS_WEIGHT[:2], True)],
    ),
    (
        "weight_norm_last",
        lambda t, v, g: t._weight_norm(v, g.reshape(1, 3), 1),
        [(SIGNED, True), (CLASS_WEIGHT, True)],
    ),
    (
        "weight_norm_whole",
        lambda t, v, g: t._weight_norm(v, g, -1),
        [(SIGNED, True), (CLASS_WEIGHT[0], True)],
    ),
]
IDS = [row[0] for row in ROWS]


def _inputs(t, inputs):
    return [t.tensor(values, dtype=t.float64, requires_grad=grad) for values, grad in inputs]


@pytest.mark.parametrize("fn, inputs", [row[1:] for row in ROWS], ids=IDS)
def test_node_and_saved_values_match_torch(fn, inputs, torch):
    ours = fn(hookgrad, *_inputs(hookgrad, inputs)).grad_fn
    theirs = fn(torch, *_inputs(torch, inputs)).grad_fn
    assert type(ours).__name__ == type(theirs).__name__
    saved, expected = saved_values(ours), saved_values(theirs)
    assert sorted(saved) == sorted(expected)
    for name, value in expected.items():
        if isinstance(value, np.ndarray):
            assert_close(saved[name], value, rtol=1e-12, atol=0)
        elif isinstance(value, tuple):
            assert tuple(saved[name]) == value, name
        else:
            assert saved[name] == value, name


@pytest.mark.parametrize("fn, inputs", [row[1:] for row in ROWS], ids=IDS)
def test_pack_order_matches_torch(fn, inputs, torch):
    """Default pack hooks see the op's saved tensors in torch's order."""

    def packed(t):
        tensors = _inputs(t, inputs)
        return packed_arrays(t, lambda lib: fn(lib, *tensors))

    ours, theirs = packed(hookgrad), packed(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert_close(a, b, rtol=1e-12, atol=0)


@pytest.mark.parametrize("fn, inputs", [row[1:] for row in ROWS], ids=IDS)
def test_double_backward_graph_matches_torch(fn, inputs, torch):
    """The nodes and values of each input's ``create_graph=True`` gradient (the output's
    gradient requires grad too, so every term of the formulas shows)."""

    def gradients(t):
        tensors = _inputs(t, inputs)
        y = fn(t, *tensors)
        seed = t.linspace(0.5, 1.5, y.numel(), dtype=y.dtype).reshape(y.shape)
        seed.requires_grad_()
        wanted = [x for x in tensors if x.requires_grad]
        return t.autograd.grad(y, wanted, seed, create_graph=True, allow_unused=True)

    ours, theirs = gradients(hookgrad), gradients(torch)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if b is not None:
            assert node_names(a.grad_fn) == node_names(b.grad_fn)
            assert_close(a, b.detach().numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "fn, inputs",
    [row[1:] for row in ROWS if row[0] in ("softmax", "log_softmax", "mse", "bce", "huber")],
    ids=["softmax", "log_softmax", "mse", "bce", "huber"],
)
def test_second_gradient_matches_torch(fn, inputs, torch):
    """The double-backward nodes' own formulas (``SoftmaxBackwardDataBackward0`` ...): the
    gradient of the gradient, for every input and the output's gradient."""

    def second(t):
        tensors = _inputs(t, inputs)
        y = fn(t, *tensors)
        seed = t.linspace(0.5, 1.5, y.numel(), dtype=y.dtype).reshape(y.shape)
        seed.requires_grad_()
        (g,) = t.autograd.grad(y, tensors[0], seed, create_graph=True)
        probe = t.linspace(-1.0, 1.0, g.numel(), dtype=g.dtype).reshape(g.shape)
        wanted = [x for x in tensors if x.requires_grad] + [seed]
        return type(g.grad_fn).__name__, t.autograd.grad(g, wanted, probe, allow_unused=True)

    (our_node, ours), (their_node, theirs) = second(hookgrad), second(torch)
    assert our_node == their_node
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if b is not None:
            assert_close(a, b.numpy(), rtol=1e-12, atol=1e-15)
