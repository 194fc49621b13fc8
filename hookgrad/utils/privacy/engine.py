"""``make_private``: a model, its optimizer and its data loader made ready for DP-SGD."""

from __future__ import annotations

from typing import Any

import hookgrad
from hookgrad.optim import Optimizer
from hookgrad.utils.data import DataLoader
from hookgrad.utils.per_sample.manager import PerSampleGrads
from hookgrad.utils.privacy.optimizer import DPOptimizer
from hookgrad.utils.privacy.sampling import DPDataLoader

__all__ = ["make_private"]


def make_private(
    model: Any,
    optimizer: Optimizer,
    data_loader: DataLoader,
    noise_multiplier: float,
    max_grad_norm: float,
    poisson_sampling: bool = True,
    *,
    loss_reduction: str = "mean",
    batch_first: bool = True,
    generator: hookgrad.Generator | None = None,
) -> tuple[Any, DPOptimizer, DataLoader]:
    """``(model, optimizer, data_loader)`` ready for DP-SGD (Abadi et al. 2016).

    ``model`` gets per-sample gradient hooks (the same object is returned; its
    ``PerSampleGrads`` is ``optimizer.per_sample``), ``optimizer`` is wrapped in a
    :class:`DPOptimizer` that clips each example's gradient to ``max_grad_norm``, adds
    Gaussian noise of ``noise_multiplier * max_grad_norm`` and averages by the expected
    batch size, and ``data_loader`` becomes a :class:`DPDataLoader` that samples each
    example with probability ``1 / len(data_loader)`` at each step (``poisson_sampling``;
    False keeps the loader, whose fixed batches the accountant's analysis does not
    cover). ``optimizer.accountant.get_epsilon(delta)`` is the privacy spent so far.
    ``loss_reduction`` and ``batch_first`` are ``per_sample_grads``'s; ``generator``
    draws the batches and the noise.

    Example::

        model, optimizer, loader = make_private(model, optim.SGD(model.parameters(), lr=0.5),
                                                loader, noise_multiplier=1.1, max_grad_norm=1.0)
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        optimizer.accountant.get_epsilon(delta=1e-5)
    """
    sample_rate = 1 / len(data_loader)
    if poisson_sampling:
        examples = len(data_loader.dataset)  # type: ignore[arg-type]
        expected_batch_size = max(1, int(examples * sample_rate))
        data_loader = DPDataLoader.from_data_loader(data_loader, generator=generator)
    else:
        if data_loader.batch_size is None:
            raise ValueError("make_private needs a data loader with a batch_size")
        expected_batch_size = data_loader.batch_size
    hooks = PerSampleGrads(model, loss_reduction, batch_first, materialize=False)
    private = DPOptimizer(
        optimizer,
        hooks,
        noise_multiplier=noise_multiplier,
        max_grad_norm=max_grad_norm,
        expected_batch_size=expected_batch_size,
        sample_rate=sample_rate,
        generator=generator,
    )
    return model, private, data_loader
