"""Recurrent-network ops: torch's fused LSTM layer node (``MkldnnRnnLayerBackward0``),
``_pack_padded_sequence`` (``PackPaddedSequenceBackward0``), and the two small ops torch's
recurrent layers record: ``unsafe_split`` (``UnsafeSplitBackward0``) and the in-place
``transpose_`` of a result (``TransposeBackward1``).

torch runs a float32 LSTM without projections on the CPU through oneDNN: one node per
layer and direction, ``mkldnn_rnn_layer(input, w_ih, w_hh, b_ih, b_hh, hx, cx)`` with
outputs ``(output, hy, cy, workspace)``. ``MkldnnRnnLayer`` is that node, in NumPy:

- forward: per step, one matrix product (``[w_ih | w_hh] @ [x_t ; h]``), one ``tanh`` for
  all four gates and a few elementwise passes; the gate activations and cell states of
  every step are the workspace;
- backward: back-propagation through time, again one product per step (the gradient of
  the hidden state), every other product (``w_ih``, ``w_hh``, the input) over all steps
  at once.

As torch's, the backward with grad mode on (``create_graph=True``) is a different one
(``mkldnn_rnn_layer_differentiable_backward``): the layer is recomputed from its saved
inputs with differentiable ops and back-propagated with them, so second derivatives
come from those ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops.base import Op
from hookgrad.ops.shape import Split, Transpose

# torch's ``mode`` numbers of the recurrent cells (``_saved_mode``).
MODE_LSTM = 2


class UnsafeSplit(Split):
    """``unsafe_split``: ``split`` whose pieces are not tracked as views (torch's recurrent
    cells split their gates with it and then change the pieces in place)."""

    node_name = "UnsafeSplitBackward0"
    view = False


class TransposeResult(Transpose):
    """``transpose_`` of a layer's fresh result, as torch's GRU and RNN do with
    ``batch_first``: the node is torch's in-place ``TransposeBackward1``; the result is
    no view (nothing else holds the tensor it was made from)."""

    node_name = "TransposeBackward1"
    view = False


# ---------------------------------------------------------------- array kernels


def _steps(length: int, reverse: bool) -> range:
    """The time steps in the order a layer runs them."""
    return range(length - 1, -1, -1) if reverse else range(length)


# NOTE: the kernels work feature-major: a step's gates are a (4H, B) array whose blocks are
# contiguous, in the order (o, i, f, g) rather than torch's (i, f, g, o). The three sigmoid
# gates are then one block in the forward, and the three gates whose gradient scales with
# the cell state's (i, f, g) one block in the backward; the per-step products
# ``W_hh @ h`` and ``W_hh^T @ dG`` are also the faster way round for BLAS.
def _gate_order(rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """torch's gate blocks (i, f, g, o) of a weight or bias as (o, i, f, g), into ``out``
    if given."""
    if out is None:
        out = np.empty_like(rows)
    block = rows.shape[0] // 4
    out[:block] = rows[3 * block :]
    out[block:] = rows[: 3 * block]
    return out


def _workspace(
    workspace: np.ndarray, steps: int, batch: int, hidden: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The parts of the flat workspace: each step's activated gates (T, 4H, B) in the
    order (o, i, f, g), cell states (T, H, B) and their tanh (T, H, B)."""
    size = steps * batch * hidden
    gates = workspace[: 4 * size].reshape(steps, 4 * hidden, batch)
    cells = workspace[4 * size : 5 * size].reshape(steps, hidden, batch)
    tanh_cells = workspace[5 * size :].reshape(steps, hidden, batch)
    return gates, cells, tanh_cells


def lstm_layer_forward(
    x: np.ndarray,
    w_ih: np.ndarray,
    w_hh: np.ndarray,
    b_ih: np.ndarray,
    b_hh: np.ndarray,
    hx: np.ndarray,
    cx: np.ndarray,
    reverse: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One LSTM layer over ``x`` (time, batch, features): ``(output, hy, cy, workspace)``
    (see ``_workspace``)."""
    steps, batch, features = x.shape
    hidden = hx.shape[1]
    # The inputs' part of every step's gates in one product (bias included), then each
    # step adds w_hh @ h.
    w_ih_gates, w_hh_gates = _gate_order(w_ih), _gate_order(w_hh)
    bias = (_gate_order(b_ih) + _gate_order(b_hh))[:, None]
    # sigmoid(z) = (1 + tanh(z / 2)) / 2: with the sigmoid gates' rows halved (exactly),
    # one tanh activates all four gates.
    for rows in (w_ih_gates, w_hh_gates, bias):
        rows[: 3 * hidden] *= 0.5
    from_inputs = w_ih_gates @ x.reshape(steps * batch, features).T
    from_inputs += bias
    from_inputs = from_inputs.reshape(4 * hidden, steps, batch)
    workspace = np.empty(steps * batch * 6 * hidden, x.dtype)
    gates, cells, tanh_cells = _workspace(workspace, steps, batch, hidden)
    h = hx.T.copy()  # written in place each step: never a view of hx
    c = np.ascontiguousarray(cx.T)
    states = np.empty((steps, hidden, batch), x.dtype)
    input_part = np.empty((hidden, batch), x.dtype)
    for t in _steps(steps, reverse):
        g = gates[t]
        np.matmul(w_hh_gates, h, out=g)
        g += from_inputs[:, t]
        np.tanh(g, out=g)
        sigmoids = g[: 3 * hidden]
        sigmoids *= 0.5
        sigmoids += 0.5
        c_new = cells[t]
        np.multiply(g[2 * hidden : 3 * hidden], c, out=c_new)
        np.multiply(g[hidden : 2 * hidden], g[3 * hidden :], out=input_part)
        c_new += input_part
        np.tanh(c_new, out=tanh_cells[t])
        np.multiply(g[:hidden], tanh_cells[t], out=h)
        states[t] = h
        c = c_new
    output = np.ascontiguousarray(states.transpose(0, 2, 1))
    return output, h.T.copy(), c.T.copy(), workspace


def lstm_layer_backward(
    x: np.ndarray,
    w_ih: np.ndarray,
    w_hh: np.ndarray,
    hx: np.ndarray,
    cx: np.ndarray,
    output: np.ndarray,
    workspace: np.ndarray,
    grad_output: np.ndarray | None,
    grad_hy: np.ndarray | None,
    grad_cy: np.ndarray | None,
    reverse: bool,
    need_input: bool = True,
) -> tuple[np.ndarray | None, ...]:
    """The gradients of ``lstm_layer_forward``'s ``x, w_ih, w_hh, b, hx, cx`` (one bias
    gradient: both biases get it) from those of its outputs (None: zeros); without
    ``need_input``, None for ``x``."""
    steps, batch, _ = x.shape
    hidden = hx.shape[1]
    gates, cells, tanh_cells = _workspace(workspace, steps, batch, hidden)
    o, i, f, g = (gates[:, k * hidden : (k + 1) * hidden] for k in range(4))
    # The cell state each step started from (the hidden states come from ``output``).
    previous_c = np.empty_like(cells)
    previous_h = np.empty_like(output)
    if reverse:
        previous_c[:-1], previous_c[-1] = cells[1:], cx.T
        previous_h[:-1], previous_h[-1] = output[1:], hx
    else:
        previous_c[1:], previous_c[0] = cells[:-1], cx.T
        previous_h[1:], previous_h[0] = output[:-1], hx
    # Each step's gate gradients per unit of its hidden-state gradient (o) or cell-state
    # gradient (i, f, g): the derivatives of the activations times the other factor; and
    # the cell state's gradient per unit of the hidden state's.
    scale = np.empty_like(gates)
    sigmoids = scale[:, : 3 * hidden]
    np.subtract(1, gates[:, : 3 * hidden], out=sigmoids)
    sigmoids *= gates[:, : 3 * hidden]
    scale[:, :hidden] *= tanh_cells
    scale[:, hidden : 2 * hidden] *= g
    scale[:, 2 * hidden : 3 * hidden] *= previous_c
    tanh_part = scale[:, 3 * hidden :]
    np.multiply(g, g, out=tanh_part)
    np.subtract(1, tanh_part, out=tanh_part)
    tanh_part *= i
    cell_from_hidden = tanh_cells * tanh_cells
    np.subtract(1, cell_from_hidden, out=cell_from_hidden)
    cell_from_hidden *= o
    w_hh_t = _gate_order(w_hh).T
    grad_gates = np.empty_like(gates)
    grad_h = np.zeros((hidden, batch), x.dtype) if grad_hy is None else grad_hy.T.copy()
    grad_c = np.zeros((hidden, batch), x.dtype) if grad_cy is None else grad_cy.T.copy()
    term = np.empty_like(grad_c)
    for t in _steps(steps, not reverse):
        if grad_output is not None:
            grad_h += grad_output[t].T
        np.multiply(grad_h, cell_from_hidden[t], out=term)
        grad_c += term
        step_grad = grad_gates[t]
        np.multiply(scale[t, :hidden], grad_h, out=step_grad[:hidden])
        np.multiply(
            scale[t, hidden:].reshape(3, hidden, batch),
            grad_c,
            out=step_grad[hidden:].reshape(3, hidden, batch),
        )
        grad_c *= f[t]
        grad_h = w_hh_t @ step_grad
    # (4H, T * B): the gate gradients of every step, one column per (step, sample), back
    # in torch's gate order (i, f, g, o), so that the weights' gradients come out in it.
    columns = np.empty((4 * hidden, steps, batch), gates.dtype)
    columns[: 3 * hidden] = grad_gates[:, hidden:].transpose(1, 0, 2)
    columns[3 * hidden :] = grad_gates[:, :hidden].transpose(1, 0, 2)
    columns = columns.reshape(4 * hidden, -1)
    grad_x = None
    if need_input:
        grad_x = (columns.T @ w_ih).reshape(x.shape)
    grad_w_ih = columns @ x.reshape(steps * batch, -1)
    grad_w_hh = columns @ previous_h.reshape(steps * batch, hidden)
    grad_b = columns.sum(1)
    return grad_x, grad_w_ih, grad_w_hh, grad_b, grad_h.T.copy(), grad_c.T.copy()


# ---------------------------------------------------------------- the ops


class MkldnnRnnLayer(Op):
    """torch's ``mkldnn_rnn_layer`` for an LSTM: one layer, one direction, over a whole
    ``(T, B, features)`` sequence. Inputs ``input, weight0..3 (w_ih, w_hh, b_ih, b_hh),
    hx_, cx_``; outputs ``(output, hy, cy, workspace)``, the workspace without history."""

    input_names = ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")
    output_names = ("result0", "result1", "result2", "result3")
    saves = (
        "input",
        "weight0",
        "weight1",
        "weight2",
        "weight3",
        "hx_",
        "cx_",
        "result0",
        "result1",
        "result2",
        "result3",
    )
    saved_attributes = (
        "batch_first",
        "batch_sizes",
        "bidirectional",
        "has_biases",
        "hidden_size",
        "mode",
        "num_layers",
        "reverse",
        "train",
    )
    differentiable_outputs = 3

    def __init__(
        self,
        reverse: bool,
        hidden_size: int,
        num_layers: int,
        has_biases: bool,
        bidirectional: bool,
        batch_first: bool,
        train: bool,
    ) -> None:
        self.reverse = reverse
        self.batch_sizes = ()
        self.mode = MODE_LSTM
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.has_biases = has_biases
        self.bidirectional = bidirectional
        self.batch_first = batch_first
        self.train = train

    def forward(self, x: Any, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any, hx: Any, cx: Any) -> Any:
        return lstm_layer_forward(x, w_ih, w_hh, b_ih, b_hh, hx, cx, self.reverse)

    def backward(self, grad_output: Any, grad_hy: Any, grad_cy: Any) -> Any:
        x, w_ih, w_hh, b_ih, b_hh, hx, cx, output, _, _, workspace = self.unpack()
        if grad_mode.is_grad_enabled():
            return lstm_layer_differentiable_backward(
                x, w_ih, w_hh, b_ih, b_hh, hx, cx, grad_output, grad_hy, grad_cy, self.reverse
            )
        op = MkldnnRnnLayerBackward(self.reverse, self.needs_input_grad[0])
        grads = x._apply_op(
            op, w_ih, w_hh, hx, cx, output, workspace, grad_output, grad_hy, grad_cy
        )
        grad_x, grad_w_ih, grad_w_hh, grad_b, grad_hx, grad_cx = grads
        return grad_x, grad_w_ih, grad_w_hh, grad_b, grad_b, grad_hx, grad_cx


class MkldnnRnnLayerBackward(Op):
    """torch's ``mkldnn_rnn_layer_backward`` for an LSTM layer: the gradients of its
    ``input, w_ih, w_hh, bias, hx, cx``. It runs with grad mode off only (with grad mode
    on, the differentiable backward runs instead), so it records no node."""

    input_names = (
        "input",
        "weight0",
        "weight1",
        "hx_",
        "cx_",
        "output",
        "workspace",
        "grad_output",
        "grad_hy",
        "grad_cy",
    )

    def __init__(self, reverse: bool, need_input: bool) -> None:
        self.reverse = reverse
        self.need_input = need_input

    def forward(self, *arrays: Any) -> Any:
        return lstm_layer_backward(*arrays, self.reverse, self.need_input)


def lstm_layer_differentiable_backward(
    x: Any,
    w_ih: Any,
    w_hh: Any,
    b_ih: Any,
    b_hh: Any,
    hx: Any,
    cx: Any,
    grad_output: Any,
    grad_hy: Any,
    grad_cy: Any,
    reverse: bool,
) -> tuple[Any, ...]:
    """The gradients of ``MkldnnRnnLayer``'s inputs made of differentiable ops on tensors
    (torch's ``mkldnn_rnn_layer_differentiable_backward``): the gates are recomputed from
    the inputs, then back-propagated step by step."""
    steps = x.shape[0]
    hidden = hx.shape[1]
    projected = x.matmul(w_ih.t()) + b_ih + b_hh
    order = list(_steps(steps, reverse))
    h, c = hx, cx
    saved = []  # per step in run order: the states it started from and its gates
    for t in order:
        gates = projected[t] + h.matmul(w_hh.t())
        i, f, g, o = gates.chunk(4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        saved.append((h, c, i, f, g, o))
        c = f * c + i * g
        h = o * c.tanh()
        saved[-1] += (c,)
    grad_h = hx.new_zeros(hx.shape) if grad_hy is None else grad_hy
    grad_c = cx.new_zeros(cx.shape) if grad_cy is None else grad_cy
    grad_gates: list[Any] = [None] * steps
    previous_h: list[Any] = [None] * steps
    for t, (h_prev, c_prev, i, f, g, o, c_new) in reversed(list(zip(order, saved))):
        if grad_output is not None:
            grad_h = grad_h + grad_output[t]
        tanh_c = c_new.tanh()
        grad_c = grad_c + grad_h * o * (1 - tanh_c * tanh_c)
        pieces = [
            grad_c * g * i * (1 - i),
            grad_c * c_prev * f * (1 - f),
            grad_c * i * (1 - g * g),
            grad_h * tanh_c * o * (1 - o),
        ]
        grad_gates[t] = x._cat(pieces, 1)
        previous_h[t] = h_prev
        grad_c = grad_c * f
        grad_h = grad_gates[t].matmul(w_hh)
    rows = x._stack(grad_gates, 0).reshape(steps * x.shape[1], 4 * hidden)
    inputs = x.reshape(steps * x.shape[1], x.shape[2])
    grad_x = rows.matmul(w_ih).reshape(x.shape)
    grad_w_ih = rows.t().matmul(inputs)
    grad_w_hh = rows.t().matmul(x._stack(previous_h, 0).reshape(-1, hidden))
    grad_b = rows.sum(0)
    return grad_x, grad_w_ih, grad_w_hh, grad_b, grad_b, grad_h, grad_c


# ---------------------------------------------------------------- packing


def pack_padded(x: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """torch's ``_pack_padded_sequence`` on a time-major ``x (T, B, *)`` with ``lengths``
    sorted longest first: the steps of all sequences, step after step, and the batch size
    of each step (int64)."""
    batch = x.shape[1]
    pieces = []
    batch_sizes = np.empty(int(lengths[0]), np.int64)
    previous = 0
    for i in range(batch):
        length = int(lengths[batch - 1 - i])
        if length > previous:
            size = batch - i
            piece = x[previous:length, :size]
            pieces.append(piece.reshape((-1,) + x.shape[2:]))
            batch_sizes[previous:length] = size
            previous = length
    return np.concatenate(pieces), batch_sizes


class PackPaddedSequence(Op):
    """torch's ``_pack_padded_sequence(input, lengths, batch_first)``: outputs the packed
    data and ``batch_sizes`` (int64, without history). The gradient puts each packed
    row back in its padded place (zeros in the padding)."""

    input_names = ("input", "lengths")
    non_differentiable = ("lengths",)
    saves = ("result1",)
    saved_attributes = ("batch_first", "input_sym_sizes")
    differentiable_outputs = 1

    def __init__(self, batch_first: bool) -> None:
        self.batch_first = batch_first

    def forward(self, x: Any, lengths: Any) -> Any:
        self.input_sym_sizes = x.shape
        return pack_padded(x.swapaxes(0, 1) if self.batch_first else x, lengths)

    def backward(self, grad: Any) -> Any:
        (batch_sizes,) = self.unpack()
        sizes = self.input_sym_sizes
        if self.batch_first:
            sizes = (sizes[1], sizes[0]) + tuple(sizes[2:])
        grad_input = grad.new_zeros(sizes)
        offset = 0
        for step, size in enumerate(batch_sizes.tolist()):
            rows = grad_input.select(0, step).narrow(0, 0, size)
            rows.copy_(grad.narrow(0, offset, size))
            offset += size
        if self.batch_first:
            grad_input = grad_input.transpose(0, 1)
        return grad_input, None
