"""Per-example gradients by recomputation, for layers whose weights all enter through
linear maps ``y = x W^T`` inside a computation too involved for a closed form
(recurrences, attention): the layer's forward is run again from its inputs with each
map's output a separate tensor, one ``autograd.grad`` from the layer's output gradients
gives the gradient ``d`` at each map's output, and the weight's per-example gradient is
``sum_t outer(d_t, x_t)`` over the positions ``t`` of each example (a :class:`Factored`)."""

from __future__ import annotations

import numpy as np

from hookgrad import autograd
from hookgrad.tensor import Tensor
from hookgrad.utils.per_sample.call import Call, Factored

__all__ = ["Recorder", "factored"]


def _rows(array: np.ndarray, batch_axis: int) -> np.ndarray:
    """``array`` as ``(batch, positions, features)``."""
    array = np.moveaxis(array, batch_axis, 0)
    positions = int(np.prod(array.shape[1:-1]))
    return array.reshape(array.shape[0], positions, array.shape[-1])


class Recorder:
    """The linear maps of one recomputation, by weight name: their inputs and the output
    tensors whose gradients are wanted, with the axis of the batch in each."""

    def __init__(self) -> None:
        self.maps: dict[str, list[tuple[np.ndarray, Tensor, int]]] = {}
        self.extra: list[Tensor] = []

    def linear(self, name: str, x: Tensor, weight: np.ndarray, batch_axis: int = 0) -> Tensor:
        """``x W^T``, recorded under ``name``."""
        out = x.matmul(Tensor._make(weight).t())
        if not out.requires_grad:  # from constant inputs: a leaf of the recomputation
            out.requires_grad_()
        self.maps.setdefault(name, []).append((x.detach()._data, out, batch_axis))
        return out

    def leaf(self, array: np.ndarray) -> Tensor:
        """A tensor (e.g. a parameter repeated once per example) whose gradient is wanted."""
        tensor = Tensor._make(np.ascontiguousarray(array), requires_grad=True)
        self.extra.append(tensor)
        return tensor

    def backprop(
        self, outputs: list[Tensor], call: Call
    ) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], list[np.ndarray]]:
        """From ``call``'s output gradients (one per recomputed output): for each name,
        ``(inputs, output gradients)`` as ``(batch, positions, features)``; and the
        gradients of the ``leaf`` tensors."""
        pairs = [
            (out, grad)
            for out, grad in zip(outputs, call.grads)
            if grad is not None and out.requires_grad
        ]
        targets = [out for entries in self.maps.values() for _, out, _ in entries] + self.extra
        found = list(
            autograd.grad(
                [out for out, _ in pairs],
                targets,
                [Tensor._make(np.ascontiguousarray(grad)) for _, grad in pairs],
                allow_unused=True,
            )
        )
        grads = [
            np.zeros_like(target._data) if g is None else g._data
            for g, target in zip(found, targets)
        ]
        result = {}
        position = 0
        for name, entries in self.maps.items():
            inputs, outs = [], []
            for x, _, batch_axis in entries:
                inputs.append(_rows(x, batch_axis))
                outs.append(_rows(grads[position], batch_axis))
                position += 1
            result[name] = (np.concatenate(inputs, axis=1), np.concatenate(outs, axis=1))
        return result, grads[position:]


def factored(maps: tuple[np.ndarray, np.ndarray], shape: tuple[int, ...]) -> Factored:
    """The per-example weight gradient of one recorded map."""
    inputs, grads = maps
    return Factored(inputs[:, None], grads[:, None], shape)
