"""``vmap``: a function of one example mapped over a batch, computed for the whole batch.

The mapped inputs become batched tensors (``hookgrad.func.batched``) at a new level;
every op the function runs computes through its batching rule
(``hookgrad.func.batching``); the outputs' batch dims are moved to ``out_dims``. The
inputs enter and the outputs leave through nodes (``VmapMoveInBackward0`` /
``VmapMoveOutBackward0``), so autograd works through a vmap as through any function.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

from hookgrad.func import batching, random
from hookgrad.func.batched import Level, current_levels, is_batched_at
from hookgrad.func.pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten
from hookgrad.tensor import dispatch
from hookgrad.tensor.tensor import Tensor

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")
# Level numbers only grow: a nested vmap's level is above its outer one's, and a level
# number is never reused while arrays batched at it may still be alive (in a graph).
_numbers = itertools.count(1)


def vmap(
    func: Callable[..., Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """``func`` mapped over a dim of its inputs: ``vmap(func)(xs)`` is
    ``stack([func(x) for x in xs])``, computed for the whole batch at once.

    ``in_dims``: the mapped dim of each input (an int for all, or a tree matching the
    positional arguments; None: not mapped; keyword arguments are never mapped).
    ``out_dims``: where the batch dim goes in each output (None: the output does not
    depend on the batch, returned as it is). ``randomness``: what random ops do inside:
    ``"error"`` refuses them, ``"different"`` draws for each example, ``"same"`` draws
    once for all. ``chunk_size``: map that many examples at a time (less memory), the
    results joined. vmaps nest, and compose with ``grad``, ``vjp``, ``jacrev`` ...

    Every op computes for the whole batch through a batching rule; an op without one
    runs once per example (its results stacked), which is correct but slower. A function
    whose control flow depends on a batched value (``if x.sum() > 0``, ``x.item()``)
    raises torch's error.

    Example::

        xs = hookgrad.randn(8, 3)
        norms = hookgrad.func.vmap(lambda x: (x * x).sum().sqrt())(xs)   # shape (8,)
        w = hookgrad.randn(3, 3)
        ys = hookgrad.func.vmap(lambda x: w @ x)(xs)                     # (8, 3)
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _name(func: Any) -> str:
    return getattr(func, "__name__", repr(func))


def _call(
    func: Callable[..., Any],
    in_dims: Any,
    out_dims: Any,
    randomness: str,
    chunk_size: int | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    name = _name(func)
    if not args:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
            "are trying to vmap over a function with no inputs. The latter is unsupported."
        )
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = _flat_in_dims(name, in_dims, args, args_spec)
    size = _batch_size(name, in_dims, flat_args, flat_in_dims)
    if chunk_size is None or chunk_size >= size:
        return _run(
            func, name, out_dims, randomness, size, flat_args, flat_in_dims, args_spec, kwargs
        )
    chunks = []
    for start in range(0, size, chunk_size):
        stop = min(start + chunk_size, size)
        chunk_args = [
            x if d is None else x.narrow(d, start, stop - start)
            for x, d in zip(flat_args, flat_in_dims)
        ]
        chunks.append(
            _run(
                func,
                name,
                out_dims,
                randomness,
                stop - start,
                chunk_args,
                flat_in_dims,
                args_spec,
                kwargs,
            )
        )
    return _joined(chunks, out_dims)


def _flat_in_dims(name: str, in_dims: Any, args: tuple[Any, ...], spec: Any) -> list[Any]:
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int "
            "or a (potentially nested) tuple matching the structure of inputs, got: "
            f"{type(in_dims)}."
        )
    flat = broadcast_to_and_flatten(in_dims, spec)
    if flat is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
            f"the structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} "
            f"but inputs has structure {spec}."
        )
    return flat


def _batch_size(name: str, in_dims: Any, flat_args: list[Any], flat_in_dims: list[Any]) -> int:
    sizes = []
    for x, dim in zip(flat_args, flat_in_dims):
        if dim is None:
            continue
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input "
                "but in_dim must be either an integer dimension or None."
            )
        if not isinstance(x, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input "
                f"but the input is of type {type(x)}. We cannot vmap over non-Tensor "
                "arguments, please use None as the respective in_dim"
            )
        ndim = x.ndim
        if not -ndim <= dim < ndim:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for some "
                f"input, but that input is a Tensor of dimensionality {ndim} so expected "
                f"in_dim to satisfy -{ndim} <= in_dim < {ndim}."
            )
        sizes.append(x.shape[dim])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return sizes[0]


def _run(
    func: Callable[..., Any],
    name: str,
    out_dims: Any,
    randomness: str,
    size: int,
    flat_args: list[Any],
    flat_in_dims: list[Any],
    args_spec: Any,
    kwargs: dict[str, Any],
) -> Any:
    """One vmap level: batch the inputs, run ``func``, unbatch its outputs."""
    level = Level(next(_numbers), size, randomness)
    stack = current_levels()
    stack.append(level)
    previous = batching.enter()
    try:
        with random.level_randomness():
            batched = [
                x if d is None else dispatch.apply(batching.MoveIn(level.index, d % x.ndim), x)
                for x, d in zip(flat_args, flat_in_dims)
            ]
            outputs = func(*tree_unflatten(batched, args_spec), **kwargs)
        return _unbatched(name, outputs, out_dims, level)
    finally:
        batching.exit(previous)
        stack.remove(level)


def _unbatched(name: str, outputs: Any, out_dims: Any, level: Level) -> Any:
    flat, spec = tree_flatten(outputs)
    flat_out_dims = broadcast_to_and_flatten(out_dims, spec)
    if flat_out_dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
            f"with the structure of `outputs`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]} but outputs has structure {spec}."
        )
    results = []
    for output, dim in zip(flat, flat_out_dims):
        if dim is None:
            if isinstance(output, Tensor) and is_batched_at(output._data, level.index):
                raise ValueError(
                    f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim "
                    "is None"
                )
            results.append(output)
            continue
        if not isinstance(output, Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                f"{type(output)}. Did you mean to set out_dims= to None for output?"
            )
        ndim = output.ndim + 1
        if not -ndim <= dim < ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {dim})"
            )
        results.append(
            dispatch.apply(batching.MoveOut(level.index, dim % ndim, level.size), output)
        )
    return tree_unflatten(results, spec)


def _joined(chunks: list[Any], out_dims: Any) -> Any:
    """The outputs of the chunks of a ``chunk_size`` vmap, joined along their out dims."""
    flat_chunks = [tree_flatten(chunk)[0] for chunk in chunks]
    spec = tree_flatten(chunks[0])[1]
    flat_out_dims = broadcast_to_and_flatten(out_dims, spec)
    joined = []
    for index, dim in enumerate(flat_out_dims or []):
        column = [flat[index] for flat in flat_chunks]
        if dim is None:
            joined.append(column[0])
        else:
            joined.append(column[0]._cat(column, dim % column[0].ndim))
    return tree_unflatten(joined, spec)
