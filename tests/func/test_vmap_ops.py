"""``vmap`` over every op of the op-case table (``tests/ops/cases``): the batched values and
the batched vector-Jacobian products (``vmap(vjp)``) equal the op run one example at a
time, with every differentiable input batched and with only the first one batched (the
others shared by all examples, their gradients per example). The per-example results are
hookgrad's own ops, which the op table checks against torch; the batching rules and the
per-example fallback are what is tested here. The ops of an MLP and a CNN, forward and
backward, have batching rules: none runs example by example."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hookgrad
from hookgrad.func import batching, vjp, vmap
from hookgrad.func.batching import core
from tests.ops.cases import ALL_CASES
from tests.ops.cases.spec import Const

SIZE = 2
# Ops that write a batched value into a tensor made outside the vmap: torch's vmap
# refuses them too (the batch would not fit), with the same error.
TORCH_REFUSES = {"slice_inverse[2x3-c]"}


def _outputs(value):
    return value if isinstance(value, tuple) else (value,)


def _batched_inputs(case, first_only):
    """The case's arrays with a batch of examples (slightly different values; scaled
    for the cases whose inputs must stay distinct) for the batched inputs."""
    arrays = case.arrays()
    rng = np.random.default_rng(1)
    differentiable = [i for i, s in enumerate(case.inputs) if not isinstance(s, Const)]
    batched = differentiable[:1] if first_only else differentiable
    inputs, dims = [], []
    for index, array in enumerate(arrays):
        if index in batched:
            examples = [array]
            for _ in range(SIZE - 1):
                if case.distinct:
                    examples.append(array * 1.1)
                else:
                    examples.append(array + rng.uniform(-0.05, 0.05, array.shape))
            inputs.append(hookgrad.tensor(np.stack(examples)))
            dims.append(0)
        else:
            inputs.append(hookgrad.tensor(array))
            dims.append(None)
    return inputs, dims, differentiable


def _example(inputs, dims, index):
    # NOTE: a fresh copy of each example (its own memory, as the batch's examples have:
    # an ``as_strided`` offset counts from there).
    return [x[index].clone() if d is not None else x for x, d in zip(inputs, dims)]


def _check(case, first_only):
    inputs, dims, differentiable = _batched_inputs(case, first_only)

    def fn(*tensors):
        return case.fn(hookgrad, *tensors)

    out = _outputs(vmap(fn, in_dims=tuple(dims))(*inputs))
    examples = [_outputs(fn(*_example(inputs, dims, i))) for i in range(SIZE)]
    for k, value in enumerate(out):
        expected = np.stack([e[k].numpy() for e in examples])
        np.testing.assert_allclose(value.numpy(), expected, rtol=1e-9, atol=1e-10, equal_nan=True)
    if not all(o.dtype.is_floating_point or o.dtype.is_complex for o in examples[0]):
        return
    rng = np.random.default_rng(2)
    cotangents = [
        hookgrad.tensor(rng.uniform(-1, 1, (SIZE,) + tuple(o.shape))).to(o.dtype)
        for o in examples[0]
    ]

    def products(*args):
        tensors, cots = list(args[: len(inputs)]), args[len(inputs) :]

        def of_differentiable(*values):
            for i, v in zip(differentiable, values):
                tensors[i] = v
            return case.fn(hookgrad, *tensors)

        out, vjp_fn = vjp(of_differentiable, *[tensors[i] for i in differentiable])
        return vjp_fn(type(out)(cots) if isinstance(out, tuple) else cots[0])

    batched = vmap(products, in_dims=tuple(dims) + (0,) * len(cotangents))(*inputs, *cotangents)
    for i in range(SIZE):
        tensors = [
            t.detach().requires_grad_(j in differentiable)
            for j, t in enumerate(_example(inputs, dims, i))
        ]
        outs = _outputs(case.fn(hookgrad, *tensors))
        grads = hookgrad.autograd.grad(
            outs,
            [tensors[j] for j in differentiable],
            [c[i] for c in cotangents],
            allow_unused=True,
        )
        for got, expected in zip(batched, grads):
            expected = np.zeros(got.shape[1:]) if expected is None else expected.numpy()
            np.testing.assert_allclose(
                got[i].numpy(), expected, rtol=1e-8, atol=1e-10, equal_nan=True
            )


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_vmap_of_op_equals_each_example(case) -> None:
    if case.id in TORCH_REFUSES:
        inputs, dims, _ = _batched_inputs(case, first_only=False)
        torch_inputs = [torch.tensor(x.numpy()) for x in inputs]
        with pytest.raises(RuntimeError, match="inplace arithmetic") as ours:
            vmap(lambda *t: case.fn(hookgrad, *t), in_dims=tuple(dims))(*inputs)
        with pytest.raises(RuntimeError) as theirs:
            torch.vmap(lambda *t: case.fn(torch, *t), in_dims=tuple(dims))(*torch_inputs)
        assert str(ours.value) == str(theirs.value)
        return
    _check(case, first_only=False)
    if sum(not isinstance(s, Const) for s in case.inputs) > 1:
        _check(case, first_only=True)


def _network_step(lib_model_inputs):
    model, x, y = lib_model_inputs
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, sample, target):
        out = hookgrad.func.functional_call(model, p, (sample.unsqueeze(0),))
        return hookgrad.nn.functional.cross_entropy(out, target.unsqueeze(0))

    return vmap(hookgrad.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)


def test_model_ops_have_batching_rules() -> None:
    nn = hookgrad.nn
    mlp = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 5), nn.Tanh(), nn.Linear(5, 3))
    cnn = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.GroupNorm(2, 4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 2, 3),
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.LayerNorm(2),
        nn.GELU(),
        nn.Linear(2, 3),
    ).eval()
    others = nn.Sequential(
        nn.Conv1d(2, 4, 3),
        nn.BatchNorm1d(4).eval(),
        nn.PReLU(),
        nn.InstanceNorm1d(4, affine=True),
        nn.AdaptiveAvgPool1d(2),
        nn.Flatten(),
        nn.Linear(8, 8),
        nn.Unflatten(1, (2, 4)),
        nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True).eval(),
        nn.Flatten(),
        nn.Linear(8, 3),
    )
    y = hookgrad.tensor([0, 2, 1])
    core.fallbacks.clear()
    _network_step((mlp, hookgrad.randn(3, 6), y))
    _network_step((cnn, hookgrad.randn(3, 1, 6, 6), y))
    _network_step((others, hookgrad.randn(3, 2, 7), y))
    assert not core.fallbacks
    # an op without a rule is counted
    vmap(lambda x: hookgrad.median(x))(hookgrad.randn(3, 4))
    assert core.fallbacks == {"MedianBackward0": 1}
    assert batching.rule_for(type(hookgrad.tensor(1.0).grad_fn)) is None
