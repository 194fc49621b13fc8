"""One builder per op family of ``specs.py``: picks operands that fit, emits the call.

Each builder is ``build(g, spec) -> bool``: it picks operand slots from the generator
``g`` that satisfy the family's shape rule and ``spec.domain``, emits the instruction with
the new output slots, and returns False (emitting nothing) when no slot fits.

Example::

    >>> from tests.fuzz.state import Generator
    >>> g = Generator(0)
    >>> x = g.leaf((2, 3), rg=True)
    >>> BUILDERS["unary"](g, specs.UNARY[7])
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from . import specs
from .program import DType, Instr
from .state import Generator, Slot, promote
from .views import build_view

SIZES_M = [1, 2, 3]  # the new dim of a matmul's other operand
Builder = Callable[[Generator, specs.OpSpec], bool]


def operand(g: Generator, spec: specs.OpSpec, pred: Callable[[Slot], bool] = lambda s: True):
    """A float slot fitting ``spec.domain`` and ``pred``."""
    return g.pick(lambda s: s.floating and (s.pos or spec.domain != "positive") and pred(s))


def call(g: Generator, spec: specs.OpSpec, args: tuple, kwargs: dict, outs: list[Slot]) -> bool:
    """Emit ``spec`` called on ``args``; ``op`` is the spec's form (method/function/...)."""
    g.emit(Instr(spec.form, tuple(s.name for s in outs), args, kwargs, spec.name), outs)
    return True


def broadcast_shape(g: Generator, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with ``shape``: a suffix of it, some sizes set to 1, maybe
    with a new leading dim, or the same shape."""
    roll = g.rng.random()
    if roll < 0.35:
        return shape
    if roll < 0.5 and len(shape) < 3:
        return (g.rng.choice([2, 3]),) + shape
    suffix = shape[g.rng.randint(0, len(shape)) :]
    return tuple(1 if g.rng.random() < 0.4 else n for n in suffix)


def dim_of(g: Generator, x: Slot, pred: Callable[[int], bool] = lambda n: True) -> int | None:
    """A dim of ``x`` whose size satisfies ``pred``, sometimes written negative."""
    dims = [d for d, n in enumerate(x.shape) if pred(n)]
    if not dims:
        return None
    d = g.rng.choice(dims)
    return d - len(x.shape) if g.rng.random() < 0.3 else d


def reduced(shape: tuple[int, ...], dim: int, keepdim: bool) -> tuple[int, ...]:
    d = dim % len(shape)
    return shape[:d] + ((1,) if keepdim else ()) + shape[d + 1 :]


# -- elementwise ----------------------------------------------------------------------------


def build_unary(g: Generator, spec: specs.OpSpec) -> bool:
    x = operand(g, spec)
    if x is None:
        return False
    keeps = spec.name in specs.KEEPS_POSITIVE
    pos = spec.positive and (x.pos or not keeps)
    dtype = x.dtype
    if spec.name in ("double", "to"):
        dtype = "float64"
    if spec.name == "float":
        dtype = "float32"
    args = tuple(spec.args)
    if spec.name == "to":
        args = (DType("float64"),)
    if spec.name == "cumsum" and not x.shape:
        return False
    out = g.derived([x], x.shape, pos=pos, dtype=dtype, leaf_input=x.rg and x.leaf)
    return call(g, spec, (x.ref,) + args, dict(spec.kwargs), [out])


def build_binary(g: Generator, spec: specs.OpSpec) -> bool:
    x = operand(g, spec)
    if x is None:
        return False
    other_shape = broadcast_shape(g, x.shape)
    y = g.operand(other_shape, pos=spec.domain == "positive" or x.pos)
    y_dtype = getattr(y, "dtype", "float32")
    inputs = [x] + ([y] if isinstance(y, Slot) else [])
    shape = tuple(np.broadcast_shapes(x.shape, other_shape))
    pos = spec.positive and x.pos and getattr(y, "pos", False)
    out = g.derived(inputs, shape, pos=pos, dtype=promote(x.dtype, y_dtype))
    y_arg = y.ref if isinstance(y, Slot) else y
    args = (y_arg, x.ref) if g.rng.random() < 0.3 else (x.ref, y_arg)
    return call(g, spec, args, dict(spec.kwargs), [out])


def build_scalar(g: Generator, spec: specs.OpSpec) -> bool:
    x = operand(g, spec)
    if x is None:
        return False
    pos = spec.positive and (x.pos or (spec.family == "rscalar" and spec.name == "pow"))
    out = g.derived([x], x.shape, pos=pos)
    scalar = spec.args[0]
    args = (scalar, x.ref) if spec.family == "rscalar" else (x.ref, scalar)
    if spec.form == "method":
        args = (x.ref, scalar)
    return call(g, spec, args, dict(spec.kwargs), [out])


def build_compare(g: Generator, spec: specs.OpSpec) -> bool:
    x = operand(g, spec)
    if x is None:
        return False
    out = g.derived([x], x.shape, dtype="bool", differentiable=False)
    return call(g, spec, (x.ref,) + spec.args, {}, [out])


# -- reductions and multi-output ops ----------------------------------------------------------


def build_reduce(g: Generator, spec: specs.OpSpec) -> bool:
    wide = spec.rule == "wide"
    x = operand(g, spec, lambda s: not wide or s.numel > 1)
    if x is None:
        return False
    pos = spec.positive and x.pos
    all_dims = spec.rule == "all_only" or (spec.rule != "dim_only" and g.rng.random() < 0.4)
    if all_dims or not x.shape:
        if spec.rule == "dim_only":
            kwargs = {"dim": 0} if not x.shape else {"dim": -1}
            shape = () if not x.shape else x.shape[:-1]
            return call(g, spec, (x.ref,), kwargs, [g.derived([x], shape, pos=pos)])
        return call(g, spec, (x.ref,), {}, [g.derived([x], (), pos=pos)])
    dim = dim_of(g, x, (lambda n: n > 1) if wide else (lambda n: True))
    if dim is None:
        return False
    keepdim = g.rng.random() < 0.4
    out = g.derived([x], reduced(x.shape, dim, keepdim), pos=pos)
    return call(g, spec, (x.ref,), {"dim": dim, "keepdim": keepdim}, [out])


def view_outputs(g: Generator, x: Slot, shapes: list[tuple[int, ...]]) -> list[Slot]:
    """Output slots of split/unbind/chunk: views of ``x`` made by a multi-output op."""
    outs = [g.derived([x], shape, pos=x.pos, contig=False) for shape in shapes]
    for out in outs:
        out.base = x.base or x.name
    return outs


def build_multi(g: Generator, spec: specs.OpSpec) -> bool:
    x = operand(g, spec, lambda s: len(s.shape) > 0)
    if x is None:
        return False
    dim = dim_of(g, x)
    size = x.shape[dim]
    if spec.name in ("max", "min", "sort", "topk"):
        kwargs: dict = {"dim": dim}
        if spec.name in ("max", "min"):
            kwargs["keepdim"] = g.rng.random() < 0.4
            shape = reduced(x.shape, dim, kwargs["keepdim"])
        elif spec.name == "sort":
            kwargs["descending"] = g.rng.random() < 0.5
            shape = x.shape
        else:
            k = g.rng.randint(1, size)
            kwargs = {"k": k, "dim": dim}
            shape = x.shape[: dim % len(x.shape)] + (k,) + x.shape[dim % len(x.shape) + 1 :]
        values = g.derived([x], shape, pos=x.pos)
        indices = g.derived([x], shape, dtype="int64", differentiable=False)
        return call(g, spec, (x.ref,), kwargs, [values, indices])
    d = dim % len(x.shape)
    if spec.name == "unbind":
        shapes = [x.shape[:d] + x.shape[d + 1 :]] * size
        return call(g, spec, (x.ref,), {"dim": dim}, view_outputs(g, x, shapes))
    part = g.rng.randint(1, max(1, size - 1)) if spec.name == "split" else None
    if spec.name == "chunk":
        chunks = g.rng.randint(1, size)
        part = math.ceil(size / chunks)
    sizes = [min(part, size - start) for start in range(0, size, part)]
    shapes = [x.shape[:d] + (n,) + x.shape[d + 1 :] for n in sizes]
    first = part if spec.name == "split" else chunks
    return call(g, spec, (x.ref, first), {"dim": dim}, view_outputs(g, x, shapes))


# -- matmul and joins -----------------------------------------------------------------------


def build_matmul(g: Generator, spec: specs.OpSpec) -> bool:
    x = operand(g, spec, lambda s: 1 <= len(s.shape) <= 3)
    if x is None:
        return False
    k, m = x.shape[-1], g.rng.choice(SIZES_M)
    if len(x.shape) == 1:
        other, shape = g.rng.choice([((k,), ()), ((k, m), (m,))])
    elif len(x.shape) == 2:
        other, shape = g.rng.choice([((k,), x.shape[:1]), ((k, m), (x.shape[0], m))])
    else:
        other = g.rng.choice([(k, m), (x.shape[0], k, m)])
        shape = x.shape[:2] + (m,)
    y = g.operand(other, pos=False)
    inputs = [x] + ([y] if isinstance(y, Slot) else [])
    out = g.derived(inputs, shape, dtype=promote(x.dtype, getattr(y, "dtype", "float32")))
    y_arg = y.ref if isinstance(y, Slot) else y
    return call(g, spec, (x.ref, y_arg), {}, [out])


def build_join(g: Generator, spec: specs.OpSpec) -> bool:
    x = operand(g, spec, lambda s: len(s.shape) > 0 or spec.name == "where")
    if x is None:
        return False
    if spec.name == "where":
        return build_where(g, spec, x)
    if spec.name == "cat":
        dim = dim_of(g, x)
        d = dim % len(x.shape)
        n = g.rng.choice([1, 2])
        y_shape = x.shape[:d] + (n,) + x.shape[d + 1 :]
        shape = x.shape[:d] + (x.shape[d] + n,) + x.shape[d + 1 :]
    else:
        dim = g.rng.randint(-len(x.shape) - 1, len(x.shape))
        y_shape = x.shape
        shape = list(x.shape)
        shape.insert(dim % (len(x.shape) + 1), 2)
        shape = tuple(shape)
    y = g.operand(y_shape, pos=x.pos, dtype=x.dtype)
    inputs = [x] + ([y] if isinstance(y, Slot) else [])
    out = g.derived(inputs, shape, pos=x.pos and getattr(y, "pos", False))
    y_arg = y.ref if isinstance(y, Slot) else y
    return call(g, spec, ([x.ref, y_arg],), {"dim": dim}, [out])


def build_where(g: Generator, spec: specs.OpSpec, x: Slot) -> bool:
    cond = g.pick(lambda s: s.dtype == "bool" and fits(s.shape, x.shape))
    if cond is None:
        cond = g.derived([x], x.shape, dtype="bool", differentiable=False)
        g.emit(Instr("method", (cond.name,), (x.ref, 0.0), {}, "gt"), [cond])
    if g.rng.random() < 0.3:
        y, y_arg, y_shape = None, 0.0, ()
    else:
        y_shape = broadcast_shape(g, x.shape)
        y = g.operand(y_shape, pos=x.pos)
        y_arg = y.ref if isinstance(y, Slot) else y
    inputs = [x] + ([y] if isinstance(y, Slot) else [])
    shape = tuple(np.broadcast_shapes(cond.shape, x.shape, y_shape))
    dtypes = [x.dtype] + ([y.dtype] if isinstance(y, Slot) else [])
    out = g.derived(inputs, shape, dtype=promote(*dtypes))
    return call(g, spec, (cond.ref, x.ref, y_arg), {}, [out])


def fits(small: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """Whether ``small`` broadcasts to ``shape`` without changing it."""
    try:
        return tuple(np.broadcast_shapes(small, shape)) == shape
    except ValueError:
        return False


BUILDERS: dict[str, Builder] = {
    "unary": build_unary,
    "binary": build_binary,
    "scalar": build_scalar,
    "rscalar": build_scalar,
    "compare": build_compare,
    "reduce": build_reduce,
    "multi": build_multi,
    "matmul": build_matmul,
    "join": build_join,
    "view": build_view,
}
