"""Running an op on tensors: unwrap arrays, run the forward, record the node.

This is the only place where a node gets its edges, its input metadata and its saved
tensors, so every op records itself the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.graph import anomaly, history
from hookgrad.graph.node import _sequence
from hookgrad.graph.saved import (
    INFERENCE_SAVE_MESSAGE,
    SavedTensor,
    save_constant,
    save_input,
    save_output,
)
from hookgrad.ops.inplace import OVERLAP_ERROR, has_internal_overlap
from hookgrad.tensor import dtypes
from hookgrad.tensor.tensor import Tensor

_state = grad_mode._state


# ---------------------------------------------------------------- observers
# Forward AD and the profiler watch every op while they are active, through objects with
# ``observe(op, inputs, arrays, run)`` (``run()`` runs the op, or the next observer, and
# returns its outputs) and ``written(target, array)`` (an in-place write of ``array`` into
# ``target`` happened). With none registered, ``_observer`` is None: one test per op.
_observers: list[Any] = []
_observer: Any = None


class _Observers:
    """All registered observers as one: each runs around the next, the first outermost."""

    def __init__(self, observers: list[Any]) -> None:
        self.observers = tuple(observers)

    def __call__(self, op: Any, inputs: Sequence[Any], arrays: Sequence[Any]) -> Any:
        op._observed = True
        try:
            return self._run(0, op, inputs, arrays)
        finally:
            del op._observed

    def _run(self, index: int, op: Any, inputs: Sequence[Any], arrays: Sequence[Any]) -> Any:
        if index == len(self.observers):
            return apply_arrays(op, inputs, arrays)
        return self.observers[index].observe(
            op, inputs, arrays, lambda: self._run(index + 1, op, inputs, arrays)
        )

    def written(self, target: Any, array: np.ndarray) -> None:
        for observer in self.observers:
            observer.written(target, array)


def add_observer(observer: Any) -> None:
    """Let ``observer`` watch every op (see above) until ``remove_observer``."""
    global _observer
    _observers.append(observer)
    _observer = _Observers(_observers)


def remove_observer(observer: Any) -> None:
    """Stop ``observer`` watching ops."""
    global _observer
    _observers.remove(observer)
    _observer = _Observers(_observers) if _observers else None


# ---------------------------------------------------------------- batching
# While ``hookgrad.func.vmap`` runs, ``_batching(op, inputs, arrays)`` computes every op
# in place of its forward: the result, batched where an input is, or ``Finished(outputs)``
# when it has made and recorded the outputs itself (its per-example fallback). With no
# vmap active it is None: one test per op.
_batching: Any = None


class Finished:
    """What ``_batching`` returns for an op it has run and recorded itself."""

    __slots__ = ("outputs",)

    def __init__(self, outputs: Any) -> None:
        self.outputs = outputs


def set_batching(batching: Any) -> Any:
    """Let ``batching`` compute every op (None: stop); returns the previous one."""
    global _batching
    previous = _batching
    _batching = batching
    return previous


def apply(op: Any, *inputs: Any) -> Any:
    """Run ``op`` on ``inputs`` (tensors or Python scalars); record it if needed.

    Returns one tensor, or a tuple when the op's forward returns a tuple.
    """
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    return apply_arrays(op, inputs, arrays)


def apply_op(tensor: Tensor, op: Any, *others: Any) -> Any:
    """``Tensor._apply_op``: ``apply(op, tensor, *others)``.

    How a backward formula applies an op class that has no Tensor method: ``ops`` sits
    below the tensor layer and reaches it only through the gradients' methods.
    """
    return apply(op, tensor, *others)


def apply_arrays(op: Any, inputs: Sequence[Any], arrays: Sequence[Any]) -> Any:
    """Like ``apply`` with the forward's arrays given (already cast by promotion)."""
    # NOTE: this runs once per op, forward and backward: keep it free of extra calls.
    if _observer is not None and "_observed" not in op.__dict__:
        return _observer(op, inputs, arrays)
    try:
        if _batching is not None:
            result = _batching(op, inputs, arrays)
            if type(result) is Finished:
                return result.outputs
        elif op.quiet:
            with np.errstate(all="ignore"):
                result = op.forward(*arrays)
        else:
            result = op.forward(*arrays)
    except ValueError:
        # NumPy's broadcasting error, restated as torch's (re-raised if it was another).
        broadcast_shapes(*(a.shape for a in arrays if isinstance(a, np.ndarray)))
        raise
    if type(result) is tuple:
        outputs: Any = tuple(_wrap(array) for array in result)
    else:
        # NOTE: a batched result (an ndarray subclass, ``hookgrad.func``) is kept as it is.
        if type(result) is not np.ndarray and not isinstance(result, np.ndarray):
            result = np.asarray(result)
        outputs = object.__new__(Tensor)
        outputs._data = result
    if _state.grad_enabled:
        for x in inputs:
            if isinstance(x, Tensor) and (
                x._grad_fn is not None
                or x._requires_grad
                or (x._base is not None and x.requires_grad)
            ):
                _record(op, inputs, outputs)
                break
    elif _state.inference:
        _mark_inference(outputs)
    if op.view:
        history.make_views(inputs[0], outputs)
    return outputs


def apply_inplace(op: Any, target: Any, inputs: Sequence[Any], arrays: Sequence[Any]) -> Any:
    """Run ``op`` and write its result into ``target``'s memory: an in-place op.

    ``inputs`` are what the node records (the first stands for ``target``'s old value).
    Returns the op's output: a tensor sharing ``target``'s data and version counter (so
    that an op saving its result saves the new value of ``target``), recorded as the op's
    output when autograd tracks it; the caller moves ``target`` onto that node.
    """
    enabled = _state.grad_enabled
    if _observer is not None:
        # NOTE: the grad mode of the caller, for observers (it is off while ``op`` runs).
        op._grad_enabled = enabled
    _state.grad_enabled = False
    try:
        result = apply_arrays(op, inputs, arrays)
    finally:
        _state.grad_enabled = enabled
    write_inplace(target, result._data, op.fills)
    output = history.share_version(Tensor._make(target._data), target)
    if enabled:
        for x in inputs:
            if isinstance(x, Tensor) and (x.grad_fn is not None or x._requires_grad):
                _record(op, inputs, output)
                break
    return output


def write_inplace(target: Any, array: np.ndarray, fills: bool = False) -> None:
    """Copy ``array`` (an op's result) into ``target``'s memory and bump its version.

    torch's rules: the result must have ``target``'s shape and a dtype that may be cast
    to ``target``'s (not float to int, complex to real, or anything to bool); ``target``'s
    elements may share memory (a stride 0) only when ``fills``: every element of
    ``array`` is the same value.
    """
    data = target._data
    check_cast(array.dtype, data.dtype)
    if array.shape != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast shape "
            f"{list(array.shape)}"
        )
    if not fills and 0 in data.strides and has_internal_overlap(data):
        raise RuntimeError(OVERLAP_ERROR)
    if not data.flags.writeable:
        raise RuntimeError("the tensor's memory is read-only (a non-writable NumPy array)")
    np.copyto(data, array, casting="unsafe")
    target._bump_version()
    if _observer is not None:
        _observer.written(target, array)


def check_cast(source: np.dtype, target: np.dtype) -> None:
    """torch's error when a result of dtype ``source`` may not be written into a tensor
    of dtype ``target`` (in place or ``out=``)."""
    if source != target and not _can_cast(source, target):
        raise RuntimeError(
            f"result type {_type_name(source)} can't be cast to the desired output type "
            f"{_type_name(target)}"
        )


def _can_cast(source: np.dtype, target: np.dtype) -> bool:
    """torch's ``can_cast`` for in-place results (its categories: bool < int < float <
    complex; only a move down is refused)."""
    if source.kind == "c":
        return target.kind == "c"
    if source.kind == "f":
        return target.kind in "fc"
    return source.kind == "b" or target.kind != "b"


def _type_name(np_dtype: np.dtype) -> str:
    """torch's scalar type name: ``Float``, ``Long`` ..."""
    return dtypes.from_numpy_dtype(np_dtype).type_name[3:-4]


def record(op: Any, inputs: Sequence[Any], output: Any) -> None:
    """Record ``op`` as the node that made ``output`` from ``inputs`` (for nodes made
    outside ``apply``, e.g. the regenerated ``grad_fn`` of a view)."""
    _record(op, inputs, output)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape ``shapes`` broadcast to, with torch's error naming the first mismatch.

    Example: ``broadcast_shapes((2, 1), (3,))`` is ``(2, 3)``.
    """
    result: tuple[int, ...] = ()
    for shape in shapes:
        ndim = max(len(result), len(shape))
        a = (1,) * (ndim - len(result)) + tuple(result)
        b = (1,) * (ndim - len(shape)) + tuple(shape)
        for dim in range(ndim - 1, -1, -1):
            if a[dim] != b[dim] and a[dim] != 1 and b[dim] != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a[dim]}) must match the size of tensor b "
                    f"({b[dim]}) at non-singleton dimension {dim}"
                )
        result = tuple(max(x, y) if min(x, y) else 0 for x, y in zip(a, b))
    return result


def wrap_constant(array: Any) -> Any:
    """Wrap the result of a non-differentiable computation."""
    out = _wrap(array)
    if _state.inference:
        history.mark_inference(out)
    return out


def _mark_inference(outputs: Any) -> None:
    for output in outputs if type(outputs) is tuple else (outputs,):
        history.mark_inference(output)


def _wrap(array: Any) -> Any:
    if type(array) is not np.ndarray and not isinstance(array, np.ndarray):
        array = np.asarray(array)
    return Tensor._make(array)


_NO_EDGE = (None, 0)


def _record(op: Any, inputs: Sequence[Any], outputs: Any) -> None:
    edges: list[tuple[Any, int]] = []
    meta: list[tuple[Any, Any] | None] = []
    # An op may give edges to its differentiable inputs only (torch's ``where`` has none
    # for its condition).
    edge_inputs = inputs if op.edge_inputs is None else [inputs[i] for i in op.edge_inputs]
    for x in edge_inputs:
        if isinstance(x, Tensor):
            # NOTE: a view's ``grad_fn`` property may have to regenerate the node first.
            node = x._grad_fn if x._base is None else x.grad_fn
            if node is not None:
                edges.append((node, x._output_nr))
                meta.append((x._data.shape, x._data.dtype))
                continue
            if x._requires_grad:
                edges.append((x._get_accumulator(), 0))
                meta.append((x._data.shape, x._data.dtype))
                continue
        edges.append(_NO_EDGE)
        meta.append(None)
    op._seq = next(_sequence)
    if op.node_name != type(op).node_name:
        op._name_class()
    op.next_functions = tuple(edges)
    op._input_meta = tuple(meta)
    if type(outputs) is tuple and op.differentiable_outputs is not None:
        history.set_outputs(op, outputs[: op.differentiable_outputs])
    else:
        history.set_outputs(op, outputs)
    if op.saves:
        op._saved = _save(op, inputs, outputs if type(outputs) is tuple else (outputs,))
    if anomaly.state.enabled:
        anomaly.record_creation(op)


def _save(op: Any, inputs: Sequence[Any], outputs: tuple[Any, ...]) -> tuple:
    """One ``SavedTensor`` per name in ``op.saves``: an input's name, ``result``, or the
    name of a later output in ``op.output_names`` (``result1``, ``total_weight`` ...).

    Default pack hooks (``saved_tensors_hooks``) run here, in the order of ``op.saves``.
    An op class may declare ``saved_for = {name: (input names, ...)}``: that value is
    then saved only when one of those inputs needs a gradient (else an empty slot, which
    unpacks to None), as torch saves ``other`` of ``a * b`` only if ``a`` needs one.
    """
    saved: list[SavedTensor] = []
    names = op.input_names
    cls = type(op)
    conditions = _saved_for_cache[cls] if cls in _saved_for_cache else _saved_for(cls)
    meta = op._input_meta
    for name in op.saves:
        if conditions is not None and _unneeded(conditions.get(name), meta):
            saved.append(save_constant(None))
        elif name == "result":
            saved.append(save_output(outputs[0], 0))
        elif name in op.output_names:
            index = op.output_names.index(name)
            output = outputs[index]
            # NOTE: a non-differentiable output (max pooling's indices, batch norm's
            # statistics) has no history: it is saved, and unpacks, as any other tensor.
            if output._grad_fn is op:
                saved.append(save_output(output, index))
            else:
                saved.append(save_input(output))
        else:
            value = inputs[names.index(name)]
            if not isinstance(value, Tensor):
                saved.append(save_constant(value))
                continue
            if value._is_inference:
                raise RuntimeError(INFERENCE_SAVE_MESSAGE)
            saved.append(save_input(value))
    return tuple(saved)


def _unneeded(users: tuple[int, ...] | None, meta: tuple[Any, ...]) -> bool:
    """True when none of the inputs whose gradients use a saved value need one."""
    if users is None:
        return False
    for index in users:
        if meta[index] is not None:
            return False
    return True


# Per op class: ``saved_for`` with input names turned into input indices (None: no rule).
_saved_for_cache: dict[type, dict[str, tuple[int, ...]] | None] = {}


def _saved_for(cls: type) -> dict[str, tuple[int, ...]] | None:
    """The ``saved_for`` declaration of an op class as edge indices, or None; cached."""
    declared = getattr(cls, "saved_for", None)
    conditions = None
    if declared is not None:
        names = cls.input_names  # type: ignore[attr-defined]
        edges = cls.edge_inputs  # type: ignore[attr-defined]
        if edges is not None:
            names = tuple(names[i] for i in edges)
        conditions = {
            name: tuple(names.index(user) for user in users) for name, users in declared.items()
        }
    _saved_for_cache[cls] = conditions
    return conditions
