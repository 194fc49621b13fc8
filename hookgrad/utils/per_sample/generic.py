"""The per-example loop: per-example gradients of a layer without a closed form, by
running the layer alone on each example and differentiating its own parameters.

It assumes what per-example gradients assume: a tensor argument or output whose size
along the batch dim is the batch size holds one example per row there, and anything else
is shared by all examples. While it runs, the per-sample hooks of the layers it calls
record nothing, and the layer's buffers (running statistics) are put back afterwards.
A layer that draws random numbers draws new ones.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from hookgrad import autograd, grad_mode
from hookgrad.tensor import Tensor
from hookgrad.utils.per_sample.call import Call

__all__ = ["flatten_tensors", "per_example_loop", "recomputing"]

_state = threading.local()


def recomputing() -> bool:
    """Whether the per-example loop is running a layer on this thread."""
    return getattr(_state, "depth", 0) > 0


@contextmanager
def _recompute() -> Iterator[None]:
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1


@contextmanager
def _buffers_kept(module: Any) -> Iterator[None]:
    """Put every buffer of ``module`` (and its children) back as it was."""
    kept = [
        (owner, name, buffer, buffer._data.copy())
        for owner in module.modules()
        for name, buffer in owner._buffers.items()
        if buffer is not None
    ]
    try:
        yield
    finally:
        for owner, name, buffer, data in kept:
            owner._buffers[name] = buffer
            np.copyto(buffer._data, data)


def flatten_tensors(value: Any) -> list[Any]:
    """Every tensor in a (nested) tuple/list/dict output, in order."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in flatten_tensors(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in flatten_tensors(item)]
    return []


def _example(value: Any, index: int, batch: int, batch_dim: int) -> Any:
    """Example ``index`` of a batched tensor (keeping the batch dim), else ``value``."""
    if isinstance(value, Tensor) and value.dim() > batch_dim and value.shape[batch_dim] == batch:
        return value.detach().narrow(batch_dim, index, 1)
    if isinstance(value, (tuple, list)):
        return type(value)(_example(v, index, batch, batch_dim) for v in value)
    return value


def per_example_loop(module: Any, call: Call) -> dict[str, Any]:
    """Run ``module.forward`` on each example of ``call`` and take the gradient of its
    own trainable parameters with that example's output gradients."""
    tensors = [a for a in (*call.args, *call.kwargs.values()) if isinstance(a, Tensor)]
    batched = [t for t in tensors if t.dim() > call.batch_dim]
    if not batched:
        raise ValueError(
            f"per-sample gradients need a batch dimension: {type(module).__name__} got no "
            f"tensor argument with a dim {call.batch_dim}"
        )
    batch = batched[0].shape[call.batch_dim]
    named = [(n, p) for n, p in module.named_parameters(recurse=False) if p.requires_grad]
    result = {n: np.zeros((batch,) + tuple(p.shape), p._data.dtype) for n, p in named}
    dim = call.batch_dim
    with _recompute(), grad_mode.enable_grad(), _buffers_kept(module):
        for i in range(batch):
            args = _example(call.args, i, batch, dim)
            kwargs = {k: _example(v, i, batch, dim) for k, v in call.kwargs.items()}
            outputs = flatten_tensors(module.forward(*args, **kwargs))
            pairs = [
                (out, grad)
                for out, grad in zip(outputs, call.grads)
                if grad is not None and out.requires_grad
            ]
            if not pairs:
                continue
            seeds = [
                Tensor._make(np.ascontiguousarray(_row(grad, i, batch, dim))) for _, grad in pairs
            ]
            grads = autograd.grad(
                [out for out, _ in pairs], [p for _, p in named], seeds, allow_unused=True
            )
            for (name, _), grad in zip(named, grads):
                if grad is not None:
                    result[name][i] = grad._data
    return result


def _row(grad: np.ndarray, index: int, batch: int, batch_dim: int) -> np.ndarray:
    if grad.ndim > batch_dim and grad.shape[batch_dim] == batch:
        return np.take(grad, [index], axis=batch_dim)
    return grad
