"""Ranges: ``arange``, ``range`` (deprecated in torch, inclusive), ``linspace``,
``logspace`` and the triangle indices ``tril_indices``/``triu_indices``, with torch's
dtype rules, checks and the values torch's kernels compute (``linspace`` from both ends,
as torch's vectorised kernel).

Example: ``hookgrad.linspace(0, 1, 5)`` is ``tensor([0.0000, 0.2500, 0.5000, 0.7500,
1.0000])``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import (
    check_options,
    is_index,
    leaf_or_out,
    new_leaf,
    number_value,
    out_dtype,
    resolve_dtype,
)
from hookgrad.tensor.device import check_device, factory_device


# -- ranges --------------------------------------------------------------------------------
def arange(
    start: Any = None,
    end: Any = None,
    step: Any = 1,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """``[start, start + step, ...)`` up to ``end`` (exclusive); ``arange(end)`` starts at 0.

    The dtype is int64 when all arguments are integers, else the default float dtype (or
    ``out``'s, when the values are written into ``out``). The options as for ``zeros``.
    Example: ``arange(1, 2, 0.25)`` is ``tensor([1.0000, 1.2500, 1.5000, 1.7500])``.
    """
    check_options("arange", layout, pin_memory)
    check_device(factory_device(device))
    dtype = out_dtype("arange", dtype, out)
    if end is None:
        if start is None:
            raise TypeError("arange() missing required argument 'end' (pos 1)")
        start, end = 0, start
    elif start is None:
        start = 0
    start, end, step = number_value(start), number_value(end), number_value(step)
    if dtype is None:
        floating = any(isinstance(v, float) for v in (start, end, step))
        target = dtypes.get_default_dtype() if floating else dtypes.int64
    else:
        target = dtypes.to_dtype(dtype)
    if target is dtypes.bool_ or target.is_complex:
        raise NotImplementedError(
            f"\"arange_cpu\" not implemented for '{dtypes.legacy_name(target)}'"
        )
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    values = _arange_values(start, end, step, target)
    if out is not None and out.numel() not in (0, values.size):
        message = ARANGE_OUT_WARNING.format(
            shape=list(out.shape), numel=out.numel(), size=values.size
        )
        warnings.warn(message, UserWarning, stacklevel=2)
    return leaf_or_out(values, out, requires_grad)


ARANGE_OUT_WARNING = (
    "The number of elements in the out tensor of shape {shape} is {numel} which "
    "does not match the computed number of elements {size}. Note that this may occur as a "
    "result of rounding error. The out tensor will be resized to a tensor of shape ({size},)."
)


def _arange_values(start: Any, end: Any, step: Any, target: dtypes.dtype) -> np.ndarray:
    """torch's arange values, bit for bit."""
    if target is dtypes.int64:
        # torch truncates the bounds and the step first: range(int(start), int(end), ...).
        stride = int(step)
        if stride == 0:
            raise ValueError("step must be nonzero")
        return np.arange(int(start), int(end), stride, dtype=np.int64)
    index = np.arange(math.ceil((end - start) / step))
    if not target.is_floating_point:
        return (int(start) + int(step) * index).astype(target.np)
    # NOTE: torch's kernel fills 32-byte vectors two at a time and a scalar loop does
    # the rest. A vector starts from base = start + step * i rounded to the dtype, and
    # each lane adds step * lane to that base; the arithmetic is in double (float for
    # float16) with fused multiply-adds. Following it gives torch's exact values, such
    # as the -2.9802e-09 in the middle of arange(-1, 1, 0.1).
    accumulate = np.float32 if target is dtypes.float16 else np.float64
    first, stride = np.float64(accumulate(start)), np.float64(accumulate(step))
    lanes = 32 // target.itemsize
    lane = (index % lanes).astype(np.float64)
    scalar = _fma(stride, index.astype(np.float64), first).astype(accumulate)
    base = _fma(stride, index - lane, first).astype(accumulate).astype(target.np)
    vector = _fma(stride, lane, base.astype(np.float64)).astype(accumulate)
    vectorized = index < len(index) // (2 * lanes) * 2 * lanes
    return np.where(vectorized, vector, scalar).astype(target.np)


def _fma(a: Any, b: np.ndarray, c: Any) -> np.ndarray:
    """``a * b + c`` in float64 with one rounding, as a fused multiply-add gives.

    The product's rounding error is recovered exactly by Dekker's splitting and the
    sum's by Knuth's two-sum, then both are added back.
    """
    product = a * b
    split = 134217729.0  # 2**27 + 1

    def halves(x: Any) -> tuple[Any, Any]:
        scaled = split * x
        high = scaled - (scaled - x)
        return high, x - high

    a_high, a_low = halves(a)
    b_high, b_low = halves(b)
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    c_part = total - product
    sum_error = (product - (total - c_part)) + (c - c_part)
    return total + (product_error + sum_error)


def _linspace_values(start: Any, end: Any, steps: int, target: dtypes.dtype) -> np.ndarray:
    """torch's linspace: the first half counts up from ``start``, the second half down
    from ``end``, each element one fused multiply-add; integers truncate."""
    index = np.arange(steps, dtype=np.float64)
    from_end = steps - 1 - index
    if target.is_complex:
        start, end = complex(start), complex(end)
        step = (end - start) / (steps - 1) if steps > 1 else 0j
        low, high = start + step * index, end - step * from_end
    elif target is dtypes.float64 or not target.is_floating_point:
        if not target.is_floating_point:
            start, end = int(start), int(end)
        start, end = np.float64(start), np.float64(end)
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        low, high = _fma(step, index, start), _fma(-step, from_end, end)
    else:
        # float32 (float16 via float32): one rounding of the exact value to float32.
        start, end = np.float32(start), np.float32(end)
        step = np.float64((end - start) / np.float32(max(steps - 1, 1)))
        low = (np.float64(start) + step * index).astype(np.float32)
        high = (np.float64(end) - step * from_end).astype(np.float32)
    # NOTE: torch gives [start] for one step, where the formula would give [end].
    values = np.where((index < steps // 2) | (steps == 1), low, high)
    if not (target.is_floating_point or target.is_complex):
        values = np.trunc(values)
    return values.astype(target.np)


def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included (the
    options as for ``zeros``).

    Example: ``linspace(0, 1, 5)`` is ``tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])``.
    """
    check_options("linspace", layout, pin_memory)
    check_device(factory_device(device))
    dtype = out_dtype("linspace", dtype, out)
    if not is_index(steps):
        raise TypeError(
            f"linspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}"
        )
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = number_value(start), number_value(end)
    if dtype is None:
        complex_ends = isinstance(start, complex) or isinstance(end, complex)
        target = dtypes.default_complex() if complex_ends else dtypes.get_default_dtype()
    else:
        target = dtypes.to_dtype(dtype)
    return leaf_or_out(_linspace_values(start, end, steps, target), out, requires_grad)


def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """``steps`` values ``base ** x`` for ``x`` evenly spaced from ``start`` to ``end``
    (both included), computed in double precision as torch's kernel does (the options as
    for ``zeros``).

    Example: ``hookgrad.logspace(0, 2, 3)`` is ``tensor([1., 10., 100.])``.
    """
    check_options("logspace", layout, pin_memory)
    check_device(factory_device(device))
    dtype = out_dtype("logspace", dtype, out)
    if not is_index(steps):
        raise TypeError(
            f"logspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}"
        )
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = number_value(start), number_value(end)
    if dtype is None:
        complex_ends = isinstance(start, complex) or isinstance(end, complex)
        target = dtypes.default_complex() if complex_ends else dtypes.get_default_dtype()
    else:
        target = dtypes.to_dtype(dtype)
    return leaf_or_out(_logspace_values(start, end, steps, base, target), out, requires_grad)


def _logspace_values(start: Any, end: Any, steps: int, base: Any, target: dtypes.dtype) -> Any:
    """torch's logspace kernel: the exponents in the dtype's precision, each power in
    double; the first half counts up from ``start``, the second down from ``end``."""
    work = np.complex128 if target.is_complex else np.float64
    if target.is_floating_point or target.is_complex:
        first, last = (np.asarray(v, target.np).astype(work) for v in (start, end))
    else:
        first, last = work(int(start)), work(int(end))
    if steps == 1:
        return np.asarray([np.power(work(base), first)]).astype(target.np)
    index = np.arange(steps, dtype=np.float64)
    step = (last - first) / (steps - 1) if steps > 1 else 0.0
    low = np.power(work(base), first + step * index)
    high = np.power(work(base), last - step * (steps - 1 - index))
    values = np.where(index < steps // 2, low, high)
    if not (target.is_floating_point or target.is_complex):
        values = np.trunc(values)
    return values.astype(target.np)


def _triangle_indices(
    name: str, row: int, col: int, offset: int, options: dict[str, Any], keep: Any
) -> Any:
    """The (row, column) pairs of a ``row x col`` matrix's triangle, in row-major order;
    ``options``: the factory's ``dtype``, ``device``, ``layout`` and ``pin_memory``."""
    check_options(name, options["layout"], options["pin_memory"])
    check_device(factory_device(options["device"]))
    dtype = options["dtype"]
    for label, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{label} must be non-negative, got{value}")
    target = dtypes.int64 if dtype is None else dtypes.to_dtype(dtype)
    if target not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtypes.legacy_name(target)}'")
    rows, columns = np.indices((row, col)).reshape(2, -1)
    chosen = keep(columns - rows, offset)
    return new_leaf(np.stack([rows[chosen], columns[chosen]]).astype(target.np))


def tril_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Any:
    """The indices of the lower triangle (at and below diagonal ``offset``) of a
    ``row x col`` matrix: a ``(2, N)`` tensor of row and column indices, row by row.

    Example: ``hookgrad.tril_indices(2, 2)`` is ``tensor([[0, 1, 1], [0, 0, 1]])``.
    """
    options = {"dtype": dtype, "device": device, "layout": layout, "pin_memory": pin_memory}
    return _triangle_indices("tril_indices", row, col, offset, options, lambda d, k: d <= k)


def triu_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = None,
    layout: Any = None,
    pin_memory: bool = False,
) -> Any:
    """The indices of the upper triangle (at and above diagonal ``offset``) of a
    ``row x col`` matrix, as ``tril_indices``.

    Example: ``hookgrad.triu_indices(2, 2)`` is ``tensor([[0, 0, 1], [0, 1, 1]])``.
    """
    options = {"dtype": dtype, "device": device, "layout": layout, "pin_memory": pin_memory}
    return _triangle_indices("triu_indices", row, col, offset, options, lambda d, k: d >= k)


# NOTE: this defines the module's global ``range`` as torch's function: no code of this
# module may call the builtin ``range`` by that name.
def range(  # noqa: A001 (torch's name)
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Deprecated (as in torch, with its warning): ``start`` to ``end`` *included*, by
    ``step``, in the default float dtype unless ``dtype`` (or ``out``'s) is given. Use
    ``arange``.

    Example: ``hookgrad.range(0, 2)`` is ``tensor([0., 1., 2.])``.
    """
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn(RANGE_WARNING, UserWarning, stacklevel=2)
    check_options("range", layout)
    check_device(factory_device(device))
    start, end, step = number_value(start), number_value(end), number_value(step)
    target = resolve_dtype(out_dtype("range", dtype, out))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    values = start + step * np.arange(count, dtype=np.float64)
    return leaf_or_out(values.astype(target.np), out, requires_grad)


RANGE_WARNING = (
    "torch.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
    "values in [start, end)."
)
