"""Tensor creation: ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``, ``ones``,
``full``, ``empty_strided``, ``eye``, ``*_like``; and the helpers the other factories
share (``new_leaf``, ``parse_size``, ``resolve_dtype``). Ranges (``arange``,
``linspace``, ``logspace``, ``tril_indices`` ...) are in ``ranges.py``, the window
functions in ``window_functions.py``, the reading of nested Python data in
``nested_data.py`` and the legacy constructors' parsing (``Tensor(2, 3)``,
``FloatTensor([1, 2])``, ``Tensor.new``) in ``legacy_construction.py``; ``asarray`` and
``frombuffer``, which share existing memory, in ``sharing.py``.

Every function here makes a new leaf tensor; dtypes are inferred as torch infers them
(Python bools, ints, floats and complex numbers give bool, int64, the default float and
the default complex dtype; NumPy arrays and scalars keep their own dtype). A factory
function given no ``device`` makes its tensor on the default device
(``set_default_device``), and fails as a CPU-only torch does unless that is the CPU.

Example: ``hookgrad.zeros(2, 3, dtype=hookgrad.float64).shape`` is ``(2, 3)``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops.strides import as_view
from hookgrad.tensor import dtypes
from hookgrad.tensor.device import check_device, factory_device
from hookgrad.tensor.dispatch import wrap_constant, write_inplace
from hookgrad.tensor.layout import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
)
from hookgrad.tensor.nested_data import to_array
from hookgrad.tensor.tensor import Tensor

COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor)."
)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


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


# -- torch's factory options: out, layout, pin_memory, memory_format ------------------------
PIN_MEMORY_ERROR = (
    "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator "
    "is available on this system."
)


def check_options(name: str, layout: Any = None, pin_memory: Any = False) -> None:
    """torch's checks of a factory's ``layout`` (``strided``, hookgrad's only layout, or
    None) and ``pin_memory`` (a CPU-only torch has no pinned memory: True fails)."""
    if layout is not None and not isinstance(layout, _LAYOUT):
        raise TypeError(
            f"{name}(): argument 'layout' must be torch.layout, not {type(layout).__name__}"
        )
    if pin_memory is not None and not isinstance(pin_memory, bool):
        raise TypeError(
            f"{name}(): argument 'pin_memory' must be bool, not {type(pin_memory).__name__}"
        )
    if pin_memory:
        raise RuntimeError(PIN_MEMORY_ERROR)


_LAYOUT = layout


def out_dtype(name: str, dtype: Any, out: Any) -> Any:
    """The dtype a factory computes in: ``dtype``, or the dtype of ``out`` when one is given
    (``dtype``, if given too, must be the same). torch refuses an ``out`` that requires
    grad while grad mode is on, before anything is computed or drawn."""
    if out is None:
        return dtype
    if not _is_tensor(out):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if out.requires_grad and grad_mode.is_grad_enabled():
        # NOTE: torch's ``empty`` and ``randn`` resize ``out`` before autograd sees it
        if name in ("empty", "randn"):
            raise RuntimeError("cannot resize variables that require grad")
        raise RuntimeError(
            f"aten::{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    if dtype is not None and dtypes.to_dtype(dtype) is not out.dtype:
        raise RuntimeError(
            f"dtype {dtypes.legacy_name(dtypes.to_dtype(dtype))} does not match dtype of out "
            f"parameter ({dtypes.legacy_name(out.dtype)})"
        )
    return out.dtype


def out_like(shape: tuple[int, ...], np_dtype: Any, out: Any) -> np.ndarray:
    """The array a random factory fills: ``out``'s own memory when it has ``shape`` (torch
    draws in the order of its memory), else a new one."""
    if out is not None and out._data.shape == shape:
        return out._data
    return np.empty(shape, np_dtype)


def leaf_or_out(
    array: np.ndarray,
    out: Any,
    requires_grad: bool,
    *,
    write: bool = True,
    resize_counts: bool = False,
) -> Any:
    """``array`` as a new leaf, or written into ``out`` (first resized to its shape if it
    has another, as torch's factories resize it) and ``out`` returned. ``write=False``:
    the values are any values (``empty``), ``out`` keeps its own; ``resize_counts``:
    resizing bumps ``out``'s version too, as in torch's kernels that resize through the
    dispatcher (``empty``, ``randn``).

    Example: ``hookgrad.zeros(2, out=t)`` returns ``t``, now ``tensor([0., 0.])``.
    """
    if out is None:
        return new_leaf(array, requires_grad)
    if out._data.shape != array.shape:
        out._data = np.empty(array.shape, out._data.dtype)
        if resize_counts:
            out._bump_version()
    if write:
        write_inplace(out, array)
    if out.requires_grad != requires_grad:  # as torch's: even off, on a leaf that had it
        out.requires_grad_(requires_grad)
    return out


# The order of a channels-last format's dims in memory, outermost first, by rank.
_PHYSICAL_ORDER = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}


def check_memory_format(name: str, value: Any) -> None:
    if not isinstance(value, memory_format):
        raise TypeError(
            f"{name}(): argument 'memory_format' must be torch.memory_format, not "
            f"{type(value).__name__}"
        )


def formatted_empty(shape: tuple[int, ...], np_dtype: Any, format: Any) -> np.ndarray:
    """An uninitialised array of ``shape`` laid out in ``format``: C order
    (``contiguous_format``) or a channels-last order (its rank checked as torch's)."""
    if format is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    order = _PHYSICAL_ORDER.get(format)
    if order is None:
        return np.empty(shape, np_dtype)
    if len(shape) != len(order):
        name = "channels_last" if format is channels_last else "channels_last_3d"
        raise RuntimeError(f"required rank {len(order)} tensor to use {name} format")
    physical = np.empty([shape[d] for d in order], np_dtype)
    return physical.transpose(np.argsort(order))


def like_array(name: str, input: Any, np_dtype: Any, format: Any) -> np.ndarray:
    """An uninitialised array for ``name``'s result (``zeros_like`` ...): ``input``'s
    shape, laid out in ``format``; ``preserve_format`` (the default, None) keeps the order
    of ``input``'s dims in memory, as torch's ``empty_like``."""
    format = preserve_format if format is None else format
    check_memory_format(name, format)
    data = input._data
    if format is not preserve_format:
        return formatted_empty(data.shape, np_dtype, format)
    if data.flags.c_contiguous or data.ndim < 2:
        return np.empty(data.shape, np_dtype)
    order = sorted(range(data.ndim), key=lambda axis: -abs(data.strides[axis]))
    return np.empty([data.shape[axis] for axis in order], np_dtype).transpose(np.argsort(order))


def filled_like(array: np.ndarray, value: Any) -> np.ndarray:
    """``array`` (see ``like_array``) with every element ``value``."""
    array[...] = value
    return array


def parse_size(size: tuple[Any, ...], name: str) -> tuple[int, ...]:
    """The shape given to ``name`` as varargs (``zeros(2, 3)``) or one sequence
    (``zeros((2, 3))``), checked as torch checks it."""
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if len(size) > 1 and isinstance(size[0], (tuple, list)):
        raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    elif len(size) == 1 and not is_index(size[0]):
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
        if not is_index(s):
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


def is_index(value: Any) -> bool:
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
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )


def type_name(value: Any) -> str:
    """The qualified name of ``value``'s type in torch's argument errors (builtins bare)."""
    module = type(value).__module__
    name = type(value).__qualname__
    return name if module == "builtins" else f"{module}.{name}"


def number_value(value: Any) -> Any:
    """A Python number from a number, a NumPy scalar or a one-element tensor."""
    if _is_tensor(value) or isinstance(value, np.generic):
        return value.item()
    return value


# The C++ type names of torch's ``TensorOptions`` messages.
OPTION_DTYPE_NAMES = {
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


# -- from data -----------------------------------------------------------------------------
def tensor(
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A new leaf tensor holding a copy of ``data`` (numbers, nested lists or tuples,
    NumPy arrays, tensors); ``pin_memory=True`` fails, as in a CPU-only torch.

    Example::

        hookgrad.tensor([[1, 2], [3, 4]])                     # int64
        hookgrad.tensor([1.0, 2.0], requires_grad=True)       # float32, a leaf
    """
    if not isinstance(pin_memory, bool):
        raise TypeError(
            f"tensor(): argument 'pin_memory' must be bool, not {type(pin_memory).__name__}"
        )
    check_options("tensor", None, pin_memory)
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
        raise TypeError(f"expected np.ndarray (got {type_name(array)})")
    target = dtypes.from_numpy_dtype(array.dtype)
    return wrap_constant(array if array.dtype == target.np else array.astype(target.np))


def is_tensor(obj: Any) -> bool:
    """True if ``obj`` is a hookgrad Tensor."""
    return _is_tensor(obj)


# -- filled with a constant ----------------------------------------------------------------
def zeros(
    *args: Any,
    size: Any = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A tensor of zeros; ``size`` as varargs or one tuple: ``zeros(2, 3)``, ``zeros((2, 3))``.

    As every factory: ``out`` receives the values (and gives the dtype), ``layout`` may
    only be ``strided``, and ``pin_memory=True`` fails without an accelerator.
    """
    check_options("zeros", layout, pin_memory)
    array = constant_array(
        np.zeros, "zeros", size_args(args, size), dtype, factory_device(device), out
    )
    return leaf_or_out(array, out, requires_grad)


def ones(
    *args: Any,
    size: Any = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A tensor of ones; ``size`` as varargs or one tuple: ``ones(2, 3)``. The options as
    for :func:`zeros`."""
    check_options("ones", layout, pin_memory)
    array = constant_array(
        np.ones, "ones", size_args(args, size), dtype, factory_device(device), out
    )
    return leaf_or_out(array, out, requires_grad)


def empty(
    *args: Any,
    size: Any = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = contiguous_format,
) -> Any:
    """A tensor of shape ``size`` whose values are uninitialised (any values), laid out
    in ``memory_format`` (``contiguous_format``, or ``channels_last`` for a 4-d shape).
    The other options as for :func:`zeros`.

    Example: ``hookgrad.empty(1, 3, 2, 2, memory_format=hookgrad.channels_last).stride()``
    is ``(12, 1, 6, 3)``.
    """
    check_options("empty", layout, pin_memory)
    check_memory_format("empty", memory_format)

    def make(shape: tuple[int, ...], np_dtype: Any) -> np.ndarray:
        return formatted_empty(shape, np_dtype, memory_format)

    device = factory_device(device)
    array = constant_array(make, "empty", size_args(args, size), dtype, device, out)
    return leaf_or_out(array, out, requires_grad, write=False, resize_counts=True)


def constant_tensor(
    make: Any, name: str, size: tuple[Any, ...], dtype: Any, device: Any, requires_grad: bool
) -> Any:
    """``make(shape, np_dtype)`` (``np.zeros``, ...) as a leaf; ``name`` is the public
    function (``new_zeros`` ...), for error messages."""
    return new_leaf(constant_array(make, name, size, dtype, device, None), requires_grad)


def constant_array(
    make: Any, name: str, size: tuple[Any, ...], dtype: Any, device: Any, out: Any
) -> np.ndarray:
    """``make(shape, np_dtype)`` (``np.zeros``, ...) after the checks of the public
    function ``name`` (``device`` already resolved); the dtype is ``out``'s when ``out``
    is given."""
    check_device(device)
    shape = parse_size(size, name)
    return make(shape, resolve_dtype(out_dtype(name, dtype, out)).np)


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
    value = number_value(fill_value)
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
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A tensor of shape ``size`` (a tuple) filled with ``fill_value``; the dtype is
    inferred from ``fill_value`` (``full((2,), 7)`` is int64) unless given (or ``out``'s).
    The options as for :func:`zeros`."""
    check_options("full", layout, pin_memory)
    check_device(factory_device(device))
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    target = _fill_dtype(fill_value, "full")
    dtype = out_dtype("full", dtype, out)
    if dtype is not None:
        target = dtypes.to_dtype(dtype)
    array = _filled(parse_size((size,), "full"), fill_value, target)
    return leaf_or_out(array, out, requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """An ``n x m`` matrix (``m`` defaults to ``n``) with ones on the diagonal. The options
    as for :func:`zeros`. Example: ``hookgrad.eye(2)`` is ``tensor([[1., 0.], [0., 1.]])``."""
    check_options("eye", layout, pin_memory)
    check_device(factory_device(device))
    dtype = out_dtype("eye", dtype, out)
    m = n if m is None else m
    for name, value in (("n", n), ("m", m)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    array = np.eye(int(n), int(m), dtype=resolve_dtype(dtype).np)
    return leaf_or_out(array, out, requires_grad)


# -- *_like --------------------------------------------------------------------------------
def like_dtype(input: Any, dtype: Any) -> np.dtype:
    """The NumPy dtype of a ``*_like`` result: ``dtype`` if given, else ``input``'s."""
    return input._data.dtype if dtype is None else dtypes.to_dtype(dtype).np


def zeros_like(
    input: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = preserve_format,
) -> Any:
    """Zeros with the shape (and, unless given, the dtype) of ``input``."""
    _check_tensor_input(input, "zeros_like")
    check_options("zeros_like", layout, pin_memory)
    check_device(device)
    array = like_array("zeros_like", input, like_dtype(input, dtype), memory_format)
    return new_leaf(filled_like(array, 0), requires_grad)


def ones_like(
    input: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = preserve_format,
) -> Any:
    """Ones with the shape (and, unless given, the dtype) of ``input``."""
    _check_tensor_input(input, "ones_like")
    check_options("ones_like", layout, pin_memory)
    check_device(device)
    array = like_array("ones_like", input, like_dtype(input, dtype), memory_format)
    return new_leaf(filled_like(array, 1), requires_grad)


def empty_like(
    input: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = preserve_format,
) -> Any:
    """An uninitialised tensor with the shape (and, unless given, the dtype) of ``input``."""
    _check_tensor_input(input, "empty_like")
    check_options("empty_like", layout, pin_memory)
    check_device(device)
    array = like_array("empty_like", input, like_dtype(input, dtype), memory_format)
    return new_leaf(array, requires_grad)


def full_like(
    input: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = preserve_format,
) -> Any:
    """``fill_value`` everywhere, with the shape (and, unless given, the dtype) of
    ``input``, laid out in ``memory_format`` (by default as ``input``).

    Example: ``hookgrad.full_like(hookgrad.ones(2), 7)`` is ``tensor([7., 7.])``.
    """
    _check_tensor_input(input, "full_like")
    check_options("full_like", layout, pin_memory)
    check_device(device)
    _fill_dtype(fill_value, "full_like")
    target = dtypes.from_numpy_dtype(like_dtype(input, dtype))
    array = like_array("full_like", input, target.np, memory_format)
    return new_leaf(filled_like(array, _filled((), fill_value, target)), requires_grad)


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
    s: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A 0-dim tensor holding the number ``s``, of the default float dtype unless
    ``dtype`` is given (an int gives a float tensor, unlike ``tensor``).

    Example: ``hookgrad.scalar_tensor(3)`` is ``tensor(3.)``.
    """
    check_options("scalar_tensor", layout, pin_memory)
    check_device(factory_device(device))
    value = number_value(s)
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(
            f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}"
        )
    return new_leaf(_filled((), value, resolve_dtype(dtype)), requires_grad)


def empty_strided(
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A tensor of shape ``size`` laid out with ``stride`` (in elements) in memory of its
    own (zero-filled here; torch leaves it uninitialised).

    Example: ``hookgrad.empty_strided((2, 3), (1, 2)).stride() == (1, 2)``.
    """
    check_options("empty_strided", layout, pin_memory)
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
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Any:
    """A tensor of shape ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first), zero-filled.

    Example: ``hookgrad.empty_permuted((2, 3, 4), (0, 2, 1)).stride() == (12, 1, 3)``.
    """
    check_options("empty_permuted", layout, pin_memory)
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
