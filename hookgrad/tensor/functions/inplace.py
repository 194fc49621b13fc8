"""In-place functions (``add_``, ``mul_``, ``zero_``, ``copy_``, ``x[i] = v``, ``+=`` ...)
and their Tensor methods.

An in-place op writes its result into the tensor's memory (its views see it), bumps the
version counter (also under ``no_grad``) and, when autograd tracks it, rewrites the
graph: the tensor's ``grad_fn`` becomes the node torch records for the op (``mul_``
records ``MulBackward0``, ``copy_`` ``CopyBackwards``), or, for a view, its base's
becomes ``CopySlices`` (see ``hookgrad.tensor.views``). Hooks registered on the tensor
before stay with its old ``grad_fn``.

Most methods run the out-of-place function on a stand-in for the tensor's old value and
copy the result in. When that function's node saves ``self``, the stand-in is a copy,
recorded as torch's "original self" (``self.clone()``, a ``CloneBackward0``). The nodes
that save their result (``exp_``, ``sigmoid_`` ...) run through ``dispatch.apply_inplace``
instead, so that the saved result *is* the tensor: changing it in place again is then
detected at backward time, as in torch (on a view, the result unpacks as an output of
the view's regenerated ``grad_fn``).
Without anything to record, ``add_``/``sub_``/``mul_``/``div_`` update the memory with
NumPy directly (optimizer steps).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.graph import history, saved
from hookgrad.ops import arithmetic as arithmetic_ops
from hookgrad.ops import conversion as conversion_ops
from hookgrad.ops import inplace as ops
from hookgrad.ops import table
from hookgrad.ops import unary as unary_ops
from hookgrad.ops.indexing import Key
from hookgrad.ops.not_implemented import InplaceWithoutDerivative
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import (
    apply_inplace,
    broadcast_shapes,
    record,
    wrap_constant,
    write_inplace,
)
from hookgrad.tensor.functions.arithmetic import (
    add,
    div,
    floor_divide_arrays,
    mul,
    neg,
    pow,
    remainder,
    sub,
)
from hookgrad.tensor.functions.index_functions import index_add
from hookgrad.tensor.functions.index_parsing import is_full_slice, parse_index
from hookgrad.tensor.functions.indexing import index_put, masked_fill, scatter, scatter_add
from hookgrad.tensor.functions.unary import abs, clamp, clamp_max, clamp_min
from hookgrad.tensor.promotion import binary_arrays, is_scalar
from hookgrad.tensor.tensor import Tensor
from hookgrad.tensor.views import check_inplace, rebase_inplace

__all__ = [
    "abs_",
    "clamp_",
    "clamp_max_",
    "clamp_min_",
    "clip_",
    "fill_",
    "index_put_",
    "neg_",
    "negative_",
    "relu_",
    "zero_",
]

_state = grad_mode._state


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


# ---------------------------------------------------------------- the two ways to run one


def prepare_inplace(input: Any, others: tuple[Any, ...], overlap: bool = True) -> bool:
    """torch's checks before changing ``input`` in place with operands ``others``; returns
    whether autograd tracks the change (an operand requires grad, grad mode is on).
    ``overlap=False``: the op reads its operands before writing (no overlap check)."""
    requires_grad = input.requires_grad
    for other in others:
        if _is_tensor(other):
            requires_grad = requires_grad or other.requires_grad
            if overlap:
                _check_overlap(input._data, other._data)
    check_inplace(input, requires_grad)
    return requires_grad and _state.grad_enabled


def _check_overlap(target: np.ndarray, source: np.ndarray) -> None:
    """torch refuses an operand that partly overlaps the memory written (the same memory
    in the same layout is fine); as torch, only dense layouts are compared."""
    if not np.may_share_memory(target, source) or not (_dense(target) and _dense(source)):
        return
    start, other = target.__array_interface__["data"][0], source.__array_interface__["data"][0]
    end, other_end = start + target.nbytes, other + source.nbytes
    if (start, end) == (other, other_end):
        if target.strides == source.strides:
            return
    elif not (start < other_end and other < end):
        return
    raise RuntimeError(
        "unsupported operation: some elements of the input tensor and the written-to tensor "
        "refer to a single memory location. Please clone() the tensor before performing the "
        "operation."
    )


def _dense(array: np.ndarray) -> bool:
    """Whether the elements fill their memory without gaps or overlaps (any dim order)."""
    expected = array.itemsize
    for stride, size in sorted(zip(array.strides, array.shape)):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def old_value_stand_in(input: Any, copy: bool) -> Any:
    """A tensor for the old value of ``input``: same gradient edge, same memory (and
    version counter) or, with ``copy``, a copy of the values (a node may save it)."""
    source = Tensor._make(input._data.copy() if copy else input._data)
    return history.stand_in(source, input, share_memory=not copy)


def _as_original(source: Any) -> None:
    """Make ``source``, the copy of an in-place op's old value (its node has recorded its
    edge and saved it), torch's "original self": ``self.clone()``, a ``CloneBackward0``
    on the old history, which a create_graph backward through the saved value reaches."""
    if source._grad_fn is not None:
        node = conversion_ops.Clone()
        record(node, (source,), source)
        history.set_history(source, node)


def _before_write(input: Any, others: tuple[Any, ...]) -> tuple[Any, ...]:
    """``others`` with each view sharing ``input``'s memory (``v.copy_(v)``) replaced by a
    stand-in: as in torch, the node records the edge it has before the write (after it,
    reading its grad_fn would regenerate it)."""
    counter = input._version_counter
    if counter is None:
        return others
    return tuple(
        old_value_stand_in(x, False)
        if _is_tensor(x) and x._base is not None and x._version_counter is counter
        else x
        for x in others
    )


def run_inplace(
    input: Any, function: Callable[..., Any], others: tuple[Any, ...] = (), copy: bool = False
) -> Any:
    """``input`` updated to ``function(input, *others)``, an out-of-place function.

    ``copy``: the function's node saves ``self``, so it gets a copy of the old value.
    """
    if not prepare_inplace(input, others):
        write_inplace(input, function(input, *others)._data)
        return input
    source = old_value_stand_in(input, copy)
    out = function(source, *others)
    write_inplace(input, out._data)
    if out.grad_fn is not None:
        if copy:
            _as_original(source)
        rebase_inplace(input, out.grad_fn)
    return input


def run_inplace_op(
    input: Any,
    op: Any,
    others: tuple[Any, ...] = (),
    arrays: tuple[Any, ...] | None = None,
    copy: bool = False,
    overlap: bool = True,
) -> Any:
    """``input`` updated to the result of ``op`` on ``(input, *others)`` (their arrays,
    unless ``arrays`` are given), written before the node records its saved result.
    ``overlap=False``: an operand may share ``input``'s memory (see ``prepare_inplace``)."""
    tracked = prepare_inplace(input, others, overlap)
    if arrays is None:
        arrays = (input._data, *(x._data if _is_tensor(x) else x for x in others))
    source = input
    if tracked:
        source = old_value_stand_in(input, copy)
        others = _before_write(input, others)
    out = apply_inplace(op, input, (source, *others), arrays)
    if tracked and out.grad_fn is not None:
        if copy:
            _as_original(source)
        rebase_inplace(input, out.grad_fn)
        if input._base is not None:
            saved.reattach_outputs(out.grad_fn, input._grad_fn)
    return input


_EXPANDED_WARNING = (
    "Use of {} on expanded tensors is deprecated. Please clone() the tensor before performing "
    "this operation. This also applies to advanced indexing e.g. {}"
)
INDEX_PUT_EXPANDED = _EXPANDED_WARNING.format("index_put_", "tensor[indices] = tensor")
MASKED_FILL_EXPANDED = _EXPANDED_WARNING.format("masked_fill_", "tensor[mask] = scalar")


def _inplace_expanded(
    input: Any,
    function: Callable[..., Any],
    others: tuple[Any, ...],
    write: Callable[[np.ndarray], None],
    messages: tuple[str, ...],
) -> Any:
    """``run_inplace`` for an ``input`` whose elements share memory (an expanded tensor), as
    torch's ``index_put_`` and ``masked_fill_`` allow it: with deprecation warnings
    (``messages``), ``write`` changes only the elements the op selects, through the
    shared memory (the last value written to a place stays). ``function`` gives the
    graph and the checks, as in ``run_inplace``."""
    tracked = prepare_inplace(input, others)
    for message in messages:
        warnings.warn(message, UserWarning, stacklevel=3)
    out = function(old_value_stand_in(input, False) if tracked else input, *others)
    data = input._data
    if out._data.shape != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast shape "
            f"{list(out._data.shape)}"
        )
    write(data)
    input._bump_version()
    if tracked and out.grad_fn is not None:
        rebase_inplace(input, out.grad_fn)
    return input


def untracked(input: Any) -> bool:
    """Whether ``input`` may be changed in place by NumPy directly: writable, and nothing
    for autograd to record or refuse (the caller checks the other operand)."""
    if input._is_inference and not _state.inference:
        return False
    return input._data.flags.writeable and not (input.requires_grad and _state.grad_enabled)


def update_directly(input: Any, ufunc: Any, other: Any, alpha: Any = 1) -> bool:
    """``input = ufunc(input, alpha * other)`` done by NumPy in ``input``'s memory, when
    there is nothing for autograd to record and the dtypes are simple (float ``input``,
    float tensor or Python number ``other``). False: the caller takes the general path."""
    data = input._data
    if data.dtype.kind not in "fc" or not untracked(input) or ops.has_internal_overlap(data):
        return False
    if _is_tensor(other):
        if other._data.dtype.kind not in "fc" or (other.requires_grad and _state.grad_enabled):
            return False
        other = other._data
        _check_overlap(data, other)
    elif type(other) is not int and type(other) is not float:
        return False
    if alpha != 1:
        other = other * alpha
    try:
        with np.errstate(all="ignore"):
            ufunc(data, other, out=data, casting="same_kind")
    except (TypeError, ValueError):  # a cast torch refuses, or shapes: let it say so
        return False
    input._bump_version()
    return True


# ---------------------------------------------------------------- arithmetic


def add_(input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``input += alpha * other`` in place; returns ``input``."""
    if update_directly(input, np.add, other, alpha):
        return input
    return run_inplace(input, lambda x, y: add(x, y, alpha=alpha), (other,))


def sub_(input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``input -= alpha * other`` in place; returns ``input``."""
    if update_directly(input, np.subtract, other, alpha):
        return input
    return run_inplace(input, lambda x, y: sub(x, y, alpha=alpha), (other,))


def mul_(input: Any, other: Any) -> Any:
    """``input *= other`` in place; returns ``input``."""
    if update_directly(input, np.multiply, other):
        return input
    return run_inplace(input, mul, (other,), copy=True)


def div_(input: Any, other: Any, *, rounding_mode: str | None = None) -> Any:
    """``input /= other`` in place (``rounding_mode`` as in ``div``); returns ``input``."""
    if rounding_mode is None and update_directly(input, np.true_divide, other):
        return input
    return run_inplace(input, lambda x, y: div(x, y, rounding_mode=rounding_mode), (other,), True)


def floor_divide_(input: Any, other: Any) -> Any:
    """``input //= other`` in place (torch records its ``NotImplemented`` node, for
    ``aten::floor_divide_``)."""
    arrays = floor_divide_arrays(input, other)
    op = arithmetic_ops.FloorDivide("floor_divide_").edges_for((input, other))
    return run_inplace_op(input, op, (other,), arrays)


def remainder_(input: Any, other: Any) -> Any:
    """``input %= other`` in place."""
    return run_inplace(input, remainder, (other,), copy=True)


def pow_(input: Any, exponent: Any) -> Any:
    """``input **= exponent`` in place (a number or a tensor exponent)."""
    if is_scalar(exponent):
        return run_inplace(input, pow, (exponent,), copy=True)
    return run_inplace_op(
        input, arithmetic_ops.Pow(), (exponent,), binary_arrays(input, exponent), copy=True
    )


def neg_(input: Any) -> Any:
    """``input = -input`` in place."""
    return run_inplace(input, neg)


# ---------------------------------------------------------------- elementwise functions


def inplace_variant(cls: Any) -> Callable[..., Any]:
    """The in-place variant of a one-tensor table entry (``exp_`` of ``exp``).

    An entry computing in float (``promotion="float"``) refuses an integer tensor, which
    cannot take its float result (torch's error). When the node saves ``self``, it saves
    a copy of the old value (torch's "original self"); a saved result is the tensor.
    The entries whose in-place variant torch does not differentiate (``acosh_`` ...)
    record torch's node for that (``AcoshBackward1``), which saves nothing.
    """
    name = f"{cls.signature.name}_"
    to_float = cls.promotion == "float"
    underivable = cls in _NO_INPLACE_DERIVATIVE
    copy = "self" in cls.saves and not underivable

    def function(input: Any, *args: Any, **kwargs: Any) -> Any:
        data = input._data
        if to_float and data.dtype.kind not in "fc":
            data = data.astype(dtypes.get_default_dtype().np)
        op = cls(*args, **kwargs)
        if underivable:
            op = InplaceWithoutDerivative(op, cls.signature.name)
        return run_inplace_op(input, op, (), (data,), copy=copy)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input = {cls.signature.name}(input)`` in place; returns ``input``."
    return function


# The entries whose in-place variant has no derivative in torch's derivatives.yaml.
_NO_INPLACE_DERIVATIVE = (unary_ops.Acosh, unary_ops.Asinh, unary_ops.Atanh)
# The in-place variants of the table's public entries, by name (``exp_``, ``arcsin_``).
TABLE_INPLACE = {
    f"{name}_": inplace_variant(cls)
    for cls in table.public_entries()
    for name in (cls.signature.name, *cls.aliases)
}
__all__ += sorted(TABLE_INPLACE)
globals().update(TABLE_INPLACE)


def relu_(input: Any) -> Any:
    """``input = max(input, 0)`` in place (as ``nn.ReLU(inplace=True)``)."""
    kind = input._data.dtype.kind
    if kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    if kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    return run_inplace_op(input, unary_ops.Relu())


def abs_(input: Any) -> Any:
    """``input = |input|`` in place."""
    return run_inplace(input, abs, copy=True)


def clamp_(input: Any, min: Any = None, max: Any = None) -> Any:
    """``input`` clamped to ``[min, max]`` in place (see ``clamp``)."""
    return run_inplace(input, clamp, (min, max), copy=True)


def clamp_min_(input: Any, min: Any) -> Any:
    """``input = max(input, min)`` in place."""
    return run_inplace(input, clamp_min, (min,), copy=True)


def clamp_max_(input: Any, max: Any) -> Any:
    """``input = min(input, max)`` in place."""
    return run_inplace(input, clamp_max, (max,), copy=True)


# ---------------------------------------------------------------- overwriting


def zero_(input: Any) -> Any:
    """Set every element to 0; returns ``input``."""
    if untracked(input):
        input._data.fill(0)
        input._bump_version()
        return input
    return run_inplace_op(input, ops.Zero())


def fill_(input: Any, value: Any) -> Any:
    """Set every element to ``value`` (a number, or a 0-dim tensor that then gets the
    gradient of all of them)."""
    if not _is_tensor(value):
        value = dtypes.checked_scalar(value, input.dtype)
        if type(value) in (int, float, bool) and untracked(input):
            input._data.fill(value)
            input._bump_version()
            return input
        return run_inplace_op(input, ops.Fill(value))
    if value._data.ndim:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value._data.ndim} dimensions."
        )
    # NOTE: torch's fill_ clones a value that is a view of ``input`` (``x.fill_(x[1])``),
    # so no overlap is refused.
    return run_inplace_op(input, ops.FillTensor(), (value,), overlap=False)


def copy_(input: Any, src: Any, non_blocking: bool = False) -> Any:
    """Copy the values of ``src`` (a tensor broadcast to ``input``'s shape, or a number;
    cast to ``input``'s dtype) into ``input``; ``src`` gets the gradient. Example:
    ``x.copy_(y)``."""
    if not _is_tensor(src):
        if not isinstance(src, _NUMBERS):
            raise TypeError(
                f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
            )
        src = wrap_constant(np.asarray(src))
    shape = input._data.shape
    target = broadcast_shapes(shape, src._data.shape)
    if target != shape:
        raise RuntimeError(
            f"output with shape {list(shape)} doesn't match the broadcast shape {list(target)}"
        )
    if src._data.dtype.kind == "c" and input._data.dtype.kind != "c":
        warnings.warn(
            "Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2
        )
    return run_inplace_op(input, ops.Copy(), (src,))


# ---------------------------------------------------------------- indexing


def masked_fill_(input: Any, mask: Any, value: Any) -> Any:
    """Set ``value`` where the bool ``mask`` (broadcast) is true."""
    if ops.has_internal_overlap(input._data):

        def write(data: np.ndarray) -> None:
            fill = value._data if _is_tensor(value) else value
            np.copyto(data, fill, casting="unsafe", where=np.broadcast_to(mask._data, data.shape))

        messages = (MASKED_FILL_EXPANDED,)
        return _inplace_expanded(input, masked_fill, (mask, value), write, messages)
    return run_inplace(input, masked_fill, (mask, value))


def index_add_(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Any:
    """Add ``alpha * source`` at the positions ``index`` picks along ``dim``."""
    return run_inplace(input, lambda x, i, s: index_add(x, dim, i, s, alpha=alpha), (index, source))


def scatter_(input: Any, dim: int, index: Any, src: Any = None, *, value: Any = None) -> Any:
    """Write ``src`` (a tensor or a number) where ``index`` points (see ``scatter``)."""
    return run_inplace(input, lambda x, i, s: scatter(x, dim, i, s, value=value), (index, src))


def scatter_add_(input: Any, dim: int, index: Any, src: Any) -> Any:
    """Add ``src`` where ``index`` points (see ``scatter_add``)."""
    return run_inplace(input, lambda x, i, s: scatter_add(x, dim, i, s), (index, src))


def index_put_(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    """Write (or with ``accumulate`` add) ``values`` at ``input[indices]``."""

    def put(x: Any, v: Any) -> Any:
        return index_put(x, indices, v, accumulate)

    if ops.has_internal_overlap(input._data):
        key = parse_index(tuple(indices), input._data.shape)

        def write(data: np.ndarray) -> None:
            key.put_into(data, values._data, bool(accumulate))

        messages = _index_put_messages(indices, values, accumulate)
        return _inplace_expanded(input, put, (values,), write, messages)
    return run_inplace(input, put, (values,))


def _index_put_messages(indices: Any, values: Any, accumulate: bool) -> tuple[str, ...]:
    """torch's warnings for ``index_put_`` into an expanded tensor: its own, then
    ``masked_fill_``'s when it runs as one (one bool index, one value, no accumulate)."""
    arrays = [np.asarray(item._data if _is_tensor(item) else item) for item in indices]
    arrays = [array for array in arrays if array.dtype != object]
    if accumulate or values._data.size != 1 or len(arrays) != 1 or arrays[0].dtype != np.bool_:
        return (INDEX_PUT_EXPANDED,)
    return (INDEX_PUT_EXPANDED, MASKED_FILL_EXPANDED)


_NUMBERS = (bool, int, float, complex, np.generic)
# The C type torch names when a complex number does not fit a tensor (bool takes it).
_C_TYPES = {
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "float16": "double",
    "float32": "float",
    "float64": "double",
}


def _setitem(input: Any, index: Any, value: Any) -> None:
    """``input[index] = value`` as torch does it: the indexed view (``input`` itself if
    the index takes everything) gets ``copy_``/``fill_``, or ``index_put_`` for an
    advanced index. Example: ``b[0] = 1.0`` makes ``b.grad_fn`` a ``CopySlices``."""
    if index is False:
        return  # torch: nothing selected, nothing written (not even a version bump)
    if not _is_tensor(value):
        if not isinstance(value, _NUMBERS):
            raise TypeError(
                f"can't assign a {_type_name(value)} to a torch.{dtypes.legacy_name(input.dtype)}"
                "Tensor"
            )
        if np.iscomplexobj(value) and input.dtype.name in _C_TYPES:
            raise RuntimeError(
                f"value cannot be converted to type {_C_TYPES[input.dtype.name]} without overflow"
            )
        dtypes.check_fits(value, input.dtype, c_name=True)
        value = wrap_constant(np.asarray(value).astype(input._data.dtype))
    key = parse_index(index, input._data.shape)
    basic = Key(key.basic, None, key.node_name)
    target = input if _takes_all(key.basic, input._data.shape) else input._index_key(basic)
    view = target._data
    if key.advanced is None:
        _copy_to(target, value)
        return
    if value.dtype is not input.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{_scalar_name(input.dtype)} for the destination and {_scalar_name(value.dtype)} "
            "for the source."
        )
    advanced = Key((Ellipsis,), key.advanced, "IndexBackward0")
    value = _strip_leading_ones(value)
    shape = advanced.get(np.broadcast_to(np.empty((), np.bool_), view.shape)).shape
    try:
        np.broadcast_shapes(value._data.shape, shape)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(value._data.shape)} cannot be "
            f"broadcast to indexing result of shape {list(shape)}"
        ) from None

    def put(x: Any, v: Any) -> Any:
        return x._index_put_key(advanced, v, False)

    if ops.has_internal_overlap(view):

        def write(data: np.ndarray) -> None:
            advanced.put_into(data, value._data, False)

        items = index if type(index) is tuple else (index,)
        indices = [item for item in items if _is_tensor(item) or isinstance(item, list)]
        messages = _index_put_messages(indices, value, False)
        _inplace_expanded(target, put, (value,), write, messages)
        return
    run_inplace(target, put, (value,))


def _takes_all(basic: tuple, shape: tuple[int, ...]) -> bool:
    """Whether torch's ``[]=`` writes into the tensor itself: the basic part of the index
    is whole-dim slices only, which torch skips (a None or an int makes a view)."""
    slices = [item for item in basic if item is not Ellipsis]
    return all(
        type(item) is slice and is_full_slice(item, size) for item, size in zip(slices, shape)
    )


def _copy_to(target: Any, value: Any) -> None:
    """torch's ``copy_to`` for ``[]=``: ``copy_`` of a same-shaped value, ``fill_`` of a
    0-dim one, else ``copy_`` of the value (leading 1s dropped) expanded to the target."""
    if value._data.shape == target._data.shape:
        target.copy_(value)
    elif value._data.ndim == 0:
        target.fill_(value)
    else:
        target.copy_(_strip_leading_ones(value).expand(target._data.shape))


def _strip_leading_ones(value: Any) -> Any:
    shape = value._data.shape
    start = 0
    while start < len(shape) and shape[start] == 1:
        start += 1
    return value if start == 0 else value.reshape(shape[start:])


def _type_name(value: Any) -> str:
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _scalar_name(dtype: Any) -> str:
    return dtype.type_name[3:-4]


class InplaceMethods:
    """In-place methods of ``Tensor`` (``x.add_(y)``, ``x += y``, ``x[i] = v``)."""

    add_ = add_
    sub_ = sub_
    subtract_ = sub_
    mul_ = mul_
    multiply_ = mul_
    div_ = div_
    divide_ = div_
    true_divide_ = div_
    floor_divide_ = floor_divide_
    remainder_ = remainder_
    pow_ = pow_
    neg_ = neg_
    negative_ = neg_
    relu_ = relu_
    abs_ = abs_
    absolute_ = abs_
    clamp_ = clamp_
    clip_ = clamp_
    clamp_min_ = clamp_min_
    clamp_max_ = clamp_max_
    zero_ = zero_
    fill_ = fill_
    copy_ = copy_
    masked_fill_ = masked_fill_
    index_add_ = index_add_
    scatter_ = scatter_
    scatter_add_ = scatter_add_
    index_put_ = index_put_
    __setitem__ = _setitem
    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_
    __ifloordiv__ = floor_divide_
    __imod__ = remainder_
    __ipow__ = pow_


clip_ = clamp_
negative_ = neg_
