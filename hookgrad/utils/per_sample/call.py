"""What a per-sample rule sees and gives back: :class:`Call`, one call of a module (its
inputs, outputs and the gradients of its outputs), and :class:`Factored`, per-example
gradients kept as the two factors of a sum of outer products.

A rule (one per layer family, ``linear.py``, ``conv.py`` ...) is a function
``rule(module, call) -> {parameter name: per-example gradients}``, each value an array of
shape ``(batch, *parameter.shape)`` or a :class:`Factored`. The batch is always axis 0
of what a rule returns; ``call.input`` and ``call.grad`` move it there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hookgrad.ops.kernels.parallel import for_row_blocks
from hookgrad.tensor import Tensor

__all__ = ["Call", "Factored", "batch_front", "flat_rows", "materialize"]

_OUTER_GRAIN = 1 << 20  # elements of per-example outer products one block writes


def flat_rows(array: np.ndarray, keep: int) -> np.ndarray:
    """``array`` with every dim after the first ``keep`` flattened into one (also for an
    empty batch, where ``reshape(n, -1)`` cannot infer the size)."""
    return array.reshape(array.shape[:keep] + (int(np.prod(array.shape[keep:])),))


def batch_front(array: np.ndarray, batch_dim: int) -> np.ndarray:
    """``array`` with axis ``batch_dim`` moved to the front (a view)."""
    return array if batch_dim == 0 else np.moveaxis(array, batch_dim, 0)


@dataclass
class Call:
    """One call of a module: ``args``/``kwargs`` as ``forward`` got them, the tensors of
    its output (flattened, in order), and the gradient the backward pass brought to each
    (an array, or None where the pass did not reach that output). ``batch_dim``: the axis
    of the batch in the inputs and outputs (0, or 1 with ``batch_first=False``)."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    outputs: list[Tensor]
    grads: list[np.ndarray | None]
    batch_dim: int

    def input(self, index: int = 0) -> np.ndarray:
        """Positional argument ``index`` as an array, batch first."""
        return batch_front(self.args[index]._data, self.batch_dim)

    def grad(self, index: int = 0) -> np.ndarray:
        """The gradient of output ``index`` as an array, batch first (zeros where the
        backward pass did not reach that output)."""
        grad = self.grads[index]
        if grad is None:
            grad = np.zeros_like(self.outputs[index]._data)
        return batch_front(grad, self.batch_dim)

    def argument(self, index: int, name: str, default: Any = None) -> Any:
        """The argument given positionally at ``index`` or by keyword ``name``."""
        if len(self.args) > index:
            return self.args[index]
        return self.kwargs.get(name, default)


@dataclass(eq=False)
class Factored:
    """Per-example gradients ``g[i] = sum_t outer(b[i, g, t], a[i, g, t])`` for each group
    ``g`` (the weight of a linear or convolution layer: ``a`` its inputs at each of ``T``
    positions, ``b`` the gradients of its outputs there), times ``scale``; ``shape`` is the
    parameter's shape, laid out as ``(groups, b's width, a's width)``.

    ``a``: ``(batch, groups, T, d)``; ``b``: ``(batch, groups, T, p)``. Kept factored, the
    squared norm of each ``g[i]`` and a weighted sum ``sum_i c[i] g[i]`` cost less than the
    ``(batch, *shape)`` array itself where ``p * d`` is large against ``T * (p + d)`` (a
    linear layer's big weight: Goodfellow 2015; "ghost" norms for ``T > 1``: Li et al.
    2022); where it is small (a convolution's kernel, many positions) the array is formed
    once, per group, and kept for both.
    """

    a: np.ndarray
    b: np.ndarray
    shape: tuple[int, ...]
    scale: float = 1.0
    _dense: np.ndarray | None = field(default=None, repr=False)

    @property
    def batch(self) -> int:
        return self.a.shape[0]

    @property
    def _small(self) -> bool:
        """Whether ``g`` is smaller than its factors (then it is formed, not avoided)."""
        positions, d, p = self.a.shape[2], self.a.shape[3], self.b.shape[3]
        return positions > 1 and d * p <= positions * (d + p)

    def _grouped(self, b: np.ndarray | None = None) -> np.ndarray:
        """``g`` as ``(batch, groups, p, d)``, from ``b`` (default: unscaled)."""
        a, b = self.a, self.b if b is None else b
        if a.shape[2] == 1:
            # NOTE: memory-bound outer products, written a few examples at a time on the
            # intra-op threads
            out = np.empty(b.shape[:2] + (b.shape[3], a.shape[3]), np.result_type(a, b))

            def rows(part: slice) -> None:
                np.multiply(b[part, :, 0, :, None], a[part, :, 0, None, :], out=out[part])

            for_row_blocks(len(out), max(1, _OUTER_GRAIN // max(1, out[0].size)), rows)
            return out
        return np.matmul(np.ascontiguousarray(b.swapaxes(-1, -2)), a)

    def _kept(self) -> np.ndarray:
        """``_grouped()``, formed once (for a small ``g``)."""
        if self._dense is None:
            self._dense = self._grouped()
        return self._dense

    def materialize(self) -> np.ndarray:
        """The ``(batch, *shape)`` array of per-example gradients."""
        scale = np.asarray(self.scale, self.b.dtype)
        if self._small:
            dense = self._kept() * scale if self.scale != 1.0 else self._kept()
        else:
            # NOTE: scaling a factor, not the (much larger) result, saves a pass over it.
            dense = self._grouped(self.b * scale if self.scale != 1.0 else self.b)
        return dense.reshape((self.batch,) + self.shape)

    def squared_norms(self) -> np.ndarray:
        """``|g[i]|^2`` for each example: through ``a a^T`` and ``b b^T`` (the "ghost"
        norm) where that is cheaper than forming ``g``."""
        a, b = self.a, self.b
        if a.shape[2] == 1:
            a1, b1 = a[:, :, 0], b[:, :, 0]
            norms = (np.einsum("ngd,ngd->ng", a1, a1) * np.einsum("ngp,ngp->ng", b1, b1)).sum(1)
        elif not self._small:
            aa = np.matmul(a, np.ascontiguousarray(a.swapaxes(-1, -2)))
            bb = np.matmul(b, np.ascontiguousarray(b.swapaxes(-1, -2)))
            norms = np.einsum("ngst,ngst->n", aa, bb)
        else:
            g = flat_rows(self._kept(), 1)
            norms = np.einsum("nk,nk->n", g, g)
        return norms * (self.scale * self.scale)

    def weighted_sum(self, weights: np.ndarray) -> np.ndarray:
        """``sum_i weights[i] * g[i]``, with the parameter's shape."""
        n, groups, positions, d = self.a.shape
        p = self.b.shape[3]
        w = weights.astype(self.b.dtype) * np.asarray(self.scale, self.b.dtype)
        if self._small:
            return np.tensordot(w, self._kept(), axes=1).reshape(self.shape)
        if positions == 1 and groups == 1:
            return ((self.b[:, 0, 0] * w[:, None]).T @ self.a[:, 0, 0]).reshape(self.shape)
        b = self.b * w[:, None, None, None]
        b = np.ascontiguousarray(b.transpose(1, 3, 0, 2)).reshape(groups, p, n * positions)
        a = np.ascontiguousarray(self.a.transpose(1, 0, 2, 3)).reshape(groups, n * positions, d)
        return np.matmul(b, a).reshape(self.shape)


def materialize(value: np.ndarray | Factored) -> np.ndarray:
    """A rule's result for one parameter as its ``(batch, *shape)`` array."""
    return value.materialize() if isinstance(value, Factored) else value
