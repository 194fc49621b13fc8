"""``hookgrad.func.vmap`` (and ``hookgrad.vmap``) against torch's: ``in_dims`` and
``out_dims`` (ints, trees, None, negative), keyword arguments, nesting, ``chunk_size``,
``randomness``, in-place ops on batched inputs, autograd through a vmap, the batched
arrays' NumPy behaviour, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hookgrad
from hookgrad.func import batched
from tests.oracle import assert_close, outcome

RNG = np.random.default_rng(1)
A = RNG.uniform(-1, 1, (4, 3))
B = RNG.uniform(-1, 1, (3, 4))
C = RNG.uniform(-1, 1, (4, 2, 3))
M = RNG.uniform(-1, 1, (3, 5))


def _inputs(lib):
    return tuple(lib.tensor(v) for v in (A, B, C, M))


CASES = {
    "elementwise": lambda t, a, b, c, m: t.vmap(lambda x: x.sin() * 2 + 1)(a),
    "in_dims_1": lambda t, a, b, c, m: t.vmap(lambda x: x.exp(), in_dims=1)(b),
    "in_dims_negative": lambda t, a, b, c, m: t.vmap(lambda x: x.sum(), in_dims=-1)(b),
    "in_dims_none": lambda t, a, b, c, m: t.vmap(lambda x, w: x @ w, in_dims=(0, None))(a, m),
    "in_dims_tree": lambda t, a, b, c, m: t.vmap(
        lambda d: d["x"] * d["y"].sum(), in_dims=({"x": 0, "y": 1},)
    )({"x": a, "y": b}),
    "out_dims": lambda t, a, b, c, m: t.vmap(lambda x: x.outer(x), out_dims=2)(a),
    "out_dims_tuple": lambda t, a, b, c, m: t.vmap(lambda x: (x, x.sum()), out_dims=(1, 0))(a),
    "out_dims_none": lambda t, a, b, c, m: t.vmap(lambda x: (x * 2, m), out_dims=(0, None))(a),
    "unbatched_output": lambda t, a, b, c, m: t.vmap(lambda x: m)(a),
    "kwargs": lambda t, a, b, c, m: t.vmap(lambda x, scale: x * scale)(a, scale=3.0),
    "list_output": lambda t, a, b, c, m: t.vmap(lambda x: [x.max(), {"k": x.min()}])(a),
    "nested": lambda t, a, b, c, m: t.vmap(t.vmap(lambda x, y: x * y, in_dims=(0, None)))(
        c, a[:, 0]
    ),
    "nested_inner_dims": lambda t, a, b, c, m: t.vmap(
        t.vmap(lambda x: x.outer(x), in_dims=1), in_dims=2
    )(c.permute(1, 2, 0)),
    "chunk_size": lambda t, a, b, c, m: t.vmap(lambda x: x.softmax(0) @ m, chunk_size=3)(a),
    "matmul_forms": lambda t, a, b, c, m: t.vmap(lambda x, y: (x @ m, m.t() @ x, x @ y, y.dot(x)))(
        a, a.flip(0)
    ),
    "reductions": lambda t, a, b, c, m: t.vmap(
        lambda x: (x.sum(), x.mean(0), x.var(), x.amax(-1), x.logsumexp(1), x.norm())
    )(c),
    "views": lambda t, a, b, c, m: t.vmap(
        lambda x: (x.t(), x.reshape(-1), x[0], x[:, 1:], x.unsqueeze(0).expand(2, 2, 3), x.T)
    )(c),
    "indexing": lambda t, a, b, c, m: t.vmap(lambda x: (x[[1, 0]], x[:, [2, 0]], x[0, [1, 2]]))(c),
    "joining": lambda t, a, b, c, m: t.vmap(
        lambda x: (t.cat([x, m[:2, :3]]), t.stack([x, x * 2], 1), x.split(1, 1))
    )(c),
    "nn_layers": lambda t, a, b, c, m: t.vmap(
        lambda x: (
            t.nn.functional.layer_norm(x, (3,)),
            t.nn.functional.gelu(x),
            t.nn.functional.log_softmax(x, -1),
            t.nn.functional.mse_loss(x, x.flip(0)),
        )
    )(c),
    "inplace_on_batched": lambda t, a, b, c, m: t.vmap(lambda x: x.clone().mul_(2).add_(m[0, :3]))(
        a
    ),
    "inplace_through_view": lambda t, a, b, c, m: _inplace_through_view(t, a),
    "randomness_same": lambda t, a, b, c, m: _seeded(
        t, lambda: t.vmap(lambda x: x + t.rand(3), randomness="same")(a)
    ),
    "randomness_different": lambda t, a, b, c, m: _seeded(
        t, lambda: t.vmap(lambda x: x + t.rand(3), randomness="different")(a)
    ),
    "randomness_different_dropout_bernoulli": lambda t, a, b, c, m: _seeded(
        t,
        lambda: t.vmap(
            lambda x: (
                t.nn.functional.dropout(x, 0.5),
                t.bernoulli(x.sigmoid()),
                x.clone().normal_(),
            ),
            randomness="different",
        )(c),
    ),
    "randomness_same_dropout": lambda t, a, b, c, m: _seeded(
        t, lambda: t.vmap(lambda x: t.nn.functional.dropout(x, 0.5), randomness="same")(c)
    ),
    "randomness_different_randn_like": lambda t, a, b, c, m: _seeded(
        t, lambda: t.vmap(lambda x: t.randn_like(x), randomness="different")(c)
    ),
    "top_level_alias": lambda t, a, b, c, m: t.vmap(t.sum)(a),
}


def _inplace_through_view(t, a):
    a = a.clone()
    t.vmap(lambda x: x[1:].add_(1.0))(a)
    return a


def _seeded(t, run):
    t.manual_seed(0)
    return run()


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_torch(name: str) -> None:
    ours = CASES[name](hookgrad, *_inputs(hookgrad))
    theirs = CASES[name](torch, *_inputs(torch))
    assert_close(_plain(ours), _plain(theirs), 1e-10, 1e-12)


def _plain(tree):
    if isinstance(tree, dict):
        return [_plain(tree[k]) for k in sorted(tree)]
    if isinstance(tree, (tuple, list)):
        return [_plain(v) for v in tree]
    return tree


def test_randomness_different_draws_per_example() -> None:
    hookgrad.manual_seed(0)
    out = hookgrad.vmap(lambda x: hookgrad.rand(3), randomness="different")(hookgrad.ones(4))
    assert len({tuple(row) for row in out.tolist()}) == 4
    out = hookgrad.vmap(lambda x: hookgrad.nn.functional.dropout(x, 0.5), randomness="different")(
        hookgrad.ones(64, 32)
    )
    assert (out.tolist()[0] != out.tolist()[1]) and set(np.unique(out.numpy())) <= {0.0, 2.0}


def test_condition_the_same_for_every_example() -> None:
    """hookgrad only (torch raises): a condition every example decides alike takes that
    branch, as each example would; one they decide differently raises torch's error."""
    x = hookgrad.tensor(A)
    out = hookgrad.vmap(lambda v: v * 2 if (v.abs() < 10).all() else v)(x)
    assert_close(out, torch.tensor(A) * 2, 1e-12, 1e-12)


def test_autograd_through_vmap() -> None:
    """A vmap inside a computation autograd records: gradients of its inputs, batched
    and not, as torch's."""
    grads = []
    for lib in (hookgrad, torch):
        a = lib.tensor(A, requires_grad=True)
        m = lib.tensor(M, requires_grad=True)
        out = lib.vmap(lambda x, m=m: (x @ m).tanh().pow(2).sum())(a)
        (out * lib.arange(4.0, dtype=out.dtype)).sum().backward()
        grads.append((out, a.grad, m.grad))
    assert_close(grads[0], grads[1], 1e-10, 1e-12)


def test_autograd_grad_with_batched_cotangents() -> None:
    """``autograd.grad`` inside vmap over a graph recorded outside it (a Jacobian's rows,
    as ``autograd.functional.jacobian(vectorize=True)`` computes them in torch)."""
    rows = []
    for lib in (hookgrad, torch):
        x = lib.tensor(np.linspace(-1, 1, 3), requires_grad=True)
        y = (lib.tensor(C[0]) @ x.sin()).tanh()
        rows.append(
            lib.vmap(lambda v, x=x, y=y, g=lib.autograd.grad: g(y, x, v, retain_graph=True)[0])(
                lib.eye(2, dtype=lib.float64)
            )
        )
    assert_close(rows[0], rows[1], 1e-12, 1e-12)


def test_ensemble_training_step_through_vmap() -> None:
    """``loss.backward()`` after a vmap over stacked weights (a model ensemble's step)."""
    grads = []
    for lib in (hookgrad, torch):
        w = lib.tensor(C[:, :2, :2], requires_grad=True)
        x = lib.tensor(A[:, :2])
        out = lib.vmap(lambda wi, x=x: (x @ wi).relu().mean())(w)
        out.sum().backward()
        grads.append(w.grad)
    assert_close(grads[0], grads[1], 1e-10, 1e-12)


ERRORS = {
    "sizes_differ": lambda t: t.vmap(lambda x, y: x + y)(t.ones(3, 2), t.ones(5, 2)),
    "in_dim_range": lambda t: t.vmap(lambda x: x, in_dims=2)(t.ones(3, 2)),
    "in_dims_structure": lambda t: t.vmap(lambda x: x, in_dims=(0, 0))(t.ones(3)),
    "in_dims_type": lambda t: t.vmap(lambda x: x, in_dims=1.0)(t.ones(3)),
    "in_dims_none": lambda t: t.vmap(lambda x: x, in_dims=None)(t.ones(3)),
    "non_tensor_mapped": lambda t: t.vmap(lambda x, n: x * n)(t.ones(3), 3),
    "nothing_mapped": lambda t: t.vmap(lambda x: x, in_dims=(None,))(t.ones(3)),
    "no_inputs": lambda t: t.vmap(lambda: 1)(),
    "scalar_input": lambda t: t.vmap(lambda x: x)(t.tensor(1.0)),
    "returns_non_tensor": lambda t: t.vmap(lambda x: 3)(t.ones(3)),
    "out_dims_structure": lambda t: t.vmap(lambda x: (x, x), out_dims=(0,))(t.ones(3)),
    "out_dim_range": lambda t: t.vmap(lambda x: x, out_dims=3)(t.ones(3, 2)),
    "batched_with_out_dim_none": lambda t: t.vmap(lambda x: x.sum(), out_dims=None)(t.ones(3, 2)),
    "randomness_value": lambda t: t.vmap(lambda x: x, randomness="bad"),
    "chunk_size_value": lambda t: t.vmap(lambda x: x, chunk_size=0),
    "random_in_error_mode": lambda t: t.vmap(lambda x: x + t.rand(2))(t.ones(3, 2)),
    "dropout_in_error_mode": lambda t: t.vmap(lambda x: t.nn.functional.dropout(x))(t.ones(3, 2)),
    "same_randomness_batched_probability": lambda t: t.vmap(
        lambda x: t.bernoulli(x * 0.5), randomness="same"
    )(t.ones(3, 2)),
    "item": lambda t: t.vmap(lambda x: x.sum().item())(t.arange(6.0).reshape(3, 2)),
    "data_dependent_if": lambda t: t.vmap(lambda x: x if x.sum() > 2 else -x)(
        t.arange(6.0).reshape(3, 2)
    ),
    "requires_grad_inside": lambda t: t.vmap(lambda x: x.detach().requires_grad_())(t.ones(2, 3)),
    "backward_inside": lambda t: t.vmap(
        lambda x: (t.ones(3, requires_grad=True) * x).sum().backward()
    )(t.ones(2, 3)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name: str) -> None:
    ours = outcome(ERRORS[name], hookgrad)
    assert ours == outcome(ERRORS[name], torch)
    assert ours[0] == "error"


def test_printing_inside_vmap(capsys) -> None:
    for lib in (hookgrad, torch):
        lib.vmap(lib.vmap(lambda x: print(x) or x))(lib.arange(8.0).reshape(2, 2, 2))
    ours, theirs = capsys.readouterr().out.split("BatchedTensor(lvl=2", 2)[1:]
    assert ours == theirs and "BatchedTensor(lvl=1, bdim=0, value=" in ours


def test_make_dual_of_batched_refused() -> None:
    import hookgrad.autograd.forward_ad as fwad

    def tangent_of(v):
        with fwad.dual_level():
            return fwad.unpack_dual(fwad.make_dual(hookgrad.zeros(2), v)).tangent

    with pytest.raises(RuntimeError, match="make_dual of a batched tensor"):
        hookgrad.vmap(tangent_of)(hookgrad.eye(2))


def test_inplace_write_of_batched_into_unbatched() -> None:
    with pytest.raises(RuntimeError, match="vmap: inplace arithmetic"):
        hookgrad.vmap(lambda x: hookgrad.zeros(2).add_(x))(hookgrad.ones(3, 2))


def test_batched_array_numpy_protocol() -> None:
    """The data of a batched tensor computes for every example through NumPy: ufuncs,
    reductions, functions, indexing; a view NumPy makes behind its back is refused."""
    physical = np.arange(24.0).reshape(2, 3, 4)
    array = batched.make(physical, (99,))
    assert array.shape == (3, 4)
    np.testing.assert_array_equal((array + 1)._physical, physical + 1)
    np.testing.assert_array_equal(np.sum(array, axis=-1)._physical, physical.sum(-1))
    np.testing.assert_array_equal((array @ np.ones((4, 2)))._physical, physical @ np.ones((4, 2)))
    np.testing.assert_array_equal(array.T._physical, physical.transpose(0, 2, 1))
    np.testing.assert_array_equal(array[:, [0, 3]]._physical, physical[:, :, [0, 3]])
    np.testing.assert_array_equal(np.median(array, axis=1)._physical, np.median(physical, 2))
    copy = np.zeros_like(array)
    copy[1] = array[0]
    np.testing.assert_array_equal(copy._physical[:, 1], physical[:, 0])
    assert bool((array >= 0).all())
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        bool(array.sum() > 100)
    orphan = np.ndarray.view(array, batched.BatchedArray)
    with pytest.raises(RuntimeError, match="lost its batch"):
        orphan + 1
