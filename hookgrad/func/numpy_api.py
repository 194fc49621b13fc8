"""NumPy on batched arrays: ufuncs, NumPy functions and indexing over the whole batch.

The tensor layer computes on ``_data`` with NumPy in many places outside the op table
(comparisons, logical ops, in-place updates, the engine's gradient sums ...). When that
data is a ``BatchedArray`` NumPy hands the call here (``__array_ufunc__`` /
``__array_function__``), and it is computed for every example at once:

- **ufuncs**: elementwise calls broadcast each example against the unbatched operands
  (the batch dim moved in front, the logical dims aligned on the right); reductions and
  scans shift their axes past the batch dim; ``matmul`` multiplies stacks; ``out=``
  writes the batch (an unbatched ``out`` with a batched operand is torch's in-place
  error);
- **functions**: those whose meaning is logical axes or shapes (``sum``, ``moveaxis``,
  ``concatenate``, ``where``, ``copyto`` ...) shift them; metadata functions
  (``shape``, ``result_type`` ...) read the logical array; every other NumPy function
  runs once per example and the results are stacked (the per-example fallback: correct
  for any function of the data, one call per example);
- **indexing**: basic indexing is a view of the batch; advanced indexing with
  unbatched indices keeps the batch in front; batched indices go example by example.

One level (the innermost of the operands) is handled per call; what remains is batched
at outer levels and NumPy hands it back here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hookgrad.func.batched import (
    DYNAMIC_SHAPE_ERROR,
    INPLACE_ERROR,
    BatchedArray,
    batch_dims,
    install_numpy_api,
    materialize,
    top_level,
    unwrap,
    wrap,
)

# ---------------------------------------------------------------- helpers


def _arrays_in(values: Sequence[Any]) -> list[Any]:
    """The arrays among ``values``, one level of lists and tuples opened."""
    found: list[Any] = []
    for value in values:
        if isinstance(value, (list, tuple)):
            found.extend(value)
        else:
            found.append(value)
    return found


def _aligned(value: Any, level: int, ndim: int) -> Any:
    """``value`` unwrapped at ``level`` and, if batched there, with its logical dims
    padded to ``ndim`` (after the batch dim) so that it broadcasts against the others."""
    unwrapped, batched = unwrap(value, level)
    if batched:
        return batch_dims(unwrapped, ndim - value.ndim)
    return unwrapped


def _out(value: Any, level: int) -> Any:
    """An ``out=`` array unwrapped at ``level``: it must be batched there."""
    unwrapped, batched = unwrap(value, level)
    if not batched:
        raise RuntimeError(INPLACE_ERROR)
    return unwrapped


def _shifted(axis: Any, ndim: int) -> Any:
    """Logical ``axis`` (None: all of them; an int or a tuple) as axes of the unwrapped
    array, whose dim 0 is the batch."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(_one_axis(a, ndim) for a in axis)
    return _one_axis(axis, ndim)


def _one_axis(axis: Any, ndim: int) -> int:
    axis = int(axis)
    if not -ndim <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(axis, ndim)
    return axis % max(ndim, 1) + 1


def _batch_size(value: Any, level: int) -> int:
    unwrapped, _ = unwrap(value, level)
    return unwrapped.shape[0]


def _size_at(values: Sequence[Any], level: int) -> int:
    for value in _arrays_in(values):
        if type(value) is BatchedArray and level in value._levels:
            return _batch_size(value, level)
    raise ValueError("no array batched at this level")


def _has_out(kwargs: dict[str, Any]) -> bool:
    out = kwargs.get("out")
    return out is not None and out != ()


# ---------------------------------------------------------------- per example


def per_example(function: Callable[..., Any], args: Sequence[Any], kwargs: dict, level: int) -> Any:
    """``function(*args, **kwargs)`` once per example of ``level`` (each batched array
    replaced by its example, one level of lists opened), the results stacked."""
    size = _size_at((*args, *kwargs.values()), level)
    unwrapped: dict[int, Any] = {}

    def example(value: Any, index: int) -> Any:
        if isinstance(value, (list, tuple)) and not isinstance(value, np.ndarray):
            return type(value)(example(v, index) for v in value)
        if type(value) is BatchedArray and level in value._levels:
            key = id(value)
            if key not in unwrapped:
                unwrapped[key] = unwrap(value, level)[0]
            return unwrapped[key][index]
        return value

    out = kwargs.get("out")
    if out is not None and not all(
        type(o) is BatchedArray and level in o._levels
        for o in (out if isinstance(out, tuple) else (out,))
    ):
        raise RuntimeError(INPLACE_ERROR)
    results = [
        function(*[example(a, i) for a in args], **{k: example(v, i) for k, v in kwargs.items()})
        for i in range(size)
    ]
    if out is not None:
        return out
    return stack_results(results, level)


def stack_results(results: list[Any], level: int) -> Any:
    """Per-example results as one batched result (a tuple or list of them, or None)."""
    first = results[0] if results else None
    if first is None:
        return None
    if isinstance(first, (tuple, list)):
        return type(first)(stack_results(list(column), level) for column in zip(*results))
    shapes = {np.shape(r) for r in results}
    if len(shapes) != 1:
        raise RuntimeError(DYNAMIC_SHAPE_ERROR)
    arrays = [r if isinstance(r, np.ndarray) else np.asarray(r) for r in results]
    return wrap(np.stack(arrays), level)


# ---------------------------------------------------------------- ufuncs


def ufunc(function: Any, method: str, inputs: tuple[Any, ...], kwargs: dict) -> Any:
    """``__array_ufunc__`` of a batched array (see the module docstring)."""
    out = kwargs.get("out") or ()
    where = kwargs.get("where", True)
    level = top_level((*inputs, *out, where))
    if method == "__call__":
        if function is np.matmul:
            return _matmul(inputs, kwargs, level)
        if function.signature is None:
            return _elementwise(function, inputs, kwargs, level)
        return _core_dims(function, inputs, kwargs, level)
    if method in ("reduce", "accumulate"):
        return _reduce(function, method, inputs, kwargs, level)
    if method == "outer":
        return _outer(function, inputs, kwargs, level)
    return per_example(getattr(function, method), inputs, kwargs, level)


def _elementwise(function: Any, inputs: tuple[Any, ...], kwargs: dict, level: int) -> Any:
    out = kwargs.get("out") or ()
    where = kwargs.get("where", True)
    ndim = max([np.ndim(x) for x in (*inputs, *out)] + [np.ndim(where)])
    values = [_aligned(x, level, ndim) for x in inputs]
    options = dict(kwargs)
    if out:
        options["out"] = tuple(_out(o, level) for o in out)
    if "where" in kwargs and not isinstance(where, bool):
        options["where"] = _aligned(where, level, ndim)
    result = function(*values, **options)
    if out:
        return out[0] if len(out) == 1 else out
    if function.nout > 1:
        return tuple(wrap(r, level) for r in result)
    return wrap(result, level)


def _reduce(function: Any, method: str, inputs: tuple[Any, ...], kwargs: dict, level: int) -> Any:
    (array,) = inputs
    ndim = np.ndim(array)
    value, batched = unwrap(array, level)
    if not batched:
        return per_example(getattr(function, method), inputs, kwargs, level)
    options = dict(kwargs)
    axis = kwargs.get("axis", 0)
    if method == "accumulate" and axis is None:
        axis = 0
    options["axis"] = _shifted(axis, ndim)
    out = kwargs.get("out") or ()
    if out:
        options["out"] = tuple(_out(o, level) for o in out)
    where = kwargs.get("where", True)
    if "where" in kwargs and not isinstance(where, bool):
        options["where"] = _aligned(where, level, ndim)
    result = getattr(function, method)(value, **options)
    if out:
        return out[0]
    return wrap(result, level)


def _outer(function: Any, inputs: tuple[Any, ...], kwargs: dict, level: int) -> Any:
    """``function.outer(a, b)``: ``a``'s dims then ``b``'s, as one elementwise call."""
    if kwargs.get("out"):
        return per_example(function.outer, inputs, kwargs, level)
    a, b = inputs
    va, _ = unwrap(a, level)
    vb, b_batched = unwrap(b, level)
    va = np.reshape(va, np.shape(va) + (1,) * np.ndim(b))
    if b_batched:
        vb = batch_dims(vb, np.ndim(a))
    return wrap(function(va, vb, **kwargs), level)


def _core_dims(function: Any, inputs: tuple[Any, ...], kwargs: dict, level: int) -> Any:
    """A generalized ufunc (``(m,m)->(m,m)`` ...): its loop dims broadcast as elementwise
    ones do, the batch first among them. Optional core dims go example by example."""
    signature = function.signature
    if "?" in signature or kwargs.get("out") or kwargs.get("axes") or kwargs.get("axis"):
        return per_example(function, inputs, kwargs, level)
    core = [0 if not part else len(part.split(",")) for part in _core_parts(signature)]
    loops = [np.ndim(x) - c for x, c in zip(inputs, core)]
    most = max(loops)
    values = []
    for x, loop in zip(inputs, loops):
        value, batched = unwrap(x, level)
        values.append(batch_dims(value, most - loop) if batched else value)
    result = function(*values, **kwargs)
    if function.nout > 1:
        return tuple(wrap(r, level) for r in result)
    return wrap(result, level)


def _core_parts(signature: str) -> list[str]:
    inputs = signature.split("->")[0]
    return [part.strip("()") for part in inputs.split("),(")]


def _matmul(inputs: tuple[Any, ...], kwargs: dict, level: int) -> Any:
    a, b = inputs
    na, nb = np.ndim(a), np.ndim(b)
    if kwargs or na == 0 or nb == 0:
        return per_example(np.matmul, inputs, kwargs, level)
    va, fa = unwrap(a, level)
    vb, fb = unwrap(b, level)
    if na == 1:
        va = np.expand_dims(va, 1 if fa else 0)
    if nb == 1:
        vb = np.expand_dims(vb, -1)
    loop_a, loop_b = max(na, 2) - 2, max(nb, 2) - 2
    most = max(loop_a, loop_b)
    if fa:
        va = batch_dims(va, most - loop_a)
    if fb:
        vb = batch_dims(vb, most - loop_b)
    result = batched_matmul(va, vb, fa, fb)
    if na == 1:
        result = np.squeeze(result, -2)
    if nb == 1:
        result = np.squeeze(result, -1)
    return wrap(result, level)


def batched_matmul(a: Any, b: Any, a_batched: bool, b_batched: bool) -> Any:
    """``a @ b`` where ``a``'s leading dim is a batch and ``b`` is a plain matrix: one
    matrix product of all rows (one BLAS call, not one per example); else NumPy's stacked
    product."""
    if (
        a_batched
        and not b_batched
        and type(a) is np.ndarray
        and type(b) is np.ndarray
        and b.ndim == 2
    ):
        rows = a.reshape(-1, a.shape[-1])
        return (rows @ b).reshape(a.shape[:-1] + (b.shape[1],))
    if (
        b_batched
        and not a_batched
        and type(a) is np.ndarray
        and type(b) is np.ndarray
        and a.ndim == 2
        and b.ndim == 3
    ):
        # A plain matrix times each example's: one product with the examples side by side.
        size, inner, cols = b.shape
        side_by_side = np.ascontiguousarray(b.transpose(1, 0, 2)).reshape(inner, size * cols)
        return (a @ side_by_side).reshape(a.shape[0], size, cols).transpose(1, 0, 2)
    if type(a) is np.ndarray and type(b) is np.ndarray and a.ndim > 2:
        if a.shape[-1] == 1:
            # An outer product per example (a weight's per-example gradient): products only.
            return np.multiply(a, b)
        # NOTE: NumPy's stacked matmul leaves BLAS (for a loop ~1000x slower) when an
        # operand is a transposed view; a copy is far cheaper.
        return np.matmul(np.ascontiguousarray(a), np.ascontiguousarray(b))
    return np.matmul(a, b)


# ---------------------------------------------------------------- NumPy functions


def function(func: Any, args: tuple[Any, ...], kwargs: dict) -> Any:
    """``__array_function__`` of a batched array (see the module docstring)."""
    if func in _METADATA:
        return func._implementation(*args, **kwargs)
    if func in _MEMORY:
        return func(*[_memory(a) for a in args], **kwargs)
    level = top_level(_arrays_in((*args, *kwargs.values())))
    handler = _FUNCTIONS.get(func)
    if handler is not None:
        return handler(level, *args, **kwargs)
    if func in _DYNAMIC:
        raise RuntimeError(DYNAMIC_SHAPE_ERROR)
    return per_example(func, args, kwargs, level)


def _memory(value: Any) -> Any:
    """What a memory-overlap question should see: the whole batch."""
    if type(value) is BatchedArray:
        if value._physical is None:
            return value.base if value.base is not None else np.asarray(value)
        return value._physical
    return value


# Functions that read only shapes and dtypes: the logical array answers.
_METADATA = frozenset(
    [
        np.shape,
        np.ndim,
        np.size,
        np.result_type,
        np.can_cast,
        np.min_scalar_type,
        np.iscomplexobj,
        np.isrealobj,
    ]
)
_MEMORY = frozenset([np.may_share_memory, np.shares_memory])
# Functions whose result's shape depends on the data: torch refuses them under vmap.
_DYNAMIC = frozenset([np.nonzero, np.argwhere, np.flatnonzero, np.unique])

_FUNCTIONS: dict[Any, Callable[..., Any]] = {}


def _handles(*funcs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(handler: Callable[..., Any]) -> Callable[..., Any]:
        for func in funcs:
            _FUNCTIONS[func] = handler
        return handler

    return register


def _axis_function(func: Any, default: Any = None, flatten_none: bool = False) -> None:
    """Register ``func(a, axis, ...)``: its logical axis shifted past the batch dim. With
    ``flatten_none``, ``axis=None`` means the flattened array (``argmax``, ``cumsum``)."""

    def handler(level: int, a: Any, axis: Any = default, *args: Any, **kwargs: Any) -> Any:
        value, batched = unwrap(a, level)
        if not batched:
            return per_example(func, (a, axis, *args), kwargs, level)
        ndim = np.ndim(a)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = _out(out, level)
        if "where" in kwargs and not isinstance(kwargs["where"], bool):
            kwargs["where"] = _aligned(kwargs["where"], level, ndim)
        if axis is None and flatten_none:
            keepdims = kwargs.pop("keepdims", False)
            result = func(value.reshape(value.shape[0], -1), 1, *args, **kwargs)
            if keepdims:
                result = result.reshape((result.shape[0],) + (1,) * ndim)
        else:
            result = func(value, _shifted(axis, ndim), *args, **kwargs)
        if out is not None:
            return out
        return wrap(result, level)

    _FUNCTIONS[func] = handler


_func: Any
for _func in (
    np.sum,
    np.prod,
    np.mean,
    np.std,
    np.var,
    np.max,
    np.min,
    np.amax,
    np.amin,
    np.any,
    np.all,
    np.nansum,
    np.nanprod,
    np.nanmean,
    np.nanstd,
    np.nanvar,
    np.nanmax,
    np.nanmin,
    np.ptp,
    np.count_nonzero,
    np.flip,
):
    _axis_function(_func)
for _func in (np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.cumsum, np.cumprod):
    _axis_function(_func, flatten_none=True)
for _func in (np.sort, np.argsort, np.diff):
    _axis_function(_func, default=-1, flatten_none=True)
_axis_function(np.linalg.norm)


@_handles(np.reshape)
def _reshape(level: int, a: Any, shape: Any = None, *args: Any, **kwargs: Any) -> Any:
    if shape is None:
        shape = kwargs.pop("newshape")
    kwargs.pop("copy", None)
    return a.reshape(shape, **kwargs)


@_handles(np.transpose)
def _transpose(level: int, a: Any, axes: Any = None) -> Any:
    return a.transpose(axes) if axes is not None else a.transpose()


@_handles(np.matrix_transpose)
def _matrix_transpose(level: int, a: Any) -> Any:
    return a.swapaxes(-1, -2)


@_handles(np.swapaxes)
def _swapaxes(level: int, a: Any, axis1: int, axis2: int) -> Any:
    return a.swapaxes(axis1, axis2)


@_handles(np.moveaxis)
def _moveaxis(level: int, a: Any, source: Any, destination: Any) -> Any:
    value, _ = unwrap(a, level)
    ndim = np.ndim(a)
    return wrap(np.moveaxis(value, _shifted(source, ndim), _shifted(destination, ndim)), level)


@_handles(np.expand_dims)
def _expand_dims(level: int, a: Any, axis: Any) -> Any:
    value, _ = unwrap(a, level)
    count = len(axis) if isinstance(axis, (tuple, list)) else 1
    return wrap(np.expand_dims(value, _shifted(axis, np.ndim(a) + count)), level)


@_handles(np.squeeze)
def _squeeze(level: int, a: Any, axis: Any = None) -> Any:
    value, _ = unwrap(a, level)
    shape = np.shape(a)
    if axis is None:
        axis = tuple(d for d, s in enumerate(shape) if s == 1)
    return wrap(np.squeeze(value, _shifted(axis, len(shape))), level)


@_handles(np.broadcast_to)
def _broadcast_to(level: int, array: Any, shape: Any, subok: bool = False) -> Any:
    value, batched = unwrap(array, level)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not batched:
        return np.broadcast_to(value, shape)
    value = batch_dims(value, len(shape) - np.ndim(array))
    return wrap(np.broadcast_to(value, value.shape[:1] + shape), level)


@_handles(np.broadcast_arrays)
def _broadcast_arrays(level: int, *args: Any, subok: bool = False) -> Any:
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return tuple(np.broadcast_to(a, shape) for a in args)


@_handles(np.concatenate)
def _concatenate(level: int, arrays: Any, axis: Any = 0, **kwargs: Any) -> Any:
    if _has_out(kwargs):
        return per_example(np.concatenate, (arrays, axis), kwargs, level)
    size = _size_at(arrays, level)
    values = []
    for a in arrays:
        value, batched = unwrap(a, level)
        value = materialize(value, batched, size)
        values.append(value.reshape(size, -1) if axis is None else value)
    ndim = np.ndim(arrays[0])
    return wrap(
        np.concatenate(values, 1 if axis is None else _shifted(axis, ndim), **kwargs), level
    )


@_handles(np.stack)
def _stack(level: int, arrays: Any, axis: int = 0, **kwargs: Any) -> Any:
    if _has_out(kwargs):
        return per_example(np.stack, (arrays, axis), kwargs, level)
    size = _size_at(arrays, level)
    values = [materialize(*unwrap(a, level), size) for a in arrays]
    return wrap(np.stack(values, _shifted(axis, np.ndim(arrays[0]) + 1), **kwargs), level)


@_handles(np.split, np.array_split)
def _split(level: int, ary: Any, indices_or_sections: Any, axis: int = 0) -> Any:
    value, batched = unwrap(ary, level)
    if not batched or isinstance(indices_or_sections, BatchedArray):
        return per_example(np.array_split, (ary, indices_or_sections, axis), {}, level)
    pieces = np.array_split(value, indices_or_sections, _shifted(axis, np.ndim(ary)))
    return [wrap(p, level) for p in pieces]


def _pointwise(func: Any) -> None:
    """Register a NumPy function that broadcasts its array arguments elementwise."""

    def handler(level: int, *args: Any, **kwargs: Any) -> Any:
        out = kwargs.pop("out", None)
        arrays = [a for a in (*args, *kwargs.values()) if isinstance(a, np.ndarray)]
        ndim = max([np.ndim(a) for a in arrays] + [np.ndim(out) if out is not None else 0])

        def aligned(value: Any) -> Any:
            return _aligned(value, level, ndim) if isinstance(value, np.ndarray) else value

        values = [aligned(a) for a in args]
        options = {k: aligned(v) for k, v in kwargs.items()}
        if out is not None:
            options["out"] = _out(out, level)
        result = func(*values, **options)
        if out is not None:
            return out
        return wrap(result, level)

    _FUNCTIONS[func] = handler


for _func in (np.where, np.clip, np.round, np.around, np.nan_to_num, np.real, np.imag):
    _pointwise(_func)


@_handles(np.copy)
def _copy(level: int, a: Any, order: str = "K", subok: bool = False) -> Any:
    value, _ = unwrap(a, level)
    return wrap(np.copy(value, order=order), level)  # type: ignore[call-overload]


@_handles(np.astype)
def _astype(level: int, x: Any, dtype: Any, **kwargs: Any) -> Any:
    value, _ = unwrap(x, level)
    return wrap(np.astype(value, dtype, **kwargs), level)


def _like(func: Any) -> None:
    """Register ``zeros_like`` and its kin: a batched array like the given one (a new
    ``shape=`` makes an unbatched one)."""

    def handler(level: int, a: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("subok", None)
        if kwargs.get("shape") is not None:
            return func(np.empty(np.shape(a), a.dtype), *args, **kwargs)
        value, _ = unwrap(a, level)
        return wrap(func(value, *args, **kwargs), level)

    _FUNCTIONS[func] = handler


for _func in (np.zeros_like, np.ones_like, np.empty_like, np.full_like):
    _like(_func)


@_handles(np.copyto)
def _copyto(level: int, dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    target = _out(dst, level)
    ndim = np.ndim(dst)
    source = _aligned(src, level, ndim)
    mask = where if isinstance(where, bool) else _aligned(where, level, ndim)
    np.copyto(target, source, casting=casting, where=mask)  # type: ignore[arg-type]


@_handles(np.pad)
def _pad(level: int, array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    value, batched = unwrap(array, level)
    if not batched or any(isinstance(v, np.ndarray) and v.ndim for v in kwargs.values()):
        return per_example(np.pad, (array, pad_width, mode), kwargs, level)
    given = np.broadcast_to(np.asarray(pad_width), (np.ndim(array), 2))
    widths = [(0, 0)] + [(int(before), int(after)) for before, after in given]
    return wrap(np.pad(value, widths, mode, **kwargs), level)  # type: ignore[call-overload]


@_handles(np.take_along_axis)
def _take_along_axis(level: int, arr: Any, indices: Any, axis: Any = -1) -> Any:
    if axis is None:
        return per_example(np.take_along_axis, (arr, indices, axis), {}, level)
    size = _size_at((arr, indices), level)
    source, index = (materialize(*unwrap(a, level), size) for a in (arr, indices))
    return wrap(np.take_along_axis(source, index, axis=_shifted(axis, np.ndim(arr))), level)


@_handles(np.put_along_axis)
def _put_along_axis(level: int, arr: Any, indices: Any, values: Any, axis: Any) -> None:
    target = _out(arr, level)
    if axis is None:
        per_example(np.put_along_axis, (arr, indices, values, axis), {}, level)
        return
    size = target.shape[0]
    index = materialize(*unwrap(indices, level), size)
    source = _aligned(values, level, np.ndim(arr))
    np.put_along_axis(target, index, source, axis=_shifted(axis, np.ndim(arr)))


@_handles(np.diagonal)
def _diagonal(level: int, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    value, _ = unwrap(a, level)
    ndim = np.ndim(a)
    return wrap(np.diagonal(value, offset, _shifted(axis1, ndim), _shifted(axis2, ndim)), level)


@_handles(np.trace)
def _trace(level: int, a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, **kw: Any) -> Any:
    if kw.get("out") is not None:
        return per_example(np.trace, (a, offset, axis1, axis2), kw, level)
    value, _ = unwrap(a, level)
    ndim = np.ndim(a)
    axes = (_shifted(axis1, ndim), _shifted(axis2, ndim))
    return wrap(np.trace(value, offset, *axes, **kw), level)


def _triangle(func: Any) -> None:
    """Register ``tril``/``triu``: they act on the last two dims, so the batch passes."""

    def handler(level: int, m: Any, k: int = 0) -> Any:
        if np.ndim(m) < 2:
            return per_example(func, (m, k), {}, level)
        value, _ = unwrap(m, level)
        return wrap(func(value, k), level)

    _FUNCTIONS[func] = handler


_triangle(np.tril)
_triangle(np.triu)


@_handles(np.roll)
def _roll(level: int, a: Any, shift: Any, axis: Any = None) -> Any:
    value, batched = unwrap(a, level)
    if axis is None or not batched or isinstance(shift, BatchedArray):
        return per_example(np.roll, (a, shift, axis), {}, level)
    return wrap(np.roll(value, shift, _shifted(axis, np.ndim(a))), level)


@_handles(np.repeat)
def _repeat(level: int, a: Any, repeats: Any, axis: Any = None) -> Any:
    value, batched = unwrap(a, level)
    if axis is None or not batched or isinstance(repeats, BatchedArray):
        return per_example(np.repeat, (a, repeats, axis), {}, level)
    return wrap(np.repeat(value, repeats, _shifted(axis, np.ndim(a))), level)


# ---------------------------------------------------------------- indexing


def _is_advanced(item: Any) -> bool:
    return isinstance(item, (list, np.ndarray)) or type(item) is bool


def getitem(array: BatchedArray, key: Any) -> Any:
    """``array[key]`` for every example (see the module docstring)."""
    key = key if isinstance(key, tuple) else (key,)
    level = top_level((array, *key))
    value, batched = unwrap(array, level)
    if not batched or any(type(k) is BatchedArray and level in k._levels for k in key):
        return per_example(_index, (array, key), {}, level)
    result = value[(slice(None),) + key]
    position = _advanced_position(key)
    if position:
        result = np.moveaxis(result, position, 0)
    return wrap(result, level)


def _index(array: Any, key: Any) -> Any:
    return array[key]


def _advanced_position(key: tuple[Any, ...]) -> int:
    """Where NumPy puts the batch dim when it moves the advanced indices' dims first
    (they are separated by a basic index): after them; else 0 (it stays in front)."""
    advanced = [i for i, k in enumerate(key) if _is_advanced(k)]
    if not advanced:
        return 0
    # NOTE: next to an index array, an integer is an advanced index too.
    advanced = [i for i, k in enumerate(key) if _is_advanced(k) or isinstance(k, (int, np.integer))]
    if advanced[-1] - advanced[0] + 1 == len(advanced):
        return 0
    shapes = []
    for k in key:
        if isinstance(k, (list, np.ndarray)) and np.asarray(k).dtype == bool:
            shapes.append((1,))
        elif _is_advanced(k) or isinstance(k, (int, np.integer)):
            shapes.append(np.shape(k))
    return len(np.broadcast_shapes(*shapes))


def setitem(array: BatchedArray, key: Any, source: Any) -> None:
    """``array[key] = source`` for every example."""
    key = key if isinstance(key, tuple) else (key,)
    level = top_level((array, source, *key))
    target, batched = unwrap(array, level)
    if not batched:
        raise RuntimeError(INPLACE_ERROR)
    extra = set(getattr(source, "_levels", ())) - set(array._levels)
    if extra:
        raise RuntimeError(INPLACE_ERROR)
    if any(_is_advanced(k) or type(k) is BatchedArray for k in key):
        per_example(_assign, (array, key, source), {}, level)
        return
    view = target[(slice(None),) + key]
    value, value_batched = unwrap(source, level)
    if value_batched:
        value = batch_dims(value, np.ndim(view) - 1 - np.ndim(source))
    view[...] = value


def _assign(array: Any, key: Any, source: Any) -> None:
    array[key] = source


install_numpy_api(ufunc=ufunc, function=function, getitem=getitem, setitem=setitem)
