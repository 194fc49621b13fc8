"""Running an op on tensors: unwrap arrays, run the forward, record the node.

This is the only place where a node gets its edges, its input metadata and its saved
tensors, so every op records itself the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.graph import anomaly
from hookgrad.graph.node import _sequence
from hookgrad.graph.saved import INFERENCE_SAVE_MESSAGE, SavedTensor
from hookgrad.tensor import tensor as _tensor_module

_state = grad_mode._state


def apply(op: Any, *inputs: Any) -> Any:
    """Run ``op`` on ``inputs`` (tensors or Python scalars); record it if needed.

    Returns one tensor, or a tuple when the op's forward returns a tuple.
    """
    Tensor = _tensor_module.Tensor
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    return apply_arrays(op, inputs, arrays)


def apply_arrays(op: Any, inputs: Sequence[Any], arrays: Sequence[Any]) -> Any:
    """Like ``apply`` with the forward's arrays given (already cast by promotion)."""
    # NOTE: this runs once per op, forward and backward: keep it free of extra calls.
    Tensor = _tensor_module.Tensor
    try:
        if op.quiet:
            with np.errstate(all="ignore"):
                result = op.forward(*arrays)
        else:
            result = op.forward(*arrays)
    except ValueError:
        # NumPy's broadcasting error, restated as torch's (re-raised if it was another).
        broadcast_shapes(*(a.shape for a in arrays if isinstance(a, np.ndarray)))
        raise
    if type(result) is tuple:
        outputs: Any = tuple(_wrap(Tensor, array) for array in result)
    else:
        if type(result) is not np.ndarray:
            result = np.asarray(result)
        outputs = object.__new__(Tensor)
        outputs._data = result
    if _state.grad_enabled:
        for x in inputs:
            if isinstance(x, Tensor) and (x.grad_fn is not None or x._requires_grad):
                _record(Tensor, op, inputs, outputs)
                break
    elif _state.inference:
        _mark_inference(outputs)
    return outputs


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
    Tensor = _tensor_module.Tensor
    out = _wrap(Tensor, array)
    if _state.inference:
        out._is_inference = True
    return out


def _mark_inference(outputs: Any) -> None:
    for output in outputs if type(outputs) is tuple else (outputs,):
        output._is_inference = True


def _wrap(Tensor: Any, array: Any) -> Any:
    if type(array) is not np.ndarray:
        array = np.asarray(array)
    return Tensor._make(array)


_NO_EDGE = (None, 0)


def _record(Tensor: Any, op: Any, inputs: Sequence[Any], outputs: Any) -> None:
    edges = []
    meta: list[tuple[Any, Any] | None] = []
    for x in inputs:
        if isinstance(x, Tensor):
            node = x.grad_fn
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
    op.next_functions = tuple(edges)
    op._input_meta = tuple(meta)
    if type(outputs) is tuple:
        op._num_outputs = len(outputs)
        for output_nr, output in enumerate(outputs):
            if output._data.dtype.kind in "fc":
                output.grad_fn = op
                output._output_nr = output_nr
        outs = outputs
    else:
        if outputs._data.dtype.kind in "fc":
            outputs.grad_fn = op
        outs = (outputs,)
    if op.saves:
        op._saved = _save(Tensor, op, inputs, outs)
    if anomaly.state.enabled:
        anomaly.record_creation(op)


def _save(Tensor: Any, op: Any, inputs: Sequence[Any], outputs: tuple[Any, ...]) -> tuple:
    """One ``SavedTensor`` per name in ``op.saves``: an input's name or ``result``."""
    saved = []
    names = op.input_names
    for name in op.saves:
        if name == "result":
            saved.append(SavedTensor(outputs[0]._alias(), output_nr=0))
            continue
        value = inputs[names.index(name)]
        if isinstance(value, Tensor) and value._is_inference:
            raise RuntimeError(INFERENCE_SAVE_MESSAGE)
        saved.append(SavedTensor(value))
    return tuple(saved)
