"""``utils.per_sample_grads``: for every layer with a closed form (and a layer without
one, through the per-example loop), ``p.grad_sample`` equals torch's
``vmap(grad(functional_call(...)))`` on the same weights and hookgrad's own loop over
batches of one, in float32 and float64, for both loss reductions, and sums (mean:
averages) to ``p.grad``; weight tying and layers called twice accumulate; batch norm in
training mode is refused; the factored weights' norms and weighted sums equal the arrays'."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch as _torch
from torch.func import functional_call, grad, vmap

import hookgrad
from hookgrad import nn
from hookgrad.utils.per_sample import (
    Factored,
    PerSampleGrads,
    UnsupportedModuleError,
    per_sample_grads,
    register_grad_sampler,
)

BATCH = 3


def _flat(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _flat(item)]
    return [value]


def _loss_terms(output: Any, weights: list[Any]) -> Any:
    """A non-linear function of every output tensor, summed over all but the batch dim."""
    total = 0
    for out, w in zip(_flat(output), weights):
        total = total + (out * w + 0.25 * out * out).flatten(1).sum(1)
    return total


# -- the layers ---------------------------------------------------------------------------
# Each case: (name, build(lib) -> module, inputs(rng) -> list of batched arrays).


def _floats(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.standard_normal((BATCH,) + shape)


def _ints(high: int, *shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.integers(0, high, (BATCH,) + shape)


def _scale_module(lib: Any) -> Any:
    class Scale(lib.nn.Module):
        """A layer without a closed form (own parameter and a child Linear)."""

        def __init__(self) -> None:
            super().__init__()
            self.weight = lib.nn.Parameter(lib.linspace(0.5, 1.5, 4))
            self.inner = lib.nn.Linear(4, 4)

        def forward(self, x: Any) -> Any:
            return self.inner(lib.tanh(x * self.weight)) * self.weight

    return Scale()


def _tied(lib: Any) -> Any:
    class Tied(lib.nn.Module):
        """Embedding and output layer sharing one weight; a Linear called twice."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = lib.nn.Embedding(7, 4)
            self.mix = lib.nn.Linear(4, 4)
            self.head = lib.nn.Linear(4, 7, bias=False)
            self.head.weight = self.embed.weight

        def forward(self, tokens: Any) -> Any:
            h = self.mix(lib.tanh(self.mix(self.embed(tokens))))
            return self.head(h)

    return Tied()


def _bilinear(lib: Any) -> Any:
    class Pair(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bilinear = lib.nn.Bilinear(3, 2, 4)

        def forward(self, x: Any) -> Any:
            return self.bilinear(x[..., :3], x[..., 3:])

    return Pair()


CASES = [
    ("linear-3d", lambda lib: lib.nn.Linear(4, 3), _floats(2, 4)),
    ("bilinear", _bilinear, _floats(2, 5)),
    (
        "conv1d",
        lambda lib: lib.nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2),
        _floats(4, 9),
    ),
    (
        "conv2d",
        lambda lib: lib.nn.Conv2d(2, 3, (2, 3), padding="same", padding_mode="reflect"),
        _floats(2, 5, 6),
    ),
    (
        "conv3d",
        lambda lib: lib.nn.Conv3d(2, 2, 2, stride=(1, 2, 1), padding=1),
        _floats(2, 3, 4, 3),
    ),
    (
        "conv-transpose1d",
        lambda lib: lib.nn.ConvTranspose1d(
            4, 6, 3, stride=2, padding=1, output_padding=1, groups=2
        ),
        _floats(4, 5),
    ),
    (
        "conv-transpose2d",
        lambda lib: lib.nn.ConvTranspose2d(2, 3, 3, stride=(2, 1), dilation=(1, 2), padding=(0, 1)),
        _floats(2, 3, 4),
    ),
    (
        "conv-transpose3d",
        lambda lib: lib.nn.ConvTranspose3d(2, 2, 2, stride=2),
        _floats(2, 2, 2, 3),
    ),
    ("embedding", lambda lib: lib.nn.Embedding(6, 3, padding_idx=1), _ints(6, 5)),
    ("embedding-bag-mean", lambda lib: lib.nn.EmbeddingBag(6, 3, mode="mean"), _ints(6, 4)),
    ("embedding-bag-max", lambda lib: lib.nn.EmbeddingBag(6, 3, mode="max"), _ints(6, 4)),
    ("layer-norm", lambda lib: lib.nn.LayerNorm((2, 3)), _floats(4, 2, 3)),
    ("group-norm", lambda lib: lib.nn.GroupNorm(2, 4), _floats(4, 5)),
    ("instance-norm", lambda lib: lib.nn.InstanceNorm2d(3, affine=True), _floats(3, 2, 3)),
    ("rms-norm", lambda lib: lib.nn.RMSNorm(4), _floats(3, 4)),
    ("prelu", lambda lib: lib.nn.PReLU(3), _floats(3, 4)),
    ("batch-norm-eval", lambda lib: lib.nn.BatchNorm1d(3).eval(), _floats(3, 4)),
    ("per-example-loop", _scale_module, _floats(4)),
    ("tied-and-reused", _tied, _ints(7, 3)),
]


def _perturb(model: Any, rng: np.random.Generator) -> None:
    """Move every parameter off its initial value (norm layers start at weight 1, bias 0;
    batch norm's running statistics too)."""
    with hookgrad.no_grad():
        for p in model.parameters():
            p.add_(hookgrad.tensor(0.3 * rng.standard_normal(p.shape), dtype=p.dtype))
        for name, b in model.named_buffers():
            if b.dtype.is_floating_point:
                b.add_(hookgrad.tensor(0.2 * rng.random(b.shape), dtype=b.dtype))


def _torch_twin(build: Callable[[Any], Any], model: Any, dtype: Any) -> Any:
    twin = build(_torch).to(dtype)
    state = {k: _torch.tensor(v.detach().numpy()) for k, v in model.state_dict().items()}
    twin.load_state_dict(state)
    return twin


def _torch_per_example(twin: Any, inputs: list[np.ndarray], weights: list[np.ndarray]) -> dict:
    params = {k: v.detach() for k, v in twin.named_parameters()}
    buffers = {k: v.detach() for k, v in twin.named_buffers()}

    def loss(params: Any, *example: Any) -> Any:
        (*xs,) = example[: len(inputs)]
        ws = example[len(inputs) :]
        out = functional_call(twin, (params, buffers), tuple(x.unsqueeze(0) for x in xs))
        return _loss_terms(out, [w.unsqueeze(0) for w in ws]).sum()

    args = [_torch.tensor(x) for x in inputs] + [_torch.tensor(w) for w in weights]
    return {
        k: v.numpy()
        for k, v in vmap(grad(loss), in_dims=(None,) + (0,) * len(args))(params, *args).items()
    }


def _hookgrad_loop(model: Any, inputs: list[np.ndarray], weights: list[np.ndarray]) -> dict:
    """The per-example loop: batches of one, plain backward."""
    rows: dict[str, list[np.ndarray]] = {n: [] for n, _ in model.named_parameters()}
    for i in range(BATCH):
        model.zero_grad()
        out = model(*(hookgrad.tensor(x[i : i + 1]) for x in inputs))
        _loss_terms(out, [hookgrad.tensor(w[i : i + 1]) for w in weights]).sum().backward()
        for n, p in model.named_parameters():
            rows[n].append(p.grad.numpy().copy())
    model.zero_grad()
    return {n: np.stack(v) for n, v in rows.items()}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,build,make_inputs", CASES, ids=[c[0] for c in CASES])
def test_matches_torch_vmap_and_the_loop(
    name: str, build: Any, make_inputs: Any, dtype: str
) -> None:
    rng = np.random.default_rng(0)
    hookgrad.manual_seed(0)
    model = build(hookgrad).to(getattr(hookgrad, dtype))
    _perturb(model, rng)
    inputs = [make_inputs(rng)]
    inputs = [x.astype(dtype) if x.dtype.kind == "f" else x for x in inputs]
    with hookgrad.no_grad():
        outputs = _flat(model(*(hookgrad.tensor(x) for x in inputs)))
    weights = [rng.standard_normal(tuple(o.shape)).astype(dtype) for o in outputs]
    expected = _torch_per_example(
        _torch_twin(build, model, getattr(_torch, dtype)), inputs, weights
    )
    looped = _hookgrad_loop(model, inputs, weights)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-11}
    for reduction in ("sum", "mean"):
        model.zero_grad()
        with per_sample_grads(model, loss_reduction=reduction):
            out = model(*(hookgrad.tensor(x) for x in inputs))
            terms = _loss_terms(out, [hookgrad.tensor(w) for w in weights])
            (terms.sum() if reduction == "sum" else terms.mean()).backward()
        for n, p in model.named_parameters():
            sample = p.grad_sample.numpy()
            assert sample.dtype == np.dtype(dtype), n
            np.testing.assert_allclose(sample, expected[n], **tol, err_msg=n)
            np.testing.assert_allclose(sample, looped[n], **tol, err_msg=n)
            reduced = sample.sum(0) if reduction == "sum" else sample.mean(0)
            np.testing.assert_allclose(reduced, p.grad.numpy(), **tol, err_msg=n)
