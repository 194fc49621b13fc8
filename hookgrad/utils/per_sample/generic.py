"""Per-example gradients of a layer without a closed form: ``vmap(grad(...))`` of the
layer alone (``hookgrad.func``), or, where ``vmap`` cannot run the layer, a loop that runs
it on each example and differentiates its own parameters.

It assumes what per-example gradients assume: a tensor argument or output whose size
along the batch dim is the batch size holds one example per row there, and anything else
is shared by all examples. While they run, the per-sample hooks of the layers they call
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

__all__ = ["flatten_tensors", "per_example", "recomputing"]

_state = threading.local()


def recomputing() -> bool:
    """Whether a layer is being run again for its per-example gradients on this thread."""
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


def per_example(module: Any, call: Call) -> dict[str, Any]:
    """The per-example gradients of ``module``'s own trainable parameters for ``call``:
    ``vmap(grad(...))`` of the layer alone (``hookgrad.func``), each example's loss being
    its outputs times their gradients; one example at a time where ``vmap`` fails (an op
    without a batching rule), which also re-raises the layer's own errors."""
    tensors = [a for a in (*call.args, *call.kwargs.values()) if isinstance(a, Tensor)]
    batched = [t for t in tensors if t.dim() > call.batch_dim]
    if not batched:
        raise ValueError(
            f"per-sample gradients need a batch dimension: {type(module).__name__} got no "
            f"tensor argument with a dim {call.batch_dim}"
        )
    batch = batched[0].shape[call.batch_dim]
    named = {n: p for n, p in module.named_parameters(recurse=False) if p.requires_grad}
    with _recompute(), grad_mode.enable_grad(), _buffers_kept(module):
        try:
            return _vmapped(module, call, named, batch)
        except Exception:  # NOTE: the loop gives the same numbers, or the layer's own error
            return _looped(module, call, named, batch)


def _batched(value: Any, batch: int, batch_dim: int) -> bool:
    return isinstance(value, Tensor) and value.dim() > batch_dim and value.shape[batch_dim] == batch


def _vmapped(module: Any, call: Call, named: dict[str, Any], batch: int) -> dict[str, Any]:
    from hookgrad.func import functional_call, grad, vmap

    dim = call.batch_dim
    args = tuple(a.detach() if isinstance(a, Tensor) else a for a in call.args)
    kwargs = {k: v.detach() if isinstance(v, Tensor) else v for k, v in call.kwargs.items()}
    seeds = tuple(None if g is None else Tensor._make(np.ascontiguousarray(g)) for g in call.grads)

    def loss(params: Any, args: Any, kwargs: Any, seeds: Any) -> Any:
        args = tuple(a.unsqueeze(dim) if flag else a for a, flag in zip(args, arg_flags))
        kwargs = {k: v.unsqueeze(dim) if kwarg_flags[k] else v for k, v in kwargs.items()}
        outputs = flatten_tensors(functional_call(module, params, args, kwargs))
        total = 0
        for out, seed, flag in zip(outputs, seeds, seed_flags):
            if seed is not None:
                total = total + (out * (seed.unsqueeze(dim) if flag else seed)).sum()
        return total

    arg_flags = [_batched(a, batch, dim) for a in args]
    kwarg_flags = {k: _batched(v, batch, dim) for k, v in kwargs.items()}
    seed_flags = [_batched(s, batch, dim) for s in seeds]
    in_dims = (
        None,
        tuple(dim if flag else None for flag in arg_flags),
        {k: dim if flag else None for k, flag in kwarg_flags.items()},
        tuple(dim if flag else None for flag in seed_flags),
    )
    params = {n: p.detach() for n, p in named.items()}
    grads = vmap(grad(loss), in_dims=in_dims)(params, args, kwargs, seeds)
    return {n: np.ascontiguousarray(g._data) for n, g in grads.items()}


def _looped(module: Any, call: Call, named: dict[str, Any], batch: int) -> dict[str, Any]:
    """One example at a time: ``module.forward`` on it, ``autograd.grad`` of its own
    parameters with that example's output gradients."""
    result = {n: np.zeros((batch,) + tuple(p.shape), p._data.dtype) for n, p in named.items()}
    dim = call.batch_dim
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
        seeds = [Tensor._make(np.ascontiguousarray(_row(grad, i, batch, dim))) for _, grad in pairs]
        grads = autograd.grad(
            [out for out, _ in pairs], list(named.values()), seeds, allow_unused=True
        )
        for name, grad in zip(named, grads):
            if grad is not None:
                result[name][i] = grad._data
    return result


def _row(grad: np.ndarray, index: int, batch: int, batch_dim: int) -> np.ndarray:
    if grad.ndim > batch_dim and grad.shape[batch_dim] == batch:
        return np.take(grad, [index], axis=batch_dim)
    return grad
