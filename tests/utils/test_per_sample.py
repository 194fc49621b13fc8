"""``utils.per_sample_grads``: for every layer with a closed form (and a layer without
one, through ``hookgrad.func.vmap`` and through its one-example-at-a-time fallback),
``p.grad_sample`` equals torch's ``vmap(grad(functional_call(...)))`` on the same weights
(torch's loop over batches of one for its recurrent layers, which its vmap cannot run)
and hookgrad's own loop over batches of one, in float32 and float64, for both loss
reductions, and sums (mean: averages) to ``p.grad``; weight tying and layers called
several times accumulate; batch norm in training mode is refused; misuse is named; the
factored weights' norms and weighted sums equal the arrays'; the monitor's statistics
equal a direct computation."""

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
    PerSampleMonitor,
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


def _recurrent(kind: str, **options: Any) -> Callable[[Any], Any]:
    """A recurrent layer whose outputs all have the batch first."""

    def build(lib: Any) -> Any:
        class Wrapped(lib.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.rnn = getattr(lib.nn, kind)(3, 4, **options)

            def forward(self, x: Any) -> Any:
                first = self.rnn.batch_first
                out, states = self.rnn(x if first else x.transpose(0, 1))
                states = states if isinstance(states, tuple) else (states,)
                return (out if first else out.transpose(0, 1),) + tuple(
                    s.transpose(0, 1) for s in states
                )

        return Wrapped()

    return build


def _cell(kind: str, **options: Any) -> Callable[[Any], Any]:
    """A cell run over three steps (one module called three times), from a given state."""

    def build(lib: Any) -> Any:
        class Unrolled(lib.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.cell = getattr(lib.nn, kind)(3, 4, **options)

            def forward(self, x: Any) -> Any:
                h = lib.tanh(x[:, 0, :].sum(1, keepdim=True) * lib.ones(1, 4, dtype=x.dtype))
                state = (h, h * 0.5) if kind == "LSTMCell" else h
                outputs = []
                for t in range(x.shape[1]):
                    state = self.cell(x[:, t], state)
                    outputs.append(state[0] if kind == "LSTMCell" else state)
                return lib.stack(outputs, 1)

        return Unrolled()

    return build


def _attention(lib: Any) -> Any:
    class SelfAttention(lib.nn.Module):
        """Batch-first self-attention with a causal mask, a key padding mask, bias_k/v and
        a zero key; the head-averaged weights are an output too."""

        def __init__(self) -> None:
            super().__init__()
            self.attention = lib.nn.MultiheadAttention(
                4, 2, batch_first=True, add_bias_kv=True, add_zero_attn=True
            )

        def forward(self, x: Any) -> Any:
            causal = lib.ones(3, 3, dtype=lib.bool).triu(1)
            padding = x[:, :, 0] > 1.2
            padding[:, 0] = False
            return self.attention(x, x, x, key_padding_mask=padding, attn_mask=causal)

    return SelfAttention()


def _cross_attention(lib: Any) -> Any:
    class CrossAttention(lib.nn.Module):
        """Sequence-first attention with separate key and value sizes, no weights."""

        def __init__(self) -> None:
            super().__init__()
            self.attention = lib.nn.MultiheadAttention(4, 2, kdim=3, vdim=5, bias=False)

        def forward(self, x: Any) -> Any:
            x = x.transpose(0, 1)
            out, _ = self.attention(x[..., :4], x[..., 4:7], x[..., 7:], need_weights=False)
            return out.transpose(0, 1)

    return CrossAttention()


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
    ("no-closed-form", _scale_module, _floats(4)),
    ("tied-and-reused", _tied, _ints(7, 3)),
    (
        "lstm",
        _recurrent("LSTM", num_layers=2, bidirectional=True, proj_size=2, batch_first=True),
        _floats(3, 3),
    ),
    ("gru", _recurrent("GRU", batch_first=False), _floats(3, 3)),
    ("rnn-relu", _recurrent("RNN", nonlinearity="relu", bias=False, num_layers=2), _floats(3, 3)),
    ("lstm-cell", _cell("LSTMCell"), _floats(3, 3)),
    ("gru-cell", _cell("GRUCell"), _floats(3, 3)),
    ("rnn-cell", _cell("RNNCell", bias=False), _floats(3, 3)),
    ("attention", _attention, _floats(3, 4)),
    ("cross-attention", _cross_attention, _floats(3, 12)),
]


def _perturb(model: Any, rng: np.random.Generator) -> None:
    """Move every parameter off its initial value (norm layers start at weight 1, bias 0;
    batch norm's running statistics too)."""
    with hookgrad.no_grad():
        for p in model.parameters():
            p.add_(hookgrad.tensor(0.3 * rng.standard_normal(p.shape), dtype=p.dtype))
        for b in model.buffers():
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


# torch's vmap cannot run its recurrent layers (their fused kernels have no batching rule:
# "output with shape [1, 4] doesn't match the broadcast shape [3, 1, 4]"): these compare
# with torch's loop over batches of one instead.
NO_TORCH_VMAP = {"lstm", "gru", "rnn-relu"}


def _torch_loop(twin: Any, inputs: list[np.ndarray], weights: list[np.ndarray]) -> dict:
    rows: dict[str, list[np.ndarray]] = {n: [] for n, _ in twin.named_parameters()}
    for i in range(BATCH):
        twin.zero_grad()
        out = twin(*(_torch.tensor(x[i : i + 1]) for x in inputs))
        _loss_terms(out, [_torch.tensor(w[i : i + 1]) for w in weights]).sum().backward()
        for n, p in twin.named_parameters():
            rows[n].append(p.grad.numpy().copy())
    return {n: np.stack(v) for n, v in rows.items()}


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
    twin = _torch_twin(build, model, getattr(_torch, dtype))
    oracle = _torch_loop if name in NO_TORCH_VMAP else _torch_per_example
    expected = oracle(twin, inputs, weights)
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


def test_batch_first_false_moves_the_batch_dim() -> None:
    hookgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.LayerNorm(4)).double()
    x = hookgrad.randn(5, 2, 3, dtype=hookgrad.float64)  # (positions, batch, features)
    with per_sample_grads(model, loss_reduction="sum", batch_first=False):
        model(x).pow(2).sum().backward()
    for name, p in model.named_parameters():
        rows = []
        for i in range(2):
            q = dict(model.named_parameters())[name]
            q.grad = None
            model(x[:, i : i + 1]).pow(2).sum().backward()
            rows.append(q.grad.numpy())
        np.testing.assert_allclose(p.grad_sample.numpy(), np.stack(rows), rtol=1e-12, atol=1e-14)


def test_embedding_bag_offsets_and_weights_per_bag() -> None:
    hookgrad.manual_seed(0)
    bag = nn.EmbeddingBag(6, 3, mode="sum", padding_idx=2).double()
    indices = hookgrad.tensor([1, 2, 4, 5, 4, 3, 0])
    offsets = hookgrad.tensor([0, 3, 3, 5])  # bags of 3, 0, 2 and 2 indices
    weights = hookgrad.rand(7, dtype=hookgrad.float64)
    scale = hookgrad.randn(4, 3, dtype=hookgrad.float64)
    with per_sample_grads(bag, loss_reduction="sum"):
        (bag(indices, offsets, per_sample_weights=weights) * scale).sum().backward()
    starts, ends = [0, 3, 3, 5], [3, 3, 5, 7]
    for b, (start, end) in enumerate(zip(starts, ends)):
        bag.zero_grad()
        one = bag(indices[start:end], hookgrad.tensor([0]), per_sample_weights=weights[start:end])
        (one * scale[b]).sum().backward()
        np.testing.assert_allclose(bag.weight.grad_sample[b].numpy(), bag.weight.grad.numpy())


def test_factored_norms_and_weighted_sums_equal_the_arrays() -> None:
    rng = np.random.default_rng(0)
    # one position; a few, with a large g (ghost norms); many, with a small g (formed)
    for positions, groups, d, p in [(1, 1, 5, 3), (1, 2, 4, 3), (2, 2, 6, 5), (30, 1, 2, 2)]:
        a = rng.standard_normal((6, groups, positions, d))
        b = rng.standard_normal((6, groups, positions, p))
        factored = Factored(a, b, (groups * p, d), scale=1.5)
        dense = 1.5 * np.einsum("ngtp,ngtd->ngpd", b, a).reshape(6, groups * p, d)
        np.testing.assert_allclose(factored.materialize(), dense, rtol=1e-12)
        np.testing.assert_allclose(
            factored.squared_norms(), (dense**2).reshape(6, -1).sum(1), rtol=1e-12
        )
        w = rng.random(6)
        np.testing.assert_allclose(
            factored.weighted_sum(w), np.einsum("n,n...->...", w, dense), rtol=1e-12
        )


def test_a_second_pass_appends_and_clear_forgets() -> None:
    model = nn.Linear(3, 2)
    with per_sample_grads(model, loss_reduction="sum") as hooks:
        model(hookgrad.randn(4, 3)).sum().backward()
        model(hookgrad.randn(2, 3)).sum().backward()
        assert tuple(model.weight.grad_sample.shape) == (6, 2, 3)
        np.testing.assert_allclose(
            model.weight.grad_sample.numpy().sum(0), model.weight.grad.numpy(), rtol=1e-5
        )
        hooks.clear()
        assert model.weight.grad_sample is None
    model(hookgrad.randn(4, 3)).sum().backward()  # hooks removed: nothing recorded
    assert model.weight.grad_sample is None


def test_batch_norm_in_training_mode_is_refused() -> None:
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
    with pytest.raises(UnsupportedModuleError, match=r"'1' \(BatchNorm2d\).*nn.GroupNorm"):
        per_sample_grads(model)
    model.eval()
    hooks = per_sample_grads(model)
    model.train()
    with pytest.raises(UnsupportedModuleError, match="BatchNorm2d"):
        model(hookgrad.randn(2, 1, 5, 5))
    assert model[1].num_batches_tracked.item() == 0  # refused before it ran
    hooks.remove()


def test_misuse_is_named() -> None:
    with pytest.raises(ValueError, match="loss_reduction must be 'mean' or 'sum'"):
        per_sample_grads(nn.Linear(2, 2), loss_reduction="none")
    layer = nn.Linear(3, 2)
    with per_sample_grads(layer):
        x = hookgrad.randn(4, 3)
        out = layer(x)
        x.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()

    class Outside(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = nn.Linear(3, 3)

        def forward(self, x: Any) -> Any:
            return nn.functional.linear(x, self.inner.weight)

    model = Outside()
    with per_sample_grads(model), pytest.raises(RuntimeError, match="'inner.weight' received"):
        model(hookgrad.randn(2, 3)).sum().backward()
    with per_sample_grads(nn.Linear(3, 2)) as hooks:
        with pytest.raises(ValueError, match="need a batch dimension"):
            hooks.model(hookgrad.randn(3)).sum().backward()


def test_a_users_rule() -> None:
    class Scale(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.Parameter(hookgrad.ones(1))

        def forward(self, x: Any) -> Any:
            return x * self.weight

    calls = []

    @register_grad_sampler(Scale)
    def scale(module: Any, call: Any) -> dict:
        calls.append(module)
        x, grad = call.input(0), call.grad(0)
        return {"weight": (x * grad).reshape(len(x), -1).sum(1, keepdims=True)}

    model = Scale()
    with per_sample_grads(model, loss_reduction="sum"):
        (model(hookgrad.tensor([[1.0, 2.0], [3.0, 4.0]])) ** 2).sum().backward()
    assert calls == [model]
    np.testing.assert_allclose(model.weight.grad_sample.numpy(), [[10.0], [50.0]])


def test_monitor_statistics_equal_a_direct_computation() -> None:
    hookgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2)).double()
    x, y = hookgrad.randn(7, 3, dtype=hookgrad.float64), hookgrad.tensor([0, 1, 1, 0, 1, 0, 0])
    with PerSampleGrads(model) as hooks:
        nn.functional.cross_entropy(model(x), y).backward()
    grads = np.concatenate([p.grad_sample.numpy().reshape(7, -1) for p in model.parameters()], 1)
    monitor = PerSampleMonitor(model)
    nn.functional.cross_entropy(model(x), y).backward()
    record = monitor.collect(ids=np.arange(10, 17))
    monitor.remove()
    np.testing.assert_allclose(record.norms, np.linalg.norm(grads, axis=1), rtol=1e-10)
    first = np.concatenate(
        [model[0].weight.grad_sample.numpy().reshape(7, -1), model[0].bias.grad_sample.numpy()], 1
    )
    np.testing.assert_allclose(record.layer_norms["0"], np.linalg.norm(first, axis=1), rtol=1e-10)
    mean = grads.mean(0)
    trace = ((grads - mean) ** 2).sum() / 6  # unbiased: per-example covariance's trace
    np.testing.assert_allclose(record.trace, trace, rtol=1e-10)
    np.testing.assert_allclose(record.squared_norm, mean @ mean - trace / 7, rtol=1e-10)
    assert monitor.noise_scale() == pytest.approx(trace / (mean @ mean - trace / 7))
    largest = int(np.argmax(np.linalg.norm(grads, axis=1)))
    assert monitor.largest(1) == [(pytest.approx(record.norms.max()), 0, 10 + largest)]
    assert hooks.layers and not hooks._handles


def test_multihead_attention_out_proj_is_its_own() -> None:
    attention = nn.MultiheadAttention(4, 2)
    hooks = per_sample_grads(attention)
    assert list(hooks.layers) == [attention]
    assert set(hooks.layers[attention].params) == {
        "in_proj_weight",
        "in_proj_bias",
        "out_proj.weight",
        "out_proj.bias",
    }
    hooks.remove()


def test_the_one_example_at_a_time_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    from hookgrad.utils.per_sample import generic

    def unbatchable(*args: Any) -> Any:
        raise NotImplementedError("no batching rule")

    name, build, make_inputs = next(case for case in CASES if case[0] == "no-closed-form")
    monkeypatch.setattr(generic, "_vmapped", unbatchable)
    test_matches_torch_vmap_and_the_loop(name, build, make_inputs, "float64")
