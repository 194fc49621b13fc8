"""Statistics of per-example gradients over training: each layer's per-example gradient
norms, the examples with the largest gradients, and the gradient noise scale.

The "simple" noise scale of McCandlish, Kaplan, Amodei et al., "An Empirical Model of
Large-Batch Training" (2018), ``B_simple = tr(Sigma) / |G|^2`` (``G`` the true gradient,
``Sigma`` the per-example covariance), is about the batch size beyond which larger
batches stop paying off. From a batch's ``n`` per-example gradients ``g_i`` with mean
``g`` and ``S = sum_i |g_i|^2``, their unbiased estimates (Appendix A with batch sizes 1
and ``n``) are ``tr(Sigma) = (S - n |g|^2) / (n - 1)`` and
``|G|^2 = |g|^2 - tr(Sigma) / n``; one batch's ratio is noisy, so, as McCandlish et al.
do, numerator and denominator are averaged over steps before dividing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hookgrad.utils.per_sample.manager import PerSampleBatch, PerSampleGrads

__all__ = ["PerSampleMonitor", "PerSampleStep", "noise_scale_terms", "simple_noise_scale"]


def noise_scale_terms(batch: PerSampleBatch) -> tuple[float, float]:
    """``(tr(Sigma), |G|^2)``: the unbiased estimates from one batch (``nan`` for fewer
    than two examples)."""
    n = batch.batch_size
    if n < 2:
        return float("nan"), float("nan")
    ones = np.ones(n)
    total = 0.0
    mean_squared = 0.0
    for param in batch.params:
        total += float(batch.squared_norms(param).sum())
        summed = batch.weighted_sum(param, ones).astype(np.float64)
        mean_squared += float(np.vdot(summed, summed)) / (n * n)
    trace = (total - n * mean_squared) / (n - 1)
    return trace, mean_squared - trace / n


def simple_noise_scale(traces: Any, squared_norms: Any) -> float:
    """``B_simple`` from per-step estimates: ``mean(tr(Sigma)) / mean(|G|^2)`` over the
    steps with both (``nan`` if none)."""
    traces = np.asarray(traces, dtype=np.float64)
    squared = np.asarray(squared_norms, dtype=np.float64)
    kept = np.isfinite(traces) & np.isfinite(squared)
    if not kept.any():
        return float("nan")
    return float(traces[kept].mean() / squared[kept].mean())


@dataclass
class PerSampleStep:
    """What :class:`PerSampleMonitor` recorded for one backward pass."""

    step: int
    layer_norms: dict[str, np.ndarray]  # layer name -> (batch,) per-example gradient norms
    norms: np.ndarray  # (batch,) norms over every parameter
    ids: np.ndarray  # (batch,) what the caller called the examples (else their positions)
    trace: float
    squared_norm: float


class PerSampleMonitor:
    """Records per-example gradient statistics of ``model`` at each :meth:`collect`
    (after a backward pass): every layer's per-example gradient norms, the largest
    gradient of each example (by the ids ``collect`` gets), and the noise-scale terms.

    Layers without a closed form are left out (``hooks.skipped``); a model with
    training-mode batch norm is refused by the constructor
    (:class:`~hookgrad.utils.per_sample.UnsupportedModuleError`).

    Example::

        with PerSampleMonitor(model) as monitor:
            for step, (x, y, ids) in enumerate(loader):
                loss_fn(model(x), y).backward()
                monitor.collect(ids)
                optimizer.step(); optimizer.zero_grad()
        monitor.noise_scale(), monitor.largest()
    """

    def __init__(
        self,
        model: Any,
        loss_reduction: str = "mean",
        batch_first: bool = True,
    ) -> None:
        self.hooks = PerSampleGrads(
            model, loss_reduction, batch_first, materialize=False, strict=False
        )
        self.history: list[PerSampleStep] = []
        # example id -> (its largest gradient norm, the step it was seen at)
        self._largest: dict[Any, tuple[float, int]] = {}

    def collect(self, ids: Any = None) -> PerSampleStep | None:
        """Record the last backward pass's per-example gradients (``ids``: a name for each
        example, e.g. its dataset index; else ``(step, position in the batch)``); None if
        the pass reached no hooked layer."""
        try:
            batch = self.hooks.take()
        except RuntimeError:  # passes of different batch sizes mixed (strict=False)
            return None
        if not batch.params or batch.batch_size == 0:
            return None
        n = batch.batch_size
        squared = {id(p): batch.squared_norms(p) for p in batch.params}
        layer_norms = {}
        for layer in self.hooks.layers.values():
            parts = [squared[id(p)] for p in layer.params.values() if id(p) in squared]
            if parts:
                layer_norms[layer.name] = np.sqrt(np.sum(parts, axis=0))
        norms = np.sqrt(np.sum(list(squared.values()), axis=0))
        trace, squared_norm = noise_scale_terms(batch)
        step = len(self.history)
        names = [(step, i) for i in range(n)] if ids is None else np.asarray(ids).tolist()
        record = PerSampleStep(step, layer_norms, norms, np.asarray(names), trace, squared_norm)
        self.history.append(record)
        for norm, name in zip(norms.tolist(), names):
            key = tuple(name) if isinstance(name, list) else name
            if key not in self._largest or norm > self._largest[key][0]:
                self._largest[key] = (norm, step)
        return record

    def largest(self, k: int = 8) -> list[tuple[float, int, Any]]:
        """``(norm, step, id)`` of the ``k`` examples with the largest gradients seen
        (each example once, at its largest), largest first."""
        ranked = sorted(self._largest.items(), key=lambda item: item[1][0], reverse=True)
        return [(norm, step, name) for name, (norm, step) in ranked[:k]]

    def noise_scale(self, last: int | None = None) -> float:
        """``B_simple`` over all recorded steps (or the ``last`` ones)."""
        steps = self.history if last is None else self.history[-last:]
        return simple_noise_scale([s.trace for s in steps], [s.squared_norm for s in steps])

    def noise_scale_series(self, window: int = 20) -> np.ndarray:
        """``B_simple`` at each step, over the ``window`` steps up to it."""
        traces = [s.trace for s in self.history]
        squared = [s.squared_norm for s in self.history]
        return np.array(
            [
                simple_noise_scale(
                    traces[max(0, i + 1 - window) : i + 1], squared[max(0, i + 1 - window) : i + 1]
                )
                for i in range(len(self.history))
            ]
        )

    def remove(self) -> None:
        """Remove the hooks; what was recorded stays."""
        self.hooks.remove()

    def __enter__(self) -> PerSampleMonitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
