"""The recurrent computations behind ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells:
torch's ``_VF.lstm``, ``_VF.gru``, ``_VF.rnn_tanh``/``rnn_relu`` and ``_VF.*_cell``
(``aten/src/ATen/native/RNN.cpp``), step for step, so that the graph is torch's.

torch on the CPU runs each layer as a loop of small ops: the input projection of all
steps in one ``linear`` (``unbind`` into steps), then per step ``linear`` of the hidden
state, the gates (``unsafe_chunk``, sigmoid and tanh) and the new state; the outputs are
``stack``-ed (``cat``-ed for packed input) and the final states of the layers ``stack``-ed
too. A float32 LSTM without projections on unpacked input runs through oneDNN instead:
one fused node per layer and direction (``MkldnnRnnLayerBackward0``,
``hookgrad.ops.rnn``), as in torch.

Between layers, training mode with ``dropout > 0`` draws one ``F.dropout`` mask per
layer from the default generator, as torch does.

``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu`` and the four ``*_cell`` functions are torch's
top-level functions of those names (``torch.lstm`` ...); they are not part of
``hookgrad.nn.functional``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import hookgrad
from hookgrad.nn.functional.dropout import dropout
from hookgrad.nn.functional.linear import linear
from hookgrad.ops.rnn import MkldnnRnnLayer, TransposeResult, UnsafeSplit
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply

__all__ = [
    "gru",
    "gru_cell",
    "lstm",
    "lstm_cell",
    "rnn_relu",
    "rnn_relu_cell",
    "rnn_tanh",
    "rnn_tanh_cell",
]

Hidden = Any  # a tensor (RNN, GRU) or a pair of tensors (LSTM)


class CellParams:
    """The weights of one layer and direction: ``w_ih, w_hh, b_ih, b_hh, w_hr`` (biases
    and projection may be None), with torch's ``linear_ih``/``linear_hh``/``matmul_hr``."""

    def __init__(
        self, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None, b_hh: Tensor | None, w_hr: Any
    ) -> None:
        self.w_ih = w_ih
        self.w_hh = w_hh
        self.b_ih = b_ih
        self.b_hh = b_hh
        self.w_hr = w_hr

    def linear_ih(self, input: Tensor) -> Tensor:
        return linear(input, self.w_ih, self.b_ih)

    def linear_hh(self, hidden: Tensor) -> Tensor:
        return linear(hidden, self.w_hh, self.b_hh)

    def matmul_hr(self, hidden: Tensor) -> Tensor:
        return hidden if self.w_hr is None else hidden.matmul(self.w_hr.t())


def gather_params(
    params: Sequence[Tensor], has_biases: bool, has_projections: bool = False
) -> list[CellParams]:
    """The flat weight list (``weight_ih_l0, weight_hh_l0, bias_ih_l0 ...``) cut into one
    ``CellParams`` per layer and direction."""
    per_layer = 2 + 2 * has_biases + has_projections
    if len(params) % per_layer:
        raise RuntimeError("got an incorrect number of RNN parameters")
    result = []
    for start in range(0, len(params), per_layer):
        group = list(params[start : start + per_layer])
        w_ih, w_hh = group[:2]
        b_ih, b_hh = group[2:4] if has_biases else (None, None)
        w_hr = group[-1] if has_projections else None
        result.append(CellParams(w_ih, w_hh, b_ih, b_hh, w_hr))
    return result


def _unsafe_chunk(gates: Tensor, chunks: int) -> tuple[Tensor, ...]:
    """``gates.unsafe_chunk(chunks, 1)`` of a ``(batch, chunks * hidden)`` tensor."""
    size = gates.shape[1] // chunks
    return apply(UnsafeSplit(1, (size,) * chunks, size), gates)


# ---------------------------------------------------------------- cells


def _lstm_step(
    input: Tensor, hidden: Hidden, params: CellParams, pre_compute_input: bool
) -> Hidden:
    hx, cx = hidden
    projected = input if pre_compute_input else params.linear_ih(input)
    gates = params.linear_hh(hx) + projected
    ingate, forgetgate, cellgate, outgate = _unsafe_chunk(gates, 4)
    ingate = ingate.sigmoid()
    forgetgate = forgetgate.sigmoid()
    cellgate = cellgate.tanh()
    outgate = outgate.sigmoid()
    cy = forgetgate * cx + ingate * cellgate
    hy = outgate * cy.tanh()
    return params.matmul_hr(hy), cy


def _gru_step(input: Tensor, hidden: Tensor, params: CellParams, pre_compute_input: bool) -> Tensor:
    projected = input if pre_compute_input else params.linear_ih(input)
    input_r, input_z, input_n = _unsafe_chunk(projected, 3)
    hidden_r, hidden_z, hidden_n = _unsafe_chunk(params.linear_hh(hidden), 3)
    reset_gate = (hidden_r + input_r).sigmoid()
    input_gate = (hidden_z + input_z).sigmoid()
    new_gate = (input_n + hidden_n * reset_gate).tanh()
    return (hidden - new_gate) * input_gate + new_gate


def _simple_step(
    nonlinearity: Callable[[Tensor], Tensor],
) -> Callable[[Tensor, Tensor, CellParams, bool], Tensor]:
    def step(input: Tensor, hidden: Tensor, params: CellParams, pre_compute_input: bool) -> Tensor:
        projected = input if pre_compute_input else params.linear_ih(input)
        return nonlinearity(params.linear_hh(hidden) + projected)

    return step


_STEPS: dict[str, Callable[..., Any]] = {
    "LSTM": _lstm_step,
    "GRU": _gru_step,
    "RNN_TANH": _simple_step(Tensor.tanh),
    "RNN_RELU": _simple_step(Tensor.relu),
}


def _as_output(hidden: Hidden) -> Tensor:
    """The part of a hidden state that is the layer's output at that step."""
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _narrow_hidden(hidden: Hidden, start: int, end: int) -> Hidden:
    if isinstance(hidden, tuple):
        return tuple(h.narrow(0, start, end - start) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _cat_hidden(hiddens: Sequence[Hidden]) -> Hidden:
    if isinstance(hiddens[0], tuple):
        return tuple(hookgrad.cat([h[k] for h in hiddens], 0) for k in range(len(hiddens[0])))
    return hookgrad.cat(list(hiddens), 0)


# ---------------------------------------------------------------- layers on full sequences


def _run_steps(
    step: Callable[..., Any], inputs: Sequence[Tensor], hidden: Hidden, params: CellParams
) -> tuple[list[Tensor], Hidden]:
    outputs = []
    for input in inputs:
        hidden = step(input, hidden, params, True)
        outputs.append(_as_output(hidden))
    return outputs, hidden


def _full_layer(
    step: Callable[..., Any], input: Tensor, hidden: Hidden, params: CellParams
) -> tuple[Tensor, Hidden]:
    outputs, hidden = _run_steps(step, params.linear_ih(input).unbind(0), hidden, params)
    return hookgrad.stack(outputs, 0), hidden


def _full_bidirectional_layer(
    step: Callable[..., Any], input: Tensor, hidden: tuple[Hidden, Hidden], params: Any
) -> tuple[Tensor, tuple[Hidden, Hidden]]:
    forward_params, reverse_params = params
    outputs, forward_hidden = _run_steps(
        step, forward_params.linear_ih(input).unbind(0), hidden[0], forward_params
    )
    forward_output = hookgrad.stack(outputs, 0)
    steps = reverse_params.linear_ih(input).unbind(0)[::-1]
    outputs, reverse_hidden = _run_steps(step, steps, hidden[1], reverse_params)
    reverse_output = hookgrad.stack(outputs[::-1], 0)
    output = hookgrad.cat([forward_output, reverse_output], forward_output.ndim - 1)
    return output, (forward_hidden, reverse_hidden)


# ---------------------------------------------------------------- layers on packed sequences


def _packed_layer(
    step: Callable[..., Any],
    data: Tensor,
    batch_sizes: Sequence[int],
    hidden: Hidden,
    params: CellParams,
) -> tuple[Tensor, Hidden]:
    """One direction over a packed sequence: the batch shrinks as sequences end; their
    final states are set aside and joined (in batch order) at the end."""
    projected = params.linear_ih(data)
    finished = []
    outputs = []
    offset = 0
    last = batch_sizes[0]
    for size in batch_sizes:
        step_input = projected.narrow(0, offset, size)
        offset += size
        if size < last:
            finished.append(_narrow_hidden(hidden, size, last))
            hidden = _narrow_hidden(hidden, 0, size)
        last = size
        hidden = step(step_input, hidden, params, True)
        outputs.append(_as_output(hidden))
    finished.append(hidden)
    return hookgrad.cat(outputs, 0), _cat_hidden(finished[::-1])


def _reversed_packed_layer(
    step: Callable[..., Any],
    data: Tensor,
    batch_sizes: Sequence[int],
    hidden: Hidden,
    params: CellParams,
) -> tuple[Tensor, Hidden]:
    """The reverse direction over a packed sequence: it starts with the sequences that
    are longest and takes the others' initial states in as they begin."""
    projected = params.linear_ih(data)
    outputs = []
    offset = data.shape[0]
    last = batch_sizes[-1]
    initial = hidden
    hidden = _narrow_hidden(initial, 0, last)
    for size in reversed(batch_sizes):
        if size > last:
            hidden = _cat_hidden([hidden, _narrow_hidden(initial, last, size)])
        step_input = projected.narrow(0, offset - size, size)
        offset -= size
        last = size
        hidden = step(step_input, hidden, params, True)
        outputs.append(_as_output(hidden))
    return hookgrad.cat(outputs[::-1], 0), hidden


def _packed_bidirectional_layer(
    step: Callable[..., Any],
    data: Tensor,
    batch_sizes: Sequence[int],
    hidden: tuple[Hidden, Hidden],
    params: Any,
) -> tuple[Tensor, tuple[Hidden, Hidden]]:
    forward_output, forward_hidden = _packed_layer(step, data, batch_sizes, hidden[0], params[0])
    reverse_output, reverse_hidden = _reversed_packed_layer(
        step, data, batch_sizes, hidden[1], params[1]
    )
    output = hookgrad.cat([forward_output, reverse_output], -1)
    return output, (forward_hidden, reverse_hidden)


# ---------------------------------------------------------------- the layer stack


def _layer_stack(
    mode: str,
    input: Tensor,
    batch_sizes: Sequence[int] | None,
    hiddens: list[Hidden],
    params: list[CellParams],
    num_layers: int,
    dropout_p: float,
    train: bool,
    bidirectional: bool,
) -> tuple[Tensor, list[Hidden]]:
    """torch's ``_rnn_impl``: the layers one after the other (dropout between them);
    the output and every layer's (and direction's) final hidden state."""
    step = _STEPS[mode]
    directions = 2 if bidirectional else 1
    finals: list[Hidden] = []
    layer_input = input
    for layer in range(num_layers):
        start = layer * directions
        layer_params = params[start : start + directions]
        layer_hidden = hiddens[start : start + directions]
        if bidirectional and batch_sizes is None:
            layer_input, final = _full_bidirectional_layer(
                step, layer_input, tuple(layer_hidden), layer_params
            )
            finals.extend(final)
        elif bidirectional:
            layer_input, final = _packed_bidirectional_layer(
                step, layer_input, batch_sizes, tuple(layer_hidden), layer_params
            )
            finals.extend(final)
        elif batch_sizes is None:
            layer_input, final = _full_layer(step, layer_input, layer_hidden[0], layer_params[0])
            finals.append(final)
        else:
            layer_input, final = _packed_layer(
                step, layer_input, batch_sizes, layer_hidden[0], layer_params[0]
            )
            finals.append(final)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = dropout(layer_input, dropout_p, True)
    return layer_input, finals


def _check_steps(input: Tensor) -> None:
    if input.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")


def _hidden_states(mode: str, hx: Any) -> list[Hidden]:
    """Per layer and direction: the initial hidden state (a pair for an LSTM)."""
    if mode == "LSTM":
        return list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    return list(hx.unbind(0))


def _final_states(mode: str, finals: list[Hidden]) -> tuple[Tensor, ...]:
    if mode == "LSTM":
        return hookgrad.stack([h for h, _ in finals], 0), hookgrad.stack([c for _, c in finals], 0)
    return (hookgrad.stack(finals, 0),)


def rnn(
    mode: str,
    input: Tensor,
    hx: Any,
    params: Sequence[Tensor],
    has_biases: bool,
    num_layers: int,
    dropout_p: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[Tensor, ...]:
    """torch's ``_VF.lstm``/``gru``/``rnn_tanh``/``rnn_relu`` on a padded sequence
    (``mode`` ``"LSTM"``, ``"GRU"``, ``"RNN_TANH"`` or ``"RNN_RELU"``): ``(output, h_n)``,
    ``(output, h_n, c_n)`` for an LSTM (``hx`` is then a pair).

    Example::

        out, h_n = rnn("GRU", x, h0, gru._flat_weights, True, 1, 0.0, False, False, False)
    """
    if mode == "LSTM" and _use_mkldnn(input, hx):
        return _mkldnn_lstm(
            input, hx, params, has_biases, num_layers, dropout_p, train, bidirectional, batch_first
        )
    has_projections = mode == "LSTM" and hx[0].shape[2] != hx[1].shape[2]
    if has_projections and input.dtype == hookgrad.float32 and input.numel():
        _warn_projections()
    time_major = input.transpose(0, 1) if batch_first else input
    _check_steps(time_major)
    cells = gather_params(params, has_biases, has_projections)
    output, finals = _layer_stack(
        mode,
        time_major,
        None,
        _hidden_states(mode, hx),
        cells,
        num_layers,
        dropout_p,
        train,
        bidirectional,
    )
    if batch_first:
        # NOTE: torch's LSTM transposes its result, the other modes transpose it in place.
        if mode == "LSTM":
            output = output.transpose(0, 1)
        else:
            output = apply(TransposeResult(0, 1), output)
    return (output, *_final_states(mode, finals))


def rnn_packed(
    mode: str,
    data: Tensor,
    batch_sizes: Tensor,
    hx: Any,
    params: Sequence[Tensor],
    has_biases: bool,
    num_layers: int,
    dropout_p: float,
    train: bool,
    bidirectional: bool,
) -> tuple[Tensor, ...]:
    """``rnn`` on a packed sequence (``data`` and ``batch_sizes`` of a
    ``PackedSequence``): the packed output's data and the final states."""
    has_projections = mode == "LSTM" and hx[0].shape[2] != hx[1].shape[2]
    sizes = [int(size) for size in batch_sizes.tolist()]
    cells = gather_params(params, has_biases, has_projections)
    output, finals = _layer_stack(
        mode,
        data,
        sizes,
        _hidden_states(mode, hx),
        cells,
        num_layers,
        dropout_p,
        train,
        bidirectional,
    )
    return (output, *_final_states(mode, finals))


# ---------------------------------------------------------------- oneDNN's LSTM

_warned_projections = False


def _warn_projections() -> None:
    """torch's once-per-process warning: its oneDNN LSTM has no projections."""
    global _warned_projections
    if not _warned_projections:
        _warned_projections = True
        warnings.warn(
            "LSTM with projections is not supported with oneDNN. Using default implementation.",
            UserWarning,
            stacklevel=4,
        )


def _use_mkldnn(input: Tensor, hx: Any) -> bool:
    """Where torch runs an LSTM through oneDNN: float32 input that is not empty, and no
    projections."""
    return (
        input.dtype == hookgrad.float32 and input.numel() != 0 and hx[0].shape[2] == hx[1].shape[2]
    )


def _mkldnn_lstm(
    input: Tensor,
    hx: Any,
    params: Sequence[Tensor],
    has_biases: bool,
    num_layers: int,
    dropout_p: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """torch's ``mkldnn_rnn``: one ``MkldnnRnnLayer`` node per layer and direction."""
    directions = 2 if bidirectional else 1
    layer_input = (input.transpose(0, 1) if batch_first else input).contiguous()
    h0, c0 = hx[0].contiguous(), hx[1].contiguous()
    cells = gather_params(params, has_biases)
    hidden_size = h0.shape[2]
    finals_h, finals_c = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            cell = cells[index]
            b_ih, b_hh = cell.b_ih, cell.b_hh
            if b_ih is None:
                b_ih = hookgrad.zeros(cell.w_ih.shape[0])
                b_hh = hookgrad.zeros(cell.w_hh.shape[0])
            op = MkldnnRnnLayer(
                direction > 0,
                hidden_size,
                num_layers,
                has_biases,
                bidirectional,
                batch_first,
                train,
            )
            output, hy, cy, _ = apply(
                op, layer_input, cell.w_ih, cell.w_hh, b_ih, b_hh, h0[index], c0[index]
            )
            outputs.append(output)
            finals_h.append(hy)
            finals_c.append(cy)
        layer_input = outputs[0] if directions == 1 else hookgrad.cat(outputs, -1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = dropout(layer_input, dropout_p, True)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    return output, hookgrad.stack(finals_h, 0), hookgrad.stack(finals_c, 0)


# ---------------------------------------------------------------- single steps


def _check_cell_input(input: Tensor, w_ih: Tensor) -> None:
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}"
        )


def _check_cell_hidden(input: Tensor, hx: Tensor, hidden_size: int, label: str) -> None:
    if input.shape[0] != hx.shape[0]:
        raise RuntimeError(
            f"Input batch size {input.shape[0]} doesn't match hidden{label} batch size "
            f"{hx.shape[0]}"
        )
    if hx.shape[1] != hidden_size:
        raise RuntimeError(
            f"hidden{label} has inconsistent hidden_size: got {hx.shape[1]}, expected {hidden_size}"
        )


def cell(
    mode: str,
    input: Tensor,
    hx: Any,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Any:
    """One step of a recurrent cell (torch's ``lstm_cell``, ``gru_cell``,
    ``rnn_tanh_cell``, ``rnn_relu_cell``) on a batch: the new hidden state (a pair
    ``(h, c)`` for an LSTM).

    Example::

        h1, c1 = cell("LSTM", x, (h0, c0), w_ih, w_hh, b_ih, b_hh)
    """
    _check_cell_input(input, w_ih)
    hidden_size = w_hh.shape[1]
    if mode == "LSTM":
        _check_cell_hidden(input, hx[0], hidden_size, "0")
        _check_cell_hidden(input, hx[1], hidden_size, "1")
        hidden: Hidden = (hx[0], hx[1])
    else:
        _check_cell_hidden(input, hx, hidden_size, "0")
        hidden = hx
    return _STEPS[mode](input, hidden, CellParams(w_ih, w_hh, b_ih, b_hh, None), False)


# ---------------------------------------------------------------- torch's functions


def _layers(mode: str, args: tuple[Any, ...], packed: bool) -> tuple[Tensor, ...]:
    if packed:
        data, batch_sizes, hx, params, *flags = args
        return rnn_packed(mode, data, batch_sizes, hx, params, *flags)
    input, hx, params, *flags = args
    return rnn(mode, input, hx, params, *flags)


def lstm(*args: Any) -> tuple[Tensor, Tensor, Tensor]:
    """torch's ``lstm``: ``(output, h_n, c_n)`` of LSTM layers, either
    ``lstm(input, (h0, c0), params, has_biases, num_layers, dropout, train,
    bidirectional, batch_first)`` or, on a packed sequence,
    ``lstm(data, batch_sizes, (h0, c0), params, has_biases, num_layers, dropout, train,
    bidirectional)``. ``params`` is ``nn.LSTM._flat_weights``.

    Example::

        out, h, c = hookgrad.lstm(x, (h0, c0), lstm._flat_weights, True, 1, 0.0, False,
                                  False, False)
    """
    return _layers("LSTM", args, isinstance(args[1], Tensor))  # type: ignore[return-value]


def gru(*args: Any) -> tuple[Tensor, Tensor]:
    """torch's ``gru``: ``(output, h_n)`` of GRU layers; arguments as ``lstm``'s with one
    initial state ``hx``.

    Example: ``out, h = hookgrad.gru(x, h0, gru._flat_weights, True, 1, 0.0, False, False,
    False)``.
    """
    return _layers("GRU", args, isinstance(args[2], Tensor))  # type: ignore[return-value]


def rnn_tanh(*args: Any) -> tuple[Tensor, Tensor]:
    """torch's ``rnn_tanh``: ``(output, h_n)`` of Elman layers with tanh; arguments as
    ``gru``'s.

    Example: ``out, h = hookgrad.rnn_tanh(x, h0, rnn._flat_weights, True, 1, 0.0, False,
    False, False)``.
    """
    return _layers("RNN_TANH", args, isinstance(args[2], Tensor))  # type: ignore[return-value]


def rnn_relu(*args: Any) -> tuple[Tensor, Tensor]:
    """torch's ``rnn_relu``: ``(output, h_n)`` of Elman layers with relu; arguments as
    ``gru``'s.

    Example: ``out, h = hookgrad.rnn_relu(x, h0, rnn._flat_weights, True, 1, 0.0, False,
    False, False)``.
    """
    return _layers("RNN_RELU", args, isinstance(args[2], Tensor))  # type: ignore[return-value]


def lstm_cell(
    input: Tensor,
    hx: Any,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """torch's ``lstm_cell``: one LSTM step, ``(h', c')`` from ``input (B, I)`` and
    ``hx = (h, c)`` (each ``(B, H)``).

    Example: ``h1, c1 = hookgrad.lstm_cell(x, (h0, c0), w_ih, w_hh, b_ih, b_hh)``.
    """
    return cell("LSTM", input, hx, w_ih, w_hh, b_ih, b_hh)  # type: ignore[no-any-return]


def gru_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """torch's ``gru_cell``: one GRU step, ``h'`` from ``input (B, I)`` and ``hx (B, H)``.

    Example: ``h1 = hookgrad.gru_cell(x, h0, w_ih, w_hh, b_ih, b_hh)``.
    """
    return cell("GRU", input, hx, w_ih, w_hh, b_ih, b_hh)  # type: ignore[no-any-return]


def rnn_tanh_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """torch's ``rnn_tanh_cell``: ``tanh(input W_ih^T + b_ih + hx W_hh^T + b_hh)``.

    Example: ``h1 = hookgrad.rnn_tanh_cell(x, h0, w_ih, w_hh)``.
    """
    return cell("RNN_TANH", input, hx, w_ih, w_hh, b_ih, b_hh)  # type: ignore[no-any-return]


def rnn_relu_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """torch's ``rnn_relu_cell``: ``relu(input W_ih^T + b_ih + hx W_hh^T + b_hh)``.

    Example: ``h1 = hookgrad.rnn_relu_cell(x, h0, w_ih, w_hh)``.
    """
    return cell("RNN_RELU", input, hx, w_ih, w_hh, b_ih, b_hh)  # type: ignore[no-any-return]
