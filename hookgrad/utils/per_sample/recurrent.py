"""Per-example gradients of the recurrent layers (``RNN``, ``LSTM``, ``GRU``: any number
of layers, bidirectional, LSTM projections) and their cells (``RNNCell``, ``LSTMCell``,
``GRUCell``), by recomputation (``recompute.py``): every weight enters through a linear
map, ``x_t W_ih^T`` and ``h_{t-1} W_hh^T`` at each step (and ``h_t = r_t W_hr^T`` with a
projection), so its per-example gradient is ``sum_t outer(d_t, input_t)`` with ``d_t``
from backpropagation through time of the recomputed steps; a bias's is ``sum_t d_t``.

Recurrent layers take their batch dim from their own ``batch_first``. Packed sequences
and dropout between layers in training mode (whose masks are not kept) are refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import hookgrad
from hookgrad import grad_mode
from hookgrad.nn.modules.rnn import GRUCell, LSTMCell
from hookgrad.tensor import Tensor
from hookgrad.utils.per_sample.call import Call
from hookgrad.utils.per_sample.recompute import Recorder, factored

__all__ = ["cell", "recurrent"]


def _step(
    mode: str,
    recorder: Recorder,
    module: Any,
    suffix: str,
    x: Tensor,
    h: Tensor,
    c: Tensor | None,
) -> tuple[Tensor, Tensor | None]:
    """One step of ``mode`` (``RNN_TANH``, ``RNN_RELU``, ``LSTM``, ``GRU``) with the
    parameters of ``module`` named with ``suffix`` (``""`` for a cell, ``"_l0"`` ...)."""
    gi = recorder.linear("weight_ih" + suffix, x, getattr(module, "weight_ih" + suffix)._data)
    gh = recorder.linear("weight_hh" + suffix, h, getattr(module, "weight_hh" + suffix)._data)
    bias_ih = getattr(module, "bias_ih" + suffix, None)
    if bias_ih is not None:
        gi = gi + Tensor._make(bias_ih._data)
        gh = gh + Tensor._make(getattr(module, "bias_hh" + suffix)._data)
    if mode == "GRU":
        ir, iz, in_ = gi.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r = (ir + hr).sigmoid()
        z = (iz + hz).sigmoid()
        n = (in_ + r * hn).tanh()
        return (1 - z) * n + z * h, None
    gates = gi + gh
    if mode == "RNN_TANH":
        return gates.tanh(), None
    if mode == "RNN_RELU":
        return gates.relu(), None
    assert c is not None
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    projection = getattr(module, "weight_hr" + suffix, None)
    if projection is not None:
        h = recorder.linear("weight_hr" + suffix, h, projection._data)
    return h, c


def _results(module: Any, recorder: Recorder, outputs: list[Tensor], call: Call) -> dict[str, Any]:
    maps, _ = recorder.backprop(outputs, call)
    result: dict[str, Any] = {}
    for name, (inputs, grads) in maps.items():
        result[name] = factored((inputs, grads), tuple(getattr(module, name).shape))
        bias = name.replace("weight", "bias")
        if getattr(module, bias, None) is not None:
            result[bias] = grads.sum(axis=1)
    return result


def _input(module: Any, call: Call, batched_ndim: int) -> Tensor:
    input = call.argument(0, "input")
    if not isinstance(input, Tensor):
        raise ValueError(
            f"per-sample gradients of {type(module).__name__} need a padded tensor input, "
            f"got {type(input).__name__} (pad packed sequences with pad_packed_sequence)"
        )
    if input.dim() < batched_ndim:
        raise ValueError(
            f"per-sample gradients need a batch dimension: {type(module).__name__} got an "
            f"input of shape {list(input.shape)}"
        )
    return input


def cell(module: Any, call: Call) -> dict[str, Any]:
    """``RNNCell``, ``LSTMCell``, ``GRUCell``: one step of a batch."""
    x = Tensor._make(_input(module, call, 2)._data)
    hx = call.argument(1, "hx")
    zeros = np.zeros((x.shape[0], module.hidden_size), x._data.dtype)
    c: Tensor | None = None
    if isinstance(module, LSTMCell):
        mode = "LSTM"
        h0 = zeros if hx is None else hx[0]._data
        c = Tensor._make(zeros if hx is None else hx[1]._data)
    else:
        mode = "GRU" if isinstance(module, GRUCell) else f"RNN_{module.nonlinearity.upper()}"
        h0 = zeros if hx is None else hx._data
    recorder = Recorder()
    with grad_mode.enable_grad():
        h, c = _step(mode, recorder, module, "", x, Tensor._make(h0), c)
        return _results(module, recorder, [h] if c is None else [h, c], call)


def recurrent(module: Any, call: Call) -> dict[str, Any]:
    """``RNN``, ``LSTM``, ``GRU``: every layer and direction over the whole sequence."""
    input = _input(module, call, 3)
    if module.dropout and module.training and module.num_layers > 1:
        raise ValueError(
            f"per-sample gradients of {type(module).__name__} with dropout={module.dropout} "
            "between layers in training mode need its dropout masks, which are not kept: "
            "use dropout=0 (or nn.Dropout between single-layer modules)"
        )
    sequence = np.swapaxes(input._data, 0, 1) if module.batch_first else input._data
    steps, batch = sequence.shape[:2]
    hx = call.argument(1, "hx")
    lstm = module.mode == "LSTM"
    h0 = None if hx is None else (hx[0] if lstm else hx)._data
    c0 = None if hx is None or not lstm else hx[1]._data
    directions = 2 if module.bidirectional else 1
    sizes = (module.proj_size or module.hidden_size, module.hidden_size)
    recorder = Recorder()
    with grad_mode.enable_grad():
        layer_input = [Tensor._make(sequence[t]) for t in range(steps)]
        final_h, final_c = [], []
        for layer in range(module.num_layers):
            outputs: list[list[Any]] = []
            for direction in range(directions):
                index = layer * directions + direction
                h = Tensor._make(
                    np.zeros((batch, sizes[0]), sequence.dtype) if h0 is None else h0[index]
                )
                c = None
                if lstm:
                    c = Tensor._make(
                        np.zeros((batch, sizes[1]), sequence.dtype) if c0 is None else c0[index]
                    )
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                produced: list[Any] = [None] * steps
                for t in range(steps - 1, -1, -1) if direction else range(steps):
                    h, c = _step(module.mode, recorder, module, suffix, layer_input[t], h, c)
                    produced[t] = h
                outputs.append(produced)
                final_h.append(h)
                final_c.append(c)
            layer_input = [hookgrad.cat([out[t] for out in outputs], 1) for t in range(steps)]
        results = [
            hookgrad.stack(layer_input, 1 if module.batch_first else 0),
            hookgrad.stack(final_h),
        ]
        if lstm:
            results.append(hookgrad.stack(final_c))
        return _results(module, recorder, results, call)
