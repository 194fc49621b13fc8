"""Embedding and F.embedding against torch (identical tables, float32 and float64):
values, weight gradients with repeated indices, padding_idx, scale_grad_by_freq,
max_norm, errors, gradcheck, from_pretrained and repr."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from hookgrad import nn
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from tests.oracle import assert_close, outcome, signed

INDICES = np.array([[1, 3, 3, 0], [2, 1, 9, 3]])


def _run(lib, table, indices, **kwargs):
    weight = lib.tensor(table, requires_grad=True)
    functional = F if lib is hookgrad else lib.nn.functional
    out = functional.embedding(lib.tensor(indices), weight, **kwargs)
    grad = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(table.dtype)
    out.backward(lib.tensor(grad))
    return out, weight.grad, weight, out.grad_fn.name()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"padding_idx": 3},
        {"padding_idx": -1},
        {"scale_grad_by_freq": True},
        {"padding_idx": 1, "scale_grad_by_freq": True},
        {"max_norm": 1.0},
        {"max_norm": 2.0, "norm_type": 1.0},
    ],
)
@pytest.mark.parametrize("indices", [INDICES, INDICES[0], np.array(4)], ids=["2d", "1d", "0d"])
def test_functional_matches_torch(torch, dtype, kwargs, indices):
    table = np.random.default_rng(0).standard_normal((10, 3)).astype(dtype)
    ours = _run(hookgrad, table, indices, **kwargs)
    theirs = _run(torch, table, indices, **kwargs)
    assert_close(ours[:3], theirs[:3], rtol=1e-5, atol=1e-6)
    assert ours[3] == theirs[3] == "EmbeddingBackward0"


def test_int32_indices_are_accepted(torch):
    table = np.random.default_rng(0).standard_normal((10, 3)).astype(np.float32)
    indices = INDICES.astype(np.int32)
    assert_close(_run(hookgrad, table, indices)[:2], _run(torch, table, indices)[:2])


def test_max_norm_renormalises_the_table_in_place():
    weight = hookgrad.randn(6, 4, requires_grad=True) * 10
    weight = weight.detach().requires_grad_()
    F.embedding(hookgrad.tensor([0, 2, 2]), weight, max_norm=1.0)
    norms = np.linalg.norm(weight.detach().numpy(), axis=1)
    np.testing.assert_allclose(norms[[0, 2]], 1.0, rtol=1e-5)
    assert np.all(norms[[1, 3, 4, 5]] > 1.0)
    assert weight._version == 1 and weight.is_leaf


def test_gradcheck():
    weight = hookgrad.randn(6, 3, dtype=hookgrad.float64, requires_grad=True)
    indices = hookgrad.tensor([[0, 2, 2], [5, 0, 1]])

    # NOTE: padding_idx and scale_grad_by_freq change the gradient on purpose (it is no
    # longer the derivative), so only the plain lookup is checked against differences.
    def fn(weight):
        return F.embedding(indices, weight)

    assert gradcheck(fn, (weight,))
    assert gradgradcheck(fn, (weight,))


@pytest.mark.parametrize(
    "indices, weight",
    [
        (np.array([10]), (10, 3)),
        (np.array([-1]), (10, 3)),
        (np.array([1.0]), (10, 3)),
        (np.array([1]), (10,)),
    ],
)
def test_errors_match_torch(torch, indices, weight):
    with pytest.raises((IndexError, RuntimeError)) as ours:
        F.embedding(hookgrad.tensor(indices), hookgrad.randn(*weight))
    with pytest.raises((IndexError, RuntimeError)) as theirs:
        torch.nn.functional.embedding(torch.tensor(indices), torch.randn(*weight))
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("padding_idx", [10, -11])
def test_padding_idx_out_of_range_raises(torch, padding_idx):
    for lib in (hookgrad, torch):
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            lib.nn.Embedding(10, 3, padding_idx=padding_idx)
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            lib.nn.functional.embedding(lib.tensor([1]), lib.randn(10, 3), padding_idx=padding_idx)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_module_matches_torch(torch, dtype):
    module = nn.Embedding(10, 3, padding_idx=2, dtype=getattr(hookgrad, dtype))
    torch_module = torch.nn.Embedding(10, 3, padding_idx=2, dtype=getattr(torch, dtype))
    with hookgrad.no_grad():
        module.weight.copy_(hookgrad.tensor(torch_module.weight.detach().numpy()))
    outs = []
    for lib, layer in ((hookgrad, module), (torch, torch_module)):
        out = layer(lib.tensor(INDICES))
        (out * out).sum().backward()
        outs.append((out, layer.weight.grad))
    assert_close(outs[0], outs[1], rtol=1e-6)


def test_module_default_init():
    hookgrad.manual_seed(0)
    module = nn.Embedding(1000, 20, padding_idx=-3)
    values = module.weight.detach().numpy()
    assert module.padding_idx == 997
    assert np.all(values[997] == 0)
    assert abs(values.mean()) < 0.02 and abs(values.std() - 1) < 0.02
    assert module.weight.is_leaf and module.weight.requires_grad


def test_from_pretrained_shares_and_freezes():
    table = hookgrad.eye(4)
    module = nn.Embedding.from_pretrained(table)
    assert not module.weight.requires_grad
    assert module(hookgrad.tensor([2])).tolist() == [[0.0, 0.0, 1.0, 0.0]]
    trainable = nn.Embedding.from_pretrained(table, freeze=False, padding_idx=0)
    assert trainable.weight.requires_grad and trainable.padding_idx == 0
    with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(hookgrad.ones(3))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"padding_idx": 0},
        {"padding_idx": -1, "max_norm": 1.0, "norm_type": 1.0, "scale_grad_by_freq": True},
    ],
)
def test_repr_matches_torch(torch, kwargs):
    module, torch_module = nn.Embedding(10, 3, **kwargs), torch.nn.Embedding(10, 3, **kwargs)
    assert module.extra_repr() == torch_module.extra_repr()
    assert repr(module) == repr(torch_module)


# ---------------------------------------------------------------- bags

BAG_INDICES = np.array([1, 2, 2, 4, 1, 3, 5])
BAG_OFFSETS = np.array([0, 2, 2, 5])
BAGS = [
    ("sum", {"mode": "sum"}),
    ("mean", {"mode": "mean"}),
    ("max", {"mode": "max"}),
    ("mean_padding_freq", {"mode": "mean", "padding_idx": 2, "scale_grad_by_freq": True}),
    ("sum_freq", {"mode": "sum", "scale_grad_by_freq": True}),
    ("max_padding", {"mode": "max", "padding_idx": 1}),
    ("last_offset", {"mode": "sum", "include_last_offset": True}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [b[1] for b in BAGS], ids=[b[0] for b in BAGS])
def test_embedding_bag_matches_torch(torch, dtype, kwargs):
    weight = np.random.default_rng(0).standard_normal((6, 3))

    def run(lib):
        w = lib.tensor(weight, dtype=getattr(lib, dtype), requires_grad=True)
        # NOTE: with ``include_last_offset`` the offsets end at the input's length, as
        # documented (torch's float32 kernels disagree with its others on other ends)
        offsets = BAG_OFFSETS if "include_last_offset" not in kwargs else [*BAG_OFFSETS, 7]
        out = lib.nn.functional.embedding_bag(
            lib.tensor(BAG_INDICES), w, lib.tensor(offsets), **kwargs
        )
        seed = lib.arange(out.numel(), dtype=out.dtype).reshape(out.shape) * 0.1 + 1
        out.backward(seed)
        return out, w.grad, type(out.grad_fn).__name__

    ours, theirs = run(hookgrad), run(torch)
    assert ours[2] == theirs[2]
    assert_close(ours[:2], theirs[:2], rtol=1e-6, atol=1e-6)


def test_embedding_bag_node_and_per_sample_weights_match_torch(torch):
    weight = np.random.default_rng(1).standard_normal((6, 3))
    samples = np.random.default_rng(2).uniform(0.5, 1.0, 7)

    def run(lib):
        w = lib.tensor(weight, requires_grad=True)
        p = lib.tensor(samples, requires_grad=True)
        out, *rest = lib.embedding_bag(
            w, lib.tensor(BAG_INDICES), lib.tensor(BAG_OFFSETS), False, 0, False, p, False, 4
        )
        node = out.grad_fn
        saved = {n: getattr(node, n) for n in dir(node) if n.startswith("_saved_")}
        saved = {k: v.tolist() if hasattr(v, "tolist") else signed(v) for k, v in saved.items()}
        seed = lib.ones_like(out, requires_grad=True)
        gw, gp = lib.autograd.grad(out, (w, p), seed, create_graph=True)
        names = (type(gw.grad_fn).__name__, type(gp.grad_fn).__name__)
        errors = [
            outcome(lambda _, g=g: g.sum().backward(retain_graph=True), lib) for g in (gw, gp)
        ]
        return saved, [r.tolist() for r in rest], names, errors, (out, gw, gp)

    ours, theirs = run(hookgrad), run(torch)
    assert ours[:4] == theirs[:4]
    assert_close(ours[4], theirs[4], rtol=1e-12, atol=1e-12)


def test_embedding_bag_module_matches_torch(torch):
    def run(lib):
        lib.manual_seed(0)
        bag = lib.nn.EmbeddingBag(10, 3, mode="max", padding_idx=-2)
        bag2 = lib.nn.EmbeddingBag.from_pretrained(lib.eye(4), mode="sum", freeze=False)
        out = (
            bag(lib.tensor([[1, 2, 8], [4, 8, 0]]))
            + bag2(lib.tensor([[0, 3, 2], [1, 1, 3]]))[:, :3]
        )
        out.sum().backward()
        return repr(bag), repr(bag2), out, bag.weight.grad, bag2.weight.grad

    ours, theirs = run(hookgrad), run(torch)
    assert ours[:2] == theirs[:2]
    assert_close(ours[2:], theirs[2:])


BAG_ERRORS = [
    (
        "offsets_start",
        lambda t: t.nn.functional.embedding_bag(t.tensor([0, 1]), t.ones(3, 2), t.tensor([1])),
    ),
    (
        "offsets_end",
        lambda t: t.nn.functional.embedding_bag(t.tensor([0, 1]), t.ones(3, 2), t.tensor([0, 5])),
    ),
    (
        "index_range",
        lambda t: t.nn.functional.embedding_bag(t.tensor([0, 7]), t.ones(3, 2), t.tensor([0])),
    ),
    (
        "index_dtype",
        lambda t: t.nn.functional.embedding_bag(t.tensor([0.0, 1.0]), t.ones(3, 2), t.tensor([0])),
    ),
    (
        "offsets_2d_input",
        lambda t: t.nn.functional.embedding_bag(t.tensor([[0, 1]]), t.ones(3, 2), t.tensor([0])),
    ),
    ("offsets_missing", lambda t: t.nn.functional.embedding_bag(t.tensor([0, 1]), t.ones(3, 2))),
    ("input_3d", lambda t: t.nn.functional.embedding_bag(t.tensor([[[0]]]), t.ones(3, 2))),
    ("mode", lambda t: t.nn.functional.embedding_bag(t.tensor([[0]]), t.ones(3, 2), mode="min")),
    (
        "max_freq",
        lambda t: t.nn.functional.embedding_bag(
            t.tensor([[0]]), t.ones(3, 2), mode="max", scale_grad_by_freq=True
        ),
    ),
    (
        "weights_mode",
        lambda t: t.nn.functional.embedding_bag(
            t.tensor([[0]]), t.ones(3, 2), per_sample_weights=t.ones(1, 1)
        ),
    ),
    (
        "weights_shape",
        lambda t: t.nn.functional.embedding_bag(
            t.tensor([[0]]), t.ones(3, 2), per_sample_weights=t.ones(2)
        ),
    ),
    ("weight_1d", lambda t: t.nn.functional.embedding_bag(t.tensor([[0]]), t.ones(3))),
    ("padding_range", lambda t: t.nn.EmbeddingBag(3, 2, padding_idx=3)),
]


@pytest.mark.parametrize("case", [c for _, c in BAG_ERRORS], ids=[n for n, _ in BAG_ERRORS])
def test_embedding_bag_errors_match_torch(torch, case):
    ours, theirs = outcome(case, hookgrad), outcome(case, torch)
    assert ours[0] == "error"
    assert ours == theirs
