"""Random numbers inside ``vmap``: its ``randomness`` argument.

Every draw of hookgrad's generator goes through the samplers of
``hookgrad.tensor.random`` (``sample_uniform`` ...) and ``engine_of``. While a vmap runs,
they are replaced (and put back when it returns) according to the innermost level's
mode:

- ``"error"``: any draw raises torch's error;
- ``"same"``: the samplers as they are: a draw has the example's shape, the same for all
  examples;
- ``"different"``: a draw for an example-shaped array draws for the whole batch (the
  batch dims in front, as torch draws a tensor of the physical shape) and returns it
  batched; a draw for a batched array fills all of its examples.

The random ops' batching rule (``batching.random_op``) hands the batched arrays
themselves to the samplers.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from hookgrad.func.batched import BatchedArray, current_levels, make, unwrap
from hookgrad.tensor import random as tensor_random

RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)
_SAMPLERS = (
    "sample_uniform",
    "sample_normal",
    "sample_integers",
    "sample_bits",
    "sample_bernoulli",
    "sample_exponential",
    "sample_cauchy",
    "sample_log_normal",
    "sample_geometric",
)
# Modules that imported a sampler or ``engine_of`` by name, and the names.
# NOTE: ``hookgrad.nn.functional`` exports functions named as these modules.
_IMPORTED = (
    (importlib.import_module("hookgrad.nn.functional.dropout"), "sample_bernoulli"),
    (importlib.import_module("hookgrad.nn.functional.activation"), "engine_of"),
)
_ORIGINALS = {name: getattr(tensor_random, name) for name in (*_SAMPLERS, "engine_of")}


def _refused(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError(RANDOM_ERROR)


def _batch_drawing(sampler: Callable[..., Any]) -> Callable[..., Any]:
    """``sampler`` drawing for every example of the ``"different"`` levels."""

    def draw(like: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        levels = tuple(level.index for level in current_levels() if level.randomness == "different")
        if type(like) is BatchedArray:
            levels = tuple(sorted(set(levels) | set(like._levels)))
        sizes = tuple(level.size for level in current_levels() if level.index in levels)
        args = tuple(_physical(a, levels, sizes) for a in args)
        target = np.empty(sizes + like.shape, like.dtype)
        if type(like) is BatchedArray:
            target = _physical(like, levels, sizes)
        return make(sampler(target, *args, **kwargs), levels)

    return draw


def _physical(value: Any, levels: tuple[int, ...], sizes: tuple[int, ...]) -> Any:
    """An array argument (a tensor ``p``) with the batch dims of ``levels`` in front,
    broadcast where it is not batched; other arguments as they are."""
    if not isinstance(value, np.ndarray):
        return value
    for level, size in zip(reversed(levels), reversed(sizes)):
        unwrapped, batched = unwrap(value, level)
        value = unwrapped if batched else np.broadcast_to(value, (size,) + np.shape(value))
    return value


SAME_ERROR = (
    "Vmap does not currently support same randomness with a batched tensor input. Please "
    "file an issue with functorch"
)


def _drawing_once(sampler: Callable[..., Any]) -> Callable[..., Any]:
    """``sampler`` as it is (one draw for all examples), refusing a batched argument (a
    probability per example), as torch's ``"same"`` mode does."""

    def draw(like: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        if any(type(a) is BatchedArray for a in (*args, *kwargs.values())):
            raise RuntimeError(SAME_ERROR)
        return sampler(like, *args, **kwargs)

    return draw


def _replacements(mode: str) -> dict[str, Any]:
    if mode == "error":
        return {name: _refused for name in _ORIGINALS}
    if mode == "different":
        return {name: _batch_drawing(_ORIGINALS[name]) for name in _SAMPLERS}
    return {name: _drawing_once(_ORIGINALS[name]) for name in _SAMPLERS}


@contextlib.contextmanager
def level_randomness() -> Iterator[None]:
    """The samplers of the innermost vmap level's mode, for the time it runs."""
    mode = current_levels()[-1].randomness
    saved = {name: getattr(tensor_random, name) for name in _ORIGINALS}
    saved_imported = [(module, name, getattr(module, name)) for module, name in _IMPORTED]
    replacements = _replacements(mode)
    for name, function in replacements.items():
        setattr(tensor_random, name, function)
    for module, name in _IMPORTED:
        setattr(module, name, replacements.get(name, _ORIGINALS[name]))
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(tensor_random, name, function)
        for module, name, function in saved_imported:
            setattr(module, name, function)
