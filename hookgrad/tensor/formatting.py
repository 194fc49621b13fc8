"""``repr(tensor)`` exactly as torch prints it, and ``set_printoptions``.

One formatter per tensor decides the style of every element (integers shown as ``4.``,
fixed-point with ``precision`` decimals, or scientific) and the common width; tensors
with more than ``threshold`` elements are summarised with ``...`` (``edgeitems`` per end
of each dim); lines wrap at ``linewidth`` columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hookgrad.tensor import dtypes


@dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()
_PROFILES = {
    "default": _PrintOptions(),
    "short": _PrintOptions(precision=2, edgeitems=2),
    "full": _PrintOptions(threshold=math.inf),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print, as torch's ``set_printoptions``.

    ``profile`` (``"default"``, ``"short"``, ``"full"``) resets the four numeric options
    first; the others override it. ``sci_mode`` is always set: True/False forces or
    forbids scientific notation, None (the default) decides per tensor. Example::

        hookgrad.set_printoptions(precision=2)
        hookgrad.tensor([1.23456])              # tensor([1.23])
        hookgrad.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                f"Invalid profile: {profile}. the profile must be one of 'default', 'short', 'full'"
            )
        base = _PROFILES[profile]
        PRINT_OPTS.precision = base.precision
        PRINT_OPTS.threshold = base.threshold
        PRINT_OPTS.edgeitems = base.edgeitems
        PRINT_OPTS.linewidth = base.linewidth
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options as a dict (the arguments of ``set_printoptions``)."""
    return dict(vars(PRINT_OPTS))


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
        if finite.size != 0:
            self._fit(finite)

    def _fit(self, finite: np.ndarray) -> None:
        """Choose the style and width from the nonzero finite values (as torch does)."""
        precision = PRINT_OPTS.precision
        magnitudes = np.abs(finite)
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        sci_mode = PRINT_OPTS.sci_mode
        if sci_mode is None:
            sci_mode = bool(high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4)
        self.sci_mode = sci_mode
        for value in finite.tolist():
            if self.sci_mode:
                width = len(f"{value:.{precision}e}")
            elif self.int_mode:
                width = len(f"{value:.0f}") + 1
            else:
                width = len(f"{value:.{precision}f}")
            self.max_width = max(self.max_width, width)

    def format(self, value: Any) -> str:
        precision = PRINT_OPTS.precision
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{precision}f}"
        else:
            text = str(value)
        return (self.max_width - len(text)) * " " + text


class _ComplexFormatter:
    """Formats complex elements as ``real+imagj``, each part with its own formatter."""

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
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if edge == 0:
        return values[(slice(0, 0),) * values.ndim]
    if values.shape[0] > 2 * edge:
        values = np.concatenate([values[:edge], values[-edge:]])
    if values.ndim == 1:
        return values
    return np.stack([_summarized(row) for row in values])


def _elided(items: list[Any], summarize: bool, ellipsis: str) -> list[Any]:
    """``items``, or its edge items around ``ellipsis`` when summarising."""
    edge = PRINT_OPTS.edgeitems
    if summarize and edge == 0:
        return [ellipsis]
    if summarize and len(items) > 2 * edge:
        return items[:edge] + [ellipsis] + items[-edge:]
    return items


def _vector(values: np.ndarray, indent: int, summarize: bool, formatter: Any) -> str:
    element_length = formatter.max_width + 2
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    items = _elided(values.tolist(), summarize, " ...")
    data = [item if item == " ..." else formatter.format(item) for item in items]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _body(values: np.ndarray, indent: int, summarize: bool, formatter: Any) -> str:
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, formatter)
    rows = _elided(list(range(values.shape[0])), summarize, "...")
    slices = [
        row if row == "..." else _body(values[row], indent + 1, summarize, formatter)
        for row in rows
    ]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def array_str(values: np.ndarray, indent: int) -> str:
    """The bracketed element text of ``values`` (no ``tensor(`` prefix)."""
    if values.dtype == np.float16:
        values = values.astype(np.float32)
    summarize = values.size > PRINT_OPTS.threshold
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
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _grad_fn_name(tensor: Any) -> str | None:
    """The node name torch prints: the C++ class name without its namespace."""
    try:
        grad_fn = tensor.grad_fn
    except RuntimeError:
        return "Invalid"  # a view whose grad_fn can no longer be rebuilt
    return None if grad_fn is None else grad_fn.name().rpartition("::")[2]


def tensor_repr(tensor: Any, prefix: str = "tensor(") -> str:
    """torch's ``repr`` of ``tensor``: ``prefix``, the elements, then the suffixes
    (``size=``, ``dtype=``, ``grad_fn=<name>`` or ``requires_grad=True``)."""
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
        if PRINT_OPTS.edgeitems == 0:
            suffixes.append("size=" + str(tuple(values.shape)))
        if dtype not in default:
            suffixes.append(f"dtype={dtype!r}")
        text = array_str(values, indent)
    name = _grad_fn_name(tensor)
    if name is not None:
        suffixes.append(f"grad_fn=<{name}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + text, suffixes, indent)
