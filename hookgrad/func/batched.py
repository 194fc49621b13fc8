"""Batched arrays: how ``vmap`` carries a batch of examples inside one tensor.

Inside ``vmap`` a tensor that depends on the mapped inputs holds a ``BatchedArray`` as
its ``_data``. The object is a NumPy view of the *first example* (so its ``shape``,
``dtype``, ``strides`` and ``ndim`` are the per-example, "logical" ones that the
function being mapped sees and that every shape check of the tensor layer reads), and it
carries the whole batch: ``_physical``, a plain array whose leading dims are the batch
dims of the vmap levels in ``_levels`` (outermost vmap first), followed by the logical
dims. Any tensor wrapping the same array (``detach()``, ``.data``, a saved tensor) is
batched too.

Levels nest: ``vmap(vmap(f))`` gives level 1 (outer) and level 2 (inner). An array may be
batched at any subset of the active levels. ``unwrap(array, level)`` turns the array
into one batched at the other levels only, whose logical dim 0 is ``level``'s batch dim;
``wrap(value, level)`` is its inverse. Batching rules (``hookgrad.func.batching``) and the
NumPy protocol (``hookgrad.func.numpy_api``) work one level at a time this way.

Computing on the first example's data alone would be silently wrong, so every NumPy
entry point that reaches a ``BatchedArray`` (ufuncs, NumPy functions, the methods that
compute) works on the whole batch or raises; a view NumPy makes of it behind the
batching code's back (``_physical`` None) raises when it is used.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

ITEM_ERROR = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
    "calling .item() on a Tensor, please try to rewrite what you're doing with other "
    "operations. If error is occurring somewhere inside PyTorch internals, please file a "
    "bug report."
)
CONTROL_FLOW_ERROR = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
    "flow. We don't support that yet, please file an issue at "
    "https://github.com/pytorch/pytorch/issues ."
)
INPLACE_ERROR = (
    "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
    "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
    "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
    "use out-of-place operators instead of inplace arithmetic. If said operator is being "
    "called inside the PyTorch framework, please file a bug report instead."
)
DYNAMIC_SHAPE_ERROR = (
    "vmap: We do not yet support calling random operations inside of vmap or operators "
    "that can output dynamic shape (this op's result has a different shape for different "
    "examples)."
)
ORPHAN_ERROR = (
    "vmap: a NumPy view of a batched tensor's data was made outside hookgrad's batching "
    "code and has lost its batch; this is a hookgrad bug, please report it"
)


# ---------------------------------------------------------------- levels


class Level:
    """One active ``vmap``: its number, batch size and randomness mode."""

    __slots__ = ("index", "size", "randomness")

    def __init__(self, index: int, size: int, randomness: str) -> None:
        self.index = index
        self.size = size
        self.randomness = randomness


class _Levels(threading.local):
    stack: list[Level]

    def __init__(self) -> None:
        self.stack = []


levels = _Levels()


def current_levels() -> list[Level]:
    """The active vmap levels of this thread, outermost first."""
    return levels.stack


# ---------------------------------------------------------------- the array


class BatchedArray(np.ndarray):
    """A batch of arrays seen as one (see the module docstring).

    Attributes: ``_physical`` (the batch: one leading dim per level, then the logical
    dims) and ``_levels`` (those levels, increasing). Make one with ``make``.
    """

    # NOTE: class defaults: a view NumPy makes of a batched array (``__array_finalize__``
    # is not overridden) keeps these, and is refused wherever it is used.
    _physical: np.ndarray | None = None
    _levels: tuple[int, ...] = ()

    # -- the NumPy protocols -----------------------------------------------------------
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return _NUMPY_API["ufunc"](ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return _NUMPY_API["function"](func, args, kwargs)

    # -- Python values of the data -----------------------------------------------------
    # NOTE: a value that is the same for every example (an ``if`` on a check that no
    # example fails, say) is that value: each example would take the same branch. Values
    # that differ between examples raise torch's error (data-dependent control flow).
    def item(self, *args: Any) -> Any:
        return _uniform(self, ITEM_ERROR).item(*args)

    def tolist(self) -> Any:
        return _uniform(self, ITEM_ERROR).tolist()

    def tobytes(self, order: str = "C") -> bytes:  # type: ignore[override]
        raise RuntimeError(ITEM_ERROR)

    def __bool__(self) -> bool:
        return bool(_uniform(self, CONTROL_FLOW_ERROR))

    def __float__(self) -> float:
        return float(_uniform(self, ITEM_ERROR))

    def __int__(self) -> int:
        return int(_uniform(self, ITEM_ERROR))

    def __complex__(self) -> complex:
        return complex(_uniform(self, ITEM_ERROR))

    def __index__(self) -> int:
        return _uniform(self, CONTROL_FLOW_ERROR).__index__()

    def __reduce__(self) -> Any:
        raise RuntimeError("vmap: a batched tensor's data cannot be pickled")

    def __repr__(self) -> str:
        if self._physical is None:
            return "BatchedArray(<orphan view>)"
        return f"BatchedArray(levels={self._levels}, physical={self._physical!r})"

    __str__ = __repr__

    # -- methods that compute: the whole batch, one level at a time ---------------------
    def copy(self, order: str = "C") -> Any:  # type: ignore[override]
        return _each(self, lambda v: v.copy(order))

    def __copy__(self) -> Any:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> Any:
        return self.copy()

    def astype(  # type: ignore[override]
        self,
        dtype: Any,
        order: str = "K",
        casting: str = "unsafe",
        **kw: Any,
    ) -> Any:
        return _each(self, lambda v: v.astype(dtype, order, casting, **kw))

    def view(self, *args: Any, **kwargs: Any) -> Any:
        kind = kwargs.get("type", args[0] if args else None)
        if isinstance(kind, type) and issubclass(kind, np.ndarray):
            raise RuntimeError(ORPHAN_ERROR)
        return _each(self, lambda v: v.view(*args, **kwargs))

    def reshape(  # type: ignore[override]
        self,
        *shape: Any,
        order: str = "C",
        copy: Any = None,
    ) -> Any:
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        target = _resolve_shape(shape, self.size)
        if copy is None:
            return _each(self, lambda v: v.reshape((v.shape[0],) + target, order=order))
        return _each(self, lambda v: v.reshape((v.shape[0],) + target, order=order, copy=copy))

    def transpose(self, *axes: Any) -> Any:
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        ndim = self.ndim
        order = tuple(range(ndim))[::-1] if not axes else tuple(a % ndim for a in axes)
        return _each(self, lambda v: v.transpose((0,) + tuple(a + 1 for a in order)))

    @property
    def T(self) -> Any:  # noqa: N802 (NumPy's name)
        return self.transpose()

    @property
    def mT(self) -> Any:  # noqa: N802 (NumPy's name)
        return self.swapaxes(-1, -2)

    def swapaxes(self, axis1: int, axis2: int) -> Any:  # type: ignore[override]
        ndim = self.ndim
        a, b = axis1 % ndim + 1, axis2 % ndim + 1
        return _each(self, lambda v: v.swapaxes(a, b))

    def squeeze(self, axis: Any = None) -> Any:
        return np.squeeze(self, axis)

    def ravel(self, order: str = "C") -> Any:  # type: ignore[override]
        return self.reshape(-1, order=order)

    def flatten(self, order: str = "C") -> Any:  # type: ignore[override]
        return self.reshape(-1, order=order).copy()

    def fill(self, value: Any) -> None:
        if isinstance(value, BatchedArray):
            raise RuntimeError(CONTROL_FLOW_ERROR)
        physical_of(self).fill(value)

    def conj(self) -> Any:
        return np.conjugate(self)

    conjugate = conj

    @property  # type: ignore[override, misc]
    def real(self) -> Any:
        return _each(self, lambda v: v.real)

    @property  # type: ignore[override, misc]
    def imag(self) -> Any:
        return _each(self, lambda v: v.imag)

    def __getitem__(self, key: Any) -> Any:
        return _NUMPY_API["getitem"](self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        _NUMPY_API["setitem"](self, key, value)

    def __iter__(self) -> Any:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def sort(  # type: ignore[override]
        self,
        axis: int = -1,
        kind: Any = None,
        order: Any = None,
    ) -> None:
        self[...] = np.sort(self, axis=axis, kind=kind)


# Methods that NumPy implements without its protocols: the NumPy function of the same name,
# which reaches ``__array_function__``.
def _delegate(name: str) -> Callable[..., Any]:
    function = getattr(np, name)

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return function(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in (
    "all any argmax argmin argpartition argsort choose clip compress cumprod cumsum "
    "diagonal dot max mean min nonzero partition prod put repeat round searchsorted std sum "
    "take trace var"
).split():
    setattr(BatchedArray, _name, _delegate(_name))


# ---------------------------------------------------------------- making and taking apart


def make(physical: np.ndarray, batch_levels: tuple[int, ...]) -> BatchedArray:
    """The batched array of ``physical`` (a plain array) at ``batch_levels`` (increasing;
    one leading dim of ``physical`` each)."""
    count = len(batch_levels)
    if 0 in physical.shape[:count]:
        first = np.empty(physical.shape[count:], physical.dtype)
    else:
        first = physical[(0,) * count + (Ellipsis,)]
    out = first.view(BatchedArray)
    out._physical = physical
    out._levels = batch_levels
    return out


def _uniform(array: BatchedArray, message: str) -> np.ndarray:
    """The first example's data (a plain array) when every example's is the same; else
    torch's error ``message``."""
    physical = physical_of(array)
    first = physical[(0,) * len(array._levels) + (Ellipsis,)] if physical.size else None
    if first is None or not np.array_equal(physical, np.broadcast_to(first, physical.shape)):
        raise RuntimeError(message)
    return first


def physical_of(array: BatchedArray) -> np.ndarray:
    physical = array._physical
    if physical is None:
        raise RuntimeError(ORPHAN_ERROR)
    return physical


def top_level(values: Sequence[Any]) -> int:
    """The innermost level at which one of ``values`` is batched (0: none is)."""
    level = 0
    for value in values:
        if type(value) is BatchedArray:
            if value._physical is None:
                raise RuntimeError(ORPHAN_ERROR)
            top = value._levels[-1]
            if top > level:
                level = top
    return level


def is_batched_at(value: Any, level: int) -> bool:
    return type(value) is BatchedArray and level in value._levels


def unwrap(value: Any, level: int) -> tuple[Any, bool]:
    """``value`` without ``level``: batched at its other levels, with ``level``'s batch
    as logical dim 0; and whether it was batched at ``level`` (else it is returned as is).
    """
    if type(value) is not BatchedArray or level not in value._levels:
        return value, False
    physical = physical_of(value)
    batch_levels = value._levels
    position = batch_levels.index(level)
    last = len(batch_levels) - 1
    if position != last:
        physical = np.moveaxis(physical, position, last)
    rest = batch_levels[:position] + batch_levels[position + 1 :]
    if not rest:
        return physical, True
    return make(physical, rest), True


def wrap(value: Any, level: int) -> BatchedArray:
    """The inverse of ``unwrap``: ``value``'s logical dim 0 becomes ``level``'s batch."""
    if type(value) is not BatchedArray:
        return make(np.asarray(value), (level,))
    physical = physical_of(value)
    batch_levels = value._levels
    merged = tuple(sorted(batch_levels + (level,)))
    position = merged.index(level)
    if position != len(batch_levels):
        physical = np.moveaxis(physical, len(batch_levels), position)
    return make(physical, merged)


def size_at(values: Sequence[Any], flags: Sequence[bool]) -> int:
    """The batch size of the unwrapped ``values`` (those whose flag is set)."""
    for value, flag in zip(values, flags):
        if flag:
            return value.shape[0]
    raise ValueError("no batched value")


def _each(array: BatchedArray, function: Callable[[Any], Any]) -> Any:
    """``function`` applied to ``array`` unwrapped at its innermost level, wrapped again:
    for a function that keeps dim 0 in place."""
    level = top_level((array,))
    value, _ = unwrap(array, level)
    return wrap(function(value), level)


def _resolve_shape(shape: Sequence[int], size: int) -> tuple[int, ...]:
    """``shape`` with a ``-1`` resolved for ``size`` elements (NumPy's error otherwise)."""
    shape = tuple(int(s) for s in shape)
    if -1 not in shape:
        return shape
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if known == 0 or size % known:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
    return tuple(size // known if s == -1 else s for s in shape)


def batch_dims(value: Any, count: int) -> Any:
    """``value`` (batched at dim 0) with ``count`` size-1 dims inserted after dim 0: aligns
    a batched operand of fewer logical dims with the others for broadcasting."""
    if count <= 0:
        return value
    return value.reshape(value.shape[:1] + (1,) * count + value.shape[1:])


def materialize(value: Any, flag: bool, size: int) -> Any:
    """``value`` with a batch dim at 0: broadcast along a new dim 0 when not batched."""
    if flag:
        return value
    return np.broadcast_to(value, (size,) + np.shape(value))


# What NumPy's protocols on a ``BatchedArray`` run: ``hookgrad.func.numpy_api`` fills this
# when it is imported (it needs ``BatchedArray``, so this module cannot import it).
_NUMPY_API: dict[str, Callable[..., Any]] = {}


def install_numpy_api(**handlers: Callable[..., Any]) -> None:
    """Set the functions behind ``__array_ufunc__``, ``__array_function__``,
    ``__getitem__`` and ``__setitem__`` (``ufunc``, ``function``, ``getitem``,
    ``setitem``)."""
    _NUMPY_API.update(handlers)
