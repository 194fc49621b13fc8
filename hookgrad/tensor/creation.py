"""Tensor creation: ``tensor``, ``as_tensor``, ``asarray``, ``from_numpy``,
``frombuffer``, ``zeros``, ``empty_strided``, ``arange``, ``linspace``, ``logspace``,
``eye``, ``tril_indices``, the window functions, ``*_like``.

Every function here makes a new leaf tensor; dtypes are inferred as torch infers them
(Python bools, ints, floats and complex numbers give bool, int64, the default float and
the default complex dtype; NumPy arrays and scalars keep their own dtype). A factory
function given no ``device`` makes its tensor on the default device
(``set_default_device``), and fails as a CPU-only torch does unless that is the CPU. The
legacy constructors' parsing (``Tensor(2, 3)``, ``FloatTensor([1, 2])``) is here too.
"""

from __future__ import annotations

import collections
import math
import warnings
from typing import Any

import numpy as np

from hookgrad.ops import shape as shape_ops
from hookgrad.ops.strides import as_view
from hookgrad.tensor import dtypes
from hookgrad.tensor.device import check_device, factory_device
from hookgrad.tensor.device import device as _device
from hookgrad.tensor.dispatch import wrap_constant
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

# The sequences torch reads element by element (any Python sequence but str and bytes).
_SEQUENCES = (list, tuple, range, collections.deque)
_NUMBERS = (bool, int, float, complex, np.number, np.bool_)
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor)."
)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


# -- nested Python data -> array -----------------------------------------------------------
def _infer_dtype(data: Any) -> dtypes.dtype:
    """torch's dtype for nested data: the promotion of every element's dtype, where a
    Python number is bool, int64, the default float or the default complex dtype and a
    NumPy array or scalar, or a tensor, has its own dtype."""
    result = None
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, _SEQUENCES):
            stack.extend(item)
            continue
        if _is_tensor(item):
            item_dtype = item.dtype
        elif isinstance(item, (np.ndarray, np.generic)):
            item_dtype = dtypes.from_numpy_dtype(item.dtype)
        elif isinstance(item, (bool, int, float, complex)):
            item_dtype = dtypes.scalar_dtype(item)
        elif isinstance(item, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")
        result = item_dtype if result is None else dtypes.promote_types(result, item_dtype)
    return dtypes.get_default_dtype() if result is None else result


def _check_leaf(item: Any, target: dtypes.dtype) -> None:
    """Raise torch's error if ``item`` cannot be one element of a ``target`` tensor."""
    if _is_tensor(item):
        if item.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return
    is_complex = isinstance(item, (complex, np.complexfloating))
    if isinstance(item, _NUMBERS) and not (is_complex and target._category in (1, 2)):
        return
    if isinstance(item, str):
        raise ValueError(f"too many dimensions '{type(item).__name__}'")
    if target._category in (2, 3):
        raise TypeError(f"must be real number, not {type(item).__name__}")
    raise TypeError(f"'{type(item).__name__}' object cannot be interpreted as an integer")


def _first_shape(data: Any) -> list[int]:
    """The shape torch reads off the first element at each depth (a tensor there is
    taken as one element)."""
    shape: list[int] = []
    item = data
    while True:
        if isinstance(item, np.ndarray):
            return shape + list(item.shape)
        if not isinstance(item, _SEQUENCES):
            return shape
        shape.append(len(item))
        if len(item) == 0:
            return shape
        item = item[0]


def _check_shape(data: Any, shape: list[int], target: dtypes.dtype) -> None:
    """Raise torch's error unless nested ``data`` has ``shape`` everywhere and each
    element fits ``target``; checked one depth at a time."""
    level = [data]
    for depth, length in enumerate(shape):
        children: list[Any] = []
        for item in level:
            if isinstance(item, np.ndarray) or _is_tensor(item):
                found = list(item.shape)
                if found != shape[depth:]:
                    got = found[0] if found else 0
                    raise ValueError(
                        f"expected sequence of length {length} at dim {depth} (got {got})"
                    )
            elif not isinstance(item, _SEQUENCES):
                raise TypeError("not a sequence")
            elif len(item) != length:
                raise ValueError(
                    f"expected sequence of length {length} at dim {depth} (got {len(item)})"
                )
            else:
                children.extend(item)
        level = children
    for item in level:
        _check_leaf(item, target)


def _unwrap_nested(data: Any, depth: int) -> Any:
    """Nested lists with tensors replaced by arrays (reshaped to scalars at depth 0)."""
    if isinstance(data, _SEQUENCES):
        return [_unwrap_nested(item, depth - 1) for item in data]
    if _is_tensor(data):
        return data._data.reshape(()) if depth == 0 else data._data
    return data


def to_array(data: Any, dtype: Any = None, copy: bool = True) -> np.ndarray:
    """``data`` (nested lists, numbers, arrays, tensors) as an array of a torch dtype.

    With ``copy=False`` an array or tensor of the right dtype is returned as it is.
    """
    target = None if dtype is None else dtypes.to_dtype(dtype)
    if _is_tensor(data) or isinstance(data, np.ndarray):
        array = data._data if _is_tensor(data) else data
        if target is None:
            target = dtypes.from_numpy_dtype(array.dtype)
        if array.dtype.kind == "c" and target.np.kind != "c":
            array = array.real
        return np.array(array, dtype=target.np, copy=copy or None)
    if target is None:
        target = _infer_dtype(data)
    shape = _first_shape(data)
    _check_shape(data, shape, target)
    if target in dtypes.SMALL_INTEGERS:
        values = np.array(_unwrap_nested(data, len(shape)))
        dtypes.check_fits(values, target)
        return values.astype(target.np).reshape(shape)
    try:
        return np.array(_unwrap_nested(data, len(shape)), dtype=target.np).reshape(shape)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None


def legacy_init(
    self: Tensor, *args: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> None:
    """``Tensor(*args)``, torch's legacy constructor (``Tensor.__init__``).

    ``Tensor(2, 3)`` is a (zero-filled here) 2x3 tensor, ``Tensor([1, 2])`` makes floats of
    integer data, and ``Tensor(t)`` copies the tensor ``t`` with its dtype. Example::

        Tensor([1, 2]).dtype     # hookgrad.float32
    """
    check_legacy_device(device)
    if len(args) == 1 and _is_tensor(args[0]):
        self._data = to_array(args[0])
    else:
        self._data = legacy_array(args, resolve_dtype(dtype))
    if requires_grad:
        self.requires_grad = True


def check_legacy_device(value: Any) -> None:
    """Raise torch's error unless the device given to a legacy constructor is the CPU."""
    if value is not None and _device(value).type != "cpu":
        raise RuntimeError(
            f"legacy constructor expects device type: cpu but device type: "
            f"{_device(value).type} was passed"
        )


def legacy_array(args: tuple[Any, ...], target: dtypes.dtype) -> np.ndarray:
    """The array that torch's legacy constructors (``Tensor(2, 3)``, ``FloatTensor([1, 2])``)
    make of ``args`` (other than one tensor), with elements of dtype ``target``.

    Sizes (ints or a ``Size``) give zeros of that shape (torch leaves them uninitialised);
    one sequence or NumPy array is data, converted to ``target``, without a copy for an
    array that has it already.
    """
    if not args:
        return np.zeros((0,), target.np)
    if len(args) == 1 and isinstance(args[0], Size):
        sizes: tuple[Any, ...] = tuple(args[0])
    elif _is_index(args[0]):
        sizes = args
    elif len(args) == 1:
        return _legacy_data(args[0], target)
    else:
        raise TypeError(legacy_arguments_error(args, {}))
    for position, s in enumerate(sizes):
        if not _is_index(s):
            raise TypeError(
                f"new(): argument 'size' failed to unpack the object at pos {position + 1} "
                f'with error "type must be tuple of ints,but got {_type_name(s)}"'
            )
    shape = tuple(int(s) for s in sizes)
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
    return np.zeros(shape, target.np)


def _legacy_data(data: Any, target: dtypes.dtype) -> np.ndarray:
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, (*_SEQUENCES, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {_type_name(data)})")
    return to_array(data, target, copy=False)


def legacy_arguments_error(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """torch's message for arguments that fit no form of a legacy constructor."""
    got = [type(a).__name__ for a in args]
    got += [f"{key}={type(value).__name__}" for key, value in kwargs.items()]
    return (
        f"new() received an invalid combination of arguments - got ({', '.join(got)}), but "
        "expected one of:\n * (*, torch.device device = None)\n * (torch.Storage storage)\n"
        " * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
        " * (object data, *, torch.device device = None)\n"
    )


# -- helpers shared by the creation functions ----------------------------------------------
def new_leaf(array: np.ndarray, requires_grad: bool = False) -> Any:
    """Wrap a freshly made ``array`` as a leaf tensor, optionally requiring grad."""
    out = wrap_constant(array)
    if requires_grad:
        if not (out.dtype.is_floating_point or out.dtype.is_complex):
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        out.requires_grad_()
    return out


def parse_size(size: tuple[Any, ...], name: str) -> tuple[int, ...]:
    """The shape given to ``name`` as varargs (``zeros(2, 3)``) or one sequence
    (``zeros((2, 3))``), checked as torch checks it."""
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if len(size) > 1 and isinstance(size[0], (tuple, list)):
        raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    elif len(size) == 1 and not _is_index(size[0]):
        raise TypeError(
            f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
            f"{type(size[0]).__name__}"
        )
    for position, s in enumerate(size):
        if isinstance(s, bool):
            raise TypeError(
                f"{name}(): argument 'size' (position 1) must be tuple of ints, but found "
                f"element of type bool at pos {position}"
            )
        if not _is_index(s):
            raise TypeError(
                f"{name}(): argument 'size' failed to unpack the object at pos {position + 1} "
                f'with error "type must be tuple of ints,but got {type(s).__name__}"'
            )
    shape = tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        if name == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
        )
    return shape


def size_args(args: tuple[Any, ...], size: Any) -> tuple[Any, ...]:
    """The size given as varargs, or as the ``size=`` keyword (``zeros(size=(2, 3))``)."""
    return args if size is None else (size,)


def _is_index(value: Any) -> bool:
    """True for ints, NumPy integers and integer 0-dim tensors (not bools)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return _is_tensor(value) and value.ndim == 0 and value.dtype._category == 1


def resolve_dtype(dtype: Any) -> dtypes.dtype:
    """``dtype`` as a hookgrad dtype; the default float dtype when None."""
    return dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)


def _check_tensor_input(input: Any, name: str) -> None:
    if not _is_tensor(input):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {_type_name(input)}"
        )


def _type_name(value: Any) -> str:
    module = type(value).__module__
    name = type(value).__qualname__
    return name if module == "builtins" else f"{module}.{name}"


def _number(value: Any) -> Any:
    """A Python number from a number, a NumPy scalar or a one-element tensor."""
    if _is_tensor(value) or isinstance(value, np.generic):
        return value.item()
    return value


# -- from data -----------------------------------------------------------------------------
def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """A new leaf tensor holding a copy of ``data`` (numbers, nested lists or tuples,
    NumPy arrays, tensors).

    Example::

        hookgrad.tensor([[1, 2], [3, 4]])                     # int64
        hookgrad.tensor([1.0, 2.0], requires_grad=True)       # float32, a leaf
    """
    check_device(factory_device(device))
    if _is_tensor(data):
        warnings.warn(COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
    return new_leaf(to_array(data, dtype), requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Any:
    """``data`` as a tensor, without a copy where possible.

    A tensor of the requested dtype is returned as it is; a NumPy array of a hookgrad
    dtype shares its memory; anything else is copied as by ``tensor`` (a tensor cast to
    another dtype keeps its autograd history). Example::

        a = numpy.zeros(3)
        t = hookgrad.as_tensor(a)
        a[0] = 1.0          # t is now tensor([1., 0., 0.], dtype=torch.float64)
    """
    check_device(factory_device(device))
    if _is_tensor(data):
        return data if dtype is None else data.to(dtypes.to_dtype(dtype))
    return wrap_constant(to_array(data, dtype, copy=False))


def from_numpy(array: np.ndarray) -> Any:
    """A tensor sharing memory with the NumPy ``array`` (changes to one show in the
    other). Arrays of int8/int16/uint* dtypes, which hookgrad has not, are copied to
    int32/int64. Example::

        a = numpy.arange(3.0)
        t = hookgrad.from_numpy(a)
        a[0] = 5.0        # t is now tensor([5., 1., 2.], dtype=torch.float64)
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_type_name(array)})")
    target = dtypes.from_numpy_dtype(array.dtype)
    return wrap_constant(array if array.dtype == target.np else array.astype(target.np))


def is_tensor(obj: Any) -> bool:
    """True if ``obj`` is a hookgrad Tensor."""
    return _is_tensor(obj)


# -- filled with a constant ----------------------------------------------------------------
def zeros(
    *args: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """A tensor of zeros; ``size`` as varargs or one tuple: ``zeros(2, 3)``, ``zeros((2, 3))``."""
    return constant_tensor(
        np.zeros, "zeros", size_args(args, size), dtype, factory_device(device), requires_grad
    )


def ones(
    *args: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """A tensor of ones; ``size`` as varargs or one tuple: ``ones(2, 3)``."""
    return constant_tensor(
        np.ones, "ones", size_args(args, size), dtype, factory_device(device), requires_grad
    )


def empty(
    *args: Any,
    size: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """A tensor of shape ``size`` whose values are uninitialised (any values)."""
    return constant_tensor(
        np.empty, "empty", size_args(args, size), dtype, factory_device(device), requires_grad
    )


def constant_tensor(
    make: Any, name: str, size: tuple[Any, ...], dtype: Any, device: Any, requires_grad: bool
) -> Any:
    """``make(shape, np_dtype)`` (``np.zeros``, ...) as a leaf; ``name`` is the public
    function, for error messages."""
    check_device(device)
    shape = parse_size(size, name)
    return new_leaf(make(shape, resolve_dtype(dtype).np), requires_grad)


def _fill_dtype(fill_value: Any, name: str) -> dtypes.dtype:
    """The dtype ``full`` infers from its fill value: that of the Python number it is."""
    if _is_tensor(fill_value) and fill_value.numel() == 1:
        fill_value = fill_value.item()
    if isinstance(fill_value, np.generic):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (bool, int, float, complex)):
        raise TypeError(
            f"{name}(): argument 'fill_value' (position 2) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    return dtypes.scalar_dtype(fill_value)


_CPP_NAMES = {
    dtypes.float16: "c10::Half",
    dtypes.float32: "float",
    dtypes.float64: "double",
    dtypes.uint8: "uint8_t",
    dtypes.int8: "int8_t",
    dtypes.int16: "int16_t",
    dtypes.int32: "int",
    dtypes.int64: "int64_t",
}


def _filled(shape: tuple[int, ...], fill_value: Any, target: dtypes.dtype) -> np.ndarray:
    value = _number(fill_value)
    if isinstance(value, complex) and target in _CPP_NAMES:
        raise RuntimeError(
            f"value cannot be converted to type {_CPP_NAMES[target]} without overflow"
        )
    value = dtypes.checked_scalar(value, target)
    return np.full(shape, value, target.np)


def full(
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """A tensor of shape ``size`` (a tuple) filled with ``fill_value``; the dtype is
    inferred from ``fill_value`` (``full((2,), 7)`` is int64) unless given."""
    check_device(factory_device(device))
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    target = _fill_dtype(fill_value, "full")
    if dtype is not None:
        target = dtypes.to_dtype(dtype)
    return new_leaf(_filled(parse_size((size,), "full"), fill_value, target), requires_grad)


# -- ranges --------------------------------------------------------------------------------
def arange(
    start: Any = None,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``[start, start + step, ...)`` up to ``end`` (exclusive); ``arange(end)`` starts at 0.

    The dtype is int64 when all arguments are integers, else the default float dtype.
    Example: ``arange(1, 2, 0.25)`` is ``tensor([1.0000, 1.2500, 1.5000, 1.7500])``.
    """
    check_device(factory_device(device))
    if end is None:
        if start is None:
            raise TypeError("arange() missing required argument 'end' (pos 1)")
        start, end = 0, start
    elif start is None:
        start = 0
    start, end, step = _number(start), _number(end), _number(step)
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
    return new_leaf(_arange_values(start, end, step, target), requires_grad)


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
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included.

    Example: ``linspace(0, 1, 5)`` is ``tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])``.
    """
    check_device(factory_device(device))
    if not _is_index(steps):
        raise TypeError(
            f"linspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}"
        )
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = _number(start), _number(end)
    if dtype is None:
        complex_ends = isinstance(start, complex) or isinstance(end, complex)
        target = dtypes.default_complex() if complex_ends else dtypes.get_default_dtype()
    else:
        target = dtypes.to_dtype(dtype)
    return new_leaf(_linspace_values(start, end, steps, target), requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """An ``n x m`` matrix (``m`` defaults to ``n``) with ones on the diagonal."""
    check_device(factory_device(device))
    m = n if m is None else m
    for name, value in (("n", n), ("m", m)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    return new_leaf(np.eye(int(n), int(m), dtype=resolve_dtype(dtype).np), requires_grad)


# -- *_like --------------------------------------------------------------------------------
def like_dtype(input: Any, dtype: Any) -> np.dtype:
    """The NumPy dtype of a ``*_like`` result: ``dtype`` if given, else ``input``'s."""
    return input._data.dtype if dtype is None else dtypes.to_dtype(dtype).np


def zeros_like(
    input: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    """Zeros with the shape (and, unless given, the dtype) of ``input``."""
    _check_tensor_input(input, "zeros_like")
    check_device(device)
    return new_leaf(np.zeros(input._data.shape, like_dtype(input, dtype)), requires_grad)


def ones_like(
    input: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    """Ones with the shape (and, unless given, the dtype) of ``input``."""
    _check_tensor_input(input, "ones_like")
    check_device(device)
    return new_leaf(np.ones(input._data.shape, like_dtype(input, dtype)), requires_grad)


def empty_like(
    input: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    """An uninitialised tensor with the shape (and, unless given, the dtype) of ``input``."""
    _check_tensor_input(input, "empty_like")
    check_device(device)
    return new_leaf(np.empty(input._data.shape, like_dtype(input, dtype)), requires_grad)


def full_like(
    input: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Any:
    """``fill_value`` everywhere, with the shape (and, unless given, the dtype) of ``input``."""
    _check_tensor_input(input, "full_like")
    check_device(device)
    _fill_dtype(fill_value, "full_like")
    target = dtypes.from_numpy_dtype(like_dtype(input, dtype))
    return new_leaf(_filled(input._data.shape, fill_value, target), requires_grad)


def is_floating_point(input: Any) -> bool:
    """True if ``input``'s dtype is a floating point type."""
    return input.dtype.is_floating_point


def is_complex(input: Any) -> bool:
    """True if ``input``'s dtype is a complex type."""
    return input.dtype.is_complex


def numel(input: Any) -> int:
    """The number of elements of ``input``."""
    return input.numel()


def scalar_tensor(
    s: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Any:
    """A 0-dim tensor holding the number ``s``, of the default float dtype unless
    ``dtype`` is given (an int gives a float tensor, unlike ``tensor``).

    Example: ``hookgrad.scalar_tensor(3)`` is ``tensor(3.)``.
    """
    check_device(factory_device(device))
    value = _number(s)
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(
            f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}"
        )
    return new_leaf(_filled((), value, resolve_dtype(dtype)), requires_grad)


def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """``steps`` values ``base ** x`` for ``x`` evenly spaced from ``start`` to ``end``
    (both included), computed in double precision as torch's kernel does.

    Example: ``hookgrad.logspace(0, 2, 3)`` is ``tensor([1., 10., 100.])``.
    """
    check_device(factory_device(device))
    if not _is_index(steps):
        raise TypeError(
            f"logspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}"
        )
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = _number(start), _number(end)
    if dtype is None:
        complex_ends = isinstance(start, complex) or isinstance(end, complex)
        target = dtypes.default_complex() if complex_ends else dtypes.get_default_dtype()
    else:
        target = dtypes.to_dtype(dtype)
    return new_leaf(_logspace_values(start, end, steps, base, target), requires_grad)


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
    name: str, row: int, col: int, offset: int, dtype: Any, device: Any, keep: Any
) -> Any:
    """The (row, column) pairs of a ``row x col`` matrix's triangle, in row-major order."""
    check_device(factory_device(device))
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
) -> Any:
    """The indices of the lower triangle (at and below diagonal ``offset``) of a
    ``row x col`` matrix: a ``(2, N)`` tensor of row and column indices, row by row.

    Example: ``hookgrad.tril_indices(2, 2)`` is ``tensor([[0, 1, 1], [0, 0, 1]])``.
    """
    return _triangle_indices("tril_indices", row, col, offset, dtype, device, lambda d, k: d <= k)


def triu_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = None,
    layout: Any = None,
) -> Any:
    """The indices of the upper triangle (at and above diagonal ``offset``) of a
    ``row x col`` matrix, as ``tril_indices``.

    Example: ``hookgrad.triu_indices(2, 2)`` is ``tensor([[0, 0, 1], [0, 1, 1]])``.
    """
    return _triangle_indices("triu_indices", row, col, offset, dtype, device, lambda d, k: d >= k)


def empty_strided(
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A tensor of shape ``size`` laid out with ``stride`` (in elements) in memory of its
    own (zero-filled here; torch leaves it uninitialised).

    Example: ``hookgrad.empty_strided((2, 3), (1, 2)).stride() == (1, 2)``.
    """
    check_device(factory_device(device))
    shape = parse_size((size,), "empty_strided")
    strides = tuple(int(s) for s in stride)
    if len(strides) != len(shape):
        raise RuntimeError(
            f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
            f"({len(strides)})"
        )
    if any(s < 0 for s in strides):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(shape)} and "
            f"strides={list(strides)}"
        )
    target = resolve_dtype(dtype).np
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if 0 not in shape else 0
    memory = np.zeros(span, target)
    return new_leaf(as_view(memory, shape, strides), requires_grad)


def empty_permuted(
    size: Any,
    physical_layout: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A tensor of shape ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first), zero-filled.

    Example: ``hookgrad.empty_permuted((2, 3, 4), (0, 2, 1)).stride() == (12, 1, 3)``.
    """
    check_device(factory_device(device))
    shape = parse_size((size,), "empty_permuted")
    order = tuple(int(d) for d in physical_layout)
    if len(order) != len(shape):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(shape)} is not equal to len(physical_layout) = {len(order)}"
        )
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    physical = np.zeros(tuple(shape[d] for d in order), resolve_dtype(dtype).np)
    return new_leaf(np.transpose(physical, np.argsort(order)), requires_grad)


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool | None = None,
) -> Any:
    """``obj`` (a tensor, a NumPy array or scalar, a buffer, nested sequences, a number)
    as a tensor, sharing its memory where it can (``copy=False`` demands it, ``copy=True``
    refuses it). A tensor is returned as it is, or converted with its history kept.

    ``requires_grad`` unspecified follows ``obj`` (with torch's warning when that differs
    from the old default, False); given, it is set on the result, as torch does even on
    ``obj`` itself when that is the result. Example::

        a = numpy.zeros(3)
        hookgrad.asarray(a)[0] = 1.0   # a[0] is now 1.0
    """
    check_device(factory_device(device))
    target = None if dtype is None else dtypes.to_dtype(dtype)
    if _is_tensor(obj):
        out = _tensor_as_array(obj, target, copy)
        if requires_grad is None:
            requires_grad = obj.requires_grad
            if requires_grad:
                warnings.warn(ASARRAY_WARNING, UserWarning, stacklevel=2)
    elif isinstance(obj, (np.ndarray, np.generic)):
        return new_leaf(_array_as_array(np.asarray(obj), target, copy), bool(requires_grad))
    elif isinstance(obj, (bytes, bytearray, memoryview)):
        array = frombuffer(obj, dtype=target or dtypes.get_default_dtype())._data
        return new_leaf(array.copy() if copy else array, bool(requires_grad))
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return new_leaf(to_array(obj, target), bool(requires_grad))
    if bool(requires_grad) != out.requires_grad:
        if out.is_leaf:
            out.requires_grad_(bool(requires_grad))
        else:
            out = out.detach()
    return out


ASARRAY_WARNING = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
    "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
    "warning."
)


def _alias_error(source: Any, target: dtypes.dtype) -> ValueError:
    return ValueError(
        f"can't alias tensor with dtype '{source.type_name[3:-4]}' into dtype "
        f"'{target.type_name[3:-4]}'."
    )


def _tensor_as_array(obj: Any, target: Any, copy: bool | None) -> Any:
    """``asarray`` of a tensor: itself, a copy (``clone``), or cast (``to``)."""
    if target is None or target is obj.dtype:
        return obj.clone() if copy else obj
    if copy is False:
        raise _alias_error(obj.dtype, target)
    return obj.to(target)


def _array_as_array(array: np.ndarray, target: Any, copy: bool | None) -> np.ndarray:
    """``asarray`` of a NumPy array: the array itself where its dtype is kept."""
    own = dtypes.from_numpy_dtype(array.dtype)
    if target is not None and target is not own:
        if copy is False:
            raise _alias_error(own, target)
        return array.astype(target.np)
    if own.np != array.dtype:
        return array.astype(own.np)
    return array.copy() if copy else array


def frombuffer(
    buffer: Any,
    *,
    dtype: Any = None,
    count: int = -1,
    offset: int = 0,
    requires_grad: bool = False,
) -> Any:
    """A 1-dim tensor sharing memory with a Python buffer (``bytearray``, ``array``,
    ``memoryview`` ...): ``count`` elements of ``dtype`` (all by default) from byte
    ``offset``.

    Example: ``hookgrad.frombuffer(bytearray(b"ab"), dtype=hookgrad.uint8)`` is
    ``tensor([97, 98], dtype=torch.uint8)``.
    """
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    target = dtypes.to_dtype(dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, size = view.nbytes, target.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % size:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be "
                f"a multiple of element size ({size})"
            )
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    if view.readonly:
        warnings.warn(FROMBUFFER_WARNING, UserWarning, stacklevel=2)
    array = np.frombuffer(buffer, target.np, count, offset)
    return new_leaf(array, requires_grad)


FROMBUFFER_WARNING = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
    "This means you can write to the underlying (supposedly non-writable) buffer using the "
    "tensor. You may want to copy the buffer to protect its data or make it writable before "
    "converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program."
)


# -- window functions ----------------------------------------------------------------------
def _window(
    name: str, window_length: int, periodic: bool, dtype: Any, device: Any, requires_grad: bool
) -> tuple[Any, int] | Any:
    """The checks and trivial lengths every window shares: the dtype and, for a length of
    0 or 1, the finished window; else the length to compute (one more when ``periodic``,
    whose last value is dropped)."""
    check_device(factory_device(device))
    target = resolve_dtype(dtype)
    if not target.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_OPTION_NAMES.get(target, target.name)}, device=cpu, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"
        )
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    if window_length <= 1:
        return new_leaf(np.ones(window_length, target.np), requires_grad)
    return target, window_length + 1 if periodic else window_length


_OPTION_NAMES = {
    dtypes.float16: "c10::Half",
    dtypes.float32: "float",
    dtypes.float64: "double",
    dtypes.int64: "long int",
    dtypes.int32: "int",
    dtypes.int16: "short int",
    dtypes.int8: "signed char",
    dtypes.uint8: "unsigned char",
    dtypes.bool_: "bool",
    dtypes.complex64: "c10::complex<float>",
    dtypes.complex128: "c10::complex<double>",
}


def _finished(window: np.ndarray, periodic: bool, requires_grad: bool) -> Any:
    return new_leaf(window[:-1] if periodic else window, requires_grad)


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The Hamming window ``alpha - beta cos(2 pi n / (N - 1))`` (``N``: the length, one
    more when ``periodic``, the default, for spectral analysis), computed step by step in
    the dtype as torch's. Example: ``hookgrad.hamming_window(4, periodic=False)``."""
    prepared = _window("hamming_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    target, length = prepared
    kind = target.np.type
    window = np.arange(length, dtype=target.np) * kind(math.pi * 2.0 / (length - 1))
    window = np.cos(window) * kind(-beta) + kind(alpha)
    return _finished(window, periodic, requires_grad)


def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (``hamming_window`` with
    ``alpha = beta = 0.5``). Example: ``hookgrad.hann_window(4)`` is
    ``tensor([0.0000, 0.5000, 1.0000, 0.5000])``."""
    prepared = _window("hann_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    return hamming_window(
        window_length, periodic, 0.5, 0.5, dtype=dtype, requires_grad=requires_grad
    )


def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    Example: ``hookgrad.blackman_window(5, periodic=False)``.
    """
    prepared = _window("blackman_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    target, length = prepared
    kind = target.np.type
    window = np.arange(length, dtype=target.np) * kind(math.pi / (length - 1))
    four = np.cos(window * kind(4)) * kind(0.08)
    two = np.cos(window * kind(2)) * kind(0.5)
    return _finished(four - two + kind(0.42), periodic, requires_grad)


def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The Bartlett (triangular) window: rising from 0 to 1 and back.

    Example: ``hookgrad.bartlett_window(5, periodic=False)`` is
    ``tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])``.
    """
    prepared = _window("bartlett_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    target, length = prepared
    kind = target.np.type
    window = np.arange(length, dtype=target.np) * kind(2.0 / (length - 1))
    half = ((length - 1) >> 1) + 1
    window[half:] = window[half:] * kind(-1) + kind(2)
    return _finished(window, periodic, requires_grad)


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """The Kaiser window ``I0(beta sqrt(1 - ((n - a) / a) ** 2)) / I0(beta)`` with
    ``a = (N - 1) / 2`` and ``I0`` the modified Bessel function of order 0.

    Example: ``hookgrad.kaiser_window(4, periodic=False, beta=5.0)``.
    """
    prepared = _window("kaiser_window", window_length, periodic, dtype, device, requires_grad)
    if not isinstance(prepared, tuple):
        return prepared
    target, length = prepared
    alpha = (length - 1) / 2.0
    ratio = (np.arange(length, dtype=np.float64) - alpha) / alpha
    window = np.i0(beta * np.sqrt(np.abs(1 - ratio**2))) / np.i0(beta)
    return _finished(window.astype(target.np), periodic, requires_grad)


def tensor_new(self: Tensor, *args: Any, device: Any = None) -> Any:
    """``Tensor.new(*args)``: torch's legacy constructor with ``self``'s dtype. Sizes
    give a new tensor of that shape (zero-filled here), data a new tensor of it, and a
    tensor of ``self``'s dtype an alias of it. Example::

        hookgrad.tensor([1, 2]).new(2, 3).dtype    # hookgrad.int64
    """
    check_legacy_device(device)
    if len(args) == 1 and _is_tensor(args[0]):
        other = args[0]
        if other.dtype is not self.dtype:
            raise TypeError(f"expected {_options(self.dtype)} (got {_options(other.dtype)})")
        return other._apply_op(shape_ops.Alias())
    return new_leaf(legacy_array(args, self.dtype))


def _options(dtype: dtypes.dtype) -> str:
    """torch's ``TensorOptions`` text for a CPU tensor of ``dtype``."""
    return (
        f"TensorOptions(dtype={_OPTION_NAMES.get(dtype, dtype.name)}, device=cpu, "
        "layout=Strided, requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


def new_empty_strided(
    self: Tensor,
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Any:
    """``empty_strided`` with ``self``'s dtype unless ``dtype`` is given."""
    return empty_strided(
        size, stride, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad
    )


# NOTE: this defines the module's global ``range`` as torch's function: no code of this
# module may call the builtin ``range`` by that name.
def range(  # noqa: A001 (torch's name)
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Any:
    """Deprecated (as in torch, with its warning): ``start`` to ``end`` *included*, by
    ``step``, in the default float dtype unless ``dtype`` is given. Use ``arange``.

    Example: ``hookgrad.range(0, 2)`` is ``tensor([0., 1., 2.])``.
    """
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn(RANGE_WARNING, UserWarning, stacklevel=2)
    check_device(factory_device(device))
    start, end, step = _number(start), _number(end), _number(step)
    target = resolve_dtype(dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    values = start + step * np.arange(count, dtype=np.float64)
    return new_leaf(values.astype(target.np), requires_grad)


RANGE_WARNING = (
    "torch.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
    "values in [start, end)."
)
