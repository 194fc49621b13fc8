"""nn modules: the recurrent layers ``RNN``, ``LSTM``, ``GRU`` (on ``RNNBase``) and their
one-step cells ``RNNCell``, ``LSTMCell``, ``GRUCell`` (on ``RNNCellBase``).

Parameters are torch's, by name, shape and order (``weight_ih_l0``, ``weight_hh_l0``,
``bias_ih_l0``, ``bias_hh_l0``, ``weight_hr_l0`` with ``proj_size``, then
``..._reverse`` for the second direction, layer after layer), and start uniform on
``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]`` drawn in that order, so a seeded model
starts with torch's weights. Inputs are ``(T, B, features)`` (``(B, T, features)`` with
``batch_first``), unbatched ``(T, features)``, or a ``PackedSequence``. The computation is
``hookgrad.nn.functional.rnn``: torch's, node for node.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import hookgrad
from hookgrad.nn import init
from hookgrad.nn.functional import rnn as F_rnn
from hookgrad.nn.modules.module import Module
from hookgrad.nn.parameter import Parameter
from hookgrad.nn.utils.rnn import PackedSequence
from hookgrad.tensor import Tensor

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


class RNNBase(Module):
    """What the recurrent layers share: the parameters of every layer and direction,
    their initialisation, and the checks of the input and hidden-state shapes.

    ``mode`` is ``"LSTM"``, ``"GRU"``, ``"RNN_TANH"`` or ``"RNN_RELU"``; the other
    arguments are those of ``RNN``/``LSTM``/``GRU``. ``forward`` is theirs.

    Example::

        layer = nn.RNNBase("GRU", 8, 16, num_layers=2)
        [name for name, _ in layer.named_parameters()][:2]  # ['weight_ih_l0', 'weight_hh_l0']
    """

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * directions
                shapes = [(gate_size, layer_input_size), (gate_size, real_hidden_size)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [name.format(layer, suffix) for name in names]
                for name, shape in zip(names, shapes):
                    setattr(
                        self, name, Parameter(hookgrad.empty(shape, device=device, dtype=dtype))
                    )
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Any]:
        """The parameters in torch's flat order (what the computation takes)."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters per layer and direction: ``[[w_ih, w_hh, b_ih, b_hh], ...]``."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Does nothing: torch packs the weights into one buffer for cuDNN only."""

    def reset_parameters(self) -> None:
        """Re-draw every parameter uniform on ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``,
        in registration order."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        """torch's checks of the input's dtype (the weights'), rank and feature size."""
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                f"Convert input: input.to({weight.dtype}), or convert model: "
                f"model.to({input.dtype})"
            )
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.size(-1)}"
            )

    def get_expected_hidden_size(
        self, input: Tensor, batch_sizes: Tensor | None
    ) -> tuple[int, int, int]:
        """``(num_layers * directions, batch, proj_size or hidden_size)``."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, mini_batch, size)

    def check_hidden_size(
        self,
        hx: Tensor,
        expected_hidden_size: tuple[int, int, int],
        msg: str = "Expected hidden size {}, got {}",
    ) -> None:
        """torch's error when ``hx`` is not of the expected size."""
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Tensor | None) -> None:
        """Check the input and the initial hidden state."""
        self.check_input(input, batch_sizes)
        expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)
        self.check_hidden_size(hidden, expected_hidden_size)

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        """``hx`` with its batch in the order of ``permutation`` (None: unchanged)."""
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _zeros(self, input: Tensor, batch: int, size: int) -> Tensor:
        directions = 2 if self.bidirectional else 1
        return hookgrad.zeros(self.num_layers * directions, batch, size, dtype=input.dtype)

    def _run(self, input: Tensor, batch_sizes: Tensor | None, hx: Any) -> tuple[Any, ...]:
        """The layers on a checked input (time-major unless ``batch_first``, or packed)."""
        mode = self.mode
        if batch_sizes is None:
            return F_rnn.rnn(
                mode,
                input,
                hx,
                self._flat_weights,
                self.bias,
                self.num_layers,
                self.dropout,
                self.training,
                self.bidirectional,
                self.batch_first,
            )
        return F_rnn.rnn_packed(
            mode,
            input,
            batch_sizes,
            hx,
            self._flat_weights,
            self.bias,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
        )

    def _forward_one_hidden(self, name: str, input: Any, hx: Tensor | None) -> tuple[Any, Tensor]:
        """``RNN`` and ``GRU``'s forward: one hidden state."""
        orig_input = input
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zeros(input, int(batch_sizes[0]), self.hidden_size)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                detail = " tensor" if name == "RNN" else ""
                raise ValueError(
                    f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{detail} instead"
                )
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(
                            "For unbatched 2-D input, hx should also be 2-D but got "
                            f"{hx.dim()}-D tensor"
                        )
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
                )
            sorted_indices = unsorted_indices = None
            if hx is None:
                batch = input.size(0) if self.batch_first else input.size(1)
                hx = self._zeros(input, batch, self.hidden_size)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, batch_sizes, hx)
        if isinstance(orig_input, PackedSequence):
            packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


def _check_arguments(
    input_size: Any,
    hidden_size: Any,
    num_layers: int,
    bias: Any,
    batch_first: Any,
    dropout: Any,
    proj_size: int,
) -> None:
    """torch's checks of the constructor arguments (and its warning for dropout with a
    single layer)."""
    if (
        not isinstance(dropout, numbers.Number)
        or not 0 <= dropout <= 1
        or isinstance(dropout, bool)
    ):
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the probability of an "
            "element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so non-zero "
            "dropout expects num_layers greater than 1, but got dropout="
            f"{dropout} and num_layers={num_layers}",
            stacklevel=4,
        )
    for name, value, kind in (
        ("bias", bias, bool),
        ("batch_first", batch_first, bool),
        ("input_size", input_size, int),
    ):
        if not isinstance(value, kind):
            raise TypeError(
                f"{name} should be of type {kind.__name__}, got: {type(value).__name__}"
            )
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (``relu`` with
    ``nonlinearity="relu"``), for each layer.

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``; ``forward(input, hx=None)``
    returns ``(output, h_n)``: the last layer's states at every step ``(T, B, D * H)``
    and every layer's last state ``(num_layers * D, B, H)``.

    Example::

        rnn = nn.RNN(10, 20, 2)
        output, h_n = rnn(hookgrad.randn(5, 3, 10))   # (5, 3, 20), (2, 3, 20)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        return self._forward_one_hidden("RNN", input, hx)


class GRU(RNNBase):
    """Gated recurrent unit layers: per step, ``r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)``,
    ``z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)``, ``n = tanh(W_in x + b_in + r * (W_hn h +
    b_hn))``, ``h' = (1 - z) * n + z * h``.

    Arguments and results as ``RNN``'s (without ``nonlinearity``).

    Example::

        gru = nn.GRU(10, 20, batch_first=True)
        output, h_n = gru(hookgrad.randn(3, 5, 10))   # (3, 5, 20), (1, 3, 20)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        return self._forward_one_hidden("GRU", input, hx)


class LSTM(RNNBase):
    """Long short-term memory layers: per step, gates ``i, f, g, o`` from ``x W_ih^T + b_ih
    + h W_hh^T + b_hh`` (sigmoid, sigmoid, tanh, sigmoid), ``c' = f * c + i * g``,
    ``h' = o * tanh(c')`` (times ``W_hr^T`` with ``proj_size > 0``).

    ``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, proj_size=0)``; ``forward(input, (h_0, c_0)=None)``
    returns ``(output, (h_n, c_n))``.

    Example::

        lstm = nn.LSTM(10, 20, 2)
        output, (h_n, c_n) = lstm(hookgrad.randn(5, 3, 10))   # (5, 3, 20), (2, 3, 20) x 2
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(
        self, input: Tensor, batch_sizes: Tensor | None
    ) -> tuple[int, int, int]:
        """``(num_layers * directions, batch, hidden_size)``."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Tensor | None) -> None:
        """Check the input and both initial states."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        """Both states with their batch in the order of ``permutation``."""
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, tuple[Tensor, Tensor]]:
        orig_input = input
        batch_sizes = None
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                batch = int(batch_sizes[0])
                hx = (
                    self._zeros(input, batch, real_hidden_size),
                    self._zeros(input, batch, self.hidden_size),
                )
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            batch = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = unsorted_indices = None
            if hx is None:
                hx = (
                    self._zeros(input, batch, real_hidden_size),
                    self._zeros(input, batch, self.hidden_size),
                )
                self.check_forward_args(input, hx, batch_sizes)
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError(
                            "For batched 3-D input, hx and cx should also be 3-D but got "
                            f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                        )
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError(
                            "For unbatched 2-D input, hx and cx should also be 2-D but got "
                            f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                        )
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                self.check_forward_args(input, hx, batch_sizes)
                hx = self.permute_hidden(hx, sorted_indices)
        output, h_n, c_n = self._run(input, batch_sizes, hx)
        hidden = (h_n, c_n)
        if isinstance(orig_input, PackedSequence):
            packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


# ---------------------------------------------------------------- cells


class RNNCellBase(Module):
    """What the cells share: ``weight_ih (chunks * hidden, input)``, ``weight_hh (chunks *
    hidden, hidden)``, ``bias_ih``, ``bias_hh`` (None without ``bias``), uniform on
    ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``.

    Example::

        cell = nn.RNNCellBase(8, 16, bias=True, num_chunks=4)   # an LSTMCell's parameters
        cell.weight_ih.shape   # hookgrad.Size([64, 8])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(hookgrad.empty((rows, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(hookgrad.empty((rows, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(hookgrad.empty(rows, device=device, dtype=dtype))
            self.bias_hh = Parameter(hookgrad.empty(rows, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Re-draw every parameter uniform on ``[-1/sqrt(hidden_size), 1/sqrt(hidden_size)]``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, name: str, input: Tensor, hx: Any, what: str) -> tuple[Tensor, Any, bool]:
        """torch's rank checks; an unbatched input (and state) gets a batch dim of 1; a
        missing state is zeros."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = hx if isinstance(hx, tuple) else (hx,)
        for index, value in enumerate(states):
            if value is not None and value.dim() not in (1, 2):
                label = f"hx[{index}]" if isinstance(hx, tuple) else "hidden"
                raise ValueError(
                    f"{name}: Expected {label} to be 1D or 2D, got {value.dim()}D instead"
                )
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = hookgrad.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros) if what == "pair" else zeros
        elif not is_batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if isinstance(hx, tuple) else hx.unsqueeze(0)
        return input, hx, is_batched

    def _step(self, mode: str, input: Tensor, hx: Any) -> Any:
        return F_rnn.cell(
            mode, input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh
        )


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (``relu``
    with ``nonlinearity="relu"``).

    ``forward(input, hx=None)``: ``input (B, input_size)`` or ``(input_size,)``, ``hx`` of
    the matching shape with ``hidden_size`` features (zeros if None).

    Example::

        cell = nn.RNNCell(10, 20)
        h = cell(hookgrad.randn(3, 10))   # (3, 20)
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, is_batched = self._batched("RNNCell", input, hx, "one")
        if self.nonlinearity == "tanh":
            ret = self._step("RNN_TANH", input, hx)
        elif self.nonlinearity == "relu":
            ret = self._step("RNN_RELU", input, hx)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM: ``(h', c')`` from ``input`` and ``(h, c)`` (zeros if None).

    Example::

        cell = nn.LSTMCell(10, 20)
        h, c = cell(hookgrad.randn(3, 10))   # (3, 20) each
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:
        if hx is not None:
            hx = tuple(hx)
        input, hx, is_batched = self._batched("LSTMCell", input, hx, "pair")
        h, c = self._step("LSTM", input, hx)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One step of a GRU: ``h'`` from ``input`` and ``h`` (zeros if None).

    Example::

        cell = nn.GRUCell(10, 20)
        h = cell(hookgrad.randn(3, 10))   # (3, 20)
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, is_batched = self._batched("GRUCell", input, hx, "one")
        ret = self._step("GRU", input, hx)
        return ret if is_batched else ret.squeeze(0)
