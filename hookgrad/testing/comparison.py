"""``assert_close`` (and the deprecated ``assert_allclose``): torch's comparison of
tensors, arrays, numbers and nested sequences or mappings of them, with torch's default
tolerances per dtype and its error messages.

An input pair is compared as the first of these that takes it: two ``None``, two
booleans, two Python (or NumPy) numbers, two tensor-likes (hookgrad tensors or NumPy
arrays of related types); sequences and mappings are compared item by item, and a
failure names the item (``The failure occurred for item [1]['a']``).
"""

from __future__ import annotations

import cmath
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from hookgrad.tensor import dtypes
from hookgrad.tensor.creation import as_tensor
from hookgrad.tensor.tensor import Tensor

__all__ = ["assert_allclose", "assert_close"]

# torch's default (rtol, atol) per dtype; other dtypes compare exactly.
DTYPE_PRECISIONS: dict[dtypes.dtype, tuple[float, float]] = {
    dtypes.float16: (1e-3, 1e-5),
    dtypes.float32: (1.3e-6, 1e-5),
    dtypes.float64: (1e-7, 1e-7),
    dtypes.complex64: (1.3e-6, 1e-5),
    dtypes.complex128: (1e-7, 1e-7),
}
# The dtype a Python number stands for.
_NUMBER_DTYPES = {int: dtypes.int64, float: dtypes.float64, complex: dtypes.complex128}

Message = str | Callable[[str], str] | None


class _Failure(Exception):
    """A failed comparison: the exception type to raise, its message, and the item path."""

    def __init__(self, kind: type[Exception], message: str, path: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.path = path

    def error(self, msg: Message = None) -> Exception:
        """The user-facing exception, with ``msg`` in place of (or made from) ours."""
        if isinstance(msg, str):
            return self.kind(msg)
        message = self.message
        if self.path:
            items = "".join(str([item]) for item in self.path)
            message += f"\n\nThe failure occurred for item {items}"
        return self.kind(msg(message) if callable(msg) else message)


class _Unsupported(Exception):
    """This comparison does not take these inputs; the next one is tried."""


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: Message = None,
) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close:
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise (NaNs equal only with
    ``equal_nan``), with the same shape and, when checked, dtype and stride.

    Without ``rtol`` and ``atol`` (give both or neither), torch's defaults for the dtype
    apply: float16 (1e-3, 1e-5), float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7), the
    complex dtypes as their parts, exact equality for integers and booleans. With
    ``check_dtype=False`` differing dtypes are promoted first. ``msg`` replaces the
    message, or (a callable) makes one from it. Example::

        hookgrad.testing.assert_close(hookgrad.tensor([1.0]), hookgrad.tensor([1.0 + 1e-7]))
    """
    __tracebackhide__ = True
    options = {
        "allow_subclasses": allow_subclasses,
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_dtype": check_dtype,
        "check_stride": check_stride,
    }
    try:
        for compare in _comparisons(actual, expected, (), options):
            compare()
    except _Failure as failure:
        raise failure.error(msg) from None


def _comparisons(actual: Any, expected: Any, path: tuple, options: dict) -> list[Callable]:
    """One comparison per leaf pair of two (possibly nested) inputs; structural
    mismatches (lengths, keys) raise at once, as torch's."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                path,
            )
        pairs = [
            _comparisons(a, e, (*path, i), options)
            for i, (a, e) in enumerate(zip(actual, expected))
        ]
        return [compare for pair in pairs for compare in pair]
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        keys, expected_keys = set(actual), set(expected)
        if keys != expected_keys:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - keys)}\n"
                f"Additional keys in the actual mapping: {sorted(keys - expected_keys)}",
                path,
            )
        try:
            ordered = sorted(keys)
        except TypeError:
            ordered = list(keys)
        pairs = [_comparisons(actual[k], expected[k], (*path, k), options) for k in ordered]
        return [compare for pair in pairs for compare in pair]
    for make in (_none_pair, _boolean_pair, _number_pair, _tensor_pair):
        try:
            return [make(actual, expected, path, options)]
        except _Unsupported:
            continue
    raise _Failure(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} and "
        f"{type(expected)}.",
        path,
    )


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _none_pair(actual: Any, expected: Any, path: tuple, options: dict) -> Callable:
    if not (actual is None or expected is None):
        raise _Unsupported

    def compare() -> None:
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)

    return compare


def _boolean_pair(actual: Any, expected: Any, path: tuple, options: dict) -> Callable:
    kinds = (bool, np.bool_)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)

    def compare() -> None:
        if actual is not expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}", path)

    return compare


def _number_pair(actual: Any, expected: Any, path: tuple, options: dict) -> Callable:
    kinds = (int, float, complex, np.number)
    if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
        raise _Unsupported
    actual, expected = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(v)] for v in (actual, expected)], options, path)

    def compare() -> None:
        if options["check_dtype"] and type(actual) is not type(expected):
            raise _Failure(
                AssertionError,
                f"The (d)types do not match: {type(actual)} != {type(expected)}.",
                path,
            )
        if actual == expected:
            return
        if options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
            return
        difference = abs(actual - expected)
        if cmath.isfinite(difference) and difference <= atol + rtol * abs(expected):
            return
        raise _Failure(AssertionError, _scalar_message(actual, expected, rtol, atol), path)

    return compare


def _tensor_pair(actual: Any, expected: Any, path: tuple, options: dict) -> Callable:
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not options["allow_subclasses"] and type(actual) is not type(expected)):
        raise _Unsupported
    try:
        actual, expected = (
            v if isinstance(v, Tensor) else as_tensor(v) for v in (actual, expected)
        )
    except Exception:  # noqa: BLE001 (not a tensor-like: the next comparison is tried)
        raise _Unsupported from None
    rtol, atol = _tolerances([actual.dtype, expected.dtype], options, path)

    def compare() -> None:
        _compare_attributes(actual, expected, options, path)
        a, e = actual._data, expected._data
        if a.dtype != e.dtype:
            common = dtypes.promote_types(actual.dtype, expected.dtype).np
            a, e = a.astype(common), e.astype(common)
        matches = _isclose(a, e, rtol, atol, options["equal_nan"])
        if matches.all():
            return
        if a.shape == ():
            message = _scalar_message(a.item(), e.item(), rtol, atol)
        else:
            message = _tensor_message(a, e, matches, rtol, atol)
        raise _Failure(AssertionError, message, path)

    return compare


def _tolerances(kinds: list[dtypes.dtype], options: dict, path: tuple) -> tuple[float, float]:
    rtol, atol = options["rtol"], options["atol"]
    if (rtol is None) != (atol is None):
        raise _Failure(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
            f"{'rtol' if rtol is None else 'atol'}.",
            path,
        )
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*(DTYPE_PRECISIONS.get(kind, (0.0, 0.0)) for kind in kinds))
    return max(rtols), max(atols)


def _compare_attributes(actual: Tensor, expected: Tensor, options: dict, path: tuple) -> None:
    def mismatch(name: str, mine: Any, theirs: Any) -> _Failure:
        return _Failure(
            AssertionError,
            f"The values for attribute '{name}' do not match: {mine} != {theirs}.",
            path,
        )

    if actual.shape != expected.shape:
        raise mismatch("shape", actual.shape, expected.shape)
    if options["check_stride"] and actual.stride() != expected.stride():
        raise mismatch("stride()", actual.stride(), expected.stride())
    if options["check_dtype"] and actual.dtype is not expected.dtype:
        raise mismatch("dtype", actual.dtype, expected.dtype)


def _isclose(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> Any:
    """torch's ``isclose``: exact for integers and booleans at zero tolerances."""
    if a.dtype.kind in "biu" and rtol == 0 and atol == 0:
        return a == e
    if a.dtype.kind == "b":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        return np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    difference = abs(actual - expected)
    relative = float("inf") if expected == 0 else difference / abs(expected)
    return _mismatch_message(
        "Scalars",
        f"Expected {expected} but got {actual}.",
        absolute=(difference, None, atol),
        relative=(relative, None, rtol),
    )


def _tensor_message(
    actual: np.ndarray, expected: np.ndarray, matches: np.ndarray, rtol: float, atol: float
) -> str:
    """torch's statistics of a mismatch: how many elements, and the greatest absolute
    and relative differences among the mismatched ones, with their indices."""
    total = matches.size
    mismatched = total - int(np.count_nonzero(matches))
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    a, e = actual.reshape(-1), expected.reshape(-1)
    if a.dtype.kind in "biu":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        absolute = np.abs(a - e)
        absolute[matches.reshape(-1)] = 0
        divisor = np.abs(e)
        if divisor.dtype.kind in "iu":
            # torch divides integers in the default float dtype
            absolute_float = absolute.astype(dtypes.get_default_dtype().np)
            relative = absolute_float / divisor.astype(absolute_float.dtype)
        else:
            relative = absolute / divisor
    relative[matches.reshape(-1)] = 0
    at_absolute, at_relative = int(np.argmax(absolute)), int(np.argmax(relative))
    shape = matches.shape
    return _mismatch_message(
        "Tensor-likes",
        extra,
        absolute=(absolute[at_absolute].item(), np.unravel_index(at_absolute, shape), atol),
        relative=(relative[at_relative].item(), np.unravel_index(at_relative, shape), rtol),
    )


def _mismatch_message(
    identifier: str,
    extra: str,
    *,
    absolute: tuple[Any, Any, float],
    relative: tuple[Any, Any, float],
) -> str:
    """torch's layout: a headline, ``extra``, then each greatest difference ``(value,
    index or None, tolerance)``; tolerances are left out for an exact comparison."""
    equality = absolute[2] == 0 and relative[2] == 0
    message = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra}\n"
    for kind, (difference, at, tolerance) in (("absolute", absolute), ("relative", relative)):
        if at is None:
            line = f"{kind.title()} difference: {difference}"
        else:
            line = f"Greatest {kind} difference: {difference} at index {tuple(int(i) for i in at)}"
        message += line + ("" if equality else f" (up to {tolerance} allowed)") + "\n"
    return message.strip()


ASSERT_ALLCLOSE_WARNING = (
    "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
    "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
    "instructions in https://github.com/pytorch/pytorch/issues/61844."
)
# ``assert_allclose``'s looser defaults.
_ALLCLOSE_PRECISIONS = {
    dtypes.float16: (1e-3, 1e-3),
    dtypes.float32: (1e-4, 1e-5),
    dtypes.float64: (1e-5, 1e-8),
}


def assert_allclose(
    actual: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """Deprecated (with torch's ``FutureWarning``): ``assert_close`` with looser default
    tolerances, NaNs equal and dtypes promoted. Use ``assert_close``."""
    warnings.warn(ASSERT_ALLCLOSE_WARNING, FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = as_tensor(actual)
    if not isinstance(expected, Tensor):
        expected = as_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        kinds = [actual.dtype, expected.dtype]
        pairs = [_ALLCLOSE_PRECISIONS.get(kind, (0.0, 0.0)) for kind in kinds]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_dtype=False,
        msg=msg or None,
    )
