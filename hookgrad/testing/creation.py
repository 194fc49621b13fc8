"""``make_tensor``: a tensor of random values for tests, drawn as torch's
``torch.testing.make_tensor`` draws them, from hookgrad's generator (torch's streams), so a
seeded call gives torch's values."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import empty
from hookgrad.tensor.device import device as _device
from hookgrad.tensor.functions.conversion import view_as_real
from hookgrad.tensor.random import randint

__all__ = ["make_tensor"]

_INTEGRAL = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_FLOATING = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def make_tensor(
    *shape: Any,
    dtype: Any,
    device: Any,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format: Any = None,
) -> Any:
    """A tensor of ``shape`` with values drawn uniformly from ``[low, high)``: by default
    ``[-9, 9)`` for floating and complex dtypes, ``[-9, 10)`` for signed integers,
    ``[0, 10)`` for uint8, ``{False, True}`` for bool.

    ``noncontiguous``: every other element of a twice-as-wide tensor; ``exclude_zero``:
    zeros replaced by 1 (integers, bool) or the dtype's ``tiny``; ``memory_format``: the
    copy's layout. Example::

        hookgrad.manual_seed(0)
        hookgrad.testing.make_tensor(3, dtype=hookgrad.float32, device="cpu", low=-1, high=1)
    """
    target = dtypes.to_dtype(dtype)
    _device(device)
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = tuple(shape[0])
    shape = tuple(int(size) for size in shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
            f"noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    if requires_grad and not target.is_floating_point and not target.is_complex:
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            f"dtype={target}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if target is dtypes.bool_:
        low, high = _bounds(low, high, target, 0, 2, 0, 2)
        result = randint(low, high, shape, dtype=target)
    elif target in _INTEGRAL:
        info = dtypes.iinfo(target)
        highest = info.max + (1 if target is not dtypes.int64 else 0)
        low, high = _bounds(low, high, target, info.min, highest, -9, 10)
        result = randint(low, high, shape, dtype=target)
    elif target in _FLOATING:
        info = dtypes.finfo(target)
        low, high = _bounds(low, high, target, info.min, info.max, -9, 9)
        result = empty(shape, dtype=target)
        _uniform(view_as_real(result) if target.is_complex else result, low, high)
    else:
        raise TypeError(
            f"The requested dtype '{target}' is not supported by torch.testing.make_tensor(). "
            "To request support, file an issue at: https://github.com/pytorch/pytorch/issues"
        )
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        floating = target.is_floating_point or target.is_complex
        result[result == 0] = dtypes.finfo(target).tiny if floating else 1
    if target.is_floating_point or target.is_complex:
        result.requires_grad = requires_grad
    return result


def _bounds(
    low: Any,
    high: Any,
    target: dtypes.dtype,
    lowest: Any,
    highest: Any,
    default_low: Any,
    default_high: Any,
) -> tuple[Any, Any]:
    """torch's checks and clamping of ``low`` / ``high`` for ``target``."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    floating = target.is_floating_point or target.is_complex
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and floating:
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
            "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), but {target} "
            f"only supports [{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if not floating:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform(tensor: Any, low: float, high: float) -> Any:
    """``uniform_`` over ``[low, high)``, halved and doubled again when the width would
    overflow the dtype (torch's workaround)."""
    if high - low >= dtypes.finfo(tensor.dtype).max:
        return tensor.uniform_(low / 2, high / 2).mul_(2)
    return tensor.uniform_(low, high)
