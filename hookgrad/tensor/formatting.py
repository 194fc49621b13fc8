"""``repr(tensor)`` exactly as torch prints it.

One formatter per tensor decides the style of every element (integers shown as ``4.``,
fixed 4-decimal, or scientific) and the common width; large tensors are summarised
with ``...`` past 1000 elements, 3 edge items per dim; lines wrap at 80 columns.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.tensor import dtypes

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    """The common format of every element of one (real) array."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(str(value)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            self.sci_mode = high / low > 1000.0 or high > 1.0e8
        else:
            self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        for value in finite.tolist():
            if self.sci_mode:
                width = len(f"{value:.{PRECISION}e}")
            elif self.int_mode:
                width = len(f"{value:.0f}") + 1
            else:
                width = len(f"{value:.{PRECISION}f}")
            self.max_width = max(self.max_width, width)

    def format(self, value: Any) -> str:
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{PRECISION}f}"
        else:
            text = str(value)
        return (self.max_width - len(text)) * " " + text


class _ComplexFormatter:
    def __init__(self, values: np.ndarray) -> None:
        self.real = _Formatter(values.real)
        self.imag = _Formatter(values.imag)

    @property
    def max_width(self) -> int:
        return self.real.max_width + self.imag.max_width + 1

    def format(self, value: Any) -> str:
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _summarized(values: np.ndarray) -> np.ndarray:
    """The edge items of every dim (what a summarised print shows)."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        values = np.concatenate([values[:EDGEITEMS], values[-EDGEITEMS:]])
    if values.ndim == 1:
        return values
    return np.stack([_summarized(row) for row in values])


def _vector(values: np.ndarray, indent: int, summarize: bool, formatter: Any) -> str:
    element_length = formatter.max_width + 2
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / element_length)))
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        data = (
            [formatter.format(v) for v in values[:EDGEITEMS].tolist()]
            + [" ..."]
            + [formatter.format(v) for v in values[-EDGEITEMS:].tolist()]
        )
    else:
        data = [formatter.format(v) for v in values.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _body(values: np.ndarray, indent: int, summarize: bool, formatter: Any) -> str:
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, formatter)
    rows = range(values.shape[0])
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        head = [_body(values[i], indent + 1, summarize, formatter) for i in rows[:EDGEITEMS]]
        tail = [_body(values[i], indent + 1, summarize, formatter) for i in rows[-EDGEITEMS:]]
        slices = head + ["..."] + tail
    else:
        slices = [_body(values[i], indent + 1, summarize, formatter) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def array_str(values: np.ndarray, indent: int) -> str:
    """The bracketed element text of ``values`` (no ``tensor(`` prefix)."""
    if values.dtype == np.float16:
        values = values.astype(np.float32)
    summarize = values.size > THRESHOLD
    sample = _summarized(values) if summarize else values
    formatter: Any
    if values.dtype.kind == "c":
        formatter = _ComplexFormatter(sample)
    else:
        formatter = _Formatter(sample)
    return _body(values, indent, summarize, formatter)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(tensor: Any, prefix: str = "tensor(", grad_fn_name: str | None = None) -> str:
    """torch's ``repr`` of ``tensor``."""
    values = tensor._data
    dtype = tensor.dtype
    indent = len(prefix)
    suffixes = []
    default = (dtypes.get_default_dtype(), dtypes.default_complex(), dtypes.int64, dtypes.bool_)
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append("size=" + str(tuple(values.shape)))
        if dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={dtype!r}")
        text = "[]"
    else:
        if dtype not in default:
            suffixes.append(f"dtype={dtype!r}")
        text = array_str(values, indent)
    grad_fn = tensor.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name or grad_fn.name()}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + text, suffixes, indent)
