"""``utils.privacy``: Poisson batches are torch's ``rand(N) < q`` draws (empty ones keep
their shapes); a DP-SGD step sets ``p.grad`` to a NumPy computation from torch's
per-example gradients (``vmap(grad)``) and torch's noise stream: flat clipping, sum,
noise ``sigma * C``, division by the expected batch size; any optimizer steps after it;
``make_private`` wires the three together."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch as _torch
from torch.func import functional_call, grad, vmap

import hookgrad
from hookgrad import nn
from hookgrad.utils.data import DataLoader, TensorDataset
from hookgrad.utils.per_sample import PerSampleGrads
from hookgrad.utils.privacy import DPDataLoader, DPOptimizer, PoissonBatchSampler, make_private


def test_poisson_batches_are_torchs_draws() -> None:
    sampler = PoissonBatchSampler(50, 0.1, generator=hookgrad.Generator().manual_seed(3))
    reference = _torch.Generator().manual_seed(3)
    batches = list(sampler)
    assert len(batches) == len(sampler) == 10
    for batch in batches:
        expected = (_torch.rand(50, generator=reference) < 0.1).nonzero().reshape(-1).tolist()
        assert batch == expected
    assert sum(map(len, batches)) > 0


def test_empty_batches_keep_shapes_and_dtypes() -> None:
    dataset = TensorDataset(hookgrad.randn(6, 2, 3), hookgrad.arange(6))
    loader = DPDataLoader(dataset, sample_rate=1e-9, steps=2)
    batches = list(loader)
    assert len(batches) == 2
    x, y = batches[0]
    assert tuple(x.shape) == (0, 2, 3) and x.dtype == hookgrad.float32
    assert tuple(y.shape) == (0,) and y.dtype == hookgrad.int64


def _model(lib: Any, norm: bool = True) -> Any:
    # NOTE: hookgrad's GroupNorm refuses an empty batch (torch's returns one): the
    # empty-batch test leaves it out.
    return lib.nn.Sequential(
        lib.nn.Conv1d(2, 3, 3, padding=1),
        lib.nn.GroupNorm(1, 3) if norm else lib.nn.Identity(),
        lib.nn.ReLU(),
        lib.nn.Flatten(),
        lib.nn.Linear(12, 3),
    )


def _data(n: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    return rng.standard_normal((n, 2, 4)), rng.integers(0, 3, n)


def _torch_per_example(model: Any, x: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    twin = _model(_torch).double()
    twin.load_state_dict(
        {k: _torch.tensor(v.detach().numpy()) for k, v in model.state_dict().items()}
    )
    params = {k: v.detach() for k, v in twin.named_parameters()}

    def loss(params: Any, xi: Any, yi: Any) -> Any:
        out = functional_call(twin, params, (xi.unsqueeze(0),))
        return _torch.nn.functional.cross_entropy(out, yi.unsqueeze(0))

    grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, _torch.tensor(x), _torch.tensor(y))
    return {k: v.numpy() for k, v in grads.items()}


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_step_clips_sums_noises_and_averages(reduction: str) -> None:
    hookgrad.manual_seed(0)
    model = _model(hookgrad).double()
    x, y = _data()
    per_example = _torch_per_example(model, x, y)
    hooks = PerSampleGrads(model, loss_reduction=reduction, materialize=False)
    inner = hookgrad.optim.SGD(model.parameters(), lr=1.0)
    before = {k: v.detach().numpy().copy() for k, v in model.named_parameters()}
    sigma, clip, expected_batch = 0.7, 0.5, 4
    optimizer = DPOptimizer(
        inner,
        hooks,
        noise_multiplier=sigma,
        max_grad_norm=clip,
        expected_batch_size=expected_batch,
        sample_rate=0.1,
        generator=hookgrad.Generator().manual_seed(5),
    )
    loss = nn.functional.cross_entropy(
        model(hookgrad.tensor(x)), hookgrad.tensor(y), reduction=reduction
    )
    loss.backward()
    optimizer.step()

    names = [n for n, _ in model.named_parameters()]
    flat = np.concatenate([per_example[n].reshape(len(x), -1) for n in names], axis=1)
    norms = np.linalg.norm(flat, axis=1)
    factors = np.minimum(clip / (norms + 1e-6), 1.0)
    noise = _torch.Generator().manual_seed(5)
    np.testing.assert_allclose(optimizer.per_sample_norms, norms, rtol=1e-10)
    assert (norms > clip).any()  # some examples are clipped
    for name, param in model.named_parameters():
        summed = np.einsum("i,i...->...", factors, per_example[name])
        drawn = _torch.normal(
            0.0, sigma * clip, size=tuple(param.shape), generator=noise, dtype=_torch.float64
        )
        expected = summed + drawn.numpy()
        if reduction == "mean":
            expected = expected / expected_batch
        np.testing.assert_allclose(param.grad.numpy(), expected, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(param.detach().numpy(), before[name] - expected, rtol=1e-9)
    assert len(optimizer.accountant) == 1


def test_any_optimizer_scheduler_and_state_dict() -> None:
    model = _model(hookgrad)
    x, y = _data()
    adam = hookgrad.optim.Adam(model.parameters(), lr=0.01)
    loader = DataLoader(TensorDataset(hookgrad.tensor(x).float(), hookgrad.tensor(y)), batch_size=2)
    model, optimizer, loader = make_private(model, adam, loader, 1.0, 1.0)
    scheduler = hookgrad.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    assert isinstance(loader, DPDataLoader) and loader.sample_rate == pytest.approx(1 / 3)
    assert optimizer.expected_batch_size == 1 and optimizer.original_optimizer is adam
    for xb, yb in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
        scheduler.step()
    assert adam.param_groups[0]["lr"] == pytest.approx(0.01 * 0.5**3)
    assert (
        adam.state and optimizer.state_dict()["state"].keys() == adam.state_dict()["state"].keys()
    )
    assert len(optimizer.accountant) == 3
    assert optimizer.accountant.get_epsilon(1e-5) > 0


def test_empty_batch_step_is_noise_over_expected_size() -> None:
    model = _model(hookgrad, norm=False)
    hooks = PerSampleGrads(model, materialize=False)
    optimizer = DPOptimizer(
        hookgrad.optim.SGD(model.parameters(), lr=0.1),
        hooks,
        noise_multiplier=2.0,
        max_grad_norm=1.5,
        expected_batch_size=8,
        sample_rate=0.1,
        generator=hookgrad.Generator().manual_seed(1),
    )
    loss = nn.functional.cross_entropy(
        model(hookgrad.zeros(0, 2, 4)), hookgrad.zeros(0, dtype=hookgrad.int64)
    )
    loss.backward()
    optimizer.step()
    noise = _torch.Generator().manual_seed(1)
    for param in model.parameters():
        drawn = _torch.normal(0.0, 3.0, size=tuple(param.shape), generator=noise)
        np.testing.assert_allclose(param.grad.numpy(), drawn.numpy() / 8, rtol=1e-6)


def test_one_backward_per_step_and_bad_arguments() -> None:
    model = _model(hookgrad)
    hooks = PerSampleGrads(model, materialize=False)
    x, _ = _data()
    model(hookgrad.tensor(x).float()).sum().backward()
    with pytest.raises(RuntimeError, match="second backward pass"):
        model(hookgrad.tensor(x).float()).sum().backward()
    sgd = hookgrad.optim.SGD(model.parameters(), lr=0.1)
    arguments = dict(noise_multiplier=1.0, expected_batch_size=4, sample_rate=0.1)
    with pytest.raises(ValueError, match="max_grad_norm must be positive"):
        DPOptimizer(sgd, hooks, max_grad_norm=0.0, **arguments)
    with pytest.raises(ValueError, match="materialize=False"):
        DPOptimizer(sgd, PerSampleGrads(_model(hookgrad)), max_grad_norm=1.0, **arguments)
