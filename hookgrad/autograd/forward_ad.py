"""``hookgrad.autograd.forward_ad``: forward-mode AD with torch's API.

Inside a ``dual_level``, ``make_dual(x, v)`` gives a "dual tensor": ``x``'s values with
the tangent ``v`` attached. Every op on dual tensors computes its outputs' tangents
(``J v``) as it runs, with the rules of ``hookgrad.autograd.forward.rules``, and
``unpack_dual`` reads them back. Views share their tangent with their base, and an
in-place op updates the tangent in place, as torch's do. Tangents flow whatever the grad
mode (``no_grad`` does not stop them); a custom ``Function`` gives its outputs' tangents
with its static ``jvp``. Leaving the level forgets every tangent.

Example::

    import hookgrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        x = fwAD.make_dual(hookgrad.tensor([1.0, 2.0]), hookgrad.tensor([1.0, 0.0]))
        y = (x * x).sin()
        fwAD.unpack_dual(y).tangent   # cos(x * x) * 2 * x * v

Outside a level nothing is watched: ops pay no cost for forward AD.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from hookgrad import grad_mode
from hookgrad.autograd.forward import rules, tangents
from hookgrad.ops.base import Op
from hookgrad.tensor import dispatch
from hookgrad.tensor.functions import inplace as inplace_functions
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

# The level that ``make_dual`` and ``unpack_dual`` use by default (-1: none), as torch's.
_current_level = -1


def enter_dual_level() -> int:
    """Enter a new forward AD level and return its number (0: levels do not nest).

    Tangents made in it live until ``exit_dual_level``. Example::

        level = fwAD.enter_dual_level()
        ...
        fwAD.exit_dual_level(level=level)
    """
    global _current_level
    if tangents.current is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    tangents.current = tangents.Level(_current_level + 1)
    _current_level = tangents.current.index
    _install()
    return _current_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Leave the forward AD level ``level`` (default: the current one), forgetting every
    tangent made in it. Only the last level entered may be left."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    if level < 0 or tangents.current is None:
        raise RuntimeError("Dual level must be a positive number.")
    _uninstall()
    tangents.current = None
    _current_level = level - 1


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A dual tensor: a view of ``tensor`` whose tangent is ``tangent``.

    ``tangent`` is attached as it is when laid out as ``tensor`` (so an in-place op on
    the dual tensor changes it, as in torch), else a copy laid out so is. The result is
    differentiable with respect to ``tensor`` (a ``ViewBackward0``). Example::

        with fwAD.dual_level():
            x = fwAD.make_dual(hookgrad.zeros(3), hookgrad.ones(3))
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if level != _current_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if tangents.get(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at "
            f"the same level {level} is not supported."
        )
    _check_size(tensor, tangent)
    with _computing_tangents():
        dual = tensor.view(tensor.shape)
    data = tensor._data
    if tangent._data.strides != tuple(
        stride // data.itemsize * tangent._data.itemsize for stride in data.strides
    ):
        laid_out = tangents.zeros_laid_out(data, tangent._data.dtype)
        laid_out[...] = tangent._data
        tangent = Tensor._make(laid_out)
    tangents.set_own(dual, tangent)
    return dual


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the ``primal`` (a view of the dual tensor's values,
    without tangent) and its ``tangent`` (None when it has none)."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """The primal and the tangent of ``tensor`` at ``level`` (default: the current one).

    The primal is a view of ``tensor`` (``torch::autograd::Identity`` as its node),
    the tangent the tensor attached as it is. Outside a level: ``(tensor, None)``.
    Example::

        primal, tangent = fwAD.unpack_dual(y)
    """
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if tangents.current is not None and level > _current_level:
        raise RuntimeError("Invalid level given to _fw_primal")
    tangent = None if tangents.busy.value else tangents.get(tensor)
    with _computing_tangents():
        primal = dispatch.apply(_Primal(), tensor)
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """Context manager (and decorator) for forward AD: all forward AD happens inside it.

    Entering returns the level's number; leaving forgets its tangents. Levels do not nest.
    Example::

        with fwAD.dual_level():
            y = f(fwAD.make_dual(x, v))
            jvp = fwAD.unpack_dual(y).tangent
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info: object) -> None:
        exit_dual_level()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper


class _Primal(Op):
    """``_fw_primal``: a view of a tensor, without its tangent."""

    node_name = "torch::autograd::Identity"
    input_names = ("self",)
    view = True

    def forward(self, a: np.ndarray) -> np.ndarray:
        return a.view()

    def backward(self, grad: Any) -> Any:
        return grad


def _check_size(tensor: Tensor, tangent: Tensor) -> None:
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}."
        )


class _computing_tangents:
    """Ops run inside record no tangents (a tangent's own computation, a primal view)."""

    def __enter__(self) -> None:
        self.previous = tangents.busy.value
        tangents.busy.value = True

    def __exit__(self, *exc_info: object) -> None:
        tangents.busy.value = self.previous


# ---------------------------------------------------------------- watching ops


class _Last(threading.local):
    # The arrays of the last op's outputs and their tangents: an in-place write of one of
    # these arrays gives its target that tangent.
    outputs: tuple[tuple[np.ndarray, Any], ...] = ()


_last = _Last()


class _TangentObserver:
    """The dispatch observer of a dual level: computes and attaches output tangents."""

    def observe(self, op: Any, inputs: Any, arrays: Any, run: Callable[[], Any]) -> Any:
        outputs = run()
        if tangents.busy.value:
            return outputs
        found: list[Any] | None = None
        for index, x in enumerate(inputs):
            if isinstance(x, Tensor):
                tangent = tangents.get(x)
                if tangent is not None:
                    if found is None:
                        found = [None] * len(inputs)
                    found[index] = tangent
        if found is None:
            _last.outputs = tuple((o._data, None) for o in _as_tuple(outputs))
            return outputs
        context = rules.Context(op, inputs, arrays, found, outputs)
        # NOTE: an in-place op runs with grad mode off; a differentiable tangent is
        # computed with it on (``context.on_tensors`` knows the caller's mode).
        with _computing_tangents(), grad_mode.set_grad_enabled(context.on_tensors):
            values = rules.rule_for(type(op))(context)
        _attach(op, found, outputs, values)
        return outputs

    def written(self, target: Tensor, array: np.ndarray) -> None:
        if tangents.busy.value:
            return
        value = None
        for data, tangent in _last.outputs:
            if data is array:
                value = tangent
                break
        tangents.write(target, value)


def _as_tuple(outputs: Any) -> tuple[Any, ...]:
    return outputs if type(outputs) is tuple else (outputs,)


def _attach(op: Any, found: list[Any], outputs: Any, values: Any) -> None:
    """Give each floating output its tangent (a copy if it would alias an input's, unless
    the op is a view), and remember them for an in-place write that follows."""
    outs = _as_tuple(outputs)
    values = values if type(values) is tuple else (values,)
    remembered = []
    for output, value in zip(outs, values):
        if value is None or output._data.dtype.kind not in "fc":
            remembered.append((output._data, None))
            continue
        if not isinstance(value, Tensor):
            value = Tensor._make(np.asarray(value))
        base = output._base
        if op.view and base is not None and base._data.itemsize == output._data.itemsize:
            # A view of a base with a tangent takes the same view of that tangent (one
            # memory, so later in-place writes reach both), unless the rule's tangent is
            # one already (a differentiable view made by the view op itself).
            base_tangent = tangents.own(base)
            if base_tangent is not None and not (
                value.requires_grad and np.may_share_memory(value._data, base_tangent._data)
            ):
                remembered.append((output._data, tangents.get(output)))
                continue
        shape = output._data.shape
        array = value._data
        aliased = not op.view and (
            not array.flags.writeable
            or any(t is not None and np.may_share_memory(array, t._data) for t in found)
        )
        if value.requires_grad:
            if array.shape != shape:
                value = value.expand(shape).clone()
            elif aliased:
                value = value.clone()
        elif array.shape != shape or aliased:
            value = Tensor._make(np.broadcast_to(array, shape).copy())
        tangents.set_own(output, value)
        remembered.append((output._data, value))
    _last.outputs = tuple(remembered)


# ---------------------------------------------------------------- in-place writes
# NOTE: ``add_``/``mul_``/``zero_``/``fill_`` of a tensor autograd does not track update
# its memory with NumPy directly, past dispatch. While a level exists, a dual operand
# sends them the general way, where the write observer sees them; and the stand-in an
# in-place op computes from (a new tensor for the old value) gets the target's tangent.

_observer = _TangentObserver()
_originals: dict[str, Any] = {}


def _install() -> None:
    dispatch.add_observer(_observer)
    untracked = inplace_functions.untracked
    update_directly = inplace_functions.update_directly
    stand_in = inplace_functions.old_value_stand_in
    _originals.update(
        untracked=untracked, update_directly=update_directly, old_value_stand_in=stand_in
    )

    def _untracked(input: Any) -> bool:
        return tangents.get(input) is None and untracked(input)

    def _update_directly(input: Any, ufunc: Any, other: Any, alpha: Any = 1) -> bool:
        if isinstance(other, Tensor) and tangents.get(other) is not None:
            return False
        return update_directly(input, ufunc, other, alpha)

    def _stand_in(input: Any, copy: bool) -> Any:
        source = stand_in(input, copy)
        tangent = tangents.get(input)
        if tangent is not None:
            tangents.set_own(source, tangent)
        return source

    inplace_functions.untracked = _untracked  # type: ignore[attr-defined]
    inplace_functions.update_directly = _update_directly  # type: ignore[attr-defined]
    inplace_functions.old_value_stand_in = _stand_in  # type: ignore[attr-defined]


def _uninstall() -> None:
    dispatch.remove_observer(_observer)
    _last.outputs = ()
    for name, function in _originals.items():
        setattr(inplace_functions, name, function)
    _originals.clear()
