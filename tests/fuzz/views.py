"""Builders for the ``view`` family of ``specs.py``: shape and view ops and indexing.

Each ``args_<name>(g, x)`` returns the call's extra arguments, the result's shape and
whether the result is contiguous (the generator's belief, used to keep ``view`` mostly on
contiguous tensors), or None when the op does not apply to ``x``.

Example::

    >>> from tests.fuzz.state import Generator
    >>> g = Generator(0)
    >>> x = g.leaf((2, 3), rg=True)
    >>> args_transpose(g, x)[1]
    (3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import specs
from .program import Instr
from .state import Generator, Slot

ViewArgs = tuple[tuple[Any, ...], tuple[int, ...], bool]


def new_shape(g: Generator, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Another shape with as many elements: flattened, two dims merged, a dim split, or a
    size-1 dim inserted; sometimes with a -1."""
    numel = int(np.prod(shape)) if shape else 1
    roll = g.rng.random()
    if roll < 0.25 or len(shape) < 2:
        out = [numel]
    elif roll < 0.5:
        d = g.rng.randrange(len(shape) - 1)
        out = list(shape[:d]) + [shape[d] * shape[d + 1]] + list(shape[d + 2 :])
    elif roll < 0.75 and any(n == 4 for n in shape):
        d = shape.index(4)
        out = list(shape[:d]) + [2, 2] + list(shape[d + 1 :])
    else:
        out = list(shape)
        out.insert(g.rng.randint(0, len(shape)), 1)
    if g.rng.random() < 0.3:
        out[g.rng.randrange(len(out))] = -1
    return tuple(out)


def resolved(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    known = int(np.prod([n for n in shape if n != -1]))
    return tuple(numel // known if n == -1 else n for n in shape)


def args_view(g: Generator, x: Slot) -> ViewArgs | None:
    if not x.contig and g.rng.random() < 0.85:
        return None
    shape = new_shape(g, x.shape)
    return (shape,), resolved(shape, x.numel), x.contig


def args_reshape(g: Generator, x: Slot) -> ViewArgs | None:
    shape = new_shape(g, x.shape)
    return (shape,), resolved(shape, x.numel), x.contig


def args_transpose(g: Generator, x: Slot) -> ViewArgs | None:
    if len(x.shape) < 2:
        return None
    d0, d1 = g.rng.sample(range(len(x.shape)), 2)
    shape = list(x.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    if g.rng.random() < 0.3:
        d1 -= len(x.shape)
    return (d0, d1), tuple(shape), False


def args_t(g: Generator, x: Slot) -> ViewArgs | None:
    if len(x.shape) > 2:
        return None
    return (), tuple(reversed(x.shape)), len(x.shape) < 2


def args_permute(g: Generator, x: Slot) -> ViewArgs | None:
    if len(x.shape) < 2:
        return None
    perm = list(range(len(x.shape)))
    g.rng.shuffle(perm)
    return tuple(perm), tuple(x.shape[p] for p in perm), False


def args_unsqueeze(g: Generator, x: Slot) -> ViewArgs | None:
    d = g.rng.randint(-len(x.shape) - 1, len(x.shape))
    shape = list(x.shape)
    shape.insert(d % (len(x.shape) + 1), 1)
    return (d,), tuple(shape), x.contig


def args_squeeze(g: Generator, x: Slot) -> ViewArgs | None:
    ones = [d for d, n in enumerate(x.shape) if n == 1]
    if ones and g.rng.random() < 0.7:
        d = g.rng.choice(ones)
        return (d,), x.shape[:d] + x.shape[d + 1 :], x.contig
    return (), tuple(n for n in x.shape if n != 1), x.contig


def args_expand(g: Generator, x: Slot) -> ViewArgs | None:
    shape = [g.rng.choice([2, 3]) if n == 1 else n for n in x.shape]
    if not shape or (len(shape) < 3 and g.rng.random() < 0.4):
        shape.insert(0, 2)
    written = list(shape)
    if g.rng.random() < 0.3 and x.shape and shape[-1] == x.shape[-1]:
        written[-1] = -1
    return tuple(written), tuple(shape), False


def random_index(g: Generator, shape: tuple[int, ...]) -> Any:
    """A basic index (ints, slices with steps, None, Ellipsis), or with one list index."""
    parts: list[Any] = []
    for n in shape[: g.rng.randint(1, len(shape))]:
        roll = g.rng.random()
        if roll < 0.3:
            parts.append(g.rng.randint(-n, n - 1))
        elif roll < 0.75:
            start = g.rng.randint(0, n - 1)
            step = g.rng.choice([None, None, 2])
            stop = g.rng.choice([None, n, start + 1])
            parts.append(slice(start or None, stop, step))
        elif roll < 0.85:
            parts.append(slice(None))
        elif roll < 0.92 and not any(isinstance(p, list) for p in parts):
            parts.append([g.rng.randint(0, n - 1) for _ in range(g.rng.randint(1, 3))])
        else:
            parts.append(None)
            parts.append(g.rng.randint(0, n - 1))
    if g.rng.random() < 0.1:
        parts.append(Ellipsis)
    return parts[0] if len(parts) == 1 else tuple(parts)


def args_getitem(g: Generator, x: Slot) -> ViewArgs | None:
    if not x.shape:
        return None
    index = random_index(g, x.shape)
    shape = np.empty(x.shape)[index].shape
    first_int = isinstance(index, int)
    return (index,), tuple(shape), x.contig and first_int


def args_select(g: Generator, x: Slot) -> ViewArgs | None:
    if not x.shape:
        return None
    d = g.rng.randrange(len(x.shape))
    i = g.rng.randint(-x.shape[d], x.shape[d] - 1)
    return (d, i), x.shape[:d] + x.shape[d + 1 :], x.contig and d == 0


def args_narrow(g: Generator, x: Slot) -> ViewArgs | None:
    if not x.shape:
        return None
    d = g.rng.randrange(len(x.shape))
    start = g.rng.randint(0, x.shape[d] - 1)
    length = g.rng.randint(1, x.shape[d] - start)
    return (d, start, length), x.shape[:d] + (length,) + x.shape[d + 1 :], x.contig and d == 0


def args_flatten(g: Generator, x: Slot) -> ViewArgs | None:
    return (), (x.numel,), x.contig


def args_detach(g: Generator, x: Slot) -> ViewArgs | None:
    return (), x.shape, x.contig


def args_contiguous(g: Generator, x: Slot) -> ViewArgs | None:
    return (), x.shape, True


def build_view(g: Generator, spec: specs.OpSpec) -> bool:
    """Emit ``spec`` (a view-family op) on a float slot it applies to."""
    make = globals()["args_" + spec.name]
    for _ in range(3):
        x = g.pick(lambda s: s.floating)
        found = None if x is None else make(g, x)
        if found is not None:
            break
    else:
        return False
    args, shape, contig = found
    out = g.derived([x], shape, pos=x.pos, contig=contig)
    if spec.name == "detach":
        out.rg, out.leaf, out.ancestors = False, True, frozenset()
    if spec.name != "contiguous" or x.contig:
        out.base = x.base or x.name
    advanced = spec.name == "getitem" and "[" in repr(args[0])
    if advanced:
        out.base = None
    op = "getitem" if spec.name == "getitem" else "method"
    g.emit(Instr(op, (out.name,), (x.ref,) + args, {}, spec.name), [out])
    return True
